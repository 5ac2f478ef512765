#include "completions_experiment.hpp"

#include "child_process.hpp"
#include "clock.hpp"
#include "error.hpp"
#include "fd.hpp"
#include "io_threads.hpp"
#include "params.hpp"
#include "ring.hpp"
#include "scratch_file.hpp"
#include "stop_poll.hpp"

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

unsigned parse_setup_flags(const std::string& list) {
    unsigned flags = 0;
    size_t start = 0;
    while (start <= list.size()) {
        size_t end = list.find(',', start);
        if (end == std::string::npos)
            end = list.size();
        std::string item = list.substr(start, end - start);
        item.erase(0, item.find_first_not_of(' '));
        item.erase(item.find_last_not_of(' ') + 1);
        if (!item.empty())
            flags |= static_cast<unsigned>(lookup_name(kFlags, "flags", item));
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
        {text_param("op", "'nop'", "nop|read|recv",
                    "no-ops, 4 KiB reads of a page-cached scratch file, or datagram receives"),
         [](P& p, const ParamValue& v) { p.op = parse_completion_op(v.s); }, nullptr},
        number_row<P, &P::depth>(integer_param("depth", 32, 1, kMaxDepth, "operations in flight")),
        number_row<P, &P::batch>(
            integer_param("batch", 0, 0, kMaxDepth, "SQEs per submission, at most depth; 0: depth")
                .range_checked_by_experiment()),
        {text_param("reaping", "'batch'", "each|batch",
                    "io_uring_cqe_seen per completion, or one io_uring_cq_advance per batch"),
         [](P& p, const ParamValue& v) { p.reaping = parse_reaping(v.s); }, nullptr},
        {text_param("flags", "''", "",
                    "setup flags: a comma-separated list of sqpoll, single_issuer, "
                    "defer_taskrun, coop_taskrun"),
         [](P& p, const ParamValue& v) { p.setup_flags = parse_setup_flags(v.s); }, nullptr},
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
    check_range("batch", p.batch, 0, p.depth);
}

namespace {

// Sets up the ring and keeps p.depth operations on `fd` in flight until
// p.completions are reaped or `stop` fires. The ring is drained and gone
// when this returns.
void run_ring(const CompletionsParams& p, int target_fd, CompletionsResult& r, StopPoll& stop) {
    const int batch = p.batch ? p.batch : p.depth;
    const size_t slot_bytes = p.op == CompletionOp::read ? kReadBytes : kDatagramBytes;
    std::vector<char> buffers(slot_bytes * static_cast<size_t>(p.depth));
    std::optional<Ring> ring;
    try {
        ring.emplace(static_cast<unsigned>(p.depth), p.setup_flags, 1000);
    } catch (const SysError& e) {
        // Refused flags are a row; io_uring refused altogether (a plain
        // ring fails too: kernel.io_uring_disabled, seccomp) is an error
        // with its hint.
        const int err = e.err();
        if (p.setup_flags == 0 || (err != EINVAL && err != EPERM && err != EOPNOTSUPP))
            throw;
        Ring plain(1);
        r.outcome = Outcome::unsupported("the kernel refuses setup flags " +
                                         setup_flags_string(p.setup_flags) + " (" +
                                         std::strerror(err) + ")");
        r.flags_in_effect = "none";
        return;
    }
    const io_uring_params& params = ring->params();
    r.flags_in_effect = setup_flags_string(params.flags);
    const bool sqpoll = params.flags & IORING_SETUP_SQPOLL;
    std::optional<IoThreadSampler> sq_thread;
    if (sqpoll)
        sq_thread.emplace(IoThreadSampler::kSqPoll);

    std::vector<int> free_slots;
    for (int s = p.depth - 1; s >= 0; --s)
        free_slots.push_back(s);
    std::vector<io_uring_cqe*> cqes(static_cast<size_t>(p.depth));
    io_uring* ring_p = ring->get();
    auto complete = [&](io_uring_cqe* cqe) {
        if (cqe->res < 0)
            ++r.errors;
        free_slots.push_back(static_cast<int>(cqe->user_data));
        ring->completed();
        ++r.completions;
    };

    const UsageMeter usage(RUSAGE_SELF);
    const std::int64_t t0 = now_ns();
    while (r.completions < p.completions) {
        if (stop.poll())
            break;
        // A batch of SQEs once there is room for all of it (or for the rest).
        const long left = p.completions - r.submitted;
        const int want = static_cast<int>(std::min<long>(batch, left));
        int prepared = 0;
        if (want > 0 && p.depth - ring->inflight() >= want) {
            for (; prepared < want; ++prepared) {
                io_uring_sqe* sqe = io_uring_get_sqe(ring_p);
                while (!sqe) { // SQPOLL: its thread has not taken the last SQEs yet
                    check_neg_errno(io_uring_sqring_wait(ring_p), "io_uring_sqring_wait");
                    ++r.enters;
                    sqe = io_uring_get_sqe(ring_p);
                }
                const int slot = free_slots.back();
                free_slots.pop_back();
                char* buf = buffers.data() + static_cast<size_t>(slot) * slot_bytes;
                if (p.op == CompletionOp::nop)
                    io_uring_prep_nop(sqe);
                else if (p.op == CompletionOp::read)
                    io_uring_prep_read(sqe, target_fd, buf, kReadBytes,
                                       (r.submitted + prepared) % (kFileBytes / kReadBytes) *
                                           kReadBytes);
                else
                    io_uring_prep_recv(sqe, target_fd, buf, kDatagramBytes, 0);
                sqe->user_data = static_cast<__u64>(slot);
            }
        }
        const bool wait = io_uring_cq_ready(ring_p) == 0;
        if (prepared > 0 || wait) {
            // liburing enters the kernel to wait, and to submit unless an
            // SQPOLL thread is awake to pick the SQEs up.
            const bool enters =
                wait || !sqpoll || (IO_URING_READ_ONCE(*ring_p->sq.kflags) & IORING_SQ_NEED_WAKEUP);
            // Interrupted while waiting: a stop may be what interrupted it;
            // the SQEs prepared are in the kernel's hands either way.
            int n = io_uring_submit_and_wait(ring_p, wait ? 1 : 0);
            while (n == -EINTR)
                n = io_uring_submit_and_wait(ring_p, stop.poll_now() ? 0 : (wait ? 1 : 0));
            r.enters += enters;
            check_neg_errno(n, "io_uring_submit_and_wait");
            r.submitted += prepared;
            ring->submitted(prepared);
        }
        if (p.reaping == Reaping::each) {
            io_uring_cqe* cqe = nullptr;
            while (io_uring_peek_cqe(ring_p, &cqe) == 0) {
                complete(cqe);
                io_uring_cqe_seen(ring_p, cqe);
            }
        } else {
            const unsigned n = io_uring_peek_batch_cqe(ring_p, cqes.data(), cqes.size());
            for (unsigned i = 0; i < n; ++i)
                complete(cqes[i]);
            io_uring_cq_advance(ring_p, n);
        }
    }
    r.seconds = (now_ns() - t0) / 1e9;
    r.usage = usage.delta();
    if (sq_thread) {
        sq_thread->sample();
        r.sqpoll_cpu_ms = sq_thread->cpu_ms();
    }
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
    StopPoll stop(should_stop);
    run_ring(p, target_fd, r, stop);
    // An SQPOLL thread outlives its ring for a moment: wait for it, so the
    // caller finds the process as it was.
    if (p.setup_flags & IORING_SETUP_SQPOLL)
        wait_for_io_threads(IoThreadSampler::kSqPoll, sq_threads_before, 2000);
    if (stop.stopped())
        r.outcome = Outcome::stopped();
    return r;
}

Table completions_table(const CompletionsResult& r) {
    const CompletionsParams& p = r.params;
    Table t = experiment_table({"op", "depth", "batch", "reaping", "flags_requested",
                                "flags_in_effect", "ns_per_completion", "completions_per_enter",
                                "enters", "sqpoll_cpu_ms", "errors"});
    const std::string op = name_of(kOps, int(p.op));
    const std::string reaping = name_of(kReapings, int(p.reaping));
    add_row(
        t,
        {"completions", op + "/" + reaping, r.outcome, r.completions, r.seconds, nullptr, r.usage},
        {Value::text(op), Value::integer(p.depth), Value::integer(p.batch ? p.batch : p.depth),
         Value::text(reaping), Value::text(setup_flags_string(p.setup_flags)),
         Value::text(r.flags_in_effect), ratio(r.seconds * 1e9, static_cast<double>(r.completions)),
         ratio(static_cast<double>(r.completions), static_cast<double>(r.enters)),
         Value::integer(r.enters),
         r.sqpoll_cpu_ms < 0 ? Value::null() : Value::real(r.sqpoll_cpu_ms),
         Value::integer(r.errors)});
    return t;
}

} // namespace uringprobe
