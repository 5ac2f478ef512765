// uringprobe_advise()'s rows as a script, on made-up rows: each kind of
// row where it belongs (SQL, the drop-in, a comment), nothing for a value
// kept, names quoted as SQL needs them (advise_script.hpp).
#include "advise/advise_script.hpp"
#include "contract/error.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace uringprobe;

namespace {

AdviceRow made_up(const std::string& setting, const std::string& scope, const std::string& name,
                  const std::string& action, const std::string& value, const std::string& current) {
    AdviceRow r;
    r.setting = setting;
    r.scope = scope;
    r.scope_name = name;
    r.action = action;
    r.value = value;
    r.current = current;
    r.confidence = "high";
    r.advice = "prose of " + setting;
    return r;
}

std::vector<std::string> of_part(const std::vector<ScriptLine>& lines, const std::string& part) {
    std::vector<std::string> out;
    for (const ScriptLine& l : lines)
        if (l.part == part)
            out.push_back(l.line);
    return out;
}

} // namespace

TEST(AdviseScript, EachRowWhereItBelongs) {
    const std::vector<AdviceRow> rows = {
        made_up("io_method", "server", "", "set", "io_uring", "worker"),
        made_up("ring layout", "build", "", "set", "one region", "separate"),
        made_up("file_extend_method", "tablespace", "xfs", "set", "write_zeros", "posix_fallocate"),
        made_up("file_extend_method", "tablespace", "ext4", "set", "write_zeros",
                "posix_fallocate"),
        made_up("effective_io_concurrency", "tablespace", "slow", "raise", "32", "16"),
        made_up("maintenance_io_concurrency", "tablespace", "Odd \"Name\"", "lower", "8", "64"),
        made_up("ulimit -n", "os", "", "raise", "1982", "1024"),
        made_up("ulimit -l", "os", "", "raise", "7856", "64"),
        made_up("budget", "call", "", "raise", "30 s", "12 s"),
        made_up("effective_io_concurrency", "tablespace", "pg_default", "keep", "16", "16"),
    };
    const std::vector<ScriptLine> s = advice_script(rows, "pg18", 180006);
    EXPECT_EQ(of_part(s, "sql"),
              (std::vector<std::string>{
                  "ALTER SYSTEM SET file_extend_method = 'write_zeros'; -- for tablespaces xfs, "
                  "ext4",
                  "ALTER SYSTEM SET io_method = 'io_uring';",
                  "ALTER TABLESPACE slow SET (effective_io_concurrency = 32);",
                  "ALTER TABLESPACE \"Odd \"\"Name\"\"\" SET (maintenance_io_concurrency = 8);",
                  "SELECT pg_reload_conf();"}));
    EXPECT_EQ(of_part(s, "systemd"),
              (std::vector<std::string>{"[Service]", "LimitNOFILE=1982", "LimitMEMLOCK=7856K"}));
    const std::string text = script_text(s);
    EXPECT_EQ(text.rfind("#!/bin/sh\n", 0), 0u);
    EXPECT_NE(text.find("psql -X -v ON_ERROR_STOP=1 <<'SQL'\nALTER SYSTEM"), std::string::npos)
        << text;
    EXPECT_NE(text.find("# then restart the server for io_method, its limits"), std::string::npos)
        << text;
    EXPECT_NE(text.find("# not a command here: ring layout: prose of ring layout"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("# kept: effective_io_concurrency (pg_default) 16 (high)"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("budget"), std::string::npos) << text;
}

// One file_extend_method serves the server: where its tablespaces differ,
// no statement, a comment saying so; a change that needs a later release,
// a comment too.
TEST(AdviseScript, TheServersSettingFromTablespacesThatDifferIsNoCommand) {
    std::vector<AdviceRow> rows = {
        made_up("file_extend_method", "tablespace", "xfs", "set", "write_zeros", "posix_fallocate"),
        made_up("file_extend_method", "tablespace", "ext4", "keep", "posix_fallocate",
                "posix_fallocate"),
    };
    std::vector<ScriptLine> s = advice_script(rows, "pg18", 180006);
    EXPECT_TRUE(of_part(s, "sql").empty());
    EXPECT_NE(script_text(s).find("# not a command here: file_extend_method: the tablespaces "
                                  "differ"),
              std::string::npos);
    rows.pop_back();
    rows[0].needs_version = 180002;
    s = advice_script(rows, "pg18.1", 180001);
    EXPECT_TRUE(of_part(s, "sql").empty());
    EXPECT_NE(script_text(s).find("on PostgreSQL 18.2 and later: file_extend_method (xfs)"),
              std::string::npos)
        << script_text(s);
    EXPECT_NE(script_text(s).find("# nothing to change"), std::string::npos);
}

// A server before 18: its io_method row is a claim for 18, a comment.
TEST(AdviseScript, AClaimForALaterReleaseIsAComment) {
    AdviceRow r = made_up("io_method", "server", "", "set", "worker", "");
    r.needs_version = 180000;
    const std::vector<ScriptLine> s = advice_script({r}, "pg15", 150020);
    EXPECT_TRUE(of_part(s, "sql").empty());
    EXPECT_NE(script_text(s).find("# not a command here: io_method: prose of io_method"),
              std::string::npos);
}

// A saved row (advise --format tsv) reads back as the row it was.
TEST(AdviseScript, ASavedRowReadsBack) {
    const AdviceRow r = advice_row_from({{"setting", "effective_io_concurrency"},
                                         {"scope", "tablespace"},
                                         {"scope_name", "slow"},
                                         {"action", "raise"},
                                         {"value", "32"},
                                         {"current", "16"},
                                         {"needs_version", ""},
                                         {"confidence", "high"}});
    EXPECT_EQ(r.scope_name, "slow");
    EXPECT_EQ(r.needs_version, 0);
    EXPECT_EQ(of_part(advice_script({r}, "x", 180006), "sql").front(),
              "ALTER TABLESPACE slow SET (effective_io_concurrency = 32);");
    EXPECT_THROW(advice_row_from({{"setting", "io_method"}}), InvalidArgument);
}

// io_uring refused: the sysctl as a sysctl.d file, a seccomp filter as the
// runtime's default profile with io_uring's calls added.
TEST(AdviseScript, IoUringRefusedItsFix) {
    const std::vector<ScriptLine> s =
        advice_script({made_up("kernel.io_uring_disabled", "os", "", "set", "0", "2"),
                       made_up("seccomp", "os", "", "set", "allows io_uring", "refuses io_uring")},
                      "pg18", 180006);
    EXPECT_EQ(of_part(s, "sysctl"), std::vector<std::string>{"kernel.io_uring_disabled = 0"});
    const std::string text = script_text(s);
    EXPECT_NE(text.find("sysctl -p /etc/sysctl.d/60-uringprobe-io_uring.conf\n"), std::string::npos)
        << text;
    EXPECT_NE(text.find("jq '.syscalls += [{\"names\": [\"io_uring_setup\", \"io_uring_enter\", "
                        "\"io_uring_register\"], \"action\": \"SCMP_ACT_ALLOW\"}]' "
                        "\"${SECCOMP_DEFAULT:-/usr/share/containers/seccomp.json}\" "
                        ">/etc/uringprobe/seccomp-io_uring.json\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("# nothing to change"), std::string::npos);
}

// Read sizes and workers as the server's settings (io_max_combine_limit
// waits for a restart); a device's readahead now and as a udev rule.
TEST(AdviseScript, ReadSizesWorkersAndReadahead) {
    const std::vector<ScriptLine> s =
        advice_script({made_up("io_workers", "server", "", "raise", "8", "3"),
                       made_up("io_combine_limit", "server", "", "raise", "256kB", "128kB"),
                       made_up("io_max_combine_limit", "server", "", "raise", "256kB", "128kB"),
                       made_up("read_ahead_kb", "os", "loop3", "raise", "256", "128"),
                       made_up("read_ahead_kb", "os", "vda", "keep", "128", "128")},
                      "pg18", 180006);
    EXPECT_EQ(of_part(s, "sql"),
              (std::vector<std::string>{"ALTER SYSTEM SET io_workers = '8';",
                                        "ALTER SYSTEM SET io_combine_limit = '256kB';",
                                        "ALTER SYSTEM SET io_max_combine_limit = '256kB';",
                                        "SELECT pg_reload_conf();"}));
    EXPECT_EQ(of_part(s, "udev"),
              std::vector<std::string>{"ACTION==\"add|change\", SUBSYSTEM==\"block\", "
                                       "KERNEL==\"loop3\", ATTR{queue/read_ahead_kb}=\"256\""});
    const std::string text = script_text(s);
    EXPECT_NE(text.find("echo 256 >/sys/block/loop3/queue/read_ahead_kb\n"), std::string::npos)
        << text;
    EXPECT_NE(text.find("# then restart the server for io_max_combine_limit"), std::string::npos)
        << text;
    EXPECT_NE(text.find("# kept: read_ahead_kb (vda) 128 (high)"), std::string::npos) << text;
}
