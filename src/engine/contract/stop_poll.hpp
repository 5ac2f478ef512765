// The one stop rule of every experiment: a measured loop calls poll() once
// per iteration; every kEvery-th call reads the clock, and once kInterval
// has passed since the caller was last asked, should_stop() is asked. So
// the check costs a counter in the loop, a stop is seen within about
// kInterval however many operations one iteration does, and a loop that
// was interrupted (EINTR: a signal arrived, perhaps the cancel itself)
// asks at once with poll_now().
#pragma once

#include "contract/clock.hpp"

#include <cstdint>
#include <functional>

namespace uringprobe {

// A wait's longest block when another process provides what is waited for
// (a peer process's bytes, a sender's datagrams): one that stopped
// (SIGSTOP), hangs or died must not keep a loop from asking its StopPoll
// for longer. A signal, such as a cancel, ends any wait at once.
constexpr int kPeerWaitMs = 100;

class StopPoll {
public:
    static constexpr int kEvery = 16;
    static constexpr std::int64_t kIntervalNs = 2000000; // 2 ms

    explicit StopPoll(const std::function<bool()>& should_stop) : should_stop_(should_stop) {}

    // True once a stop was requested (and from then on). One branch in
    // the measured loop; the rest is out of line.
    bool poll() {
        if (--countdown_ > 0)
            return false;
        return poll_clock();
    }
    // Asks now: after EINTR, or where an iteration is long (a fork).
    bool poll_now() {
        if (!stopped_) {
            last_asked_ns_ = now_ns();
            stopped_ = should_stop_ && should_stop_();
            if (stopped_)
                countdown_ = 1;
        }
        return stopped_;
    }
    bool stopped() const { return stopped_; }

private:
    // Every kEvery-th poll(), and every one once stopped.
    [[gnu::noinline]] bool poll_clock() {
        countdown_ = kEvery;
        if (!stopped_) {
            const std::int64_t now = now_ns();
            if (now - last_asked_ns_ >= kIntervalNs) {
                last_asked_ns_ = now;
                stopped_ = should_stop_ && should_stop_();
            }
        }
        if (stopped_)
            countdown_ = 1;
        return stopped_;
    }

    const std::function<bool()>& should_stop_;
    int countdown_ = 1; // the first poll() asks
    std::int64_t last_asked_ns_ = 0;
    bool stopped_ = false;
};

} // namespace uringprobe
