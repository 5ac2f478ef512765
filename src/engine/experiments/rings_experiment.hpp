// The cost of many io_uring rings on fork() and exit(): what PostgreSQL 18's
// postmaster pays per connection with io_method=io_uring. N rings of a given
// depth are set up in this process, either each with its own kernel
// mappings (io_uring_queue_init, "mmap") or all in one user-memory region
// (IORING_SETUP_NO_MMAP, "no_mmap", as PostgreSQL 18 does with liburing >=
// 2.5); then fork() -> child _exit(0) -> waitpid() is timed many times. A
// zero-ring baseline is measured in the same call; the variants take turns
// in blocks of 25 forks, each block setting up its rings afresh.
#pragma once

#include "contract/histogram.hpp"
#include "contract/param_table.hpp"
#include "contract/result.hpp"
#include "contract/usage.hpp"

#include <functional>
#include <string>
#include <vector>

namespace uringprobe {

struct RingsParams {
    RingsParams(); // every parameter at its default
    int rings;
    int depth;
    bool mmap = true;    // run the mmap variant      } both set by the
    bool no_mmap = true; // run the no_mmap variant   } mode parameter
    bool dontfork;       // mmap rings marked MADV_DONTFORK (io_uring_ring_dontfork)
    int forks;
};

// rings, depth, mode, dontfork, forks; caps: uringprobe.max_rings and
// uringprobe.max_forks.
const ParamTable<RingsParams>& rings_params();

// "mmap", "no_mmap" or "both"; throws InvalidArgument otherwise.
void set_ring_modes(RingsParams& p, const std::string& mode);
void validate(const RingsParams& p, const Caps& caps);

struct RingsVariant {
    std::string variant; // baseline, mmap, mmap+dontfork, no_mmap
    Outcome outcome = Outcome::ok();
    int rings = 0;
    int depth = 0;
    size_t ring_bytes = 0;  // kernel ring memory (mmap) or region size (no_mmap)
    double setup_ms = 0;    // per block
    double teardown_ms = 0; // per block
    long maps_before = 0;
    long maps_after = 0;
    long pte_before_kb = 0;
    long pte_after_kb = 0;
    long forks = 0;
    double fork_seconds = 0;
    LatencyHistogram fork_latency; // fork() until the child is reaped
    LatencyHistogram fork_call;    // fork() until it returns in the parent: the copy
    UsageDelta usage;              // this process and its reaped children, over the fork loop
};

struct RingsResult {
    std::vector<RingsVariant> variants;
    Outcome outcome = Outcome::ok(); // stopped: the caller raises the interrupt
};

// Runs the variants; polls should_stop() between forks. Every ring, region
// and child is gone when this returns or throws.
RingsResult run_rings(const RingsParams& p, const std::function<bool()>& should_stop);

// The columns of its rows, as rings_table() fills them.
std::vector<Column> rings_columns();
Table rings_table(const RingsResult& r);

// The experiment in this process by itself, its parameters as given
// (`uringprobe-cli rings`): validated against the parameters' own ranges,
// stopped by should_stop().
Table run_rings_in_process(const GivenParams& given, const std::function<bool()>& should_stop);

} // namespace uringprobe
