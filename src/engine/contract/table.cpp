#include "contract/table.hpp"

#include <cstdio>

namespace uringprobe {

std::string Value::to_string(bool exact) const {
    switch (kind) {
    case Kind::integer:
        return std::to_string(i);
    case Kind::real: {
        char buf[64];
        snprintf(buf, sizeof buf, exact ? "%.9g" : "%.3f", d);
        return buf;
    }
    case Kind::text:
        return s;
    default:
        return "";
    }
}

} // namespace uringprobe
