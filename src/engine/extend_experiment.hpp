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

#include "histogram.hpp"
#include "param_table.hpp"
#include "result.hpp"
#include "usage.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace uringprobe {

enum class ExtendStrategy { fallocate, write_zeros, mdzeroextend, write };
enum class ExtendInterface { sync, io_uring, io_uring_async };
// How big each extension is: drawn uniformly from [min_blocks, max_blocks];
// PostgreSQL 16's rule before commit 82a4edab (pages x (1 + the sessions
// waiting on the extension lock), at most 64); or 16.0's and later's (also
// at least as many blocks as the session has extended so far, at most 64).
enum class ExtendSizing { uniform, waiters, waiters_prior };

struct ExtendParams {
    ExtendParams();         // every parameter at its default
    std::string dir;        // an allowed scratch directory
    bool dir_given = false; // SQL: false for NULL (the first allowed directory)
    ExtendStrategy strategy;
    ExtendInterface interface;
    int min_blocks; // blocks per extension
    int max_blocks;
    int total_mb;    // bytes extended by the whole call
    bool write_data; // fill each new block with a data write afterwards
    int sessions;
    bool shared; // all sessions extend one file (else one file each)
    std::uint64_t seed;
    int block_size;
    bool verify; // read every file back and check size and content
    ExtendSizing sizing;
    int pages;       // waiters sizing: the pages one extension needs (num_pages)
    int write_batch; // write_data: pages per data write (one vectored write each)
};

// dir, strategy, interface, min_blocks, max_blocks, total_mb, write_data,
// sessions, shared, seed, block_size, verify, sizing, pages, write_batch; cap:
// uringprobe.max_scratch_mb.
const ParamTable<ExtendParams>& extend_params();

// Names as used by SQL and the CLI; throw InvalidArgument listing the
// allowed names otherwise.
ExtendStrategy parse_extend_strategy(const std::string& name);
ExtendInterface parse_extend_interface(const std::string& name);
ExtendSizing parse_extend_sizing(const std::string& name);
const char* to_string(ExtendStrategy s);
const char* to_string(ExtendInterface i);
const char* to_string(ExtendSizing s);

// The waiters rules' cap on one extension (PostgreSQL's
// MAX_BUFFERS_TO_EXTEND_BY), and the most blocks one extension of `p` can
// have: max_blocks, or that cap.
constexpr int kMaxExtendBy = 64;
int max_extension_blocks(const ExtendParams& p);

void validate(const ExtendParams& p, const Caps& caps);

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

Table extend_table(const ExtendResult& r);

} // namespace uringprobe
