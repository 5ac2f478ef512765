#include "contract/clock.hpp"

#include <fstream>
#include <string>

namespace uringprobe {

namespace {

// The kernel keeps time by the time-stamp counter: it is invariant and
// synchronized across CPUs (else the kernel would have left it).
bool tsc_is_clocksource() {
#if defined(__x86_64__) || defined(__i386__)
    std::ifstream f("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    std::string source;
    return f >> source && source == "tsc";
#else
    return false;
#endif
}

} // namespace

TickClock::TickClock() : tsc_(tsc_is_clocksource()) {
    start_ns_ = now_ns();
    start_ticks_ = ticks();
}

double TickClock::ns_per_tick() const {
    if (!tsc_)
        return 1.0;
    const std::int64_t ticks_passed = ticks() - start_ticks_;
    const std::int64_t ns_passed = now_ns() - start_ns_;
    return ticks_passed > 0 && ns_passed > 0 ? static_cast<double>(ns_passed) / ticks_passed : 1.0;
}

} // namespace uringprobe
