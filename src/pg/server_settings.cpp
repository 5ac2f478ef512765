#include "server_settings.hpp"

#include <cstdlib>

namespace uringprobe::pg {

namespace {
int to_int(const char* text, int fallback) {
    return text ? std::atoi(text) : fallback;
}
} // namespace

// GetConfigOption() formats numbers into one static buffer: copy each value
// before reading the next.
const char* setting_copy(const char* name) {
    const char* v = GetConfigOption(name, true, false);
    return v ? pstrdup(v) : nullptr;
}

ServerSettingTexts read_server_settings() {
    ServerSettingTexts t;
    t.version = setting_copy("server_version");
    t.io_method = setting_copy("io_method");
    t.max_connections = setting_copy("max_connections");
    t.autovacuum_worker_slots = setting_copy("autovacuum_worker_slots");
    t.max_worker_processes = setting_copy("max_worker_processes");
    t.max_wal_senders = setting_copy("max_wal_senders");
    t.io_max_concurrency = setting_copy("io_max_concurrency");
    t.io_workers = setting_copy("io_workers");
    t.effective_io_concurrency = setting_copy("effective_io_concurrency");
    t.maintenance_io_concurrency = setting_copy("maintenance_io_concurrency");
    // (integers as the server holds them: blocks, no unit)
    t.shared_buffers = setting_copy("shared_buffers");
    t.io_combine_limit = setting_copy("io_combine_limit");
    t.io_max_combine_limit = setting_copy("io_max_combine_limit");
    t.max_files_per_process = setting_copy("max_files_per_process");
    t.data_directory = DataDir;
    return t;
}

ServerFacts server_facts(const ServerSettingTexts& t) {
    ServerFacts srv;
    srv.version_num = PG_VERSION_NUM;
    srv.version = t.version ? t.version : PG_VERSION;
    srv.io_method = t.io_method ? t.io_method : "";
    Pg18Settings& s = srv.settings;
    const Pg18Settings d; // PostgreSQL 18's defaults, for a setting the server lacks
    s.max_connections = to_int(t.max_connections, d.max_connections);
    s.autovacuum_worker_slots = to_int(t.autovacuum_worker_slots, d.autovacuum_worker_slots);
    s.max_worker_processes = to_int(t.max_worker_processes, d.max_worker_processes);
    s.max_wal_senders = to_int(t.max_wal_senders, d.max_wal_senders);
    s.io_max_concurrency = to_int(t.io_max_concurrency, d.io_max_concurrency);
    s.io_workers = to_int(t.io_workers, d.io_workers);
    s.effective_io_concurrency = to_int(t.effective_io_concurrency, d.effective_io_concurrency);
    s.maintenance_io_concurrency =
        to_int(t.maintenance_io_concurrency, d.maintenance_io_concurrency);
    s.shared_buffers = to_int(t.shared_buffers, d.shared_buffers);
    s.io_combine_limit = to_int(t.io_combine_limit, d.io_combine_limit);
    s.io_max_combine_limit = to_int(t.io_max_combine_limit, d.io_max_combine_limit);
    s.max_files_per_process = to_int(t.max_files_per_process, d.max_files_per_process);
#ifdef HAVE_IO_URING_QUEUE_INIT_MEM
    s.built_with_queue_init_mem = true;
#endif
    srv.data_directory = t.data_directory ? t.data_directory : "";
    return srv;
}

} // namespace uringprobe::pg
