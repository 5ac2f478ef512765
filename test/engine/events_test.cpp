#include "error.hpp"
#include "events_experiment.hpp"
#include "refused.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <sys/select.h>
#include <utility>
#include <vector>

using namespace uringprobe;

namespace {

const auto never = [] { return false; };

// A waiter the engine does not have: select(2) over what it was given.
class SelectWaiter : public EventWaiter {
public:
    void add(int fd, int index) override { watched_.push_back({fd, index}); }
    int wait(int* ready, int max) override {
        ++waits_;
        fd_set readable;
        FD_ZERO(&readable);
        int top = -1;
        for (const auto& w : watched_) {
            FD_SET(w.first, &readable);
            top = std::max(top, w.first);
        }
        if (::select(top + 1, &readable, nullptr, nullptr, nullptr) < 0)
            return 0;
        int n = 0;
        for (const auto& w : watched_)
            if (n < max && FD_ISSET(w.first, &readable))
                ready[n++] = w.second;
        return n;
    }
    long enters() const override { return waits_; }

private:
    std::vector<std::pair<int, int>> watched_; // fd, index
    long waits_ = 0;
};

} // namespace

TEST(Events, EveryBackendDeliversExactlyTheEvents) {
    for (const char* backend : {"epoll", "poll", "uring_oneshot", "uring_oneshot_defer",
                                "uring_multishot", "uring_multishot_defer"}) {
        for (int pipes : {1, 4}) {
            EventsParams p;
            p.backend = backend;
            p.pipes = pipes;
            p.events = 2000;
            const EventsResult r = run_events(p, nullptr, never);
            SCOPED_TRACE(std::string(backend) + " x" + std::to_string(pipes));
            if (r.outcome.status().rfind("unsupported", 0) == 0)
                continue; // a kernel without multishot or DEFER_TASKRUN says so
            EXPECT_EQ(r.outcome.status(), "ok");
            EXPECT_EQ(r.events, 2000);
            EXPECT_EQ(r.rounds, 2000 / pipes);
            EXPECT_EQ(r.round_latency.count(), static_cast<std::uint64_t>(r.rounds));
        }
    }
}

TEST(Events, ACallersWaiter) {
    EventsParams p;
    p.backend = "mine";
    p.pipes = 3;
    p.events = 3000;
    EXPECT_NO_THROW(validate(p, Caps{}, "mine"));
    SelectWaiter* made = nullptr;
    const EventsResult r = run_events(
        p,
        [&]() -> std::unique_ptr<EventWaiter> {
            auto w = std::make_unique<SelectWaiter>();
            made = w.get();
            return w;
        },
        never);
    EXPECT_NE(made, nullptr);
    EXPECT_EQ(r.outcome.status(), "ok");
    EXPECT_EQ(r.events, 3000);
    EXPECT_GE(r.enters, 1000);
}

TEST(Events, StoppedRunsEndCleanly) {
    EventsParams p;
    p.events = 100000000;
    std::atomic<int> polls{0};
    const EventsResult r = run_events(p, nullptr, [&] { return ++polls > 3; });
    EXPECT_EQ(r.outcome.status(), "stopped");
    EXPECT_LT(r.events, 100000000);
}

TEST(Events, BadParametersAreRefused) {
    const Caps caps;
    EventsParams p;
    EXPECT_NO_THROW(validate(p, caps, ""));
    const auto check = [&](const EventsParams& q) { validate(q, caps, ""); };
    EXPECT_TRUE(refused_after(p, check, [](auto& q) { q.backend = "kqueue"; }));
    EXPECT_TRUE(refused_after(p, check, [](auto& q) { q.backend = "pg_waiteventset"; }));
    EXPECT_TRUE(refused_after(p, check, [](auto& q) { q.pipes = 0; }));
    EXPECT_TRUE(refused_after(p, check, [&](auto& q) { q.pipes = 1001; }));
    EXPECT_TRUE(refused_after(p, check, [](auto& q) { q.events = 0; }));
}
