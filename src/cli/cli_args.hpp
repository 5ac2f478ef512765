// The command line: walking a command's options, reading numbers, and
// setting options into a Params by its parameter table.
#pragma once

#include "contract/param_table.hpp"

#include <string>

namespace uringprobe::cli {

// "uringprobe-cli: MSG", the usage text, exit 2.
[[noreturn]] void usage_error(const std::string& msg);

// Walks a command's options; value() takes the option's argument.
class Args {
public:
    Args(int argc, char** argv) : argc_(argc), argv_(argv) {}
    bool next() { return ++i_ < argc_; }
    const std::string& opt() {
        opt_ = argv_[i_];
        return opt_;
    }
    const char* value();
    // The options every command has: --format (into *tsv) and --help
    // (prints the usage and exits); anything else is a usage error.
    void common(const std::string& opt, bool* tsv);

private:
    int argc_;
    char** argv_;
    int i_ = -1;
    std::string opt_;
};

// Ranges are checked by the engine, in one place for the CLI and SQL; here
// only that the text is a number of the parameter's SQL type, written as
// every number on the command line is: decimal digits with an optional
// sign (no 0x10, 1e3, spaces, inf).
long long parse_number(const std::string& opt, const char* text, bool bigint);
int parse_int(const std::string& opt, const char* text);
// A number of seconds: the same, with a decimal fraction allowed (2.5).
double parse_seconds(const std::string& opt, const char* text);

// The value of option `opt` of `param`, read from the command line.
ParamValue option_value(const Param& param, const std::string& opt, Args& args);

// Option `opt` set into p by `table`'s row for it: that row's Param, or
// nullptr where the table has no such option. An old name is refused
// with its name now.
template <typename P>
const Param* take_option(const ParamTable<P>& table, const std::string& opt, Args& args, P& p) {
    for (const auto& row : table)
        if (row.param.option() == opt) {
            row.set(p, option_value(row.param, opt, args));
            return &row.param;
        }
    return nullptr;
}

} // namespace uringprobe::cli
