// uringprobe_environment(): the environment report from inside a backend.
#include "boundary.hpp"
#include "module.hpp"
#include "result_table.hpp"
#include "server_settings.hpp"

#include "../engine/experiments/environment.hpp"
#include "../engine/io/scratch_file.hpp"

extern "C" {
#include "catalog/pg_authid_d.h"
#include "utils/acl.h"
}

extern "C" {
PG_FUNCTION_INFO_V1(uringprobe_environment);
Datum uringprobe_environment(PG_FUNCTION_ARGS);
}

// Whether this call creates rings to probe the kernel: as `probe` says,
// and where it is NULL, only for a caller trusted with the experiments
// that create them (pg_execute_server_program); *why says why not.
static bool may_probe(FunctionCallInfo fcinfo, const char** why) {
    const bool trusted = has_privs_of_role(GetUserId(), ROLE_PG_EXECUTE_SERVER_PROGRAM);
    if (PG_NARGS() < 3 || PG_ARGISNULL(2)) {
        *why = "the caller lacks pg_execute_server_program, which creating rings and an SQPOLL "
               "thread needs; probe => true with it";
        return trusted;
    }
    *why = "probe => false";
    if (PG_GETARG_BOOL(2) && !trusted)
        ereport(ERROR,
                (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                 errmsg("uringprobe_environment: probe => true creates io_uring rings and an "
                        "SQPOLL thread"),
                 errdetail("Only roles with privileges of pg_execute_server_program may."),
                 errhint("Call uringprobe_environment(probe => false) for a reading that makes "
                         "no ring.")));
    return PG_GETARG_BOOL(2);
}

Datum uringprobe_environment(PG_FUNCTION_ARGS) {
    const char* no_probe_why = nullptr;
    const bool probe = may_probe(fcinfo, &no_probe_why);
    const bool override_connections = !PG_ARGISNULL(0);
    const int max_connections = override_connections ? PG_GETARG_INT32(0) : 0;
    const bool override_concurrency = !PG_ARGISNULL(1);
    const int io_max_concurrency = override_concurrency ? PG_GETARG_INT32(1) : 0;
    const uringprobe::pg::ServerSettingTexts t = uringprobe::pg::read_server_settings();
    const char* scratch_dirs = uringprobe::pg::scratch_dirs_setting;

    uringprobe::pg::ResultRows out;
    uringprobe::pg::run_guarded([&] {
        uringprobe::EnvironmentRequest req;
        req.process = "backend";
        req.server = uringprobe::pg::server_facts(t);
        uringprobe::Pg18Settings& s = req.server.settings;
        if (override_connections)
            s.max_connections = max_connections;
        if (override_concurrency)
            s.io_max_concurrency = io_max_concurrency;
        req.scratch_dirs = uringprobe::split_dir_list(scratch_dirs ? scratch_dirs : "");
        req.probe = probe;
        if (!probe)
            req.no_probe_why = no_probe_why;
        uringprobe::pg::copy_table(
            uringprobe::environment_table(uringprobe::probe_environment(req)), &out);
    });
    uringprobe::pg::emit_rows(fcinfo, out);
    return (Datum)0;
}
