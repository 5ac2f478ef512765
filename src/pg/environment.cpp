// uringprobe_environment(): the preflight report from inside a backend.
#include "boundary.hpp"
#include "module.hpp"
#include "result_table.hpp"

#include "../engine/environment.hpp"

#include <cstdlib>
#include <sstream>

namespace {

// Settings are read as plain C strings before any C++ object exists.
struct SettingTexts {
    const char* version;
    const char* io_method;
    const char* max_connections;
    const char* autovacuum_worker_slots;
    const char* max_worker_processes;
    const char* max_wal_senders;
    const char* io_max_concurrency;
    const char* max_files_per_process;
    const char* scratch_dirs;
    const char* data_directory;
};

// GetConfigOption() formats numbers into one static buffer: copy each value
// before reading the next. NULL when the server has no such setting.
const char* setting_copy(const char* name) {
    const char* v = GetConfigOption(name, true, false);
    return v ? pstrdup(v) : nullptr;
}

int to_int(const char* text, int fallback) {
    return text ? std::atoi(text) : fallback;
}

} // namespace

extern "C" {
PG_FUNCTION_INFO_V1(uringprobe_environment);
Datum uringprobe_environment(PG_FUNCTION_ARGS);
}

Datum uringprobe_environment(PG_FUNCTION_ARGS) {
    const bool override_connections = !PG_ARGISNULL(0);
    const int max_connections = override_connections ? PG_GETARG_INT32(0) : 0;
    const bool override_concurrency = !PG_ARGISNULL(1);
    const int io_max_concurrency = override_concurrency ? PG_GETARG_INT32(1) : 0;
    SettingTexts t;
    t.version = setting_copy("server_version");
    t.io_method = setting_copy("io_method");
    t.max_connections = setting_copy("max_connections");
    t.autovacuum_worker_slots = setting_copy("autovacuum_worker_slots");
    t.max_worker_processes = setting_copy("max_worker_processes");
    t.max_wal_senders = setting_copy("max_wal_senders");
    t.io_max_concurrency = setting_copy("io_max_concurrency");
    t.max_files_per_process = setting_copy("max_files_per_process");
    t.scratch_dirs = uringprobe::pg::scratch_dirs_setting;
    t.data_directory = DataDir;

    uringprobe::pg::ResultRows out;
    uringprobe::pg::run_guarded([&] {
        uringprobe::EnvironmentRequest req;
        req.process = "backend";
        uringprobe::ServerFacts& srv = req.server;
        srv.version_num = PG_VERSION_NUM;
        srv.version = t.version ? t.version : PG_VERSION;
        srv.io_method = t.io_method ? t.io_method : "";
        uringprobe::Pg18Settings& s = srv.settings;
        s.max_connections = override_connections ? max_connections : to_int(t.max_connections, 100);
        s.autovacuum_worker_slots = to_int(t.autovacuum_worker_slots, 16);
        s.max_worker_processes = to_int(t.max_worker_processes, 8);
        s.max_wal_senders = to_int(t.max_wal_senders, 10);
        s.io_max_concurrency =
            override_concurrency ? io_max_concurrency : to_int(t.io_max_concurrency, 64);
        s.max_files_per_process = to_int(t.max_files_per_process, 1000);
#ifdef HAVE_IO_URING_QUEUE_INIT_MEM
        s.built_with_queue_init_mem = true;
#endif
        srv.data_directory = t.data_directory ? t.data_directory : "";
        std::stringstream dirs(t.scratch_dirs ? t.scratch_dirs : "");
        for (std::string d; std::getline(dirs, d, ',');) {
            d.erase(0, d.find_first_not_of(" \t"));
            d.erase(d.find_last_not_of(" \t") + 1);
            if (!d.empty())
                req.scratch_dirs.push_back(d);
        }
        uringprobe::pg::copy_table(
            uringprobe::environment_table(uringprobe::probe_environment(req)), &out);
    });
    uringprobe::pg::emit_rows(fcinfo, out);
    return (Datum)0;
}
