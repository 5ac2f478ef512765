#include "child_processes.hpp"
#include "contract/error.hpp"
#include "experiments/events_experiment.hpp"
#include "refused.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <sys/select.h>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace uringprobe;

namespace {

const auto never = [] { return false; };

// A waiter the engine does not have: select(2) over what it was given.
class SelectWaiter : public EventWaiter {
public:
    void add(int fd, int index) override { watched_.push_back({fd, index}); }
    int wait(int* ready, int max, int timeout_ms) override {
        ++waits_;
        timeval timeout{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
        fd_set readable;
        FD_ZERO(&readable);
        int top = -1;
        for (const auto& w : watched_) {
            FD_SET(w.first, &readable);
            top = std::max(top, w.first);
        }
        if (::select(top + 1, &readable, nullptr, nullptr, timeout_ms < 0 ? nullptr : &timeout) <=
            0)
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

const char* const kBuiltIn[] = {"epoll",           "poll",
                                "uring_oneshot",   "uring_oneshot_defer",
                                "uring_multishot", "uring_multishot_defer"};

} // namespace

TEST(Events, EveryBackendDeliversExactlyTheEvents) {
    for (const auto peer : {EventPeer::self, EventPeer::process}) {
        for (const char* loop : kBuiltIn) {
            for (int pipes : {1, 4}) {
                EventsParams p;
                p.loop = loop;
                p.pipes = pipes;
                p.events = 2000;
                p.peer = peer;
                const EventsResult r = run_events(p, nullptr, never);
                SCOPED_TRACE(std::string(loop) + " x" + std::to_string(pipes) + " peer " +
                             std::to_string(int(peer)));
                if (r.outcome.status().rfind("unsupported", 0) == 0)
                    continue; // a kernel without multishot or DEFER_TASKRUN says so
                EXPECT_EQ(r.outcome.status(), "ok");
                EXPECT_EQ(r.events, 2000);
                EXPECT_EQ(r.rounds, 2000 / pipes);
                EXPECT_EQ(r.round_latency.count(), static_cast<std::uint64_t>(r.rounds));
                EXPECT_TRUE(children().empty());
            }
        }
    }
}

// The polls wait: every one-shot POLL_ADD is in the kernel before its byte
// is written, so none completes as it is armed, whoever writes; and every
// system call is counted where it is made: with one pipe, a one-shot ring
// enters twice per event (to arm, to wait), a multishot one once (after
// arming once), epoll and poll wait once (and again after a signal).
TEST(Events, PollsWaitAndEntersAreCounted) {
    for (const auto peer : {EventPeer::self, EventPeer::process}) {
        for (const char* loop : kBuiltIn) {
            EventsParams p;
            p.loop = loop;
            p.events = 1000;
            p.peer = peer;
            const EventsResult r = run_events(p, nullptr, never);
            SCOPED_TRACE(std::string(loop) + " peer " + std::to_string(int(peer)));
            if (r.outcome.status().rfind("unsupported", 0) == 0)
                continue;
            ASSERT_EQ(r.outcome.status(), "ok");
            const std::string b = loop;
            long expected = 1000;
            if (b.rfind("uring_oneshot", 0) == 0) {
                EXPECT_EQ(r.armed_ready, 0);
                expected = 2 * 1000;
            } else if (b.rfind("uring_multishot", 0) == 0) {
                EXPECT_EQ(r.armed_ready, 0);
                expected = 1000 + 1;
            } else {
                EXPECT_EQ(r.armed_ready, -1);
            }
            // a wait a signal interrupted is retried: one call more each
            EXPECT_GE(r.enters, expected);
            EXPECT_LE(r.enters, expected + 10);
        }
    }
}

namespace {

// A run of `loop` that would take hours, its bytes written by a peer process.
EventsParams long_run_with_a_peer(const char* loop) {
    EventsParams p;
    p.loop = loop;
    p.events = 100000000;
    p.peer = EventPeer::process;
    return p;
}

} // namespace

// A peer process killed mid-run, while the loop waits for its bytes, is
// one clear error, and no child is left: in every loop (poll sees the
// pipe's end as POLLHUP, not POLLIN). The peer is stopped at a round's
// start, after its ask, and killed at the next stop check, which the wait
// for bytes that do not come makes.
TEST(Events, APeerThatDiesIsAnError) {
    for (const char* loop : kBuiltIn) {
        SCOPED_TRACE(loop);
        const EventsParams p = long_run_with_a_peer(loop);
        int polls = 0;
        finishes_within(20, [&] {
            try {
                run_events(p, nullptr, [&] {
                    ++polls;
                    if (polls == 3 || polls == 4)
                        for (pid_t child : children())
                            ::kill(child, polls == 3 ? SIGSTOP : SIGKILL);
                    return false;
                });
                ADD_FAILURE() << "no error";
            } catch (const SysError& e) {
                EXPECT_NE(std::string(e.what()).find("peer process"), std::string::npos)
                    << e.what();
            }
        });
        EXPECT_TRUE(children().empty());
    }
}

// A peer process that stops (SIGSTOP) leaves every loop waiting for bytes
// that do not come: the wait is bounded, so a stop is still seen, and the
// stopped peer is not left behind.
TEST(Events, APeerThatStopsDoesNotHideAStop) {
    for (const char* loop : kBuiltIn) {
        SCOPED_TRACE(loop);
        const EventsParams p = long_run_with_a_peer(loop);
        int polls = 0;
        std::chrono::steady_clock::time_point stopped_at;
        EventsResult r;
        finishes_within(20, [&] {
            r = run_events(p, nullptr, [&] {
                if (++polls == 3) {
                    for (pid_t child : children())
                        ::kill(child, SIGSTOP);
                    stopped_at = std::chrono::steady_clock::now();
                }
                return polls > 3 && std::chrono::steady_clock::now() - stopped_at >
                                        std::chrono::milliseconds(300);
            });
        });
        EXPECT_EQ(r.outcome.status(), "stopped");
        EXPECT_TRUE(children().empty());
    }
}

TEST(Events, ACallersWaiter) {
    EventsParams p;
    p.loop = "mine";
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
    for (const auto peer : {EventPeer::self, EventPeer::process}) {
        EventsParams p;
        p.events = 100000000;
        p.peer = peer;
        std::atomic<int> polls{0};
        const EventsResult r = run_events(p, nullptr, [&] { return ++polls > 3; });
        EXPECT_EQ(r.outcome.status(), "stopped");
        EXPECT_LT(r.events, 100000000);
        EXPECT_TRUE(children().empty());
    }
}

TEST(Events, BadParametersAreRefused) {
    const Caps caps;
    EventsParams p;
    EXPECT_NO_THROW(validate(p, caps, ""));
    const auto check = [&](const EventsParams& q) { validate(q, caps, ""); };
    EXPECT_TRUE(refused_after(p, check, [](auto& q) { q.loop = "kqueue"; }));
    EXPECT_TRUE(refused_after(p, check, [](auto& q) { q.loop = "pg_waiteventset"; }));
    EXPECT_TRUE(refused_after(p, check, [](auto& q) { q.pipes = 0; }));
    EXPECT_TRUE(refused_after(p, check, [&](auto& q) { q.pipes = 1001; }));
    EXPECT_TRUE(refused_after(p, check, [](auto& q) { q.events = 0; }));
}

// What a call holds counts against uringprobe.max_memory_mb: a page of
// pipe buffer per pipe written, and the ring of an io_uring loop.
TEST(Events, PipesAndRingWithinMaxMemory) {
    const Caps one_mb{{"uringprobe.max_memory_mb", 1}};
    EventsParams p;
    p.pipes = 1000;
    for (const char* loop : {"epoll", "uring_oneshot"}) {
        p.loop = loop;
        EXPECT_NO_THROW(validate(p, {}, ""));
        const std::string why = refusal([&] { validate(p, one_mb, ""); });
        EXPECT_NE(why.find("exceeds uringprobe.max_memory_mb (1 MB)"), std::string::npos)
            << loop << ": " << why;
    }
    p.pipes = 8;
    EXPECT_NO_THROW(validate(p, one_mb, ""));
}
