// Settings of the module, read by the experiments' entry points.
#pragma once

#include "postgres_headers.hpp"

namespace uringprobe::pg {
// uringprobe.scratch_dirs: comma-separated directories for scratch files.
extern char* scratch_dirs_setting;
// uringprobe.advise_tablespaces: tablespaces uringprobe_advise() may write in.
extern char* advise_tablespaces_setting;
// uringprobe.max_rings, uringprobe.max_forks: caps on one experiment call.
extern int max_rings_setting;
extern int max_forks_setting;
// uringprobe.max_scratch_mb: most bytes one uringprobe_extend() call writes.
extern int max_scratch_mb_setting;
extern int max_memory_mb_setting;
extern int max_read_in_flight_setting;
// uringprobe.max_advise_seconds: the longest budget uringprobe_advise() takes.
extern int max_advise_seconds_setting;
} // namespace uringprobe::pg
