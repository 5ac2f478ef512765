// Advice for one server: what to set, from small runs of the experiments
// against the server's own settings, within a time budget. Each row names
// a setting, its current value, the value to set, how sure the advice is
// and the measurements behind it:
//
//   io_method           will io_uring start at this max_connections, and
//                       what fork() + exit() of a connection pays for the
//                       rings PostgreSQL 18 creates in the postmaster
//                       (rings experiment at the server's ring count)
//   ring layout         separate mappings per ring or one region, the
//                       measured cost of each
//   file_extend_method  per tablespace: the relation-extension rule under
//                       the lock-waiter sizing of PostgreSQL 16+, at the
//                       given concurrency, posix_fallocate against
//                       write_zeros, beside the alternation without
//                       82a4edab (extend experiment in the tablespace's
//                       temporary-file directory)
//   ulimit -n, -l       the limits io_method=io_uring needs, with margin
//   budget              the time spent against the budget, what was cut
//
// Measurements take turns round by round, each round only when the budget
// has room for it; a row whose measurement got fewer than three rounds
// says so with confidence low, and one that got none says why instead of
// guessing.
#pragma once

#include "contract/caps.hpp"
#include "contract/result.hpp"
#include "contract/table.hpp"
#include "experiments/environment.hpp"

#include <functional>
#include <string>
#include <vector>

namespace uringprobe {

// Where a tablespace's relation files grow: its temporary-file directory
// (created if missing), or a scratch directory on the same filesystem.
struct AdviseTarget {
    std::string tablespace;   // pg_default, a tablespace's name, or the CLI's path
    std::string dir;          // the directory scratch files go into
    std::string unavailable;  // why it cannot be measured ("": it can)
    bool make_missing = true; // create dir if it is missing
    // Its own effective_io_concurrency and maintenance_io_concurrency
    // (ALTER TABLESPACE ... SET), -1 where it takes the server's.
    int effective_io_concurrency = -1;
    int maintenance_io_concurrency = -1;
};

struct AdviseRequest {
    AdviseRequest();     // budget and concurrency: advise_params()'s defaults
    std::string process; // "backend" or "bare process"
    // version_num: the server's (the CLI: 180000 unless told); io_method ""
    // before 18.
    ServerFacts server;
    // The server's file_extend_method, "" where it has no such setting.
    std::string file_extend_method;
    std::vector<AdviseTarget> targets;
    double budget_seconds = 0;
    double max_budget_seconds = kMaxAdviseSeconds.default_value;
    std::string budget_cap_name; // the setting that sets max_budget_seconds
    std::string budget_note;     // how the caller changed the budget, if it did
    // Seconds after which a round still running is stopped, uncounted, and
    // the advice made from the rounds done (0: none): where a caller
    // cancels the call at a time of its own (statement_timeout).
    double deadline_seconds = 0;
    int concurrency = 0; // sessions extending one relation at once
    // The server's caps (caps.hpp: max_rings, max_forks, max_scratch_mb,
    // max_memory_mb, max_read_in_flight), each run held to them as the
    // experiment's own function is; a cap absent takes its default. Where
    // one keeps a run from its size, the evidence says so.
    Caps caps;
    // Why this caller may not write scratch files ("": it may).
    std::string cannot_write;
};

// What a row was decided on: a ratio of medians of one measurement, its
// 95% interval, and the margin a change had to clear (the whole interval
// beyond 1 + margin, or below 1 - margin). A row decided from counted facts
// (limits, what the kernel refused) names them and has no ratio.
struct Decision {
    // cold reads, fork cost, extension runs; counted: io_uring_setup,
    // ring limits, limits, budget; "" where nothing decided (not measured)
    std::string by;
    std::string measured_in; // the tablespace measured, "" where not one
    std::string ratio_of;    // what the ratio divides: "io_uring / worker MB/s"
    // A setting measured on a curve (depths, workers, read sizes,
    // readahead): the point the ratio set the current value against, as
    // the setting takes it ("64", "512kB"); a keep's claim is against it.
    // "" elsewhere (io_method, file_extend_method: the other of two values).
    std::string compared_with;
    bool has_ratio = false;
    double ratio = 0, lo = 0, hi = 0; // median and its 95% interval
    double margin = 0;
};

// One setting's advice as data (the columns), and the prose that explains
// it (advice, evidence, cost).
struct AdviceRow {
    std::string topic;      // io_method, file_extend_method, limits, budget
    std::string setting;    // io_method, ring layout, file_extend_method, ulimit -n, ...
    std::string scope;      // server, tablespace, build, os, call
    std::string scope_name; // the tablespace's name; "" for the other scopes
    std::string action;     // set, keep, raise, lower, none
    std::string value;      // the value to set or keep; "" with none
    // The value now; "" where the server has no such setting (before
    // PostgreSQL 18: the ring layout its build would have here).
    std::string current;
    int needs_version = 0;  // the server_version_num the value needs, 0: this server's
    std::string confidence; // high, medium, low
    Decision decided_by;
    std::string not_measured; // what could not be measured; "" when nothing
    std::string advice;
    std::string evidence;
    std::string cost;
};

struct AdviseResult {
    Outcome outcome = Outcome::ok(); // ok or stopped
    std::vector<AdviceRow> rows;
    double seconds = 0;
};

// uringprobe_advise()'s arguments (budget, concurrency), and the options
// only the CLI takes, for a server it cannot ask: its major version, its
// file_extend_method, io_method, data directory and tablespaces.
const ParamTable<AdviseRequest>& advise_params();
const ParamTable<AdviseRequest>& advise_cli_params();

// Budget positive and within its cap, concurrency 1..64: InvalidArgument
// naming the argument otherwise.
void validate(const AdviseRequest& req);

// Polls should_stop() between runs and inside them; every scratch file,
// ring and child is gone when it returns or throws.
AdviseResult advise(const AdviseRequest& req, const std::function<bool()>& should_stop);

// The columns of its rows, as advise_table() fills them.
std::vector<Column> advise_columns();
Table advise_table(const AdviseResult& r);

} // namespace uringprobe
