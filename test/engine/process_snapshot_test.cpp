#include "contract/error.hpp"
#include "os/process_snapshot.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <ctime>
#include <sys/wait.h>
#include <unistd.h>

using namespace uringprobe;

TEST(ProcessSnapshot, ThisProcess) {
    const ProcessSnapshot s = snapshot_process(getpid());
    EXPECT_EQ(s.pid, getpid());
    EXPECT_GT(s.mappings, 10);
    EXPECT_GE(s.open_fds, 3);
    EXPECT_GT(s.vm_rss_kb, 0);
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
