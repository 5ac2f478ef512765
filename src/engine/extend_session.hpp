// The sessions of the extension experiment: each a thread's worth of
// work on one file (its own or shared with the others), extending it under
// the file's lock by the experiment's strategy, as backends extend a
// relation under its extension lock, and writing its data pages outside
// the lock.
#pragma once

#include "extend_experiment.hpp"
#include "fd.hpp"
#include "file_io.hpp"
#include "histogram.hpp"
#include "scratch_file.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <sys/uio.h>
#include <vector>

namespace uringprobe {

// Fills `page` with a pattern that names `block`: what verification expects.
void stamp_page(char* page, int block_size, std::uint64_t block);

// One file being extended, and the lock its sessions take to extend it.
struct Target {
    std::shared_ptr<ScratchFile> file;
    std::uint64_t quota_blocks = 0; // the file's final size
    std::mutex lock;
    std::uint64_t next_block = 0; // under lock
};

struct SessionResult {
    long extensions = 0, fallocates = 0, zero_writes = 0, data_writes = 0;
    std::uint64_t blocks = 0;
    LatencyHistogram latency;
    double lock_wait_ms = 0;
    long nvcsw = 0, nivcsw = 0;
};

class Session {
public:
    // Session `index` of the run, extending `target`; all sessions stop
    // once `stop` is set (by the caller, or by a session that failed).
    Session(const ExtendParams& p, Target& target, int index, std::atomic<bool>& stop);

    void stop() { stop_ = true; }
    // Extends until the target is full or a stop; a failing session stops
    // the others and throws.
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
    std::vector<char> zeros_;
    std::vector<iovec> zero_iov_; // max_blocks times the zero block
    std::vector<char> pages_;
    SessionResult r_;
};

} // namespace uringprobe
