// The monitoring reading: one row for exporters (pgwatch, sql_exporter,
// custom queries), read without I/O and without making a ring: what
// io_method the server runs, whether what this backend can read refuses
// io_uring, the ring layout PostgreSQL 18 sets up at the server's settings
// and what the postmaster holds of it, and the RLIMIT_MEMLOCK margin.
#pragma once

#include "contract/table.hpp"
#include "experiments/environment.hpp"
#include "os/process_snapshot.hpp"
#include "uring/io_uring_caps.hpp"

#include <string>

namespace uringprobe {

struct MonitorReading {
    std::string io_method;                // the server's ("" before PostgreSQL 18)
    std::string io_uring_disabled;        // kernel.io_uring_disabled, "absent"
    std::string seccomp;                  // none, strict, filter
    std::string refused_by;               // "" when nothing read here refuses io_uring
    bool pg18 = false;                    // the ring rows below apply
    RingPlan plan;                        // at the server's settings, no ring made
    unsigned long long memlock_limit = 0; // RLIM_INFINITY as ~0ULL
    ProcessSnapshot postmaster;
};

// What in `f` refuses io_uring to this process for certain, without trying
// a ring: kernel.io_uring_disabled 2, or 1 outside kernel.io_uring_group,
// or seccomp's strict mode; "" where nothing does (a seccomp filter may,
// which only a ring shows: uringprobe_environment(probe => true)).
std::string refused_without_a_ring(const RefusalFacts& f);

// This process's reading of a server (its facts, its postmaster's pid).
MonitorReading read_monitor(const ServerFacts& server, pid_t postmaster);

std::vector<Column> monitor_columns();
Table monitor_table(const MonitorReading& r);

} // namespace uringprobe
