// Errors from the kernel, as C++ exceptions that carry the failing call,
// the errno and a hint a DBA can act on.
#pragma once

#include <cerrno>
#include <stdexcept>
#include <string>
#include <system_error>

namespace uringprobe {

// A hint for errno `err` returned by `call`: the limit or sysctl to look at.
std::string errno_hint(int err, const std::string& call);
using HintOf = std::string (*)(int err, const std::string& call);

// A failed system call or io_uring operation. Its hint comes from
// `hint_of` (a layer that knows more of the call gives its own).
class SysError : public std::system_error {
public:
    SysError(int err, const std::string& call, HintOf hint_of = errno_hint);
    int err() const { return code().value(); }
    const std::string& call() const { return call_; }
    // What to do about it (may be empty). Made when first asked: a hint
    // may probe the kernel (see ring_memory_hint), which must not happen
    // while such a probe's own errors are being made.
    const std::string& hint() const;

private:
    std::string call_;
    HintOf hint_of_;
    mutable std::string hint_;
    mutable bool hinted_ = false;
};

// A parameter outside its allowed range; the message names both.
class InvalidArgument : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// Throws SysError(err, call); out of line, so that the checks below stay
// small enough to inline in measured loops.
[[noreturn, gnu::cold]] void throw_sys_error(int err, const char* call);

// liburing convention: negative return is -errno.
inline int check_neg_errno(int ret, const char* call) {
    if (ret < 0)
        throw_sys_error(-ret, call);
    return ret;
}
// libc convention: -1 and errno.
inline long check_syscall(long ret, const char* call) {
    if (ret == -1)
        throw_sys_error(errno, call);
    return ret;
}

} // namespace uringprobe
