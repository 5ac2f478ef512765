// uringprobe_advise()'s rows as a script a DBA reads, then runs: the
// server's settings as SQL for psql (ALTER SYSTEM, ALTER TABLESPACE, a
// reload, and which settings wait for a restart), the postmaster's limits
// as a systemd drop-in, io_uring refused by the kernel's setting as a
// sysctl.d file, by a seccomp filter as the runtime's default profile with
// io_uring's calls allowed, a device's read_ahead_kb as a udev rule, and what no command sets (a
// build, a claim for a later release, the values kept) as comments. Nothing is applied by
// uringprobe itself. A pure function of the rows, so that a saved advice
// table (make bench's advise.tsv, the CLI's --format tsv) renders the same.
#pragma once

#include "advise/advise.hpp"
#include "contract/param_table.hpp"

#include <map>
#include <string>
#include <vector>

namespace uringprobe {

// A line of the script, and what it is: "sh" (a shell command or comment),
// "sql" (a statement psql runs, between the shell's heredoc lines),
// "systemd" (a line of the drop-in file), "sysctl" (of a sysctl.d file) or
// "udev" (of a udev rules file).
struct ScriptLine {
    std::string part;
    std::string line;
};

// `server` names the server in the script's heading; `version_num` its
// server_version_num (rows that need a later one become comments).
std::vector<ScriptLine> advice_script(const std::vector<AdviceRow>& rows, const std::string& server,
                                      int version_num);

// The script's lines joined, a newline after each.
std::string script_text(const std::vector<ScriptLine>& lines);

// A row from a saved advice table: its columns by name (advise_columns()
// names; numbers as text, "" for NULL). InvalidArgument naming a column
// the decision needs that is missing.
AdviceRow advice_row_from(const std::map<std::string, std::string>& columns);

// uringprobe-cli advise_script renders a saved advice table instead of
// advising: `from` the file (advise --format tsv, make bench's advise.tsv),
// `server` the rows of which server where it holds several.
struct ScriptSource {
    std::string from;
    std::string server;
};
const ParamTable<ScriptSource>& script_source_params();

// The columns of uringprobe_advise_script()'s rows.
std::vector<Column> advice_script_columns();
Table advice_script_table(const std::vector<ScriptLine>& lines);

} // namespace uringprobe
