#include "contract/clock.hpp"
#include "contract/histogram.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using uringprobe::BatchedSamples;
using uringprobe::LatencyHistogram;
using uringprobe::TickClock;

namespace {

// The samples of an encoded histogram ("low:count,..."), and whether the
// bucket bounds ascend.
long count_encoded(const std::string& s, bool* ascending) {
    std::stringstream in(s);
    std::string item;
    long total = 0;
    long long last = -1;
    *ascending = true;
    while (std::getline(in, item, ',')) {
        const auto colon = item.find(':');
        const long long low = std::atoll(item.substr(0, colon).c_str());
        total += std::atol(item.substr(colon + 1).c_str());
        *ascending = *ascending && low > last;
        last = low;
    }
    return total;
}

// The low bound of a histogram holding one sample.
long long only_bucket_low(std::int64_t v) {
    LatencyHistogram h;
    h.record(v);
    return std::atoll(h.encoded().c_str());
}

} // namespace

// Each value lands in the bucket that holds it: below 128 its own, above
// in one of the 64 sub-buckets of its power of two (2^(msb-6) wide).
TEST(LatencyHistogram, EveryValueInTheBucketHoldingIt) {
    std::vector<std::int64_t> values;
    for (std::int64_t v = 0; v < 5000; ++v)
        values.push_back(v);
    for (int bit = 7; bit < 63; ++bit)
        for (std::int64_t d : {-1, 0, 1}) {
            values.push_back((std::int64_t{1} << bit) + d);
            values.push_back((std::int64_t{3} << (bit - 1)) + d);
        }
    values.push_back(std::numeric_limits<std::int64_t>::max());
    for (std::int64_t v : values) {
        const long long low = only_bucket_low(v);
        const int msb = 63 - __builtin_clzll(static_cast<unsigned long long>(v) | 1);
        const long long width = msb < 7 ? 1 : 1LL << (msb - 6);
        ASSERT_LE(low, v) << v;
        ASSERT_LT(v - low, width) << v;
        ASSERT_EQ(low % width, 0) << v;
    }
}

TEST(LatencyHistogram, EmptyReportsZeros) {
    LatencyHistogram h;
    EXPECT_EQ(h.count(), 0u);
    EXPECT_EQ(h.min(), 0);
    EXPECT_EQ(h.max(), 0);
    EXPECT_EQ(h.percentile(0.5), 0);
    EXPECT_EQ(h.encoded(), "");
}

TEST(LatencyHistogram, SmallValuesAreExact) {
    LatencyHistogram h;
    for (int v = 0; v < 64; ++v)
        h.record(v);
    EXPECT_EQ(h.count(), 64u);
    EXPECT_EQ(h.min(), 0);
    EXPECT_EQ(h.max(), 63);
    EXPECT_EQ(h.percentile(0.5), 31);
    EXPECT_EQ(h.percentile(1.0), 63);
}

TEST(LatencyHistogram, PercentilesWithinTheBucketWidth) {
    LatencyHistogram h;
    // 1..100000 us in ns: the p-th percentile is p * 1e8 ns
    for (long v = 1; v <= 100000; ++v)
        h.record(v * 1000);
    for (double p : {0.01, 0.5, 0.9, 0.99}) {
        const double want = p * 1e8;
        EXPECT_NEAR(static_cast<double>(h.percentile(p)), want, want * 0.016) << "p" << p;
    }
    EXPECT_EQ(h.max(), 100000000);
    EXPECT_DOUBLE_EQ(h.mean(), 50000500.0);
}

TEST(LatencyHistogram, NegativeSamplesCountAsZero) {
    LatencyHistogram h;
    h.record(-5);
    EXPECT_EQ(h.min(), 0);
    EXPECT_EQ(h.count(), 1u);
}

// min() of no samples is 0 however the histogram came to be empty.
TEST(LatencyHistogram, EmptyStaysEmptyScaledAndMerged) {
    LatencyHistogram empty;
    EXPECT_EQ(empty.scaled(0.4).min(), 0);
    EXPECT_EQ(empty.scaled(0.4).count(), 0u);
    LatencyHistogram some;
    some.record(1000);
    LatencyHistogram merged;
    merged.merge(some);
    EXPECT_EQ(merged.min(), 1000);
    some.merge(empty);
    EXPECT_EQ(some.min(), 1000);
    EXPECT_EQ(some.count(), 1u);
}

TEST(LatencyHistogram, MergeAddsEverything) {
    LatencyHistogram a, b, both;
    for (int i = 1; i <= 1000; ++i) {
        a.record(i * 7);
        both.record(i * 7);
    }
    for (int i = 1; i <= 500; ++i) {
        b.record(i * 1000003L);
        both.record(i * 1000003L);
    }
    a.merge(b);
    a.merge(LatencyHistogram{});
    EXPECT_EQ(a.count(), both.count());
    EXPECT_EQ(a.min(), both.min());
    EXPECT_EQ(a.max(), both.max());
    EXPECT_EQ(a.encoded(), both.encoded());
    EXPECT_EQ(a.percentile(0.9), both.percentile(0.9));
}

TEST(LatencyHistogram, EncodedHoldsEverySample) {
    LatencyHistogram h;
    for (long v = 0; v < 300000; v += 7)
        h.record(v * 13);
    bool ascending = false;
    EXPECT_EQ(count_encoded(h.encoded(), &ascending), static_cast<long>(h.count()));
    EXPECT_TRUE(ascending);
}

// Ticks of a TickClock become ns by scaling the histogram: count, min, max
// and mean exact, the percentiles within a bucket's width.
TEST(LatencyHistogram, ScaledKeepsTheShape) {
    LatencyHistogram ticks;
    for (int i = 1; i <= 1000; ++i)
        ticks.record(1000 + i); // 1001 .. 2000 ticks
    const LatencyHistogram ns = ticks.scaled(0.4);
    EXPECT_EQ(ns.count(), 1000u);
    EXPECT_EQ(ns.min(), 400); // 1001 * 0.4, rounded
    EXPECT_EQ(ns.max(), 800);
    EXPECT_NEAR(ns.mean(), ticks.mean() * 0.4, 0.001);
    for (double p : {0.5, 0.9, 0.99}) {
        const double expected = ticks.percentile(p) * 0.4;
        EXPECT_NEAR(ns.percentile(p), expected, expected * 0.02) << p;
    }
    const LatencyHistogram same = ticks.scaled(1.0);
    EXPECT_EQ(same.encoded(), ticks.encoded());
}

// Samples added in batches end up as if each had been recorded: whole
// batches as they fill, the rest at flush().
TEST(BatchedSamples, SameAsRecordingEach) {
    LatencyHistogram direct, batched;
    BatchedSamples samples(batched);
    for (long i = 0; i < 1000; ++i) {
        const std::int64_t v = (i * 7919) % 100003 - 50; // some negative
        direct.record(v);
        samples.add(v);
    }
    EXPECT_EQ(batched.count() % 256, 0u);
    EXPECT_LT(batched.count(), 1000u);
    samples.flush();
    EXPECT_EQ(batched.count(), direct.count());
    EXPECT_EQ(batched.min(), direct.min());
    EXPECT_EQ(batched.max(), direct.max());
    EXPECT_EQ(batched.mean(), direct.mean());
    EXPECT_EQ(batched.encoded(), direct.encoded());
    samples.flush(); // nothing twice
    EXPECT_EQ(batched.count(), direct.count());
}

// The clock's ticks never go back, and a tick is a positive number of ns
// (1 where they are ns already).
TEST(TickClock, TicksAdvanceAndConvert) {
    const TickClock clock;
    std::int64_t last = clock.ticks();
    for (int i = 0; i < 1000; ++i) {
        const std::int64_t t = clock.ticks();
        EXPECT_GE(t, last);
        last = t;
    }
    EXPECT_GT(clock.ns_per_tick(), 0.0);
    if (!clock.counts_cycles()) {
        EXPECT_EQ(clock.ns_per_tick(), 1.0);
    }
}
