#include "cli_usage.hpp"

#include "commands.hpp"

#include "registry/sql_functions.hpp"

namespace uringprobe::cli {

std::vector<Command> commands() {
    return {
        {"environment", cmd_environment, "environment [options]",
         "environment: can this process use io_uring, what does the kernel accept,\n"
         "  and what would PostgreSQL 18 with io_method=io_uring need here. Any of\n"
         "  a PostgreSQL 18 server's settings or --io-method makes the report predict\n"
         "  for that server (the settings not given take 18's defaults):\n",
         sql_function("environment").params, ""},
        {"advise", cmd_advise, "advise [options]",
         "advise: what to set on a PostgreSQL server before starting it, from small runs\n"
         "  of the experiments in this process against its settings, within a budget\n"
         "  (as uringprobe_advise() does in a backend; --budget at most " +
             std::to_string(kCliMaxBudgetSeconds) + " here):\n",
         sql_function("advise").params, ""},
        {"rings", cmd_rings, "rings [options]",
         "rings: N io_uring rings in this process, then fork() -> _exit -> waitpid\n"
         "  timed --forks times, against a zero-ring baseline measured alongside:\n",
         sql_function("rings").params, ""},
        {"extend", cmd_extend, "extend --dir DIR [options]",
         "extend: grow scratch files in DIR the way PostgreSQL extends a relation:\n",
         sql_function("extend").params,
         usage_line("--blocks N", "min_blocks and max_blocks at once")},
        {"reads", cmd_reads, "reads --dir DIR | --file FILE... [options]",
         "reads: the same bytes of a file read one at a time, with advice ahead, kept in\n"
         "  flight on a ring, or queued for worker threads (a scratch file in DIR,\n"
         "  written first, or FILEs opened read-only):\n",
         sql_function("reads").params, ""},
        {"completions", cmd_completions, "completions [options]",
         "completions: keep operations in flight on a ring, each reaped one replaced at once:\n",
         sql_function("completions").params, ""},
        {"events", cmd_events, "events [options]",
         "events: a byte on each pipe (written by this process or a peer), wait until "
         "readable, read it (Samba's local.event):\n",
         sql_function("events").params, ""},
    };
}

std::string usage_text() {
    std::string out;
    const auto all = commands();
    for (size_t i = 0; i < all.size(); ++i)
        out += std::string(i ? "       " : "usage: ") + "uringprobe-cli " + all[i].synopsis + "\n";
    out += "       uringprobe-cli params [command]\n";
    out += "       uringprobe-cli sql\n";
    for (const auto& c : all)
        out += "\n" + c.summary + usage_lines(c.params) + c.extra;
    out += "\nparams: every command's parameters (name, SQL type, default, range, option, help,\n"
           "  whether the SQL function takes it), as the extension's SQL functions declare them\n"
           "\nsql: the extension's install script, made from the same tables\n"
           "\nOutput (every command): --format table|tsv (tsv: reals to 9 significant digits,\n"
           "    and the raw latency_histogram: low_ns:count of every non-empty bucket)\n";
    return out;
}

} // namespace uringprobe::cli
