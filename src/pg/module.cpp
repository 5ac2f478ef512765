// Module entry: magic block and the settings. No rings are created here:
// under shared_preload_libraries _PG_init runs in the postmaster.
#include "module.hpp"

extern "C" {
#include "utils/guc.h"
}

extern "C" {
PG_MODULE_MAGIC;
void _PG_init(void);
}

namespace uringprobe::pg {
char* scratch_dirs_setting = nullptr;
int max_rings_setting = 4096;
int max_forks_setting = 100000;
} // namespace uringprobe::pg

void _PG_init(void) {
    DefineCustomStringVariable(
        "uringprobe.scratch_dirs",
        "Directories where uringprobe experiments may create scratch files.",
        "A comma-separated list of absolute paths; only a superuser can set it.",
        &uringprobe::pg::scratch_dirs_setting, "", PGC_SUSET, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("uringprobe.max_rings",
                            "Most io_uring rings one uringprobe_rings() call may create.", nullptr,
                            &uringprobe::pg::max_rings_setting, 4096, 1, 65536, PGC_SUSET, 0,
                            nullptr, nullptr, nullptr);
    DefineCustomIntVariable("uringprobe.max_forks",
                            "Most child processes one uringprobe_rings() call may fork.", nullptr,
                            &uringprobe::pg::max_forks_setting, 100000, 1, 10000000, PGC_SUSET, 0,
                            nullptr, nullptr, nullptr);
    MarkGUCPrefixReserved("uringprobe");
}
