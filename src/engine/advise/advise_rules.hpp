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
// 0: within it).
struct RatioJudgement {
    int direction = 0;
    bool decisive = false;
};
RatioJudgement judge_ratio(const RunSummary& r, double margin);

// posix_fallocate / write_zeros against kExtendMargin: `better` is the
// method to change to ("" to keep); `decisive` whether the interval
// settles it: beyond the margin for a change, within it for a keep.
struct ExtendJudgement {
    std::string better;
    bool decisive = false;
    bool zeros_short = false; // write_zeros faster, short of kZerosMargin: kept
};
ExtendJudgement judge_extend_ratio(const RunSummary& fallocate_over_zeros);

// What cold reads say of io_method: `better` io_uring, worker or ""
// (within kReadGainMargin, or not to be weighed: `why`); `decisive`
// whether the whole interval is beyond the margin; `text` the figures.
struct ReadsJudgement {
    std::string better;
    bool decisive = false;
    bool flat = false; // measured on a device, within the margin: io_uring buys nothing
    std::string why;
    std::string text;
};
ReadsJudgement judge_reads(const ReadsSummary& r);

// The rows, one rule each. io_method weighs what cold reads gain on the
// tablespace whose device waits longest (`reads`) against what every
// connection pays for the rings (`fork`).
AdviceRow io_method_advice(const AdviseContext& c, const ForkCostSummary& fork,
                           const ReadsSummary& reads = {});
AdviceRow ring_layout_advice(const AdviseContext& c, const ForkCostSummary& fork);
AdviceRow file_extend_method_advice(const AdviseContext& c, const std::string& tablespace,
                                    const ExtendSummary& s);
AdviceRow ulimit_n_advice(const AdviseContext& c);
AdviceRow ulimit_l_advice(const AdviseContext& c);
AdviceRow budget_advice(const BudgetSummary& b);

} // namespace uringprobe
