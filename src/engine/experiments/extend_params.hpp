// The parameters of the extension experiment, apart from its run: what a
// session (extend_session.hpp) and the experiment (extend_experiment.hpp)
// both need, so that neither includes the other.
#pragma once

#include "contract/param_table.hpp"

#include <cstdint>
#include <string>

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

} // namespace uringprobe
