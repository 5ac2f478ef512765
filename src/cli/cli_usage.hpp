// The CLI's one table of commands (commands.cpp: its own, then an
// experiment's for each registry entry that runs in a process): each
// command's name, how it is run, and its lines of the usage text made
// from its parameter tables (the same tables give `uringprobe-cli
// params`). main() dispatches from it.
#pragma once

#include "contract/param_table.hpp"

#include <functional>
#include <string>
#include <vector>

namespace uringprobe::cli {

// A command: its entry point (its arguments after the command's name;
// returns the exit status), and its own lines of the usage text: what it
// does and its options as its parameter tables have them.
struct Command {
    std::string name;
    std::function<int(int argc, char** argv)> run;
    std::string synopsis;
    std::string summary;
    std::vector<Param> params;
};

// The most an advise budget may be from the command line (a server's cap
// is uringprobe.max_advise_seconds).
constexpr int kCliMaxBudgetSeconds = 3600;

std::vector<Command> commands();
std::string usage_text();

} // namespace uringprobe::cli
