#include "experiment.hpp"

extern "C" {
#include "storage/pmsignal.h"   // PostmasterIsAlive
#include "storage/proc.h"       // TransactionTimeout
#include "storage/procsignal.h" // ProcessProcSignalBarrier
#include "tcop/tcopprot.h"      // client_connection_check_interval
#include "utils/memutils.h"     // ProcessLogMemoryContextInterrupt
#include "utils/timeout.h"      // CLIENT_CONNECTION_CHECK_TIMEOUT
#include "utils/wait_event.h"

// libpq/libpq.h declares it, but includes libpq-be.h and with it the GSSAPI
// headers on builds with GSSAPI (Debian's), which a module need not have.
extern bool pq_check_connection(void);
}

namespace uringprobe::pg {

uint32 experiment_wait_event() {
#if PG_VERSION_NUM >= 170000
    static uint32 event = 0;
    if (event == 0)
        event = WaitEventExtensionNew("UringprobeExperiment");
    return event;
#else
    return PG_WAIT_EXTENSION;
#endif
}

namespace {

// client_connection_check_interval's check, as ProcessInterrupts makes
// it: false once the client is gone (ClientConnectionLost then set, so
// CHECK_FOR_INTERRUPTS ends the session); otherwise the next check is
// armed.
bool client_still_there() {
    CheckClientConnectionPending = false;
    if (client_connection_check_interval <= 0)
        return true;
    bool alive = true;
    call_pg("pq_check_connection", [&] { alive = pq_check_connection(); });
    if (!alive) {
        ClientConnectionLost = true;
        InterruptPending = true;
        return false;
    }
    call_pg("enable_timeout_after", [] {
        enable_timeout_after(CLIENT_CONNECTION_CHECK_TIMEOUT, client_connection_check_interval);
    });
    return true;
}

enum class Pending { served, stop };

// Serves what must not wait for the end of a call, as ProcessInterrupts
// would; `stop` for what ends the call, or for a flag set by nothing
// served here.
Pending serve_pending() {
    bool served = false;
    // Served here: a DROP DATABASE waits for every backend to absorb its
    // barrier, and a call can run for minutes.
    if (ProcSignalBarrierPending) {
        served = true;
        call_pg("ProcessProcSignalBarrier", [] { ProcessProcSignalBarrier(); });
    }
    if (LogMemoryContextPending) {
        served = true;
        call_pg("ProcessLogMemoryContextInterrupt", [] { ProcessLogMemoryContextInterrupt(); });
    }
    if (CheckClientConnectionPending) {
        served = true;
        if (!client_still_there())
            return Pending::stop;
    }
#if PG_VERSION_NUM >= 170000
    if (TransactionTimeoutPending) {
        if (TransactionTimeout > 0)
            return Pending::stop;
        served = true; // reset to 0 since: PostgreSQL ignores it too
    }
#endif
    // Timeouts that apply only while idle: PostgreSQL ignores them during
    // a statement.
    if (IdleInTransactionSessionTimeoutPending || IdleSessionTimeoutPending ||
        IdleStatsUpdateTimeoutPending)
        served = true;
    // Nothing above: a flag PostgreSQL keeps to itself (a recovery
    // conflict on a standby) or serves elsewhere (a parallel worker's
    // message). CHECK_FOR_INTERRUPTS after the call serves it.
    return served ? Pending::served : Pending::stop;
}

} // namespace

bool stop_requested() {
    if (QueryCancelPending || ProcDiePending || ClientConnectionLost || !PostmasterIsAlive())
        return true;
    if (!InterruptPending)
        return false;
    // Cleared before the flags are read, as ProcessInterrupts clears it:
    // whatever sets a flag from now on sets it again, so an interrupt
    // that what is served here does not explain (a recovery conflict
    // after a client check) is seen at the next ask and stops the call.
    // One that came together with a served flag is not seen until the
    // next: the startup process signals a conflict again every few ms
    // while it waits, and serve_interrupts_after_run() serves whatever
    // is left.
    InterruptPending = false;
    Pending pending = Pending::stop;
    try {
        pending = serve_pending();
    } catch (...) {
        InterruptPending = true; // what was not served is served after
        throw;
    }
    if (pending == Pending::served)
        return false;
    InterruptPending = true;
    return true;
}

void serve_interrupts_after_run() {
    if (!PostmasterIsAlive())
        ereport(FATAL, (errcode(ERRCODE_ADMIN_SHUTDOWN),
                        errmsg("terminating connection due to unexpected postmaster exit")));
    // A flag PostgreSQL keeps to itself may have come while the stop rule
    // had cleared InterruptPending: ProcessInterrupts finds whatever is
    // set, and does nothing when nothing is.
    InterruptPending = true;
    CHECK_FOR_INTERRUPTS();
}

} // namespace uringprobe::pg
