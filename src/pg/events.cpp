// uringprobe_events(): the pipe ping-pong in this backend, over epoll,
// poll, io_uring polls, or PostgreSQL's own WaitEventSet.
#include "experiment.hpp"
#include "module.hpp"

#include "../engine/contract/caps.hpp"
#include "../engine/experiments/events_experiment.hpp"

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

// The backend's own wait machinery as an EventWaiter.
class WaitEventSetWaiter : public uringprobe::EventWaiter {
public:
    explicit WaitEventSetWaiter(int pipes) : events_(new WaitEvent[size_t(pipes)]) {
        WaitEventSet*& set = set_;
        uringprobe::pg::call_pg("CreateWaitEventSet", [&] {
#if PG_VERSION_NUM >= 170000
            set = CreateWaitEventSet(CurrentResourceOwner, pipes);
#else
            set = CreateWaitEventSet(CurrentMemoryContext, pipes);
#endif
        });
    }
    ~WaitEventSetWaiter() override {
        FreeWaitEventSet(set_);
    }
    void add(int fd, int index) override {
        WaitEventSet* set = set_;
        void* data = reinterpret_cast<void*>(static_cast<intptr_t>(index));
        uringprobe::pg::call_pg("AddWaitEventToSet", [&] {
            AddWaitEventToSet(set, WL_SOCKET_READABLE, fd, nullptr, data);
        });
    }
    int wait(int* ready, int max, int timeout_ms) override {
        WaitEventSet* set = set_;
        WaitEvent* events = events_.get();
        int n = 0;
        uringprobe::pg::call_pg("WaitEventSetWait", [&] {
            n = WaitEventSetWait(set, timeout_ms, events, max, PG_WAIT_EXTENSION);
        });
        for (int i = 0; i < n; ++i)
            ready[i] = static_cast<int>(reinterpret_cast<intptr_t>(events_[size_t(i)].user_data));
        return n;
    }

private:
    WaitEventSet* set_ = nullptr;
    std::unique_ptr<WaitEvent[]> events_;
};

} // namespace

Datum uringprobe_events(PG_FUNCTION_ARGS) {
    const long long max_memory_mb = uringprobe::pg::max_memory_mb_setting;
    return uringprobe::pg::run_experiment(
        fcinfo, "uringprobe_events", uringprobe::events_params, [&](uringprobe::EventsParams& p) {
            uringprobe::validate(p, {{uringprobe::kMaxMemoryMb.name, max_memory_mb}},
                                 kWaitEventSet);
            const uringprobe::EventsResult r = uringprobe::run_events(
                p, [&] { return std::make_unique<WaitEventSetWaiter>(p.pipes); },
                uringprobe::pg::stop_requested);
            return uringprobe::events_table(r);
        });
}
