// uringprobe-cli: the extension's experiments from a shell, in a bare
// process, so that a backend's results can be set against a baseline.
#include "../engine/completions_experiment.hpp"
#include "../engine/environment.hpp"
#include "../engine/error.hpp"
#include "../engine/events_experiment.hpp"
#include "../engine/extend_experiment.hpp"
#include "../engine/rings_experiment.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

namespace up = uringprobe;

namespace {

const char* kUsage =
    "usage: uringprobe-cli env [options]\n"
    "       uringprobe-cli rings [options]\n"
    "       uringprobe-cli extend --dir DIR [options]\n"
    "       uringprobe-cli completions [options]\n"
    "       uringprobe-cli events [options]\n"
    "\n"
    "env: can this process use io_uring, what does the kernel accept,\n"
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
    "    --data-directory DIR         --scratch-dir DIR (repeatable)\n"
    "\n"
    "rings: N io_uring rings in this process, then fork() -> _exit -> waitpid\n"
    "  timed --forks times, against a zero-ring baseline measured alongside:\n"
    "    --rings N (128)  --depth N (64)  --forks N (200)\n"
    "    --mode mmap|no_mmap|both (both)  --dontfork (mmap rings: MADV_DONTFORK)\n"
    "\n"
    "extend: grow scratch files in DIR the way PostgreSQL extends a relation:\n"
    "    --strategy fallocate|write_zeros|mdzeroextend|write (mdzeroextend)\n"
    "    --interface sync|io_uring|io_uring_async (sync)\n"
    "    --blocks N | --min-blocks N (1) --max-blocks N (64)  blocks per extension,\n"
    "                                 drawn uniformly between min and max\n"
    "    --seed N (1)  --block-size N (8192)  --total-mb N (64)\n"
    "    --write-data                 write each new block after extending\n"
    "    --sessions N (1)  --separate-files (one file per session; else one shared)\n"
    "    --verify                     read the files back and check size and content\n"
    "\n"
    "completions: keep operations in flight on a ring and reap them each or in batches:\n"
    "    --op nop|read|recv (nop)  --depth N (32)  --batch N (0: depth)\n"
    "    --reaping each|batch (batch)  --completions N (1000000)\n"
    "    --flags sqpoll,single_issuer,defer_taskrun,coop_taskrun (none)\n"
    "    --dir DIR                    read: where the scratch file goes\n"
    "\n"
    "events: write a byte to each pipe, wait until readable, read it (Samba's local.event):\n"
    "    --backend epoll|poll|uring_oneshot|uring_oneshot_defer|uring_multishot|\n"
    "              uring_multishot_defer (epoll)\n"
    "    --pipes N (1)  --events N (100000)\n"
    "\n"
    "Output (every command): --format table|tsv (tsv: reals to 9 significant digits,\n"
    "    and the raw latency_histogram: low_ns:count of every non-empty bucket)\n";

[[noreturn]] void usage_error(const std::string& msg) {
    std::fprintf(stderr, "uringprobe-cli: %s\n\n%s", msg.c_str(), kUsage);
    std::exit(2);
}

// Ranges are checked by the engine, in one place for the CLI and SQL.
int parse_int(const std::string& opt, const char* text) {
    char* end = nullptr;
    errno = 0;
    long v = std::strtol(text, &end, 10);
    if (errno || end == text || *end || v < INT32_MIN || v > INT32_MAX)
        usage_error(opt + " must be an integer, got '" + text + "'");
    return static_cast<int>(v);
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
            std::fputs(kUsage, stdout);
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

int cmd_env(int argc, char** argv) {
    up::EnvironmentRequest req;
    req.process = "bare process";
    up::Pg18Settings& s = req.server.settings;
#ifndef IO_URING_VERSION_MAJOR
    s.built_with_queue_init_mem = false;
#else
    s.built_with_queue_init_mem = IO_URING_VERSION_MAJOR > 2 || IO_URING_VERSION_MINOR >= 5;
#endif
    bool predict = false;
    bool tsv = false;
    std::string io_method = "io_uring";
    const std::map<std::string, int*> ints = {
        {"--max-connections", &s.max_connections},
        {"--io-max-concurrency", &s.io_max_concurrency},
        {"--autovacuum-worker-slots", &s.autovacuum_worker_slots},
        {"--max-worker-processes", &s.max_worker_processes},
        {"--max-wal-senders", &s.max_wal_senders},
        {"--max-files-per-process", &s.max_files_per_process},
    };
    Args args(argc, argv);
    while (args.next()) {
        const std::string opt = args.opt();
        auto value = [&] { return args.value(); };
        if (auto it = ints.find(opt); it != ints.end()) {
            *it->second = parse_int(opt, value());
            predict = true;
        } else if (opt == "--io-method") {
            io_method = value();
            if (io_method != "sync" && io_method != "worker" && io_method != "io_uring")
                usage_error("--io-method must be sync, worker or io_uring, got '" + io_method +
                            "'");
            predict = true;
        } else if (opt == "--without-queue-init-mem") {
            s.built_with_queue_init_mem = false;
            predict = true;
        } else if (opt == "--data-directory") {
            req.server.data_directory = value();
        } else if (opt == "--scratch-dir") {
            req.scratch_dirs.emplace_back(value());
        } else {
            args.common(opt, &tsv);
        }
    }
    if (predict) {
        req.server.version_num = 180000;
        req.server.version = "PostgreSQL 18 (settings from the command line)";
        req.server.io_method = io_method;
    }
    print_table(up::environment_table(up::probe_environment(req)), tsv);
    return 0;
}

int cmd_rings(int argc, char** argv) {
    up::RingsParams p;
    bool tsv = false;
    Args args(argc, argv);
    while (args.next()) {
        const std::string opt = args.opt();
        auto value = [&] { return args.value(); };
        if (opt == "--rings")
            p.rings = parse_int(opt, value());
        else if (opt == "--depth")
            p.depth = parse_int(opt, value());
        else if (opt == "--forks")
            p.forks = parse_int(opt, value());
        else if (opt == "--mode")
            up::set_ring_modes(p, value());
        else if (opt == "--dontfork")
            p.dontfork = true;
        else
            args.common(opt, &tsv);
    }
    up::validate(p, up::RingsCaps{});
    print_table(up::rings_table(up::run_rings(p, [] { return false; })), tsv);
    return 0;
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

int cmd_extend(int argc, char** argv) {
    up::ExtendParams p;
    bool tsv = false;
    Args args(argc, argv);
    while (args.next()) {
        const std::string opt = args.opt();
        auto value = [&] { return args.value(); };
        if (opt == "--dir")
            p.dir = value();
        else if (opt == "--strategy")
            p.strategy = up::parse_extend_strategy(value());
        else if (opt == "--interface")
            p.interface = up::parse_extend_interface(value());
        else if (opt == "--blocks")
            p.min_blocks = p.max_blocks = parse_int(opt, value());
        else if (opt == "--min-blocks")
            p.min_blocks = parse_int(opt, value());
        else if (opt == "--max-blocks")
            p.max_blocks = parse_int(opt, value());
        else if (opt == "--seed")
            p.seed = static_cast<std::uint64_t>(parse_int(opt, value()));
        else if (opt == "--block-size")
            p.block_size = parse_int(opt, value());
        else if (opt == "--total-mb")
            p.total_mb = parse_int(opt, value());
        else if (opt == "--write-data")
            p.write_data = true;
        else if (opt == "--sessions")
            p.sessions = parse_int(opt, value());
        else if (opt == "--separate-files")
            p.shared = false;
        else if (opt == "--verify")
            p.verify = true;
        else
            args.common(opt, &tsv);
    }
    if (p.dir.empty())
        usage_error("extend needs --dir DIR");
    p.dir = absolute_dir(p.dir);
    up::validate(p, up::ExtendCaps{});
    print_table(up::extend_table(up::run_extend(p, {p.dir}, [] { return false; })), tsv);
    return 0;
}

int cmd_completions(int argc, char** argv) {
    up::CompletionsParams p;
    bool tsv = false;
    Args args(argc, argv);
    while (args.next()) {
        const std::string opt = args.opt();
        auto value = [&] { return args.value(); };
        if (opt == "--op")
            p.op = up::parse_completion_op(value());
        else if (opt == "--depth")
            p.depth = parse_int(opt, value());
        else if (opt == "--batch")
            p.batch = parse_int(opt, value());
        else if (opt == "--reaping")
            p.reaping = up::parse_reaping(value());
        else if (opt == "--flags")
            p.setup_flags = up::parse_setup_flags(value());
        else if (opt == "--completions")
            p.completions = parse_int(opt, value());
        else if (opt == "--dir")
            p.dir = absolute_dir(value());
        else
            args.common(opt, &tsv);
    }
    if (p.op == up::CompletionOp::read && p.dir.empty())
        usage_error("completions --op read needs --dir DIR");
    up::validate(p, up::CompletionsCaps{});
    print_table(up::completions_table(up::run_completions(p, {p.dir}, [] { return false; })), tsv);
    return 0;
}

int cmd_events(int argc, char** argv) {
    up::EventsParams p;
    bool tsv = false;
    Args args(argc, argv);
    while (args.next()) {
        const std::string opt = args.opt();
        auto value = [&] { return args.value(); };
        if (opt == "--backend")
            p.backend = value();
        else if (opt == "--pipes")
            p.pipes = parse_int(opt, value());
        else if (opt == "--events")
            p.events = parse_int(opt, value());
        else
            args.common(opt, &tsv);
    }
    if (p.backend == "pg_waiteventset")
        usage_error("backend pg_waiteventset is PostgreSQL's own: only uringprobe_events() in a "
                    "backend has it");
    up::validate(p, up::EventsCaps{}, "");
    print_table(up::events_table(up::run_events(p, nullptr, [] { return false; })), tsv);
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2)
        usage_error("no command given");
    const std::string cmd = argv[1];
    try {
        if (cmd == "env")
            return cmd_env(argc - 2, argv + 2);
        if (cmd == "rings")
            return cmd_rings(argc - 2, argv + 2);
        if (cmd == "extend")
            return cmd_extend(argc - 2, argv + 2);
        if (cmd == "completions")
            return cmd_completions(argc - 2, argv + 2);
        if (cmd == "events")
            return cmd_events(argc - 2, argv + 2);
        if (cmd == "-h" || cmd == "--help") {
            std::fputs(kUsage, stdout);
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
