// The rules of uringprobe_advise(): pure functions from counted facts and
// measured summaries to advice rows. No clock, no kernel, no file: the
// same inputs give the same row, so each rule is tested on made-up
// summaries and the live measurement is left to the benchmark.
#pragma once

#include "advise/advise.hpp"
#include "advise/advise_summaries.hpp"

#include <string>

namespace uringprobe {

// Added fork cost below this share of a bare fork counts as acceptable: a
// bare fork is about a third of a connection's time (report 1's churn
// cells), so this is under a tenth of a connection. Rings in separate
// mappings add 1.5-3 times a bare fork at 1000 rings, in one region a few
// percent: the line falls between with room for a noisy machine.
constexpr double kForkCostShare = 0.25;
// file_extend_method: posix_fallocate and write_zeros within this share of
// each other are no reason to change it (the runs of one filesystem vary
// by a few percent from round to round).
constexpr double kExtendMargin = 0.05;
// A change to write_zeros must clear a far wider margin: the extension runs
// grow a file in the page cache with each block's data written at once,
// while in a COPY the zeros of a new block reach the disk before its data
// (the block written twice) and extension is a small share of the time.
// Measured: extension runs 1.46x as fast with write_zeros on XFS, the same
// run's concurrent COPY 6% slower with it (make bench, 2026-12-03). So
// posix_fallocate must take at least twice as long over the whole interval.
constexpr double kZerosMargin = 1.0;

// Cold reads: io_uring's MB/s over worker's beyond this share (the whole
// interval past 1, the median past the margin) decides io_method by
// itself; within it io_uring buys nothing and worker's connections pay no
// rings: worker.
constexpr double kReadGainMargin = 0.10;

// "high" only with kEnoughRounds rounds and an interval that decides; a
// measurement of fewer rounds (kFewestRounds: "medium"), or one scaled
// from a smaller one, is less.
std::string confidence_of(int rounds, bool decisive, bool scaled);

// A layout's cost per connection against kForkCostShare.
struct LayoutJudgement {
    bool adds = false;     // the median share is beyond the line
    bool decisive = false; // the whole interval is on one side of it
};
LayoutJudgement judge_layout(const LayoutFigures& f);

// A ratio of medians against 1 +- `margin`: `direction` 1 above, -1
// below (the interval excluding 1, the median beyond the margin), 0
// within; `decisive` whether the whole interval is beyond the margin (for
// 0: within it). A setting changes only where the difference is shown
// beyond its margin (`changes()`): a lean short of that keeps the current
// value, so that the same server advised twice gives the same decision.
// Fewer than kFewestRounds runs decide nothing (their interval is their
// range).
// `leans`: the median is beyond the margin but the interval does not show
// it (a change the measurement points to and cannot stand on).
struct RatioJudgement {
    int direction = 0;
    bool decisive = false;
    bool leans = false;
    bool changes() const { return direction != 0 && decisive; }
};
RatioJudgement judge_ratio(const RunSummary& r, double margin);
// The confidence of a keep judged by `j` on `rounds` rounds: low where the
// measurement leans to a change it could not show (the keep is the rule's
// default then, not a finding), else as confidence_of.
std::string keep_confidence(int rounds, const RatioJudgement& j);

// posix_fallocate / write_zeros: `better` is the method to change to ("":
// keep the current one), only where the whole interval is beyond the
// margin (kZerosMargin towards write_zeros, kExtendMargin towards
// posix_fallocate); `decisive` whether the interval settles it: beyond
// the margin for a change, within kExtendMargin for a keep; `margin` the
// one the kept change fell short of.
struct ExtendJudgement {
    std::string better;
    bool decisive = false;
    bool zeros_short = false; // write_zeros faster, short of kZerosMargin: kept
    double margin = kExtendMargin;
};
ExtendJudgement judge_extend_ratio(const RunSummary& fallocate_over_zeros);

// What cold reads say of io_method: `better` io_uring or worker where the
// whole interval is beyond kReadGainMargin, "" otherwise (`flat`: measured
// on a device, no gain shown beyond the margin; else not to be weighed:
// `why`); `decisive` whether the interval settles it (for flat: within
// the margin both ways); `text` the figures.
struct ReadsJudgement {
    std::string better;
    bool decisive = false;
    bool flat = false;
    std::string why;
    std::string text;
};
ReadsJudgement judge_reads(const ReadsSummary& r);

// effective_io_concurrency and maintenance_io_concurrency: the depth that
// reaches kDepthShare of the best MB/s the device gave suffices; a setting
// whose depth is shown short of that share by more than kDepthMargin is
// raised to it, and one deeper than that whose reads wait longer at the
// 99th percentile by more than kDepthLatencyMargin (twice as long, the
// whole interval) is lowered to it. The docs' warning, measured: reads
// queued beyond what the device serves at once only wait.
constexpr double kDepthShare = 0.90;
constexpr double kDepthMargin = 0.10;
constexpr double kDepthLatencyMargin = 1.0;

struct DepthJudgement {
    int enough = 0;      // the smallest depth reaching kDepthShare of the best (0: none)
    int effective = 1;   // the depth the setting gives a backend: min(setting, pins), at least 1
    int measured_at = 0; // the deepest depth measured at or below `effective`
    int best = 0;        // the depth of the best median share
    RunSummary share;    // its MB/s over each round's best
    RunSummary p99_over_enough; // its reads' p99 over those at `enough`, per round
    std::string capped;         // why a backend reads less deep than the setting ("": it does not)
};
// `pin_limit`: the buffers one backend may pin (PostgreSQL 18's read
// streams; 0 where no such limit applies).
DepthJudgement judge_depth(const DepthCurveSummary& s, int setting, int pin_limit);

// io_workers: the fewest workers whose MB/s reaches kDepthShare of the
// best count's, for the reads several sessions keep in flight at once
// (WorkersCurveSummary). The count changes only where the current one's
// MB/s is shown short of the best by more than kDepthMargin (the whole
// interval): raised where it is fewer than enough, lowered where it is
// more (more workers shown slower).
struct WorkersJudgement {
    int enough = 0;                // 0: none measured
    int measured_at = 0;           // the count measured at or below the current one
    int best = 0;                  // the count of the best median share
    RunSummary share;              // its MB/s over each round's best count's
    RunSummary synchronous;        // its share of reads the sessions did themselves
    RunSummary enough_synchronous; // the same with `enough` workers
    RunSummary best_over_uring;    // the best count's MB/s over io_uring's, same depth
};
WorkersJudgement judge_workers(const WorkersCurveSummary& s, int current);

// io_combine_limit: the smallest read whose MB/s reaches kDepthShare of
// the best size's, as a read stream keeps reads of each size in flight;
// changed only where the current size is shown short of the best by more
// than kDepthMargin (raised where smaller than enough, lowered where
// larger: larger reads shown slower).
struct CombineJudgement {
    int enough_kb = 0;      // 0: none measured
    int measured_at_kb = 0; // the size measured at or below the current one
    int best_kb = 0;        // the size of the best median share
    RunSummary share;       // its MB/s over each round's best size's
};
CombineJudgement judge_combine(const SequentialReadsSummary& s, int current_kb);

// read_ahead_kb: raised (doubled) where 8 kB reads one at a time are shown
// faster by more than kReadaheadMargin with the kernel's readahead window
// doubled (the whole interval); kept otherwise.
constexpr double kReadaheadMargin = 0.10;

// The rows, one rule each. io_method weighs what cold reads gain on the
// tablespace whose device waits longest (`reads`) against what every
// connection pays for the rings (`fork`): io_uring where the reads gain
// beyond the margin, worker where they lose or where the server runs
// io_uring and its rings cost a connection beyond kForkCostShare; the
// current value otherwise (before 18: worker, 18's default).
AdviceRow io_method_advice(const AdviseContext& c, const ForkCostSummary& fork,
                           const ReadsSummary& reads = {});
AdviceRow ring_layout_advice(const AdviseContext& c, const ForkCostSummary& fork);
// Whether the server's processes may use io_uring, and where they may not,
// what refuses it as the setting a fix changes: kernel.io_uring_disabled
// (2, or 1 outside kernel.io_uring_group), a seccomp filter (a container
// runtime's default profile), a kernel without io_uring.
AdviceRow io_uring_access_advice(const AdviseContext& c);
AdviceRow file_extend_method_advice(const AdviseContext& c, const std::string& tablespace,
                                    const ExtendSummary& s);
// `setting` effective_io_concurrency or maintenance_io_concurrency of
// `tablespace`, now `current`.
AdviceRow io_concurrency_advice(const AdviseContext& c, const std::string& setting,
                                const std::string& tablespace, int current,
                                const DepthCurveSummary& s);
// io_workers (PostgreSQL 18), from the curve of the filesystem that needs
// the most workers.
AdviceRow io_workers_advice(const AdviseContext& c, const WorkersCurveSummary& s);
// io_combine_limit and io_max_combine_limit (PostgreSQL 18), from the
// sizes of the filesystem whose reads want the largest; the second
// raised where the first's value is beyond it.
AdviceRow io_combine_limit_advice(const AdviseContext& c, const SequentialReadsSummary& s);
AdviceRow io_max_combine_limit_advice(const AdviseContext& c, const AdviceRow& combine);
// read_ahead_kb of the block device under one filesystem (scope os,
// scope_name the device).
AdviceRow read_ahead_kb_advice(const AdviseContext& c, const SequentialReadsSummary& s);
AdviceRow ulimit_n_advice(const AdviseContext& c);
AdviceRow ulimit_l_advice(const AdviseContext& c);
AdviceRow budget_advice(const BudgetSummary& b);

// The depths (effective_io_concurrency, maintenance_io_concurrency) are
// read as the server's io_method reads ahead now; where `io_method` (the
// io_method row) changes it, a depth changed on that curve would be
// applied under another method (worker's depth 4 beside io_uring): each
// such row keeps its value instead, low, saying to advise again once the
// server runs the new io_method.
void defer_depths_to_io_method(const AdviceRow& io_method, std::vector<AdviceRow>& rows);

} // namespace uringprobe
