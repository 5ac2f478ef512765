// io_uring's kernel threads in this process, sampled from /proc/self/task:
// the io-wq workers ("iou-wrk-*", which take the operations that cannot
// complete inline: blocking fallocate, writes that would block, anything
// with IOSQE_ASYNC) or the SQPOLL threads ("iou-sqp-*"). How many distinct
// threads were seen and the CPU time they used; a thread that starts and
// exits between two samples is missed, so the counts are lower bounds.
#pragma once

#include "os/process_snapshot.hpp"

#include <map>

namespace uringprobe {

class IoThreadSampler {
public:
    static constexpr const char* kWorkers = kIoWqWorkerName;
    static constexpr const char* kSqPoll = kSqPollThreadName;
    // Threads whose name starts with `prefix`; those already running now
    // count only with the CPU they use from now on.
    explicit IoThreadSampler(const char* prefix = kWorkers);
    void sample();
    long workers_seen() const { return static_cast<long>(seen_.size()); }
    // CPU (user + system) of the workers seen, at their last sample.
    double cpu_ms() const;

private:
    const char* prefix_;
    std::map<long, double> baseline_; // tid -> CPU ms when the sampler started
    std::map<long, double> seen_;     // tid -> CPU ms since then, at the last sample
};

// How many threads of this process have a name starting with `prefix`.
long count_io_threads(const char* prefix);
// Waits (up to `timeout_ms`) until at most `count` such threads are left;
// returns whether they are.
bool wait_for_io_threads(const char* prefix, long count, int timeout_ms);

} // namespace uringprobe
