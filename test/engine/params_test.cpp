#include "contract/params.hpp"
#include "contract/wrap_words.hpp"
#include "refused.hpp"

#include <gtest/gtest.h>

using namespace uringprobe;

namespace {
const NamedValue kColours[] = {{"red", 1}, {"green", 2}};
}

TEST(Params, LookupName) {
    EXPECT_EQ(lookup_name(kColours, "colour", "green"), 2);
    EXPECT_STREQ(name_of(kColours, 1), "red");
    EXPECT_STREQ(name_of(kColours, 7), "?");
    try {
        lookup_name(kColours, "colour", "blue");
        FAIL() << "no exception";
    } catch (const InvalidArgument& e) {
        EXPECT_STREQ(e.what(), "colour must be one of red, green, got 'blue'");
    }
}

TEST(Params, CheckRange) {
    EXPECT_NO_THROW(check_range("depth", 1, 1, 4096));
    EXPECT_NO_THROW(check_range("depth", 4096, 1, 4096));
    try {
        check_range("depth", 0, 1, 4096);
        FAIL() << "no exception";
    } catch (const InvalidArgument& e) {
        EXPECT_STREQ(e.what(), "depth must be between 1 and 4096, got 0");
    }
    EXPECT_THROW(check_range("depth", -9223372036854775807L, 1, 2), InvalidArgument);
}

// One table per experiment: defaults, ranges with their caps, the CLI's
// options, all from the same rows.
#include "contract/param_table.hpp"
#include "experiments/completions_experiment.hpp"
#include "experiments/events_experiment.hpp"
#include "experiments/extend_experiment.hpp"
#include "experiments/rings_experiment.hpp"

TEST(ParamTable, DefaultsAreValid) {
    EXPECT_NO_THROW(validate(RingsParams{}, Caps{}));
    EXPECT_NO_THROW(validate(CompletionsParams{}, Caps{}));
    EXPECT_NO_THROW(validate(EventsParams{}, Caps{}, ""));
    ExtendParams e;
    EXPECT_FALSE(e.dir_given);
    EXPECT_NO_THROW(validate(e, Caps{}));
    // the defaults the table declares are the struct's
    EXPECT_EQ(RingsParams{}.rings, 128);
    EXPECT_TRUE(RingsParams{}.mmap && RingsParams{}.no_mmap);
    EXPECT_EQ(e.strategy, ExtendStrategy::mdzeroextend);
    EXPECT_TRUE(e.shared);
    EXPECT_EQ(CompletionsParams{}.setup_flags, 0u);
}

TEST(ParamTable, RangesNameTheirCap) {
    RingsParams p;
    p.rings = 9;
    try {
        validate(p, Caps{{"uringprobe.max_rings", 8}});
        FAIL() << "no exception";
    } catch (const InvalidArgument& e) {
        EXPECT_STREQ(e.what(), "rings must be between 1 and 8 (uringprobe.max_rings), got 9");
    }
    p.rings = 4097; // without the setting, its default caps
    EXPECT_THROW(validate(p, Caps{}), InvalidArgument);
    ExtendParams e;
    e.block_size = 1000;
    try {
        validate(e, Caps{});
        FAIL() << "no exception";
    } catch (const InvalidArgument& x) {
        EXPECT_STREQ(x.what(),
                     "block_size must be a power of two between 512 and 1048576, got 1000");
    }
}

TEST(ParamTable, SettingByName) {
    EventsParams p;
    ParamValue v;
    v.i = 7;
    set_param(events_params(), p, "pipes", v);
    EXPECT_EQ(p.pipes, 7);
    EXPECT_THROW(set_param(events_params(), p, "pipez", v), InvalidArgument);
}

TEST(ParamTable, OptionsAndUsage) {
    for (const auto& row : extend_params()) {
        if (row.param.name == "shared") {
            EXPECT_EQ(row.param.option(), "--separate-files");
        }
        if (row.param.name == "min_blocks") {
            EXPECT_EQ(row.param.option(), "--min-blocks");
        }
    }
    const std::string usage = usage_lines(params_of(completions_params()));
    EXPECT_NE(usage.find("--reaping each|batch"), std::string::npos) << usage;
    EXPECT_NE(usage.find("(1000000)"), std::string::npos) << usage;
    for (size_t start = 0, end; (end = usage.find('\n', start)) != std::string::npos;
         start = end + 1)
        EXPECT_LE(end - start, 79u) << usage.substr(start, end - start);
}

// The server's settings, advise and environment as tables too: what SQL
// takes and what only the command line does, an interval as seconds, a
// repeatable option, PostgreSQL 18's own ranges.
#include "advise/advise.hpp"
#include "experiments/environment.hpp"

TEST(ParamTable, AdviseAndEnvironmentTables) {
    const auto& budget = advise_params().front().param;
    EXPECT_EQ(budget.name, "budget");
    EXPECT_STREQ(budget.sql_type(), "interval");
    EXPECT_EQ(budget.default_sql, "'20 seconds'");
    EXPECT_EQ(budget.default_value().seconds, 20);
    EXPECT_EQ(AdviseRequest{}.budget_seconds, 20); // the table's default is the struct's
    EXPECT_EQ(AdviseRequest{}.concurrency, 4);
    for (const auto& row : advise_params())
        EXPECT_TRUE(row.param.in_sql) << row.param.name;
    for (const auto& row : advise_cli_params())
        EXPECT_FALSE(row.param.in_sql) << row.param.name;

    AdviseRequest r;
    ParamValue v;
    v.i = 16;
    set_param(advise_cli_params(), r, "server_version", v);
    EXPECT_EQ(r.server.version_num, 160000);
    v.s = "/a";
    set_param(advise_cli_params(), r, "tablespace", v);
    v.s = "/b";
    set_param(advise_cli_params(), r, "tablespace", v);
    ASSERT_EQ(r.targets.size(), 2u); // repeatable: each adds one
    EXPECT_EQ(r.targets[1].dir, "/b");
    v.s = "zeros";
    EXPECT_THROW(set_param(advise_cli_params(), r, "file_extend_method", v), InvalidArgument);
    v.s = "aio";
    EnvironmentRequest e;
    EXPECT_THROW(set_param(environment_params(), e, "io_method", v), InvalidArgument);

    const std::string usage = usage_lines(params_of(advise_cli_params()));
    EXPECT_NE(usage.find("--tablespace DIR"), std::string::npos) << usage;
    EXPECT_NE(usage.find("(repeatable)"), std::string::npos) << usage;
    EXPECT_NE(usage_lines(params_of(advise_params())).find("--budget SECONDS"), std::string::npos);

    const auto env = cli_only_rows(pg18_settings_params(), {"max_connections"});
    EXPECT_TRUE(env.front().param.in_sql);
    EXPECT_FALSE(env.back().param.in_sql);

    Pg18Settings s;
    s.io_max_concurrency = 1025;
    try {
        validate(s);
        FAIL() << "no exception";
    } catch (const InvalidArgument& e) {
        EXPECT_STREQ(e.what(), "io_max_concurrency must be between 1 and 1024, got 1025");
    }
}

// Memory a call would hold, against uringprobe.max_memory_mb to the byte,
// said in the unit that reads right: never rounded down into the cap.
TEST(ParamTable, MemoryIsCheckedToTheByte) {
    const Caps one{{"uringprobe.max_memory_mb", 1}};
    EXPECT_NO_THROW(check_memory("x", 1 << 20, one));
    const auto message = [&](long long bytes) {
        return refusal([&] { check_memory("buffers", bytes, one); });
    };
    EXPECT_EQ(message((1 << 20) + 1), "buffers = 1.1 MiB exceeds uringprobe.max_memory_mb (1 MB)");
    EXPECT_EQ(message(63LL * 1048576 + 524288),
              "buffers = 63.5 MiB exceeds uringprobe.max_memory_mb (1 MB)");
    EXPECT_EQ(message(2LL << 20), "buffers = 2 MiB exceeds uringprobe.max_memory_mb (1 MB)");
    EXPECT_NO_THROW(check_memory("x", 256LL << 20, {})); // the default cap
    EXPECT_THROW(check_memory("x", (256LL << 20) + 1, {}), InvalidArgument);
}

// Usage text and the install script's comments break lines between words:
// at most `width` characters a line, a longer word alone on its own.
TEST(Params, WrapWords) {
    EXPECT_EQ(wrap_words("", 10), std::vector<std::string>{});
    EXPECT_EQ(wrap_words("one two three", 7), (std::vector<std::string>{"one two", "three"}));
    EXPECT_EQ(wrap_words("one two three", 13), (std::vector<std::string>{"one two three"}));
    EXPECT_EQ(wrap_words("a extraordinarily b", 5),
              (std::vector<std::string>{"a", "extraordinarily", "b"}));
}
