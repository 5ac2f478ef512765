#include "experiments/extend_experiment.hpp"

#include "contract/caps.hpp"
#include "contract/clock.hpp"
#include "contract/error.hpp"
#include "contract/stop_poll.hpp"
#include "experiments/extend_session.hpp"
#include "io/file_io.hpp"
#include "io/file_layout.hpp"
#include "io/scratch_file.hpp"
#include "io/session_threads.hpp"
#include "os/io_threads.hpp"
#include "os/system_info.hpp"

#include <atomic>
#include <chrono>
#include <climits>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <sys/stat.h>
#include <vector>

namespace uringprobe {

namespace {

constexpr int kMaxBlocks = 4096;

const NamedValue kStrategies[] = {{"fallocate", int(ExtendStrategy::fallocate)},
                                  {"write_zeros", int(ExtendStrategy::write_zeros)},
                                  {"mdzeroextend", int(ExtendStrategy::mdzeroextend)},
                                  {"write", int(ExtendStrategy::write)}};
const NamedValue kInterfaces[] = {{"sync", int(ExtendInterface::sync)},
                                  {"io_uring", int(ExtendInterface::io_uring)},
                                  {"io_uring_async", int(ExtendInterface::io_uring_async)}};
const NamedValue kSizings[] = {{"uniform", int(ExtendSizing::uniform)},
                               {"waiters", int(ExtendSizing::waiters)},
                               {"waiters_prior", int(ExtendSizing::waiters_prior)}};

// Size and content of a finished file: every block stamped with its
// number (data written) or all zeros.
std::string verify_file(int fd, std::uint64_t blocks, const ExtendParams& p) {
    struct stat st {};
    check_syscall(::fstat(fd, &st), "fstat");
    const std::uint64_t want = blocks * static_cast<std::uint64_t>(p.block_size);
    if (static_cast<std::uint64_t>(st.st_size) != want)
        return "size " + std::to_string(st.st_size) + " bytes, expected " + std::to_string(want);
    std::vector<char> got(static_cast<size_t>(p.block_size));
    std::vector<char> expect(static_cast<size_t>(p.block_size), 0);
    for (std::uint64_t b = 0; b < blocks; ++b) {
        size_t done = 0;
        while (done < got.size()) {
            const ssize_t n = ::pread(fd, got.data() + done, got.size() - done,
                                      static_cast<off_t>(b * p.block_size + done));
            check_syscall(n, "pread");
            if (n == 0)
                return "block " + std::to_string(b) + ": unexpected end of file";
            done += static_cast<size_t>(n);
        }
        if (p.write_data)
            stamp_page(expect.data(), p.block_size, b);
        if (std::memcmp(got.data(), expect.data(), got.size()) != 0)
            return "block " + std::to_string(b) + ": content differs from what was written";
    }
    return "ok";
}

} // namespace

ExtendStrategy parse_extend_strategy(const std::string& name) {
    return static_cast<ExtendStrategy>(lookup_name(kStrategies, "strategy", name));
}
ExtendInterface parse_extend_interface(const std::string& name) {
    return static_cast<ExtendInterface>(lookup_name(kInterfaces, "interface", name));
}
const char* to_string(ExtendStrategy s) {
    return name_of(kStrategies, int(s));
}
const char* to_string(ExtendInterface i) {
    return name_of(kInterfaces, int(i));
}
ExtendSizing parse_extend_sizing(const std::string& name) {
    return static_cast<ExtendSizing>(lookup_name(kSizings, "sizing", name));
}
const char* to_string(ExtendSizing s) {
    return name_of(kSizings, int(s));
}

int max_extension_blocks(const ExtendParams& p) {
    return p.sizing == ExtendSizing::uniform ? p.max_blocks : kMaxExtendBy;
}

namespace {

// --blocks N: min_blocks and max_blocks at once (the command line's alone;
// their rows check the range).
Param blocks_option() {
    Param p = integer_param("blocks", 0, 1, kMaxBlocks, "min_blocks and max_blocks at once");
    p.default_sql = "NULL";
    return p.cli_only();
}

} // namespace

const ParamTable<ExtendParams>& extend_params() {
    using P = ExtendParams;
    static const ParamTable<P> table = {
        scratch_dir_row<P>("the scratch directory (SQL: NULL for the first allowed)"),
        parsed_row<P, &P::strategy, parse_extend_strategy>(
            text_param("strategy", "'mdzeroextend'", "fallocate|write_zeros|mdzeroextend|write",
                       "how each extension grows the file")),
        parsed_row<P, &P::interface, parse_extend_interface>(
            text_param("interface", "'sync'", "sync|io_uring|io_uring_async",
                       "plain syscalls, or a ring per session; io_uring_async sends each "
                       "request to an io-wq worker")),
        number_row<P, &P::min_blocks>(
            integer_param("min_blocks", 1, 1, kMaxBlocks, "blocks per extension, at least")),
        number_row<P, &P::max_blocks>(
            integer_param("max_blocks", 64, 1, kMaxBlocks,
                          "blocks per extension, at most (drawn uniformly between)")
                .range_checked_by_experiment()),
        {blocks_option(),
         [](P& p, const ParamValue& v) {
             if (!v.null)
                 p.min_blocks = p.max_blocks = static_cast<int>(v.i);
         },
         nullptr},
        number_row<P, &P::total_mb>(integer_param("total_mb", 64, 1, kMaxScratchMb.default_value,
                                                  "megabytes extended by the whole call")
                                        .capped_by(kMaxScratchMb.name)),
        boolean_row<P, &P::write_data>(
            boolean_param("write_data", false, "write each new block after extending")),
        number_row<P, &P::sessions>(
            integer_param("sessions", 1, 1, 64, "sessions (threads) extending at once")),
        boolean_row<P, &P::shared>(
            boolean_param("shared", true, "all sessions extend one file (false: one file each)")
                .cli_option("--separate-files", "one file per session (else all extend one)")),
        {bigint_param("seed", 1, LLONG_MIN, LLONG_MAX, "seeds the extension sizes' generator"),
         [](P& p, const ParamValue& v) { p.seed = static_cast<std::uint64_t>(v.i); }, nullptr},
        number_row<P, &P::block_size>(
            integer_param("block_size", 8192, 512, 1 << 20, "bytes per block").powers_of_two()),
        boolean_row<P, &P::verify>(
            boolean_param("verify", false, "read the files back and check size and content")),
        parsed_row<P, &P::sizing, parse_extend_sizing>(
            text_param("sizing", "'uniform'", "uniform|waiters|waiters_prior",
                       "extension sizes drawn between min_blocks and max_blocks, or PostgreSQL "
                       "16's rule: pages x (1 + sessions waiting), before its fix (waiters) "
                       "or with it (waiters_prior: at least the session's blocks so far); "
                       "at most 64")),
        number_row<P, &P::pages>(
            integer_param("pages", 8, 1, kMaxExtendBy,
                          "waiters sizing: the pages one extension needs (a COPY batch's)")),
        number_row<P, &P::write_batch>(
            integer_param("write_batch", 1, 1, FileIo::kMaxIov,
                          "write_data: pages per data write, one pwritev or one "
                          "IORING_OP_WRITEV each, waited for before the next")),
    };
    return table;
}

ExtendParams::ExtendParams() {
    set_defaults(extend_params(), *this);
}

void validate(const ExtendParams& p, const Caps& caps) {
    check_ranges(extend_params(), p, caps);
    check_range("max_blocks", p.max_blocks, p.min_blocks, kMaxBlocks);
    // the largest extension: max_blocks, or 64 with a waiters sizing
    const std::string largest = p.sizing == ExtendSizing::uniform ? "max_blocks" : "64";
    const long long extension_bytes =
        static_cast<long long>(max_extension_blocks(p)) * p.block_size;
    if (extension_bytes > (64LL << 20))
        throw InvalidArgument(largest + " x block_size must be at most 64 MiB, got " +
                              (extension_bytes % (1LL << 20)
                                   ? std::to_string(extension_bytes >> 10) + " KiB"
                                   : std::to_string(extension_bytes >> 20) + " MiB"));
    if (p.write_data)
        check_memory("with write_data, sessions x " + largest +
                         " x block_size (each session holds one extension's pages)",
                     p.sessions * extension_bytes, caps);
    const long long total_blocks = (static_cast<long long>(p.total_mb) << 20) / p.block_size;
    if (!p.shared && total_blocks < p.sessions)
        throw InvalidArgument("total_mb = " + std::to_string(p.total_mb) + " is too small for " +
                              std::to_string(p.sessions) + " files of at least one block");
}

namespace {

// The files and who extends which: one shared file, or one per session,
// total_mb split between them; all created before the clock starts.
std::vector<std::unique_ptr<Target>> extend_targets(const ExtendParams& p, const ScratchDir& dir) {
    const std::uint64_t total_blocks =
        (static_cast<std::uint64_t>(p.total_mb) << 20) / static_cast<std::uint64_t>(p.block_size);
    const int nfiles = p.shared ? 1 : p.sessions;
    std::vector<std::unique_ptr<Target>> targets;
    for (int f = 0; f < nfiles; ++f) {
        auto t = std::make_unique<Target>();
        t->file = std::make_shared<ScratchFile>(dir);
        t->quota_blocks = total_blocks / static_cast<std::uint64_t>(nfiles) +
                          (static_cast<std::uint64_t>(f) < total_blocks % nfiles ? 1 : 0);
        targets.push_back(std::move(t));
    }
    return targets;
}

// What the sessions did, added into r.
void add_sessions(const std::vector<SessionResult>& sessions, const ExtendParams& p,
                  ExtendResult& r) {
    for (const SessionResult& s : sessions) {
        r.extensions += s.extensions;
        r.fallocate_calls += s.fallocates;
        r.zero_write_calls += s.zero_writes;
        r.data_write_calls += s.data_writes;
        r.bytes += s.blocks * static_cast<std::uint64_t>(p.block_size);
        r.latency.merge(s.latency);
        r.sizes.resize(std::max(r.sizes.size(), s.sizes.size()));
        for (size_t n = 0; n < s.sizes.size(); ++n)
            r.sizes[n] += s.sizes[n];
        r.lock_wait_ms += s.lock_wait_ms;
        r.usage.nvcsw += s.nvcsw;
        r.usage.nivcsw += s.nivcsw;
    }
}

// The files as the run left them: their sizes, the switches between
// fallocate and zeros, the extents and, when asked, their content
// (neither after a stop: the files are then partly written).
void inspect_files(const std::vector<std::unique_ptr<Target>>& targets, const ExtendParams& p,
                   bool stopped, ExtendResult& r) {
    r.verified = "not checked";
    long extents = 0;
    for (const auto& t : targets) {
        r.switches += t->switches;
        struct stat st {};
        check_syscall(::fstat(t->file->fd(), &st), "fstat");
        r.file_bytes += static_cast<std::uint64_t>(st.st_size);
        if (p.verify && !stopped) {
            const std::string v = verify_file(t->file->fd(), t->quota_blocks, p);
            if (r.verified == "not checked" || r.verified == "ok")
                r.verified = v;
        }
        if (extents >= 0 && !stopped) {
            const long e = extent_count(t->file->fd());
            extents = e < 0 ? -1 : extents + e;
        }
    }
    r.extents = stopped ? -1 : extents;
}

} // namespace

ExtendResult run_extend(const ExtendParams& p, const std::vector<std::string>& allowed,
                        const std::function<bool()>& should_stop) {
    ExtendResult r;
    r.params = p;
    const ScratchDir dir(p.dir, allowed);
    r.stale_removed = dir.remove_stale_files();
    r.filesystem = filesystem_type(dir.path());
    const std::vector<std::unique_ptr<Target>> targets = extend_targets(p, dir);
    std::atomic<bool> stop{false};
    std::vector<std::unique_ptr<Session>> sessions;
    for (int s = 0; s < p.sessions; ++s)
        sessions.push_back(
            std::make_unique<Session>(p, *targets[p.shared ? 0 : size_t(s)], s, stop));

    std::optional<IoThreadSampler> workers;
    if (p.interface != ExtendInterface::sync)
        workers.emplace();
    const UsageMeter usage(RUSAGE_SELF);
    const std::int64_t t0 = now_ns();
    SessionThreads<Session> threads(sessions);
    // Wait, sampling the io-wq workers and passing a stop request on. The
    // sessions' threads stay alive until released: their io-wq workers
    // exit with them, and the last sample must still see them.
    StopPoll stop_poll(should_stop);
    while (!threads.wait_all_done(std::chrono::milliseconds(20))) {
        if (workers)
            workers->sample();
        try {
            if (!stop && stop_poll.poll_now()) // every 20 ms
                stop = true;
        } catch (...) {
            stop = true; // the sessions stop before the error goes up
            throw;
        }
    }
    r.seconds = (now_ns() - t0) / 1e9;
    if (workers)
        workers->sample();
    threads.release_and_join();
    r.usage = usage.delta();
    r.usage.nvcsw = r.usage.nivcsw = 0;
    add_sessions(threads.results(), p, r);
    if (std::exception_ptr failure = threads.failure())
        std::rethrow_exception(failure); // the files go with `targets`
    if (workers) {
        r.iowq_workers = workers->workers_seen();
        r.iowq_cpu_ms = workers->cpu_ms();
    }
    if (stop)
        r.outcome = Outcome::stopped();
    inspect_files(targets, p, stop, r);
    return r;
}

std::vector<Column> extend_columns() {
    return experiment_columns({text_column("strategy"),
                               text_column("interface"),
                               bigint_column("sessions"),
                               text_column("shared"),
                               bigint_column("min_blocks"),
                               bigint_column("max_blocks"),
                               bigint_column("block_size"),
                               text_column("write_data"),
                               bigint_column("bytes"),
                               real_column("mb_per_sec"),
                               bigint_column("fallocates"),
                               bigint_column("zero_writes"),
                               bigint_column("data_writes"),
                               real_column("lock_wait_ms"),
                               bigint_column("iowq_workers"),
                               real_column("iowq_cpu_ms"),
                               text_column("filesystem"),
                               bigint_column("extents"),
                               bigint_column("file_bytes"),
                               text_column("verified"),
                               bigint_column("stale_removed"),
                               text_column("sizing"),
                               bigint_column("pages"),
                               bigint_column("switches"),
                               real_column("mean_extension_blocks"),
                               text_column("size_histogram"),
                               bigint_column("write_batch"),
                               text_column("latency_histogram")});
}

Table extend_table(const ExtendResult& r) {
    const ExtendParams& p = r.params;
    Table t{extend_columns(), {}};
    std::string sizes; // "blocks:count" of every size that occurred
    for (size_t n = 0; n < r.sizes.size(); ++n)
        if (r.sizes[n])
            sizes +=
                (sizes.empty() ? "" : ",") + std::to_string(n) + ":" + std::to_string(r.sizes[n]);
    const auto opt = [](long v) { return v < 0 ? Value::null() : Value::integer(v); };
    add_row(t,
            {"extend", std::string(to_string(p.strategy)) + "/" + to_string(p.interface), r.outcome,
             r.extensions, r.seconds, &r.latency, r.usage},
            {Value::text(to_string(p.strategy)),
             Value::text(to_string(p.interface)),
             Value::integer(p.sessions),
             Value::text(p.shared ? "yes" : "no"),
             Value::integer(p.min_blocks),
             Value::integer(p.max_blocks),
             Value::integer(p.block_size),
             Value::text(p.write_data ? "yes" : "no"),
             Value::integer(static_cast<std::int64_t>(r.bytes)),
             ratio(r.bytes / 1048576.0, r.seconds),
             Value::integer(r.fallocate_calls),
             Value::integer(r.zero_write_calls),
             Value::integer(r.data_write_calls),
             Value::real(r.lock_wait_ms),
             opt(r.iowq_workers),
             r.iowq_workers < 0 ? Value::null() : Value::real(r.iowq_cpu_ms),
             Value::text(r.filesystem),
             opt(r.extents),
             Value::integer(static_cast<std::int64_t>(r.file_bytes)),
             Value::text(r.verified),
             Value::integer(r.stale_removed),
             Value::text(to_string(p.sizing)),
             Value::integer(p.pages),
             Value::integer(r.switches),
             ratio(static_cast<double>(r.bytes / static_cast<std::uint64_t>(p.block_size)),
                   static_cast<double>(r.extensions)),
             Value::text(sizes),
             Value::integer(p.write_batch),
             Value::text(r.latency.encoded())});
    return t;
}

Table run_extend_in_process(const GivenParams& given, const std::function<bool()>& should_stop) {
    ExtendParams p = params_from(extend_params(), given);
    p.dir = own_scratch_dir(p.dir, true, "extend needs --dir DIR");
    validate(p, {});
    return extend_table(run_extend(p, {p.dir}, should_stop));
}

} // namespace uringprobe
