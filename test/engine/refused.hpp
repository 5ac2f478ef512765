// Bad-parameter checks: a valid parameter set with one thing changed.
#pragma once

#include "contract/error.hpp"

#include <string>

// Whether `check` (a validate() call) refuses `base` once `change` has been
// applied to a copy of it: InvalidArgument; any other exception escapes.
template <class Params, class Check, class Change>
bool refused_after(const Params& base, Check check, Change change) {
    Params p = base;
    change(p);
    try {
        check(p);
    } catch (const uringprobe::InvalidArgument&) {
        return true;
    }
    return false;
}

// The message `check` (a call that may throw InvalidArgument) refuses
// with, or "accepted".
template <class Check> std::string refusal(Check check) {
    try {
        check();
    } catch (const uringprobe::InvalidArgument& e) {
        return e.what();
    }
    return "accepted";
}
