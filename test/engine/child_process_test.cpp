#include "os/child_process.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <unistd.h>

using uringprobe::ChildProcess;

// The child runs until its owner goes: then it is killed and reaped, no
// zombie left.
TEST(ChildProcess, KilledAndReapedWithItsOwner) {
    pid_t pid = -1;
    {
        ChildProcess c([] {
            for (;;)
                pause();
        });
        pid = c.pid();
        ASSERT_GT(pid, 0);
        EXPECT_EQ(kill(pid, 0), 0);
        ChildProcess moved(std::move(c));
        EXPECT_EQ(moved.pid(), pid);
    }
    errno = 0;
    EXPECT_EQ(kill(pid, 0), -1);
    EXPECT_EQ(errno, ESRCH);
}

// Every signal is blocked in the child: a SIGTERM does not end it early.
TEST(ChildProcess, SignalsAreBlockedInTheChild) {
    ChildProcess c([] {
        for (;;)
            pause();
    });
    ASSERT_EQ(kill(c.pid(), SIGTERM), 0);
    usleep(50000);
    EXPECT_EQ(kill(c.pid(), 0), 0);
}
