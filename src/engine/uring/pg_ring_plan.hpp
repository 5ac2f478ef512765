// What PostgreSQL 18's io_method=io_uring sets up in the postmaster: one ring
// per process that may do I/O, created before any backend exists, and
// inherited by every forked child. Computed from the server's settings and
// the probed kernel, then compared with the process limits.
#pragma once

#include "contract/param_table.hpp"
#include "uring/io_uring_caps.hpp"

#include <cstddef>
#include <string>

namespace uringprobe {

struct Pg18Settings {
    int max_connections = 100;
    int autovacuum_worker_slots = 16;
    int max_worker_processes = 8;
    int max_wal_senders = 10;
    int io_max_concurrency = 64;
    int max_files_per_process = 1000;
    // What its reads keep in flight: io_method = worker's processes, and
    // a read stream's distance (uringprobe_advise() reads with them).
    int io_workers = 3;
    int effective_io_concurrency = 16;
    int maintenance_io_concurrency = 16;
    // What a read stream may pin, and reads at a time: in 8 kB blocks.
    int shared_buffers = 16384;
    int io_combine_limit = 16;
    int io_max_combine_limit = 16; // what io_combine_limit may be set to (a restart)
    // The blocks a read stream combines: io_combine_limit, within io_max_combine_limit.
    int combine_blocks() const {
        return io_combine_limit < io_max_combine_limit ? io_combine_limit : io_max_combine_limit;
    }
    // The server was built with io_uring_queue_init_mem (liburing 2.5 on;
    // 2.7 and later size the rings right).
    bool built_with_queue_init_mem = false;
};

struct RingPlan {
    int rings = 0;
    std::string rings_formula;
    bool one_region = false; // all rings in one shared-memory region (NO_MMAP)
    // "one region" or "separate" as probed; where no ring could be made
    // here, what the server's build would use: "one region (expected)",
    // "separate (expected)" or "unknown"; `layout` says why.
    std::string layout_value;
    std::string layout;
    size_t bytes_per_ring = 0;
    size_t ring_bytes = 0;     // all rings together
    int mappings_per_ring = 0; // separate layout: mappings in every process
    size_t locked_bytes = 0;   // charged to RLIMIT_MEMLOCK (0 if not charged)
    int fds_needed = 0;        // ring fds held by the postmaster
    int fds_recommended = 0;   // rings + max_files_per_process
    // Verdict against the limits.
    bool emfile = false;
    bool enomem = false;
    bool fd_headroom_short = false;
    std::string verdict;
    std::string verdict_detail;
};

struct ProcessLimits {
    unsigned long long nofile_soft = 0;
    unsigned long long memlock_soft = 0; // RLIM_INFINITY as ~0ULL
    int open_fds = 0;                    // already open in this process
};

// The settings as a parameter table: PostgreSQL 18's defaults and ranges,
// the command line's options to predict a server (`uringprobe-cli
// environment`, `advise`); queue_init_mem defaults to this build's liburing.
const ParamTable<Pg18Settings>& pg18_settings_params();

// Throws InvalidArgument naming the setting and PostgreSQL's allowed range.
void validate(const Pg18Settings& s);

ProcessLimits current_limits();
// Where caps has no ring (none could be created, or none was tried), the
// layout is the build's (built_with_queue_init_mem) on the kernel's
// release (IORING_SETUP_NO_MMAP came with 6.5), sizes are estimated, and
// the verdict says what kept the ring from being made.
RingPlan plan_pg18_rings(const Pg18Settings& s, const IoUringCaps& caps, const ProcessLimits& lim);

// How many reads one of PostgreSQL 18's read streams (a sequential scan)
// keeps in flight at most: effective_io_concurrency, but no more than the
// buffers a backend may pin (shared_buffers over every process that may
// pin: MaxBackends and the auxiliary processes, io workers included) hold
// reads of io_combine_limit blocks; at least one.
struct ReadDepth {
    int in_flight = 1;
    int pin_limit = 0; // buffers one backend may pin
    int processes = 0;
    std::string why; // how in_flight follows from the settings
};
ReadDepth pg18_read_depth(const Pg18Settings& s);

// A ring of `entries` (rounded up to a power of two, as the kernel does)
// where none could be created to measure one, in the kernel's layout since 5.4: one mapping for
// both rings (a header under 512 bytes, two 16-byte CQEs and a 4-byte SQ index per entry) and one
// for the 64-byte SQEs, each page-rounded.
size_t estimated_ring_bytes(unsigned entries);

} // namespace uringprobe
