// Hints: the limit a DBA must look at, and only that one.
#include "contract/error.hpp"
#include "io/scratch_file.hpp"
#include "uring/io_uring_caps.hpp"
#include "uring/ring.hpp"

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
    EXPECT_EQ(SysError(ENOMEM, "io_uring_queue_init", ring_setup_hint).hint(),
              ring_memory_hint(ring_memory_charge()));
    EXPECT_EQ(SysError(ENOMEM, "mmap").hint(), "out of memory");
    EXPECT_NE(ring_memory_charge(), MemlockCharge::unknown);
}

// A ring that cannot be made says so with the ring's hint, not the
// generic one (0 entries: EINVAL from every kernel).
TEST(Error, ARingThatCannotBeMadeHasTheRingsHint) {
    try {
        Ring r(0, 0, 0);
        FAIL() << "a ring of 0 entries was made";
    } catch (const SysError& e) {
        EXPECT_EQ(e.err(), EINVAL);
        EXPECT_NE(e.hint().find("setup flags or size"), std::string::npos) << e.hint();
        EXPECT_NE(e.hint(), errno_hint(e.err(), e.call()));
    }
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
