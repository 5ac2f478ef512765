// The one place where C++ meets PostgreSQL's error handling.
//
// A C++ body runs inside run_guarded(). Any exception it throws is caught
// there, its message, errno and hint are copied into a plain struct, every
// destructor runs as the body unwinds, and only after the body's scope has
// ended is the error raised with ereport(ERROR), whose longjmp then crosses
// no C++ frame. The body itself must not call PostgreSQL functions that can
// raise errors (palloc_extended with MCXT_ALLOC_NO_OOM is fine).
#pragma once

#include "postgres_headers.hpp"

#include <cstddef>
#include <string>

namespace uringprobe::pg {

struct CapturedError {
    bool raised = false;
    int sqlstate = 0;
    int saved_errno = 0;
    char message[1024] = {};
    char hint[512] = {};
};

// Fill `err` from the exception in flight; called only from a catch block.
void capture_current_exception(CapturedError* err) noexcept;
[[noreturn]] void raise_captured(const CapturedError& err);

template <typename Body> void run_guarded(Body&& body) {
    CapturedError err;
    try {
        body();
    } catch (...) {
        capture_current_exception(&err);
    }
    if (err.raised)
        raise_captured(err);
}

// A palloc'd copy of `s` in the current memory context, made without
// raising: throws std::bad_alloc instead, for use inside run_guarded().
char* pstrdup_guarded(const std::string& s);

} // namespace uringprobe::pg
