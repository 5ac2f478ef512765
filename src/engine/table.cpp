#include "table.hpp"

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

Table experiment_table(const std::vector<std::string>& own_columns) {
    Table t;
    t.columns = {"experiment", "variant", "status", "ops",     "seconds", "ops_per_sec",
                 "p50_us",     "p99_us",  "max_us", "user_ms", "sys_ms"};
    t.columns.insert(t.columns.end(), own_columns.begin(), own_columns.end());
    return t;
}

} // namespace uringprobe
