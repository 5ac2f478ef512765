// The statistics of repeated runs inside one call: a median, its spread
// and a 95% interval, as the benchmark's reports give them (median and
// MAD, bootstrap interval), for advice that must say how sure it is.
#pragma once

#include <string>
#include <vector>

namespace uringprobe {

struct RunSummary {
    int runs = 0;
    double median = 0;
    // 1.4826 x the median absolute deviation, in percent of the median
    // (for normally spread runs, their standard deviation); 0 for one run.
    double spread_pct = 0;
    // The median's 95% bootstrap interval: 2000 resamples with
    // replacement, from a fixed seed (the same runs, the same interval).
    // With fewer than 3 runs it is the runs' range.
    double lo = 0;
    double hi = 0;
};

// Summary of `values` (at least one; std::invalid_argument otherwise).
RunSummary summarize_runs(const std::vector<double>& values);

// "12.3 (11.9-12.8, spread 2.1%, 5 runs)" with `digits` decimals ("lo to
// hi" where lo is negative); the interval is left out for one run, the
// spread where it means nothing (a difference that may be near zero).
std::string describe_runs(const RunSummary& s, int digits, const std::string& unit = "",
                          bool with_spread = true);

} // namespace uringprobe
