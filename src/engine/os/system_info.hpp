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

} // namespace uringprobe
