#include "advise/advise_script.hpp"

#include "contract/error.hpp"

#include <cstdlib>
#include <set>
#include <utility>

namespace uringprobe {

namespace {

// The settings whose new value waits for a restart (PGC_POSTMASTER).
bool needs_restart(const std::string& setting) {
    static const std::set<std::string> postmaster = {"io_method", "io_max_combine_limit",
                                                     "shared_buffers", "max_connections"};
    return postmaster.count(setting) > 0;
}

// An identifier as SQL takes it: bare where it is a plain lower-case name,
// else double-quoted.
std::string sql_identifier(const std::string& name) {
    bool plain = !name.empty() && !(name[0] >= '0' && name[0] <= '9');
    for (char ch : name)
        plain = plain && ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_');
    if (plain)
        return name;
    std::string q = "\"";
    for (char ch : name)
        q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
}

std::string sql_literal(const std::string& value) {
    std::string q = "'";
    for (char ch : value)
        q += ch == '\'' ? std::string("''") : std::string(1, ch);
    return q + "'";
}

// "a row of setting (tablespace)" for comments.
std::string row_name(const AdviceRow& r) {
    return r.setting + (r.scope_name.empty() ? "" : " (" + r.scope_name + ")");
}

bool changes(const AdviceRow& r) {
    return r.action == "set" || r.action == "raise" || r.action == "lower";
}

// What the script is assembled from, row by row.
struct Parts {
    std::vector<std::string> sql;                                // statements
    std::vector<std::string> restart;                            // settings that wait for a restart
    std::vector<std::string> limits;                             // drop-in lines
    std::vector<std::string> sysctl;                             // sysctl.d lines
    std::vector<std::pair<std::string, std::string>> read_ahead; // device, kB
    bool seccomp = false;                                        // a profile that allows io_uring
    std::vector<std::string> by_hand; // comments: what no command here sets
    std::vector<std::string> kept;    // comments: the values kept
};

// file_extend_method is the server's, advised per tablespace: one value
// for the server where every measured tablespace advises the same change.
void extend_method(const std::vector<AdviceRow>& rows, int version_num, Parts& p) {
    std::set<std::string> values;
    std::string from;
    bool any_change = false;
    for (const AdviceRow& r : rows) {
        if (r.setting != "file_extend_method" || r.action == "none")
            continue;
        if (r.needs_version > version_num) {
            p.by_hand.push_back("on PostgreSQL " + std::to_string(r.needs_version / 10000) + "." +
                                std::to_string(r.needs_version % 10000) +
                                " and later: " + row_name(r) + ": " + r.advice);
            continue;
        }
        values.insert(r.value);
        any_change = any_change || changes(r);
        from += (from.empty() ? "" : ", ") + r.scope_name;
    }
    if (!any_change)
        return;
    if (values.size() == 1)
        p.sql.push_back("ALTER SYSTEM SET file_extend_method = " + sql_literal(*values.begin()) +
                        "; -- for tablespaces " + from);
    else
        p.by_hand.push_back("file_extend_method: the tablespaces differ (see their rows); one "
                            "value serves the server: set it per database or role where COPY "
                            "writes (ALTER DATABASE ... SET file_extend_method = ...)");
}

void add_row(const AdviceRow& r, int version_num, Parts& p) {
    if (r.scope == "call")
        return;
    if (r.action == "keep") {
        p.kept.push_back(row_name(r) + " " + r.value + " (" + r.confidence + ")");
        return;
    }
    if (r.setting == "file_extend_method") // (the server's: extend_method())
        return;
    if (!changes(r)) {
        if (r.action == "none" && !r.advice.empty())
            p.by_hand.push_back(row_name(r) + ": " + r.advice);
        return;
    }
    if (r.needs_version > version_num) {
        p.by_hand.push_back(row_name(r) + ": " + r.advice);
        return;
    }
    if (r.scope == "server") {
        p.sql.push_back("ALTER SYSTEM SET " + r.setting + " = " + sql_literal(r.value) + ";");
        if (needs_restart(r.setting))
            p.restart.push_back(r.setting);
    } else if (r.scope == "tablespace") {
        p.sql.push_back("ALTER TABLESPACE " + sql_identifier(r.scope_name) + " SET (" + r.setting +
                        " = " + r.value + ");");
    } else if (r.scope == "os" && r.setting == "ulimit -n") {
        p.limits.push_back("LimitNOFILE=" + r.value);
        p.restart.push_back("its limits");
    } else if (r.scope == "os" && r.setting == "ulimit -l") {
        p.limits.push_back("LimitMEMLOCK=" + r.value + "K");
        p.restart.push_back("its limits");
    } else if (r.scope == "os" && r.setting.rfind("kernel.", 0) == 0) {
        p.sysctl.push_back(r.setting + " = " + r.value);
        p.restart.push_back(r.setting);
    } else if (r.scope == "os" && r.setting == "read_ahead_kb" && !r.scope_name.empty()) {
        p.read_ahead.emplace_back(r.scope_name, r.value);
    } else if (r.scope == "os" && r.setting == "seccomp") {
        p.seccomp = true;
        p.restart.push_back("its seccomp profile");
    } else {
        p.by_hand.push_back(row_name(r) + ": " + r.advice);
    }
}

void line(std::vector<ScriptLine>& out, const char* part, std::string text) {
    out.push_back({part, std::move(text)});
}

// The OS's part: the systemd drop-in, the sysctl.d file, the devices'
// readahead and its udev rule, the seccomp profile.
void os_files(const Parts& p, std::vector<ScriptLine>& out) {
    if (!p.limits.empty()) {
        const std::string dir = "/etc/systemd/system/postgresql@.service.d";
        line(out, "sh",
             "# the postmaster's limits: a drop-in for Debian's postgresql@.service "
             "(another unit: the same lines in a drop-in of its own)");
        line(out, "sh", "mkdir -p " + dir);
        line(out, "sh", "cat >" + dir + "/uringprobe-limits.conf <<'EOF'");
        line(out, "systemd", "[Service]");
        for (const std::string& l : p.limits)
            line(out, "systemd", l);
        line(out, "sh", "EOF");
        line(out, "sh", "systemctl daemon-reload");
    }
    if (!p.sysctl.empty()) {
        const std::string file = "/etc/sysctl.d/60-uringprobe-io_uring.conf";
        line(out, "sh", "# io_uring for the server: a host's setting (in a container, the host's)");
        line(out, "sh", "cat >" + file + " <<'EOF'");
        for (const std::string& l : p.sysctl)
            line(out, "sysctl", l);
        line(out, "sh", "EOF");
        line(out, "sh", "sysctl -p " + file);
    }
    if (!p.read_ahead.empty()) {
        const std::string file = "/etc/udev/rules.d/60-uringprobe-read-ahead.rules";
        line(out, "sh",
             "# the devices' readahead: now, and at every boot by a udev rule (a device "
             "named otherwise after a reboot: match it by ENV{ID_SERIAL} instead)");
        for (const auto& [dev, kb] : p.read_ahead)
            line(out, "sh", "echo " + kb + " >/sys/block/" + dev + "/queue/read_ahead_kb");
        line(out, "sh", "cat >" + file + " <<'EOF'");
        for (const auto& [dev, kb] : p.read_ahead)
            line(out, "udev",
                 "ACTION==\"add|change\", SUBSYSTEM==\"block\", KERNEL==\"" + dev +
                     "\", ATTR{queue/read_ahead_kb}=\"" + kb + "\"");
        line(out, "sh", "EOF");
    }
    if (p.seccomp) {
        const std::string file = "/etc/uringprobe/seccomp-io_uring.json";
        line(out, "sh",
             "# io_uring for the server's container: its runtime's default seccomp "
             "profile with io_uring's calls allowed (SECCOMP_DEFAULT: that profile; "
             "Podman's is /usr/share/containers/seccomp.json, Docker's its "
             "default.json)");
        line(out, "sh", "mkdir -p /etc/uringprobe");
        line(out, "sh",
             "jq '.syscalls += [{\"names\": [\"io_uring_setup\", "
             "\"io_uring_enter\", \"io_uring_register\"], \"action\": "
             "\"SCMP_ACT_ALLOW\"}]' \"${SECCOMP_DEFAULT:-/usr/share/containers/"
             "seccomp.json}\" >" +
                 file);
        line(out, "sh",
             "# then run the server's container with it: docker run --security-opt "
             "seccomp=" +
                 file + "; Kubernetes: a Localhost seccompProfile");
    }
}

} // namespace

std::vector<ScriptLine> advice_script(const std::vector<AdviceRow>& rows, const std::string& server,
                                      int version_num) {
    Parts p;
    extend_method(rows, version_num, p);
    for (const AdviceRow& r : rows)
        add_row(r, version_num, p);
    std::vector<ScriptLine> out;
    line(out, "sh", "#!/bin/sh");
    line(out, "sh",
         "# What uringprobe_advise() advises to change on " + server +
             ", as commands: read them first; uringprobe applies nothing itself.");
    line(out, "sh", "set -e");
    if (!p.sql.empty()) {
        line(out, "sh",
             "# the server's settings, as a superuser (psql connects as PGHOST, "
             "PGPORT, PGUSER say)");
        line(out, "sh", "psql -X -v ON_ERROR_STOP=1 <<'SQL'");
        for (const std::string& s : p.sql)
            line(out, "sql", s);
        line(out, "sql", "SELECT pg_reload_conf();");
        line(out, "sh", "SQL");
    }
    os_files(p, out);
    if (!p.restart.empty()) {
        std::string what;
        std::set<std::string> seen;
        for (const std::string& s : p.restart)
            if (seen.insert(s).second)
                what += (what.empty() ? "" : ", ") + s;
        line(out, "sh",
             "# then restart the server for " + what +
                 " (e.g. systemctl restart postgresql@18-main)");
    }
    for (const std::string& c : p.by_hand)
        line(out, "sh", "# not a command here: " + c);
    if (p.sql.empty() && p.limits.empty() && p.sysctl.empty() && !p.seccomp && p.read_ahead.empty())
        line(out, "sh", "# nothing to change");
    for (const std::string& c : p.kept)
        line(out, "sh", "# kept: " + c);
    return out;
}

std::string script_text(const std::vector<ScriptLine>& lines) {
    std::string s;
    for (const ScriptLine& l : lines)
        s += l.line + "\n";
    return s;
}

AdviceRow advice_row_from(const std::map<std::string, std::string>& columns) {
    auto get = [&](const char* name, bool needed) -> std::string {
        const auto it = columns.find(name);
        if (it == columns.end()) {
            if (needed)
                throw InvalidArgument(std::string("an advice row needs the column ") + name);
            return "";
        }
        return it->second;
    };
    AdviceRow r;
    r.topic = get("topic", false);
    r.setting = get("setting", true);
    r.scope = get("scope", true);
    r.scope_name = get("scope_name", true);
    r.action = get("action", true);
    r.value = get("value", true);
    r.current = get("current", true);
    r.needs_version = std::atoi(get("needs_version", true).c_str());
    r.confidence = get("confidence", false);
    r.decided_by.by = get("decided_by", false);
    r.not_measured = get("not_measured", false);
    r.advice = get("advice", false);
    r.evidence = get("evidence", false);
    r.cost = get("cost", false);
    return r;
}

const ParamTable<ScriptSource>& script_source_params() {
    using S = ScriptSource;
    static const ParamTable<S> table = {
        {text_param("from", "''", "",
                    "render this saved advice table (advise --format tsv, make bench's "
                    "advise.tsv) instead of advising")
             .cli_only(),
         [](S& s, const ParamValue& v) { s.from = v.s; }, nullptr},
        {text_param("server", "''", "", "with --from: the rows of this server (its column)")
             .cli_only(),
         [](S& s, const ParamValue& v) { s.server = v.s; }, nullptr},
    };
    return table;
}

std::vector<Column> advice_script_columns() {
    return {text_column("part"), text_column("line")};
}

Table advice_script_table(const std::vector<ScriptLine>& lines) {
    Table t{advice_script_columns(), {}};
    for (const ScriptLine& l : lines)
        t.add({Value::text(l.part), Value::text(l.line)});
    return t;
}

} // namespace uringprobe
