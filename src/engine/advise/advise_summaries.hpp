// What the rules of uringprobe_advise() decide from: plain values, counted
// (AdviseContext) or measured and summarized (ForkCostSummary,
// ExtendSummary, BudgetSummary). The measurements fill them in a live
// process; the tests make them up.
#pragma once

#include "contract/run_stats.hpp"
#include "experiments/environment.hpp"
#include "experiments/extend_experiment.hpp"
#include "uring/io_uring_caps.hpp"
#include "uring/pg_ring_plan.hpp"

#include <optional>
#include <string>
#include <vector>

namespace uringprobe {

// Everything counted, not measured: the server's settings, this process's
// limits, what the kernel allows.
struct AdviseContext {
    std::string process; // "backend" or "bare process"
    ServerFacts server;
    std::string file_extend_method; // the server's, "" where it has none
    int concurrency = 4;            // sessions extending one relation at once
    unsigned depth = 64;            // entries per ring (io_max_concurrency, a power of two)
    RingPlan plan;                  // the rings PostgreSQL 18 creates here
    ProcessLimits limits;
    bool ring_ok = true; // this process can create a ring
    int ring_err = 0;    // the errno of io_uring_setup when it cannot
    bool no_mmap_accepted = false;
    bool defer_taskrun_accepted = false;
    MemlockCharge memlock = MemlockCharge::unknown;
    std::string memlock_detail;
    std::string kernel_release;
    std::string io_uring_disabled; // kernel.io_uring_disabled, "" where absent
    RefusalFacts refusal;          // what may refuse io_uring to this process

    bool pg18() const { return server.version_num >= 180000; }
    // PostgreSQL 16+ grows relations by several blocks at once (a rule to choose).
    bool extends_by_rule() const { return server.version_num >= 160000; }
    // This backend holds the server's own rings (they are charged to its
    // limits and inherited by its forks).
    bool holds_server_rings() const {
        return process == "backend" && server.io_method == "io_uring";
    }
};

// One ring layout's cost per connection, at the server's ring count.
struct LayoutFigures {
    RunSummary fork_us;  // fork + exit p50 with the rings
    RunSummary added_us; // over a bare fork, scaled to the server's rings
    RunSummary share;    // added / bare fork
};

// fork() + exit() of this process with the server's rings, against a bare one.
struct ForkCostSummary {
    std::string not_measured; // why no round was measured; "" when one was
    int rounds = 0;
    int rings = 0;      // rings measured
    int plan_rings = 0; // rings the server creates
    bool scaled = false;
    std::string why_fewer; // why fewer rings were measured
    int forks_per_round = 0;
    std::string forks_capped; // the cap that made forks_per_round fewer
    RunSummary bare_us;
    std::optional<LayoutFigures> separate, region;
    std::string region_refused; // why one region was not measured
    std::string failed;         // the error that ended the rounds

    const std::optional<LayoutFigures>& layout(bool one_region) const {
        return one_region ? region : separate;
    }
};

// One extension rule's runs on one filesystem.
struct ExtendFigures {
    RunSummary seconds;
    RunSummary us_per_extension;
    long switches_per_run = 0; // fallocate <-> zeros
};

// posix_fallocate (mdzeroextend) against write_zeros on one filesystem,
// `sessions` sessions growing one file, sized by `sizing`; beside them the
// alternation when sized by lock waiters alone.
struct ExtendSummary {
    std::string not_measured; // why no round was measured; "" when one was
    std::string fs, dir;
    int sessions = 4;
    int mb = 64;
    ExtendSizing sizing = ExtendSizing::waiters_prior;
    int rounds = 0;
    ExtendFigures fallocate, zeros;
    RunSummary fallocate_over_zeros;
    std::optional<ExtendFigures> alternation;
    RunSummary alternation_over_fixed;
    std::string failed;  // the error that ended the rounds
    int tablespaces = 1; // tablespaces on this filesystem
};

// Cold reads of one filesystem's device, the way a sequential scan reads
// (128 kB pieces, buffered, the file's pages dropped first): sync, worker
// threads at the server's io_workers, io_uring at its
// effective_io_concurrency. What io_uring buys, against what each
// connection pays for it (ForkCostSummary).
struct ReadsSummary {
    std::string not_measured; // why no round was measured; "" when one was
    std::string tablespace;   // the first tablespace on this filesystem
    std::string fs, dir;
    int rounds = 0;
    int workers = 3, in_flight = 16, block_kb = 128;
    std::string depth_why; // how in_flight follows from the server's settings
    std::string capped;    // the cap that kept in_flight below that, and how far
    int mb = 32;
    RunSummary sync_mbps, workers_mbps, uring_mbps;
    RunSummary uring_over_workers, uring_over_sync; // per round, of MB/s
    std::string failed;                             // the error that ended the rounds
};

// Cold random reads of one filesystem's device (direct, 8 kB, the way a
// bitmap heap scan or VACUUM reads blocks) with 1, 2, 4 ... reads kept in
// flight: how deep reads must go to reach what the device gives, which is
// what effective_io_concurrency and maintenance_io_concurrency set.
// Each round's figures at one depth (the rounds in the same order at
// every depth).
struct DepthPoint {
    int depth = 1;
    std::vector<double> mbps;
    std::vector<double> p99_us; // a read's latency, 99th percentile
};

struct DepthCurveSummary {
    std::string not_measured; // why no round was measured; "" when one was
    std::string tablespace;   // the first tablespace on this filesystem
    std::string fs, dir;
    int rounds = 0;
    int block_kb = 8;
    int mb = 4;
    bool direct = true;             // O_DIRECT (buffered where the filesystem refuses it)
    bool advised = false;           // each depth a POSIX_FADV_WILLNEED distance (before 18, sync)
    int through_workers = 0;        // each depth queued for this many threads (worker)
    std::string capped;             // the cap that kept the deepest depth below kDeepestRead
    std::vector<DepthPoint> points; // by depth, ascending
    std::string failed;
};

// io_workers against reads several sessions keep in flight at once
// (io/worker_pool_reads.hpp: PostgreSQL 18's shared queue, which a read
// that finds full is done by its session itself): the same random reads
// as the depth curve, at each worker count, beside io_uring at the same
// depth. Each round's figures at one count, the rounds in the same order.
struct WorkersPoint {
    int workers = 1;
    std::vector<double> mbps;
    std::vector<double> p99_us;
    std::vector<double> synchronous;   // share of the reads the sessions did themselves
    std::vector<double> cpu_ms_per_mb; // the workers' CPU
};

struct WorkersCurveSummary {
    std::string not_measured; // why no round was measured; "" when one was
    std::string tablespace, fs, dir;
    int rounds = 0;
    int sessions = 4, depth = 16; // reads each session keeps in flight
    int queue = 63;               // reads the shared queue holds
    int block_kb = 8;
    int mb = 4;
    std::vector<WorkersPoint> points; // by workers, ascending
    std::vector<double> uring_mbps;   // io_uring at sessions x depth, per round
    std::string failed;
};

// Cold sequential reads of one filesystem's device, buffered, the way
// scans read: 8 kB preads one at a time (io_method = sync, PostgreSQL
// before 18) with the kernel's readahead window as the device's
// read_ahead_kb sets it and doubled (POSIX_FADV_SEQUENTIAL); and, on
// PostgreSQL 18, io_uring reads of each size io_combine_limit may take,
// as many in flight as a read stream keeps at that size.
struct SizePoint {
    int kb = 128;
    int in_flight = 1;
    std::vector<double> mbps;
    std::vector<double> p99_us;
};

struct SequentialReadsSummary {
    std::string not_measured; // why no round was measured; "" when one was
    std::string tablespace, fs, dir;
    std::string device;     // the block device, "" where none
    int read_ahead_kb = -1; // its read_ahead_kb now, -1 where none
    std::string no_device;  // why there is no read_ahead_kb to advise
    int rounds = 0;
    int mb = 16;
    RunSummary normal_mbps, doubled_mbps;
    RunSummary doubled_over_normal; // per round
    std::vector<SizePoint> sizes;   // by kB, ascending; empty before 18
    std::string failed;
};

// What the budget went to.
struct BudgetSummary {
    double spent = 0;
    double budget = 0;
    std::string note;    // how the caller changed the budget, if it did
    double deadline = 0; // when a round still running is stopped (0: never)
    struct Part {
        std::string account; // Measurement::account()
        int rounds = 0;
        bool budget_cut = false;
        bool failed = false;
        double estimate = 0; // seconds a round takes
    };
    std::vector<Part> parts;
};

} // namespace uringprobe
