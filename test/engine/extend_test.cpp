#include "child_processes.hpp"
#include "contract/error.hpp"
#include "experiments/extend_experiment.hpp"
#include "io/file_io.hpp"
#include "io/session_threads.hpp"
#include "os/fd.hpp"
#include "refused.hpp"
#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace uringprobe;

namespace {

ExtendParams fixed(const TempDir& t, ExtendStrategy s, ExtendInterface i) {
    ExtendParams p;
    p.dir = t.path();
    p.strategy = s;
    p.interface = i;
    p.min_blocks = p.max_blocks = 8;
    p.total_mb = 1;
    p.write_data = true;
    p.verify = true;
    return p;
}

const auto never = [] { return false; };

} // namespace

// 1 MB in extensions of 8 blocks of 8 KiB: 16 extensions, exact in size and
// content, by every strategy through every interface; nothing left.
TEST(Extend, EveryStrategyAndInterfaceIsExact) {
    for (auto s : {ExtendStrategy::fallocate, ExtendStrategy::write_zeros,
                   ExtendStrategy::mdzeroextend, ExtendStrategy::write}) {
        for (auto i :
             {ExtendInterface::sync, ExtendInterface::io_uring, ExtendInterface::io_uring_async}) {
            TempDir t;
            const ExtendResult r = run_extend(fixed(t, s, i), {t.path()}, never);
            SCOPED_TRACE(std::string(to_string(s)) + "/" + to_string(i));
            EXPECT_EQ(r.outcome.status(), "ok");
            EXPECT_EQ(r.extensions, 16);
            EXPECT_EQ(r.bytes, 1048576u);
            EXPECT_EQ(r.file_bytes, 1048576u);
            EXPECT_EQ(r.verified, "ok");
            EXPECT_EQ(r.data_write_calls, 128);
            EXPECT_EQ(r.latency.count(), 16u);
            const bool falloc = s == ExtendStrategy::fallocate;
            EXPECT_EQ(r.fallocate_calls, falloc ? 16 : 0);
            EXPECT_EQ(r.zero_write_calls, falloc ? 0 : s == ExtendStrategy::write ? 128 : 16);
            EXPECT_EQ(t.entries(), 0);
        }
    }
}

// PostgreSQL 16's rule: more than 8 blocks is a fallocate.
TEST(Extend, MdzeroextendSwitchesAboveEightBlocks) {
    TempDir t;
    ExtendParams p = fixed(t, ExtendStrategy::mdzeroextend, ExtendInterface::sync);
    p.min_blocks = p.max_blocks = 9;
    p.total_mb = 2;
    const ExtendResult r = run_extend(p, {t.path()}, never);
    EXPECT_GT(r.fallocate_calls, 0);
    EXPECT_EQ(r.zero_write_calls, 1); // the last, shorter extension
}

TEST(Extend, SessionsOnOneFileAndOnTheirOwn) {
    for (bool shared : {true, false}) {
        TempDir t;
        ExtendParams p = fixed(t, ExtendStrategy::mdzeroextend, ExtendInterface::io_uring);
        p.min_blocks = 1;
        p.max_blocks = 16;
        p.total_mb = 4;
        p.sessions = 4;
        p.shared = shared;
        const ExtendResult r = run_extend(p, {t.path()}, never);
        EXPECT_EQ(r.outcome.status(), "ok");
        EXPECT_EQ(r.bytes, 4u << 20);
        EXPECT_EQ(r.file_bytes, 4u << 20);
        EXPECT_EQ(r.verified, "ok");
        EXPECT_EQ(t.entries(), 0);
    }
}

TEST(Extend, SeededSizesAreReproducible) {
    TempDir t;
    ExtendParams p = fixed(t, ExtendStrategy::mdzeroextend, ExtendInterface::sync);
    p.min_blocks = 1;
    p.max_blocks = 64;
    p.total_mb = 4;
    p.seed = 7;
    const ExtendResult a = run_extend(p, {t.path()}, never);
    const ExtendResult b = run_extend(p, {t.path()}, never);
    EXPECT_EQ(a.extensions, b.extensions);
    EXPECT_EQ(a.fallocate_calls, b.fallocate_calls);
    p.seed = 8;
    const ExtendResult c = run_extend(p, {t.path()}, never);
    EXPECT_EQ(c.bytes, a.bytes);
}

TEST(Extend, StoppedRunsLeaveNothing) {
    TempDir t;
    ExtendParams p = fixed(t, ExtendStrategy::write, ExtendInterface::io_uring);
    p.total_mb = 1024;
    p.sessions = 4;
    std::atomic<int> polls{0};
    const ExtendResult r = run_extend(p, {t.path()}, [&] { return ++polls > 2; });
    EXPECT_EQ(r.outcome.status(), "stopped");
    EXPECT_LT(r.bytes, 1024ull << 20);
    EXPECT_EQ(t.entries(), 0);
}

// A stop rule that fails (in a backend: an error while serving an
// interrupt) stops the sessions too: the error comes back at once, not
// after they wrote their whole quota (here minutes of 512-byte writes).
TEST(Extend, AStopRuleThatFailsStopsTheSessions) {
    TempDir t;
    ExtendParams p = fixed(t, ExtendStrategy::write, ExtendInterface::io_uring);
    p.min_blocks = p.max_blocks = 1;
    p.block_size = 512;
    p.total_mb = 4096;
    p.sessions = 2;
    p.verify = false;
    std::atomic<int> polls{0};
    std::chrono::steady_clock::time_point thrown, returned;
    bool failed = false;
    finishes_within(30, [&] {
        try {
            run_extend(p, {t.path()}, [&]() -> bool {
                if (++polls < 5)
                    return false;
                thrown = std::chrono::steady_clock::now();
                throw std::runtime_error("the stop rule failed");
            });
        } catch (const std::runtime_error& e) {
            failed = std::string(e.what()) == "the stop rule failed";
        }
        returned = std::chrono::steady_clock::now();
    });
    const double ms = std::chrono::duration<double, std::milli>(returned - thrown).count();
    std::printf("[ stop     ] extend: the error came back %.1f ms after the stop rule threw\n", ms);
    EXPECT_TRUE(failed);
    EXPECT_LT(ms, 5000);
    EXPECT_EQ(t.entries(), 0);
}

// A session's write that does not complete (here into a pipe nobody
// reads, as to a device that hangs) is waited for in bounded slices: a
// stop cancels it and the session ends, through io_uring and
// io_uring_async alike.
TEST(Extend, AWriteThatNeverCompletesStillStops) {
    for (auto via : {FileIo::Via::ring, FileIo::Via::ring_async}) {
        const Pipe p = Pipe::open();
        std::atomic<bool> stop{false};
        FileIo io(via, &stop);
        const std::vector<char> data(1 << 20, 'x'); // more than a pipe holds
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            stop = true;
        });
        bool stopped = false;
        finishes_within(20, [&] {
            try {
                io.write_all(p.write_end.get(), data.data(), data.size(), 0);
            } catch (const FileIo::Stopped&) {
                stopped = true;
            }
        });
        stopper.join();
        EXPECT_TRUE(stopped);
    }
}

TEST(Extend, BadParametersAreRefused) {
    const Caps caps{{"uringprobe.max_scratch_mb", 100}};
    ExtendParams p;
    p.dir = "/tmp";
    EXPECT_NO_THROW(validate(p, caps));
    const auto check = [&](const ExtendParams& q) { validate(q, caps); };
    EXPECT_TRUE(refused_after(p, check, [](auto& q) { q.block_size = 1000; }));
    EXPECT_TRUE(refused_after(p, check, [](auto& q) {
        q.min_blocks = 9;
        q.max_blocks = 8;
    }));
    EXPECT_TRUE(refused_after(p, check, [](auto& q) {
        q.max_blocks = 4096;
        q.block_size = 65536;
    }));
    EXPECT_TRUE(refused_after(p, check, [&](auto& q) { q.total_mb = 101; }));
    EXPECT_TRUE(refused_after(p, check, [](auto& q) { q.sessions = 0; }));
    EXPECT_THROW(parse_extend_strategy("posix_fallocate"), InvalidArgument);
    EXPECT_THROW(parse_extend_interface("aio"), InvalidArgument);
    EXPECT_EQ(parse_extend_strategy("write_zeros"), ExtendStrategy::write_zeros);
}

TEST(Extend, OnlyAllowedDirectories) {
    TempDir t;
    ExtendParams p = fixed(t, ExtendStrategy::fallocate, ExtendInterface::sync);
    EXPECT_THROW(run_extend(p, {"/nonexistent-elsewhere"}, never), InvalidArgument);
    EXPECT_THROW(run_extend(p, {}, never), InvalidArgument);
}

TEST(Extend, TableHasTheRawHistogram) {
    TempDir t;
    const Table tab = extend_table(
        run_extend(fixed(t, ExtendStrategy::fallocate, ExtendInterface::sync), {t.path()}, never));
    ASSERT_EQ(tab.rows.size(), 1u);
    ASSERT_EQ(tab.columns.size(), tab.rows[0].size());
    EXPECT_EQ(tab.columns.front().name, "experiment");
    EXPECT_EQ(tab.columns.back().name, "latency_histogram");
    EXPECT_FALSE(tab.rows[0].back().s.empty());
}

// What a run's session threads leave behind (glibc keeps the stacks of
// joined threads for reuse, in a backend for its life): no stack bigger
// than kSessionStackBytes (at the default 8 MiB, 4 stayed: 32 MiB). A
// thread's stack is a writable mapping right above its one-page guard
// (an allocator's regions, AddressSanitizer's among them, have none, or
// bigger reserved ones).
TEST(Extend, SessionThreadsLeaveOnlySmallStacks) {
    auto big_writable = [] {
        std::ifstream maps("/proc/self/maps");
        std::set<std::string> out;
        std::string line;
        unsigned long guard_end = 0;
        const unsigned long page = static_cast<unsigned long>(sysconf(_SC_PAGESIZE));
        while (std::getline(maps, line)) {
            unsigned long lo = 0, hi = 0;
            char perms[5] = {};
            if (std::sscanf(line.c_str(), "%lx-%lx %4s", &lo, &hi, perms) != 3)
                continue;
            if (std::string(perms) == "rw-p" && lo == guard_end && hi - lo > 2 * kSessionStackBytes)
                out.insert(line);
            guard_end = std::string(perms) == "---p" && hi - lo == page ? hi : 0;
        }
        return out;
    };
    const std::set<std::string> before = big_writable();
    TempDir t;
    ExtendParams p = fixed(t, ExtendStrategy::mdzeroextend, ExtendInterface::io_uring);
    p.sessions = 8;
    p.shared = false;
    EXPECT_EQ(run_extend(p, {t.path()}, never).outcome.status(), "ok");
    std::string left;
    for (const auto& m : big_writable())
        if (!before.count(m))
            left += m + "\n";
    EXPECT_EQ(left, "");
}

// With write_data every session holds one extension's pages: counted to
// the byte against uringprobe.max_memory_mb, never rounded down to whole
// MiB (64 sessions x 127 blocks of 8 kB are 63.5 MiB, not 0 x 64).
TEST(Extend, DataPagesCountedExactlyAgainstMaxMemory) {
    const Caps one_mb{{"uringprobe.max_memory_mb", 1}};
    ExtendParams p;
    p.dir = "/tmp";
    p.write_data = true;
    p.sizing = ExtendSizing::uniform;
    p.min_blocks = 1;
    p.block_size = 8192;
    p.sessions = 64;
    p.max_blocks = 127;
    EXPECT_NO_THROW(validate(p, {}));
    EXPECT_EQ(refusal([&] { validate(p, one_mb); }),
              "with write_data, sessions x max_blocks x block_size (each session holds one "
              "extension's pages) = 63.5 MiB exceeds uringprobe.max_memory_mb (1 MB)");
    p.sessions = 1;
    p.max_blocks = 128; // exactly 1 MiB
    EXPECT_NO_THROW(validate(p, one_mb));
    p.max_blocks = 129;
    EXPECT_THROW(validate(p, one_mb), InvalidArgument);
    p.write_data = false; // nothing held
    p.sessions = 64;
    EXPECT_NO_THROW(validate(p, one_mb));
}
