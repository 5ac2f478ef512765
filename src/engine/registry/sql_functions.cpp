#include "registry/sql_functions.hpp"

#include "contract/wrap_words.hpp"

#include "advise/advise.hpp"
#include "advise/advise_script.hpp"
#include "experiments/completions_experiment.hpp"
#include "experiments/environment.hpp"
#include "experiments/events_experiment.hpp"
#include "experiments/extend_experiment.hpp"
#include "experiments/monitor.hpp"
#include "experiments/reads_experiment.hpp"
#include "experiments/rings_experiment.hpp"
#include "os/process_snapshot.hpp"
#include "uring/pg_ring_plan.hpp"

#include "contract/error.hpp"

#include <set>
#include <stdexcept>

namespace uringprobe {

namespace {

// The Params of several tables, in order.
template <typename... Tables> std::vector<Param> params_of_all(const Tables&... tables) {
    std::vector<Param> out;
    for (const auto& params : {params_of(tables)...})
        out.insert(out.end(), params.begin(), params.end());
    return out;
}

// The one composite type, uringprobe_process.
const char kProcessTypeAbout[] =
    "A process seen through /proc: mappings (all, and io_uring rings), io_uring and other "
    "fds, page-table and resident size, CPU time so far.";

// `text` as SQL comment lines of at most 78 characters.
std::string comment(const std::string& text) {
    std::string out;
    for (const std::string& line : wrap_words(text, 75))
        out += "-- " + line + "\n";
    return out;
}

// "uringprobe_rings(integer, integer, text, boolean, integer)"
std::string signature(const SqlFunction& f) {
    std::string out = "uringprobe_" + f.name + "(";
    bool first = true;
    for (const Param& p : f.params)
        if (p.in_sql) {
            out += std::string(first ? "" : ", ") + p.sql_type();
            first = false;
        }
    return out + ")";
}

std::string create_function(const SqlFunction& f) {
    std::vector<std::string> args;
    for (const Param& p : f.params)
        if (p.in_sql)
            args.push_back(p.name + " " + p.sql_type() + " DEFAULT " + p.sql_declared_default());
    if (f.row_type.empty())
        for (const Column& c : f.columns)
            args.push_back("OUT " + c.name + " " + sql_type(c.kind));
    std::string out = comment(f.about) + "CREATE FUNCTION uringprobe_" + f.name + "(";
    for (size_t i = 0; i < args.size(); ++i)
        out += "\n    " + args[i] + (i + 1 < args.size() ? "," : "");
    out += ")\nRETURNS SETOF " + (f.row_type.empty() ? std::string("record") : f.row_type) +
           "\nAS 'MODULE_PATHNAME', 'uringprobe_" + f.name +
           "'\nLANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;\n";
    const std::string sig = signature(f);
    return out + comment(f.why_granted) + "REVOKE ALL ON FUNCTION " + sig + " FROM PUBLIC;\n" +
           "GRANT EXECUTE ON FUNCTION " + sig + " TO " + f.granted_to + ";\n";
}

std::string create_type(const std::string& name, const std::vector<Column>& columns) {
    std::string out = comment(kProcessTypeAbout) + "CREATE TYPE " + name + " AS (";
    for (size_t i = 0; i < columns.size(); ++i)
        out += "\n    " + columns[i].name + " " + sql_type(columns[i].kind) +
               (i + 1 < columns.size() ? "," : "");
    return out + ");\n";
}

// What each function does, and why its callers are those granted it.
const char kEnvironmentAbout[] =
    "Preflight: can this backend use io_uring, what the kernel accepts, and what "
    "io_method=io_uring costs with this server's settings (or with the max_connections / "
    "io_max_concurrency given). Probing the kernel creates rings and an SQPOLL thread: by "
    "default only for pg_execute_server_program (probe => true asks for it, false for a "
    "reading that makes no ring).";
const char kEnvironmentAccess[] =
    "Reading what this backend and the kernel can do: for monitoring (a probe that creates "
    "rings asks for pg_execute_server_program in the function).";

const char kAdviseAbout[] =
    "What to set on this server, with the measurements behind it: small runs of the "
    "experiments in this backend against the server's own settings (the rings PostgreSQL 18 "
    "creates at its max_connections, fork() with them; relation extension by each "
    "file_extend_method in every tablespace's temporary-file directory, `concurrency` "
    "sessions growing one file), taking turns within `budget` (at most "
    "uringprobe.max_advise_seconds; a statement_timeout under twice the budget makes it half "
    "of that). One row per setting: its current value, the advice (the setting and its "
    "value), confidence (high: 5 runs or more and an interval that decides; medium: 3 or "
    "more; low: fewer, or nothing measured), the evidence (figures with units, intervals and "
    "runs) and what the current setting costs.";
const char kAdviseAccess[] =
    "Rings, forks and (with pg_write_server_files) scratch files in the tablespaces: for "
    "those trusted to run programs as the server's user.";
// its first call reads pg_tablespace, whose files PostgreSQL then
// keeps open: a warm-up call first
const std::vector<LongRun> kAdviseLongRuns = {
    {"advise", "uringprobe_advise(budget => '300 s')", "uringprobe_advise(budget => '1 ms')"}};

const char kAdviseScriptAbout[] =
    "uringprobe_advise()'s advice as a script to read, then run: a line a row, `part` 'sh' "
    "(a shell command or comment), 'sql' (a statement psql runs: ALTER SYSTEM, ALTER "
    "TABLESPACE, a reload) or 'systemd' (a line of a drop-in for the postmaster's limits); "
    "what no command sets, and the values kept, as comments. It applies nothing.";
const std::vector<LongRun> kAdviseScriptLongRuns = {{"advise_script",
                                                     "uringprobe_advise_script(budget => '300 s')",
                                                     "uringprobe_advise_script(budget => '1 ms')"}};

const char kRingsAbout[] =
    "The cost of many io_uring rings on fork(): N rings of the given depth in this backend, "
    "each with its own mappings ('mmap') or all in one user-memory region ('no_mmap'), then "
    "fork() -> child _exit -> waitpid timed `forks` times (p50_us..max_us; fork_call_* is the "
    "part until fork() returns in the parent), beside a zero-ring baseline measured in the "
    "same call. latency_histogram: the fork latencies as low_ns:count of every non-empty "
    "bucket (log-linear, ~1.6% wide), the raw data behind the percentiles.";
const char kRingsAccess[] =
    "Forking the backend and creating rings: for those trusted to run programs as the "
    "server's user.";
const InProcess kRingsInProcess = {
    "rings [options]",
    "rings: N io_uring rings in this process, then fork() -> _exit -> waitpid\n"
    "  timed --forks times, against a zero-ring baseline measured alongside:\n",
    run_rings_in_process};
const std::vector<LongRun> kRingsLongRuns = {
    {"rings", "uringprobe_rings(rings => 64, depth => 8, forks => 100000)", ""}};

const char kExtendAbout[] =
    "Relation-style file extension in a scratch directory (dir NULL: the first of "
    "uringprobe.scratch_dirs): total_mb grown in extensions of min_blocks to max_blocks "
    "blocks (drawn with `seed`) by strategy 'fallocate', 'write_zeros', 'mdzeroextend' "
    "(PostgreSQL 16+: more than 8 blocks -> fallocate, else zeros) or 'write' (one block per "
    "write, PostgreSQL 15), through interface 'sync', 'io_uring' or 'io_uring_async' "
    "(IOSQE_ASYNC); write_data fills each new block afterwards like COPY, write_batch pages "
    "per write (the same writes through either interface); `sessions` threads extend one "
    "shared file under a lock, or each its own file (shared false). p50_us..max_us are per "
    "extension (latency_histogram: all of them, as low_ns:count buckets); extents is the "
    "files' FIEMAP count.";
const char kExtendAccess[] =
    "Writing files as the server's user, in the allowed scratch directories.";
const InProcess kExtendInProcess = {
    "extend --dir DIR [options]",
    "extend: grow scratch files in DIR the way PostgreSQL extends a relation:\n",
    run_extend_in_process};
const std::vector<LongRun> kExtendLongRuns = {
    {"extend sync",
     "uringprobe_extend('{scratch}', 'write', 'sync', min_blocks => 1, max_blocks => 1, "
     "total_mb => 1024, write_data => true, sessions => 2)",
     ""},
    {"extend io_uring",
     "uringprobe_extend('{scratch}', 'write', 'io_uring', min_blocks => 1, max_blocks => 1, "
     "total_mb => 1024, write_data => true)",
     ""}};

const char kReadsAbout[] =
    "What asynchronous reads buy (the counterpart of uringprobe_extend): the same bytes of a "
    "file read in block_kb pieces, in order or in a seeded random order, by method 'sync' "
    "(pread one at a time), 'sync_fadvise' (pread, POSIX_FADV_WILLNEED `distance` pieces "
    "ahead), 'io_uring' (`in_flight` reads kept in flight on this backend's ring, one "
    "submitted per completion) or 'workers' (`in_flight` reads queued for `workers` threads "
    "doing pread: io_method=worker's hand-offs, modelled). Buffered reads start cold (the "
    "file's pages dropped, resident_before counts what was left) or warm; direct reads use "
    "O_DIRECT; `passes` times over. The file: a scratch file of file_mb MB written first in "
    "dir (NULL: the first of uringprobe.scratch_dirs), or the segment files of relation rel, "
    "opened read-only. p50_us..max_us: per read, issued to completion seen "
    "(latency_histogram: every read).";
const char kReadsAccess[] =
    "Rings and threads: for those trusted to run programs as the server's user (a scratch "
    "file also needs pg_write_server_files, rel pg_read_server_files).";
const InProcess kReadsInProcess = {
    "reads --dir DIR | --file FILE... [options]",
    "reads: the same bytes of a file read one at a time, with advice ahead, kept in\n"
    "  flight on a ring, or queued for worker threads (a scratch file in DIR,\n"
    "  written first, or FILEs opened read-only):\n",
    run_reads_in_process};
const std::vector<LongRun> kReadsLongRuns = {
    {"reads sync",
     "uringprobe_reads('sync', 'random', block_kb => 4, direct => true, file_mb => 8, "
     "passes => 100000, dir => '{scratch}')",
     ""},
    {"reads io_uring",
     "uringprobe_reads('io_uring', 'random', block_kb => 4, direct => true, file_mb => 8, "
     "passes => 100000, dir => '{scratch}')",
     ""},
    {"reads workers",
     "uringprobe_reads('workers', 'random', block_kb => 4, file_mb => 8, passes => 100000, "
     "dir => '{scratch}')",
     ""}};

const char kCompletionsAbout[] =
    "Completions kept in flight (report 2): `depth` operations on a ring of this backend, "
    "every reaped completion replaced at once by a new operation with its own submission "
    "(resubmit 'each', the report's shape) or all those reaped together with one (resubmit "
    "'batch'); CQEs taken off one head store each (reaping 'each', io_uring_cqe_seen) or with "
    "one cq_advance per batch. op 'nop', 'read' (4 KiB from a page-cached scratch file in "
    "`dir`, NULL: the first of uringprobe.scratch_dirs) or 'recv' (datagrams on a loopback "
    "UDP socket fed by a child process). flags: a list of sqpoll, single_issuer, "
    "defer_taskrun, coop_taskrun; a combination io_uring defines as invalid is an error "
    "naming the rule, one this kernel refuses a row whose status says so. enters: "
    "io_uring_enter calls made; mean_in_flight: submitted and not yet reaped, at each reaped "
    "CQE; *_ns_per_completion: CPU of the submitting thread and of the SQPOLL thread per "
    "completion; iowq_*: the io-wq workers that took operations the kernel could not complete "
    "by polling.";
const char kCompletionsAccess[] =
    "Rings, kernel threads and a forked sender: for those trusted to run programs as the "
    "server's user ('read' also needs pg_write_server_files).";
const InProcess kCompletionsInProcess = {
    "completions [options]",
    "completions: keep operations in flight on a ring, each reaped one replaced at once:\n",
    run_completions_in_process};
const std::vector<LongRun> kCompletionsLongRuns = {
    {"completions nop", "uringprobe_completions('nop', 1, 'each', 'each', '', 100000000)", ""},
    {"completions recv", "uringprobe_completions('recv', 8, 'batch', 'batch', '', 100000000)", ""},
    {"completions recv sqpoll",
     "uringprobe_completions('recv', 100, 'each', 'each', 'sqpoll', 100000000)", ""},
    {"completions read",
     "uringprobe_completions('read', 1, 'batch', 'batch', '', 100000000, '{scratch}')", ""}};

const char kEventsAbout[] =
    "An event loop's cost per event (report 4), as Samba's local.event test: a byte on each "
    "of `pipes` pipes, wait until readable, read it. loop 'epoll', 'poll', 'uring_oneshot' "
    "(POLL_ADD re-armed per event and submitted before the next byte, so each poll waits and "
    "is woken), 'uring_multishot', either with '_defer' (DEFER_TASKRUN), or 'pg_waiteventset' "
    "(this backend's WaitEventSet). peer 'self': this backend writes the bytes once armed; "
    "'process': a child process writes them each time this backend, armed, asks (a "
    "cross-process ping-pong). enters: waiting (and arming) system calls made; armed_ready: "
    "io_uring polls that completed as they were armed (0: every poll waited). p50_us..max_us: "
    "per round (latency_histogram: every round, as low_ns:count buckets).";
const char kEventsAccess[] =
    "Rings, pipes and a forked peer: for those trusted to run programs as the server's user.";
const InProcess kEventsInProcess = {
    "events [options]",
    "events: a byte on each pipe (written by this process or a peer), wait until "
    "readable, read it (Samba's local.event):\n",
    run_events_in_process};
const std::vector<LongRun> kEventsLongRuns = {
    {"events epoll", "uringprobe_events('epoll', 2, 100000000)", ""},
    {"events multishot", "uringprobe_events('uring_multishot', 2, 100000000)", ""},
    {"events waiteventset", "uringprobe_events('pg_waiteventset', 2, 100000000)", ""},
    {"events oneshot, peer process", "uringprobe_events('uring_oneshot', 2, 100000000, 'process')",
     ""}};

const char kPostmasterAbout[] =
    "The postmaster as uringprobe_process sees it (its mappings and rings are what every fork "
    "copies).";
const char kPostmasterAccess[] = "Reading the server's processes: for monitoring.";

const char kBackendAbout[] = "This backend as uringprobe_process sees it.";
const char kBackendAccess[] = "Reading the server's processes: for monitoring.";
const char kMonitorAbout[] =
    "One row for exporters, read without I/O and without making a ring: the server's "
    "io_method; kernel.io_uring_disabled, seccomp, and what of them refuses io_uring to this "
    "backend for certain (NULL: nothing does; a seccomp filter may, which only "
    "uringprobe_environment(probe => true) shows); the ring layout and rings PostgreSQL 18 "
    "sets up at the server's settings and their memory; the io_uring fds and mappings the "
    "postmaster holds; RLIMIT_MEMLOCK and its margin over the rings' memory (what they lock "
    "where the kernel charges ring memory to it; NULL: unlimited).";
const char kMonitorAccess[] = "Reading the server's processes and limits: for monitoring.";

} // namespace

const std::vector<SqlFunction>& sql_functions() {
    static const std::vector<SqlFunction> all = {
        {"environment",
         kEnvironmentAbout,
         params_of_all(
             cli_only_rows(pg18_settings_params(), {"max_connections", "io_max_concurrency"}),
             environment_params()),
         environment_columns(),
         "",
         "pg_monitor",
         kEnvironmentAccess,
         {},
         {}},
        {"advise",
         kAdviseAbout,
         params_of_all(advise_params(), advise_cli_params(), cli_only_rows(pg18_settings_params())),
         advise_columns(),
         "",
         "pg_execute_server_program",
         kAdviseAccess,
         kAdviseLongRuns,
         {}},
        {"advise_script",
         kAdviseScriptAbout,
         params_of_all(advise_params(), advise_cli_params(), cli_only_rows(pg18_settings_params()),
                       script_source_params()),
         advice_script_columns(),
         "",
         "pg_execute_server_program",
         kAdviseAccess,
         kAdviseScriptLongRuns,
         {}},
        {"rings", kRingsAbout, params_of(rings_params()), rings_columns(), "",
         "pg_execute_server_program", kRingsAccess, kRingsLongRuns, kRingsInProcess},
        {"extend", kExtendAbout, params_of(extend_params()), extend_columns(), "",
         "pg_write_server_files", kExtendAccess, kExtendLongRuns, kExtendInProcess},
        {"reads", kReadsAbout, params_of(reads_params()), reads_columns(), "",
         "pg_execute_server_program", kReadsAccess, kReadsLongRuns, kReadsInProcess},
        {"completions", kCompletionsAbout, params_of(completions_params()), completions_columns(),
         "", "pg_execute_server_program", kCompletionsAccess, kCompletionsLongRuns,
         kCompletionsInProcess},
        {"events", kEventsAbout, params_of(events_params()), events_columns(), "",
         "pg_execute_server_program", kEventsAccess, kEventsLongRuns, kEventsInProcess},
        {"postmaster",
         kPostmasterAbout,
         {},
         process_columns(),
         "uringprobe_process",
         "pg_monitor",
         kPostmasterAccess,
         {},
         {}},
        {"backend",
         kBackendAbout,
         {},
         process_columns(),
         "uringprobe_process",
         "pg_monitor",
         kBackendAccess,
         {},
         {}},
        {"monitor",
         kMonitorAbout,
         {},
         monitor_columns(),
         "",
         "pg_monitor",
         kMonitorAccess,
         {},
         {},
         "0.2"},
    };
    return all;
}

const std::vector<std::string>& extension_versions() {
    static const std::vector<std::string> all = {"0.1", "0.2"};
    return all;
}

const SqlFunction& sql_function(const std::string& name) {
    for (const SqlFunction& f : sql_functions())
        if (f.name == name)
            return f;
    throw std::logic_error("no SQL function uringprobe_" + name);
}

namespace {

// The position of `version` among extension_versions() (InvalidArgument
// for one that is not there).
size_t version_index(const std::string& version) {
    const auto& all = extension_versions();
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i] == version)
            return i;
    throw InvalidArgument("uringprobe has no version '" + version + "'");
}

// The script of the entries added after version index `after` (-1: none)
// up to index `upto`, under its file's name.
std::string script(const std::string& file_name, long after, size_t upto) {
    const bool upgrade = after >= 0;
    std::string out = "/* " + file_name +
                      ": made by `uringprobe-cli sql` from the entries of\n"
                      "   src/engine/registry/sql_functions.cpp */\n\n";
    out += upgrade ? "-- complain if script is sourced in psql, rather than via ALTER EXTENSION\n"
                     "\\echo Use \"ALTER EXTENSION uringprobe UPDATE TO '" +
                         extension_versions()[upto] + "'\" to load this file. \\quit\n"
                   : "-- complain if script is sourced in psql, rather than via CREATE EXTENSION\n"
                     "\\echo Use \"CREATE EXTENSION uringprobe\" to load this file. \\quit\n";
    const auto added = [&](const std::string& since) {
        const long i = static_cast<long>(version_index(since));
        return i > after && i <= static_cast<long>(upto);
    };
    std::set<std::string> types_made;
    for (const SqlFunction& f : sql_functions()) {
        if (!added(f.since))
            continue;
        if (!f.row_type.empty() && types_made.insert(f.row_type).second)
            out += "\n" + create_type(f.row_type, f.columns);
        out += "\n" + create_function(f);
    }
    return out;
}

} // namespace

std::vector<std::string> extension_scripts() {
    const auto& all = extension_versions();
    std::vector<std::string> out;
    for (size_t i = 0; i < all.size(); ++i) {
        out.push_back("uringprobe--" + all[i] + ".sql");
        if (i + 1 < all.size())
            out.push_back("uringprobe--" + all[i] + "--" + all[i + 1] + ".sql");
    }
    return out;
}

std::string extension_script(const std::string& file_name) {
    const auto& all = extension_versions();
    for (size_t i = 0; i < all.size(); ++i) {
        if (file_name == "uringprobe--" + all[i] + ".sql")
            return script(file_name, -1, i);
        if (i + 1 < all.size() && file_name == "uringprobe--" + all[i] + "--" + all[i + 1] + ".sql")
            return script(file_name, static_cast<long>(i), i + 1);
    }
    throw InvalidArgument("uringprobe ships no script '" + file_name +
                          "' (uringprobe-cli sql --scripts lists them)");
}

std::string install_script() {
    return extension_script("uringprobe--" + extension_versions().back() + ".sql");
}

std::string long_runs_tsv() {
    std::string out;
    for (const SqlFunction& f : sql_functions())
        for (const LongRun& r : f.long_runs)
            out += r.label + "\t" + r.call + "\t" + r.warm_up + "\n";
    return out;
}

} // namespace uringprobe
