// Settings of the module, read by the experiments' entry points.
#pragma once

#include "postgres_headers.hpp"

namespace uringprobe::pg {
// uringprobe.scratch_dirs: comma-separated directories for scratch files.
extern char* scratch_dirs_setting;
// uringprobe.max_rings, uringprobe.max_forks: caps on one experiment call.
extern int max_rings_setting;
extern int max_forks_setting;
// uringprobe.max_scratch_mb: most bytes one uringprobe_extend() call writes.
extern int max_scratch_mb_setting;
} // namespace uringprobe::pg
