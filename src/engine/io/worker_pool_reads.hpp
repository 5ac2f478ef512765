// PostgreSQL 18's io_method = worker as several sessions see it: each
// session keeps `depth` reads in flight through one shared submission
// queue that `workers` threads take reads from and do with pread. The
// queue holds `queue` reads (io_worker_queue_size 64, one slot kept empty
// to tell full from empty: 63); a read that finds it full is done by the
// session itself, synchronously, while the session's other reads wait
// (method_worker.c's pgaio_worker_submit_internal) — the fallback a DBA
// does not see, counted here read by read.
#pragma once

#include "contract/histogram.hpp"

#include <functional>
#include <string>

namespace uringprobe {

// PostgreSQL 18's submission queue (io_worker_queue_size 64) holds 63.
constexpr int kIoWorkerQueueHolds = 63;

struct WorkerPoolParams {
    std::string path; // the file read, its whole length once, in a seeded random order
    int sessions = 4; // sessions reading at once
    int depth = 16;   // reads each session keeps in flight
    int workers = 3;  // io_workers
    int queue = kIoWorkerQueueHolds;
    int block_kb = 8;   // bytes per read
    bool direct = true; // O_DIRECT: the device, whatever is cached
    long long seed = 1;
};

struct WorkerPoolResult {
    bool stopped = false;
    long reads = 0;
    long synchronous = 0; // of those, done by the session: the queue was full
    long long bytes = 0;
    double seconds = 0;
    LatencyHistogram latency; // per read: issued to its completion seen by the session
    double workers_cpu_ms = 0;
};

// Throws SysError where the file cannot be opened or a read fails; every
// thread is joined when it returns or throws. should_stop() is asked on
// the caller's thread only (a backend's interrupts), every few ms.
WorkerPoolResult read_with_worker_pool(const WorkerPoolParams& p,
                                       const std::function<bool()>& should_stop);

} // namespace uringprobe
