// What it costs to take completions off an io_uring (report 2): keep
// `depth` operations in flight, replacing every reaped completion with a
// new operation at once (resubmit each: one submission per CQE, the
// report's shape) or once per reaped batch (resubmit batch: one submission
// for all the CQEs found), and take the CQEs off the ring one head store
// each (reaping each, io_uring_cqe_seen) or with one io_uring_cq_advance
// per batch. Operations: nop, read (4 KiB from a page-cached scratch file)
// or recv (datagrams on a loopback UDP socket, sent by a child process as
// fast as it can: the report's test). Every io_uring_enter is made and
// counted here. Setup flags sqpoll, single_issuer, defer_taskrun,
// coop_taskrun: a combination the io_uring API defines as invalid is bad
// input; one this kernel refuses is a row saying so.
#pragma once

#include "contract/param_table.hpp"
#include "contract/result.hpp"
#include "contract/usage.hpp"

#include <functional>
#include <string>
#include <vector>

namespace uringprobe {

enum class CompletionOp { nop, read, recv };
enum class Reaping { each, batch };
enum class Resubmit { each, batch };

struct CompletionsParams {
    CompletionsParams(); // every parameter at its default
    CompletionOp op;
    int depth; // operations in flight
    Resubmit resubmit;
    Reaping reaping;
    unsigned setup_flags = 0; // IORING_SETUP_*
    long completions;
    std::string dir;        // read: an allowed scratch directory for the file
    bool dir_given = false; // SQL: false for NULL (the first allowed directory)
};

// op, depth, resubmit, reaping, flags, completions, dir.
const ParamTable<CompletionsParams>& completions_params();

CompletionOp parse_completion_op(const std::string& name);
Reaping parse_reaping(const std::string& name);
Resubmit parse_resubmit(const std::string& name);
// A comma-separated list of sqpoll, single_issuer, defer_taskrun,
// coop_taskrun (or empty) as IORING_SETUP_* flags; and back.
unsigned parse_setup_flags(const std::string& list);
std::string setup_flags_string(unsigned flags);
// InvalidArgument naming the io_uring API's rule when `flags` combine
// flags it defines as invalid together.
void check_setup_flags(unsigned flags);
void validate(const CompletionsParams& p, const Caps& caps);

struct CompletionsResult {
    CompletionsParams params;
    Outcome outcome = Outcome::ok();
    std::string flags_in_effect;
    long completions = 0;
    double seconds = 0;
    long enters = 0;           // io_uring_enter calls made
    long submitted = 0;        // SQEs
    double mean_in_flight = 0; // submitted, not yet reaped: at each reaped CQE
    UsageDelta usage;          // this process (an SQPOLL thread included)
    UsageDelta submitter;      // the thread that submits and reaps
    double sqpoll_cpu_ms = -1; // the SQPOLL thread alone; -1 without SQPOLL
    long iowq_workers = 0;     // io-wq workers seen (operations punted to them)
    double iowq_cpu_ms = 0;
    long errors = 0; // completions with a negative result
};

// `allowed` lists the scratch directories (read only). Rings, files,
// sockets and the child are gone when this returns or throws.
CompletionsResult run_completions(const CompletionsParams& p,
                                  const std::vector<std::string>& allowed,
                                  const std::function<bool()>& should_stop);

// The columns of its rows, as completions_table() fills them.
std::vector<Column> completions_columns();
Table completions_table(const CompletionsResult& r);

// The experiment in this process by itself, its parameters as given
// (`uringprobe-cli completions`): validated against the parameters' own ranges,
// reading in the scratch directory given (op read),
// stopped by should_stop().
Table run_completions_in_process(const GivenParams& given,
                                 const std::function<bool()>& should_stop);

} // namespace uringprobe
