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
};

struct EnvironmentRow {
    std::string name;
    std::string value;
    std::string detail;
};

std::vector<EnvironmentRow> probe_environment(const EnvironmentRequest& req);
Table environment_table(const std::vector<EnvironmentRow>& rows);

} // namespace uringprobe
