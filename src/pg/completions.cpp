// uringprobe_completions(): completions kept in flight and replaced as reaped,
// on a ring of this backend.
#include "experiment.hpp"
#include "module.hpp"

#include "../engine/contract/caps.hpp"
#include "../engine/experiments/completions_experiment.hpp"
#include "../engine/io/scratch_file.hpp"

#include <cstring>

extern "C" {
#include "catalog/pg_authid_d.h"
#include "miscadmin.h"
#include "utils/acl.h"
}

extern "C" {
PG_FUNCTION_INFO_V1(uringprobe_completions);
Datum uringprobe_completions(PG_FUNCTION_ARGS);
}

Datum uringprobe_completions(PG_FUNCTION_ARGS) {
    // Reading means writing a scratch file first.
    if (!PG_ARGISNULL(0) && std::strcmp(text_to_cstring(PG_GETARG_TEXT_PP(0)), "read") == 0 &&
        !has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("uringprobe_completions: op 'read' writes a scratch file"),
                        errdetail("Only roles with privileges of pg_write_server_files may.")));
    const char* allowed_list = uringprobe::pg::scratch_dirs_setting;
    const long long max_memory_mb = uringprobe::pg::max_memory_mb_setting;

    return uringprobe::pg::run_experiment(
        fcinfo, "uringprobe_completions", uringprobe::completions_params,
        [&](uringprobe::CompletionsParams& p) {
            uringprobe::validate(p, {{uringprobe::kMaxMemoryMb.name, max_memory_mb}});
            const auto allowed = uringprobe::allowed_scratch_dirs(allowed_list ? allowed_list : "",
                                                                  p.dir_given, p.dir);
            const uringprobe::CompletionsResult r =
                uringprobe::run_completions(p, allowed, uringprobe::pg::stop_requested);
            return uringprobe::completions_table(r);
        });
}
