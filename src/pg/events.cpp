// uringprobe_events(): the pipe ping-pong in this backend, over epoll,
// poll, io_uring polls, or PostgreSQL's own WaitEventSet.
#include "boundary.hpp"
#include "experiment.hpp"
#include "result_table.hpp"

#include "../engine/error.hpp"
#include "../engine/events_experiment.hpp"

#include <cstring>
#include <memory>

extern "C" {
#if PG_VERSION_NUM >= 180000
#include "storage/waiteventset.h"
#else
#include "storage/latch.h"
#endif
#include "utils/memutils.h"
#include "utils/resowner.h"
}

extern "C" {
PG_FUNCTION_INFO_V1(uringprobe_events);
Datum uringprobe_events(PG_FUNCTION_ARGS);
}

namespace {

const char kWaitEventSet[] = "pg_waiteventset";

// The WaitEventSet calls, each behind PG_TRY with nothing but plain values
// in its frame: an error becomes a message for a C++ exception (raised
// again, as a new ERROR, once the experiment has unwound).
bool set_create(int nevents, WaitEventSet** out, char* msg, size_t len) {
    MemoryContext cxt = CurrentMemoryContext;
    volatile bool ok = true;
    PG_TRY();
    {
#if PG_VERSION_NUM >= 170000
        *out = CreateWaitEventSet(CurrentResourceOwner, nevents);
#else
        *out = CreateWaitEventSet(cxt, nevents);
#endif
    }
    PG_CATCH();
    {
        MemoryContextSwitchTo(cxt);
        ErrorData* e = CopyErrorData();
        FlushErrorState();
        strlcpy(msg, e->message, len);
        FreeErrorData(e);
        ok = false;
    }
    PG_END_TRY();
    return ok;
}

bool set_add(WaitEventSet* set, int fd, int index, char* msg, size_t len) {
    MemoryContext cxt = CurrentMemoryContext;
    volatile bool ok = true;
    PG_TRY();
    {
        AddWaitEventToSet(set, WL_SOCKET_READABLE, fd, nullptr,
                          reinterpret_cast<void*>(static_cast<intptr_t>(index)));
    }
    PG_CATCH();
    {
        MemoryContextSwitchTo(cxt);
        ErrorData* e = CopyErrorData();
        FlushErrorState();
        strlcpy(msg, e->message, len);
        FreeErrorData(e);
        ok = false;
    }
    PG_END_TRY();
    return ok;
}

int set_wait(WaitEventSet* set, WaitEvent* events, int max, char* msg, size_t len) {
    MemoryContext cxt = CurrentMemoryContext;
    volatile int n = -1;
    PG_TRY();
    { n = WaitEventSetWait(set, -1, events, max, PG_WAIT_EXTENSION); }
    PG_CATCH();
    {
        MemoryContextSwitchTo(cxt);
        ErrorData* e = CopyErrorData();
        FlushErrorState();
        strlcpy(msg, e->message, len);
        FreeErrorData(e);
        n = -1;
    }
    PG_END_TRY();
    return n;
}

// The backend's own wait machinery as an EventWaiter.
class WaitEventSetWaiter : public uringprobe::EventWaiter {
public:
    explicit WaitEventSetWaiter(int pipes) : events_(new WaitEvent[size_t(pipes)]) {
        if (!set_create(pipes, &set_, msg_, sizeof msg_))
            throw uringprobe::SysError(EIO, std::string("CreateWaitEventSet: ") + msg_);
    }
    ~WaitEventSetWaiter() override { FreeWaitEventSet(set_); }
    void add(int fd, int index) override {
        if (!set_add(set_, fd, index, msg_, sizeof msg_))
            throw uringprobe::SysError(EIO, std::string("AddWaitEventToSet: ") + msg_);
    }
    int wait(int* ready, int max) override {
        const int n = set_wait(set_, events_.get(), max, msg_, sizeof msg_);
        if (n < 0)
            throw uringprobe::SysError(EIO, std::string("WaitEventSetWait: ") + msg_);
        for (int i = 0; i < n; ++i)
            ready[i] = static_cast<int>(reinterpret_cast<intptr_t>(events_[size_t(i)].user_data));
        return n;
    }

private:
    WaitEventSet* set_ = nullptr;
    std::unique_ptr<WaitEvent[]> events_;
    char msg_[512] = {};
};

} // namespace

Datum uringprobe_events(PG_FUNCTION_ARGS) {
    for (int i = 0; i < 3; ++i)
        if (PG_ARGISNULL(i))
            ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                            errmsg("uringprobe_events: arguments must not be NULL")));
    const char* backend = text_to_cstring(PG_GETARG_TEXT_PP(0));
    const int pipes = PG_GETARG_INT32(1);
    const int64 events = PG_GETARG_INT64(2);
    const uint32 wait_event = uringprobe::pg::experiment_wait_event();

    uringprobe::pg::ResultRows out;
    bool stopped = false;
    pgstat_report_wait_start(wait_event);
    uringprobe::pg::run_guarded([&] {
        uringprobe::EventsParams p;
        p.backend = backend;
        p.pipes = pipes;
        p.events = events;
        uringprobe::validate(p, uringprobe::EventsCaps{}, kWaitEventSet);
        const uringprobe::EventsResult r = uringprobe::run_events(
            p, [&] { return std::make_unique<WaitEventSetWaiter>(p.pipes); },
            uringprobe::pg::stop_requested);
        stopped = r.status == "stopped";
        uringprobe::pg::copy_table(uringprobe::events_table(r), &out);
    });
    pgstat_report_wait_end();
    if (stopped)
        CHECK_FOR_INTERRUPTS();
    uringprobe::pg::emit_rows(fcinfo, out);
    return (Datum)0;
}
