#include "io/worker_pool_reads.hpp"

#include "contract/clock.hpp"
#include "contract/error.hpp"
#include "contract/usage.hpp"
#include "io/pread.hpp"
#include "io/session_threads.hpp"
#include "os/fd.hpp"
#include "os/signals.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <sys/stat.h>
#include <vector>

namespace uringprobe {

namespace {

constexpr size_t kAlign = 4096; // O_DIRECT's buffers and offsets
// How often a waiting session or the caller looks at the stop flag.
constexpr auto kStopPollEvery = std::chrono::milliseconds(5);

struct Session {
    std::vector<off_t> offsets; // its reads, in order
    std::unique_ptr<char, void (*)(void*)> buf{nullptr, std::free};
    std::vector<off_t> slot_offset;
    std::vector<std::int64_t> issued;
    std::vector<ssize_t> res;
    std::mutex mu;
    std::condition_variable done;
    std::vector<size_t> finished; // slots the workers have read
    LatencyHistogram latency;
    long reads = 0, synchronous = 0;
    long long bytes = 0;
    int err = 0; // a failed read's errno
    bool over = false;
};

struct Pool {
    std::mutex mu;
    std::condition_variable work;
    std::deque<std::pair<Session*, size_t>> queue;
    size_t holds = 0;
    bool closing = false;
    int sleeping = 0;
    double cpu_ms = 0;
    std::atomic<bool> stop{false};
    std::mutex over_mu;
    std::condition_variable over; // a session ended
    int sessions_over = 0;
};

void worker_loop(Pool& pool, int fd, size_t block) {
    const UsageMeter cpu(RUSAGE_THREAD);
    std::unique_lock<std::mutex> lk(pool.mu);
    for (;;) {
        if (pool.queue.empty() && !pool.closing) {
            ++pool.sleeping;
            pool.work.wait(lk, [&] { return !pool.queue.empty() || pool.closing; });
            --pool.sleeping;
        }
        if (pool.queue.empty())
            break; // closing
        const auto [s, slot] = pool.queue.front();
        pool.queue.pop_front();
        lk.unlock();
        const ssize_t n =
            pread_retrying(fd, s->buf.get() + slot * block, block, s->slot_offset[slot]);
        {
            std::lock_guard<std::mutex> g(s->mu);
            s->res[slot] = n;
            s->finished.push_back(slot);
        }
        s->done.notify_one();
        lk.lock();
    }
    const UsageDelta d = cpu.delta();
    pool.cpu_ms += d.user_ms + d.sys_ms;
}

void session_loop(Pool& pool, Session& s, int fd, size_t block, size_t depth) {
    std::vector<size_t> free_slots;
    for (size_t i = depth; i > 0; --i)
        free_slots.push_back(i - 1);
    auto completed = [&](size_t slot, ssize_t n) {
        s.latency.record(now_ns() - s.issued[slot]);
        if (n < 0 && s.err == 0)
            s.err = static_cast<int>(-n);
        s.bytes += n > 0 ? n : 0;
        ++s.reads;
        free_slots.push_back(slot);
    };
    size_t next = 0, outstanding = 0;
    std::vector<size_t> taken;
    while (!pool.stop.load(std::memory_order_relaxed) && s.err == 0) {
        while (!free_slots.empty() && next < s.offsets.size()) {
            const size_t slot = free_slots.back();
            free_slots.pop_back();
            s.slot_offset[slot] = s.offsets[next++];
            s.issued[slot] = now_ns();
            bool queued = false;
            {
                std::lock_guard<std::mutex> g(pool.mu);
                if (pool.queue.size() < pool.holds) {
                    pool.queue.emplace_back(&s, slot);
                    queued = true;
                    if (pool.sleeping > 0)
                        pool.work.notify_one();
                }
            }
            if (queued) {
                ++outstanding;
                continue;
            }
            // the queue is full: this session reads it itself
            ++s.synchronous;
            completed(slot,
                      pread_retrying(fd, s.buf.get() + slot * block, block, s.slot_offset[slot]));
        }
        if (outstanding == 0) {
            if (next >= s.offsets.size())
                break;
            continue;
        }
        {
            std::unique_lock<std::mutex> lk(s.mu);
            s.done.wait_for(lk, kStopPollEvery, [&] { return !s.finished.empty(); });
            taken.swap(s.finished);
        }
        for (size_t slot : taken) {
            --outstanding;
            completed(slot, s.res[slot]);
        }
        taken.clear();
    }
    // Reads still with the workers finish into buffers that outlive them.
    std::lock_guard<std::mutex> g(pool.over_mu);
    s.over = true;
    ++pool.sessions_over;
    pool.over.notify_all();
}

// The file's blocks in a seeded random order, dealt to `sessions`
// sessions in turn, each with buffers for `depth` reads.
std::vector<std::unique_ptr<Session>> deal_reads(const WorkerPoolParams& p, int fd, size_t block,
                                                 size_t depth) {
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        throw SysError(errno, "fstat " + p.path);
    std::vector<off_t> all;
    for (off_t off = 0; off + static_cast<off_t>(block) <= st.st_size; off += block)
        all.push_back(off);
    std::mt19937_64 rng(static_cast<std::uint64_t>(p.seed));
    std::shuffle(all.begin(), all.end(), rng);
    const size_t sessions = static_cast<size_t>(std::max(1, p.sessions));
    std::vector<std::unique_ptr<Session>> s;
    for (size_t i = 0; i < sessions; ++i) {
        s.push_back(std::make_unique<Session>());
        Session& x = *s.back();
        for (size_t k = i; k < all.size(); k += sessions)
            x.offsets.push_back(all[k]);
        void* mem = nullptr;
        const int err = posix_memalign(&mem, kAlign, depth * block);
        if (err != 0)
            throw SysError(err, "posix_memalign");
        x.buf.reset(static_cast<char*>(mem));
        x.slot_offset.assign(depth, 0);
        x.issued.assign(depth, 0);
        x.res.assign(depth, 0);
    }
    return s;
}

// Until every session has ended, should_stop() asked every few ms on
// this thread: true where it stopped them.
bool wait_for_sessions(Pool& pool, int sessions, const std::function<bool()>& should_stop) {
    bool stopped = false;
    std::unique_lock<std::mutex> lk(pool.over_mu);
    while (pool.sessions_over < sessions) {
        pool.over.wait_for(lk, kStopPollEvery);
        lk.unlock();
        if (!stopped && should_stop()) {
            stopped = true;
            pool.stop = true;
        }
        lk.lock();
    }
    return stopped;
}

} // namespace

WorkerPoolResult read_with_worker_pool(const WorkerPoolParams& p,
                                       const std::function<bool()>& should_stop) {
    const size_t block = static_cast<size_t>(p.block_kb) * 1024;
    const Fd fd = Fd::open(p.path.c_str(), O_RDONLY | (p.direct ? O_DIRECT : 0), "open " + p.path);
    const size_t depth = static_cast<size_t>(std::max(1, p.depth));
    // Declared before the threads: outlive them.
    std::vector<std::unique_ptr<Session>> s = deal_reads(p, fd.get(), block, depth);
    Pool pool;
    pool.holds = static_cast<size_t>(std::max(0, p.queue));
    std::vector<std::unique_ptr<SessionThread>> workers, readers;
    // Declared after the threads: the sessions end, then the workers,
    // however this returns.
    struct Closer {
        Pool& pool;
        std::vector<std::unique_ptr<SessionThread>>& workers;
        std::vector<std::unique_ptr<SessionThread>>& readers;
        ~Closer() { close(); }
        void close() {
            pool.stop = true;
            for (auto& t : readers)
                t->join();
            {
                std::lock_guard<std::mutex> g(pool.mu);
                pool.closing = true;
                pool.queue.clear();
            }
            pool.work.notify_all();
            for (auto& t : workers)
                t->join();
        }
    } closer{pool, workers, readers};

    WorkerPoolResult r;
    if (should_stop()) {
        r.stopped = true;
        return r;
    }
    const std::int64_t start = now_ns();
    {
        const AllSignalsBlocked blocked;
        for (int w = 0; w < p.workers; ++w)
            workers.push_back(std::make_unique<SessionThread>(
                [&pool, &fd, block] { worker_loop(pool, fd.get(), block); }));
        for (auto& x : s)
            readers.push_back(std::make_unique<SessionThread>([&pool, &x, &fd, block, depth] {
                session_loop(pool, *x, fd.get(), block, depth);
            }));
    }
    r.stopped = wait_for_sessions(pool, static_cast<int>(s.size()), should_stop);
    r.seconds = (now_ns() - start) / 1e9;
    closer.close(); // the workers end before their CPU is read
    r.workers_cpu_ms = pool.cpu_ms;
    for (const auto& x : s) {
        if (x->err != 0)
            throw SysError(x->err, "pread " + p.path + " (a worker pool's read)");
        r.reads += x->reads;
        r.synchronous += x->synchronous;
        r.bytes += x->bytes;
        r.latency.merge(x->latency);
    }
    return r;
}

} // namespace uringprobe
