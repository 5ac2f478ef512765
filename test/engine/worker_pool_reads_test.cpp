// The worker pool's reads: every block read once, and the sessions read
// themselves exactly the reads the shared queue had no room for.
#include "contract/error.hpp"
#include "io/worker_pool_reads.hpp"
#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

using namespace uringprobe;

namespace {

// A file of `blocks` 8 kB blocks in `dir`.
std::string block_file(const std::string& dir, int blocks) {
    const std::string path = dir + "/blocks";
    const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
    EXPECT_GE(fd, 0);
    const std::vector<char> block(8192, 'x');
    for (int i = 0; i < blocks; ++i)
        EXPECT_EQ(::write(fd, block.data(), block.size()), 8192);
    ::close(fd);
    return path;
}

WorkerPoolParams params(const std::string& path) {
    WorkerPoolParams p;
    p.path = path;
    p.sessions = 4;
    p.depth = 8;
    p.workers = 2;
    p.direct = false; // /tmp may be tmpfs
    return p;
}

} // namespace

TEST(WorkerPoolReads, EveryBlockReadOnceThroughTheWorkers) {
    TempDir t;
    WorkerPoolParams p = params(block_file(t.path(), 256));
    p.queue = 4 * 8; // room for every read in flight
    const WorkerPoolResult r = read_with_worker_pool(p, [] { return false; });
    EXPECT_FALSE(r.stopped);
    EXPECT_EQ(r.reads, 256);
    EXPECT_EQ(r.bytes, 256LL * 8192);
    EXPECT_EQ(r.synchronous, 0);
    EXPECT_EQ(r.latency.count(), 256u);
    EXPECT_GT(r.seconds, 0);
}

// A queue that holds nothing: every read falls back to its session, as
// PostgreSQL 18's do when the workers' queue is full.
TEST(WorkerPoolReads, AFullQueueSendsReadsBackToTheirSession) {
    TempDir t;
    WorkerPoolParams p = params(block_file(t.path(), 128));
    p.queue = 0;
    const WorkerPoolResult r = read_with_worker_pool(p, [] { return false; });
    EXPECT_EQ(r.reads, 128);
    EXPECT_EQ(r.synchronous, 128);
    EXPECT_EQ(r.bytes, 128LL * 8192);
}

TEST(WorkerPoolReads, StopsWhenAsked) {
    TempDir t;
    WorkerPoolParams p = params(block_file(t.path(), 4096));
    p.workers = 1;
    p.sessions = 1;
    p.depth = 1;
    // asked before the first read, and while the sessions read
    const WorkerPoolResult before = read_with_worker_pool(p, [] { return true; });
    EXPECT_TRUE(before.stopped);
    EXPECT_EQ(before.reads, 0);
    std::atomic<int> asked{0};
    const WorkerPoolResult r = read_with_worker_pool(p, [&] { return ++asked > 1; });
    EXPECT_LE(r.reads, 4096);
    if (!r.stopped) {
        EXPECT_EQ(r.reads, 4096); // it ended before it was asked
    }
}

TEST(WorkerPoolReads, AMissingFileIsAnError) {
    WorkerPoolParams p;
    p.path = "/nonexistent/uringprobe-blocks";
    EXPECT_THROW(read_with_worker_pool(p, [] { return false; }), SysError);
}
