// Module entry: magic block and the settings. No rings are created here:
// under shared_preload_libraries _PG_init runs in the postmaster.
#include "module.hpp"

#include "../engine/scratch_file.hpp"

#include <cstdio>
#include <exception>

extern "C" {
#include "miscadmin.h"
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
int max_scratch_mb_setting = 1024;
int max_advise_seconds_setting = 300;
} // namespace uringprobe::pg

// At server start (when preloaded): scratch files left by backends that
// died without cleaning up. Problems are logged; they never stop a start.
static void remove_stale_scratch_files() {
    const char* list = uringprobe::pg::scratch_dirs_setting;
    char message[1024] = {};
    int removed = 0;
    try {
        for (const auto& dir : uringprobe::split_dir_list(list ? list : ""))
            removed += uringprobe::ScratchDir(dir, {dir}).remove_stale_files();
    } catch (const std::exception& e) {
        snprintf(message, sizeof message, "%s", e.what());
    } catch (...) {
        snprintf(message, sizeof message, "an unknown C++ exception");
    }
    if (message[0])
        ereport(LOG, (errmsg("uringprobe: could not sweep the scratch directories: %s", message)));
    if (removed)
        ereport(LOG, (errmsg("uringprobe: removed %d stale scratch files", removed)));
}

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
    DefineCustomIntVariable("uringprobe.max_scratch_mb",
                            "Most megabytes one uringprobe_extend() call may write.", nullptr,
                            &uringprobe::pg::max_scratch_mb_setting, 1024, 1, 1048576, PGC_SUSET,
                            GUC_UNIT_MB, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("uringprobe.max_advise_seconds",
                            "Longest budget one uringprobe_advise() call may take.", nullptr,
                            &uringprobe::pg::max_advise_seconds_setting, 300, 1, 86400, PGC_SUSET,
                            GUC_UNIT_S, nullptr, nullptr, nullptr);
    MarkGUCPrefixReserved("uringprobe");
    if (process_shared_preload_libraries_in_progress)
        remove_stale_scratch_files();
}
