// The environment report: whether io_method=io_uring will work in this process
// and on this server, and what it will cost. Rows of (name, value, detail).
#pragma once

#include "contract/table.hpp"
#include "uring/pg_ring_plan.hpp"

#include <string>
#include <vector>

namespace uringprobe {

struct ServerFacts {
    // 0 when there is no server (a bare process with no settings given).
    int version_num = 0;
    std::string version;
    std::string io_method; // "" before PostgreSQL 18
    Pg18Settings settings;
    std::string data_directory;
};

struct EnvironmentRequest {
    std::string process; // "backend" or "bare process"
    ServerFacts server;
    std::vector<std::string> scratch_dirs;
    // Create rings (and an SQPOLL thread) to probe the kernel; false: a
    // reading that makes no ring, the rows that need one say so, with
    // `no_probe_why`.
    bool probe = true;
    std::string no_probe_why;
};

// Sets srv.io_method: sync, worker or io_uring (InvalidArgument otherwise).
void set_io_method(ServerFacts& srv, const std::string& io_method);

// The rows a request P with a ServerFacts `server` takes from the command
// line beside PostgreSQL 18's settings (pg18_settings_params()): the
// server's io_method, and its data directory.
template <typename P> ParamRow<P> io_method_row() {
    return {text_param("io_method", "'io_uring'", "sync|worker|io_uring", "io_method").cli_only(),
            [](P& p, const ParamValue& v) { set_io_method(p.server, v.s); }, nullptr};
}
template <typename P> ParamRow<P> data_directory_row(const char* help) {
    return {dir_option("data_directory", false, help),
            [](P& p, const ParamValue& v) { p.server.data_directory = v.s; }, nullptr};
}

// The CLI's environment options beside the settings: io_method, the data
// directory, scratch directories; and probe (SQL's too).
const ParamTable<EnvironmentRequest>& environment_params();

struct EnvironmentRow {
    std::string name;
    std::string value;
    std::string detail;
};

// The columns of its rows, as environment_table() fills them.
std::vector<Column> environment_columns();
std::vector<EnvironmentRow> probe_environment(const EnvironmentRequest& req);
Table environment_table(const std::vector<EnvironmentRow>& rows);

} // namespace uringprobe
