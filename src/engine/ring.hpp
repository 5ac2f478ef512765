// RAII owner of an io_uring instance created through liburing.
#pragma once

#include <cstddef>
#include <liburing.h>

namespace uringprobe {

class Ring {
public:
    // Creates a ring with `entries` submission entries and the given
    // IORING_SETUP_* flags; throws SysError naming io_uring_queue_init.
    Ring(unsigned entries, unsigned flags);
    Ring(Ring&& other) noexcept;
    Ring& operator=(Ring&&) = delete;
    Ring(const Ring&) = delete;
    Ring& operator=(const Ring&) = delete;
    ~Ring();

    io_uring* get() { return &ring_; }
    // What the kernel reported back: the accepted flags and feature bits.
    const io_uring_params& params() const { return params_; }
    // Bytes the kernel mapped into this process for the ring (page-rounded
    // SQ ring, CQ ring and SQE array), and how many mappings that is.
    size_t mapped_bytes() const;
    int mapping_count() const;

private:
    io_uring ring_{};
    io_uring_params params_{};
    bool live_ = false;
};

// A ring whose in-flight operations (counted by its user in `inflight`)
// are cancelled and reaped before it is torn down, so that no buffer or
// descriptor is released under the kernel. Set up by its user
// (io_uring_queue_init_params on `ring`, then live = true).
class DrainedRing {
public:
    DrainedRing() = default;
    DrainedRing(const DrainedRing&) = delete;
    DrainedRing& operator=(const DrainedRing&) = delete;
    ~DrainedRing();
    io_uring ring{};
    bool live = false;
    long inflight = 0;
};

// `n` rounded up to whole pages.
size_t page_round(size_t n);

// Creates a ring with IORING_SETUP_NO_MMAP (kernel 6.5+) whose SQE array
// and ring area live in memory the caller provides (page-aligned, zeroed,
// large enough), through the raw system call, so it works whatever liburing
// this was built against. Returns the ring fd, or -errno. Nothing is mapped:
// closing the fd is the whole teardown (then the memory may be freed).
int setup_no_mmap_ring(unsigned entries, void* sqes, void* rings);

} // namespace uringprobe
