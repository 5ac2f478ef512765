#include "commands.hpp"

#include "advise/advise.hpp"
#include "advise/advise_script.hpp"
#include "cli_args.hpp"
#include "cli_output.hpp"
#include "cli_usage.hpp"
#include "experiments/environment.hpp"
#include "io/scratch_file.hpp"
#include "registry/sql_functions.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <functional>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace uringprobe::cli {

namespace {

// Ctrl-C or a TERM during a run: the run stops as a cancelled backend's
// does (its stop rule sees the flag; the signal ends any wait at once),
// cleans up (children, rings, threads, scratch files), its table shows what
// ran ("stopped"), and the command exits 130. A second one ends the
// command at once (the handlers reset themselves).
volatile sig_atomic_t interrupted = 0;

extern "C" void on_interrupt(int) {
    interrupted = 1;
}

// The stop rule of a command's run; installs the handlers (no SA_RESTART:
// a blocked system call returns EINTR and the run asks at once).
std::function<bool()> stop_on_interrupt() {
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    return [] { return interrupted != 0; };
}

int exit_status() {
    return interrupted ? 130 : 0;
}

} // namespace

namespace {

// A request of this process about a server given by its settings on the
// command line: PostgreSQL 18's defaults, io_method=io_uring, built with
// this CLI's liburing.
template <typename Request> Request bare_process_request() {
    Request req;
    req.process = "bare process";
    set_defaults(pg18_settings_params(), req.server.settings);
    set_io_method(req.server, "io_uring");
    return req;
}

} // namespace

static int cmd_environment(int argc, char** argv) {
    EnvironmentRequest req = bare_process_request<EnvironmentRequest>();
    bool predict = false, tsv = false;
    Args args(argc, argv);
    while (args.next()) {
        const std::string opt = args.opt();
        if (take_option(pg18_settings_params(), opt, args, req.server.settings)) {
            predict = true;
        } else if (const Param* p = take_option(environment_params(), opt, args, req)) {
            predict = predict || p->name == "io_method";
        } else {
            args.common(opt, &tsv);
        }
    }
    if (predict) {
        req.server.version_num = 180000;
        req.server.version = "PostgreSQL 18 (settings from the command line)";
    }
    if (!req.probe)
        req.no_probe_why = "--no-probe";
    print_table(environment_table(probe_environment(req)), tsv);
    return 0;
}

namespace {

// The data directory's temporary-file directory when it holds a cluster,
// else the directory itself (created by initdb later).
AdviseTarget data_directory_target(const std::string& data_directory) {
    struct stat st {};
    const bool cluster = ::stat((data_directory + "/base").c_str(), &st) == 0;
    AdviseTarget t{"data directory",
                   data_directory + (cluster ? std::string("/base/") + kPgTempDirName : ""), ""};
    if (!cluster && ::stat(data_directory.c_str(), &st) != 0)
        t.unavailable = data_directory + ": " + std::strerror(errno) +
                        " (create it, or give the directory it will be made in)";
    return t;
}

} // namespace

// advise's request from the command line: the server's settings, its
// version and tablespaces, budget and concurrency; `extra` takes an option
// of a command that has more (true: taken).
static AdviseRequest advise_request(int argc, char** argv, bool* tsv,
                                    const std::function<bool(const std::string&, Args&)>& extra) {
    AdviseRequest req = bare_process_request<AdviseRequest>();
    set_defaults(advise_cli_params(), req);
    req.max_budget_seconds = kCliMaxBudgetSeconds;
    req.budget_cap_name = "the most uringprobe-cli allows";
    bool extend_method_given = false;
    Args args(argc, argv);
    while (args.next()) {
        const std::string opt = args.opt();
        if (take_option(pg18_settings_params(), opt, args, req.server.settings) ||
            take_option(advise_params(), opt, args, req) || (extra && extra(opt, args)))
            continue;
        if (const Param* p = take_option(advise_cli_params(), opt, args, req))
            extend_method_given = extend_method_given || p->name == "file_extend_method";
        else
            args.common(opt, tsv);
    }
    check_ranges(advise_cli_params(), req, {});
    const int major = req.server.version_num / 10000;
    req.server.version = std::to_string(major) + " (settings from the command line)";
    if (major < 18) {
        req.server.io_method.clear();
        if (extend_method_given)
            usage_error("--file-extend-method needs --server-version 18 or later");
        req.file_extend_method.clear();
    }
    // The tablespaces given, then the data directory, as absolute paths.
    std::vector<AdviseTarget> targets;
    if (!req.server.data_directory.empty()) {
        req.server.data_directory = absolute_path(req.server.data_directory);
        targets.push_back(data_directory_target(req.server.data_directory));
    }
    for (const AdviseTarget& given : req.targets) {
        const std::string dir = absolute_path(given.dir);
        AdviseTarget t{dir, dir, ""};
        struct stat st {};
        if (::stat(dir.c_str(), &st) != 0)
            t.unavailable = dir + ": " + std::strerror(errno);
        targets.push_back(t);
    }
    req.targets = targets;
    validate(req);
    return req;
}

static int cmd_advise(int argc, char** argv) {
    bool tsv = false;
    const AdviseRequest req = advise_request(argc, argv, &tsv, nullptr);
    print_table(advise_table(advise(req, stop_on_interrupt())), tsv);
    return exit_status();
}

// The rows of a saved advice table (a header line, then a row per line),
// those of `server` where it names one; a usage error where the table
// holds several servers' and none is named, or no row.
static std::vector<AdviceRow> saved_advice(const std::string& file, const std::string& server) {
    const std::vector<std::map<std::string, std::string>> table = read_tsv_file(file);
    std::vector<AdviceRow> rows;
    for (const auto& columns : table) {
        const auto it = columns.find("server");
        if (!server.empty() && (it == columns.end() || it->second != server))
            continue;
        if (server.empty() && it != columns.end() && it->second != table.front().at("server"))
            usage_error("advise_script: " + file +
                        " holds several servers' rows: which? (--server NAME)");
        rows.push_back(advice_row_from(columns));
    }
    if (rows.empty())
        usage_error("advise_script: no advice row" +
                    (server.empty() ? "" : " of server " + server) + " in " + file);
    return rows;
}

// advise's run as the script to read, then run; or with --from, a saved
// advice table's.
static int cmd_advise_script(int argc, char** argv) {
    bool tsv = false;
    ScriptSource source;
    const AdviseRequest req =
        advise_request(argc, argv, &tsv, [&](const std::string& opt, Args& a) {
            return take_option(script_source_params(), opt, a, source) != nullptr;
        });
    if (!source.server.empty() && source.from.empty())
        usage_error("advise_script: --server picks the rows of a table --from reads");
    const std::vector<AdviceRow> rows = source.from.empty()
                                            ? advise(req, stop_on_interrupt()).rows
                                            : saved_advice(source.from, source.server);
    const std::vector<ScriptLine> lines =
        advice_script(rows,
                      !source.from.empty() ? (source.server.empty() ? source.from : source.server)
                                           : "a server of these settings",
                      req.server.version_num);
    if (tsv)
        print_table(advice_script_table(lines), true);
    else
        std::fputs(script_text(lines).c_str(), stdout);
    return exit_status();
}

namespace {

// The options of `params` on the command line, by name in the order given;
// --format and --help as every command has them.
GivenParams given_options(const std::vector<Param>& params, int argc, char** argv, bool* tsv) {
    GivenParams given;
    Args args(argc, argv);
    while (args.next()) {
        const std::string opt = args.opt();
        const Param* param = nullptr;
        for (const Param& p : params)
            if (p.option() == opt)
                param = &p;
        if (param)
            given.emplace_back(param->name, option_value(*param, opt, args));
        else
            args.common(opt, tsv);
    }
    return given;
}

// An experiment's command: its entry's run, in this process.
int run_in_process(const SqlFunction& f, int argc, char** argv) {
    bool tsv = false;
    const GivenParams given = given_options(f.params, argc, argv, &tsv);
    print_table(f.in_process.run(given, stop_on_interrupt()), tsv);
    return exit_status();
}

} // namespace

// The CLI's own commands, then an experiment's for each entry of the
// registry (src/engine/registry) that runs in a process; their options
// are their SQL functions' parameters.
std::vector<Command> commands() {
    std::vector<Command> out = {
        {"environment", cmd_environment, "environment [options]",
         "environment: can this process use io_uring, what does the kernel accept,\n"
         "  and what would PostgreSQL 18 with io_method=io_uring need here. Any of\n"
         "  a PostgreSQL 18 server's settings or --io-method makes the report predict\n"
         "  for that server (the settings not given take 18's defaults):\n",
         sql_function("environment").params},
        {"advise", cmd_advise, "advise [options]",
         "advise: what to set on a PostgreSQL server before starting it, from small runs\n"
         "  of the experiments in this process against its settings, within a budget\n"
         "  (as uringprobe_advise() does in a backend; --budget at most " +
             std::to_string(kCliMaxBudgetSeconds) + " here):\n",
         sql_function("advise").params},
        {"advise_script", cmd_advise_script, "advise_script [options]",
         "advise_script: advise's advice as a script to read, then run (SQL for psql, a\n"
         "  systemd drop-in for the limits, a sysctl.d file or a seccomp profile where\n"
         "  io_uring is refused, the rest as comments), as uringprobe_advise_script()\n"
         "  gives it; --from renders a saved advice table instead (--format tsv: each\n"
         "  line with its part):\n",
         sql_function("advise_script").params},
    };
    for (const SqlFunction& f : sql_functions())
        if (f.in_process.run)
            out.push_back({f.name,
                           [&f](int argc, char** argv) { return run_in_process(f, argc, argv); },
                           f.in_process.synopsis, f.in_process.summary, f.params});
    return out;
}

int cmd_params(int argc, char** argv) {
    bool tsv = false;
    std::string only;
    Args args(argc, argv);
    while (args.next()) {
        const std::string opt = args.opt();
        if (!opt.empty() && opt[0] != '-' && only.empty())
            only = opt;
        else
            args.common(opt, &tsv);
    }
    Table t{{text_column("command"), text_column("name"), text_column("type"),
             text_column("default"), bigint_column("min"), bigint_column("max"), text_column("cap"),
             text_column("option"), text_column("help"), text_column("sql")},
            {}};
    bool found = false;
    for (const auto& c : commands()) {
        if (!only.empty() && only != c.name)
            continue;
        found = true;
        for (const Param& prm : c.params) {
            const bool number = prm.type == ParamType::integer || prm.type == ParamType::bigint;
            const auto bound = [&](long long v) {
                return number ? Value::integer(v) : Value::null();
            };
            t.add({Value::text(c.name), Value::text(prm.name), Value::text(prm.sql_type()),
                   Value::text(prm.default_sql), bound(prm.min), bound(prm.max),
                   Value::text(prm.cap), Value::text(prm.option()), Value::text(prm.help),
                   Value::text(prm.in_sql ? "yes" : "no")});
        }
    }
    if (!found)
        usage_error("params: unknown command '" + only + "'");
    print_table(t, tsv);
    return 0;
}

int cmd_sql(int argc, char** argv) {
    const std::string opt = argc > 0 ? argv[0] : "";
    if (argc == 0) {
        std::fputs(install_script().c_str(), stdout);
    } else if (argc == 1 && opt == "--long-runs") {
        std::fputs(long_runs_tsv().c_str(), stdout);
    } else if (argc == 1 && opt == "--scripts") {
        for (const std::string& f : extension_scripts())
            std::printf("%s\n", f.c_str());
    } else if (argc == 2 && opt == "--script") {
        std::fputs(extension_script(argv[1]).c_str(), stdout);
    } else {
        usage_error("sql takes --long-runs, --scripts or --script FILE");
    }
    return 0;
}

} // namespace uringprobe::cli
