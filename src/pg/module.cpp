// Module entry: magic block and the settings. No rings are created here:
// under shared_preload_libraries _PG_init runs in the postmaster.
#include "module.hpp"

#include "../engine/contract/caps.hpp"
#include "../engine/io/scratch_file.hpp"

#include <cstdio>
#include <exception>

extern "C" {
#include "miscadmin.h"
#include "storage/ipc.h"
#include "utils/guc.h"
}

extern "C" {
PG_MODULE_MAGIC;
void _PG_init(void);
}

namespace uringprobe::pg {
char* scratch_dirs_setting = nullptr;
char* advise_tablespaces_setting = nullptr;
int max_rings_setting = kMaxRings.default_value;
int max_forks_setting = kMaxForks.default_value;
int max_scratch_mb_setting = kMaxScratchMb.default_value;
int max_memory_mb_setting = kMaxMemoryMb.default_value;
int max_read_in_flight_setting = kMaxReadInFlight.default_value;
int max_advise_seconds_setting = kMaxAdviseSeconds.default_value;
} // namespace uringprobe::pg

// At server start and at each restart after a crash (when preloaded: the
// postmaster's shared-memory start-up, with every backend gone): scratch
// files left by backends that died without cleaning up. Problems are
// logged; they never stop a start.
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

static shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

static void sweep_at_shmem_startup() {
    if (prev_shmem_startup_hook)
        prev_shmem_startup_hook();
    if (!IsUnderPostmaster)
        remove_stale_scratch_files();
}

// A cap (caps.hpp) as a superuser setting.
static void define_cap(const uringprobe::CapSetting& cap, int* value, int flags) {
    DefineCustomIntVariable(cap.name, cap.help, nullptr, value, cap.default_value, cap.min, cap.max,
                            PGC_SUSET, flags, nullptr, nullptr, nullptr);
}

void _PG_init(void) {
    DefineCustomStringVariable(
        "uringprobe.scratch_dirs",
        "Directories where uringprobe experiments may create scratch files.",
        "A comma-separated list of absolute paths; only a superuser can set it.",
        &uringprobe::pg::scratch_dirs_setting, "", PGC_SUSET, 0, nullptr, nullptr, nullptr);
    DefineCustomStringVariable(
        "uringprobe.advise_tablespaces",
        "Tablespaces in whose temporary-file directory uringprobe_advise() may grow files.",
        "A comma-separated list of tablespace names, or * for every one; only a superuser can "
        "set it. A tablespace not listed is measured in a directory of uringprobe.scratch_dirs "
        "on its filesystem, or not at all.",
        &uringprobe::pg::advise_tablespaces_setting, "", PGC_SUSET, 0, nullptr, nullptr, nullptr);
    define_cap(uringprobe::kMaxRings, &uringprobe::pg::max_rings_setting, 0);
    define_cap(uringprobe::kMaxForks, &uringprobe::pg::max_forks_setting, 0);
    define_cap(uringprobe::kMaxScratchMb, &uringprobe::pg::max_scratch_mb_setting, GUC_UNIT_MB);
    define_cap(uringprobe::kMaxMemoryMb, &uringprobe::pg::max_memory_mb_setting, GUC_UNIT_MB);
    define_cap(uringprobe::kMaxReadInFlight, &uringprobe::pg::max_read_in_flight_setting, 0);
    define_cap(uringprobe::kMaxAdviseSeconds, &uringprobe::pg::max_advise_seconds_setting,
               GUC_UNIT_S);
    MarkGUCPrefixReserved("uringprobe");
    if (process_shared_preload_libraries_in_progress) {
        prev_shmem_startup_hook = shmem_startup_hook;
        shmem_startup_hook = sweep_at_shmem_startup;
    }
}
