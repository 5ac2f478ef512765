#include "../refuse_io_uring.h"
#include "child_processes.hpp"
#include "contract/error.hpp"
#include "experiments/reads_experiment.hpp"
#include "refused.hpp"
#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>

using namespace uringprobe;

namespace {

const auto never = [] { return false; };

ReadsParams params(ReadMethod method, ReadPattern pattern = ReadPattern::sequential) {
    ReadsParams p;
    p.method = method;
    p.pattern = pattern;
    p.block_kb = 64;
    p.file_mb = 4;
    return p;
}

int threads_now() {
    return dir_entries("/proc/self/task");
}

const ReadMethod kMethods[] = {ReadMethod::sync, ReadMethod::sync_fadvise, ReadMethod::io_uring,
                               ReadMethod::workers};

} // namespace

// Every method reads every byte of the file once, in either order, and a
// cold start finds none of its pages cached (a warm one all of them).
TEST(Reads, EveryMethodReadsTheWholeFileOnce) {
    TempDir t;
    for (ReadMethod m : kMethods)
        for (ReadPattern pattern : {ReadPattern::sequential, ReadPattern::random}) {
            ReadsParams p = params(m, pattern);
            p.dir = t.path();
            const ReadsResult r = run_reads(p, {t.path()}, never);
            SCOPED_TRACE(read_method_name(m));
            ASSERT_TRUE(r.outcome.is_ok()) << r.outcome.status();
            EXPECT_EQ(r.file_bytes, 4000000);
            EXPECT_EQ(r.bytes, r.file_bytes);
            EXPECT_EQ(r.reads, (4000000 + 65535) / 65536);
            EXPECT_EQ(static_cast<long>(r.latency.count()), r.reads);
            EXPECT_EQ(r.resident_before, 0);
            EXPECT_EQ(dir_entries(t.path()), 0); // the scratch file is gone
        }
    ReadsParams p = params(ReadMethod::sync);
    p.cache = CacheState::warm;
    p.dir = t.path();
    const ReadsResult warm = run_reads(p, {t.path()}, never);
    EXPECT_EQ(warm.resident_before, warm.pages);
}

// io_uring keeps in_flight reads in flight, one re-submitted per
// completion; workers keep as many queued; sync keeps one.
TEST(Reads, KeepsWhatItSaysInFlight) {
    TempDir t;
    for (ReadMethod m : kMethods) {
        ReadsParams p = params(m);
        p.block_kb = 4;
        p.in_flight = 8;
        p.dir = t.path();
        const ReadsResult r = run_reads(p, {t.path()}, never);
        SCOPED_TRACE(read_method_name(m));
        ASSERT_TRUE(r.outcome.is_ok()) << r.outcome.status();
        if (m == ReadMethod::io_uring || m == ReadMethod::workers) {
            EXPECT_EQ(r.max_in_flight, 8);
            EXPECT_GE(r.mean_in_flight, 0.9 * 8);
        } else {
            EXPECT_EQ(r.max_in_flight, 1);
            EXPECT_EQ(r.mean_in_flight, 1.0);
        }
        if (m == ReadMethod::io_uring) {
            // one submission per completion but the last 8
            EXPECT_GE(r.enters, r.reads - 8 + 1);
        }
        if (m == ReadMethod::sync_fadvise) {
            EXPECT_EQ(r.fadvise_calls, r.reads);
        }
        if (m == ReadMethod::workers) {
            EXPECT_EQ(r.read_calls, r.reads);
            EXPECT_GE(r.worker_wakeups, 1);
        }
    }
}

// Direct reads read the same bytes past the page cache; the relation-style
// files given are read in place, read-only, and left alone.
TEST(Reads, DirectAndGivenFiles) {
    TempDir t;
    const std::string path = t.path() + "/segment";
    {
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0600);
        ASSERT_GE(fd, 0);
        std::string block(8192, 'x');
        for (int i = 0; i < 100; ++i)
            ASSERT_EQ(::write(fd, block.data(), block.size()), 8192);
        ::close(fd);
    }
    for (ReadMethod m : {ReadMethod::sync, ReadMethod::io_uring, ReadMethod::workers}) {
        ReadsParams p = params(m, ReadPattern::random);
        p.block_kb = 8;
        p.direct = true;
        p.files = {path, path};
        const ReadsResult r = run_reads(p, {}, never);
        SCOPED_TRACE(read_method_name(m));
        ASSERT_TRUE(r.outcome.is_ok()) << r.outcome.status();
        EXPECT_EQ(r.bytes, 2 * 819200);
        EXPECT_EQ(r.reads, 200);
        EXPECT_EQ(r.source, path + "," + path);
    }
    EXPECT_EQ(dir_entries(t.path()), 1);
}

// A filesystem refusing O_DIRECT is a row saying so, not an error.
TEST(Reads, RefusedDirectIsARow) {
    TempDir t;
    const std::string out = in_child([&] {
        if (refuse_o_direct() != 0)
            return std::string("no filter");
        ReadsParams p = params(ReadMethod::io_uring);
        p.direct = true;
        p.dir = t.path();
        const ReadsResult r = run_reads(p, {t.path()}, never);
        return r.outcome.status();
    });
    EXPECT_NE(out.find("unsupported: the filesystem of the scratch file refuses O_DIRECT"),
              std::string::npos)
        << out;
    EXPECT_EQ(dir_entries(t.path()), 0);
}

// A stop ends every method within its loop: no thread, ring or file left.
TEST(Reads, StopLeavesNothing) {
    TempDir t;
    const int threads_before = threads_now();
    for (ReadMethod m : kMethods) {
        ReadsParams p = params(m, ReadPattern::random);
        p.block_kb = 4;
        p.file_mb = 16;
        p.dir = t.path();
        std::atomic<int> asked{0};
        const ReadsResult r = run_reads(p, {t.path()}, [&] { return ++asked > 3; });
        SCOPED_TRACE(read_method_name(m));
        EXPECT_TRUE(r.outcome.is_stopped()) << r.outcome.status();
        EXPECT_LT(r.reads, 4096);
        EXPECT_EQ(threads_now(), threads_before);
        EXPECT_EQ(dir_entries(t.path()), 0);
    }
}

// Reads the page cache serves complete within the submit, so a ring's
// completion queue need never empty: every method still asks its stop
// rule while it reads, whatever the completions do. A run of a million
// passes over a warm file is stopped after 100 ms; where that came
// before the first read (writing and warming the file took longer, as
// on a loaded machine under the sanitizers), again after 4 and 16 times
// as long: the stop must land among the reads.
TEST(Reads, WarmReadsThatCompleteAtOnceStillStop) {
    TempDir t;
    for (ReadMethod m : kMethods) {
        ReadsParams p = params(m);
        p.cache = CacheState::warm;
        p.file_mb = 2;
        p.passes = 1000000;
        p.dir = t.path();
        ReadsResult r;
        double ms = 0;
        for (int after_ms = 100; after_ms <= 1600 && r.reads == 0; after_ms *= 4)
            ms = stop_latency_ms(std::chrono::milliseconds(after_ms),
                                 [&](const auto& stop) { r = run_reads(p, {t.path()}, stop); });
        SCOPED_TRACE(read_method_name(m));
        std::printf("[ stop     ] reads %s, warm: returned %.1f ms after the stop\n",
                    read_method_name(m), ms);
        EXPECT_TRUE(r.outcome.is_stopped()) << r.outcome.status();
        EXPECT_GT(r.reads, 0);
        EXPECT_EQ(dir_entries(t.path()), 0);
    }
}

TEST(Reads, BadParametersAreRefused) {
    const ReadsParams base;
    const auto check = [](const ReadsParams& p) { validate(p, {}); };
    EXPECT_NO_THROW(check(base));
    EXPECT_TRUE(refused_after(base, check, [](ReadsParams& p) { p.block_kb = 12; }));
    EXPECT_TRUE(refused_after(base, check, [](ReadsParams& p) { p.block_kb = 2048; }));
    EXPECT_TRUE(refused_after(base, check, [](ReadsParams& p) { p.in_flight = 0; }));
    EXPECT_TRUE(refused_after(base, check, [](ReadsParams& p) { p.in_flight = 257; }));
    EXPECT_TRUE(refused_after(base, check, [](ReadsParams& p) { p.workers = 33; }));
    EXPECT_TRUE(refused_after(base, check, [](ReadsParams& p) {
        p.method = ReadMethod::sync_fadvise;
        p.direct = true;
    }));
    EXPECT_TRUE(refused_after(base, check, [](ReadsParams& p) {
        p.direct = true;
        p.cache = CacheState::warm;
    }));
    EXPECT_TRUE(refused_after(base, check, [](ReadsParams& p) {
        p.files = {"/etc/hostname"};
        p.dir_given = true;
    }));
    // Buffers beyond uringprobe.max_memory_mb: 128 x 1 MiB against 64 MB.
    ReadsParams big = base;
    big.method = ReadMethod::io_uring;
    big.in_flight = 128;
    big.block_kb = 1024;
    EXPECT_NO_THROW(validate(big, {}));
    EXPECT_THROW(validate(big, {{"uringprobe.max_memory_mb", 64}}), InvalidArgument);
    // The cap raised by the server's setting.
    ReadsParams deep = base;
    deep.in_flight = 1024;
    EXPECT_NO_THROW(validate(deep, {{"uringprobe.max_read_in_flight", 1024}}));
    EXPECT_THROW(parse_read_method("uring"), InvalidArgument);
    EXPECT_THROW(parse_read_pattern("backward"), InvalidArgument);
    EXPECT_THROW(parse_cache_state("hot"), InvalidArgument);
}

// A file that is not a regular file is refused by name.
TEST(Reads, OnlyRegularFiles) {
    ReadsParams p = params(ReadMethod::sync);
    p.files = {"/dev/null"};
    EXPECT_THROW(run_reads(p, {}, never), InvalidArgument);
}

namespace {
// A line of /proc/self/status ("VmHWM:"), in kB.
long status_kb(const char* field) {
    FILE* f = std::fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && std::fgets(line, sizeof line, f))
        if (std::strncmp(line, field, std::strlen(field)) == 0)
            kb = std::atol(line + std::strlen(field));
    if (f)
        std::fclose(f);
    return kb;
}
} // namespace

// However large the files, a call holds its buffers and no list of their
// pieces: a 16 GiB file (sparse) in 4 KiB pieces is 4 Mi pieces, which a
// list would hold in over 100 MB (a 100 GB table: 840 MB). Measured in a
// child process: the growth of its peak resident memory over the call.
TEST(Reads, AHugeFileHoldsNoListOfItsPieces) {
    TempDir t;
    const std::string path = t.path() + "/sparse";
    const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, 16LL << 30), 0);
    ::close(fd);
    for (ReadPattern pattern : {ReadPattern::sequential, ReadPattern::random}) {
        const std::string out = in_child([&] {
            ReadsParams p = params(ReadMethod::sync, pattern);
            p.block_kb = 4;
            p.passes = 0; // the pieces cut and ordered, none read
            p.files = {path};
            const long before = status_kb("VmRSS:");
            FILE* clear = std::fopen("/proc/self/clear_refs", "w");
            if (clear) {
                std::fputs("5", clear); // the peak back to what is resident now
                std::fclose(clear);
            }
            try {
                const ReadsResult r = run_reads(p, {}, never);
                if (!r.outcome.is_ok())
                    return "not ok: " + r.outcome.status();
            } catch (const std::exception& e) {
                return std::string("threw: ") + e.what();
            }
            return std::to_string(status_kb("VmHWM:") - before);
        });
        SCOPED_TRACE(int(pattern));
        char* end = nullptr;
        const long grew_kb = std::strtol(out.c_str(), &end, 10);
        ASSERT_TRUE(end && *end == '\0' && !out.empty()) << out;
        EXPECT_LT(grew_kb, 32 * 1024) << "the call's peak grew by " << grew_kb << " kB";
    }
}
