#include "io/file_layout.hpp"

#include "contract/error.hpp"

#include <cerrno>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

namespace uringprobe {

long extent_count(int fd) {
    fiemap fm{};
    fm.fm_start = 0;
    fm.fm_length = FIEMAP_MAX_OFFSET;
    fm.fm_flags = FIEMAP_FLAG_SYNC;
    fm.fm_extent_count = 0; // count only
    if (::ioctl(fd, FS_IOC_FIEMAP, &fm) != 0) {
        if (errno == EOPNOTSUPP || errno == ENOTTY)
            return -1;
        throw SysError(errno, "ioctl FS_IOC_FIEMAP");
    }
    return static_cast<long>(fm.fm_mapped_extents);
}

} // namespace uringprobe
