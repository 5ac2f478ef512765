// Checking an experiment's parameters: names from a fixed list, numbers in
// a range, with messages that name the parameter and what is allowed.
#pragma once

#include "contract/error.hpp"

#include <cstddef>
#include <string>

namespace uringprobe {

struct NamedValue {
    const char* name;
    int value;
};

// The value of `name` in `names`; InvalidArgument listing them otherwise.
template <size_t N>
int lookup_name(const NamedValue (&names)[N], const std::string& what, const std::string& name) {
    std::string allowed;
    for (const auto& n : names) {
        if (name == n.name)
            return n.value;
        allowed += std::string(allowed.empty() ? "" : ", ") + n.name;
    }
    throw InvalidArgument(what + " must be one of " + allowed + ", got '" + name + "'");
}

template <size_t N> const char* name_of(const NamedValue (&names)[N], int value) {
    for (const auto& n : names)
        if (n.value == value)
            return n.name;
    return "?";
}

inline void check_range(const char* name, long v, long lo, long hi) {
    if (v < lo || v > hi)
        throw InvalidArgument(std::string(name) + " must be between " + std::to_string(lo) +
                              " and " + std::to_string(hi) + ", got " + std::to_string(v));
}

} // namespace uringprobe
