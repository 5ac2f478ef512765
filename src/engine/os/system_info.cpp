#include "os/system_info.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace uringprobe {

std::string kernel_release() {
    utsname u{};
    if (uname(&u) != 0)
        return std::string("error: ") + std::strerror(errno);
    return u.release;
}

std::string read_first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::string filesystem_type(const std::string& path) {
    struct statfs st {};
    if (statfs(path.c_str(), &st) != 0)
        return std::string("error: ") + std::strerror(errno);
    switch (static_cast<unsigned long>(st.f_type)) {
    case XFS_SUPER_MAGIC:
        return "xfs";
    case EXT4_SUPER_MAGIC: // ext2/3/4 share the magic
        return "ext4";
    case BTRFS_SUPER_MAGIC:
        return "btrfs";
    case TMPFS_MAGIC:
        return "tmpfs";
    case OVERLAYFS_SUPER_MAGIC:
        return "overlayfs";
    case 0x2fc12fc1UL:
        return "zfs";
    case 0xf2f52010UL:
        return "f2fs";
    case NFS_SUPER_MAGIC:
        return "nfs";
    default: {
        char buf[32];
        snprintf(buf, sizeof buf, "0x%lx", static_cast<unsigned long>(st.f_type));
        return buf;
    }
    }
}

std::string clock_source() {
    std::string s =
        read_first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    return s.empty() ? "unknown" : s;
}

BlockDevice block_device_of(unsigned long long dev) {
    BlockDevice b;
    const std::string id = std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
    const std::string sys = "/sys/dev/block/" + id;
    char resolved[PATH_MAX];
    if (major(dev) == 0 || !realpath(sys.c_str(), resolved)) {
        b.why =
            "no block device behind device " + id + " (tmpfs, overlay, btrfs: its devices' own)";
        return b;
    }
    std::string path = resolved;
    // a partition: its disk's queue, one directory up
    if (::access((path + "/partition").c_str(), F_OK) == 0)
        path = path.substr(0, path.rfind('/'));
    b.name = path.substr(path.rfind('/') + 1);
    const std::string kb = read_first_line(path + "/queue/read_ahead_kb");
    if (kb.empty() || kb.find_first_not_of("0123456789") != std::string::npos) {
        b.why = "block device " + b.name + " has no queue/read_ahead_kb";
        return b;
    }
    b.read_ahead_kb = std::atoi(kb.c_str());
    return b;
}

} // namespace uringprobe
