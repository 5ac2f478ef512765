#include "cli_usage.hpp"

namespace uringprobe::cli {

std::string usage_text() {
    std::string out;
    const auto all = commands();
    for (size_t i = 0; i < all.size(); ++i)
        out += std::string(i ? "       " : "usage: ") + "uringprobe-cli " + all[i].synopsis + "\n";
    out += "       uringprobe-cli params [command]\n";
    out += "       uringprobe-cli sql [--long-runs | --scripts | --script FILE]\n";
    for (const auto& c : all)
        out += "\n" + c.summary + usage_lines(c.params);
    out += "\nparams: every command's parameters (name, SQL type, default, range, option, help,\n"
           "  whether the SQL function takes it), as the extension's SQL functions declare them\n"
           "\nsql: the extension's install script, made from the same tables (--long-runs: the\n"
           "  calls the tests stop midway, a line each: label, call, warm-up; --scripts: the\n"
           "  files it ships, every version's install script and each upgrade; --script\n"
           "  FILE: one of them)\n"
           "\nOutput (every command): --format table|tsv (tsv: reals to 9 significant digits,\n"
           "    and the raw latency_histogram: low_ns:count of every non-empty bucket)\n";
    return out;
}

} // namespace uringprobe::cli
