// Numbers as the rows and messages print them.
#pragma once

#include <cstdio>
#include <string>

namespace uringprobe {

// `v` with `digits` decimals ("%.*f").
inline std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

// Bytes in MiB with one decimal: "7.7 MiB".
inline std::string mib_text(unsigned long long bytes) {
    return fixed(static_cast<double>(bytes) / 1048576.0, 1) + " MiB";
}

} // namespace uringprobe
