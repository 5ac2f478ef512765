#include "experiments/completions_experiment.hpp"

#include "contract/clock.hpp"
#include "contract/error.hpp"
#include "contract/params.hpp"
#include "contract/stop_poll.hpp"
#include "io/scratch_file.hpp"
#include "os/child_process.hpp"
#include "os/fd.hpp"
#include "os/io_threads.hpp"
#include "uring/pg_ring_plan.hpp"
#include "uring/ring.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <liburing.h>
#include <memory>
#include <netinet/in.h>
#include <optional>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace uringprobe {

namespace {

constexpr int kMaxDepth = 4096;
constexpr size_t kReadBytes = 4096;
constexpr size_t kFileBytes = 1 << 20; // page-cached: read back over and over
constexpr size_t kDatagramBytes = 64;

const NamedValue kOps[] = {{"nop", int(CompletionOp::nop)},
                           {"read", int(CompletionOp::read)},
                           {"recv", int(CompletionOp::recv)}};
const NamedValue kReapings[] = {{"each", int(Reaping::each)}, {"batch", int(Reaping::batch)}};
const NamedValue kResubmits[] = {{"each", int(Resubmit::each)}, {"batch", int(Resubmit::batch)}};
const NamedValue kFlags[] = {{"sqpoll", int(IORING_SETUP_SQPOLL)},
                             {"single_issuer", int(IORING_SETUP_SINGLE_ISSUER)},
                             {"defer_taskrun", int(IORING_SETUP_DEFER_TASKRUN)},
                             {"coop_taskrun", int(IORING_SETUP_COOP_TASKRUN)}};

// A loopback UDP socket, and a child sending datagrams to it as fast as
// it can (a full receive queue drops them: the sender never blocks).
struct DatagramSource {
    Fd socket;
    std::optional<ChildProcess> sender;

    DatagramSource() {
        socket = Fd::socket(AF_INET, SOCK_DGRAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        check_syscall(::bind(socket.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr),
                      "bind");
        socklen_t len = sizeof addr;
        check_syscall(::getsockname(socket.get(), reinterpret_cast<sockaddr*>(&addr), &len),
                      "getsockname");
        sender.emplace([addr] {
            const int s = ::socket(AF_INET, SOCK_DGRAM, 0);
            if (s < 0 || ::connect(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) < 0)
                return;
            char payload[kDatagramBytes];
            std::memset(payload, 'u', sizeof payload);
            for (;;)
                ::send(s, payload, sizeof payload, 0);
        });
    }
};

} // namespace

CompletionOp parse_completion_op(const std::string& name) {
    return static_cast<CompletionOp>(lookup_name(kOps, "op", name));
}
Reaping parse_reaping(const std::string& name) {
    return static_cast<Reaping>(lookup_name(kReapings, "reaping", name));
}
Resubmit parse_resubmit(const std::string& name) {
    return static_cast<Resubmit>(lookup_name(kResubmits, "resubmit", name));
}

void check_setup_flags(unsigned flags) {
    if ((flags & IORING_SETUP_DEFER_TASKRUN) && !(flags & IORING_SETUP_SINGLE_ISSUER))
        throw InvalidArgument("flags: defer_taskrun requires single_issuer (io_uring_setup(2): "
                              "deferred task work runs in the one task that submits)");
    if ((flags & IORING_SETUP_SQPOLL) &&
        (flags & (IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_COOP_TASKRUN)))
        throw InvalidArgument(
            "flags: sqpoll cannot be combined with defer_taskrun or coop_taskrun "
            "(io_uring_setup(2): task work runs in the SQPOLL thread, so the flags that "
            "say when the submitting task runs it do not apply)");
}

unsigned parse_setup_flags(const std::string& list) {
    if (list.empty())
        return 0;
    unsigned flags = 0;
    size_t start = 0;
    while (start <= list.size()) {
        size_t end = list.find(',', start);
        if (end == std::string::npos)
            end = list.size();
        std::string item = list.substr(start, end - start);
        item.erase(0, item.find_first_not_of(' '));
        item.erase(item.find_last_not_of(' ') + 1);
        if (item.empty())
            throw InvalidArgument("flags: an empty item in '" + list +
                                  "': name each flag once, separated by commas ('' for none)");
        const auto flag = static_cast<unsigned>(lookup_name(kFlags, "flags", item));
        if (flags & flag)
            throw InvalidArgument("flags: " + item + " is named twice in '" + list + "'");
        flags |= flag;
        start = end + 1;
    }
    return flags;
}

std::string setup_flags_string(unsigned flags) {
    std::string out;
    for (const auto& f : kFlags)
        if (flags & static_cast<unsigned>(f.value))
            out += std::string(out.empty() ? "" : ",") + f.name;
    return out.empty() ? "none" : out;
}

const ParamTable<CompletionsParams>& completions_params() {
    using P = CompletionsParams;
    static const ParamTable<P> table = {
        parsed_row<P, &P::op, parse_completion_op>(
            text_param("op", "'nop'", "nop|read|recv",
                       "no-ops, 4 KiB reads of a page-cached scratch file, or datagram receives")),
        number_row<P, &P::depth>(integer_param("depth", 32, 1, kMaxDepth, "operations in flight")),
        parsed_row<P, &P::resubmit, parse_resubmit>(
            text_param("resubmit", "'each'", "each|batch",
                       "replace each reaped completion with its own submission, or all those "
                       "reaped together with one")),
        parsed_row<P, &P::reaping, parse_reaping>(
            text_param("reaping", "'each'", "each|batch",
                       "io_uring_cqe_seen per completion, or one io_uring_cq_advance per batch")),
        parsed_row<P, &P::setup_flags, parse_setup_flags>(
            text_param("flags", "''", "",
                       "setup flags: a comma-separated list of sqpoll, single_issuer, "
                       "defer_taskrun, coop_taskrun")),
        number_row<P, &P::completions>(
            bigint_param("completions", 1000000, 1, 100000000, "completions to reap")),
        scratch_dir_row<P>("read: the scratch directory for the file"),
    };
    return table;
}

CompletionsParams::CompletionsParams() {
    set_defaults(completions_params(), *this);
}

void validate(const CompletionsParams& p, const Caps& caps) {
    check_ranges(completions_params(), p, caps);
    check_setup_flags(p.setup_flags);
    if (p.dir_given && p.op != CompletionOp::read)
        throw InvalidArgument(std::string("dir applies only to op 'read' (the file it reads), "
                                          "got op '") +
                              name_of(kOps, int(p.op)) + "'");
    // A buffer per operation in flight, and the ring.
    const bool read = p.op == CompletionOp::read;
    check_memory(std::string("depth x ") + (read ? "4 KiB" : "64 B") + " buffers + a ring of " +
                     std::to_string(p.depth) + " entries",
                 static_cast<long long>(p.depth) * (read ? kReadBytes : kDatagramBytes) +
                     static_cast<long long>(estimated_ring_bytes(unsigned(p.depth))),
                 caps);
}

namespace {

// The ring with p.setup_flags, or none when the kernel refuses those flags
// (r.outcome says so: a row); io_uring refused altogether (a plain ring
// fails too: kernel.io_uring_disabled, seccomp) is an error with its hint.
std::optional<Ring> completion_ring(const CompletionsParams& p, CompletionsResult& r) {
    try {
        std::optional<Ring> ring;
        ring.emplace(static_cast<unsigned>(p.depth), p.setup_flags, 1000);
        r.flags_in_effect = setup_flags_string(ring->params().flags);
        return ring;
    } catch (const SysError& e) {
        const int err = e.err();
        if (p.setup_flags == 0 || (err != EINVAL && err != EPERM && err != EOPNOTSUPP))
            throw;
        Ring plain(1);
        r.outcome = Outcome::unsupported("the kernel refuses setup flags " +
                                         setup_flags_string(p.setup_flags) + " (" +
                                         std::strerror(err) + ")");
        r.flags_in_effect = "none";
        return std::nullopt;
    }
}

// p.depth operations on `fd` kept in flight on `ring` until p.completions
// are reaped or the stop comes: each in a slot of the buffers lent to the
// ring, reaped and replaced as p.reaping and p.resubmit say. Receives come
// from `sender`.
class CompletionLoop {
public:
    CompletionLoop(const CompletionsParams& p, int fd, ChildProcess* sender, Ring& ring,
                   CompletionsResult& r, StopPoll& stop)
        : p_(p), fd_(fd), sender_(sender), ring_(ring), ring_p_(ring.get()), r_(r), stop_(stop),
          slot_bytes_(p.op == CompletionOp::read ? kReadBytes : kDatagramBytes),
          buffers_(std::make_shared<std::vector<char>>(slot_bytes_ * static_cast<size_t>(p.depth))),
          peer_wait_{0, kPeerWaitMs * 1000000LL} {
        ring_.lend(buffers_, buffers_->size());
        for (int s = p.depth - 1; s >= 0; --s)
            free_slots_.push_back(s);
    }

    // The first operations in, then every completion reaped and replaced
    // until p.completions or the stop; returns the sum over completions of
    // the operations in flight when each was reaped.
    double run() {
        while (r_.submitted < std::min<long>(p_.depth, p_.completions) && !stop_.stopped())
            prepare();
        submit(0);
        while (r_.completions < p_.completions && !stop_.poll()) {
            if (io_uring_cq_ready(ring_p_) == 0)
                submit(1);
            reap();
        }
        return in_flight_sum_;
    }

private:
    // One more operation into the SQ ring (submitted by the next submit()),
    // unless a stop came while waiting for room in it.
    void prepare() {
        io_uring_sqe* sqe = io_uring_get_sqe(ring_p_);
        while (!sqe) { // SQPOLL: its thread has not taken the earlier SQEs yet
            const int n = ring_.wait_for_sq_room();
            if (n != -EINTR)
                check_neg_errno(n, "io_uring_enter(IORING_ENTER_SQ_WAIT)");
            // Woken by room, or by a signal: the kernel ends the wait for
            // one and returns 0 (-EINTR on some), so the stop is asked
            // after every wait.
            if (stop_.poll_now())
                return;
            sqe = io_uring_get_sqe(ring_p_);
        }
        const int slot = free_slots_.back();
        free_slots_.pop_back();
        char* buf = buffers_->data() + static_cast<size_t>(slot) * slot_bytes_;
        if (p_.op == CompletionOp::nop)
            io_uring_prep_nop(sqe);
        else if (p_.op == CompletionOp::read)
            io_uring_prep_read(sqe, fd_, buf, kReadBytes,
                               r_.submitted % (kFileBytes / kReadBytes) * kReadBytes);
        else
            io_uring_prep_recv(sqe, fd_, buf, kDatagramBytes, 0);
        sqe->user_data = static_cast<__u64>(slot);
        ++r_.submitted;
        ring_.submitted(1);
    }

    // Interrupted while waiting: a stop may be what interrupted it; the
    // SQEs published are in the kernel's hands either way. Receives wait
    // for another process, the sender: at most kPeerWaitMs at a time, then
    // the stop is asked and the sender must still be there.
    void submit(unsigned wait_nr) {
        const __kernel_timespec* wait_limit = sender_ ? &peer_wait_ : nullptr;
        int n = ring_.submit_and_wait(wait_nr, wait_limit);
        while (n == -EINTR || n == -ETIME) {
            if (n == -ETIME && sender_->exited())
                throw SysError(EPIPE, "recv: the datagram sender process exited");
            n = ring_.submit_and_wait(stop_.poll_now() ? 0 : wait_nr, wait_limit);
        }
        check_neg_errno(n, "io_uring_enter");
    }

    // Every CQE there now (and any that arrive meanwhile, up to p.depth),
    // replaced as p.resubmit says; no liburing call here enters the kernel
    // but submit().
    void reap() {
        unsigned head, taken = 0;
        long to_replace = 0;
        io_uring_cqe* cqe;
        io_uring_for_each_cqe(ring_p_, head, cqe) {
            in_flight_sum_ += static_cast<double>(ring_.inflight());
            if (cqe->res < 0)
                ++r_.errors;
            free_slots_.push_back(static_cast<int>(cqe->user_data));
            ring_.completed();
            ++r_.completions;
            ++taken;
            if (p_.reaping == Reaping::each)
                io_uring_cqe_seen(ring_p_, cqe);
            if (r_.submitted + to_replace >= p_.completions)
                continue;
            if (p_.resubmit == Resubmit::each) {
                prepare();
                submit(0);
            } else {
                ++to_replace;
            }
            if (taken >= static_cast<unsigned>(p_.depth))
                break; // back to the stop poll now and then
        }
        if (p_.reaping == Reaping::batch)
            io_uring_cq_advance(ring_p_, taken);
        if (to_replace > 0) {
            for (long i = 0; i < to_replace; ++i)
                prepare();
            submit(0);
        }
    }

    const CompletionsParams& p_;
    const int fd_;
    ChildProcess* const sender_;
    Ring& ring_;
    io_uring* const ring_p_;
    CompletionsResult& r_;
    StopPoll& stop_;
    const size_t slot_bytes_;
    const std::shared_ptr<std::vector<char>> buffers_;
    const __kernel_timespec peer_wait_;
    std::vector<int> free_slots_;
    double in_flight_sum_ = 0;
};

// Sets up the ring and keeps p.depth operations on `fd` in flight until
// p.completions are reaped or `stop` fires, with the CPU of this process,
// the submitting thread, the SQPOLL thread and io-wq workers measured
// around it. The ring is drained and gone when this returns.
void run_ring(const CompletionsParams& p, int target_fd, ChildProcess* sender, CompletionsResult& r,
              StopPoll& stop) {
    std::optional<Ring> ring = completion_ring(p, r);
    if (!ring)
        return;
    std::optional<IoThreadSampler> sq_thread;
    if (ring->params().flags & IORING_SETUP_SQPOLL)
        sq_thread.emplace(IoThreadSampler::kSqPoll);
    // Receives the kernel could not complete by polling go to io-wq
    // workers (e.g. several on one socket woken by one datagram).
    IoThreadSampler workers(IoThreadSampler::kWorkers);
    CompletionLoop loop(p, target_fd, sender, *ring, r, stop);

    const UsageMeter usage(RUSAGE_SELF);
    const UsageMeter submitter(RUSAGE_THREAD);
    const std::int64_t t0 = now_ns();
    const double in_flight_sum = loop.run();
    r.seconds = (now_ns() - t0) / 1e9;
    r.usage = usage.delta();
    r.submitter = submitter.delta();
    r.enters = ring->enters();
    if (r.completions > 0)
        r.mean_in_flight = in_flight_sum / static_cast<double>(r.completions);
    if (sq_thread) {
        sq_thread->sample();
        r.sqpoll_cpu_ms = sq_thread->cpu_ms();
    }
    workers.sample();
    r.iowq_workers = workers.workers_seen();
    r.iowq_cpu_ms = workers.cpu_ms();
}

} // namespace

CompletionsResult run_completions(const CompletionsParams& p,
                                  const std::vector<std::string>& allowed,
                                  const std::function<bool()>& should_stop) {
    CompletionsResult r;
    r.params = p;

    // What the operations work on, before the ring: the ring goes first.
    std::optional<ScratchDir> dir;
    std::optional<ScratchFile> file;
    std::optional<DatagramSource> datagrams;
    if (p.op == CompletionOp::read) {
        dir.emplace(p.dir, allowed);
        dir->remove_stale_files();
        file.emplace(*dir);
        std::vector<char> content(kFileBytes, 'r');
        for (size_t done = 0; done < content.size();)
            done += static_cast<size_t>(
                check_syscall(::pwrite(file->fd(), content.data() + done, content.size() - done,
                                       static_cast<off_t>(done)),
                              "pwrite"));
    } else if (p.op == CompletionOp::recv) {
        datagrams.emplace();
    }
    const int target_fd = file ? file->fd() : datagrams ? datagrams->socket.get() : -1;

    const long sq_threads_before = count_io_threads(IoThreadSampler::kSqPoll);
    const long workers_before = count_io_threads(IoThreadSampler::kWorkers);
    StopPoll stop(should_stop);
    run_ring(p, target_fd, datagrams ? &*datagrams->sender : nullptr, r, stop);
    // An SQPOLL thread and io-wq workers outlive their ring for a moment:
    // wait for them, so the caller finds the process as it was. Not for
    // the workers after a stop: while the process uses another ring (a
    // PostgreSQL 18 backend its own) they stay, idle, for seconds, and a
    // stop is served within one.
    if (p.setup_flags & IORING_SETUP_SQPOLL)
        wait_for_io_threads(IoThreadSampler::kSqPoll, sq_threads_before, 2000);
    if (r.iowq_workers > 0 && !stop.stopped())
        wait_for_io_threads(IoThreadSampler::kWorkers, workers_before, 2000);
    if (stop.stopped())
        r.outcome = Outcome::stopped();
    return r;
}

std::vector<Column> completions_columns() {
    return experiment_columns({text_column("op"), bigint_column("depth"), text_column("resubmit"),
                               text_column("reaping"), text_column("flags_requested"),
                               text_column("flags_in_effect"), real_column("ns_per_completion"),
                               real_column("mean_in_flight"), real_column("completions_per_enter"),
                               bigint_column("enters"), real_column("submitter_ns_per_completion"),
                               real_column("sqpoll_ns_per_completion"),
                               real_column("sqpoll_cpu_ms"), bigint_column("iowq_workers"),
                               real_column("iowq_cpu_ms"), bigint_column("errors")});
}

Table completions_table(const CompletionsResult& r) {
    const CompletionsParams& p = r.params;
    Table t{completions_columns(), {}};
    const std::string op = name_of(kOps, int(p.op));
    const std::string resubmit = name_of(kResubmits, int(p.resubmit));
    const std::string reaping = name_of(kReapings, int(p.reaping));
    const auto completions = static_cast<double>(r.completions);
    const bool measured = r.outcome.is_ok() || r.outcome.is_stopped();
    add_row(t,
            {"completions", op + "/" + resubmit + "/" + reaping, r.outcome, r.completions,
             r.seconds, nullptr, r.usage},
            {Value::text(op), Value::integer(p.depth), Value::text(resubmit), Value::text(reaping),
             Value::text(setup_flags_string(p.setup_flags)), Value::text(r.flags_in_effect),
             ratio(r.seconds * 1e9, completions),
             measured && r.completions > 0 ? Value::real(r.mean_in_flight) : Value::null(),
             ratio(completions, static_cast<double>(r.enters)),
             measured ? Value::integer(r.enters) : Value::null(),
             ratio((r.submitter.user_ms + r.submitter.sys_ms) * 1e6, completions),
             r.sqpoll_cpu_ms < 0 ? Value::null() : ratio(r.sqpoll_cpu_ms * 1e6, completions),
             r.sqpoll_cpu_ms < 0 ? Value::null() : Value::real(r.sqpoll_cpu_ms),
             measured ? Value::integer(r.iowq_workers) : Value::null(),
             measured ? Value::real(r.iowq_cpu_ms) : Value::null(), Value::integer(r.errors)});
    return t;
}

Table run_completions_in_process(const GivenParams& given,
                                 const std::function<bool()>& should_stop) {
    CompletionsParams p = params_from(completions_params(), given);
    p.dir =
        own_scratch_dir(p.dir, p.op == CompletionOp::read, "completions --op read needs --dir DIR");
    validate(p, {});
    return completions_table(run_completions(p, {p.dir}, should_stop));
}

} // namespace uringprobe
