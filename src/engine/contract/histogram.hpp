// Latency histogram in fio's log-linear layout: values below 64 ns have a
// bucket each; above, every power of two is split into 64 equal
// sub-buckets, so a reported percentile is within ~1.6% of the true value.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace uringprobe {

class LatencyHistogram {
public:
    void record(std::int64_t ns);
    // Adds another histogram's samples (e.g. one per session).
    void merge(const LatencyHistogram& other);
    // The samples times `factor` (ticks of a TickClock into ns): each
    // bucket's samples at its middle times factor, so within a bucket's
    // width (~1.6%); count, min, max and mean exact.
    LatencyHistogram scaled(double factor) const;
    std::uint64_t count() const { return count_; }
    std::int64_t min() const { return count_ ? min_ : 0; }
    std::int64_t max() const { return max_; }
    double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0.0; }
    // The value at or below which fraction `p` (0..1) of samples fall: the
    // midpoint of the bucket holding that rank, clamped to [min, max].
    std::int64_t percentile(double p) const;
    // The samples as "low_ns:count" of every non-empty bucket, ascending,
    // comma-separated: the raw histogram, for a report to keep.
    std::string encoded() const;

private:
    static constexpr int kSubBits = 6;
    static constexpr int kSub = 1 << kSubBits;
    static constexpr int kGroups = 64 - kSubBits;
    static int bucket_of(std::uint64_t v);
    static std::uint64_t bucket_low(int b);
    static std::uint64_t bucket_width(int b);

    std::array<std::uint64_t, kSub*(kGroups + 1)> buckets_{};
    std::uint64_t count_ = 0;
    std::int64_t sum_ = 0;
    std::int64_t min_ = 0;
    std::int64_t max_ = 0;
};

// Inline: recorded once per measured operation, inside the measured loops.
inline int LatencyHistogram::bucket_of(std::uint64_t v) {
    if (v < static_cast<std::uint64_t>(kSub))
        return static_cast<int>(v);
    const int msb = 63 - __builtin_clzll(v); // >= kSubBits
    const int group = msb - kSubBits + 1;    // 1 ..
    const int shift = msb - kSubBits;        // width of a sub-bucket: 2^shift
    const int sub = static_cast<int>((v >> shift) & (kSub - 1));
    return group * kSub + sub;
}

inline void LatencyHistogram::record(std::int64_t ns) {
    if (ns < 0)
        ns = 0;
    ++buckets_[bucket_of(static_cast<std::uint64_t>(ns))];
    if (count_ == 0 || ns < min_)
        min_ = ns;
    if (ns > max_)
        max_ = ns;
    sum_ += ns;
    ++count_;
}

} // namespace uringprobe
