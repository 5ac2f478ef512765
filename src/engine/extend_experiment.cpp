#include "extend_experiment.hpp"

#include "clock.hpp"
#include "error.hpp"
#include "file_layout.hpp"
#include "io_threads.hpp"
#include "params.hpp"
#include "ring.hpp"
#include "scratch_file.hpp"
#include "stop_poll.hpp"
#include "system_info.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <liburing.h>
#include <memory>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <random>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <thread>
#include <vector>

namespace uringprobe {

namespace {

constexpr int kMaxIov = 128;         // iovecs per zero write, as PostgreSQL's PG_IOV_MAX
constexpr unsigned kDepth = 64;      // SQEs per session ring
constexpr int kZeroExtendCutoff = 8; // mdzeroextend: more blocks than this -> fallocate
constexpr int kMaxBlocks = 4096;
constexpr std::uint64_t kStamp = 0x75726970726f6265ULL; // "uringpro be"

const NamedValue kStrategies[] = {{"fallocate", int(ExtendStrategy::fallocate)},
                                  {"write_zeros", int(ExtendStrategy::write_zeros)},
                                  {"mdzeroextend", int(ExtendStrategy::mdzeroextend)},
                                  {"write", int(ExtendStrategy::write)}};
const NamedValue kInterfaces[] = {{"sync", int(ExtendInterface::sync)},
                                  {"io_uring", int(ExtendInterface::io_uring)},
                                  {"io_uring_async", int(ExtendInterface::io_uring_async)}};

// Blocks the calling thread's signals for its lifetime: threads created
// meanwhile inherit the full mask, so every signal goes to the caller.
class AllSignalsBlocked {
public:
    AllSignalsBlocked() {
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old_);
    }
    ~AllSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
    AllSignalsBlocked(const AllSignalsBlocked&) = delete;
    AllSignalsBlocked& operator=(const AllSignalsBlocked&) = delete;

private:
    sigset_t old_;
};

// Moves `iov` forward past `done` bytes.
void advance(std::vector<iovec>& iov, size_t done) {
    size_t i = 0;
    while (i < iov.size() && done >= iov[i].iov_len)
        done -= iov[i++].iov_len;
    iov.erase(iov.begin(), iov.begin() + static_cast<long>(i));
    if (!iov.empty() && done) {
        iov[0].iov_base = static_cast<char*>(iov[0].iov_base) + done;
        iov[0].iov_len -= done;
    }
}

// One session's way to the kernel: plain syscalls, or its own ring with
// every operation submitted and waited for (IOSQE_ASYNC on each SQE for
// io_uring_async, which sends it straight to an io-wq worker).
class FileIo {
public:
    explicit FileIo(ExtendInterface iface) : iface_(iface) {
        if (iface_ != ExtendInterface::sync)
            ring_.emplace(kDepth, 0);
    }

    void fallocate(int fd, off_t off, off_t len) {
        if (!ring_) {
            const int err = ::posix_fallocate(fd, off, len);
            if (err)
                throw SysError(err, "posix_fallocate");
            return;
        }
        io_uring_prep_fallocate(sqe(), fd, 0, static_cast<__u64>(off), static_cast<__u64>(len));
        check_neg_errno(submit_and_wait(1, nullptr), "io_uring fallocate");
    }

    // `count` iovecs at `off`, continuing after short writes. The iovecs
    // are copied into a buffer the session keeps, so the timed path does
    // not allocate.
    void writev_all(int fd, const iovec* iov, size_t count, off_t off) {
        pending_.assign(iov, iov + count);
        while (!pending_.empty()) {
            const int n = std::min<int>(static_cast<int>(pending_.size()), kMaxIov);
            long done;
            if (!ring_) {
                done = check_syscall(::pwritev(fd, pending_.data(), n, off), "pwritev");
            } else {
                io_uring_prep_writev(sqe(), fd, pending_.data(), static_cast<unsigned>(n),
                                     static_cast<__u64>(off));
                done = check_neg_errno(submit_and_wait(1, nullptr), "io_uring writev");
            }
            if (done == 0)
                throw SysError(ENOSPC, ring_ ? "io_uring writev" : "pwritev");
            advance(pending_, static_cast<size_t>(done));
            off += done;
        }
    }
    void write_all(int fd, const char* buf, size_t len, off_t off) {
        const iovec one{const_cast<char*>(buf), len};
        writev_all(fd, &one, 1, off);
    }

    // Page `i` of `pages` at `off + i * block_size`: one write each, as a
    // buffer manager writes pages; through a ring, submitted in batches.
    void write_pages(int fd, const char* pages, int count, int block_size, off_t off) {
        if (!ring_) {
            for (int i = 0; i < count; ++i)
                write_all(fd, pages + size_t(i) * block_size, size_t(block_size),
                          off + off_t(i) * block_size);
            return;
        }
        for (int first = 0; first < count; first += kDepth) {
            const int batch = std::min<int>(count - first, kDepth);
            for (int i = first; i < first + batch; ++i)
                io_uring_prep_write(sqe(), fd, pages + size_t(i) * block_size,
                                    static_cast<unsigned>(block_size),
                                    static_cast<__u64>(off + off_t(i) * block_size));
            std::array<int, kDepth> res{};
            submit_and_wait(batch, res.data());
            for (int i = 0; i < batch; ++i) {
                if (res[size_t(i)] < 0)
                    throw SysError(-res[size_t(i)], "io_uring write");
                if (res[size_t(i)] < block_size) { // finish a short write the plain way
                    const size_t done = size_t(res[size_t(i)]);
                    write_all(fd, pages + size_t(first + i) * block_size + done,
                              size_t(block_size) - done,
                              off + off_t(first + i) * block_size + off_t(done));
                }
            }
        }
    }

private:
    io_uring_sqe* sqe() {
        io_uring_sqe* s = io_uring_get_sqe(ring_->get());
        if (!s)
            throw SysError(EBUSY, "io_uring_get_sqe");
        s->user_data = next_tag_++;
        if (iface_ == ExtendInterface::io_uring_async)
            s->flags |= IOSQE_ASYNC;
        return s;
    }

    // Submits what was prepared (`count` SQEs tagged from first_tag_) and
    // waits for all of them; the result of the i-th goes to res[i]. Returns
    // the first result. Every completion is reaped before returning, also
    // when the submission fails half-way, so no buffer is left in flight.
    int submit_and_wait(int count, int* res) {
        io_uring* r = ring_->get();
        int submitted = io_uring_submit(r);
        const int submit_err = submitted < 0 ? submitted : 0;
        if (submitted < 0)
            submitted = 0;
        int first = 0;
        for (int seen = 0; seen < submitted; ++seen) {
            io_uring_cqe* cqe = nullptr;
            int ret;
            do
                ret = io_uring_wait_cqe(r, &cqe);
            while (ret == -EINTR);
            check_neg_errno(ret, "io_uring_wait_cqe");
            const auto idx = static_cast<int>(cqe->user_data - first_tag_);
            if (res && idx >= 0 && idx < count)
                res[idx] = cqe->res;
            if (idx == 0)
                first = cqe->res;
            io_uring_cqe_seen(r, cqe);
        }
        first_tag_ = next_tag_;
        check_neg_errno(submit_err, "io_uring_submit");
        if (submitted < count)
            throw SysError(EAGAIN, "io_uring_submit (fewer SQEs submitted than prepared)");
        return first;
    }

    ExtendInterface iface_;
    std::optional<Ring> ring_;
    std::uint64_t next_tag_ = 0;
    std::uint64_t first_tag_ = 0;
    std::vector<iovec> pending_; // what writev_all has still to write
};

void stamp_page(char* page, int block_size, std::uint64_t block) {
    std::memset(page, static_cast<int>((block & 0xff) | 1), static_cast<size_t>(block_size));
    std::memcpy(page, &block, sizeof block);
    std::memcpy(page + sizeof block, &kStamp, sizeof kStamp);
}

// One file being extended, and the lock its sessions take to extend it.
struct Target {
    std::shared_ptr<ScratchFile> file;
    std::uint64_t quota_blocks = 0; // the file's final size
    std::mutex lock;
    std::uint64_t next_block = 0; // under lock
};

struct SessionResult {
    long extensions = 0, fallocates = 0, zero_writes = 0, data_writes = 0;
    std::uint64_t blocks = 0;
    LatencyHistogram latency;
    double lock_wait_ms = 0;
    long nvcsw = 0, nivcsw = 0;
};

class Session {
public:
    Session(const ExtendParams& p, Target& target, int index, std::atomic<bool>& stop)
        : p_(p), target_(target), stop_(stop), io_(p.interface), fd_(target.file->reopen()),
          rng_(p.seed * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(index) + 1),
          zeros_(static_cast<size_t>(p.block_size), 0),
          zero_iov_(static_cast<size_t>(p.max_blocks), iovec{zeros_.data(), zeros_.size()}),
          pages_(p.write_data ? static_cast<size_t>(p.max_blocks) * p.block_size : 0) {}

    void stop() { stop_ = true; }

    // A failing session stops the others.
    SessionResult run() {
        try {
            return run_until_done();
        } catch (...) {
            stop_ = true;
            throw;
        }
    }

private:
    SessionResult run_until_done() {
        rusage before{}, after{};
        getrusage(RUSAGE_THREAD, &before);
        while (!stop_.load(std::memory_order_relaxed)) {
            std::uint64_t first = 0;
            int n = 0;
            {
                const std::int64_t t0 = now_ns();
                std::lock_guard<std::mutex> guard(target_.lock);
                const std::int64_t t1 = now_ns();
                if (p_.shared)
                    r_.lock_wait_ms += (t1 - t0) / 1e6;
                if (target_.next_block >= target_.quota_blocks)
                    break;
                n = static_cast<int>(
                    std::min<std::uint64_t>(draw(), target_.quota_blocks - target_.next_block));
                first = target_.next_block;
                extend(first, n);
                r_.latency.record(now_ns() - t1);
                target_.next_block += static_cast<std::uint64_t>(n);
            }
            ++r_.extensions;
            r_.blocks += static_cast<std::uint64_t>(n);
            if (p_.write_data)
                write_data(first, n);
        }
        getrusage(RUSAGE_THREAD, &after);
        r_.nvcsw = after.ru_nvcsw - before.ru_nvcsw;
        r_.nivcsw = after.ru_nivcsw - before.ru_nivcsw;
        return r_;
    }

    std::uint64_t draw() {
        const auto span = static_cast<std::uint64_t>(p_.max_blocks - p_.min_blocks + 1);
        return static_cast<std::uint64_t>(p_.min_blocks) + rng_() % span;
    }

    off_t offset(std::uint64_t block) const { return static_cast<off_t>(block) * p_.block_size; }

    void extend(std::uint64_t first, int n) {
        const bool fallocate =
            p_.strategy == ExtendStrategy::fallocate ||
            (p_.strategy == ExtendStrategy::mdzeroextend && n > kZeroExtendCutoff);
        if (fallocate) {
            io_.fallocate(fd_.get(), offset(first), offset(static_cast<std::uint64_t>(n)));
            ++r_.fallocates;
        } else if (p_.strategy == ExtendStrategy::write) {
            for (int i = 0; i < n; ++i) {
                io_.write_all(fd_.get(), zeros_.data(), zeros_.size(),
                              offset(first + static_cast<std::uint64_t>(i)));
                ++r_.zero_writes;
            }
        } else {
            r_.zero_writes += (n + kMaxIov - 1) / kMaxIov;
            io_.writev_all(fd_.get(), zero_iov_.data(), static_cast<size_t>(n), offset(first));
        }
    }

    void write_data(std::uint64_t first, int n) {
        for (int i = 0; i < n; ++i)
            stamp_page(pages_.data() + size_t(i) * p_.block_size, p_.block_size,
                       first + static_cast<std::uint64_t>(i));
        io_.write_pages(fd_.get(), pages_.data(), n, p_.block_size, offset(first));
        r_.data_writes += n;
    }

    const ExtendParams& p_;
    Target& target_;
    std::atomic<bool>& stop_;
    FileIo io_;
    Fd fd_;
    std::mt19937_64 rng_;
    std::vector<char> zeros_;
    std::vector<iovec> zero_iov_; // max_blocks times the zero block
    std::vector<char> pages_;
    SessionResult r_;
};

// Runs every session on its own thread (created with all signals blocked,
// so signals keep going to the caller), keeps each thread alive after its
// session ends until released, and joins them all however the caller exits.
class SessionThreads {
public:
    explicit SessionThreads(std::vector<std::unique_ptr<Session>>& sessions)
        : results_(sessions.size()) {
        const AllSignalsBlocked blocked;
        try {
            for (size_t i = 0; i < sessions.size(); ++i)
                threads_.emplace_back([this, i, s = sessions[i].get()] { body(i, *s); });
        } catch (...) {
            std::lock_guard<std::mutex> g(mu_);
            if (!failure_)
                failure_ = std::current_exception();
            done_ += sessions.size() - threads_.size(); // never started
            for (auto& s : sessions)
                s->stop();
        }
    }
    ~SessionThreads() { release_and_join(); }
    SessionThreads(const SessionThreads&) = delete;
    SessionThreads& operator=(const SessionThreads&) = delete;

    bool wait_all_done(std::chrono::milliseconds timeout) {
        std::unique_lock<std::mutex> g(mu_);
        return cv_.wait_for(g, timeout, [this] { return done_ == results_.size(); });
    }
    void release_and_join() {
        {
            std::lock_guard<std::mutex> g(mu_);
            released_ = true;
        }
        cv_.notify_all();
        for (auto& t : threads_)
            if (t.joinable())
                t.join();
    }
    // After release_and_join(): the first failure, and every result.
    std::exception_ptr failure() const { return failure_; }
    const std::vector<SessionResult>& results() const { return results_; }

private:
    void body(size_t i, Session& s) {
        SessionResult r;
        std::exception_ptr err;
        try {
            r = s.run();
        } catch (...) {
            err = std::current_exception();
        }
        std::unique_lock<std::mutex> g(mu_);
        results_[i] = std::move(r);
        if (err && !failure_)
            failure_ = err;
        ++done_;
        cv_.notify_all();
        cv_.wait(g, [this] { return released_; });
    }

    std::vector<SessionResult> results_;
    std::vector<std::thread> threads_;
    std::mutex mu_;
    std::condition_variable cv_;
    size_t done_ = 0;
    bool released_ = false;
    std::exception_ptr failure_;
};

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

const ParamTable<ExtendParams>& extend_params() {
    using P = ExtendParams;
    static const ParamTable<P> table = {
        {text_param("dir", "NULL", "", "the scratch directory (SQL: NULL for the first allowed)"),
         [](P& p, const ParamValue& v) {
             p.dir = v.s;
             p.dir_given = !v.null;
         },
         nullptr},
        {text_param("strategy", "'mdzeroextend'", "fallocate|write_zeros|mdzeroextend|write",
                    "how each extension grows the file"),
         [](P& p, const ParamValue& v) { p.strategy = parse_extend_strategy(v.s); }, nullptr},
        {text_param("interface", "'sync'", "sync|io_uring|io_uring_async",
                    "plain syscalls, or a ring per session; io_uring_async sends each "
                    "request to an io-wq worker"),
         [](P& p, const ParamValue& v) { p.interface = parse_extend_interface(v.s); }, nullptr},
        {integer_param("min_blocks", 1, 1, kMaxBlocks, "blocks per extension, at least"),
         [](P& p, const ParamValue& v) { p.min_blocks = int(v.i); },
         [](const P& p) { return (long long)p.min_blocks; }},
        {integer_param("max_blocks", 64, 1, kMaxBlocks,
                       "blocks per extension, at most (drawn uniformly between)")
             .range_checked_by_experiment(),
         [](P& p, const ParamValue& v) { p.max_blocks = int(v.i); },
         [](const P& p) { return (long long)p.max_blocks; }},
        {integer_param("total_mb", 64, 1, 1024, "megabytes extended by the whole call")
             .capped_by("uringprobe.max_scratch_mb"),
         [](P& p, const ParamValue& v) { p.total_mb = int(v.i); },
         [](const P& p) { return (long long)p.total_mb; }},
        {boolean_param("write_data", false, "write each new block after extending"),
         [](P& p, const ParamValue& v) { p.write_data = v.b; }, nullptr},
        {integer_param("sessions", 1, 1, 64, "sessions (threads) extending at once"),
         [](P& p, const ParamValue& v) { p.sessions = int(v.i); },
         [](const P& p) { return (long long)p.sessions; }},
        {boolean_param("shared", true, "all sessions extend one file (false: one file each)")
             .cli_option("--separate-files", "one file per session (else all extend one)"),
         [](P& p, const ParamValue& v) { p.shared = v.b; }, nullptr},
        {bigint_param("seed", 1, LLONG_MIN, LLONG_MAX, "seeds the extension sizes' generator"),
         [](P& p, const ParamValue& v) { p.seed = static_cast<std::uint64_t>(v.i); }, nullptr},
        {integer_param("block_size", 8192, 512, 1 << 20, "bytes per block").powers_of_two(),
         [](P& p, const ParamValue& v) { p.block_size = int(v.i); },
         [](const P& p) { return (long long)p.block_size; }},
        {boolean_param("verify", false, "read the files back and check size and content"),
         [](P& p, const ParamValue& v) { p.verify = v.b; }, nullptr},
    };
    return table;
}

ExtendParams::ExtendParams() {
    set_defaults(extend_params(), *this);
}

void validate(const ExtendParams& p, const Caps& caps) {
    check_ranges(extend_params(), p, caps);
    check_range("max_blocks", p.max_blocks, p.min_blocks, kMaxBlocks);
    const long long extension_mib = (static_cast<long long>(p.max_blocks) * p.block_size) >> 20;
    if (extension_mib > 64)
        throw InvalidArgument("max_blocks x block_size must be at most 64 MiB, got " +
                              std::to_string(extension_mib) + " MiB");
    if (p.write_data && p.sessions * extension_mib > 1024)
        throw InvalidArgument("with write_data, sessions x max_blocks x block_size must be at "
                              "most 1024 MiB (each session holds one extension's pages), got " +
                              std::to_string(p.sessions * extension_mib) + " MiB");
    const long long total_blocks = (static_cast<long long>(p.total_mb) << 20) / p.block_size;
    if (!p.shared && total_blocks < p.sessions)
        throw InvalidArgument("total_mb = " + std::to_string(p.total_mb) + " is too small for " +
                              std::to_string(p.sessions) + " files of at least one block");
}

ExtendResult run_extend(const ExtendParams& p, const std::vector<std::string>& allowed,
                        const std::function<bool()>& should_stop) {
    ExtendResult r;
    r.params = p;
    const ScratchDir dir(p.dir, allowed);
    r.stale_removed = dir.remove_stale_files();
    r.filesystem = filesystem_type(dir.path());

    // The files and who extends which, all created before the clock starts.
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
    SessionThreads threads(sessions);
    // Wait, sampling the io-wq workers and passing a stop request on. The
    // sessions' threads stay alive until released: their io-wq workers
    // exit with them, and the last sample must still see them.
    StopPoll stop_poll(should_stop);
    while (!threads.wait_all_done(std::chrono::milliseconds(20))) {
        if (workers)
            workers->sample();
        if (!stop && stop_poll.poll_now()) // every 20 ms
            stop = true;
    }
    r.seconds = (now_ns() - t0) / 1e9;
    if (workers)
        workers->sample();
    threads.release_and_join();
    r.usage = usage.delta();
    r.usage.nvcsw = r.usage.nivcsw = 0;
    std::exception_ptr failure = threads.failure();
    for (const SessionResult& s : threads.results()) {
        r.extensions += s.extensions;
        r.fallocate_calls += s.fallocates;
        r.zero_write_calls += s.zero_writes;
        r.data_write_calls += s.data_writes;
        r.bytes += s.blocks * static_cast<std::uint64_t>(p.block_size);
        r.latency.merge(s.latency);
        r.lock_wait_ms += s.lock_wait_ms;
        r.usage.nvcsw += s.nvcsw;
        r.usage.nivcsw += s.nivcsw;
    }
    if (failure)
        std::rethrow_exception(failure); // the files go with `targets`
    if (workers) {
        r.iowq_workers = workers->workers_seen();
        r.iowq_cpu_ms = workers->cpu_ms();
    }
    if (stop)
        r.outcome = Outcome::stopped();
    r.verified = "not checked";
    long extents = 0;
    for (const auto& t : targets) {
        struct stat st {};
        check_syscall(::fstat(t->file->fd(), &st), "fstat");
        r.file_bytes += static_cast<std::uint64_t>(st.st_size);
        if (p.verify && !stop) {
            const std::string v = verify_file(t->file->fd(), t->quota_blocks, p);
            if (r.verified == "not checked" || r.verified == "ok")
                r.verified = v;
        }
        if (extents >= 0 && !stop) {
            const long e = extent_count(t->file->fd());
            extents = e < 0 ? -1 : extents + e;
        }
    }
    r.extents = stop ? -1 : extents;
    return r;
}

Table extend_table(const ExtendResult& r) {
    const ExtendParams& p = r.params;
    Table t = experiment_table({"strategy",      "interface",        "sessions",     "shared",
                                "min_blocks",    "max_blocks",       "block_size",   "write_data",
                                "bytes",         "mb_per_sec",       "fallocates",   "zero_writes",
                                "data_writes",   "lock_wait_ms",     "iowq_workers", "iowq_cpu_ms",
                                "filesystem",    "extents",          "file_bytes",   "verified",
                                "stale_removed", "latency_histogram"});
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
             Value::text(r.latency.encoded())});
    return t;
}

} // namespace uringprobe
