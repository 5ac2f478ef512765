// What it costs to take completions off an io_uring (seeds/002_*): keep
// `depth` operations in flight, submitted `batch` at a time, and reap the
// completions either one by one (io_uring_cqe_seen per CQE: a CQ head
// store each) or in batches (io_uring_peek_batch_cqe and one
// io_uring_cq_advance). Operations: nop, read (4 KiB from a page-cached
// scratch file) or recv (datagrams on a loopback UDP socket, sent by a
// child process as fast as it can: the shape of the seed's test). Setup
// flags sqpoll, single_issuer, defer_taskrun, coop_taskrun in any
// combination; a combination the kernel refuses is a row saying so.
#pragma once

#include "param_table.hpp"
#include "result.hpp"
#include "usage.hpp"

#include <functional>
#include <string>
#include <vector>

namespace uringprobe {

enum class CompletionOp { nop, read, recv };
enum class Reaping { each, batch };

struct CompletionsParams {
    CompletionsParams(); // every parameter at its default
    CompletionOp op;
    int depth; // operations in flight
    int batch; // SQEs per submission; 0: depth
    Reaping reaping;
    unsigned setup_flags = 0; // IORING_SETUP_*
    long completions;
    std::string dir;        // read: an allowed scratch directory for the file
    bool dir_given = false; // SQL: false for NULL (the first allowed directory)
};

// op, depth, batch, reaping, flags, completions, dir.
const ParamTable<CompletionsParams>& completions_params();

CompletionOp parse_completion_op(const std::string& name);
Reaping parse_reaping(const std::string& name);
// A comma-separated list of sqpoll, single_issuer, defer_taskrun,
// coop_taskrun (or empty) as IORING_SETUP_* flags; and back.
unsigned parse_setup_flags(const std::string& list);
std::string setup_flags_string(unsigned flags);
void validate(const CompletionsParams& p, const Caps& caps);

struct CompletionsResult {
    CompletionsParams params;
    Outcome outcome = Outcome::ok();
    std::string flags_in_effect;
    long completions = 0;
    double seconds = 0;
    long enters = 0;           // io_uring_enter calls, by liburing's rules
    long submitted = 0;        // SQEs
    UsageDelta usage;          // this process (an SQPOLL thread included)
    double sqpoll_cpu_ms = -1; // the SQPOLL thread alone; -1 without SQPOLL
    long errors = 0;           // completions with a negative result
};

// `allowed` lists the scratch directories (read only). Rings, files,
// sockets and the child are gone when this returns or throws.
CompletionsResult run_completions(const CompletionsParams& p,
                                  const std::vector<std::string>& allowed,
                                  const std::function<bool()>& should_stop);

Table completions_table(const CompletionsResult& r);

} // namespace uringprobe
