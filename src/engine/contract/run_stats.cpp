#include "contract/run_stats.hpp"

#include "contract/number_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>

namespace uringprobe {

namespace {

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

} // namespace

RunSummary summarize_runs(const std::vector<double>& values) {
    if (values.empty())
        throw std::invalid_argument("summarize_runs: no runs");
    RunSummary s;
    s.runs = static_cast<int>(values.size());
    s.median = median_of(values);
    std::vector<double> deviations;
    for (double v : values)
        deviations.push_back(std::fabs(v - s.median));
    s.spread_pct = s.median != 0 ? 100 * 1.4826 * median_of(deviations) / std::fabs(s.median) : 0;
    if (s.runs < 3) {
        s.lo = *std::min_element(values.begin(), values.end());
        s.hi = *std::max_element(values.begin(), values.end());
        return s;
    }
    constexpr int kResamples = 2000;
    std::mt19937_64 rng(20261202);
    std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
    std::vector<double> medians;
    medians.reserve(kResamples);
    std::vector<double> sample(values.size());
    for (int r = 0; r < kResamples; ++r) {
        for (auto& x : sample)
            x = values[pick(rng)];
        medians.push_back(median_of(sample));
    }
    std::sort(medians.begin(), medians.end());
    s.lo = medians[static_cast<size_t>(0.025 * (kResamples - 1))];
    s.hi = medians[static_cast<size_t>(0.975 * (kResamples - 1))];
    return s;
}

std::string describe_runs(const RunSummary& s, int digits, const std::string& unit,
                          bool with_spread) {
    std::string out = fixed(s.median, digits) + unit;
    if (s.runs == 1)
        return out + " (1 run)";
    return out + " (" + fixed(s.lo, digits) + (s.lo < 0 ? " to " : "-") + fixed(s.hi, digits) +
           unit + (with_spread ? ", spread " + fixed(s.spread_pct, 1) + "%" : "") + ", " +
           std::to_string(s.runs) + " runs)";
}

} // namespace uringprobe
