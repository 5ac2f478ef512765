#include "experiments/rings_experiment.hpp"

#include "contract/caps.hpp"
#include "contract/clock.hpp"
#include "contract/error.hpp"
#include "contract/stop_poll.hpp"
#include "os/mapping.hpp"
#include "os/process_snapshot.hpp"
#include "uring/pg_ring_plan.hpp"
#include "uring/ring.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <liburing.h>
#include <optional>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace uringprobe {

namespace {

constexpr int kMaxDepth = 32768; // the kernel's IORING_MAX_ENTRIES

// The rings of one variant; destroying the set closes every ring, then
// unmaps the region the rings lived in.
class RingSet {
public:
    void create_mmap(int n, unsigned depth, bool dontfork) {
        rings_.reserve(n);
        for (int i = 0; i < n; ++i) {
            rings_.emplace_back(depth);
            if (dontfork)
                check_neg_errno(io_uring_ring_dontfork(rings_.back().get()),
                                "io_uring_ring_dontfork");
            bytes_ += rings_.back().mapped_bytes();
        }
    }

    // One shared region, as PostgreSQL places its rings in shared memory:
    // per ring a page-aligned SQE array and a page-aligned ring area.
    void create_no_mmap(int n, unsigned depth) {
        const size_t sq = ring_entries(depth);
        const size_t cq = 2 * sq;
        const size_t sqes_bytes = page_round(sq * sizeof(io_uring_sqe));
        // The kernel's ring header is a few cache lines; 1 KiB covers it.
        const size_t rings_bytes =
            page_round(1024 + cq * sizeof(io_uring_cqe) + sq * sizeof(unsigned));
        region_.emplace(Mapping::anonymous(static_cast<size_t>(n) * (sqes_bytes + rings_bytes),
                                           Mapping::Sharing::shared, "mmap of the ring region"));
        bytes_ = region_->size();
        rings_.reserve(n);
        char* next = region_->data();
        for (int i = 0; i < n; ++i) {
            rings_.push_back(Ring::in_region(depth, next, next + sqes_bytes));
            next += sqes_bytes + rings_bytes;
        }
    }

    size_t bytes() const { return bytes_; }

    void reset() {
        rings_.clear();
        region_.reset();
        bytes_ = 0;
    }

private:
    std::optional<Mapping> region_; // declared first: it outlives the rings in it
    std::vector<Ring> rings_;
    size_t bytes_ = 0;
};

// fork() -> child _exit(0) -> waitpid(), timed as one operation, and the
// part until fork() returns in the parent (copying the address space). The
// child runs nothing of its parent's: no handlers, no atexit, no PostgreSQL.
void time_one_fork(LatencyHistogram& whole, LatencyHistogram& call) {
    const std::int64_t t0 = now_ns();
    const pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    const std::int64_t t1 = now_ns();
    if (pid < 0)
        throw SysError(errno, "fork");
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            throw SysError(errno, "waitpid");
    }
    whole.record(now_ns() - t0);
    call.record(t1 - t0);
}

void check_fd_headroom(int rings) {
    rlimit r{};
    getrlimit(RLIMIT_NOFILE, &r);
    const ProcessSnapshot self = snapshot_process(getpid());
    if (r.rlim_cur != RLIM_INFINITY &&
        static_cast<unsigned long long>(rings) + self.open_fds > r.rlim_cur)
        // EMFILE before the first ring rather than after the last: the
        // error (and its hint) the kernel would give, up front.
        throw SysError(EMFILE,
                       "rings = " + std::to_string(rings) + " needs " + std::to_string(rings) +
                           " file descriptors, but RLIMIT_NOFILE is " + std::to_string(r.rlim_cur) +
                           " with " + std::to_string(self.open_fds) + " open");
}

// Forks per block. The variants take turns block by block, so that drift
// of the machine touches each alike; each block sets its rings up afresh.
constexpr int kBlockForks = 25;

void set_up(RingSet& set, const RingsVariant& v, const RingsParams& p) {
    if (v.variant == "no_mmap")
        set.create_no_mmap(v.rings, static_cast<unsigned>(p.depth));
    else if (v.rings > 0)
        set.create_mmap(v.rings, static_cast<unsigned>(p.depth), p.dontfork);
}

// One block of variant `v`: set up its rings, time `n` forks, tear down.
// The first block also records the mappings and page tables the rings add.
// Stops early once `stop` fires. `after_teardown`: an earlier block of this
// run tore rings down, whose memory the kernel may still be returning.
void run_block(RingsVariant& v, const RingsParams& p, int n, int block, bool after_teardown,
               StopPoll& stop) {
    RingSet set;
    ProcessSnapshot before;
    if (block == 0)
        before = snapshot_process(getpid());
    std::int64_t t_setup = 0; // the attempt that succeeds: waiting is not set-up
    for (int attempt = 0;; ++attempt) {
        try {
            t_setup = now_ns();
            set_up(set, v, p);
            break;
        } catch (const SysError& e) {
            // The kernel returns an earlier block's ring memory to the
            // memlock account asynchronously (an exit work item per ring):
            // give it a moment. Before any teardown, ENOMEM is the limit.
            if (!after_teardown || e.err() != ENOMEM || attempt == 200)
                throw;
            set.reset();
            if (stop.poll_now())
                return; // the forks' loop is not entered
            usleep(5000);
        }
    }
    v.setup_ms += (now_ns() - t_setup) / 1e6;
    if (block == 0) {
        const ProcessSnapshot after = snapshot_process(getpid());
        v.ring_bytes = set.bytes();
        v.maps_before = before.mappings;
        v.pte_before_kb = before.vm_pte_kb;
        v.maps_after = after.mappings;
        v.pte_after_kb = after.vm_pte_kb;
    }
    UsageMeter self(RUSAGE_SELF), children(RUSAGE_CHILDREN);
    const std::int64_t t_forks = now_ns();
    for (int i = 0; i < n; ++i) {
        if (stop.poll_now()) // a fork is a long iteration: ask every time
            break;
        time_one_fork(v.fork_latency, v.fork_call);
        ++v.forks;
    }
    v.fork_seconds += (now_ns() - t_forks) / 1e9;
    v.usage = v.usage + self.delta() + children.delta();
    const std::int64_t t_teardown = now_ns();
    set.reset();
    v.teardown_ms += (now_ns() - t_teardown) / 1e6;
}

} // namespace

void set_ring_modes(RingsParams& p, const std::string& mode) {
    if (mode == "mmap" || mode == "no_mmap" || mode == "both") {
        p.mmap = mode != "no_mmap";
        p.no_mmap = mode != "mmap";
        return;
    }
    throw InvalidArgument("mode must be 'mmap', 'no_mmap' or 'both', got '" + mode + "'");
}

const ParamTable<RingsParams>& rings_params() {
    static const ParamTable<RingsParams> table = {
        number_row<RingsParams, &RingsParams::rings>(
            integer_param("rings", 128, 1, kMaxRings.default_value,
                          "rings to set up; no more than RLIMIT_NOFILE allows")
                .capped_by(kMaxRings.name)),
        number_row<RingsParams, &RingsParams::depth>(
            integer_param("depth", 64, 1, kMaxDepth, "submission entries per ring")),
        {text_param("mode", "'both'", "mmap|no_mmap|both",
                    "each ring its own mappings, all in one region, or both side by side"),
         [](RingsParams& p, const ParamValue& v) { set_ring_modes(p, v.s); }, nullptr},
        boolean_row<RingsParams, &RingsParams::dontfork>(
            boolean_param("dontfork", false, "mmap rings marked MADV_DONTFORK")),
        number_row<RingsParams, &RingsParams::forks>(
            integer_param("forks", 200, 1, kMaxForks.default_value, "forks timed per variant")
                .capped_by(kMaxForks.name)),
    };
    return table;
}

RingsParams::RingsParams() {
    set_defaults(rings_params(), *this);
}

void validate(const RingsParams& p, const Caps& caps) {
    check_ranges(rings_params(), p, caps);
    // One variant's rings exist at a time.
    const long long bytes = static_cast<long long>(p.rings) *
                            static_cast<long long>(estimated_ring_bytes(unsigned(p.depth)));
    const long long cap = cap_value(caps, kMaxMemoryMb);
    if (bytes > (cap << 20))
        throw InvalidArgument("rings x ring memory = " + std::to_string(p.rings) + " x " +
                              std::to_string(estimated_ring_bytes(unsigned(p.depth)) >> 10) +
                              " KiB = " + std::to_string(bytes >> 20) + " MiB exceeds " +
                              kMaxMemoryMb.name + " (" + std::to_string(cap) + " MB)");
    if (p.dontfork && !p.mmap)
        throw InvalidArgument("dontfork applies to mmap rings: use mode 'mmap' or 'both'");
}

RingsResult run_rings(const RingsParams& p, const std::function<bool()>& should_stop) {
    check_fd_headroom(p.rings);
    RingsResult r;
    auto add = [&](const char* name, int rings) {
        RingsVariant v;
        v.variant = name;
        v.rings = rings;
        v.depth = rings ? p.depth : 0;
        r.variants.push_back(v);
    };
    add("baseline", 0);
    if (p.mmap)
        add(p.dontfork ? "mmap+dontfork" : "mmap", p.rings);
    if (p.no_mmap)
        add("no_mmap", p.rings);

    const int nvariants = static_cast<int>(r.variants.size());
    StopPoll stop(should_stop);
    int blocks = 0;
    bool torn_down = false; // some block of this run has set up and torn down rings
    for (int done = 0; done < p.forks && !stop.stopped(); done += kBlockForks, ++blocks) {
        const int n = std::min(kBlockForks, p.forks - done);
        for (int k = 0; k < nvariants && !stop.stopped(); ++k) {
            // Rotate which variant goes first, so none always follows a teardown.
            RingsVariant& v = r.variants[(blocks + k) % nvariants];
            if (!v.outcome.is_ok())
                continue;
            try {
                run_block(v, p, n, blocks, torn_down, stop);
                torn_down = torn_down || v.rings > 0;
            } catch (const SysError& e) {
                if (blocks == 0 && v.variant == "no_mmap" &&
                    (e.err() == EINVAL || e.err() == EOPNOTSUPP)) {
                    v.outcome = Outcome::unsupported(
                        std::string("the kernel rejects IORING_SETUP_NO_MMAP (") +
                        std::strerror(e.err()) + ")");
                    continue;
                }
                throw;
            }
        }
    }
    if (stop.stopped())
        r.outcome = Outcome::stopped();
    for (auto& v : r.variants) {
        if (stop.stopped() && v.outcome.is_ok())
            v.outcome = Outcome::stopped();
        // Set-up and teardown are reported per block.
        if (blocks > 0) {
            v.setup_ms /= blocks;
            v.teardown_ms /= blocks;
        }
    }
    return r;
}

std::vector<Column> rings_columns() {
    return experiment_columns({bigint_column("rings"), bigint_column("depth"),
                               bigint_column("ring_bytes"), real_column("setup_ms"),
                               real_column("teardown_ms"), bigint_column("maps_before"),
                               bigint_column("maps_after"), bigint_column("vmpte_before_kb"),
                               bigint_column("vmpte_after_kb"), real_column("fork_call_p50_us"),
                               real_column("fork_call_p99_us"), text_column("latency_histogram")});
}

Table rings_table(const RingsResult& r) {
    Table t{rings_columns(), {}};
    for (const auto& v : r.variants) {
        const auto& call = v.fork_call;
        const auto call_us = [&](double p) {
            return call.count() ? Value::real(call.percentile(p) / 1e3) : Value::null();
        };
        add_row(t,
                {"rings", v.variant, v.outcome, v.forks, v.fork_seconds, &v.fork_latency, v.usage},
                {Value::integer(v.rings), Value::integer(v.depth),
                 Value::integer(static_cast<std::int64_t>(v.ring_bytes)), Value::real(v.setup_ms),
                 Value::real(v.teardown_ms), Value::integer(v.maps_before),
                 Value::integer(v.maps_after), Value::integer(v.pte_before_kb),
                 Value::integer(v.pte_after_kb), call_us(0.50), call_us(0.99),
                 Value::text(v.fork_latency.encoded())});
    }
    return t;
}

Table run_rings_in_process(const GivenParams& given, const std::function<bool()>& should_stop) {
    const RingsParams p = params_from(rings_params(), given);
    validate(p, {});
    return rings_table(run_rings(p, should_stop));
}

} // namespace uringprobe
