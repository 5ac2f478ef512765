// io_uring's io-wq workers of this process ("iou-wrk-*" threads): the
// kernel threads that take the operations which cannot complete inline
// (blocking fallocate, writes that would block, anything with IOSQE_ASYNC).
// Sampled from /proc/self/task: how many distinct workers were seen and the
// CPU time they used. A worker that starts and exits between two samples
// is missed, so the counts are lower bounds.
#pragma once

#include <map>

namespace uringprobe {

class IoWorkerSampler {
public:
    // Workers already running now are not counted.
    IoWorkerSampler();
    void sample();
    long workers_seen() const { return static_cast<long>(seen_.size()); }
    // CPU (user + system) of the workers seen, at their last sample.
    double cpu_ms() const;

private:
    std::map<long, double> baseline_; // tid -> CPU ms when the sampler started
    std::map<long, double> seen_;     // tid -> CPU ms since then, at the last sample
    template <typename Visit> void each_worker(Visit&& visit) const;
};

} // namespace uringprobe
