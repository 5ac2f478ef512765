#include "experiments/reads_experiment.hpp"

#include "contract/caps.hpp"
#include "contract/clock.hpp"
#include "contract/error.hpp"
#include "contract/params.hpp"
#include "contract/stop_poll.hpp"
#include "io/pread.hpp"
#include "io/read_order.hpp"
#include "io/scratch_file.hpp"
#include "io/session_threads.hpp"
#include "os/fd.hpp"
#include "os/io_threads.hpp"
#include "os/signals.hpp"
#include "uring/ring.hpp"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <memory>
#include <mutex>
#include <optional>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace uringprobe {

namespace {

constexpr int kMaxWorkers = 32; // PostgreSQL's io_workers range
constexpr size_t kAlign = 4096; // O_DIRECT buffers and offsets
constexpr size_t kWriteChunk = 1 << 20;

const NamedValue kMethods[] = {{"sync", int(ReadMethod::sync)},
                               {"sync_fadvise", int(ReadMethod::sync_fadvise)},
                               {"sync_sequential", int(ReadMethod::sync_sequential)},
                               {"io_uring", int(ReadMethod::io_uring)},
                               {"workers", int(ReadMethod::workers)}};
const NamedValue kPatterns[] = {{"sequential", int(ReadPattern::sequential)},
                                {"random", int(ReadPattern::random)}};
const NamedValue kCacheStates[] = {{"cold", int(CacheState::cold)},
                                   {"warm", int(CacheState::warm)}};

} // namespace

ReadMethod parse_read_method(const std::string& name) {
    return static_cast<ReadMethod>(lookup_name(kMethods, "method", name));
}
ReadPattern parse_read_pattern(const std::string& name) {
    return static_cast<ReadPattern>(lookup_name(kPatterns, "pattern", name));
}
CacheState parse_cache_state(const std::string& name) {
    return static_cast<CacheState>(lookup_name(kCacheStates, "cache", name));
}
const char* read_method_name(ReadMethod m) {
    return name_of(kMethods, int(m));
}

const ParamTable<ReadsParams>& reads_params() {
    using P = ReadsParams;
    static const ParamTable<P> table = {
        parsed_row<P, &P::method, parse_read_method>(
            text_param("method", "'sync'", "sync|sync_fadvise|sync_sequential|io_uring|workers",
                       "pread one at a time; pread with WILLNEED advice ahead; pread with the "
                       "kernel's readahead doubled (SEQUENTIAL advice); reads kept in flight "
                       "on a ring; or queued for worker threads")),
        parsed_row<P, &P::pattern, parse_read_pattern>(
            text_param("pattern", "'sequential'", "sequential|random",
                       "the file's pieces in order, or in a seeded random order")),
        number_row<P, &P::block_kb>(
            integer_param("block_kb", 128, 4, 1024, "bytes per read (io_combine_limit), in KiB")
                .powers_of_two()),
        number_row<P, &P::in_flight>(integer_param("in_flight", 16, 1,
                                                   kMaxReadInFlight.default_value,
                                                   "io_uring, workers: reads kept in flight")
                                         .capped_by(kMaxReadInFlight.name)),
        number_row<P, &P::distance>(
            integer_param("distance", 16, 1, 4096, "sync_fadvise: pieces advised ahead")),
        number_row<P, &P::workers>(
            integer_param("workers", 3, 1, kMaxWorkers, "workers: threads doing the reads")),
        boolean_row<P, &P::direct>(boolean_param("direct", false, "read with O_DIRECT")),
        parsed_row<P, &P::cache, parse_cache_state>(
            text_param("cache", "'cold'", "cold|warm",
                       "buffered reads: the file's pages dropped first, or read once first")),
        number_row<P, &P::file_mb>(integer_param("file_mb", 64, 1, kMaxScratchMb.default_value,
                                                 "the scratch file's size, in MB")
                                       .capped_by(kMaxScratchMb.name)),
        number_row<P, &P::passes>(
            integer_param("passes", 1, 0, 1000000,
                          "times the file is read (the cache made cold before the first); 0: "
                          "only the cache made as `cache` says (cold: its pages dropped)")),
        number_row<P, &P::seed>(bigint_param("seed", 1, 0, 1LL << 62, "random: the order's seed")),
        {relation_param("rel", "read this relation's files instead of a scratch file"),
         [](P& p, const ParamValue& v) { p.rel = v.null ? 0 : v.i; }, nullptr},
        scratch_dir_row<P>("the scratch directory for the file"),
        [] {
            auto row = dir_list_row<P, &P::files, as_path>(
                "file", "read this file (read-only) instead of a scratch file");
            row.param.metavar = "FILE";
            return row;
        }(),
    };
    return table;
}

ReadsParams::ReadsParams() {
    set_defaults(reads_params(), *this);
}

void validate(const ReadsParams& p, const Caps& caps) {
    check_ranges(reads_params(), p, caps);
    if (p.method == ReadMethod::sync_fadvise && p.direct)
        throw InvalidArgument("method sync_fadvise cannot read with direct: WILLNEED fills the "
                              "page cache, which O_DIRECT reads pass by (PostgreSQL does not "
                              "advise under debug_io_direct either)");
    if (p.method == ReadMethod::sync_sequential && p.direct)
        throw InvalidArgument("method sync_sequential cannot read with direct: O_DIRECT reads "
                              "pass by the kernel's readahead it doubles");
    if (p.direct && p.cache == CacheState::warm)
        throw InvalidArgument("cache 'warm' does not apply to direct reads: O_DIRECT reads go to "
                              "the device whatever the page cache holds");
    const long long in_flight =
        p.method == ReadMethod::io_uring || p.method == ReadMethod::workers ? p.in_flight : 1;
    const long long memory_cap = cap_value(caps, kMaxMemoryMb);
    if (in_flight * p.block_kb > memory_cap * 1024)
        throw InvalidArgument("in_flight x block_kb must fit in " + std::string(kMaxMemoryMb.name) +
                              " (" + std::to_string(memory_cap) + " MB), got " +
                              std::to_string(in_flight) + " x " + std::to_string(p.block_kb) +
                              " KiB");
    if (!p.files.empty() && p.dir_given)
        throw InvalidArgument("dir: a relation's files (rel) or files given are read where they "
                              "are; a scratch directory applies only without them");
}

namespace {

// Buffers for reads in flight, aligned for O_DIRECT; shared with a ring
// they are lent to (Ring::lend), which may keep them.
class ReadBuffers {
public:
    ReadBuffers(size_t count, size_t bytes) : bytes_(bytes), total_(count * bytes) {
        void* mem = nullptr;
        const int err = posix_memalign(&mem, kAlign, total_);
        if (err != 0)
            throw SysError(err, "posix_memalign");
        mem_.reset(static_cast<char*>(mem), [](char* p) { std::free(p); });
    }
    char* slot(size_t i) { return mem_.get() + i * bytes_; }
    void lend_to(Ring& ring) const { ring.lend(mem_, total_); }

private:
    size_t bytes_;
    size_t total_;
    std::shared_ptr<char> mem_;
};

// The files read, open for reading, and the pieces they are read in.
struct ReadTarget {
    std::vector<Fd> fds;
    std::vector<off_t> sizes;
    PieceList pieces;
    long long bytes = 0;

    void add(Fd fd, const std::string& what) {
        struct stat st {};
        check_syscall(::fstat(fd.get(), &st), "fstat");
        if (!S_ISREG(st.st_mode))
            throw InvalidArgument(what + " is not a regular file");
        fds.push_back(std::move(fd));
        sizes.push_back(st.st_size);
        bytes += st.st_size;
    }
    void cut(size_t piece_bytes) { pieces = PieceList(sizes, piece_bytes, kAlign); }
    long long pages() const {
        const long page = ::sysconf(_SC_PAGESIZE);
        long long n = 0;
        for (off_t s : sizes)
            n += (s + page - 1) / page;
        return n;
    }
    // Pages of the files in the page cache now (mincore over a mapping).
    long long resident_pages() const {
        const long page = ::sysconf(_SC_PAGESIZE);
        long long resident = 0;
        for (size_t f = 0; f < fds.size(); ++f) {
            if (sizes[f] == 0)
                continue;
            const size_t len = static_cast<size_t>(sizes[f]);
            void* map = ::mmap(nullptr, len, PROT_READ, MAP_SHARED, fds[f].get(), 0);
            if (map == MAP_FAILED)
                throw SysError(errno, "mmap (to count resident pages)");
            // A window at a time: a byte per page of a 100 GB file would be 26 MB.
            const size_t window = size_t(page) << 16;
            std::vector<unsigned char> vec(std::min(len, window) / size_t(page) + 1);
            for (size_t at = 0; at < len; at += window) {
                const size_t n = std::min(window, len - at);
                if (::mincore(static_cast<char*>(map) + at, n, vec.data()) != 0) {
                    const int err = errno;
                    ::munmap(map, len);
                    throw SysError(err, "mincore");
                }
                for (size_t i = 0; i < (n + size_t(page) - 1) / size_t(page); ++i)
                    resident += vec[i] & 1;
            }
            ::munmap(map, len);
        }
        return resident;
    }
    // Written back and dropped from the page cache.
    void drop_cached() const {
        for (const Fd& fd : fds) {
            check_syscall(::fdatasync(fd.get()), "fdatasync");
            const int err = ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
            if (err != 0)
                throw SysError(err, "posix_fadvise(POSIX_FADV_DONTNEED)");
        }
    }
    // Every page read once, into the page cache.
    void warm_up(StopPoll& stop) const {
        std::vector<char> buf(kWriteChunk);
        for (size_t f = 0; f < fds.size() && !stop.stopped(); ++f)
            for (off_t off = 0; off < sizes[f] && !stop.poll();) {
                const ssize_t n = ::pread(fds[f].get(), buf.data(), buf.size(), off);
                if (n < 0 && errno == EINTR)
                    continue;
                check_syscall(n, "pread");
                if (n == 0)
                    break;
                off += n;
            }
    }
};

// What every method's loop records per completed read.
struct ReadTally {
    ReadsResult& r;
    BatchedSamples samples;
    double in_flight_sum = 0;

    explicit ReadTally(ReadsResult& result) : r(result), samples(result.latency) {}
    void completed(std::int64_t issued_ns, ssize_t res, int in_flight, const char* call) {
        if (res < 0)
            throw SysError(static_cast<int>(-res), call);
        samples.add(now_ns() - issued_ns);
        ++r.reads;
        r.bytes += res;
        in_flight_sum += in_flight;
        r.max_in_flight = std::max(r.max_in_flight, in_flight);
    }
    void finish() {
        samples.flush();
        if (r.reads > 0)
            r.mean_in_flight = in_flight_sum / static_cast<double>(r.reads);
    }
};

void read_sync(const ReadsParams& p, const ReadTarget& t, const ReadOrder& order, ReadTally& tally,
               StopPoll& stop) {
    ReadBuffers buf(1, size_t(p.block_kb) * 1024);
    if (p.method == ReadMethod::sync_sequential)
        for (const Fd& fd : t.fds) {
            const int err = ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
            if (err != 0)
                throw SysError(err, "posix_fadvise(POSIX_FADV_SEQUENTIAL)");
        }
    size_t advised = 0;
    for (size_t i = 0; i < order.size() && !stop.poll(); ++i) {
        if (p.method == ReadMethod::sync_fadvise)
            for (; advised < order.size() && advised <= i + size_t(p.distance); ++advised) {
                const Piece& a = t.pieces[order[advised]];
                const int err = ::posix_fadvise(t.fds[size_t(a.file)].get(), a.offset,
                                                static_cast<off_t>(a.length), POSIX_FADV_WILLNEED);
                if (err != 0)
                    throw SysError(err, "posix_fadvise(POSIX_FADV_WILLNEED)");
                ++tally.r.fadvise_calls;
            }
        const Piece& piece = t.pieces[order[i]];
        const std::int64_t issued = now_ns();
        const ssize_t n = pread_retrying(t.fds[size_t(piece.file)].get(), buf.slot(0), piece.length,
                                         piece.offset);
        ++tally.r.read_calls;
        tally.completed(issued, n, 1, "pread");
    }
}

void read_io_uring(const ReadsParams& p, const ReadTarget& t, const ReadOrder& order,
                   ReadTally& tally, StopPoll& stop) {
    const size_t depth = std::min(size_t(p.in_flight), order.size());
    ReadBuffers buf(std::max<size_t>(depth, 1), size_t(p.block_kb) * 1024);
    std::vector<std::int64_t> issued(depth);
    std::vector<size_t> free_slots;
    for (size_t s = depth; s > 0; --s)
        free_slots.push_back(s - 1);
    IoThreadSampler iowq(IoThreadSampler::kWorkers);
    Ring ring(static_cast<unsigned>(std::max<size_t>(depth, 1)));
    buf.lend_to(ring);
    io_uring* u = ring.get();
    size_t next = 0;
    auto prepare = [&] {
        const size_t slot = free_slots.back();
        free_slots.pop_back();
        const Piece& piece = t.pieces[order[next++]];
        io_uring_sqe* sqe = io_uring_get_sqe(u);
        io_uring_prep_read(sqe, t.fds[size_t(piece.file)].get(), buf.slot(slot),
                           static_cast<unsigned>(piece.length), static_cast<__u64>(piece.offset));
        sqe->user_data = slot;
        issued[slot] = now_ns();
        ring.submitted(1);
    };
    // A wait for a completion lasts at most kPeerWaitMs before the stop is
    // asked again: a device that hangs must not keep a backend from
    // noticing the postmaster gone (no signal tells it).
    const __kernel_timespec device_wait{0, kPeerWaitMs * 1000000LL};
    auto enter = [&](unsigned wait_nr) {
        int n = ring.submit_and_wait(wait_nr, wait_nr ? &device_wait : nullptr);
        while (n == -EINTR || n == -ETIME) {
            wait_nr = stop.poll_now() ? 0 : wait_nr;
            n = ring.submit_and_wait(wait_nr, wait_nr ? &device_wait : nullptr);
        }
        check_neg_errno(n, "io_uring_enter");
    };
    while (next < depth)
        prepare();
    enter(0);
    // Reads the page cache serves complete within the submit, so the CQ
    // may never empty: the stop rule is asked before each re-submission,
    // not only when the CQ runs dry.
    while (ring.inflight() > 0 && !stop.poll()) {
        if (io_uring_cq_ready(u) == 0)
            enter(1);
        io_uring_cqe* cqe;
        while (io_uring_peek_cqe(u, &cqe) == 0) {
            const size_t slot = static_cast<size_t>(cqe->user_data);
            const int res = cqe->res;
            const int in_flight = static_cast<int>(ring.inflight());
            io_uring_cqe_seen(u, cqe);
            ring.completed();
            free_slots.push_back(slot);
            tally.completed(issued[slot], res, in_flight, "read (io_uring)");
            if (next < order.size() && !stop.poll()) {
                prepare(); // one re-submitted per completion
                enter(0);
            }
        }
    }
    tally.r.enters = ring.enters();
    iowq.sample();
    tally.r.iowq_workers = iowq.workers_seen();
    tally.r.helpers_cpu_ms = iowq.cpu_ms();
}

// The reads queued for the worker threads and handed back, under one lock.
struct WorkQueue {
    std::mutex mu;
    std::condition_variable work, done;
    std::deque<size_t> pending; // slots to read
    std::vector<size_t> finished;
    bool closing = false;
    int sleeping = 0;
    long wakeups = 0;
    double cpu_ms = 0;
};

struct WorkSlot {
    Piece piece{};
    std::int64_t issued = 0;
    ssize_t res = 0;
};

// The files opened again (through /proc/self/fd, the same flags): a file
// description of its own, with its own readahead state, as each of
// PostgreSQL's io workers opens a relation's files itself.
std::vector<Fd> reopened(const ReadTarget& t) {
    std::vector<Fd> own;
    for (const Fd& fd : t.fds) {
        const int flags = ::fcntl(fd.get(), F_GETFL);
        check_syscall(flags, "fcntl(F_GETFL)");
        const std::string path = "/proc/self/fd/" + std::to_string(fd.get());
        own.push_back(Fd::open(path.c_str(), O_RDONLY | (flags & O_DIRECT), "open " + path));
    }
    return own;
}

void worker_loop(WorkQueue& q, std::vector<WorkSlot>& slots, ReadBuffers& buf,
                 const std::vector<Fd>& fds) {
    const UsageMeter cpu(RUSAGE_THREAD);
    std::unique_lock<std::mutex> lk(q.mu);
    for (;;) {
        if (q.pending.empty() && !q.closing) {
            ++q.sleeping;
            q.work.wait(lk, [&] { return !q.pending.empty() || q.closing; });
            --q.sleeping;
            ++q.wakeups;
        }
        if (q.pending.empty())
            break; // closing
        const size_t s = q.pending.front();
        q.pending.pop_front();
        lk.unlock();
        const Piece& piece = slots[s].piece;
        const ssize_t n =
            pread_retrying(fds[size_t(piece.file)].get(), buf.slot(s), piece.length, piece.offset);
        lk.lock();
        slots[s].res = n;
        q.finished.push_back(s);
        q.done.notify_one();
    }
    const UsageDelta d = cpu.delta();
    q.cpu_ms += d.user_ms + d.sys_ms;
}

// Closes the queue and joins the worker threads.
struct WorkersCloser {
    WorkQueue& q;
    std::vector<std::unique_ptr<SessionThread>>& threads;
    ~WorkersCloser() { close(); }
    void close() {
        {
            std::lock_guard<std::mutex> g(q.mu);
            q.closing = true;
            q.pending.clear();
        }
        q.work.notify_all();
        for (auto& th : threads)
            th->join();
    }
};

void read_workers(const ReadsParams& p, const ReadTarget& t, const ReadOrder& order,
                  ReadTally& tally, StopPoll& stop) {
    const size_t depth = std::min(size_t(p.in_flight), order.size());
    ReadBuffers buf(std::max<size_t>(depth, 1), size_t(p.block_kb) * 1024);
    std::vector<WorkSlot> slots(depth);
    std::vector<size_t> free_slots;
    for (size_t s = depth; s > 0; --s)
        free_slots.push_back(s - 1);
    WorkQueue q;
    // each worker's own file descriptions (declared before the threads:
    // they outlive them)
    std::vector<std::vector<Fd>> own;
    for (int w = 0; w < p.workers; ++w)
        own.push_back(reopened(t));
    std::vector<std::unique_ptr<SessionThread>> threads;
    // Declared after the threads: closes the queue and joins them, however
    // this returns.
    WorkersCloser closer{q, threads};
    {
        const AllSignalsBlocked blocked;
        for (int w = 0; w < p.workers; ++w)
            threads.push_back(std::make_unique<SessionThread>(
                [&q, &slots, &buf, fds = &own[size_t(w)]] { worker_loop(q, slots, buf, *fds); }));
    }
    size_t next = 0;
    int outstanding = 0;
    auto issue = [&](std::unique_lock<std::mutex>&) {
        const size_t s = free_slots.back();
        free_slots.pop_back();
        slots[s].piece = t.pieces[order[next++]];
        slots[s].issued = now_ns();
        q.pending.push_back(s);
        ++outstanding;
        if (q.sleeping > 0)
            q.work.notify_one();
    };
    long submitter_waits = 0;
    std::vector<size_t> taken;
    std::unique_lock<std::mutex> lk(q.mu);
    while (next < depth)
        issue(lk);
    const auto peer_wait = std::chrono::milliseconds(kPeerWaitMs);
    while (outstanding > 0 && !stop.stopped()) {
        while (q.finished.empty()) {
            ++submitter_waits;
            if (!q.done.wait_for(lk, peer_wait, [&] { return !q.finished.empty(); })) {
                lk.unlock();
                const bool stopping = stop.poll_now();
                lk.lock();
                if (stopping)
                    break;
            }
        }
        taken.swap(q.finished);
        for (size_t s : taken) {
            tally.completed(slots[s].issued, slots[s].res, outstanding, "pread (worker)");
            --outstanding;
            free_slots.push_back(s);
            if (next < order.size() && !stop.poll())
                issue(lk);
        }
        taken.clear();
    }
    lk.unlock();
    tally.r.read_calls = tally.r.reads;
    tally.r.submitter_waits = submitter_waits;
    closer.close(); // the threads end before their CPU is read
    tally.r.worker_wakeups = q.wakeups;
    tally.r.helpers_cpu_ms = q.cpu_ms;
}

} // namespace

void write_scratch(int fd, long long bytes, StopPoll& stop) {
    std::vector<char> chunk(kWriteChunk);
    for (size_t i = 0; i < chunk.size(); ++i)
        chunk[i] = static_cast<char>('a' + i % 26);
    for (long long off = 0; off < bytes && !stop.poll();) {
        const size_t n = static_cast<size_t>(std::min<long long>(bytes - off, kWriteChunk));
        const ssize_t w = ::pwrite(fd, chunk.data(), n, off);
        if (w < 0 && errno == EINTR)
            continue;
        off += check_syscall(w, "pwrite");
    }
    check_syscall(::fdatasync(fd), "fdatasync");
}

ReadsResult run_reads(const ReadsParams& p, const std::vector<std::string>& allowed,
                      const std::function<bool()>& should_stop) {
    ReadsResult r;
    r.params = p;
    StopPoll stop(should_stop);
    const int read_flags = O_RDONLY | O_CLOEXEC | (p.direct ? O_DIRECT : 0);

    std::optional<ScratchDir> dir;
    std::optional<ScratchFile> file;
    ReadTarget target;
    auto open_for_reading = [&](auto&& open, const std::string& what) {
        try {
            target.add(open(), what);
            return true;
        } catch (const SysError& e) {
            if (!p.direct || e.err() != EINVAL)
                throw;
            r.outcome = Outcome::unsupported("the filesystem of " + what +
                                             " refuses O_DIRECT (open: Invalid argument)");
            return false;
        }
    };
    if (p.files.empty()) {
        dir.emplace(p.dir, allowed);
        dir->remove_stale_files();
        file.emplace(*dir);
        r.source = dir->path() + "/" + file->name();
        write_scratch(file->fd(), static_cast<long long>(p.file_mb) * 1000000, stop);
        if (!open_for_reading([&] { return file->reopen(read_flags); }, "the scratch file"))
            return r;
    } else {
        for (const std::string& path : p.files)
            if (!open_for_reading(
                    [&] { return Fd::open(path.c_str(), read_flags | O_NOFOLLOW, "open " + path); },
                    path))
                return r;
        r.source = p.source;
        if (r.source.empty())
            for (const std::string& path : p.files)
                r.source += (r.source.empty() ? "" : ",") + path;
    }
    r.file_bytes = target.bytes;
    r.pages = target.pages();
    target.cut(size_t(p.block_kb) * 1024);
    if (p.cache == CacheState::warm)
        target.warm_up(stop);
    else
        target.drop_cached();
    r.resident_before = target.resident_pages();
    const ReadOrder order(target.pieces.size(), p.pattern == ReadPattern::random, p.seed, p.passes);

    if (!stop.stopped() && p.passes > 0) {
        ReadTally tally(r);
        const long iowq_before = count_io_threads(IoThreadSampler::kWorkers);
        const UsageMeter usage(RUSAGE_SELF);
        const UsageMeter submitter(RUSAGE_THREAD);
        const std::int64_t t0 = now_ns();
        switch (p.method) {
        case ReadMethod::sync:
        case ReadMethod::sync_fadvise:
        case ReadMethod::sync_sequential:
            read_sync(p, target, order, tally, stop);
            break;
        case ReadMethod::io_uring:
            read_io_uring(p, target, order, tally, stop);
            break;
        case ReadMethod::workers:
            read_workers(p, target, order, tally, stop);
            break;
        }
        r.seconds = (now_ns() - t0) / 1e9;
        r.submitter = submitter.delta();
        r.usage = usage.delta();
        tally.finish();
        if (r.iowq_workers > 0 && !stop.stopped()) // as completions' (a stop does not wait)
            wait_for_io_threads(IoThreadSampler::kWorkers, iowq_before, 2000);
    }
    if (stop.stopped())
        r.outcome = Outcome::stopped();
    return r;
}

std::vector<Column> reads_columns() {
    return experiment_columns({text_column("method"),
                               text_column("pattern"),
                               bigint_column("block_kb"),
                               bigint_column("in_flight"),
                               text_column("cache"),
                               text_column("source"),
                               real_column("file_mb"),
                               real_column("mb_per_sec"),
                               real_column("mean_in_flight"),
                               bigint_column("max_in_flight"),
                               bigint_column("enters"),
                               bigint_column("read_calls"),
                               bigint_column("fadvise_calls"),
                               bigint_column("worker_wakeups"),
                               bigint_column("submitter_waits"),
                               real_column("submitter_cpu_ms"),
                               real_column("helpers_cpu_ms"),
                               bigint_column("iowq_workers"),
                               bigint_column("pages"),
                               bigint_column("resident_before"),
                               text_column("latency_histogram")});
}

Table reads_table(const ReadsResult& r) {
    const ReadsParams& p = r.params;
    Table t{reads_columns(), {}};
    const std::string method = read_method_name(p.method);
    const std::string pattern = name_of(kPatterns, int(p.pattern));
    const bool measured = (r.outcome.is_ok() || r.outcome.is_stopped()) && r.seconds > 0;
    const bool queued = p.method == ReadMethod::io_uring || p.method == ReadMethod::workers;
    const auto count = [&](long v) {
        return measured && v >= 0 ? Value::integer(v) : Value::null();
    };
    add_row(
        t,
        {"reads", method + "/" + pattern + (p.direct ? "/direct" : ""), r.outcome, r.reads,
         r.seconds, &r.latency, r.usage},
        {Value::text(method),
         Value::text(pattern),
         Value::integer(p.block_kb),
         Value::integer(queued ? p.in_flight : 1),
         Value::text(p.direct ? "direct" : name_of(kCacheStates, int(p.cache))),
         Value::text(r.source),
         r.file_bytes > 0 ? Value::real(static_cast<double>(r.file_bytes) / 1e6) : Value::null(),
         measured ? ratio(static_cast<double>(r.bytes) / 1e6, r.seconds) : Value::null(),
         measured && r.reads > 0 ? Value::real(r.mean_in_flight) : Value::null(),
         measured && r.reads > 0 ? Value::integer(r.max_in_flight) : Value::null(),
         count(r.enters),
         count(p.method == ReadMethod::io_uring ? -1 : r.read_calls),
         count(p.method == ReadMethod::sync_fadvise ? r.fadvise_calls : -1),
         count(r.worker_wakeups),
         count(r.submitter_waits),
         measured ? Value::real(r.submitter.user_ms + r.submitter.sys_ms) : Value::null(),
         measured ? Value::real(r.helpers_cpu_ms) : Value::null(),
         count(r.iowq_workers),
         r.pages > 0 ? Value::integer(r.pages) : Value::null(),
         r.resident_before >= 0 ? Value::integer(r.resident_before) : Value::null(),
         Value::text(r.latency.encoded())});
    return t;
}

Table run_reads_in_process(const GivenParams& given, const std::function<bool()>& should_stop) {
    ReadsParams p = params_from(reads_params(), given);
    p.dir = own_scratch_dir(p.dir, p.files.empty(), "reads needs --dir DIR or --file FILE");
    validate(p, {});
    return reads_table(run_reads(p, {p.dir}, should_stop));
}

} // namespace uringprobe
