// uringprobe_extend(): relation-style file extension in this backend, in
// the scratch directories a superuser allows.
#include "experiment.hpp"
#include "module.hpp"

#include "../engine/extend_experiment.hpp"
#include "../engine/scratch_file.hpp"

extern "C" {
PG_FUNCTION_INFO_V1(uringprobe_extend);
Datum uringprobe_extend(PG_FUNCTION_ARGS);
}

Datum uringprobe_extend(PG_FUNCTION_ARGS) {
    // dir may be NULL (the first allowed directory); nothing else may.
    for (int i = 1; i < 12; ++i)
        if (PG_ARGISNULL(i))
            ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                            errmsg("uringprobe_extend: only dir may be NULL")));
    const char* dir = PG_ARGISNULL(0) ? nullptr : text_to_cstring(PG_GETARG_TEXT_PP(0));
    const char* strategy = text_to_cstring(PG_GETARG_TEXT_PP(1));
    const char* interface = text_to_cstring(PG_GETARG_TEXT_PP(2));
    const int min_blocks = PG_GETARG_INT32(3);
    const int max_blocks = PG_GETARG_INT32(4);
    const int total_mb = PG_GETARG_INT32(5);
    const bool write_data = PG_GETARG_BOOL(6);
    const int sessions = PG_GETARG_INT32(7);
    const bool shared = PG_GETARG_BOOL(8);
    const int64 seed = PG_GETARG_INT64(9);
    const int block_size = PG_GETARG_INT32(10);
    const bool verify = PG_GETARG_BOOL(11);
    const char* allowed_list = uringprobe::pg::scratch_dirs_setting;
    const int max_total_mb = uringprobe::pg::max_scratch_mb_setting;

    return uringprobe::pg::run_experiment(fcinfo, [&](bool& stopped) {
        const auto allowed = uringprobe::split_dir_list(allowed_list ? allowed_list : "");
        uringprobe::ExtendParams p;
        p.dir = dir ? dir : (allowed.empty() ? "" : allowed.front());
        p.strategy = uringprobe::parse_extend_strategy(strategy);
        p.interface = uringprobe::parse_extend_interface(interface);
        p.min_blocks = min_blocks;
        p.max_blocks = max_blocks;
        p.total_mb = total_mb;
        p.write_data = write_data;
        p.sessions = sessions;
        p.shared = shared;
        p.seed = static_cast<std::uint64_t>(seed);
        p.block_size = block_size;
        p.verify = verify;
        uringprobe::ExtendCaps caps;
        caps.max_total_mb = max_total_mb;
        uringprobe::validate(p, caps);
        const uringprobe::ExtendResult r =
            uringprobe::run_extend(p, allowed, uringprobe::pg::stop_requested);
        stopped = r.outcome.is_stopped();
        return uringprobe::extend_table(r);
    });
}
