#include "contract/caps.hpp"
#include "contract/error.hpp"
#include "experiments/rings_experiment.hpp"
#include "os/process_snapshot.hpp"
#include "refused.hpp"
#include "uring/io_uring_caps.hpp"
#include "uring/pg_ring_plan.hpp"
#include "uring/ring.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <map>

using namespace uringprobe;

namespace {
const auto never = [] { return false; };
}

// A baseline and both layouts: rows with their rings, every fork timed,
// and the mappings that separate rings bring (none for one region).
TEST(Rings, BothLayoutsAndTheBaseline) {
    RingsParams p;
    p.rings = 4;
    p.depth = 8;
    p.forks = 6;
    const RingsResult r = run_rings(p, never);
    EXPECT_FALSE(r.outcome.is_stopped());
    std::map<std::string, const RingsVariant*> v;
    for (const auto& x : r.variants)
        v[x.variant] = &x;
    ASSERT_TRUE(v.count("baseline") && v.count("mmap") && v.count("no_mmap"));
    EXPECT_EQ(v["baseline"]->rings, 0);
    for (const char* name : {"baseline", "mmap", "no_mmap"}) {
        const RingsVariant& x = *v[name];
        SCOPED_TRACE(name);
        if (x.outcome.status().rfind("unsupported", 0) == 0)
            continue; // no IORING_SETUP_NO_MMAP in this kernel
        EXPECT_EQ(x.outcome.status(), "ok");
        EXPECT_EQ(x.forks, 6);
        EXPECT_EQ(x.fork_latency.count(), 6u);
        EXPECT_EQ(x.fork_call.count(), 6u);
    }
    EXPECT_EQ(v["mmap"]->rings, 4);
    // each ring maps its SQ/CQ rings and SQEs
    EXPECT_GE(v["mmap"]->maps_after - v["baseline"]->maps_after, 4);
    const Table t = rings_table(r);
    EXPECT_EQ(t.rows.size(), r.variants.size());
    EXPECT_EQ(t.columns.back().name, "latency_histogram");
}

// Under a memlock limit that holds one layout's rings but not two, the
// layouts still take turns block by block: each block waits for the memory
// of the block before it, which the kernel gives back asynchronously,
// instead of failing with ENOMEM.
TEST(Rings, LayoutsTakeTurnsUnderALimitForOneOfThem) {
    if (ring_memory_charge() != MemlockCharge::charged)
        GTEST_SKIP() << "ring memory is not charged to RLIMIT_MEMLOCK here";
    const int rings = 256;
    const IoUringCaps caps = probe_io_uring(16);
    const size_t per_ring = std::max(caps.mmap_ring_bytes, caps.region_ring_bytes);
    ASSERT_GT(per_ring, 0u);
    rlimit old{};
    ASSERT_EQ(getrlimit(RLIMIT_MEMLOCK, &old), 0);
    rlimit lower = old;
    lower.rlim_cur = rings * per_ring * 3 / 2;
    if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < lower.rlim_cur)
        GTEST_SKIP() << "RLIMIT_MEMLOCK " << old.rlim_cur << " holds fewer than " << rings
                     << " rings and a half";
    ASSERT_EQ(setrlimit(RLIMIT_MEMLOCK, &lower), 0);
    RingsParams p;
    p.rings = rings;
    p.depth = 16;
    p.forks = 75; // three blocks of each variant
    RingsResult r;
    std::string error;
    try {
        r = run_rings(p, never);
    } catch (const SysError& e) {
        error = e.what();
    }
    setrlimit(RLIMIT_MEMLOCK, &old);
    ASSERT_EQ(error, "");
    for (const auto& v : r.variants) {
        SCOPED_TRACE(v.variant);
        if (v.outcome.status().rfind("unsupported", 0) == 0)
            continue; // no IORING_SETUP_NO_MMAP in this kernel
        EXPECT_EQ(v.outcome.status(), "ok");
        EXPECT_EQ(v.forks, 75);
    }
}

// A run stopped while its rings and children exist ends with none of them
// left: no child to reap, no ring fd, ring mapping or other fd more than
// before. (All mappings are no measure: the allocator, and the sanitizers'
// own, map memory as they please.)
TEST(Rings, StoppedRunsEndCleanly) {
    RingsParams p;
    p.rings = 8;
    p.forks = 100000;
    const ProcessSnapshot before = snapshot_process(getpid());
    // stop as soon as the rings exist (the baseline's block, with none,
    // comes first), or after many polls without them
    int polls = 0;
    long rings_when_stopped = -1;
    const RingsResult r = run_rings(p, [&] {
        const long rings = snapshot_process(getpid()).io_uring_fds;
        if (rings > before.io_uring_fds || ++polls > 100000) {
            rings_when_stopped = rings;
            return true;
        }
        return false;
    });
    EXPECT_TRUE(r.outcome.is_stopped());
    EXPECT_GT(rings_when_stopped, before.io_uring_fds)
        << "the stop did not come while rings existed";
    const ProcessSnapshot after = snapshot_process(getpid());
    EXPECT_EQ(after.io_uring_fds, before.io_uring_fds);
    EXPECT_EQ(after.io_uring_mappings, before.io_uring_mappings);
    EXPECT_EQ(after.open_fds, before.open_fds);
    errno = 0;
    EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1) << "a child is left";
    EXPECT_EQ(errno, ECHILD);
}

TEST(Rings, BadParametersAreRefused) {
    const Caps caps{{"uringprobe.max_forks", 1000}};
    RingsParams p;
    EXPECT_NO_THROW(validate(p, caps));
    const auto check = [&](const RingsParams& q) { validate(q, caps); };
    EXPECT_TRUE(refused_after(p, check, [](auto& q) { q.rings = 0; }));
    EXPECT_TRUE(refused_after(p, check, [&](auto& q) { q.forks = 1001; }));
    RingsParams q = p;
    EXPECT_THROW(set_ring_modes(q, "mmapp"), InvalidArgument);
    set_ring_modes(q, "no_mmap");
    EXPECT_FALSE(q.mmap);
    EXPECT_TRUE(q.no_mmap);
}

// The ring memory estimated where no ring can be made is what a ring of
// the same entries really maps here (io_max_concurrency's range).
TEST(Rings, EstimatedRingBytesAreARealRings) {
    for (unsigned entries : {1u, 16u, 64u, 100u, 256u, 1000u, 1024u}) {
        const Ring ring(entries);
        EXPECT_EQ(estimated_ring_bytes(entries), ring.mapped_bytes()) << entries << " entries";
    }
}

// Ring memory is capped in bytes, not only in rings: the refusal names
// the setting and the bytes.
TEST(Rings, RingMemoryIsCapped) {
    RingsParams p;
    p.rings = 128; // 128 x 8 KiB at depth 64: 1 MiB
    EXPECT_NO_THROW(validate(p, {{kMaxMemoryMb.name, 1}}));
    p.rings = 256;
    try {
        validate(p, {{kMaxMemoryMb.name, 1}});
        ADD_FAILURE() << "not refused";
    } catch (const InvalidArgument& e) {
        EXPECT_STREQ(e.what(), "rings x ring memory = 256 x 8 KiB = 2 MiB exceeds "
                               "uringprobe.max_memory_mb (1 MB)");
    }
    // the default cap: 4096 rings at the deepest depth are refused
    p.rings = 4096;
    p.depth = 32768;
    EXPECT_THROW(validate(p, {}), InvalidArgument);
}
