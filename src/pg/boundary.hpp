// The one place where C++ meets PostgreSQL's error handling, both ways.
//
// C++ inside PostgreSQL: a C++ body runs inside run_guarded(). Any
// exception it throws is caught there, its SQLSTATE, message, detail and
// hint are copied into a plain struct, every destructor runs as the body
// unwinds, and only after the body's scope has ended is the error raised
// with ereport(ERROR), whose longjmp then crosses no C++ frame.
//
// PostgreSQL inside that C++: the body calls server functions that may
// raise an ERROR only through call_pg(), which catches the ERROR with
// PG_TRY and throws it on as a PgError keeping its SQLSTATE, message,
// detail and hint, so the body unwinds normally and run_guarded() raises
// the same error again. (palloc_extended with MCXT_ALLOC_NO_OOM, which
// does not raise, needs no call_pg.)
#pragma once

#include "postgres_headers.hpp"

#include <cstddef>
#include <exception>
#include <string>

namespace uringprobe::pg {

// An error's parts, in plain storage that survives any unwinding.
struct CapturedError {
    bool raised = false;
    int sqlstate = 0;
    int saved_errno = 0;
    char message[1024] = {};
    char detail[512] = {};
    char hint[512] = {};
};

// An ERROR a server function raised inside call_pg(), as a C++ exception.
class PgError : public std::exception {
public:
    explicit PgError(const CapturedError& e) : error_(e) {}
    const char* what() const noexcept override { return error_.message; }
    const CapturedError& error() const { return error_; }

private:
    CapturedError error_;
};

// Inside PG_CATCH: copy the current ERROR into `out` (its message prefixed
// with `what`, the call that raised it) and clear it. Does not raise.
void take_pg_error(const char* what, MemoryContext cxt, CapturedError* out) noexcept;

// Runs `call`, server code that may raise an ERROR, from C++ code inside
// run_guarded(); an ERROR is thrown on as a PgError once PG_TRY has ended.
// `call` is a lambda capturing plain values by reference; no C++ object
// with a destructor may live between PG_TRY and the code that raises.
template <typename Call> void call_pg(const char* what, const Call& call) {
    MemoryContext cxt = CurrentMemoryContext;
    CapturedError err;
    PG_TRY();
    { call(); }
    PG_CATCH();
    { take_pg_error(what, cxt, &err); }
    PG_END_TRY();
    if (err.raised)
        throw PgError(err);
}

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

// palloc in the current memory context without raising: throws
// std::bad_alloc instead, for use inside run_guarded(); and a copy of `s`.
void* palloc_guarded(size_t bytes);
char* pstrdup_guarded(const std::string& s);

} // namespace uringprobe::pg
