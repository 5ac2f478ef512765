// Monotonic time for measurements.
#pragma once

#include <cstdint>
#include <ctime>

namespace uringprobe {

inline std::int64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

} // namespace uringprobe
