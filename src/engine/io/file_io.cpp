#include "io/file_io.hpp"

#include "contract/error.hpp"
#include "contract/stop_poll.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <fcntl.h>
#include <liburing.h>
#include <unistd.h>

namespace uringprobe {

namespace {

// Moves `iov` forward past `done` bytes.
void advance(std::vector<iovec>& iov, size_t done) {
    size_t i = 0;
    while (i < iov.size() && done >= iov[i].iov_len)
        done -= iov[i++].iov_len;
    iov.erase(iov.begin(), iov.begin() + static_cast<long>(i));
    if (!iov.empty() && done) {
        iov[0].iov_base = static_cast<char*>(iov[0].iov_base) + done;
        iov[0].iov_len -= done;
    }
}

} // namespace

FileIo::FileIo(Via via, const std::atomic<bool>* stop) : via_(via), stop_(stop) {
    if (via_ != Via::syscalls) {
        ring_.emplace(kDepth);
        uring_ = ring_->get();
    }
}

void FileIo::lend(std::shared_ptr<void> memory, size_t bytes) {
    if (ring_)
        ring_->lend(std::move(memory), bytes);
}

void FileIo::fallocate(int fd, off_t off, off_t len) {
    if (!ring_) {
        const int err = ::posix_fallocate(fd, off, len);
        if (err)
            throw SysError(err, "posix_fallocate");
        return;
    }
    io_uring_prep_fallocate(sqe(), fd, 0, static_cast<__u64>(off), static_cast<__u64>(len));
    check_neg_errno(submit_and_wait(), "io_uring fallocate");
}

void FileIo::writev_all(int fd, const iovec* iov, size_t count, off_t off) {
    pending_.assign(iov, iov + count);
    while (!pending_.empty()) {
        const int n = std::min<int>(static_cast<int>(pending_.size()), kMaxIov);
        long done;
        if (!ring_) {
            done = check_syscall(::pwritev(fd, pending_.data(), n, off), "pwritev");
        } else {
            io_uring_prep_writev(sqe(), fd, pending_.data(), static_cast<unsigned>(n),
                                 static_cast<__u64>(off));
            done = check_neg_errno(submit_and_wait(), "io_uring writev");
        }
        if (done == 0)
            throw SysError(ENOSPC, ring_ ? "io_uring writev" : "pwritev");
        advance(pending_, static_cast<size_t>(done));
        off += done;
    }
}

void FileIo::write_all(int fd, const char* buf, size_t len, off_t off) {
    const iovec one{const_cast<char*>(buf), len};
    writev_all(fd, &one, 1, off);
}

io_uring_sqe* FileIo::sqe() {
    io_uring_sqe* s = io_uring_get_sqe(uring_);
    if (!s)
        throw SysError(EBUSY, "io_uring_get_sqe");
    if (via_ == Via::ring_async)
        s->flags |= IOSQE_ASYNC;
    return s;
}

int FileIo::submit_and_wait() {
    io_uring* r = uring_;
    // One io_uring_enter submits the SQE and waits for its completion, as
    // the plain syscall is one call; a signal or kPeerWaitMs can end the
    // wait early, and it goes on until the completion is reaped (so no
    // buffer stays in flight) or a stop.
    const __kernel_timespec wait{0, kPeerWaitMs * 1000000LL};
    ring_->submitted(1);
    for (;;) {
        const int ret = ring_->submit_and_wait(1, &wait);
        const bool interrupted = ret == -EINTR || ret == -ETIME;
        if (ret < 0 && !interrupted && io_uring_sq_ready(r) > 0) {
            ring_->completed(); // not submitted: nothing in flight
            check_neg_errno(ret, "io_uring_enter");
        }
        io_uring_cqe* cqe = nullptr;
        if (io_uring_peek_cqe(r, &cqe) == 0) {
            const int res = cqe->res;
            io_uring_cqe_seen(r, cqe);
            ring_->completed();
            return res;
        }
        if (ret < 0 && !interrupted)
            check_neg_errno(ret, "io_uring_enter");
        if (stop_ && stop_->load(std::memory_order_relaxed)) {
            ring_->drain();
            throw Stopped();
        }
    }
}

} // namespace uringprobe
