// One session's way to the kernel when it extends and writes a file:
// plain syscalls (posix_fallocate, pwritev, pwrite), or its own ring with
// every operation submitted and waited for (with IOSQE_ASYNC on each SQE in
// the async mode, which sends it straight to an io-wq worker).
#pragma once

#include "ring.hpp"

#include <cstdint>
#include <optional>
#include <sys/types.h>
#include <sys/uio.h>
#include <vector>

namespace uringprobe {

class FileIo {
public:
    enum class Via { syscalls, ring, ring_async };
    static constexpr int kMaxIov = 128;    // iovecs per zero write, as PostgreSQL's PG_IOV_MAX
    static constexpr unsigned kDepth = 64; // SQEs per ring

    explicit FileIo(Via via);

    void fallocate(int fd, off_t off, off_t len);
    // `count` iovecs at `off`, continuing after short writes. The iovecs
    // are copied into a buffer the session keeps, so the timed path does
    // not allocate.
    void writev_all(int fd, const iovec* iov, size_t count, off_t off);
    void write_all(int fd, const char* buf, size_t len, off_t off);
    // Page `i` of `pages` at `off + i * block_size`: one write each, as a
    // buffer manager writes pages; through a ring, submitted in batches.
    void write_pages(int fd, const char* pages, int count, int block_size, off_t off);

private:
    io_uring_sqe* sqe();
    // Submits what was prepared (`count` SQEs tagged from first_tag_) and
    // waits for all of them; the result of the i-th goes to res[i]. Returns
    // the first result. Every completion is reaped before returning, also
    // when the submission fails half-way, so no buffer is left in flight.
    int submit_and_wait(int count, int* res);

    Via via_;
    std::optional<Ring> ring_;
    io_uring* uring_ = nullptr; // ring_'s handle, taken once
    std::uint64_t next_tag_ = 0;
    std::uint64_t first_tag_ = 0;
    std::vector<iovec> pending_; // what writev_all has still to write
};

} // namespace uringprobe
