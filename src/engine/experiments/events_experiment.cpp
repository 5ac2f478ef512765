#include "experiments/events_experiment.hpp"

#include "contract/clock.hpp"
#include "contract/error.hpp"
#include "contract/params.hpp"
#include "contract/stop_poll.hpp"
#include "os/child_process.hpp"
#include "os/fd.hpp"
#include "uring/pg_ring_plan.hpp"
#include "uring/ring.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <liburing.h>
#include <optional>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace uringprobe {

namespace {

const char* const kLoops[] = {"epoll",           "poll",
                              "uring_oneshot",   "uring_oneshot_defer",
                              "uring_multishot", "uring_multishot_defer"};
const NamedValue kPeers[] = {{"self", int(EventPeer::self)}, {"process", int(EventPeer::process)}};

// An io_uring loop's ring: a poll per pipe in flight, and room to re-arm.
unsigned uring_entries(int pipes) {
    return static_cast<unsigned>(std::max(8, 2 * pipes));
}

class EpollWaiter final : public EventWaiter {
public:
    EpollWaiter() : fd_(::epoll_create1(EPOLL_CLOEXEC)) {
        if (!fd_)
            throw SysError(errno, "epoll_create1");
    }
    void add(int fd, int index) override {
        epoll_event ev{};
        ev.events = EPOLLIN; // level-triggered, as tevent's epoll backend
        ev.data.u32 = static_cast<uint32_t>(index);
        check_syscall(::epoll_ctl(fd_.get(), EPOLL_CTL_ADD, fd, &ev), "epoll_ctl");
        events_.resize(events_.size() + 1);
        watched_ = static_cast<int>(events_.size());
    }
    int wait(int* ready, int max, int timeout_ms) override {
        ++enters_;
        const int n = ::epoll_wait(fd_.get(), events_.data(), std::min(max, watched_), timeout_ms);
        if (n < 0 && errno == EINTR)
            return 0;
        check_syscall(n, "epoll_wait");
        for (int i = 0; i < n; ++i)
            ready[i] = static_cast<int>(events_[size_t(i)].data.u32);
        return n;
    }
    long enters() const override { return enters_; }

private:
    Fd fd_;
    std::vector<epoll_event> events_;
    int watched_ = 0;
    long enters_ = 0;
};

class PollWaiter final : public EventWaiter {
public:
    void add(int fd, int index) override {
        fds_.push_back({fd, POLLIN, 0});
        index_.push_back(index);
    }
    int wait(int* ready, int max, int timeout_ms) override {
        ++enters_;
        const int n = ::poll(fds_.data(), fds_.size(), timeout_ms);
        if (n < 0 && errno == EINTR)
            return 0;
        check_syscall(n, "poll");
        // A pipe whose writer is gone shows POLLHUP, not POLLIN: ready too,
        // so that its read sees the end (else the loop would spin on it).
        int out = 0;
        for (size_t i = 0; i < fds_.size() && out < max; ++i)
            if (fds_[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
                ready[out++] = index_[i];
        return out;
    }
    long enters() const override { return enters_; }

private:
    std::vector<pollfd> fds_;
    std::vector<int> index_;
    long enters_ = 0;
};

// POLL_ADD on a ring: one-shot (re-armed after each event and submitted
// before the next byte is written, so that it waits and is woken) or
// multishot (armed once, re-armed only when the kernel ends it). Every
// io_uring_enter is the ring's, counted.
class UringWaiter final : public EventWaiter {
public:
    UringWaiter(bool multishot, bool defer, int pipes)
        : multishot_(multishot),
          ring_(uring_entries(pipes),
                defer ? IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN : 0),
          uring_(ring_.get()) {}
    void add(int fd, int index) override {
        fds_.resize(std::max<size_t>(fds_.size(), size_t(index) + 1), -1);
        fds_[size_t(index)] = fd;
        arm(index);
    }
    int wait(int* ready, int max, int timeout_ms) override {
        __kernel_timespec timeout{timeout_ms / 1000, (timeout_ms % 1000) * 1000000LL};
        const int n = ring_.submit_and_wait(1, timeout_ms < 0 ? nullptr : &timeout);
        if (n == -EINTR || n == -ETIME)
            return 0;
        check_neg_errno(n, "io_uring_enter");
        int out = 0;
        io_uring_cqe* cqe = nullptr;
        while (out < max && io_uring_peek_cqe(uring_, &cqe) == 0) {
            const int index = static_cast<int>(cqe->user_data);
            const int res = cqe->res;
            const bool more = cqe->flags & IORING_CQE_F_MORE;
            io_uring_cqe_seen(uring_, cqe);
            if (!more)
                ring_.completed();
            if (res < 0)
                throw SysError(-res, multishot_ ? "io_uring multishot poll" : "io_uring poll");
            if (multishot_ && !more)
                arm(index); // the kernel ended it (e.g. CQ overflow): arm again
            ready[out++] = index;
        }
        return out;
    }
    void rearm(int index) override {
        if (!multishot_)
            arm(index);
    }
    bool submit_rearms() override {
        if (io_uring_sq_ready(uring_) == 0)
            return false;
        int n;
        do
            n = ring_.submit_and_wait(0);
        while (n == -EINTR);
        check_neg_errno(n, "io_uring_enter");
        // No byte has been written since these were read: whatever is in
        // the CQ now completed as it was armed.
        armed_ready_ += io_uring_cq_ready(uring_);
        return true;
    }
    long enters() const override { return ring_.enters(); }
    long armed_ready() const override { return armed_ready_; }

private:
    void arm(int index) {
        io_uring_sqe* sqe = io_uring_get_sqe(uring_);
        if (!sqe)
            throw SysError(EBUSY, "io_uring_get_sqe");
        if (multishot_)
            io_uring_prep_poll_multishot(sqe, fds_[size_t(index)], POLLIN);
        else
            io_uring_prep_poll_add(sqe, fds_[size_t(index)], POLLIN);
        sqe->user_data = static_cast<__u64>(index);
        ring_.submitted(1);
    }

    bool multishot_;
    Ring ring_;
    io_uring* uring_;
    std::vector<int> fds_;
    long armed_ready_ = 0;
};

// The other end of the ping-pong: a child process that writes a byte on
// every pipe each time it is asked to (one byte on `control`), and exits
// when `control` closes. This process keeps only the read ends, so the
// child's death shows as end-of-file on them.
class PeerProcess {
public:
    explicit PeerProcess(std::vector<Pipe>& pipes) {
        int fds[2];
        check_syscall(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), "socketpair");
        control_ = Fd(fds[0]);
        Fd child_end(fds[1]);
        std::vector<int> write_ends;
        for (auto& p : pipes)
            write_ends.push_back(p.write_end.get());
        const int asked = child_end.get();
        const int asking = control_.get();
        child_.emplace([asked, asking, write_ends] {
            ::close(asking);
            const char byte = 'e';
            char go;
            while (::recv(asked, &go, 1, 0) == 1)
                for (int fd : write_ends)
                    if (::write(fd, &byte, 1) != 1)
                        return;
        });
        for (auto& p : pipes)
            p.write_end.reset();
    }
    // Asks for the next round's bytes.
    void ask() {
        const char go = 'g';
        if (::send(control_.get(), &go, 1, MSG_NOSIGNAL) != 1)
            throw SysError(errno, "send to the peer process (it is gone)");
    }

private:
    Fd control_;
    std::optional<ChildProcess> child_;
};

// Waits for a peer process's bytes are bounded (kPeerWaitMs). Bytes this
// process wrote itself are there before it waits, so those waits have no
// timeout: the kernel reads the clock for one on every call, even one
// that returns at once, which cost an epoll round here 12% (measured
// 2026-12-03: bench/epoll-pingpong.c with a 100 ms timeout, 5 runs).

// What the measured rounds did.
struct Rounds {
    long events = 0;
    long rounds = 0;
    bool stopped = false;
    LatencyHistogram ticks; // each round's, in the clock's ticks
};

// The measured rounds. A round runs between system calls whose kernel
// work leaves the CPU's caches and branch predictor cold for the code run
// between them, so what a round adds depends on how much code it runs
// through, how many branches it takes and how far apart they lie: the
// same loop inlined into run_events (its writes placed 5 KB from the
// rest, a waiter reached by virtual calls, a histogram recorded with five
// branches) ran at ~0.945 of a bare epoll loop, the bare loop timing its
// rounds the same way at ~0.965 (docs/findings.md). So the rounds are a
// function of their own, once per waiter type (its calls to the waiter
// direct and inlined), their error paths cold and out of the way, the
// peer process's ask the unlikely branch (such a round waits 10-100 us
// for another process), the stop rule one branch, the clock's kind of
// tick compiled in, and the rounds' times stored as they come and added
// to the histogram in batches.
template <bool kCycles, class Waiter>
[[gnu::noinline]] Rounds run_rounds_timed(Waiter& waiter, const std::vector<Pipe>& pipes,
                                          PeerProcess* peer, long target,
                                          const std::function<bool()>& should_stop) {
    const auto ticks = [] { return kCycles ? TickClock::cycles() : now_ns(); };
    // The descriptors side by side, in the order they are used.
    std::vector<int> read_fds, write_fds;
    for (const auto& pp : pipes) {
        read_fds.push_back(pp.read_end.get());
        write_fds.push_back(pp.write_end.get());
    }
    const int n_pipes = static_cast<int>(pipes.size());
    const int wait_ms = peer ? kPeerWaitMs : -1;
    std::vector<int> ready(pipes.size());
    const char byte = 'e';
    long events = 0, rounds = 0;
    StopPoll stop(should_stop);
    LatencyHistogram round_ticks;
    BatchedSamples samples(round_ticks);
    // A round is timed from the write (or the ask) to its last byte read.
    // The clock is read once a round, at its end, which is the next one's
    // start, unless a re-arm is given to the kernel between them (one-shot
    // polls): that is no part of a round, and the clock is read after it.
    // Rounds are timed in the tick clock's ticks (the time-stamp counter,
    // where clock_gettime cost an epoll round ~4.5% here: measured in
    // docs/findings.md), in ns once the loop is done.
    std::int64_t end = ticks();
    while (events < target && !stop.poll()) {
        const std::int64_t start = waiter.submit_rearms() ? ticks() : end;
        if (__builtin_expect(peer != nullptr, 0))
            peer->ask();
        else
            for (int fd : write_fds)
                check_syscall(::write(fd, &byte, 1), "write");
        int remaining = n_pipes;
        while (remaining > 0) {
            const int n = waiter.wait(ready.data(), n_pipes, wait_ms);
            if (n == 0 && stop.poll_now())
                break; // the round is not counted
            for (int i = 0; i < n; ++i) {
                char got;
                const ssize_t len = ::read(read_fds[size_t(ready[size_t(i)])], &got, 1);
                if (__builtin_expect(len != 1, 0)) {
                    if (len < 0 && errno == EAGAIN)
                        continue; // reported twice (a multishot and a re-arm): already read
                    check_syscall(len, "read");
                    throw SysError(EPIPE, "read: the peer process exited, its pipe is closed");
                }
                ++events;
                --remaining;
                waiter.rearm(ready[size_t(i)]);
            }
        }
        if (remaining > 0)
            break; // stopped
        ++rounds;
        end = ticks();
        samples.add(end - start);
    }
    samples.flush();
    Rounds done;
    done.events = events;
    done.rounds = rounds;
    done.stopped = stop.stopped();
    done.ticks = round_ticks;
    return done;
}

// The rounds timed by the clock's kind of tick.
template <class Waiter>
Rounds run_rounds(Waiter& waiter, const std::vector<Pipe>& pipes, PeerProcess* peer, long target,
                  const std::function<bool()>& should_stop, const TickClock& clock) {
    return clock.counts_cycles()
               ? run_rounds_timed<true>(waiter, pipes, peer, target, should_stop)
               : run_rounds_timed<false>(waiter, pipes, peer, target, should_stop);
}

} // namespace

const ParamTable<EventsParams>& events_params() {
    using P = EventsParams;
    static const ParamTable<P> table = {
        {text_param("loop", "'epoll'",
                    "epoll|poll|uring_oneshot|uring_oneshot_defer|uring_multishot|"
                    "uring_multishot_defer|pg_waiteventset",
                    "how to wait (pg_waiteventset: PostgreSQL's own, in a backend only)"),
         [](P& p, const ParamValue& v) { p.loop = v.s; }, nullptr},
        number_row<P, &P::pipes>(
            integer_param("pipes", 1, 1, 1000, "pipes written and waited for each round")),
        number_row<P, &P::events>(
            bigint_param("events", 100000, 1, 100000000, "events (bytes read) in all")),
        {text_param("peer", "'self'", "self|process",
                    "who writes the bytes: this process, after arming its polls, or a child "
                    "process asked for each round once this one is armed"),
         [](P& p, const ParamValue& v) {
             p.peer = static_cast<EventPeer>(lookup_name(kPeers, "peer", v.s));
         },
         nullptr},
    };
    return table;
}

EventsParams::EventsParams() {
    set_defaults(events_params(), *this);
}

void validate(const EventsParams& p, const Caps& caps, const std::string& external) {
    bool known = !external.empty() && p.loop == external;
    std::string names;
    for (const char* b : kLoops) {
        known = known || p.loop == b;
        names += std::string(names.empty() ? "" : ", ") + b;
    }
    if (!external.empty())
        names += ", " + external;
    if (!known)
        throw InvalidArgument("loop must be one of " + names + ", got '" + p.loop + "'");
    check_ranges(events_params(), p, caps);
    // Each pipe written holds a page of pipe buffer; an io_uring loop its ring.
    const bool uring = p.loop.rfind("uring_", 0) == 0;
    const long long page = ::sysconf(_SC_PAGESIZE);
    check_memory(
        "pipes x a page of pipe buffer" +
            (uring ? " + a ring of " + std::to_string(uring_entries(p.pipes)) + " entries"
                   : std::string()),
        p.pipes * page +
            (uring ? static_cast<long long>(estimated_ring_bytes(uring_entries(p.pipes))) : 0),
        caps);
}

EventsResult run_events(const EventsParams& p,
                        const std::function<std::unique_ptr<EventWaiter>()>& external,
                        const std::function<bool()>& should_stop) {
    EventsResult r;
    r.params = p;
    // The pipes outlive the waiter: its polls are cancelled first.
    std::vector<Pipe> pipes;
    pipes.reserve(static_cast<size_t>(p.pipes));
    for (int i = 0; i < p.pipes; ++i)
        pipes.push_back(Pipe::open(O_NONBLOCK));
    // Forked before any ring exists, so that the child holds none; it
    // outlives the waiter, whose polls are cancelled first.
    std::optional<PeerProcess> peer;
    if (p.peer == EventPeer::process)
        peer.emplace(pipes);
    std::unique_ptr<EventWaiter> waiter;
    const std::string& b = p.loop;
    if (b == "epoll")
        waiter = std::make_unique<EpollWaiter>();
    else if (b == "poll")
        waiter = std::make_unique<PollWaiter>();
    else if (b.rfind("uring_", 0) == 0) {
        const bool defer = b.size() > 6 && b.compare(b.size() - 6, 6, "_defer") == 0;
        try {
            waiter = std::make_unique<UringWaiter>(b.find("multishot") != std::string::npos, defer,
                                                   p.pipes);
        } catch (const SysError& e) {
            if (e.err() != EINVAL && e.err() != EOPNOTSUPP)
                throw;
            r.outcome =
                Outcome::unsupported(std::string("the kernel refuses the ring: ") + e.what());
            return r;
        }
    } else if (external)
        waiter = external();
    else
        throw InvalidArgument("loop '" + b + "' is not available here");
    for (int i = 0; i < p.pipes; ++i)
        waiter->add(pipes[size_t(i)].read_end.get(), i);

    const UsageMeter usage(RUSAGE_SELF);
    const std::int64_t t0 = now_ns();
    PeerProcess* const peer_process = peer ? &*peer : nullptr;
    const TickClock clock;
    Rounds done;
    if (auto* epoll = dynamic_cast<EpollWaiter*>(waiter.get()))
        done = run_rounds(*epoll, pipes, peer_process, p.events, should_stop, clock);
    else if (auto* poll = dynamic_cast<PollWaiter*>(waiter.get()))
        done = run_rounds(*poll, pipes, peer_process, p.events, should_stop, clock);
    else if (auto* uring = dynamic_cast<UringWaiter*>(waiter.get()))
        done = run_rounds(*uring, pipes, peer_process, p.events, should_stop, clock);
    else
        done = run_rounds(*waiter, pipes, peer_process, p.events, should_stop, clock);
    r.seconds = (now_ns() - t0) / 1e9; // the rounds' ticks made ns outside the timed run
    r.events = done.events;
    r.rounds = done.rounds;
    r.round_latency = done.ticks.scaled(clock.ns_per_tick());
    r.usage = usage.delta();
    r.enters = waiter->enters();
    r.armed_ready = waiter->armed_ready();
    if (done.stopped)
        r.outcome = Outcome::stopped();
    return r;
}

std::vector<Column> events_columns() {
    return experiment_columns({bigint_column("pipes"), text_column("peer"), bigint_column("rounds"),
                               bigint_column("enters"), bigint_column("armed_ready"),
                               text_column("latency_histogram")});
}

Table events_table(const EventsResult& r) {
    Table t{events_columns(), {}};
    add_row(t, {"events", r.params.loop, r.outcome, r.events, r.seconds, &r.round_latency, r.usage},
            {Value::integer(r.params.pipes), Value::text(name_of(kPeers, int(r.params.peer))),
             Value::integer(r.rounds), r.enters < 0 ? Value::null() : Value::integer(r.enters),
             r.armed_ready < 0 ? Value::null() : Value::integer(r.armed_ready),
             Value::text(r.round_latency.encoded())});
    return t;
}

Table run_events_in_process(const GivenParams& given, const std::function<bool()>& should_stop) {
    const EventsParams p = params_from(events_params(), given);
    if (p.loop == "pg_waiteventset")
        throw InvalidArgument("loop pg_waiteventset is PostgreSQL's own: only "
                              "uringprobe_events() in a backend has it");
    validate(p, {}, "");
    return events_table(run_events(p, nullptr, should_stop));
}

} // namespace uringprobe
