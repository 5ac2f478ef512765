// This server's settings as the engines take them (ServerFacts), shared by
// uringprobe_environment() and uringprobe_advise(). Read in two steps:
// the settings' texts first, with server calls that may raise (outside any
// C++ object's life), then turned into ServerFacts inside run_guarded().
#pragma once

#include "postgres_headers.hpp"

#include "../engine/experiments/environment.hpp"

namespace uringprobe::pg {

struct ServerSettingTexts {
    const char* version;
    const char* io_method;
    const char* max_connections;
    const char* autovacuum_worker_slots;
    const char* max_worker_processes;
    const char* max_wal_senders;
    const char* io_max_concurrency;
    const char* io_workers;
    const char* effective_io_concurrency;
    const char* maintenance_io_concurrency;
    const char* shared_buffers;
    const char* io_combine_limit;
    const char* io_max_combine_limit;
    const char* max_files_per_process;
    const char* data_directory;
};

// Outside run_guarded(): every setting copied (NULL where the server has no
// such setting).
ServerSettingTexts read_server_settings();

// A copy of setting `name`, NULL where the server has none.
const char* setting_copy(const char* name);

// Inside run_guarded(): the facts, with PostgreSQL 18's defaults for
// settings this server lacks.
ServerFacts server_facts(const ServerSettingTexts& t);

} // namespace uringprobe::pg
