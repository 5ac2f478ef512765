// RAII owner of a directory stream (opendir/fdopendir): movable, not
// copyable, closed on scope exit, so that a throw while listing leaks
// nothing.
#pragma once

#include "contract/error.hpp"
#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <utility>

namespace uringprobe {

class Dir {
public:
    // The directory at `path`; throws SysError("opendir PATH").
    static Dir open(const std::string& path) {
        Dir d(::opendir(path.c_str()));
        if (!d)
            throw SysError(errno, "opendir " + path);
        return d;
    }
    // The directory at `path`, or an empty Dir where it cannot be opened.
    static Dir open_if_possible(const char* path) noexcept { return Dir(::opendir(path)); }
    // The directory open as `dir_fd` (which stays open and is not moved:
    // the stream reads a duplicate); `path` names it in errors.
    static Dir open_fd(int dir_fd, const std::string& path) {
        const int dup_fd = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
        if (dup_fd < 0)
            throw SysError(errno, "dup " + path);
        Dir d(::fdopendir(dup_fd));
        if (!d) {
            const int err = errno;
            ::close(dup_fd);
            throw SysError(err, "opendir " + path);
        }
        return d;
    }

    Dir(Dir&& other) noexcept : d_(std::exchange(other.d_, nullptr)) {}
    Dir& operator=(Dir&& other) noexcept {
        if (this != &other) {
            reset();
            d_ = std::exchange(other.d_, nullptr);
        }
        return *this;
    }
    Dir(const Dir&) = delete;
    Dir& operator=(const Dir&) = delete;
    ~Dir() { reset(); }

    explicit operator bool() const { return d_ != nullptr; }
    // The next entry, or nullptr at the end.
    dirent* next() { return ::readdir(d_); }
    // The stream's own descriptor (to skip it when listing /proc/self/fd).
    int fd() const { return ::dirfd(d_); }

private:
    explicit Dir(DIR* d) : d_(d) {}
    void reset() {
        if (d_)
            ::closedir(d_);
        d_ = nullptr;
    }

    DIR* d_ = nullptr;
};

} // namespace uringprobe
