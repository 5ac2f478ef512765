// Relation-style file extension: a scratch file grows block by block the
// way PostgreSQL grows a table, by one of the strategies PostgreSQL has
// used, through plain syscalls or io_uring, from one or several sessions.
//
//   fallocate     posix_fallocate() for every extension
//   write_zeros   pwritev() of zeroed blocks (PostgreSQL's FileZero)
//   mdzeroextend  PostgreSQL 16+'s rule: more than 8 blocks -> fallocate,
//                 else zeros; with extension sizes that vary, the two
//                 alternate on one file (the COPY regression on XFS)
//   write         one pwrite() of a zeroed block per block (PostgreSQL
//                 15 and before, mdextend)
//
// Extension sizes are fixed (min_blocks == max_blocks) or drawn uniformly
// from [min_blocks, max_blocks] by a seeded generator. Sessions are threads
// of this process, each with its own descriptor (and ring): on one shared
// file they extend under one lock, granted in the order asked as backends
// are granted the relation extension lock, and write their data pages
// outside it; or each extends its own
// file. Nothing here blocks signals for long or touches PostgreSQL: the
// sessions run with every signal blocked, the calling thread polls the stop
// callback.
#pragma once

#include "contract/histogram.hpp"
#include "contract/param_table.hpp"
#include "contract/result.hpp"
#include "contract/usage.hpp"
#include "experiments/extend_params.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace uringprobe {

struct ExtendResult {
    ExtendParams params;
    Outcome outcome = Outcome::ok(); // ok or stopped
    long extensions = 0;
    long fallocate_calls = 0;
    long zero_write_calls = 0; // pwritev / IORING_OP_WRITEV of zeros
    long switches = 0;         // fallocate <-> zeros changes between extensions of a file
    std::vector<long> sizes;   // sizes[n]: extensions of n blocks
    long data_write_calls = 0; // pwritev / IORING_OP_WRITEV of write_batch data pages
    std::uint64_t bytes = 0;   // extended
    double seconds = 0;        // from the first session's start to the last one's end
    LatencyHistogram latency;  // per extension, excluding the wait for the lock
    double lock_wait_ms = 0;   // all sessions, shared file only
    UsageDelta usage;          // user/sys: the whole process (io-wq workers included);
                               // context switches: the sessions' threads
    long iowq_workers = -1;    // io-wq workers seen (io_uring only, lower bound)
    double iowq_cpu_ms = 0;
    std::string filesystem;
    long extents = -1;            // FIEMAP, summed over the files; -1: not reported
    std::uint64_t file_bytes = 0; // size of the files at the end
    std::string verified;         // "ok", "not checked" or what was wrong
    int stale_removed = 0;        // leftovers of dead processes swept first
};

// `allowed` lists the scratch directories p.dir must be one of. Every
// file is gone and every session joined when this returns or throws.
ExtendResult run_extend(const ExtendParams& p, const std::vector<std::string>& allowed,
                        const std::function<bool()>& should_stop);

// The columns of its rows, as extend_table() fills them.
std::vector<Column> extend_columns();
Table extend_table(const ExtendResult& r);

// The experiment in this process by itself, its parameters as given
// (`uringprobe-cli extend`): validated against the parameters' own ranges,
// in the scratch directory given (the only one allowed),
// stopped by should_stop().
Table run_extend_in_process(const GivenParams& given, const std::function<bool()>& should_stop);

} // namespace uringprobe
