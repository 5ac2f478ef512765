// RAII owner of a file descriptor: movable, not copyable, closes on scope
// exit. The factories make one or throw SysError naming the call.
#pragma once

#include "contract/error.hpp"

#include <fcntl.h>
#include <string>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include <utility>

namespace uringprobe {

class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    Fd& operator=(Fd&& other) noexcept {
        if (this != &other) {
            reset();
            fd_ = std::exchange(other.fd_, -1);
        }
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }

    // open(2) / openat(2) of `name` relative to `dir`; the error names
    // `what` (e.g. "open /path").
    static Fd open(const char* path, int flags, const std::string& what) {
        return checked(::open(path, flags | O_CLOEXEC), what);
    }
    static Fd openat(int dir, const char* name, int flags, mode_t mode, const std::string& what) {
        return checked(::openat(dir, name, flags | O_CLOEXEC, mode), what);
    }
    static Fd socket(int domain, int type, int protocol) {
        return checked(::socket(domain, type | SOCK_CLOEXEC, protocol), "socket");
    }

    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    void reset() {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = -1;
    }

private:
    static Fd checked(int fd, const std::string& what) {
        if (fd < 0)
            throw SysError(errno, what);
        return Fd(fd);
    }
    int fd_ = -1;
};

// Both ends of a pipe(2).
struct Pipe {
    Fd read_end;
    Fd write_end;

    // pipe2(2) with O_CLOEXEC and `flags` (e.g. O_NONBLOCK).
    static Pipe open(int flags = 0) {
        int fds[2];
        check_syscall(::pipe2(fds, O_CLOEXEC | flags), "pipe2");
        return {Fd(fds[0]), Fd(fds[1])};
    }
};

} // namespace uringprobe
