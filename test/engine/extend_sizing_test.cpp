// Extension sizes by PostgreSQL 16's rule: the sessions waiting on the
// extension lock are counted, never simulated; the fallocate/zeros
// switches on a file are counted exactly.
#include "experiments/extend_experiment.hpp"
#include "experiments/extend_session.hpp"
#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

using namespace uringprobe;

namespace {

const auto never = [] { return false; };

ExtendParams sized(const TempDir& t, ExtendSizing sizing, int pages) {
    ExtendParams p;
    p.dir = t.path();
    p.strategy = ExtendStrategy::mdzeroextend;
    p.sizing = sizing;
    p.pages = pages;
    p.total_mb = 2; // 256 blocks of 8 KiB
    return p;
}

// Waits until `lock` has `n` sessions blocked on it.
void wait_for_waiters(const ExtensionLock& lock, int n) {
    for (int i = 0; i < 5000 && lock.waiters() < n; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_EQ(lock.waiters(), n);
}

} // namespace

// hio.c: pages + pages x waiters; with 82a4edab at least what the session
// extended before; never more than 64.
TEST(ExtendSizing, PostgresFormula) {
    EXPECT_EQ(waiters_extension_blocks(8, 0, false, 0), 8);
    EXPECT_EQ(waiters_extension_blocks(8, 2, false, 0), 24);
    EXPECT_EQ(waiters_extension_blocks(8, 7, false, 0), 64);
    EXPECT_EQ(waiters_extension_blocks(8, 100, false, 0), 64);
    EXPECT_EQ(waiters_extension_blocks(1, 3, false, 1000),
              4); // no prior: what came before does not count
    EXPECT_EQ(waiters_extension_blocks(8, 0, true, 20), 20);
    EXPECT_EQ(waiters_extension_blocks(8, 1, true, 10), 16);
    EXPECT_EQ(waiters_extension_blocks(8, 0, true, 1000), 64);
}

// A session that has to wait is counted while it waits, and only then;
// the lock goes to the waiters in the order they came.
TEST(ExtendSizing, TheLockCountsWhoWaits) {
    ExtensionLock lock;
    EXPECT_EQ(lock.waiters(), 0);
    lock.lock(); // free: taken without waiting
    EXPECT_EQ(lock.waiters(), 0);
    std::vector<std::thread> waiting;
    std::vector<int> order;
    for (int i = 1; i <= 3; ++i) {
        waiting.emplace_back([&, i] {
            lock.lock();
            order.push_back(i); // under the lock
            lock.unlock();
        });
        wait_for_waiters(lock, i);
    }
    lock.unlock();
    for (auto& t : waiting)
        t.join();
    EXPECT_EQ(lock.waiters(), 0);
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

// Sessions held waiting, one more each time: each sizes its first
// extension from the sessions blocked when it asked (0, 1, 2, 3), so with
// pages = 2 their first extensions are 2, 4, 6 and 8 blocks, exactly
// (later ones follow whoever waits then).
TEST(ExtendSizing, SizesFollowTheSessionsReallyWaiting) {
    TempDir t;
    ExtendParams p = sized(t, ExtendSizing::waiters, 2);
    const ScratchDir dir(p.dir, {p.dir});
    Target target;
    target.file = std::make_shared<ScratchFile>(dir);
    target.quota_blocks = 1000;
    std::atomic<bool> stop{false};
    std::vector<std::unique_ptr<Session>> sessions;
    std::vector<SessionResult> results(4);
    std::vector<std::thread> threads;
    target.lock.lock();
    for (int i = 0; i < 4; ++i) {
        sessions.push_back(std::make_unique<Session>(p, target, i, stop));
        threads.emplace_back([&, i] { results[size_t(i)] = sessions[size_t(i)]->run(); });
        wait_for_waiters(target.lock, i + 1);
    }
    target.lock.unlock();
    for (auto& th : threads)
        th.join();
    std::vector<int> first;
    long blocks = 0;
    for (const auto& r : results) {
        first.push_back(r.first_blocks);
        blocks += static_cast<long>(r.blocks);
    }
    EXPECT_EQ(first, (std::vector<int>{2, 4, 6, 8}));
    EXPECT_EQ(blocks, 1000);
}

// One session, nobody waiting: with the fix the sizes grow with what the
// session extended before (8, 8, 16, 32, 64, 64, 64: one switch from zeros
// to fallocate); without it every extension is 8 blocks of zeros.
TEST(ExtendSizing, SwitchesOnAKnownSequence) {
    TempDir t;
    ExtendResult r = run_extend(sized(t, ExtendSizing::waiters_prior, 8), {t.path()}, never);
    EXPECT_EQ(r.extensions, 7);
    EXPECT_EQ(r.switches, 1);
    EXPECT_EQ(r.zero_write_calls, 2);
    EXPECT_EQ(r.fallocate_calls, 5);
    std::vector<long> want(65);
    want[8] = 2;
    want[16] = want[32] = 1;
    want[64] = 3;
    EXPECT_EQ(r.sizes, want);

    r = run_extend(sized(t, ExtendSizing::waiters, 8), {t.path()}, never);
    EXPECT_EQ(r.extensions, 32);
    EXPECT_EQ(r.switches, 0);
    EXPECT_EQ(r.fallocate_calls, 0);

    // sizes drawn from 8 and 9 (zeros, fallocate): some switches, never
    // more than one per extension after the first
    ExtendParams alt = sized(t, ExtendSizing::uniform, 8);
    alt.min_blocks = 8;
    alt.max_blocks = 9;
    r = run_extend(alt, {t.path()}, never);
    EXPECT_EQ(r.fallocate_calls + r.zero_write_calls, r.extensions);
    EXPECT_GT(r.switches, 0);
    EXPECT_LT(r.switches, r.extensions);
}

// The same sizing and seed through syscalls and io_uring: both files read
// back exactly as written (every block stamped with its number).
TEST(ExtendSizing, InterfacesWriteTheSameFile) {
    for (auto i : {ExtendInterface::sync, ExtendInterface::io_uring}) {
        TempDir t;
        ExtendParams p = sized(t, ExtendSizing::waiters, 4);
        p.interface = i;
        p.sessions = 4;
        p.write_data = true;
        p.verify = true;
        const ExtendResult r = run_extend(p, {t.path()}, never);
        SCOPED_TRACE(to_string(i));
        EXPECT_EQ(r.outcome.status(), "ok");
        EXPECT_EQ(r.verified, "ok");
        EXPECT_EQ(r.file_bytes, 2u << 20);
        EXPECT_EQ(t.entries(), 0);
    }
}

// Both interfaces make the same calls: one session's known sequence (8, 8,
// 16, 32, 64, 64, 64 blocks) written 16 pages per write is 1+1+1+2+4+4+4 =
// 17 data writes, page by page 256, through syscalls as through a ring.
TEST(ExtendSizing, InterfacesMakeTheSameWrites) {
    for (auto i :
         {ExtendInterface::sync, ExtendInterface::io_uring, ExtendInterface::io_uring_async})
        for (int batch : {16, 1}) {
            TempDir t;
            ExtendParams p = sized(t, ExtendSizing::waiters_prior, 8);
            p.interface = i;
            p.write_data = true;
            p.write_batch = batch;
            p.verify = true;
            const ExtendResult r = run_extend(p, {t.path()}, never);
            SCOPED_TRACE(std::string(to_string(i)) + " write_batch " + std::to_string(batch));
            EXPECT_EQ(r.verified, "ok");
            EXPECT_EQ(r.extensions, 7);
            EXPECT_EQ(r.zero_write_calls, 2);
            EXPECT_EQ(r.fallocate_calls, 5);
            EXPECT_EQ(r.data_write_calls, batch == 16 ? 17 : 256);
        }
}
