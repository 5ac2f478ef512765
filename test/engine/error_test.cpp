// Hints: the limit a DBA must look at, and only that one.
#include "contract/error.hpp"
#include "experiments/scratch_file.hpp"
#include "uring/io_uring_caps.hpp"

#include <cerrno>
#include <gtest/gtest.h>
#include <string>

using namespace uringprobe;

TEST(Error, RingMemoryHintNamesMemlockOnlyWhereCharged) {
    EXPECT_NE(ring_memory_hint(MemlockCharge::charged).find("raise ulimit -l"), std::string::npos);
    for (MemlockCharge c : {MemlockCharge::not_charged, MemlockCharge::exempt}) {
        const std::string h = ring_memory_hint(c);
        EXPECT_NE(h.find("not charged to RLIMIT_MEMLOCK"), std::string::npos) << h;
        EXPECT_EQ(h.find("raise ulimit -l"), std::string::npos) << h;
    }
    EXPECT_NE(ring_memory_hint(MemlockCharge::unknown).find("if this kernel charges"),
              std::string::npos);
}

TEST(Error, EnomemHintFollowsThisProcesssCharge) {
    // This process's ring set-up failing with ENOMEM gets the hint for
    // what the probe finds here; any other call's ENOMEM is plain.
    EXPECT_EQ(SysError(ENOMEM, "io_uring_queue_init").hint(),
              ring_memory_hint(ring_memory_charge()));
    EXPECT_EQ(SysError(ENOMEM, "mmap").hint(), "out of memory");
    EXPECT_NE(ring_memory_charge(), MemlockCharge::unknown);
}

TEST(Error, EnospcHintNamesTheFilesystem) {
    EXPECT_EQ(SysError(ENOSPC, "fallocate").hint(), "the filesystem is full");
}

// Odd scratch directories: a regular file listed, a read-only filesystem,
// each said for what it is (a regular file was once called a symlink).
TEST(Error, OddScratchDirectoriesSayWhatTheyAre) {
    EXPECT_EQ(SysError(EROFS, "create /x/f").hint(), "the filesystem is mounted read-only");
    EXPECT_EQ(SysError(ENOTDIR, "open /etc/passwd").hint(),
              "a scratch directory, and each of its parents, must be a directory");
    try {
        ScratchDir("/etc/passwd", {"/etc/passwd"});
        FAIL() << "a regular file was taken as a scratch directory";
    } catch (const SysError& e) {
        EXPECT_EQ(e.err(), ENOTDIR);
        EXPECT_EQ(std::string(e.what()), "open /etc/passwd: Not a directory");
    }
}
