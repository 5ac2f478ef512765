// The extension's SQL functions, one entry each: its name, what it does,
// its parameters (the experiment's parameter table, the CLI's own options
// among them), its columns, and who may call it. The install script is
// made from these entries (`uringprobe-cli sql`), and the CLI's commands
// take their options from them: a new experiment is one entry here.
#pragma once

#include "contract/param_table.hpp"
#include "contract/table.hpp"

#include <string>
#include <vector>

namespace uringprobe {

struct SqlFunction {
    std::string name;            // the SQL function is uringprobe_<name>, the CLI's command <name>
    std::string about;           // what it does: the install script's comment on it
    std::vector<Param> params;   // those with in_sql are the SQL function's, in order
    std::vector<Column> columns; // what its rows hold
    std::string row_type;        // rows of this composite type rather than OUT columns ("": none)
    std::string granted_to;      // the one role granted EXECUTE (PUBLIC's is revoked)
    std::string why_granted;     // the install script's comment on that grant
};

// Every function, in the install script's order.
const std::vector<SqlFunction>& sql_functions();
// The entry of `name` (std::logic_error for one there is not).
const SqlFunction& sql_function(const std::string& name);

// The extension's install script (uringprobe--<version>.sql).
std::string install_script();

} // namespace uringprobe
