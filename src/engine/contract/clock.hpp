// Monotonic time for measurements.
#pragma once

#include <cstdint>
#include <ctime>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace uringprobe {

inline std::int64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// A clock for timing every round of the tightest loops, where even the
// vDSO's clock_gettime (~20-25 ns here) is a share of a round of a few
// hundred ns: the CPU's time-stamp counter (rdtsc, a few ns) where the
// kernel itself keeps time by it (clocksource tsc: invariant, the same on
// every CPU), else CLOCK_MONOTONIC. Ticks become nanoseconds by the rate
// measured over the clock's own life against CLOCK_MONOTONIC (at least
// the measured loop: the longer, the closer).
class TickClock {
public:
    TickClock();
    // True when ticks are the time-stamp counter's.
    bool counts_cycles() const { return tsc_; }
    std::int64_t ticks() const { return tsc_ ? cycles() : now_ns(); }
    // The time-stamp counter (now_ns() where there is none): for a loop
    // compiled once for each kind of tick, that needs no test per read.
    static std::int64_t cycles() {
#if defined(__x86_64__) || defined(__i386__)
        return static_cast<std::int64_t>(__rdtsc());
#else
        return now_ns();
#endif
    }
    // Nanoseconds a tick, from the clock's start to now (1 for ns ticks).
    double ns_per_tick() const;

private:
    bool tsc_ = false;
    std::int64_t start_ns_ = 0;
    std::int64_t start_ticks_ = 0;
};

} // namespace uringprobe
