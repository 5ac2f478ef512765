#include "uring/ring.hpp"

#include "contract/clock.hpp"
#include "contract/error.hpp"
#include "uring/io_uring_caps.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <sys/syscall.h>
#include <unistd.h>
#include <utility>

namespace uringprobe {

size_t page_round(size_t n) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return (n + page - 1) / page * page;
}

Ring::Ring(unsigned entries, unsigned flags, unsigned sq_thread_idle_ms) {
    params_.flags = flags;
    params_.sq_thread_idle = sq_thread_idle_ms;
    const int ret = io_uring_queue_init_params(entries, &ring_, &params_);
    if (ret < 0)
        throw SysError(-ret, "io_uring_queue_init", ring_setup_hint);
    layout_ = Layout::liburing;
    fd_ = ring_.ring_fd;
}

Ring Ring::in_region(unsigned entries, void* sqes, void* rings) {
    constexpr unsigned kSetupNoMmap = 1U << 14; // IORING_SETUP_NO_MMAP
    Ring r;
    r.params_.flags = kSetupNoMmap;
    const auto sqes_addr = reinterpret_cast<std::uint64_t>(sqes);
    const auto rings_addr = reinterpret_cast<std::uint64_t>(rings);
#ifdef IORING_SETUP_NO_MMAP
    r.params_.sq_off.user_addr = sqes_addr;
    r.params_.cq_off.user_addr = rings_addr;
#else // liburing headers older than the kernel: the same field, unnamed
    r.params_.sq_off.resv2 = sqes_addr;
    r.params_.cq_off.resv2 = rings_addr;
#endif
    const long fd = syscall(__NR_io_uring_setup, entries, &r.params_);
    if (fd < 0)
        throw SysError(errno, "io_uring_setup(IORING_SETUP_NO_MMAP)", ring_setup_hint);
    r.fd_ = static_cast<int>(fd);
    r.layout_ = Layout::raw_region;
    return r;
}

#ifdef URINGPROBE_HAVE_QUEUE_INIT_MEM
Ring Ring::in_memory(unsigned entries, void* mem, size_t bytes, size_t* used) {
    Ring r;
    const int ret = io_uring_queue_init_mem(entries, &r.ring_, &r.params_, mem, bytes);
    if (ret < 0)
        throw SysError(-ret, "io_uring_queue_init_mem", ring_setup_hint);
    *used = static_cast<size_t>(ret);
    r.layout_ = Layout::liburing;
    r.fd_ = r.ring_.ring_fd;
    return r;
}
#endif

Ring::Ring(Ring&& other) noexcept
    : layout_(std::exchange(other.layout_, Layout::gone)), ring_(other.ring_),
      params_(other.params_), fd_(std::exchange(other.fd_, -1)),
      inflight_(std::exchange(other.inflight_, 0)), enters_(other.enters_),
      gave_up_(other.gave_up_), lent_(std::move(other.lent_)) {}

namespace {

// What rings that gave up keep for the life of the process.
struct Kept {
    std::mutex mu;
    std::vector<std::shared_ptr<void>> memory;
    size_t bytes = 0;
};
Kept& kept() {
    static Kept* k = new Kept; // never destroyed: its memory may still be written
    return *k;
}

} // namespace

Ring::~Ring() {
    switch (layout_) {
    case Layout::liburing:
        if (!drain()) { // what the kernel still holds keeps its memory
            std::lock_guard<std::mutex> g(kept().mu);
            for (auto& [memory, bytes] : lent_) {
                kept().memory.push_back(std::move(memory));
                kept().bytes += bytes;
            }
        }
        io_uring_queue_exit(&ring_);
        break;
    case Layout::raw_region:
        ::close(fd_);
        break;
    case Layout::gone:
        break;
    }
}

io_uring* Ring::get() {
    if (layout_ != Layout::liburing)
        throw std::logic_error("this ring was set up without liburing: it has no io_uring handle");
    return &ring_;
}

void Ring::lend(std::shared_ptr<void> memory, size_t bytes) {
    lent_.emplace_back(std::move(memory), bytes);
}

size_t Ring::kept_bytes() {
    std::lock_guard<std::mutex> g(kept().mu);
    return kept().bytes;
}

bool Ring::drain() {
    if (inflight_ <= 0 || gave_up_ || layout_ != Layout::liburing)
        return inflight_ <= 0;
    if (io_uring_sqe* sqe = io_uring_get_sqe(&ring_)) {
        io_uring_prep_cancel(sqe, nullptr, IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL);
        sqe->user_data = ~0ULL;
        io_uring_submit(&ring_);
    }
    const std::int64_t deadline = now_ns() + std::int64_t(kDrainMs) * 1000000;
    while (inflight_ > 0) {
        const std::int64_t left = deadline - now_ns();
        if (left <= 0)
            break;
        __kernel_timespec ts{left / 1000000000, left % 1000000000};
        io_uring_cqe* cqe = nullptr;
        const int ret = io_uring_wait_cqe_timeout(&ring_, &cqe, &ts);
        if (ret == -EINTR)
            continue;
        if (ret != 0)
            break;
        if (cqe->user_data != ~0ULL && !(cqe->flags & IORING_CQE_F_MORE))
            --inflight_;
        io_uring_cqe_seen(&ring_, cqe);
    }
    gave_up_ = inflight_ > 0;
    return !gave_up_;
}

int Ring::submit_and_wait(unsigned wait_nr, const __kernel_timespec* timeout) {
    io_uring* r = get();
    const bool sqpoll = r->flags & IORING_SETUP_SQPOLL;
    io_uring_sq& sq = r->sq;
    // Publish the prepared SQEs: the kernel reads up to the tail (an SQPOLL
    // thread concurrently, hence the release store).
    const unsigned tail = sq.sqe_tail;
    if (sq.sqe_head != tail) {
        sq.sqe_head = tail;
        if (sqpoll)
            io_uring_smp_store_release(sq.ktail, tail);
        else
            IO_URING_WRITE_ONCE(*sq.ktail, tail);
    }
    const unsigned to_submit = tail - IO_URING_READ_ONCE(*sq.khead);
    unsigned flags = wait_nr ? IORING_ENTER_GETEVENTS : 0;
    bool enter = wait_nr > 0 || (!sqpoll && to_submit > 0);
    if (sqpoll && to_submit > 0) {
        // The tail store must be visible before the thread's flag is read.
        io_uring_smp_mb();
        if (IO_URING_READ_ONCE(*sq.kflags) & IORING_SQ_NEED_WAKEUP) {
            flags |= IORING_ENTER_SQ_WAKEUP;
            enter = true;
        }
    }
    if (!enter)
        return static_cast<int>(to_submit);
    ++enters_;
    if (timeout && wait_nr > 0 && (r->features & IORING_FEAT_EXT_ARG)) {
        io_uring_getevents_arg arg{};
        arg.sigmask_sz = _NSIG / 8;
        arg.ts = reinterpret_cast<std::uintptr_t>(timeout);
        return io_uring_enter2(static_cast<unsigned>(r->ring_fd), to_submit, wait_nr,
                               flags | IORING_ENTER_EXT_ARG, reinterpret_cast<sigset_t*>(&arg),
                               sizeof arg);
    }
    return io_uring_enter(static_cast<unsigned>(r->ring_fd), to_submit, wait_nr, flags, nullptr);
}

int Ring::wait_for_sq_room() {
    ++enters_;
    return io_uring_enter(static_cast<unsigned>(get()->ring_fd), 0, 0, IORING_ENTER_SQ_WAIT,
                          nullptr);
}

size_t Ring::mapped_bytes() const {
    const size_t sqes = page_round(params_.sq_entries * sizeof(io_uring_sqe));
    if (params_.features & IORING_FEAT_SINGLE_MMAP)
        return page_round(std::max(ring_.sq.ring_sz, ring_.cq.ring_sz)) + sqes;
    return page_round(ring_.sq.ring_sz) + page_round(ring_.cq.ring_sz) + sqes;
}

int Ring::mapping_count() const {
    return (params_.features & IORING_FEAT_SINGLE_MMAP) ? 2 : 3;
}

} // namespace uringprobe
