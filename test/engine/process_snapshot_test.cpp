#include "contract/error.hpp"
#include "os/process_snapshot.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <sys/wait.h>
#include <unistd.h>

using namespace uringprobe;

TEST(ProcessSnapshot, ThisProcess) {
    const ProcessSnapshot s = snapshot_process(getpid());
    EXPECT_EQ(s.pid, getpid());
    EXPECT_GT(s.mappings, 10);
    EXPECT_GE(s.open_fds, 3);
    EXPECT_GT(s.vm_rss_kb, 0);
    EXPECT_GE(s.user_ms + s.sys_ms, 0);
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
