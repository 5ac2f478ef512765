#include "advise/advise.hpp"
#include "advise/advise_budget.hpp"
#include "advise/advise_measure.hpp"
#include "advise/advise_targets.hpp"
#include "contract/error.hpp"
#include "contract/run_stats.hpp"
#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

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

// By setting, and a tablespace's as "setting (tablespace)".
std::map<std::string, AdviceRow> by_setting(const AdviseResult& r) {
    std::map<std::string, AdviceRow> m;
    for (const auto& row : r.rows)
        m[row.setting + (row.scope_name.empty() ? "" : " (" + row.scope_name + ")")] = row;
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
    // The same runs give the same interval.
    const RunSummary again = summarize_runs({10, 11, 9, 10, 30});
    EXPECT_EQ(again.lo, five.lo);
    EXPECT_EQ(again.hi, five.hi);

    // Two runs: their range.
    const RunSummary two = summarize_runs({4, 6});
    EXPECT_DOUBLE_EQ(two.lo, 4);
    EXPECT_DOUBLE_EQ(two.hi, 6);

    const RunSummary negative = summarize_runs({-5, 3, -1});
    EXPECT_EQ(describe_runs(negative, 0, " us", false), "-1 us (-5 to 3 us, 3 runs)");
    EXPECT_THROW(summarize_runs({}), std::invalid_argument);
}

// The interval is the median's, not the runs' range: of 21 runs 1..21 it
// lies within the middle half of the runs (the median of 21 resampled runs
// has a standard error of about 1.25 x 6.1 / sqrt(21) = 1.7), and four
// times as many runs of the same spread narrow it.
TEST(RunStats, TheIntervalIsTheMediansAndNarrowsWithMoreRuns) {
    std::vector<double> v;
    for (int i = 1; i <= 21; ++i)
        v.push_back(i);
    const RunSummary s = summarize_runs(v);
    EXPECT_DOUBLE_EQ(s.median, 11);
    EXPECT_GE(s.lo, 6);
    EXPECT_LE(s.hi, 16);
    EXPECT_LT(s.lo, 11);
    EXPECT_GT(s.hi, 11);
    std::vector<double> more;
    for (int k = 0; k < 4; ++k)
        more.insert(more.end(), v.begin(), v.end());
    const RunSummary m = summarize_runs(more);
    EXPECT_DOUBLE_EQ(m.median, 11);
    EXPECT_LT(m.hi - m.lo, s.hi - s.lo);
}

// ---- the budget scheduler, on a clock the test moves ----

namespace {

// A measurement whose round takes `seconds` of the test's clock, with a
// spread of `spread` percent.
Measurement timed(const std::string& name, double seconds, double* clock,
                  std::vector<std::string>* log, double spread = 1) {
    Measurement m;
    m.name = name;
    m.first_estimate = seconds;
    m.round = [=](int round) {
        log->push_back(name + std::to_string(round));
        *clock += seconds;
        return true;
    };
    m.spread = [spread] { return spread; };
    return m;
}

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v)
        out += (out.empty() ? "" : " ") + s;
    return out;
}

} // namespace

TEST(AdviseBudget, MeasurementsTakeTurnsUntilEachHasEnoughRounds) {
    double clock = 0;
    std::vector<std::string> log;
    Measurement a = timed("a", 1, &clock, &log), b = timed("b", 0.5, &clock, &log);
    ASSERT_TRUE(run_within_budget(
        {&a, &b}, 100, [&] { return clock; }, nullptr));
    EXPECT_EQ(joined(log), "a0 b0 a1 b1 a2 b2 a3 b3 a4 b4");
    EXPECT_EQ(a.rounds, kEnoughRounds);
    EXPECT_DOUBLE_EQ(a.seconds, 5);
    EXPECT_EQ(a.account(), "a: 5 rounds of 1.00 s");
    EXPECT_FALSE(a.budget_cut);
}

// What io_method leans on gets its first rounds before the others take
// any: in a budget for six rounds, three of it, then the rest in turn.
TEST(AdviseBudget, TheFirstOnesGetTheirFewestRoundsFirst) {
    double clock = 0;
    std::vector<std::string> log;
    Measurement a = timed("a", 1, &clock, &log), reads = timed("r", 1, &clock, &log),
                b = timed("b", 1, &clock, &log);
    reads.first = true;
    ASSERT_TRUE(run_within_budget(
        {&a, &reads, &b}, 6, [&] { return clock; }, nullptr));
    EXPECT_EQ(joined(log), "r0 r1 r2 a0 r3 b0");
    EXPECT_EQ(reads.rounds, 4);
    EXPECT_TRUE(a.budget_cut);
}

TEST(AdviseBudget, ANoisyMeasurementGetsMoreRoundsUpToTheMost) {
    double clock = 0;
    std::vector<std::string> log;
    Measurement noisy = timed("n", 1, &clock, &log, kNoisyPct + 1);
    Measurement steady = timed("s", 1, &clock, &log, kNoisyPct - 1);
    ASSERT_TRUE(run_within_budget(
        {&noisy, &steady}, 100, [&] { return clock; }, nullptr));
    EXPECT_EQ(noisy.rounds, kMostRounds);
    EXPECT_EQ(steady.rounds, kEnoughRounds);
}

TEST(AdviseBudget, NoRoundBegunThatTheBudgetHasNoRoomFor) {
    double clock = 0;
    std::vector<std::string> log;
    Measurement big = timed("big", 3, &clock, &log), small = timed("small", 1, &clock, &log);
    // 10 s: big 0-3, small 3-4, big 4-7, small 7-8; then big would end at
    // 11 (cut), small runs 8-9 and 9-10, and the next would end at 11.
    ASSERT_TRUE(run_within_budget(
        {&big, &small}, 10, [&] { return clock; }, nullptr));
    EXPECT_EQ(joined(log), "big0 small0 big1 small1 small2 small3");
    EXPECT_TRUE(big.budget_cut);
    EXPECT_TRUE(small.budget_cut);
    EXPECT_EQ(big.account(), "big: 2 rounds of 3.00 s (budget spent; a round takes about 3.00 s)");
    EXPECT_LE(clock, 10);
}

TEST(AdviseBudget, AnErrorEndsOnlyItsMeasurement) {
    double clock = 0;
    std::vector<std::string> log;
    Measurement bad = timed("bad", 1, &clock, &log), good = timed("good", 1, &clock, &log);
    bad.round = [](int) -> bool { throw NotMeasurable("too few rings to scale from"); };
    ASSERT_TRUE(run_within_budget(
        {&bad, &good}, 100, [&] { return clock; }, nullptr));
    EXPECT_EQ(bad.rounds, 0);
    EXPECT_EQ(bad.failed, "too few rings to scale from");
    EXPECT_EQ(bad.account(), "bad: no round (stopped by an error: too few rings to scale from)");
    EXPECT_EQ(good.rounds, kEnoughRounds);
}

TEST(AdviseBudget, AStopEndsTheRounds) {
    double clock = 0;
    std::vector<std::string> log;
    Measurement a = timed("a", 1, &clock, &log);
    int asked = 0;
    EXPECT_FALSE(run_within_budget(
        {&a}, 100, [&] { return clock; }, [&] { return ++asked > 2; }));
    EXPECT_EQ(a.rounds, 2);
    // a round cut short by a stop is not counted
    Measurement cut = timed("cut", 1, &clock, &log);
    cut.round = [](int) { return false; };
    EXPECT_FALSE(run_within_budget(
        {&cut}, 100, [&] { return clock; }, nullptr));
    EXPECT_EQ(cut.rounds, 0);
}

// A round that runs past the deadline (its own stop fires then, as the
// measurements' does) is not counted, and the rounds end there with what
// they have: not a stop of the call.
TEST(AdviseBudget, TheDeadlineStopsARoundAndEndsTheRounds) {
    double clock = 0;
    std::vector<std::string> log;
    const double deadline = 3.5;
    Measurement quick = timed("q", 0.5, &clock, &log), slow = timed("s", 1, &clock, &log);
    // estimated at 1 s, it would take 5: stopped at the deadline
    slow.round = [&](int round) {
        log.push_back("s" + std::to_string(round));
        clock = std::min(clock + 5, deadline);
        return clock < deadline;
    };
    ASSERT_TRUE(run_within_budget(
        {&quick, &slow}, 2, [&] { return clock; }, [] { return false; }, deadline));
    EXPECT_EQ(joined(log), "q0 s0");
    EXPECT_EQ(quick.rounds, 1);
    EXPECT_TRUE(quick.budget_cut); // it wanted more
    EXPECT_EQ(slow.rounds, 0);
    EXPECT_TRUE(slow.budget_cut);
    EXPECT_EQ(slow.account(),
              "s: no round (a round stopped unfinished at the deadline after 3.00 s)");
    // what it would take is at least what the stopped round ran
    EXPECT_DOUBLE_EQ(slow.estimate(), 3);
    // before the deadline, a round that stops is the caller's stop
    clock = 0;
    Measurement cut = timed("cut", 1, &clock, &log);
    cut.round = [](int) { return false; };
    EXPECT_FALSE(run_within_budget(
        {&cut}, 2, [&] { return clock; }, nullptr, deadline));
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
    // (read_ahead_kb: one row, for the one filesystem measured)
    ASSERT_EQ(r.rows.size(), 16u);
    EXPECT_EQ(m["io_workers"].not_measured,
              "reads through workers: the budget had no room for a round");
    EXPECT_EQ(m["io_combine_limit"].not_measured,
              "sequential reads: the budget had no room for a round");
    EXPECT_EQ(m["io_max_combine_limit"].action, "keep");
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
    EXPECT_EQ(m["file_extend_method (data directory)"].not_measured,
              "extension runs: the budget had no room for a round");
    for (const auto& row : r.rows) {
        // every row decided or said what it could not measure
        EXPECT_TRUE(!row.decided_by.by.empty() || !row.not_measured.empty()) << row.setting;
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

// A deadline already passed: the first round begun is stopped, and the
// call still answers, every row saying what was not measured, with
// nothing left behind.
TEST(Advise, ADeadlinePassedStopsTheRoundNotTheCall) {
    TempDir dir;
    AdviseRequest req = pg18_request();
    req.budget_seconds = 30;
    req.deadline_seconds = 1e-9;
    req.targets.push_back({"data directory", dir.path() + "/pgsql_tmp", ""});
    const AdviseResult r = advise(req, [] { return false; });
    ASSERT_TRUE(r.outcome.is_ok());
    auto m = by_setting(r);
    const std::string& evidence = m["budget"].evidence;
    EXPECT_NE(evidence.find("(a round still running at 0.00 s is stopped)"), std::string::npos)
        << evidence;
    EXPECT_NE(evidence.find(": no round (a round stopped unfinished at the deadline after "),
              std::string::npos)
        << evidence;
    EXPECT_EQ(m["budget"].action, "raise");
    EXPECT_NE(m["file_extend_method (data directory)"].not_measured, "");
    EXPECT_EQ(m["file_extend_method (data directory)"].confidence, "low");
    EXPECT_EQ(m["io_method"].confidence, "low");
    EXPECT_EQ(dir.entries(), 1); // the temporary-file directory, empty
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
              "PostgreSQL 15 extends one block per write: no extension rule to choose");
    EXPECT_EQ(m["file_extend_method (pg_default)"].action, "none");
    // with no room for a round: 18's default, low, saying what was not measured
    EXPECT_EQ(m["io_method"].advice, "on PostgreSQL 18: io_method = worker");
    EXPECT_EQ(m["io_method"].confidence, "low");
    EXPECT_NE(m["io_method"].not_measured, "");
}

// A tablespace's temporary-file directory made where missing takes its
// parent's group access (a cluster initialised with group access has
// 0750 directories) and owner, as PostgreSQL makes it.
TEST(Advise, TheTemporaryFileDirectoryIsMadeAsPostgreSQLMakesIt) {
    for (mode_t parent_mode : {0700, 0750}) {
        TempDir dir;
        ASSERT_EQ(::chmod(dir.path().c_str(), parent_mode), 0);
        // as root (uringprobe-cli advise --data-directory): the cluster's owner
        if (geteuid() == 0) {
            ASSERT_EQ(::chown(dir.path().c_str(), 65534, 65534), 0);
        }
        std::string why;
        dev_t dev = 0;
        const std::string made =
            resolve_target({"pg_default", dir.path() + "/pgsql_tmp", ""}, &why, &dev);
        ASSERT_FALSE(made.empty()) << why;
        struct stat st {};
        ASSERT_EQ(::stat(made.c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 0777, parent_mode);
        struct stat parent {};
        ASSERT_EQ(::stat(dir.path().c_str(), &parent), 0);
        EXPECT_EQ(st.st_uid, parent.st_uid);
        ASSERT_EQ(::rmdir(made.c_str()), 0);
    }
}

// Advise writes only where a superuser allowed it: a tablespace listed in
// uringprobe.advise_tablespaces in its temporary-file directory, another
// in a scratch directory on its filesystem (never made), else nowhere,
// saying which settings would allow it.
TEST(Advise, MeasuresOnlyWhereASuperuserAllowed) {
    TempDir data, scratch;
    const std::string base = data.path() + "/base";
    ASSERT_EQ(::mkdir(base.c_str(), 0700), 0);
    // /proc is never the filesystem of a temporary directory
    const std::vector<TablespaceDirs> ts = {
        {"pg_default", base},
        {"elsewhere", "/proc"},
        {"gone", data.path() + "/missing"},
    };
    const std::string listed_missing = scratch.path() + "/not-made";

    auto t = advise_targets(ts, "", "");
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t[0].unavailable, "'pg_default' is not in uringprobe.advise_tablespaces (none), "
                                "and no directory of uringprobe.scratch_dirs (none) is on its "
                                "filesystem");
    EXPECT_NE(t[2].unavailable.find("'gone' is not in uringprobe.advise_tablespaces (none), and "
                                    "its directory " +
                                    data.path() + "/missing: No such file or directory"),
              std::string::npos)
        << t[2].unavailable;

    t = advise_targets(ts, " pg_default ,other", "");
    EXPECT_EQ(t[0].unavailable, "");
    EXPECT_EQ(t[0].dir, base + "/pgsql_tmp");
    EXPECT_TRUE(t[0].make_missing);
    EXPECT_NE(t[1].unavailable.find("(pg_default, other)"), std::string::npos);

    t = advise_targets(ts, "*", "");
    for (const auto& target : t) {
        EXPECT_EQ(target.unavailable, "") << target.tablespace;
        EXPECT_EQ(target.dir.substr(target.dir.size() - 10), "/pgsql_tmp");
    }

    // the first scratch directory on the tablespace's filesystem; one
    // missing is skipped, never made, and so is a relative one (the
    // backend's working directory is the data directory)
    t = advise_targets(ts, "", "/proc/nowhere, " + listed_missing + ", tmp, " + scratch.path());
    EXPECT_EQ(t[0].unavailable, "");
    EXPECT_EQ(t[0].dir, scratch.path());
    EXPECT_FALSE(t[0].make_missing);
    EXPECT_NE(t[1].unavailable.find("no directory of uringprobe.scratch_dirs (/proc/nowhere, " +
                                    listed_missing + ", tmp, " + scratch.path() +
                                    ") is on its filesystem"),
              std::string::npos)
        << t[1].unavailable;
    struct stat st {};
    EXPECT_NE(::stat(listed_missing.c_str(), &st), 0);

    // resolved without being made or moved
    std::string why;
    dev_t dev = 0;
    EXPECT_EQ(resolve_target(t[0], &why, &dev), scratch.path()) << why;
    AdviseTarget missing{"pg_default", listed_missing, "", false};
    EXPECT_EQ(resolve_target(missing, &why, &dev), "");
    EXPECT_NE(::stat(listed_missing.c_str(), &st), 0);
    EXPECT_EQ(dir_entries(base), 0); // no pgsql_tmp made either
}
