// How a file is laid out on disk: the fragmentation part of the story.
#pragma once

namespace uringprobe {

// Number of extents of the file behind `fd` (FIEMAP, after writing back its
// dirty pages so delayed allocation has happened), or -1 when the
// filesystem cannot tell (tmpfs, for one).
long extent_count(int fd);

} // namespace uringprobe
