// uringprobe_completions(): reaping completions one by one or in batches,
// on a ring of this backend.
#include "experiment.hpp"
#include "module.hpp"

#include "../engine/completions_experiment.hpp"
#include "../engine/scratch_file.hpp"

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
    for (int i = 0; i < 6; ++i)
        if (PG_ARGISNULL(i))
            ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                            errmsg("uringprobe_completions: only dir may be NULL")));
    const char* op = text_to_cstring(PG_GETARG_TEXT_PP(0));
    const int depth = PG_GETARG_INT32(1);
    const int batch = PG_GETARG_INT32(2);
    const char* reaping = text_to_cstring(PG_GETARG_TEXT_PP(3));
    const char* flags = text_to_cstring(PG_GETARG_TEXT_PP(4));
    const int64 completions = PG_GETARG_INT64(5);
    const char* dir = PG_ARGISNULL(6) ? nullptr : text_to_cstring(PG_GETARG_TEXT_PP(6));
    // Reading means writing a scratch file first.
    if (std::strcmp(op, "read") == 0 && !has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("uringprobe_completions: op 'read' writes a scratch file"),
                        errdetail("Only roles with privileges of pg_write_server_files may.")));
    const char* allowed_list = uringprobe::pg::scratch_dirs_setting;

    return uringprobe::pg::run_experiment(fcinfo, [&](bool& stopped) {
        const auto allowed = uringprobe::split_dir_list(allowed_list ? allowed_list : "");
        uringprobe::CompletionsParams p;
        p.op = uringprobe::parse_completion_op(op);
        p.depth = depth;
        p.batch = batch;
        p.reaping = uringprobe::parse_reaping(reaping);
        p.setup_flags = uringprobe::parse_setup_flags(flags);
        p.completions = completions;
        p.dir = dir ? dir : (allowed.empty() ? "" : allowed.front());
        uringprobe::validate(p, uringprobe::CompletionsCaps{});
        const uringprobe::CompletionsResult r =
            uringprobe::run_completions(p, allowed, uringprobe::pg::stop_requested);
        stopped = r.outcome.is_stopped();
        return uringprobe::completions_table(r);
    });
}
