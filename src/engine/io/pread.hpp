// pread(2) again after EINTR: the bytes read, or -errno.
#pragma once

#include <cerrno>
#include <sys/types.h>
#include <unistd.h>

namespace uringprobe {

inline ssize_t pread_retrying(int fd, char* buf, size_t len, off_t off) {
    for (;;) {
        const ssize_t n = ::pread(fd, buf, len, off);
        if (n >= 0 || errno != EINTR)
            return n < 0 ? -errno : n;
    }
}

} // namespace uringprobe
