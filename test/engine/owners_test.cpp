// The owners of kernel objects: each makes its object or throws naming the
// call, and releases it however the scope ends.
#include "os/fd.hpp"
#include "os/mapping.hpp"
#include "os/process_snapshot.hpp"
#include "uring/ring.hpp"

#include <cerrno>
#include <chrono>
#include <gtest/gtest.h>
#include <memory>
#include <poll.h>
#include <stdexcept>
#include <unistd.h>

using namespace uringprobe;

namespace {
long open_fds() {
    return snapshot_process(getpid()).open_fds;
}
long mappings() {
    return snapshot_process(getpid()).mappings;
}
} // namespace

TEST(Owners, FdFactoriesThrowNamingTheCall) {
    try {
        Fd::open("/nonexistent/uringprobe", O_RDONLY, "open /nonexistent/uringprobe");
        FAIL() << "no exception";
    } catch (const SysError& e) {
        EXPECT_EQ(e.err(), ENOENT);
        EXPECT_EQ(e.call(), "open /nonexistent/uringprobe");
    }
    const long before = open_fds();
    {
        const Pipe p = Pipe::open(O_NONBLOCK);
        const Fd s = Fd::socket(AF_INET, SOCK_DGRAM, 0);
        EXPECT_EQ(open_fds(), before + 3);
        EXPECT_EQ(fcntl(p.read_end.get(), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
        EXPECT_EQ(fcntl(s.get(), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    }
    EXPECT_EQ(open_fds(), before);
}

TEST(Owners, MappingIsUnmapped) {
    const long before = mappings();
    {
        const Mapping m = Mapping::anonymous(1 << 20, Mapping::Sharing::shared, "mmap");
        EXPECT_EQ(m.size(), 1u << 20);
        EXPECT_EQ(m.data()[12345], 0);
        EXPECT_EQ(mappings(), before + 1);
    }
    EXPECT_EQ(mappings(), before);
    EXPECT_THROW(Mapping::anonymous(0, Mapping::Sharing::private_, "mmap"), SysError);
}

TEST(Owners, RingDrainsWhatIsInFlight) {
    const long fds = open_fds(), maps = mappings();
    {
        const Pipe p = Pipe::open();
        Ring ring(8);
        // a multishot poll on a pipe nobody writes: in flight until cancelled
        io_uring_sqe* sqe = io_uring_get_sqe(ring.get());
        io_uring_prep_poll_multishot(sqe, p.read_end.get(), POLLIN);
        sqe->user_data = 1;
        ASSERT_EQ(io_uring_submit(ring.get()), 1);
        ring.submitted(1);
        EXPECT_EQ(ring.inflight(), 1);
    } // the ring cancels and reaps the poll before the pipe closes
    EXPECT_EQ(open_fds(), fds);
    EXPECT_EQ(mappings(), maps);
}

// Memory lent to a ring lives until its operations are reaped: a read
// the teardown cancels gives its buffer back; an operation the kernel
// does not give back within Ring::kDrainMs (a device that hangs; here one
// counted in flight that the kernel never had) keeps it for the life of
// the process, and the teardown still ends.
TEST(Owners, RingKeepsLentMemoryUntilReaped) {
    bool freed = false;
    const auto lent = [&freed] {
        return std::shared_ptr<char>(new char[4096], [&freed](char* p) {
            freed = true;
            delete[] p;
        });
    };
    {
        const Pipe p = Pipe::open();
        Ring ring(8);
        auto buf = lent();
        io_uring_prep_read(io_uring_get_sqe(ring.get()), p.read_end.get(), buf.get(), 4096, 0);
        ASSERT_EQ(io_uring_submit(ring.get()), 1);
        ring.submitted(1);
        ring.lend(buf, 4096);
    }
    EXPECT_TRUE(freed) << "a read cancelled and reaped gives its buffer back";
    freed = false;
    const size_t kept = Ring::kept_bytes();
    const auto t0 = std::chrono::steady_clock::now();
    {
        Ring ring(8);
        ring.lend(lent(), 4096);
        ring.submitted(1); // never completes
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_FALSE(freed) << "memory an operation may still use is never freed";
    EXPECT_EQ(Ring::kept_bytes(), kept + 4096);
    EXPECT_GE(ms, Ring::kDrainMs * 0.9);
    EXPECT_LT(ms, 5000);
}

TEST(Owners, RingInARegion) {
    const long fds = open_fds();
    const size_t bytes = 64 * page_round(1);
    const Mapping region = Mapping::anonymous(2 * bytes, Mapping::Sharing::shared, "mmap");
    try {
        const long maps = mappings();
        {
            Ring ring = Ring::in_region(8, region.data() + bytes, region.data());
            EXPECT_EQ(open_fds(), fds + 1);
            EXPECT_EQ(mappings(), maps); // nothing mapped per ring
            EXPECT_THROW(ring.get(), std::logic_error);
            Ring moved(std::move(ring));
            EXPECT_GE(moved.fd(), 0);
            EXPECT_EQ(ring.fd(), -1);
        }
        EXPECT_EQ(open_fds(), fds);
    } catch (const SysError& e) {
        // a kernel before 6.5 refuses the layout; then nothing is left either
        EXPECT_EQ(e.err(), EINVAL) << e.what();
        EXPECT_EQ(open_fds(), fds);
    }
}
