#include "../refuse_io_uring.h"
#include "child_processes.hpp"
#include "contract/error.hpp"
#include "experiments/completions_experiment.hpp"
#include "experiments/environment.hpp"
#include "experiments/monitor.hpp"
#include "uring/io_uring_caps.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace uringprobe;

namespace {

RefusalFacts facts(const char* disabled, int seccomp_mode, bool in_group = false) {
    RefusalFacts f;
    f.io_uring_disabled = disabled;
    f.io_uring_group = "-1";
    f.in_group = in_group;
    f.seccomp_mode = seccomp_mode;
    f.seccomp_filters = seccomp_mode == 2 ? 1 : -1;
    return f;
}

bool says(const std::string& text, const char* what) {
    return text.find(what) != std::string::npos;
}

// Runs `body` in a child process whose io_uring a seccomp filter refuses
// with `err`.
template <typename Body> std::string in_refused_child(int err, Body body) {
    return in_child([&] { return refuse_io_uring(err) == 0 ? body() : "no filter"; });
}

std::string memlock_seen(const IoUringCaps& caps) {
    static const char* const kNames[] = {"charged", "not charged", "exempt", "unknown"};
    return std::to_string(caps.ring_ok) + " " + kNames[int(caps.memlock)] + ": " +
           caps.memlock_detail;
}

} // namespace

// Every ring fails with ENOMEM under RLIMIT_MEMLOCK 0 where ring memory is
// charged to it: raising the soft limit to the hard one tells it is; with
// the hard limit as low, nothing is claimed (it was "not charged" before).
TEST(Refusal, MemlockWhenEveryRingFails) {
    const std::string probe = in_child([] { return memlock_seen(probe_io_uring(64)); });
    if (probe.rfind("1 charged", 0) != 0)
        GTEST_SKIP() << "ring memory is not charged to RLIMIT_MEMLOCK here: " << probe;
    const std::string soft_only = in_child([] {
        rlimit l{};
        getrlimit(RLIMIT_MEMLOCK, &l);
        l.rlim_cur = 0;
        setrlimit(RLIMIT_MEMLOCK, &l);
        return memlock_seen(probe_io_uring(64));
    });
    EXPECT_EQ(soft_only.rfind("0 charged: ", 0), 0u) << soft_only;
    const std::string both = in_child([] {
        rlimit l{0, 0};
        setrlimit(RLIMIT_MEMLOCK, &l);
        return memlock_seen(probe_io_uring(64));
    });
    EXPECT_EQ(both.rfind("0 unknown: ", 0), 0u) << both;
}

// Each cause the facts tell apart is the one named, with what to do.
TEST(Refusal, EachCauseNamed) {
    EXPECT_TRUE(says(refusal_cause(EPERM, facts("2", 0)), "kernel.io_uring_disabled is 2"));
    // the sysctl is named before a filter that may be there too
    EXPECT_TRUE(says(refusal_cause(EPERM, facts("2", 2)), "kernel.io_uring_disabled is 2"));
    EXPECT_TRUE(says(refusal_cause(EPERM, facts("1", 0)), "neither in kernel.io_uring_group"));
    // in the group, the sysctl does not refuse it: the filter does
    EXPECT_TRUE(says(refusal_cause(EPERM, facts("1", 2, true)), "a seccomp filter"));
    EXPECT_TRUE(says(refusal_cause(EPERM, facts("0", 2)), "a seccomp filter"));
    EXPECT_TRUE(says(refusal_cause(EPERM, facts("", 2)), "kernel.io_uring_disabled is absent"));
    EXPECT_TRUE(says(refusal_cause(EPERM, facts("0", 0)), "security module"));
    EXPECT_TRUE(says(refusal_cause(ENOSYS, facts("0", 2)), "this kernel has io_uring"));
    EXPECT_TRUE(says(refusal_cause(ENOSYS, facts("", 2)), "or the kernel has none"));
    EXPECT_TRUE(says(refusal_cause(ENOSYS, facts("", 0)), "does not support io_uring"));
}

// A process under a container's seccomp profile: its ring set-up fails
// with the filter's errno, and the hint names the filter, nothing else.
TEST(Refusal, ASeccompFilterIsSeenAndNamed) {
    for (int err : {EPERM, ENOSYS}) {
        const std::string out = in_refused_child(err, [] {
            const IoUringCaps caps = probe_io_uring(8);
            const RefusalFacts f = refusal_facts();
            return std::to_string(caps.ring_ok) + " " + std::to_string(caps.ring_err) + " " +
                   std::to_string(f.seccomp_mode) + " " +
                   ring_setup_hint(caps.ring_err, "io_uring_setup");
        });
        EXPECT_EQ(out.rfind("0 " + std::to_string(err) + " 2 ", 0), 0u) << out;
        EXPECT_TRUE(says(out, "a seccomp filter")) << out;
    }
}

// An experiment that needs io_uring fails with one error naming the filter.
TEST(Refusal, AnExperimentSaysWhy) {
    const std::string out = in_refused_child(EPERM, [] {
        CompletionsParams p;
        p.completions = 10;
        try {
            run_completions(p, {}, [] { return false; });
        } catch (const SysError& e) {
            return std::to_string(e.err()) + " " + e.what() + " / " + e.hint();
        }
        return std::string("no error");
    });
    EXPECT_EQ(out.rfind(std::to_string(EPERM) + " ", 0), 0u) << out;
    EXPECT_TRUE(says(out, "a seccomp filter")) << out;
}

// A reading without the probe makes no ring: under a filter that refuses
// every io_uring call, nothing is refused (no call was made), the rows that
// need a ring say "not probed" with why, and the layout is the build's.
TEST(Refusal, EnvironmentWithoutTheProbeMakesNoRing) {
    const std::string out = in_refused_child(EPERM, [] {
        EnvironmentRequest req;
        req.process = "backend";
        req.server.version_num = 180000;
        req.server.version = "18";
        req.server.io_method = "worker";
        req.server.settings.built_with_queue_init_mem = true;
        req.probe = false;
        req.no_probe_why = "probe => false";
        std::string text;
        for (const auto& row : probe_environment(req))
            text += row.name + "\t" + row.value + "\t" + row.detail + "\n";
        return text;
    });
    EXPECT_TRUE(says(out, "io_uring.ring_setup\tnot probed\tprobe => false\n")) << out;
    for (const char* row : {"io_uring.features\tnot probed", "io_uring.memlock\tnot probed",
                            "io_uring.ring_bytes.mmap\tnot probed"})
        EXPECT_TRUE(says(out, row)) << row << "\n" << out;
    EXPECT_FALSE(says(out, "EPERM")) << out;
    EXPECT_FALSE(says(out, "io_uring.setup.")) << out;
    EXPECT_TRUE(says(out, "pg18.io_uring.verdict\tnot probed\t")) << out;
    EXPECT_TRUE(says(out, "pg18.io_uring.layout\t")) << out;
}

// The monitoring reading names only what refuses io_uring for certain
// without a ring: the sysctl, seccomp's strict mode; a filter may or may
// not, which only a ring shows.
TEST(Refusal, TheMonitoringReadingNamesOnlyCertainRefusals) {
    EXPECT_EQ(refused_without_a_ring(facts("2", 0)), "kernel.io_uring_disabled = 2");
    EXPECT_EQ(refused_without_a_ring(facts("1", 0)),
              "kernel.io_uring_disabled = 1, outside kernel.io_uring_group");
    EXPECT_EQ(refused_without_a_ring(facts("1", 0, true)), "");
    EXPECT_EQ(refused_without_a_ring(facts("0", 1)), "seccomp strict mode");
    EXPECT_EQ(refused_without_a_ring(facts("0", 2)), "");
    EXPECT_EQ(refused_without_a_ring(facts("", 0)), "");
}
