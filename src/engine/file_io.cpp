#include "file_io.hpp"

#include "error.hpp"

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

FileIo::FileIo(Via via) : via_(via) {
    if (via_ != Via::syscalls) {
        ring_.emplace(kDepth);
        uring_ = ring_->get();
    }
}

void FileIo::fallocate(int fd, off_t off, off_t len) {
    if (!ring_) {
        const int err = ::posix_fallocate(fd, off, len);
        if (err)
            throw SysError(err, "posix_fallocate");
        return;
    }
    io_uring_prep_fallocate(sqe(), fd, 0, static_cast<__u64>(off), static_cast<__u64>(len));
    check_neg_errno(submit_and_wait(1, nullptr), "io_uring fallocate");
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
            done = check_neg_errno(submit_and_wait(1, nullptr), "io_uring writev");
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

void FileIo::write_pages(int fd, const char* pages, int count, int block_size, off_t off) {
    if (!ring_) {
        for (int i = 0; i < count; ++i)
            write_all(fd, pages + size_t(i) * block_size, size_t(block_size),
                      off + off_t(i) * block_size);
        return;
    }
    for (int first = 0; first < count; first += kDepth) {
        const int batch = std::min<int>(count - first, kDepth);
        for (int i = first; i < first + batch; ++i)
            io_uring_prep_write(sqe(), fd, pages + size_t(i) * block_size,
                                static_cast<unsigned>(block_size),
                                static_cast<__u64>(off + off_t(i) * block_size));
        std::array<int, kDepth> res{};
        submit_and_wait(batch, res.data());
        for (int i = 0; i < batch; ++i) {
            if (res[size_t(i)] < 0)
                throw SysError(-res[size_t(i)], "io_uring write");
            if (res[size_t(i)] < block_size) { // finish a short write the plain way
                const size_t done = size_t(res[size_t(i)]);
                write_all(fd, pages + size_t(first + i) * block_size + done,
                          size_t(block_size) - done,
                          off + off_t(first + i) * block_size + off_t(done));
            }
        }
    }
}

io_uring_sqe* FileIo::sqe() {
    io_uring_sqe* s = io_uring_get_sqe(uring_);
    if (!s)
        throw SysError(EBUSY, "io_uring_get_sqe");
    s->user_data = next_tag_++;
    if (via_ == Via::ring_async)
        s->flags |= IOSQE_ASYNC;
    return s;
}

int FileIo::submit_and_wait(int count, int* res) {
    io_uring* r = uring_;
    int submitted = io_uring_submit(r);
    const int submit_err = submitted < 0 ? submitted : 0;
    if (submitted < 0)
        submitted = 0;
    int first = 0;
    for (int seen = 0; seen < submitted; ++seen) {
        io_uring_cqe* cqe = nullptr;
        int ret;
        do
            ret = io_uring_wait_cqe(r, &cqe);
        while (ret == -EINTR);
        check_neg_errno(ret, "io_uring_wait_cqe");
        const auto idx = static_cast<int>(cqe->user_data - first_tag_);
        if (res && idx >= 0 && idx < count)
            res[idx] = cqe->res;
        if (idx == 0)
            first = cqe->res;
        io_uring_cqe_seen(r, cqe);
    }
    first_tag_ = next_tag_;
    check_neg_errno(submit_err, "io_uring_submit");
    if (submitted < count)
        throw SysError(EAGAIN, "io_uring_submit (fewer SQEs submitted than prepared)");
    return first;
}

} // namespace uringprobe
