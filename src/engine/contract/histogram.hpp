// Latency histogram in fio's log-linear layout: values below 64 ns have a
// bucket each; above, every power of two is split into 64 equal
// sub-buckets, so a reported percentile is within ~1.6% of the true value.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
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
    std::int64_t min_ = std::numeric_limits<std::int64_t>::max(); // none yet
    std::int64_t max_ = 0;
};

// Inline: recorded once per measured operation, inside the measured
// loops, without branching on the value. Below 2 * kSub a value is its own
// bucket; above, the sub-buckets of its power of two are 2^shift wide: the
// bucket is shift * kSub plus the value's top kSubBits + 1 bits.
inline int LatencyHistogram::bucket_of(std::uint64_t v) {
    const int msb = 63 - __builtin_clzll(v | 1);
    const int shift = std::max(msb - kSubBits, 0);
    return shift * kSub + static_cast<int>(v >> shift);
}

inline void LatencyHistogram::record(std::int64_t ns) {
    ns = std::max<std::int64_t>(ns, 0);
    ++buckets_[bucket_of(static_cast<std::uint64_t>(ns))];
    min_ = std::min(min_, ns);
    max_ = std::max(max_, ns);
    sum_ += ns;
    ++count_;
}

// Samples stored as they come and added to a histogram in batches, for
// loops whose iterations are separated by system calls: there each
// record() runs with caches and branch predictor cold from the kernel's
// work (~1% of an epoll round here: docs/findings.md), a store does not.
// flush() before reading the histogram.
class BatchedSamples {
public:
    explicit BatchedSamples(LatencyHistogram& into) : into_(into) {}
    void add(std::int64_t v) {
        buf_[size_t(n_)] = v;
        if (++n_ == kBatch)
            flush();
    }
    [[gnu::noinline]] void flush() {
        for (int i = 0; i < n_; ++i)
            into_.record(buf_[size_t(i)]);
        n_ = 0;
    }

private:
    static constexpr int kBatch = 256;
    LatencyHistogram& into_;
    int n_ = 0;
    std::array<std::int64_t, kBatch> buf_;
};

} // namespace uringprobe
