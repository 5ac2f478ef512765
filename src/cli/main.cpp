// uringprobe-cli: the extension's experiments from a shell, in a bare
// process, so that a backend's results can be set against a baseline.
#include "../engine/advise/advise.hpp"
#include "../engine/contract/error.hpp"
#include "../engine/experiments/completions_experiment.hpp"
#include "../engine/experiments/environment.hpp"
#include "../engine/experiments/events_experiment.hpp"
#include "../engine/experiments/extend_experiment.hpp"
#include "../engine/experiments/rings_experiment.hpp"
#include "../engine/uring/ring.hpp"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace up = uringprobe;

namespace {

// A command's own lines of the usage text: what it does, its options as
// its parameter table has them, and options beyond the table.
struct CommandHelp {
    const char* name;
    const char* synopsis;
    const char* summary;
    std::vector<up::Param> params;
    std::string extra;
};

std::vector<CommandHelp> command_help() {
    return {
        {"environment",
         "environment [options]",
         "environment: can this process use io_uring, what does the kernel accept,\n"
         "  and what would PostgreSQL 18 with io_method=io_uring need here.\n"
         "\n"
         "  Settings of a PostgreSQL 18 server to predict (any one of them makes\n"
         "  the report predict for PostgreSQL 18; the rest take 18's defaults):\n"
         "    --max-connections N          --io-max-concurrency N\n"
         "    --autovacuum-worker-slots N  --max-worker-processes N\n"
         "    --max-wal-senders N          --max-files-per-process N\n"
         "    --io-method sync|worker|io_uring\n"
         "    --without-queue-init-mem     the server's liburing lacks io_uring_queue_init_mem\n"
         "  Paths:\n"
         "    --data-directory DIR         --scratch-dir DIR (repeatable)\n",
         {},
         ""},
        {"advise",
         "advise [options]",
         "advise: what to set on a PostgreSQL server before starting it, from small runs\n"
         "  of the experiments in this process against its settings, within a budget\n"
         "  (as uringprobe_advise() does in a backend):\n"
         "    --budget SECONDS             time for all runs (default 20, at most 3600)\n"
         "    --concurrency N              sessions extending one relation at once (default 4)\n"
         "    --server-version N           PostgreSQL major version (default 18)\n"
         "    --file-extend-method posix_fallocate|write_zeros  its setting (default "
         "posix_fallocate)\n"
         "    --data-directory DIR         the data directory, or where it will be (must exist)\n"
         "    --tablespace DIR             a tablespace's directory (repeatable)\n"
         "  and the server's settings as environment takes them (--max-connections N ...).\n",
         {},
         ""},
        {"rings", "rings [options]",
         "rings: N io_uring rings in this process, then fork() -> _exit -> waitpid\n"
         "  timed --forks times, against a zero-ring baseline measured alongside:\n",
         up::params_of(up::rings_params()), ""},
        {"extend", "extend --dir DIR [options]",
         "extend: grow scratch files in DIR the way PostgreSQL extends a relation:\n",
         up::params_of(up::extend_params()),
         up::usage_line("--blocks N", "min_blocks and max_blocks at once")},
        {"completions", "completions [options]",
         "completions: keep operations in flight on a ring, each reaped one replaced at once:\n",
         up::params_of(up::completions_params()), ""},
        {"events", "events [options]",
         "events: a byte on each pipe (written by this process or a peer), wait until "
         "readable, read it (Samba's local.event):\n",
         up::params_of(up::events_params()), ""},
    };
}

std::string usage_text() {
    std::string out;
    const auto commands = command_help();
    for (size_t i = 0; i < commands.size(); ++i)
        out += std::string(i ? "       " : "usage: ") + "uringprobe-cli " + commands[i].synopsis +
               "\n";
    out += "       uringprobe-cli params [command]\n";
    for (const auto& c : commands)
        out += "\n" + std::string(c.summary) + up::usage_lines(c.params) + c.extra;
    out += "\nparams: every command's parameters (name, SQL type, default, range, option, help),\n"
           "  as the extension's SQL functions declare them\n"
           "\nOutput (every command): --format table|tsv (tsv: reals to 9 significant digits,\n"
           "    and the raw latency_histogram: low_ns:count of every non-empty bucket)\n";
    return out;
}

[[noreturn]] void usage_error(const std::string& msg) {
    std::fprintf(stderr, "uringprobe-cli: %s\n\n%s", msg.c_str(), usage_text().c_str());
    std::exit(2);
}

// Ranges are checked by the engine, in one place for the CLI and SQL; here
// only that the text is a number of the parameter's SQL type.
long long parse_number(const std::string& opt, const char* text, bool bigint) {
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text, &end, 10);
    if (errno || end == text || *end || (!bigint && (v < INT32_MIN || v > INT32_MAX)))
        usage_error(opt + " must be an integer, got '" + text + "'");
    return v;
}
int parse_int(const std::string& opt, const char* text) {
    return static_cast<int>(parse_number(opt, text, false));
}

// tsv: every column, exact; table: aligned, without the raw *_histogram columns.
void print_table(const up::Table& t, bool tsv) {
    std::vector<size_t> shown;
    for (size_t c = 0; c < t.columns.size(); ++c) {
        const std::string& name = t.columns[c];
        const std::string suffix = "_histogram";
        if (tsv || name.size() < suffix.size() ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            shown.push_back(c);
    }
    std::vector<std::vector<std::string>> cells;
    cells.emplace_back();
    for (size_t c : shown)
        cells.back().push_back(t.columns[c]);
    for (const auto& row : t.rows) {
        std::vector<std::string> line;
        for (size_t c : shown)
            line.push_back(row[c].to_string(tsv));
        cells.push_back(std::move(line));
    }
    if (tsv) {
        for (const auto& line : cells) {
            for (size_t c = 0; c < line.size(); ++c)
                std::printf("%s%s", c ? "\t" : "", line[c].c_str());
            std::printf("\n");
        }
        return;
    }
    // Aligned columns; the last column is left as long as it is.
    std::vector<size_t> width(shown.size(), 0);
    for (const auto& line : cells)
        for (size_t c = 0; c + 1 < line.size(); ++c)
            width[c] = std::max(width[c], line[c].size());
    for (const auto& line : cells) {
        for (size_t c = 0; c < line.size(); ++c)
            std::printf(c + 1 < line.size() ? "%-*s  " : "%-*s\n", int(width[c]), line[c].c_str());
    }
}

bool parse_format(const std::string& f) {
    if (f != "table" && f != "tsv")
        usage_error("--format must be table or tsv, got '" + f + "'");
    return f == "tsv";
}

// Walks a command's options; value() takes the option's argument.
class Args {
public:
    Args(int argc, char** argv) : argc_(argc), argv_(argv) {}
    bool next() { return ++i_ < argc_; }
    const std::string& opt() {
        opt_ = argv_[i_];
        return opt_;
    }
    const char* value() {
        if (i_ + 1 >= argc_)
            usage_error(opt_ + " needs a value");
        return argv_[++i_];
    }
    // The options every command has: --format (into *tsv) and --help
    // (prints the usage and exits); anything else is a usage error.
    void common(const std::string& opt, bool* tsv) {
        if (opt == "--format")
            *tsv = parse_format(value());
        else if (opt == "-h" || opt == "--help") {
            std::fputs(usage_text().c_str(), stdout);
            std::exit(0);
        } else
            usage_error("unknown option '" + opt + "'");
    }

private:
    int argc_;
    char** argv_;
    int i_ = -1;
    std::string opt_;
};

// A command's options read by its parameter table into a Params; `extra`
// takes the options beyond the table (returns false for one it lacks).
template <typename P>
P parse_params(const up::ParamTable<P>& table, int argc, char** argv, bool* tsv,
               const std::function<bool(const std::string&, Args&, P&)>& extra = nullptr) {
    P p;
    Args args(argc, argv);
    while (args.next()) {
        const std::string opt = args.opt();
        const up::ParamRow<P>* row = nullptr;
        for (const auto& r : table)
            if (r.param.option() == opt)
                row = &r;
        if (!row) {
            if (!extra || !extra(opt, args, p))
                args.common(opt, tsv);
            continue;
        }
        if (!row->param.renamed_to.empty()) {
            up::Param now = row->param;
            now.name = row->param.renamed_to;
            usage_error(opt + " was renamed " + now.option());
        }
        up::ParamValue v;
        switch (row->param.type) {
        case up::ParamType::boolean:
            v.b = !row->param.default_value().b; // the option turns the default around
            break;
        case up::ParamType::text:
            v.s = args.value();
            break;
        default:
            v.i = parse_number(opt, args.value(), row->param.type == up::ParamType::bigint);
        }
        row->set(p, v);
    }
    return p;
}

// A directory given on the command line, relative to where the CLI runs.
std::string absolute_dir(const std::string& dir) {
    if (dir.empty() || dir[0] == '/')
        return dir;
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        throw up::SysError(errno, "getcwd");
    return std::string(cwd) + "/" + dir;
}

// The options describing a PostgreSQL 18 server's settings, shared by env
// and advise; false for an option that is not one of them. *given is set
// when a setting was given.
bool server_option(const std::string& opt, Args& args, up::ServerFacts& srv, bool* given) {
    up::Pg18Settings& s = srv.settings;
    const std::map<std::string, int*> ints = {
        {"--max-connections", &s.max_connections},
        {"--io-max-concurrency", &s.io_max_concurrency},
        {"--autovacuum-worker-slots", &s.autovacuum_worker_slots},
        {"--max-worker-processes", &s.max_worker_processes},
        {"--max-wal-senders", &s.max_wal_senders},
        {"--max-files-per-process", &s.max_files_per_process},
    };
    if (auto it = ints.find(opt); it != ints.end()) {
        *it->second = parse_int(opt, args.value());
        *given = true;
    } else if (opt == "--io-method") {
        srv.io_method = args.value();
        if (srv.io_method != "sync" && srv.io_method != "worker" && srv.io_method != "io_uring")
            usage_error("--io-method must be sync, worker or io_uring, got '" + srv.io_method +
                        "'");
        *given = true;
    } else if (opt == "--without-queue-init-mem") {
        s.built_with_queue_init_mem = false;
        *given = true;
    } else if (opt == "--data-directory") {
        srv.data_directory = args.value();
    } else {
        return false;
    }
    return true;
}

// A server built against the liburing this CLI was built with.
void server_defaults(up::ServerFacts& srv) {
#ifdef URINGPROBE_HAVE_QUEUE_INIT_MEM
    srv.settings.built_with_queue_init_mem = true;
#else
    srv.settings.built_with_queue_init_mem = false;
#endif
    srv.io_method = "io_uring";
}

int cmd_environment(int argc, char** argv) {
    up::EnvironmentRequest req;
    req.process = "bare process";
    server_defaults(req.server);
    bool predict = false;
    bool tsv = false;
    Args args(argc, argv);
    while (args.next()) {
        const std::string opt = args.opt();
        if (server_option(opt, args, req.server, &predict))
            continue;
        if (opt == "--scratch-dir")
            req.scratch_dirs.emplace_back(args.value());
        else
            args.common(opt, &tsv);
    }
    if (predict) {
        req.server.version_num = 180000;
        req.server.version = "PostgreSQL 18 (settings from the command line)";
    }
    print_table(up::environment_table(up::probe_environment(req)), tsv);
    return 0;
}

// A number of seconds, fractions allowed.
double parse_seconds(const std::string& opt, const char* text) {
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text, &end);
    if (errno || end == text || *end || !std::isfinite(v))
        usage_error(opt + " must be a number of seconds, got '" + text + "'");
    return v;
}

// The most a budget may be from the command line.
constexpr double kCliMaxBudgetSeconds = 3600;

int cmd_advise(int argc, char** argv) {
    up::AdviseRequest req;
    req.process = "bare process";
    up::ServerFacts& srv = req.server;
    server_defaults(srv);
    int major = 18;
    req.file_extend_method = "posix_fallocate";
    bool fem_given = false;
    req.max_budget_seconds = kCliMaxBudgetSeconds;
    req.budget_cap_name = "the most uringprobe-cli allows";
    std::vector<std::string> tablespaces;
    bool tsv = false, given = false;
    Args args(argc, argv);
    while (args.next()) {
        const std::string opt = args.opt();
        if (server_option(opt, args, srv, &given))
            continue;
        if (opt == "--server-version") {
            major = parse_int(opt, args.value());
            if (major < 15 || major > 99)
                usage_error("--server-version must be a PostgreSQL major version from 15, got " +
                            std::to_string(major));
        } else if (opt == "--file-extend-method") {
            req.file_extend_method = args.value();
            fem_given = true;
            if (req.file_extend_method != "posix_fallocate" &&
                req.file_extend_method != "write_zeros")
                usage_error("--file-extend-method must be posix_fallocate or write_zeros, got '" +
                            req.file_extend_method + "'");
        } else if (opt == "--tablespace") {
            tablespaces.push_back(absolute_dir(args.value()));
        } else if (opt == "--budget") {
            req.budget_seconds = parse_seconds(opt, args.value());
        } else if (opt == "--concurrency") {
            req.concurrency = parse_int(opt, args.value());
        } else {
            args.common(opt, &tsv);
        }
    }
    srv.version_num = major * 10000;
    srv.version = std::to_string(major) + " (settings from the command line)";
    if (major < 18) {
        srv.io_method.clear();
        if (fem_given)
            usage_error("--file-extend-method needs --server-version 18 or later");
        req.file_extend_method.clear();
    }
    // The data directory's temporary-file directory when it holds a
    // cluster, else the directory itself (created by initdb later).
    if (!srv.data_directory.empty()) {
        srv.data_directory = absolute_dir(srv.data_directory);
        struct stat st {};
        const bool cluster = ::stat((srv.data_directory + "/base").c_str(), &st) == 0;
        up::AdviseTarget t{"data directory",
                           srv.data_directory + (cluster ? "/base/pgsql_tmp" : ""), ""};
        if (!cluster && ::stat(srv.data_directory.c_str(), &st) != 0)
            t.unavailable = srv.data_directory + ": " + std::strerror(errno) +
                            " (create it, or give the directory it will be made in)";
        req.targets.push_back(t);
    }
    for (const auto& dir : tablespaces) {
        up::AdviseTarget t{dir, dir, ""};
        struct stat st {};
        if (::stat(dir.c_str(), &st) != 0)
            t.unavailable = dir + ": " + std::strerror(errno);
        req.targets.push_back(t);
    }
    up::validate(req);
    const up::AdviseResult r = up::advise(req, [] { return false; });
    print_table(up::advise_table(r), tsv);
    return 0;
}

int cmd_rings(int argc, char** argv) {
    bool tsv = false;
    const up::RingsParams p = parse_params(up::rings_params(), argc, argv, &tsv);
    up::validate(p, {});
    print_table(up::rings_table(up::run_rings(p, [] { return false; })), tsv);
    return 0;
}

int cmd_extend(int argc, char** argv) {
    bool tsv = false;
    up::ExtendParams p =
        parse_params<up::ExtendParams>(up::extend_params(), argc, argv, &tsv,
                                       [](const std::string& opt, Args& args, up::ExtendParams& q) {
                                           if (opt != "--blocks")
                                               return false;
                                           q.min_blocks = q.max_blocks =
                                               parse_int(opt, args.value());
                                           return true;
                                       });
    if (p.dir.empty())
        usage_error("extend needs --dir DIR");
    p.dir = absolute_dir(p.dir);
    up::validate(p, {});
    print_table(up::extend_table(up::run_extend(p, {p.dir}, [] { return false; })), tsv);
    return 0;
}

int cmd_completions(int argc, char** argv) {
    bool tsv = false;
    up::CompletionsParams p = parse_params(up::completions_params(), argc, argv, &tsv);
    if (p.op == up::CompletionOp::read && p.dir.empty())
        usage_error("completions --op read needs --dir DIR");
    p.dir = absolute_dir(p.dir);
    up::validate(p, {});
    print_table(up::completions_table(up::run_completions(p, {p.dir}, [] { return false; })), tsv);
    return 0;
}

int cmd_events(int argc, char** argv) {
    bool tsv = false;
    const up::EventsParams p = parse_params(up::events_params(), argc, argv, &tsv);
    if (p.loop == "pg_waiteventset")
        usage_error("loop pg_waiteventset is PostgreSQL's own: only uringprobe_events() in a "
                    "backend has it");
    up::validate(p, {}, "");
    print_table(up::events_table(up::run_events(p, nullptr, [] { return false; })), tsv);
    return 0;
}

// Every command's parameter table, as the SQL functions declare them.
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
    up::Table t;
    t.columns = {"command", "name", "type", "default", "min", "max", "cap", "option", "help"};
    bool found = false;
    for (const auto& c : command_help()) {
        if (!only.empty() && only != c.name)
            continue;
        found = true;
        for (const up::Param& prm : c.params) {
            const bool number =
                prm.type == up::ParamType::integer || prm.type == up::ParamType::bigint;
            const auto bound = [&](long long v) {
                return number ? up::Value::integer(v) : up::Value::null();
            };
            t.rows.push_back({up::Value::text(c.name), up::Value::text(prm.name),
                              up::Value::text(prm.sql_type()), up::Value::text(prm.default_sql),
                              bound(prm.min), bound(prm.max), up::Value::text(prm.cap),
                              up::Value::text(prm.option()), up::Value::text(prm.help)});
        }
    }
    if (!found)
        usage_error("params: unknown command '" + only + "'");
    print_table(t, tsv);
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2)
        usage_error("no command given");
    const std::string cmd = argv[1];
    try {
        if (cmd == "environment")
            return cmd_environment(argc - 2, argv + 2);
        if (cmd == "env") // the command's old name
            usage_error("env was renamed environment");
        if (cmd == "advise")
            return cmd_advise(argc - 2, argv + 2);
        if (cmd == "rings")
            return cmd_rings(argc - 2, argv + 2);
        if (cmd == "extend")
            return cmd_extend(argc - 2, argv + 2);
        if (cmd == "completions")
            return cmd_completions(argc - 2, argv + 2);
        if (cmd == "events")
            return cmd_events(argc - 2, argv + 2);
        if (cmd == "params")
            return cmd_params(argc - 2, argv + 2);
        if (cmd == "-h" || cmd == "--help") {
            std::fputs(usage_text().c_str(), stdout);
            return 0;
        }
        usage_error("unknown command '" + cmd + "'");
    } catch (const up::SysError& e) {
        std::fprintf(stderr, "uringprobe-cli: %s\n", e.what());
        if (!e.hint().empty())
            std::fprintf(stderr, "hint: %s\n", e.hint().c_str());
        return 1;
    } catch (const up::InvalidArgument& e) {
        usage_error(e.what());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "uringprobe-cli: %s\n", e.what());
        return 1;
    }
}
