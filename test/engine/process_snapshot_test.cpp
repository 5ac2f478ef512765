#include "contract/error.hpp"
#include "os/io_threads.hpp"
#include "os/process_snapshot.hpp"
#include "uring/ring.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <condition_variable>
#include <ctime>
#include <mutex>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace uringprobe;

TEST(ProcessSnapshot, ThisProcess) {
    const ProcessSnapshot s = snapshot_process(getpid());
    EXPECT_EQ(s.pid, getpid());
    EXPECT_GT(s.mappings, 10);
    EXPECT_GE(s.open_fds, 3);
    EXPECT_GT(s.vm_rss_kb, 0);
}

// A thread the process started counts; an io-wq worker (iou-wrk-*), which
// the kernel starts for a read punted to it and ends on its own, does not:
// a backend's threads before and after a run must not depend on whether a
// worker has idled out yet.
TEST(ProcessSnapshot, CountsThreadsButNotIoWqWorkers) {
    const long before = snapshot_process(getpid()).threads;
    EXPECT_GE(before, 1);

    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::thread waiter([&] {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return done; });
    });
    EXPECT_EQ(snapshot_process(getpid()).threads, before + 1);

    // A read of an empty pipe, forced to a worker, blocks there.
    int pipe_fds[2];
    ASSERT_EQ(pipe(pipe_fds), 0);
    {
        Ring ring(4);
        char byte = 0;
        io_uring_sqe* sqe = io_uring_get_sqe(ring.get());
        io_uring_prep_read(sqe, pipe_fds[0], &byte, 1, 0);
        sqe->flags |= IOSQE_ASYNC;
        ASSERT_EQ(io_uring_submit(ring.get()), 1);
        for (int i = 0; i < 200 && count_io_threads(kIoWqWorkerName) == 0; ++i)
            ::usleep(5000);
        EXPECT_GE(count_io_threads(kIoWqWorkerName), 1) << "no io-wq worker started";
        EXPECT_EQ(snapshot_process(getpid()).threads, before + 1);
        // the kernel marks it as its io thread, as counts_as_thread() reads
        int marked = 0, ours = 0;
        each_task(0, false, [&](long, const std::string& task, const std::string& comm) {
            const bool io = read_proc_stat(task + "/stat").flags & kPfIoWorker;
            (comm.rfind(kIoWqWorkerName, 0) == 0 ? marked : ours) += io ? 1 : 0;
        });
        EXPECT_GE(marked, 1);
        EXPECT_EQ(ours, 0);
        ASSERT_EQ(write(pipe_fds[1], "x", 1), 1);
        io_uring_cqe* cqe = nullptr;
        ASSERT_EQ(io_uring_wait_cqe(ring.get(), &cqe), 0);
        EXPECT_EQ(cqe->res, 1);
        io_uring_cqe_seen(ring.get(), cqe);
    }
    close(pipe_fds[0]);
    close(pipe_fds[1]);

    {
        std::lock_guard<std::mutex> lock(m);
        done = true;
    }
    cv.notify_one();
    waiter.join();
    EXPECT_EQ(snapshot_process(getpid()).threads, before);
}

// The CPU time read from /proc is the process's own: after the process has
// used 200 ms of CPU by its own clock, the snapshot counts at least the
// part of it the kernel's ticks (10 ms) can show.
TEST(ProcessSnapshot, CountsTheCpuTheProcessUsed) {
    const auto cpu_ms = [] {
        timespec ts{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return static_cast<double>(ts.tv_sec) * 1000 + static_cast<double>(ts.tv_nsec) / 1e6;
    };
    const ProcessSnapshot before = snapshot_process(getpid());
    const double start = cpu_ms();
    volatile unsigned long spin = 0;
    while (cpu_ms() - start < 200)
        spin = spin + 1;
    const ProcessSnapshot after = snapshot_process(getpid());
    EXPECT_GE(after.user_ms + after.sys_ms - before.user_ms - before.sys_ms, 150)
        << "200 ms of this process's CPU, counted as " << (after.user_ms + after.sys_ms) << " - "
        << (before.user_ms + before.sys_ms);
}

// Another user's process (init, as a non-root user): its mappings and fds
// need ptrace access, so the snapshot fails with EACCES and says why.
TEST(ProcessSnapshot, UnreadableProcessIsEACCESWithAHint) {
    if (geteuid() == 0)
        GTEST_SKIP() << "root reads every process";
    try {
        snapshot_process(1);
        FAIL() << "read init's mappings";
    } catch (const SysError& e) {
        EXPECT_EQ(e.err(), EACCES);
        EXPECT_NE(e.hint().find("not dumpable"), std::string::npos) << e.hint();
    }
}

TEST(ProcessSnapshot, ExitedProcessIsENOENTWithAHint) {
    const pid_t child = fork();
    if (child == 0)
        _exit(0);
    ASSERT_GT(child, 0);
    ASSERT_EQ(waitpid(child, nullptr, 0), child);
    try {
        snapshot_process(child);
        FAIL() << "read an exited process";
    } catch (const SysError& e) {
        EXPECT_EQ(e.err(), ENOENT);
        EXPECT_NE(e.hint().find("hidepid"), std::string::npos) << e.hint();
    }
}

// The rule on made-up tasks: a kernel io thread still named as its process
// (an io-wq worker the kernel has just started) is left out like a named
// worker; a SQPOLL thread and the process's own threads count.
TEST(ProcessSnapshot, AnUnnamedKernelIoThreadIsAWorker) {
    EXPECT_TRUE(counts_as_thread("postgres", 0x400040));
    EXPECT_FALSE(counts_as_thread("postgres", 0x400040 | kPfIoWorker));
    EXPECT_FALSE(counts_as_thread("iou-wrk-4242", kPfIoWorker));
    EXPECT_TRUE(counts_as_thread("iou-sqp-4242", 0x400040 | kPfIoWorker));
    EXPECT_FALSE(counts_as_thread("iou-wrk-7", 0));
}
