#include "ring.hpp"

#include "error.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <sys/syscall.h>
#include <unistd.h>
#include <utility>

namespace uringprobe {

size_t page_round(size_t n) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return (n + page - 1) / page * page;
}

Ring::Ring(unsigned entries, unsigned flags) {
    params_.flags = flags;
    check_neg_errno(io_uring_queue_init_params(entries, &ring_, &params_), "io_uring_queue_init");
    live_ = true;
}

Ring::Ring(Ring&& other) noexcept
    : ring_(other.ring_), params_(other.params_), live_(std::exchange(other.live_, false)) {}

Ring::~Ring() {
    if (live_)
        io_uring_queue_exit(&ring_);
}

DrainedRing::~DrainedRing() {
    if (!live)
        return;
    if (inflight > 0) {
        if (io_uring_sqe* sqe = io_uring_get_sqe(&ring)) {
            io_uring_prep_cancel(sqe, nullptr, IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL);
            sqe->user_data = ~0ULL;
            io_uring_submit(&ring);
        }
        __kernel_timespec ts{1, 0};
        while (inflight > 0) {
            io_uring_cqe* cqe = nullptr;
            if (io_uring_wait_cqe_timeout(&ring, &cqe, &ts) != 0)
                break; // nothing more within a second: the kernel cancels on exit
            if (cqe->user_data != ~0ULL && !(cqe->flags & IORING_CQE_F_MORE))
                --inflight;
            io_uring_cqe_seen(&ring, cqe);
        }
    }
    io_uring_queue_exit(&ring);
}

size_t Ring::mapped_bytes() const {
    const size_t sqes = page_round(params_.sq_entries * sizeof(io_uring_sqe));
    if (params_.features & IORING_FEAT_SINGLE_MMAP)
        return page_round(std::max(ring_.sq.ring_sz, ring_.cq.ring_sz)) + sqes;
    return page_round(ring_.sq.ring_sz) + page_round(ring_.cq.ring_sz) + sqes;
}

int setup_no_mmap_ring(unsigned entries, void* sqes, void* rings) {
    constexpr unsigned kSetupNoMmap = 1U << 14; // IORING_SETUP_NO_MMAP
    io_uring_params p{};
    p.flags = kSetupNoMmap;
    const auto sqes_addr = reinterpret_cast<std::uint64_t>(sqes);
    const auto rings_addr = reinterpret_cast<std::uint64_t>(rings);
#ifdef IORING_SETUP_NO_MMAP
    p.sq_off.user_addr = sqes_addr;
    p.cq_off.user_addr = rings_addr;
#else // liburing headers older than the kernel: the same field, unnamed
    p.sq_off.resv2 = sqes_addr;
    p.cq_off.resv2 = rings_addr;
#endif
    const long fd = syscall(__NR_io_uring_setup, entries, &p);
    return fd < 0 ? -errno : static_cast<int>(fd);
}

int Ring::mapping_count() const {
    return (params_.features & IORING_FEAT_SINGLE_MMAP) ? 2 : 3;
}

} // namespace uringprobe
