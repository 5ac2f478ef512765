// uringprobe_environment(): the environment report from inside a backend.
#include "boundary.hpp"
#include "module.hpp"
#include "result_table.hpp"
#include "server_settings.hpp"

#include "../engine/experiments/environment.hpp"
#include "../engine/experiments/scratch_file.hpp"

extern "C" {
PG_FUNCTION_INFO_V1(uringprobe_environment);
Datum uringprobe_environment(PG_FUNCTION_ARGS);
}

Datum uringprobe_environment(PG_FUNCTION_ARGS) {
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
        uringprobe::pg::copy_table(
            uringprobe::environment_table(uringprobe::probe_environment(req)), &out);
    });
    uringprobe::pg::emit_rows(fcinfo, out);
    return (Datum)0;
}
