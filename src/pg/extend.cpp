// uringprobe_extend(): relation-style file extension in this backend, in
// the scratch directories a superuser allows.
#include "experiment.hpp"
#include "module.hpp"

#include "../engine/contract/caps.hpp"
#include "../engine/experiments/extend_experiment.hpp"
#include "../engine/io/scratch_file.hpp"

extern "C" {
#include "catalog/pg_authid_d.h"
#include "utils/acl.h"
}

extern "C" {
PG_FUNCTION_INFO_V1(uringprobe_extend);
Datum uringprobe_extend(PG_FUNCTION_ARGS);
}

Datum uringprobe_extend(PG_FUNCTION_ARGS) {
    // Checked here too, as reads and completions('read') check it: EXECUTE
    // granted to another role does not make it one that may write files.
    if (!has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("uringprobe_extend: it writes scratch files"),
                        errdetail("Only roles with privileges of pg_write_server_files may.")));
    const char* allowed_list = uringprobe::pg::scratch_dirs_setting;
    const long long max_scratch_mb = uringprobe::pg::max_scratch_mb_setting;
    const long long max_memory_mb = uringprobe::pg::max_memory_mb_setting;

    return uringprobe::pg::run_experiment(
        fcinfo, "uringprobe_extend", uringprobe::extend_params, [&](uringprobe::ExtendParams& p) {
            const auto allowed = uringprobe::allowed_scratch_dirs(allowed_list ? allowed_list : "",
                                                                  p.dir_given, p.dir);
            uringprobe::validate(p, {{uringprobe::kMaxScratchMb.name, max_scratch_mb},
                                     {uringprobe::kMaxMemoryMb.name, max_memory_mb}});
            const uringprobe::ExtendResult r =
                uringprobe::run_extend(p, allowed, uringprobe::pg::stop_requested);
            return uringprobe::extend_table(r);
        });
}
