#include "cli_usage.hpp"

#include "commands.hpp"

#include "advise/advise.hpp"
#include "experiments/completions_experiment.hpp"
#include "experiments/environment.hpp"
#include "experiments/events_experiment.hpp"
#include "experiments/extend_experiment.hpp"
#include "experiments/reads_experiment.hpp"
#include "experiments/rings_experiment.hpp"

namespace uringprobe::cli {

namespace {

// The Params of several tables, in order.
template <typename... Tables> std::vector<Param> params_of_all(const Tables&... tables) {
    std::vector<Param> out;
    for (const auto& params : {params_of(tables)...})
        out.insert(out.end(), params.begin(), params.end());
    return out;
}

} // namespace

std::vector<Command> commands() {
    return {
        {"environment", cmd_environment, "environment [options]",
         "environment: can this process use io_uring, what does the kernel accept,\n"
         "  and what would PostgreSQL 18 with io_method=io_uring need here. Any of\n"
         "  a PostgreSQL 18 server's settings or --io-method makes the report predict\n"
         "  for that server (the settings not given take 18's defaults):\n",
         params_of_all(
             cli_only_rows(pg18_settings_params(), {"max_connections", "io_max_concurrency"}),
             environment_params()),
         ""},
        {"advise", cmd_advise, "advise [options]",
         "advise: what to set on a PostgreSQL server before starting it, from small runs\n"
         "  of the experiments in this process against its settings, within a budget\n"
         "  (as uringprobe_advise() does in a backend; --budget at most " +
             std::to_string(kCliMaxBudgetSeconds) + " here):\n",
         params_of_all(advise_params(), advise_cli_params(), cli_only_rows(pg18_settings_params())),
         ""},
        {"rings", cmd_rings, "rings [options]",
         "rings: N io_uring rings in this process, then fork() -> _exit -> waitpid\n"
         "  timed --forks times, against a zero-ring baseline measured alongside:\n",
         params_of(rings_params()), ""},
        {"extend", cmd_extend, "extend --dir DIR [options]",
         "extend: grow scratch files in DIR the way PostgreSQL extends a relation:\n",
         params_of(extend_params()), usage_line("--blocks N", "min_blocks and max_blocks at once")},
        {"reads", cmd_reads, "reads --dir DIR | --file FILE... [options]",
         "reads: the same bytes of a file read one at a time, with advice ahead, kept in\n"
         "  flight on a ring, or queued for worker threads (a scratch file in DIR,\n"
         "  written first, or FILEs opened read-only):\n",
         params_of(reads_params()), ""},
        {"completions", cmd_completions, "completions [options]",
         "completions: keep operations in flight on a ring, each reaped one replaced at once:\n",
         params_of(completions_params()), ""},
        {"events", cmd_events, "events [options]",
         "events: a byte on each pipe (written by this process or a peer), wait until "
         "readable, read it (Samba's local.event):\n",
         params_of(events_params()), ""},
    };
}

std::string usage_text() {
    std::string out;
    const auto all = commands();
    for (size_t i = 0; i < all.size(); ++i)
        out += std::string(i ? "       " : "usage: ") + "uringprobe-cli " + all[i].synopsis + "\n";
    out += "       uringprobe-cli params [command]\n";
    for (const auto& c : all)
        out += "\n" + c.summary + usage_lines(c.params) + c.extra;
    out += "\nparams: every command's parameters (name, SQL type, default, range, option, help,\n"
           "  whether the SQL function takes it), as the extension's SQL functions declare them\n"
           "\nOutput (every command): --format table|tsv (tsv: reals to 9 significant digits,\n"
           "    and the raw latency_histogram: low_ns:count of every non-empty bucket)\n";
    return out;
}

} // namespace uringprobe::cli
