// The CLI's usage text, made from each command's parameter tables; the
// same tables give `uringprobe-cli params`.
#pragma once

#include "contract/param_table.hpp"

#include <string>
#include <vector>

namespace uringprobe::cli {

// A command's own lines of the usage text: what it does, its options as
// its parameter tables have them, and options beyond the tables.
struct CommandHelp {
    const char* name;
    const char* synopsis;
    std::string summary;
    std::vector<Param> params;
    std::string extra;
};

// The most an advise budget may be from the command line (a server's cap
// is uringprobe.max_advise_seconds).
constexpr int kCliMaxBudgetSeconds = 3600;

std::vector<CommandHelp> command_help();
std::string usage_text();

} // namespace uringprobe::cli
