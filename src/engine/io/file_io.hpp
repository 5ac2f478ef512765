// One session's way to the kernel when it extends and writes a file:
// plain syscalls (posix_fallocate, pwritev), or its own ring with every
// operation one SQE, submitted and waited for by one io_uring_enter (with
// IOSQE_ASYNC on each SQE in the async mode, which sends it straight to an
// io-wq worker): the same operations and waits either way, one call each.
#pragma once

#include "uring/ring.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <sys/types.h>
#include <sys/uio.h>
#include <vector>

namespace uringprobe {

class FileIo {
public:
    enum class Via { syscalls, ring, ring_async };
    static constexpr int kMaxIov = 128;   // iovecs per zero write, as PostgreSQL's PG_IOV_MAX
    static constexpr unsigned kDepth = 4; // SQEs per ring (one in flight at a time)

    // Thrown by a ring's operation once `stop` is set while it is waited
    // for: the operation is cancelled and reaped (Ring::drain; memory lent
    // to the ring is kept if the kernel does not give it back). A wait
    // asks `stop` every kPeerWaitMs: a device that does not complete must
    // not hold a stop up. Plain syscalls wait as the kernel makes them.
    struct Stopped {};

    explicit FileIo(Via via, const std::atomic<bool>* stop = nullptr);
    // Memory the operations read (the caller's buffers), lent to the ring.
    void lend(std::shared_ptr<void> memory, size_t bytes);

    void fallocate(int fd, off_t off, off_t len);
    // `count` iovecs at `off`, continuing after short writes. The iovecs
    // are copied into a buffer the session keeps, so the timed path does
    // not allocate.
    void writev_all(int fd, const iovec* iov, size_t count, off_t off);
    void write_all(int fd, const char* buf, size_t len, off_t off);

private:
    io_uring_sqe* sqe();
    // Submits the one SQE prepared and waits for it; returns its result.
    int submit_and_wait();

    Via via_;
    const std::atomic<bool>* stop_;
    std::optional<Ring> ring_;
    io_uring* uring_ = nullptr;  // ring_'s handle, taken once
    std::vector<iovec> pending_; // what writev_all has still to write
};

} // namespace uringprobe
