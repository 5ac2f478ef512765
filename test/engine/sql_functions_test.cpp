#include "contract/error.hpp"
#include "contract/result.hpp"
#include "registry/sql_functions.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>

using namespace uringprobe;

// A value of another kind than its column's is refused, naming the column:
// the module would otherwise hand PostgreSQL a Datum its OUT column cannot
// hold.
TEST(ResultTable, RefusesAValueOfAnotherKind) {
    Table t{{bigint_column("ops"), text_column("status")}, {}};
    t.add({Value::integer(3), Value::null()});
    EXPECT_EQ(t.rows.size(), 1u);
    try {
        t.add({Value::real(3.5), Value::text("ok")});
        FAIL() << "a real taken by a bigint column";
    } catch (const std::logic_error& e) {
        EXPECT_STREQ(e.what(), "column ops is bigint, given a double precision");
    }
    EXPECT_THROW(t.add({Value::integer(1)}), std::logic_error);
    EXPECT_EQ(t.rows.size(), 1u);
}

TEST(ResultTable, AnExperimentsRowsStartWithTheSharedColumns) {
    const auto columns = experiment_columns({real_column("mb_per_sec")});
    ASSERT_EQ(columns.size(), 15u);
    EXPECT_EQ(columns.front().name, "experiment");
    EXPECT_EQ(columns[3].name, "ops");
    EXPECT_EQ(columns[3].kind, Value::Kind::integer);
    EXPECT_EQ(columns.back().name, "mb_per_sec");
}

// Every entry declares what the install script needs: unique names, each
// column a type SQL has, a role; and the script has each one's function,
// its grant and, once, the composite type its rows are.
TEST(SqlFunctions, TheInstallScriptDeclaresEveryEntry) {
    const std::string script = install_script();
    std::set<std::string> names;
    for (const SqlFunction& f : sql_functions()) {
        EXPECT_TRUE(names.insert(f.name).second) << f.name << " twice";
        EXPECT_FALSE(f.about.empty()) << f.name;
        EXPECT_FALSE(f.granted_to.empty()) << f.name;
        std::set<std::string> columns;
        for (const Column& c : f.columns) {
            EXPECT_TRUE(columns.insert(c.name).second) << f.name << "." << c.name << " twice";
            EXPECT_NO_THROW(sql_type(c.kind)) << f.name << "." << c.name;
        }
        EXPECT_NE(script.find("CREATE FUNCTION uringprobe_" + f.name + "("), std::string::npos)
            << f.name;
        EXPECT_NE(script.find("TO " + f.granted_to + ";"), std::string::npos) << f.name;
    }
    EXPECT_EQ(script.find("CREATE TYPE uringprobe_process"),
              script.rfind("CREATE TYPE uringprobe_process"));
    EXPECT_LT(script.find("\\echo Use \"CREATE EXTENSION uringprobe\""),
              script.find("CREATE FUNCTION"));
    EXPECT_THROW(sql_function("no_such_experiment"), std::logic_error);
}

// Parameters the command line alone has (in_sql false) are left out of the
// SQL declaration, and the others keep their order and defaults.
TEST(SqlFunctions, OnlyTheSqlParametersAreDeclared) {
    const std::string script = install_script();
    const SqlFunction& env = sql_function("environment");
    bool cli_only = false;
    for (const Param& p : env.params) {
        const std::string declared = "\n    " + p.name + " " + p.sql_type() + " DEFAULT ";
        const size_t at = script.find("CREATE FUNCTION uringprobe_environment(");
        const size_t end = script.find("RETURNS", at);
        const bool found = script.substr(at, end - at).find(declared) != std::string::npos;
        EXPECT_EQ(found, p.in_sql) << p.name;
        cli_only = cli_only || !p.in_sql;
    }
    EXPECT_TRUE(cli_only) << "environment has options of the command line only";
    EXPECT_NE(script.find("uringprobe_rings(\n    rings integer DEFAULT 128,\n"),
              std::string::npos);
}

// An experiment's command runs in a process of its own: its synopsis and
// summary name it as the CLI does (t/014 holds every function against the
// CLI's commands).
TEST(SqlFunctions, AnExperimentsCommandIsNamedByItsEntry) {
    int commands = 0;
    for (const SqlFunction& f : sql_functions()) {
        if (!f.in_process.run) {
            EXPECT_TRUE(f.in_process.synopsis.empty()) << f.name << ": a synopsis and no run";
            continue;
        }
        ++commands;
        EXPECT_FALSE(f.long_runs.empty()) << f.name << ": an experiment the tests cannot stop";
        EXPECT_EQ(f.in_process.synopsis.rfind(f.name + " ", 0), 0u) << f.in_process.synopsis;
        EXPECT_EQ(f.in_process.summary.rfind(f.name + ": ", 0), 0u) << f.in_process.summary;
    }
    EXPECT_GE(commands, 5);
}

// Each version's install script declares the entries that version holds,
// and the upgrade to it those it added, so that an upgraded extension has
// the objects a fresh install of the same version has (t/030 compares the
// catalogs on every server).
TEST(SqlFunctions, EachVersionsScriptsHoldWhatItAdded) {
    const auto& versions = extension_versions();
    ASSERT_GE(versions.size(), 2u);
    const std::vector<std::string> scripts = extension_scripts();
    EXPECT_EQ(scripts.size(), 2 * versions.size() - 1);
    EXPECT_EQ(install_script(), extension_script("uringprobe--" + versions.back() + ".sql"));
    for (size_t i = 0; i + 1 < versions.size(); ++i) {
        const std::string& from = versions[i];
        const std::string& to = versions[i + 1];
        const std::string older = extension_script("uringprobe--" + from + ".sql");
        const std::string newer = extension_script("uringprobe--" + to + ".sql");
        const std::string upgrade = extension_script("uringprobe--" + from + "--" + to + ".sql");
        EXPECT_NE(upgrade.find("ALTER EXTENSION uringprobe UPDATE TO '" + to + "'"),
                  std::string::npos);
        for (const SqlFunction& f : sql_functions()) {
            const size_t since =
                std::find(versions.begin(), versions.end(), f.since) - versions.begin();
            ASSERT_LT(since, versions.size()) << f.name << ": since a version there is not";
            const std::string create = "CREATE FUNCTION uringprobe_" + f.name + "(";
            const bool in_older = older.find(create) != std::string::npos;
            EXPECT_TRUE(newer.find(create) != std::string::npos || since > i + 1) << f.name;
            EXPECT_EQ(upgrade.find(create) != std::string::npos, since == i + 1) << f.name;
            EXPECT_EQ(in_older, since <= i) << f.name;
        }
    }
    EXPECT_THROW(extension_script("uringprobe--9.9.sql"), InvalidArgument);
    EXPECT_THROW(extension_script("uringprobe--0.2--0.1.sql"), InvalidArgument);
}
