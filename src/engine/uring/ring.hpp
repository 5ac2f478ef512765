// RAII owner of an io_uring instance, in either layout PostgreSQL 18 uses:
// the kernel's own ring memory mapped into the process (io_uring_queue_init,
// a mapping set per ring), or rings placed in memory the caller provides
// with IORING_SETUP_NO_MMAP (one region for all of them, nothing mapped per
// ring). A ring counts the operations its user has in flight, and before
// it is torn down cancels and reaps them, so that no buffer or descriptor
// is released under the kernel; buffers lent to it outlive what the
// kernel does not give back.
#pragma once

#include <cstddef>
#include <liburing.h>
#include <memory>
#include <utility>
#include <vector>

#if defined(IO_URING_VERSION_MAJOR) &&                                                             \
    (IO_URING_VERSION_MAJOR > 2 || (IO_URING_VERSION_MAJOR == 2 && IO_URING_VERSION_MINOR >= 5))
// io_uring_queue_init_mem came with liburing 2.5; until 2.7 the size it
// returns was 64 bytes short of what the ring uses (PostgreSQL 18 places its
// rings side by side by that size, so it needs 2.7). Here it sets a ring up
// in memory of its own.
#define URINGPROBE_HAVE_QUEUE_INIT_MEM 1
#endif

namespace uringprobe {

class Ring {
public:
    // The mmap layout: `entries` submission entries and IORING_SETUP_*
    // `flags` (an SQPOLL thread idles `sq_thread_idle_ms` before it
    // sleeps); throws SysError naming io_uring_queue_init.
    explicit Ring(unsigned entries, unsigned flags = 0, unsigned sq_thread_idle_ms = 0);

    // The NO_MMAP layout (kernel 6.5+), through the raw system call so that
    // it works whatever liburing this was built against: the SQE array at
    // `sqes` and the ring area at `rings`, page-aligned, zeroed and large
    // enough, owned by the caller and outliving the ring. Such a ring is
    // set up and torn down only (get() refuses it); closing its fd is the
    // whole teardown. Throws SysError naming io_uring_setup.
    static Ring in_region(unsigned entries, void* sqes, void* rings);

#ifdef URINGPROBE_HAVE_QUEUE_INIT_MEM
    // The NO_MMAP layout through liburing (io_uring_queue_init_mem,
    // liburing 2.5+, as PostgreSQL 18 sets its rings up): in `bytes` at
    // `mem`; `used` receives the bytes the ring took. Usable for I/O.
    static Ring in_memory(unsigned entries, void* mem, size_t bytes, size_t* used);
#endif

    Ring(Ring&& other) noexcept;
    Ring& operator=(Ring&&) = delete;
    Ring(const Ring&) = delete;
    Ring& operator=(const Ring&) = delete;
    ~Ring();

    // liburing's handle; std::logic_error for a ring made by in_region().
    io_uring* get();
    int fd() const {
        return fd_;
    }
    // What the kernel reported back: the accepted flags and feature bits.
    const io_uring_params& params() const {
        return params_;
    }
    // Bytes the kernel mapped into this process for an mmap-layout ring
    // (page-rounded SQ ring, CQ ring and SQE array), and how many mappings.
    size_t mapped_bytes() const;
    int mapping_count() const;

    // Operations in flight, as the user counts them: `submitted` SQEs
    // entered the ring, `completed` ended (a multishot only with its last
    // CQE). Those still in flight are cancelled and reaped at teardown.
    void submitted(long n) {
        inflight_ += n;
    }
    void completed(long n = 1) {
        inflight_ -= n;
    }
    long inflight() const {
        return inflight_;
    }

    // Memory the kernel reads or writes for this ring's operations (their
    // buffers), `bytes` long: kept alive until every operation is reaped.
    // Teardown cancels what is still in flight and reaps it for at most
    // kDrainMs; what the kernel still holds then (a device that does not
    // complete) keeps its memory for the life of the process, on purpose:
    // never freed while a read may still land in it. At most the lent
    // buffers of that ring, which the memory caps bound.
    void lend(std::shared_ptr<void> memory, size_t bytes);
    // Cancels whatever is in flight and reaps it, for at most kDrainMs in
    // all (once: a ring that gave up does not wait again); true when
    // nothing is left in flight.
    bool drain();
    static constexpr int kDrainMs = 500;
    // Bytes kept for the life of the process by rings that gave up.
    static size_t kept_bytes();

    // Submitting and waiting through the system call itself, so that every
    // io_uring_enter is counted rather than inferred from liburing's rules
    // (usable on a ring with an io_uring handle). Makes the SQEs prepared
    // since the last call visible to the kernel (the SQ tail, as liburing's
    // submit does), then enters the kernel if it must: to wait for
    // `wait_nr` completions, to submit (without SQPOLL), or to wake an
    // SQPOLL thread that went to sleep. Returns io_uring_enter's result
    // (-errno: -EINTR is the caller's to retry), or the SQEs left to an
    // awake SQPOLL thread when it did not enter. With `timeout`, a wait
    // ends after it with -ETIME (where the kernel takes a timeout with the
    // call, IORING_FEAT_EXT_ARG, 5.11; else it waits without one).
    int submit_and_wait(unsigned wait_nr, const __kernel_timespec* timeout = nullptr);
    // SQPOLL: blocks until the thread has made room in a full SQ ring.
    int wait_for_sq_room();
    // io_uring_enter calls made by the two above.
    long enters() const {
        return enters_;
    }

private:
    enum class Layout { gone, liburing, raw_region };
    Ring() = default;

    Layout layout_ = Layout::gone;
    io_uring ring_{};
    io_uring_params params_{};
    int fd_ = -1;
    long inflight_ = 0;
    long enters_ = 0;
    bool gave_up_ = false; // drain() ran out of time
    std::vector<std::pair<std::shared_ptr<void>, size_t>> lent_;
};

// `n` rounded up to whole pages.
size_t page_round(size_t n);

// The entries the kernel gives a ring asked for `v`: the next power of two.
inline unsigned ring_entries(unsigned v) {
    unsigned p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

} // namespace uringprobe
