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

// InterruptPending stays set until CHECK_FOR_INTERRUPTS, which runs only
// after the call. Once the flags that set it were served here, it is
// "explained", so that a later ask does not take it for a flag PostgreSQL
// keeps to itself (a recovery conflict) and stop the call for nothing.
bool pending_explained = false;

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

} // namespace

void begin_stop_checks() {
    pending_explained = false;
}

bool stop_requested() {
    if (QueryCancelPending || ProcDiePending || ClientConnectionLost || !PostmasterIsAlive())
        return true;
    if (!InterruptPending)
        return false;
    // Served here, as ProcessInterrupts would: a DROP DATABASE waits for
    // every backend to absorb its barrier, and a call can run for minutes.
    bool served = false;
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
            return true;
    }
#if PG_VERSION_NUM >= 170000
    if (TransactionTimeoutPending) {
        if (TransactionTimeout > 0)
            return true;
        served = true; // reset to 0 since: PostgreSQL ignores it too
    }
#endif
    // Timeouts that apply only while idle: PostgreSQL ignores them during
    // a statement.
    if (IdleInTransactionSessionTimeoutPending || IdleSessionTimeoutPending ||
        IdleStatsUpdateTimeoutPending)
        served = true;
    if (served) {
        pending_explained = true;
        return false;
    }
    // Set by nothing above: a flag PostgreSQL keeps to itself (a recovery
    // conflict on a standby) or serves elsewhere (a parallel worker's
    // message). CHECK_FOR_INTERRUPTS after the call serves it.
    return !pending_explained;
}

void serve_interrupts_after_run() {
    if (!PostmasterIsAlive())
        ereport(FATAL, (errcode(ERRCODE_ADMIN_SHUTDOWN),
                        errmsg("terminating connection due to unexpected postmaster exit")));
    CHECK_FOR_INTERRUPTS();
}

} // namespace uringprobe::pg
