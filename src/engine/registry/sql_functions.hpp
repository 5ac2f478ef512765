// The extension's SQL functions, one entry each: its name, what it does,
// its parameters (the experiment's parameter table, the CLI's own options
// among them), its columns, and who may call it. The install script is
// made from these entries (`uringprobe-cli sql`), and the CLI's commands
// take their options from them; an experiment's command is its entry's
// `in_process`: a new experiment is one entry here.
#pragma once

#include "contract/param_table.hpp"
#include "contract/table.hpp"

#include <functional>
#include <string>
#include <vector>

namespace uringprobe {

// A call that runs far longer than anyone waits for it, for the tests to
// stop midway (t/009, t/023, t/027): "{scratch}" stands for an allowed
// scratch directory; warm_up, where there is one, is called first (it
// opens what the backend keeps open anyway).
struct LongRun {
    std::string label;
    std::string call;
    std::string warm_up;
};

// How `uringprobe-cli <name>` runs an experiment in its own process: the
// usage text's synopsis and what the command does, and the run (its
// options read by the entry's parameters). Without `run`, the command is
// the CLI's own (environment, advise) or there is none.
struct InProcess {
    std::string synopsis;
    std::string summary;
    Table (*run)(const GivenParams& given, const std::function<bool()>& should_stop) = nullptr;
};

struct SqlFunction {
    std::string name;            // the SQL function is uringprobe_<name>, the CLI's command <name>
    std::string about;           // what it does: the install script's comment on it
    std::vector<Param> params;   // those with in_sql are the SQL function's, in order
    std::vector<Column> columns; // what its rows hold
    std::string row_type;        // rows of this composite type rather than OUT columns ("": none)
    std::string granted_to;      // the one role granted EXECUTE (PUBLIC's is revoked)
    std::string why_granted;     // the install script's comment on that grant
    std::vector<LongRun> long_runs; // an experiment's: at least one
    InProcess in_process;           // an experiment's: its CLI command
    // The extension version that added it. What a version added is its
    // upgrade script; an entry never changes once a version holds it (a
    // changed function is a new one, as contrib versions its C symbols).
    std::string since = "0.1";
};

// Every function, in the install script's order.
const std::vector<SqlFunction>& sql_functions();
// The entry of `name` (std::logic_error for one there is not).
const SqlFunction& sql_function(const std::string& name);

// The extension's versions, oldest first; the last is the control file's
// default_version.
const std::vector<std::string>& extension_versions();
// The scripts the extension ships: the install script of every version
// (uringprobe--<version>.sql) and the upgrade from each to the next
// (uringprobe--<from>--<to>.sql).
std::vector<std::string> extension_scripts();
// One of those by its file name (InvalidArgument for another name).
std::string extension_script(const std::string& file_name);
// The install script of the newest version.
std::string install_script();
// Every entry's long runs, a line each: label, call, warm-up (tab-separated).
std::string long_runs_tsv();

} // namespace uringprobe
