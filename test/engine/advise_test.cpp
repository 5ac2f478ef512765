#include "advise.hpp"
#include "error.hpp"
#include "run_stats.hpp"
#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace uringprobe;

namespace {

AdviseRequest pg18_request() {
    AdviseRequest req;
    req.process = "bare process";
    req.server.version_num = 180000;
    req.server.version = "18";
    req.server.io_method = "io_uring";
    req.file_extend_method = "posix_fallocate";
    req.max_budget_seconds = 60;
    req.budget_cap_name = "the cap";
    return req;
}

std::map<std::string, AdviceRow> by_setting(const AdviseResult& r) {
    std::map<std::string, AdviceRow> m;
    for (const auto& row : r.rows)
        m[row.setting] = row;
    return m;
}

} // namespace

TEST(RunStats, MedianSpreadAndInterval) {
    const RunSummary one = summarize_runs({5});
    EXPECT_EQ(one.runs, 1);
    EXPECT_DOUBLE_EQ(one.median, 5);
    EXPECT_DOUBLE_EQ(one.spread_pct, 0);
    EXPECT_EQ(describe_runs(one, 1, " s"), "5.0 s (1 run)");

    const RunSummary five = summarize_runs({10, 11, 9, 10, 30});
    EXPECT_DOUBLE_EQ(five.median, 10);
    // MAD 1 -> 14.826% of the median: one far run does not widen it.
    EXPECT_NEAR(five.spread_pct, 14.826, 1e-9);
    EXPECT_LE(five.lo, five.median);
    EXPECT_GE(five.hi, five.median);
    EXPECT_GE(five.lo, 9);
    EXPECT_LE(five.hi, 30);
    // The same runs give the same interval.
    const RunSummary again = summarize_runs({10, 11, 9, 10, 30});
    EXPECT_EQ(again.lo, five.lo);
    EXPECT_EQ(again.hi, five.hi);

    const RunSummary negative = summarize_runs({-5, 3, -1});
    EXPECT_EQ(describe_runs(negative, 0, " us", false), "-1 us (-5 to 3 us, 3 runs)");
    EXPECT_THROW(summarize_runs({}), std::invalid_argument);
}

TEST(Advise, RefusesABudgetOutsideItsRangeAndBadConcurrency) {
    AdviseRequest req = pg18_request();
    req.budget_seconds = 0;
    EXPECT_THROW(validate(req), InvalidArgument);
    req.budget_seconds = -1;
    EXPECT_THROW(validate(req), InvalidArgument);
    req.budget_seconds = 61;
    try {
        validate(req);
        ADD_FAILURE() << "a budget above the cap was taken";
    } catch (const InvalidArgument& e) {
        EXPECT_STREQ(e.what(), "budget 61 s exceeds the cap (60 s)");
    }
    req.budget_seconds = 1;
    req.concurrency = 0;
    EXPECT_THROW(validate(req), InvalidArgument);
    req.concurrency = 65;
    EXPECT_THROW(validate(req), InvalidArgument);
}

// No room for a round: every measured row says it was not measured, and
// is low; what is counted from the settings (limits) stays high.
TEST(Advise, ABudgetWithoutRoomMeasuresNothingAndSaysSo) {
    TempDir dir;
    AdviseRequest req = pg18_request();
    req.budget_seconds = 0.001;
    req.targets.push_back({"data directory", dir.path() + "/pgsql_tmp", ""});
    req.targets.push_back({"gone", "/nonexistent/uringprobe/pgsql_tmp", ""});
    const AdviseResult r = advise(req, [] { return false; });
    ASSERT_TRUE(r.outcome.is_ok());
    auto m = by_setting(r);
    ASSERT_EQ(r.rows.size(), 7u);
    EXPECT_EQ(m["file_extend_method (data directory)"].evidence,
              "not measured: the budget had no room for a round");
    EXPECT_EQ(m["file_extend_method (data directory)"].confidence, "low");
    EXPECT_EQ(m["file_extend_method (data directory)"].advice,
              "keep file_extend_method = posix_fallocate");
    EXPECT_EQ(
        m["file_extend_method (gone)"].evidence.rfind("not measured: /nonexistent/uringprobe", 0),
        0u)
        << m["file_extend_method (gone)"].evidence;
    EXPECT_EQ(m["file_extend_method (gone)"].confidence, "low");
    EXPECT_EQ(m["ulimit -n"].confidence, "high");
    EXPECT_EQ(m["budget"].advice.rfind("budget => '", 0), 0u) << m["budget"].advice;
    for (const auto& row : r.rows) {
        if (row.cost.rfind("not measured", 0) == 0) {
            EXPECT_EQ(row.confidence, "low") << row.setting;
        }
    }
    // The temporary-file directory was made, and nothing left in it.
    EXPECT_EQ(dir.entries(), 1);
}

TEST(Advise, StopsWhenAskedAndLeavesNothing) {
    TempDir dir;
    AdviseRequest req = pg18_request();
    req.budget_seconds = 30;
    req.targets.push_back({"data directory", dir.path(), ""});
    int asked = 0;
    const AdviseResult r = advise(req, [&asked] { return ++asked > 3; });
    EXPECT_TRUE(r.outcome.is_stopped());
    EXPECT_TRUE(r.rows.empty());
    EXPECT_EQ(dir.entries(), 0);
}

// Before PostgreSQL 16 there is no extension rule to choose: nothing is
// measured for it, and the row says so.
TEST(Advise, PostgreSQL15HasNoExtensionRuleToChoose) {
    TempDir dir;
    AdviseRequest req = pg18_request();
    req.server.version_num = 150000;
    req.server.version = "15";
    req.server.io_method.clear();
    req.file_extend_method.clear();
    req.budget_seconds = 0.001;
    req.targets.push_back({"pg_default", dir.path(), ""});
    auto m = by_setting(advise(req, [] { return false; }));
    EXPECT_EQ(m["file_extend_method (pg_default)"].evidence,
              "not measured: no extension rule to choose");
    EXPECT_EQ(m["io_method"].advice.rfind("on PostgreSQL 18: io_method = ", 0), 0u)
        << m["io_method"].advice;
}
