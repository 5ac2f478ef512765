// The sessions of the extension experiment: each a thread's worth of
// work on one file (its own or shared with the others), extending it under
// the file's lock by the experiment's strategy, as backends extend a
// relation under its extension lock, and writing its data pages outside
// the lock.
#pragma once

#include "contract/histogram.hpp"
#include "experiments/extend_params.hpp"
#include "io/file_io.hpp"
#include "io/scratch_file.hpp"
#include "os/fd.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <sys/uio.h>
#include <vector>

namespace uringprobe {

// Fills `page` with a pattern that names `block`: what verification expects.
void stamp_page(char* page, int block_size, std::uint64_t block);

// A relation extension lock as PostgreSQL's lock manager grants it: in
// the order the sessions asked (a session that releases it cannot take it
// again ahead of those waiting), the releasing session handing it to the
// first waiter and waking that one only, the others asleep; and it knows
// how many sessions are blocked on it at this moment
// (RelationExtensionLockWaiterCount), counted as they queue.
class ExtensionLock {
public:
    void lock() {
        std::unique_lock<std::mutex> g(m_);
        if (!held_) {
            held_ = true;
            return;
        }
        Waiter me;
        queue_.push_back(&me);
        waiters_.fetch_add(1);
        me.turn.wait(g, [&] { return me.granted; });
    }
    void unlock() {
        std::lock_guard<std::mutex> g(m_);
        if (queue_.empty()) {
            held_ = false;
            return;
        }
        Waiter* next = queue_.front(); // handed over: held_ stays true
        queue_.pop_front();
        waiters_.fetch_sub(1);
        next->granted = true;
        next->turn.notify_one();
    }
    int waiters() const { return waiters_.load(); }

private:
    struct Waiter {
        std::condition_variable turn;
        bool granted = false; // under m_
    };
    std::mutex m_;
    bool held_ = false;         // under m_
    std::deque<Waiter*> queue_; // under m_: who waits, in order
    std::atomic<int> waiters_{0};
};

// One file being extended, and the lock its sessions take to extend it.
struct Target {
    std::shared_ptr<ScratchFile> file;
    std::uint64_t quota_blocks = 0; // the file's final size
    ExtensionLock lock;
    std::uint64_t next_block = 0; // under lock
    int last_kind = -1;           // under lock: the last extension's (1 fallocate, 0 zeros)
    long switches = 0;            // under lock: changes between the two
};

// PostgreSQL 16's extension size (hio.c, RelationAddBlocks): `pages` plus
// `pages` per session waiting on the lock; with the fix of 82a4edab
// (`prior`) at least the blocks this session extended before; at most
// kMaxExtendBy.
int waiters_extension_blocks(int pages, int waiters, bool prior, std::uint64_t extended_before);

struct SessionResult {
    long extensions = 0, fallocates = 0, zero_writes = 0, data_writes = 0;
    std::uint64_t blocks = 0;
    LatencyHistogram latency;
    double lock_wait_ms = 0;
    long nvcsw = 0, nivcsw = 0;
    std::vector<long> sizes; // sizes[n]: extensions of n blocks
    int first_blocks = 0;    // the session's first extension (sized before any of its own)
};

class Session {
public:
    // Session `index` of the run, extending `target`; all sessions stop
    // once `stop` is set (by the caller, or by a session that failed).
    Session(const ExtendParams& p, Target& target, int index, std::atomic<bool>& stop);

    void stop() { stop_ = true; }
    // Extends until the target is full or a stop (seen between operations,
    // or by io_ while one is waited for); a failing session stops the
    // others and throws.
    SessionResult run();

private:
    SessionResult run_until_done();
    std::uint64_t draw(); // an extension's size in blocks
    off_t offset(std::uint64_t block) const { return static_cast<off_t>(block) * p_.block_size; }
    void extend(std::uint64_t first, int n);
    void write_data(std::uint64_t first, int n);

    const ExtendParams& p_;
    Target& target_;
    std::atomic<bool>& stop_;
    FileIo io_;
    Fd fd_;
    std::mt19937_64 rng_;
    // What the writes read, lent to io_'s ring (kept if the kernel does
    // not give it back).
    std::shared_ptr<std::vector<char>> zeros_;
    std::vector<iovec> zero_iov_; // max_blocks times the zero block
    std::shared_ptr<std::vector<char>> pages_;
    std::vector<iovec> page_iov_; // one per page of pages_
    SessionResult r_;
};

} // namespace uringprobe
