// Facts about the machine that decide how an I/O experiment behaves.
#pragma once

#include <string>

namespace uringprobe {

std::string kernel_release();
// Contents of a one-line /proc or /sys file, or "" when absent.
std::string read_first_line(const std::string& path);
// Filesystem type name of the filesystem holding `path` (statfs), or
// "error: ..." when it cannot be read.
std::string filesystem_type(const std::string& path);
std::string clock_source();

// The block device a filesystem on `dev` (st_dev) reads from, and its
// queue's read_ahead_kb (a partition's is its disk's), from /sys/dev/block.
// read_ahead_kb -1 and `why` where there is none: a filesystem of no
// single block device (tmpfs, overlay, btrfs' anonymous device numbers).
struct BlockDevice {
    std::string name; // "vda", "loop3"
    int read_ahead_kb = -1;
    std::string why;
};
BlockDevice block_device_of(unsigned long long dev);

} // namespace uringprobe
