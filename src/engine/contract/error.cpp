#include "contract/error.hpp"

#include <cerrno>
#include <cstring>

namespace uringprobe {

std::string errno_hint(int err, const std::string& call) {
    // "open /proc/<pid>/maps", "opendir /proc/<pid>/fd": a process view.
    const bool proc_view = call.find(" /proc/") != std::string::npos;
    switch (err) {
    case EPERM:
        return "the operation is not permitted for this user";
    case EMFILE:
        return "the process ran out of file descriptors: raise RLIMIT_NOFILE (ulimit -n)";
    case ENFILE:
        return "the system ran out of file descriptors: raise fs.file-max";
    case ENOMEM:
        return "out of memory";
    case ENOSYS:
        return "the kernel does not support this system call";
    case EINVAL:
    case EOPNOTSUPP:
        return "the kernel does not support this operation or argument";
    case ENOSPC:
        return "the filesystem is full";
    case EROFS:
        return "the filesystem is mounted read-only";
    case ENOTDIR:
        return "a scratch directory, and each of its parents, must be a directory";
    case EACCES:
        if (proc_view)
            return "reading another process's mappings and fds needs ptrace access to it: "
                   "the process is not dumpable (started with file capabilities, e.g. setcap "
                   "on the postgres binary, or by a wrapper calling prctl(PR_SET_DUMPABLE, 0)), "
                   "or a security module denies it";
        return "permission denied on the path";
    case EEXIST:
        if (call.rfind("create ", 0) == 0)
            return "a file, or a symlink, already has the scratch file's name: something else "
                   "writes into the scratch directory; nothing was written through it";
        return "";
    case ENOENT:
        if (proc_view)
            return "the process is not visible in this /proc (mounted with hidepid, or from "
                   "another pid namespace) or has exited";
        return "";
    default:
        return "";
    }
}

SysError::SysError(int err, const std::string& call, HintOf hint_of)
    : std::system_error(err, std::generic_category(), call), call_(call), hint_of_(hint_of) {}

const std::string& SysError::hint() const {
    if (!hinted_) {
        hint_ = hint_of_ ? hint_of_(err(), call_) : "";
        hinted_ = true;
    }
    return hint_;
}

void throw_sys_error(int err, const char* call) {
    throw SysError(err, call);
}

} // namespace uringprobe
