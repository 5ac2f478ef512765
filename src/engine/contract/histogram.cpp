#include "contract/histogram.hpp"

#include <algorithm>
#include <cmath>

namespace uringprobe {

std::uint64_t LatencyHistogram::bucket_low(int b) {
    const int group = b / kSub;
    const int sub = b % kSub;
    if (group == 0)
        return static_cast<std::uint64_t>(sub);
    const int shift = group - 1;
    return (static_cast<std::uint64_t>(kSub) + sub) << shift;
}

std::uint64_t LatencyHistogram::bucket_width(int b) {
    const int group = b / kSub;
    return group == 0 ? 1 : (1ULL << (group - 1));
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
    if (other.count_ == 0)
        return;
    for (size_t b = 0; b < buckets_.size(); ++b)
        buckets_[b] += other.buckets_[b];
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
    sum_ += other.sum_;
    count_ += other.count_;
}

LatencyHistogram LatencyHistogram::scaled(double factor) const {
    LatencyHistogram out;
    for (int b = 0; b < static_cast<int>(buckets_.size()); ++b) {
        if (!buckets_[size_t(b)])
            continue;
        const double middle = bucket_low(b) + (bucket_width(b) - 1) / 2.0;
        out.buckets_[size_t(bucket_of(static_cast<std::uint64_t>(middle * factor + 0.5)))] +=
            buckets_[size_t(b)];
    }
    out.count_ = count_;
    out.sum_ = static_cast<std::int64_t>(static_cast<double>(sum_) * factor + 0.5);
    if (count_)
        out.min_ = static_cast<std::int64_t>(static_cast<double>(min_) * factor + 0.5);
    out.max_ = static_cast<std::int64_t>(static_cast<double>(max_) * factor + 0.5);
    return out;
}

std::int64_t LatencyHistogram::percentile(double p) const {
    if (count_ == 0)
        return 0;
    p = std::clamp(p, 0.0, 1.0);
    const auto rank = static_cast<std::uint64_t>(std::ceil(p * static_cast<double>(count_)));
    std::uint64_t seen = 0;
    for (size_t b = 0; b < buckets_.size(); ++b) {
        seen += buckets_[b];
        if (seen >= std::max<std::uint64_t>(rank, 1)) {
            const int bi = static_cast<int>(b);
            const auto mid = static_cast<std::int64_t>(bucket_low(bi) + bucket_width(bi) / 2);
            return std::clamp(mid, min_, max_);
        }
    }
    return max_;
}

std::string LatencyHistogram::encoded() const {
    std::string out;
    for (size_t b = 0; b < buckets_.size(); ++b) {
        if (buckets_[b] == 0)
            continue;
        if (!out.empty())
            out += ',';
        out += std::to_string(bucket_low(static_cast<int>(b))) + ':' + std::to_string(buckets_[b]);
    }
    return out;
}

} // namespace uringprobe
