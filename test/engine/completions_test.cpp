#include "completions_experiment.hpp"
#include "error.hpp"
#include "refused.hpp"
#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <linux/io_uring.h>

using namespace uringprobe;

namespace {

const auto never = [] { return false; };

CompletionsParams params(CompletionOp op, int depth, Reaping reaping, long completions) {
    CompletionsParams p;
    p.op = op;
    p.depth = depth;
    p.reaping = reaping;
    p.completions = completions;
    return p;
}

} // namespace

// Each op and reaping mode completes exactly what it was asked for.
TEST(Completions, ExactCounts) {
    TempDir t;
    for (auto op : {CompletionOp::nop, CompletionOp::read, CompletionOp::recv}) {
        for (auto reaping : {Reaping::each, Reaping::batch}) {
            for (int depth : {1, 8, 64}) {
                CompletionsParams p = params(op, depth, reaping, 1000);
                p.dir = t.path();
                const CompletionsResult r = run_completions(p, {t.path()}, never);
                SCOPED_TRACE(std::to_string(int(op)) + "/" + std::to_string(int(reaping)) + "/" +
                             std::to_string(depth));
                EXPECT_EQ(r.outcome.status(), "ok");
                EXPECT_EQ(r.completions, 1000);
                EXPECT_EQ(r.errors, 0);
                EXPECT_GT(r.enters, 0);
                EXPECT_EQ(t.entries(), 0);
            }
        }
    }
}

// depth 8 submitted 8 at a time: 125 submissions, each an io_uring_enter
// that also waits.
TEST(Completions, EntersByLiburingsRules) {
    CompletionsParams p = params(CompletionOp::nop, 8, Reaping::batch, 1000);
    p.batch = 8;
    const CompletionsResult r = run_completions(p, {}, never);
    EXPECT_EQ(r.enters, 125);
    EXPECT_EQ(r.submitted, 1000);
}

// A flag combination the kernel refuses is a result, not an error.
TEST(Completions, RefusedFlagsAreARow) {
    CompletionsParams p = params(CompletionOp::nop, 8, Reaping::batch, 100);
    p.setup_flags = IORING_SETUP_DEFER_TASKRUN; // needs SINGLE_ISSUER
    const CompletionsResult r = run_completions(p, {}, never);
    EXPECT_EQ(r.outcome.status().rfind("unsupported: ", 0), 0u) << r.outcome.status();
    p.setup_flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN;
    const CompletionsResult ok = run_completions(p, {}, never);
    EXPECT_EQ(ok.outcome.status(), "ok");
    EXPECT_EQ(ok.flags_in_effect, "single_issuer,coop_taskrun");
}

TEST(Completions, SqpollThreadIsMeasuredAndGone) {
    CompletionsParams p = params(CompletionOp::nop, 32, Reaping::batch, 20000);
    p.setup_flags = IORING_SETUP_SQPOLL;
    const CompletionsResult r = run_completions(p, {}, never);
    if (r.outcome.status().rfind("unsupported", 0) == 0)
        GTEST_SKIP() << r.outcome.status();
    EXPECT_EQ(r.outcome.status(), "ok");
    EXPECT_EQ(r.completions, 20000);
    EXPECT_GE(r.sqpoll_cpu_ms, 0);
}

TEST(Completions, StoppedRunsEndCleanly) {
    for (auto op : {CompletionOp::nop, CompletionOp::recv}) {
        std::atomic<int> polls{0};
        const CompletionsResult r = run_completions(params(op, 32, Reaping::each, 100000000), {},
                                                    [&] { return ++polls > 3; });
        EXPECT_EQ(r.outcome.status(), "stopped");
        EXPECT_LT(r.completions, 100000000);
    }
}

TEST(Completions, BadParametersAreRefused) {
    const Caps caps;
    CompletionsParams p;
    EXPECT_NO_THROW(validate(p, caps));
    const auto check = [&](const CompletionsParams& q) { validate(q, caps); };
    EXPECT_TRUE(refused_after(p, check, [](auto& q) { q.depth = 0; }));
    EXPECT_TRUE(refused_after(p, check, [](auto& q) {
        q.depth = 8;
        q.batch = 9;
    }));
    EXPECT_TRUE(refused_after(p, check, [&](auto& q) { q.completions = 100000001; }));
    EXPECT_THROW(parse_completion_op("write"), InvalidArgument);
    EXPECT_THROW(parse_reaping("some"), InvalidArgument);
    EXPECT_THROW(parse_setup_flags("iopoll"), InvalidArgument);
    EXPECT_EQ(setup_flags_string(parse_setup_flags(" sqpoll , coop_taskrun")),
              "sqpoll,coop_taskrun");
    EXPECT_EQ(parse_setup_flags(""), 0u);
    // read needs an allowed directory
    CompletionsParams r = params(CompletionOp::read, 8, Reaping::batch, 100);
    EXPECT_THROW(run_completions(r, {}, never), InvalidArgument);
}
