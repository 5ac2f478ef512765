// The CLI's one table of commands (defined beside them, in commands.cpp):
// each command's name, how it is run, and its lines of the usage text made
// from its parameter tables (the same tables give `uringprobe-cli
// params`). main() dispatches from it.
#pragma once

#include "contract/param_table.hpp"

#include <string>
#include <vector>

namespace uringprobe::cli {

// A command: its entry point (its arguments after the command's name;
// returns the exit status), and its own lines of the usage text: what it
// does, its options as its parameter tables have them, and options beyond
// the tables.
struct Command {
    const char* name;
    int (*run)(int argc, char** argv);
    const char* synopsis;
    std::string summary;
    std::vector<Param> params;
    std::string extra;
};

// The most an advise budget may be from the command line (a server's cap
// is uringprobe.max_advise_seconds).
constexpr int kCliMaxBudgetSeconds = 3600;

std::vector<Command> commands();
std::string usage_text();

} // namespace uringprobe::cli
