#include "advise.hpp"

#include "clock.hpp"
#include "error.hpp"
#include "extend_experiment.hpp"
#include "fd.hpp"
#include "io_uring_caps.hpp"
#include "pg_ring_plan.hpp"
#include "rings_experiment.hpp"
#include "run_stats.hpp"
#include "system_info.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace uringprobe {

namespace {

// A spread over this many rounds is sure enough; a noisier measurement
// gets up to kMostRounds; below kFewestRounds the advice is only "low".
constexpr int kEnoughRounds = 5;
constexpr int kMostRounds = 7;
constexpr int kFewestRounds = 3;
constexpr double kNoisyPct = 10;
// fork() + exit() with the rings, per variant and round: four blocks of 25,
// so that the order the variants take turns in (the one after a teardown
// of many rings shares the CPUs with the kernel freeing them) averages out.
constexpr int kForksPerRound = 100;
// Each extension run grows one shared file by this much.
constexpr int kExtendMb = 64;
// Added fork cost below this share of a bare fork counts as acceptable: a
// bare fork is about a third of a connection's time (report 1's churn
// cells), so this is under a tenth of a connection. Rings in separate
// mappings add 1.5-3 times a bare fork at 1000 rings, in one region a few
// percent: the line falls between with room for a noisy machine.
constexpr double kForkCostShare = 0.25;
// file_extend_method: a ratio within 5% of 1 is no reason to change it.
constexpr double kExtendMargin = 0.05;

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string seconds_text(double s) {
    return fixed(s, s < 10 ? 1 : 0) + " s";
}

std::string kib_text(unsigned long long bytes) {
    return std::to_string((bytes + 1023) / 1024);
}

std::string limit_text(unsigned long long v) {
    return v == ~0ULL ? "unlimited" : std::to_string(v);
}

const ProbeOutcome* setup_flag(const IoUringCaps& caps, const std::string& name) {
    for (const auto& f : caps.setup_flags)
        if (f.name == name)
            return &f;
    return nullptr;
}

bool accepts(const IoUringCaps& caps, const std::string& name) {
    const ProbeOutcome* f = setup_flag(caps, name);
    return f && f->ok;
}

unsigned round_pow2(unsigned v) {
    unsigned p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

// "high" only with enough rounds and an interval that decides; a
// measurement of fewer rounds, or one scaled from a smaller one, is less.
std::string confidence_of(int rounds, bool decisive, bool scaled) {
    if (rounds >= kEnoughRounds && decisive && !scaled)
        return "high";
    if (rounds >= kFewestRounds)
        return "medium";
    return "low";
}

// A measurement this process cannot make well enough to report (its limits
// allow too small a version of it): the row says why instead.
class NotMeasurable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Something measured in rounds, taking turns with the others.
struct Measurement {
    std::string name;
    double first_estimate = 0; // seconds for a round before one was timed
    // Runs one round; false when a stop cut it short (not counted).
    std::function<bool(int round)> round;
    // The spread (%) of what the advice is decided on, after two rounds.
    std::function<double()> spread;
    int rounds = 0;
    double longest_round = 0;
    double seconds = 0;
    std::string failed;      // the error that ended it
    bool budget_cut = false; // it wanted a round the budget had no room for

    bool wants_more() const {
        if (!failed.empty())
            return false;
        if (rounds < kEnoughRounds)
            return true;
        return rounds < kMostRounds && spread() > kNoisyPct;
    }
    double estimate() const { return rounds ? longest_round : first_estimate; }
    // "5 rounds of 0.4 s" / "not measured: ..."
    std::string account() const {
        std::string out = name + ": ";
        if (rounds)
            out += std::to_string(rounds) + (rounds == 1 ? " round" : " rounds") + " of " +
                   fixed(seconds / rounds, 2) + " s";
        else
            out += "no round";
        if (!failed.empty())
            out += " (stopped by an error: " + failed + ")";
        else if (budget_cut)
            out += " (budget spent; a round takes about " + fixed(estimate(), 2) + " s)";
        return out;
    }
};

// Rounds of all measurements in turn while the budget has room for the
// next one; returns false when should_stop() fired.
bool run_within_budget(const std::vector<Measurement*>& ms, double budget_seconds,
                       std::int64_t start_ns, const std::function<bool()>& should_stop) {
    auto elapsed = [&] { return (now_ns() - start_ns) / 1e9; };
    for (bool ran = true; ran;) {
        ran = false;
        for (Measurement* m : ms) {
            if (should_stop && should_stop())
                return false;
            if (!m->wants_more())
                continue;
            if (elapsed() + m->estimate() > budget_seconds) {
                m->budget_cut = true;
                continue;
            }
            const std::int64_t t0 = now_ns();
            bool complete = false;
            try {
                complete = m->round(m->rounds);
            } catch (const SysError& e) {
                m->failed = e.what();
                if (!e.hint().empty())
                    m->failed += " (" + e.hint() + ")";
                continue;
            } catch (const InvalidArgument& e) {
                m->failed = e.what();
                continue;
            } catch (const NotMeasurable& e) {
                m->failed = e.what();
                continue;
            }
            if (!complete)
                return false;
            const double took = (now_ns() - t0) / 1e9;
            m->seconds += took;
            m->longest_round = std::max(m->longest_round, took);
            ++m->rounds;
            ran = true;
        }
    }
    return true;
}

// ---- io_method: the rings PostgreSQL 18 creates, and what a fork pays ----

struct RingsMeasurement {
    int rings = 0;         // rings measured
    int plan_rings = 0;    // rings the server creates
    bool scaled = false;   // rings < plan_rings: costs scaled up linearly
    std::string why_fewer; // why fewer rings were measured
    bool no_mmap = false;  // the one-region variant is measured too
    std::string no_mmap_refused;
    std::vector<double> base_us, mmap_us, region_us; // fork + exit p50 per round
    std::vector<double> mmap_added, region_added;    // us per connection, scaled
    std::vector<double> mmap_share, region_share;    // added / bare fork
    Measurement m;

    double scale() const { return rings ? static_cast<double>(plan_rings) / rings : 1; }
};

void set_up_rings(RingsMeasurement& rm, const RingPlan& plan, const IoUringCaps& caps,
                  const ProcessLimits& lim, const AdviseRequest& req, unsigned depth,
                  const std::function<bool()>& should_stop) {
    rm.plan_rings = plan.rings;
    rm.rings = plan.rings;
    // Every ring takes a descriptor; keep room for the rest of the process.
    const long long fd_room = lim.nofile_soft == ~0ULL
                                  ? LLONG_MAX
                                  : static_cast<long long>(lim.nofile_soft) - lim.open_fds - 64;
    if (rm.rings > req.max_rings) {
        rm.rings = req.max_rings;
        rm.why_fewer = "uringprobe.max_rings " + std::to_string(req.max_rings);
    }
    if (rm.rings > fd_room) {
        rm.rings = static_cast<int>(std::max(1LL, fd_room));
        rm.why_fewer = "RLIMIT_NOFILE " + limit_text(lim.nofile_soft) + " of this process, with " +
                       std::to_string(lim.open_fds) + " open,";
    }
    if (caps.memlock == MemlockCharge::charged && lim.memlock_soft != ~0ULL &&
        caps.mmap_ring_bytes > 0) {
        const long long fit = static_cast<long long>(lim.memlock_soft / caps.mmap_ring_bytes) - 2;
        if (rm.rings > fit) {
            rm.rings = static_cast<int>(std::max(1LL, fit));
            rm.why_fewer = "RLIMIT_MEMLOCK " + limit_text(lim.memlock_soft) + " of this process";
            if (req.process == "backend" && req.server.io_method == "io_uring")
                rm.why_fewer += ", the server's own rings charged to it too,";
        }
    }
    rm.scaled = rm.rings < rm.plan_rings;
    // The experiment sets up its own region: only the kernel must accept it.
    rm.no_mmap = accepts(caps, "NO_MMAP");
    if (!rm.no_mmap)
        rm.no_mmap_refused = "this kernel refuses IORING_SETUP_NO_MMAP";

    Measurement& m = rm.m;
    m.name = "fork cost at " + std::to_string(rm.rings) + " rings";
    const int variants = rm.no_mmap ? 3 : 2;
    m.first_estimate =
        variants * kForksPerRound * 1.5e-3 + rm.rings * (variants - 1) * 2 * 60e-6 + 0.05;
    const bool server_rings = req.process == "backend" && req.server.io_method == "io_uring";
    m.round = [&rm, depth, server_rings, &should_stop](int) {
        RingsParams p;
        p.depth = static_cast<int>(depth);
        set_ring_modes(p, rm.no_mmap ? "both" : "mmap");
        p.forks = kForksPerRound;
        // Scaled from at most 4 times fewer rings: beyond, the noise of a
        // small difference would be multiplied into the figure.
        const int fewest = std::max(std::min(32, rm.plan_rings), (rm.plan_rings + 3) / 4);
        RingsResult r;
        int memlock_waits = 0;
        for (;;) {
            if (rm.rings < fewest)
                throw NotMeasurable(rm.why_fewer + " allows " + std::to_string(rm.rings) +
                                    " of the server's " + std::to_string(rm.plan_rings) +
                                    " rings, fewer than a quarter: too few to scale from");
            p.rings = rm.rings;
            try {
                r = run_rings(p, should_stop);
                break;
            } catch (const SysError& e) {
                // The kernel gives ring memory back to the memlock account
                // asynchronously: a later round waits for the last round's,
                // and so does the first unless the server's own rings are
                // charged too (then the shortage is theirs, and lasts).
                if (e.err() == ENOMEM && (!rm.base_us.empty() || !server_rings) &&
                    ++memlock_waits <= 40) {
                    usleep(25000);
                    continue;
                }
                // The limits count what the process (for RLIMIT_MEMLOCK:
                // its user, the server's own rings included) already holds:
                // until a first round succeeds, halve the rings and scale.
                if (!rm.base_us.empty() || (e.err() != ENOMEM && e.err() != EMFILE))
                    throw;
                // The fewest that may be scaled from is tried last.
                rm.rings = rm.rings > fewest ? std::max(fewest, rm.rings / 2) : 0;
                rm.scaled = true;
                rm.why_fewer =
                    e.err() == ENOMEM
                        ? std::string("the ring memory this user may still lock (RLIMIT_MEMLOCK") +
                              (server_rings ? ", the server's own rings included)" : ")")
                        : "RLIMIT_NOFILE of this process";
                rm.m.name = "fork cost at " + std::to_string(rm.rings) + " rings";
            }
        }
        if (r.outcome.is_stopped())
            return false;
        double base = 0, mmap = -1, region = -1;
        for (const auto& v : r.variants) {
            if (!v.outcome.is_ok()) {
                if (v.variant == "no_mmap")
                    rm.no_mmap_refused = v.outcome.status();
                continue;
            }
            const double p50 = v.fork_latency.percentile(0.5) / 1000.0;
            if (v.variant == "baseline")
                base = p50;
            else if (v.variant == "mmap")
                mmap = p50;
            else if (v.variant == "no_mmap")
                region = p50;
        }
        rm.base_us.push_back(base);
        const double k = rm.scale();
        if (mmap >= 0) {
            rm.mmap_us.push_back(mmap);
            rm.mmap_added.push_back((mmap - base) * k);
            rm.mmap_share.push_back(base > 0 ? (mmap - base) * k / base : 0);
        }
        if (region >= 0) {
            rm.region_us.push_back(region);
            rm.region_added.push_back((region - base) * k);
            rm.region_share.push_back(base > 0 ? (region - base) * k / base : 0);
        }
        return true;
    };
    m.spread = [&rm, &plan] {
        const auto& v = plan.one_region ? rm.region_us : rm.mmap_us;
        return v.size() < 2 ? 100.0 : summarize_runs(v).spread_pct;
    };
}

// The added cost of one layout: "+310 us per connection (250-370, ...)".
struct LayoutCost {
    bool measured = false;
    RunSummary added;  // us per connection, at the server's ring count
    RunSummary share;  // added / bare fork
    bool adds = false; // beyond kForkCostShare of a bare fork
    bool decisive = false;
};

LayoutCost layout_cost(const std::vector<double>& added, const std::vector<double>& share) {
    LayoutCost c;
    if (added.empty())
        return c;
    c.measured = true;
    c.added = summarize_runs(added);
    c.share = summarize_runs(share);
    c.adds = c.share.median > kForkCostShare;
    c.decisive = c.share.lo > kForkCostShare || c.share.hi < kForkCostShare;
    return c;
}

std::string added_text(const LayoutCost& c) {
    return (c.added.median < 0 ? "" : "+") + describe_runs(c.added, 0, " us", false) +
           " per connection, " + fixed(100 * c.share.median, 0) + "% of a bare fork";
}

// ---- file_extend_method: one filesystem's extension rules ----

struct ExtendVariant {
    std::string name; // posix_fallocate, write_zeros, alternation
    ExtendStrategy strategy;
    ExtendSizing sizing;
    std::vector<double> seconds;
    std::vector<double> us_per_extension;
    long switches = 0, fallocates = 0, zero_writes = 0, extensions = 0;
};

struct ExtendMeasurement {
    std::string dir; // resolved
    std::string fs;
    dev_t dev = 0;
    std::vector<std::string> tablespaces;
    std::vector<ExtendVariant> variants; // posix_fallocate, write_zeros[, alternation]
    std::vector<double> fallocate_over_zeros, alternation_over_fixed; // per round
    Measurement m;
};

const char* sizing_rule_text(ExtendSizing s) {
    return s == ExtendSizing::waiters_prior
               ? "sized by lock waiters and the session's earlier extensions (PostgreSQL 16+)"
               : "sized by lock waiters alone";
}

void set_up_extend(ExtendMeasurement& em, const AdviseRequest& req, ExtendSizing sizing,
                   const std::function<bool()>& should_stop) {
    em.variants.push_back({"posix_fallocate", ExtendStrategy::mdzeroextend, sizing, {}, {}});
    em.variants.push_back({"write_zeros", ExtendStrategy::write_zeros, sizing, {}, {}});
    if (sizing != ExtendSizing::waiters)
        em.variants.push_back(
            {"alternation", ExtendStrategy::mdzeroextend, ExtendSizing::waiters, {}, {}});
    const int mb = std::min(kExtendMb, req.max_scratch_mb);
    Measurement& m = em.m;
    m.name = "extension on " + em.fs + " (" + em.dir + ")";
    // About 6 ms per MB a run (the writes, then flushing them for the next
    // run) on the loop-mounted filesystems of a 2-core machine.
    m.first_estimate = static_cast<double>(em.variants.size()) * mb * 0.006 + 0.1;
    m.round = [&em, &req, mb, &should_stop](int round) {
        const size_t n = em.variants.size();
        std::vector<double> took(n, -1);
        for (size_t k = 0; k < n; ++k) {
            // Rotate the order, so that no variant always follows another.
            const size_t i = (k + static_cast<size_t>(round)) % n;
            ExtendVariant& v = em.variants[i];
            {
                // Start each run with the filesystem's earlier writes flushed.
                Fd dir = Fd::open(em.dir.c_str(), O_RDONLY | O_DIRECTORY, "open " + em.dir);
                check_syscall(::syncfs(dir.get()), "syncfs");
            }
            ExtendParams p;
            p.dir = em.dir;
            p.dir_given = true;
            p.strategy = v.strategy;
            p.interface = ExtendInterface::sync;
            p.total_mb = mb;
            p.write_data = true;
            p.sessions = req.concurrency;
            p.shared = true;
            p.seed = static_cast<std::uint64_t>(round) + 1;
            p.sizing = v.sizing;
            validate(p, {{"uringprobe.max_scratch_mb", req.max_scratch_mb}});
            const ExtendResult r = run_extend(p, {em.dir}, should_stop);
            if (r.outcome.is_stopped())
                return false;
            took[i] = r.seconds;
            v.seconds.push_back(r.seconds);
            if (r.extensions > 0)
                v.us_per_extension.push_back(1e6 * r.seconds / r.extensions);
            v.switches += r.switches;
            v.fallocates += r.fallocate_calls;
            v.zero_writes += r.zero_write_calls;
            v.extensions += r.extensions;
        }
        if (took[0] > 0 && took[1] > 0)
            em.fallocate_over_zeros.push_back(took[0] / took[1]);
        if (n > 2 && took[2] > 0 && took[0] > 0)
            em.alternation_over_fixed.push_back(took[2] / took[0]);
        return true;
    };
    m.spread = [&em] {
        return em.fallocate_over_zeros.size() < 2
                   ? 100.0
                   : summarize_runs(em.fallocate_over_zeros).spread_pct;
    };
}

// The directory scratch files go into: `t.dir` with its parent resolved
// (a tablespace's directory is reached through a symlink in pg_tblspc),
// created if missing; "" and *why when it cannot be used.
std::string resolve_target(const AdviseTarget& t, std::string* why, dev_t* dev) {
    const size_t slash = t.dir.find_last_of('/');
    if (t.dir.empty() || t.dir[0] != '/' || slash == std::string::npos) {
        *why = "not an absolute path: '" + t.dir + "'";
        return "";
    }
    const std::string parent = slash == 0 ? "/" : t.dir.substr(0, slash);
    const std::string last = t.dir.substr(slash + 1);
    char* real = ::realpath(parent.c_str(), nullptr);
    if (!real) {
        *why = parent + ": " + std::strerror(errno);
        return "";
    }
    std::string dir = std::string(real) + (std::string(real) == "/" ? "" : "/") + last;
    std::free(real);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
        *why = "mkdir " + dir + ": " + std::strerror(errno);
        return "";
    }
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        *why = dir + ": " + (errno ? std::strerror(errno) : "not a directory");
        return "";
    }
    if (::access(dir.c_str(), R_OK | W_OK | X_OK) != 0) {
        *why = dir + ": " + std::strerror(errno);
        return "";
    }
    *dev = st.st_dev;
    return dir;
}

} // namespace

void validate(const AdviseRequest& req) {
    if (!(req.budget_seconds > 0))
        throw InvalidArgument("budget must be positive, got " + fixed(req.budget_seconds, 3) +
                              " s");
    if (req.budget_seconds > req.max_budget_seconds)
        throw InvalidArgument(
            "budget " + fixed(req.budget_seconds, 0) + " s exceeds " +
            (req.budget_cap_name.empty() ? std::string("the cap") : req.budget_cap_name) + " (" +
            fixed(req.max_budget_seconds, 0) + " s)");
    check_range("concurrency", req.concurrency, 1, 64);
}

AdviseResult advise(const AdviseRequest& req, const std::function<bool()>& should_stop) {
    validate(req);
    const std::int64_t start = now_ns();
    AdviseResult res;
    const ServerFacts& srv = req.server;
    const Pg18Settings& s = srv.settings;
    validate(s);
    const bool pg18 = srv.version_num >= 180000;
    const std::string on18 = pg18 ? "" : "on PostgreSQL 18: ";
    const unsigned depth = round_pow2(static_cast<unsigned>(s.io_max_concurrency));
    const IoUringCaps caps = probe_io_uring(depth);
    const ProcessLimits lim = current_limits();
    const RingPlan plan = plan_pg18_rings(s, caps, lim);
    const std::string disabled = read_first_line("/proc/sys/kernel/io_uring_disabled");

    // What can be measured, in the order rounds are given.
    std::vector<Measurement*> order;
    RingsMeasurement rm;
    std::string rings_not_measured;
    if (!caps.ring_ok)
        rings_not_measured = "this process cannot create a ring";
    else {
        set_up_rings(rm, plan, caps, lim, req, depth, should_stop);
        order.push_back(&rm.m);
    }

    // Filesystems: each measured once, whatever tablespaces share it.
    const ExtendSizing sizing =
        srv.version_num >= 160000 ? ExtendSizing::waiters_prior : ExtendSizing::waiters;
    const bool extends_by_rule = srv.version_num >= 160000;
    std::vector<std::unique_ptr<ExtendMeasurement>> fss;
    std::vector<std::string> target_why(req.targets.size());
    std::vector<ExtendMeasurement*> target_fs(req.targets.size(), nullptr);
    for (size_t i = 0; i < req.targets.size(); ++i) {
        const AdviseTarget& t = req.targets[i];
        if (!t.unavailable.empty()) {
            target_why[i] = t.unavailable;
            continue;
        }
        if (!extends_by_rule)
            continue;
        if (!req.cannot_write.empty()) {
            target_why[i] = req.cannot_write;
            continue;
        }
        dev_t dev = 0;
        const std::string dir = resolve_target(t, &target_why[i], &dev);
        if (dir.empty())
            continue;
        for (auto& f : fss)
            if (f->dev == dev)
                target_fs[i] = f.get();
        if (!target_fs[i]) {
            fss.push_back(std::make_unique<ExtendMeasurement>());
            ExtendMeasurement& em = *fss.back();
            em.dir = dir;
            em.dev = dev;
            em.fs = filesystem_type(dir);
            set_up_extend(em, req, sizing, should_stop);
            order.push_back(&em.m);
            target_fs[i] = &em;
        }
        target_fs[i]->tablespaces.push_back(t.tablespace);
    }

    if (!run_within_budget(order, req.budget_seconds, start, should_stop)) {
        res.outcome = Outcome::stopped();
        res.seconds = (now_ns() - start) / 1e9;
        return res;
    }

    auto add = [&res](std::string topic, std::string setting, std::string current,
                      std::string advice, std::string confidence, std::string evidence,
                      std::string cost) {
        res.rows.push_back({std::move(topic), std::move(setting), std::move(current),
                            std::move(advice), std::move(confidence), std::move(evidence),
                            std::move(cost)});
    };

    // ---- io_method ----
    const LayoutCost mmap_cost = layout_cost(rm.mmap_added, rm.mmap_share);
    const LayoutCost region_cost = layout_cost(rm.region_added, rm.region_share);
    const LayoutCost& own = plan.one_region ? region_cost : mmap_cost;
    const std::string layout_name = plan.one_region ? "one region" : "separate mappings per ring";
    std::string rings_evidence;
    if (!rings_not_measured.empty() || rm.m.rounds == 0) {
        const std::string why = !rings_not_measured.empty() ? rings_not_measured
                                : !rm.m.failed.empty()      ? rm.m.failed
                                                            : "the budget had no room for a round";
        rings_evidence = "fork cost not measured: " + why;
    } else {
        rings_evidence = "fork + exit of this process with " + std::to_string(rm.rings) +
                         " rings of " + std::to_string(depth) + " entries, p50 of " +
                         std::to_string(kForksPerRound) + " forks a round: bare " +
                         describe_runs(summarize_runs(rm.base_us), 0, " us");
        if (!rm.mmap_us.empty())
            rings_evidence +=
                "; separate mappings " + describe_runs(summarize_runs(rm.mmap_us), 0, " us");
        if (!rm.region_us.empty())
            rings_evidence +=
                "; one region " + describe_runs(summarize_runs(rm.region_us), 0, " us");
        if (rm.scaled)
            rings_evidence += "; scaled to the server's " + std::to_string(rm.plan_rings) +
                              " rings (" + rm.why_fewer + " allows " + std::to_string(rm.rings) +
                              ")";
        if (req.process == "backend" && srv.io_method == "io_uring")
            rings_evidence += "; this backend already holds the server's own rings, so the "
                              "bare fork includes them";
        if (!rm.m.failed.empty())
            rings_evidence += "; an error ended the rounds: " + rm.m.failed;
    }
    const std::string kernel_text = "kernel " + kernel_release() + ": kernel.io_uring_disabled " +
                                    (disabled.empty() ? "absent" : disabled) + ", NO_MMAP " +
                                    (accepts(caps, "NO_MMAP") ? "accepted" : "refused") +
                                    ", DEFER_TASKRUN " +
                                    (accepts(caps, "DEFER_TASKRUN") ? "accepted" : "refused");
    const std::string plan_text = std::to_string(plan.rings) + " rings (" + plan.rings_formula +
                                  "), " + fixed(plan.ring_bytes / 1048576.0, 1) +
                                  " MiB of ring memory, " + layout_name;
    {
        std::string advice, confidence, evidence, cost;
        const std::string current =
            pg18 ? srv.io_method : "none (PostgreSQL " + srv.version + ": no asynchronous I/O)";
        if (!caps.ring_ok) {
            advice = on18 + "io_method = worker";
            confidence = "high";
            evidence = "io_uring_setup fails in this process: " +
                       std::string(strerrorname_np(caps.ring_err) ? strerrorname_np(caps.ring_err)
                                                                  : "errno") +
                       " (" + std::strerror(caps.ring_err) +
                       "): " + errno_hint(caps.ring_err, "io_uring_setup") + "; " + kernel_text;
            cost = "io_uring is not available to the server's processes";
        } else if (plan.emfile || plan.enomem) {
            advice = on18 + "io_method = worker";
            if (plan.emfile)
                advice += " until ulimit -n is at least " + std::to_string(plan.fds_recommended);
            if (plan.enomem)
                advice += std::string(plan.emfile ? " and" : " until") + " ulimit -l is at least " +
                          kib_text(plan.locked_bytes);
            confidence = "high";
            evidence = plan.verdict_detail + "; " + plan_text + "; " + rings_evidence;
            cost = "io_method = io_uring would stop the server from starting";
        } else {
            const bool acceptable = own.measured ? !own.adds : plan.one_region;
            advice = on18 + (acceptable ? "io_method = io_uring" : "io_method = worker");
            if (!acceptable && !plan.one_region && accepts(caps, "NO_MMAP"))
                advice += " (or io_uring with the rings in one region: see ring layout)";
            if (acceptable && plan.fd_headroom_short)
                advice += " with ulimit -n " + std::to_string(plan.fds_recommended);
            confidence = own.measured ? confidence_of(rm.m.rounds, own.decisive, rm.scaled) : "low";
            evidence = "starts: " + plan.verdict_detail + "; " + plan_text + "; " + rings_evidence +
                       "; " + kernel_text;
            cost = own.measured ? added_text(own) + " (" + layout_name + ")"
                                : "not measured: computed, every fork copies " +
                                      (plan.one_region
                                           ? std::to_string(plan.rings) + " ring fds"
                                           : std::to_string(plan.rings * plan.mappings_per_ring) +
                                                 " ring mappings and " +
                                                 std::to_string(plan.rings) + " ring fds");
        }
        add("io_method", "io_method", current, advice, confidence, evidence, cost);
    }

    // ---- ring layout ----
    {
        const std::string current =
            plan.one_region
                ? "one region (io_uring_queue_init_mem, NO_MMAP)"
                : "separate: " + std::to_string(plan.mappings_per_ring) + " mappings per ring, " +
                      std::to_string(plan.rings * plan.mappings_per_ring) + " in every process";
        std::string advice, confidence = "high", evidence = rings_evidence, cost;
        if (!caps.ring_ok) {
            advice = "none: io_uring is not available here";
            cost = "none";
        } else if (plan.one_region) {
            advice = "keep one region";
            confidence = own.measured ? confidence_of(rm.m.rounds, own.decisive, rm.scaled) : "low";
            cost = own.measured ? added_text(region_cost) : "not measured";
        } else {
            advice = accepts(caps, "NO_MMAP")
                         ? "one region: build PostgreSQL 18 against liburing 2.5 or later "
                           "(io_uring_queue_init_mem); this kernel accepts IORING_SETUP_NO_MMAP"
                         : "one region needs a kernel with IORING_SETUP_NO_MMAP (6.5 or later) "
                           "and liburing 2.5 or later; until then io_method = worker";
            if (mmap_cost.measured && region_cost.measured) {
                const bool differs = mmap_cost.added.lo > region_cost.added.hi;
                confidence = confidence_of(rm.m.rounds, differs, rm.scaled);
                cost = added_text(mmap_cost) + ", against " + added_text(region_cost) +
                       " in one region";
            } else {
                confidence = mmap_cost.measured ? "medium" : "low";
                cost =
                    mmap_cost.measured
                        ? added_text(mmap_cost)
                        : "not measured: " + std::to_string(plan.rings * plan.mappings_per_ring) +
                              " ring mappings copied by every fork";
                if (!rm.no_mmap_refused.empty())
                    evidence += "; one region not measured: " + rm.no_mmap_refused;
            }
        }
        add("io_method", "ring layout", current, advice, confidence, evidence, cost);
    }

    // ---- file_extend_method, per tablespace ----
    for (size_t i = 0; i < req.targets.size(); ++i) {
        const AdviseTarget& t = req.targets[i];
        const std::string setting = "file_extend_method (" + t.tablespace + ")";
        const bool has_setting = !req.file_extend_method.empty();
        const std::string current =
            has_setting ? req.file_extend_method
            : extends_by_rule
                ? "posix_fallocate (fixed: file_extend_method came with PostgreSQL 18.2)"
                : "none (PostgreSQL " + srv.version + " extends one block per write)";
        const std::string keep = "keep file_extend_method = " +
                                 (has_setting ? req.file_extend_method : "posix_fallocate");
        if (!extends_by_rule) {
            add("file_extend_method", setting, current,
                "none before PostgreSQL 16: relations grow one block per write, never by "
                "fallocate",
                "high", "not measured: no extension rule to choose", "none");
            continue;
        }
        ExtendMeasurement* em = target_fs[i];
        if (!em || em->m.rounds == 0) {
            std::string why = !target_why[i].empty()        ? target_why[i]
                              : em && !em->m.failed.empty() ? em->m.failed
                                                            : "the budget had no room for a round";
            add("file_extend_method", setting, current, keep, "low", "not measured: " + why,
                "not measured");
            continue;
        }
        const ExtendVariant& fa = em->variants[0];
        const ExtendVariant& wz = em->variants[1];
        const RunSummary ratio = summarize_runs(em->fallocate_over_zeros);
        std::string better;
        bool decisive;
        // A change is advised where the interval excludes no difference
        // and the median is beyond the margin; it is sure ("high") only
        // where the whole interval is beyond the margin: with 5 runs the
        // interval of a median is about the middle runs' range.
        if (ratio.lo > 1 && ratio.median > 1 + kExtendMargin) {
            better = "write_zeros";
            decisive = ratio.lo > 1 + kExtendMargin;
        } else if (ratio.hi < 1 && ratio.median < 1 - kExtendMargin) {
            better = "posix_fallocate";
            decisive = ratio.hi < 1 - kExtendMargin;
        } else {
            decisive = ratio.lo >= 1 - kExtendMargin && ratio.hi <= 1 + kExtendMargin;
        }
        std::string advice;
        if (better.empty())
            // Within the margin both ways, or an interval too wide to say.
            advice = keep +
                     (decisive ? " (the two within 5% of each other: "
                               : " (no difference beyond 5% shown: ") +
                     fixed(ratio.median, 2) + ", interval " + fixed(ratio.lo, 2) + "-" +
                     fixed(ratio.hi, 2) + ")";
        else if (has_setting)
            advice = "file_extend_method = " + better;
        else
            advice = better == "write_zeros"
                         ? "file_extend_method = write_zeros (PostgreSQL 18.2 or later)"
                         : keep;
        std::string evidence = em->fs + " at " + em->dir + ", " + std::to_string(req.concurrency) +
                               (req.concurrency == 1 ? " session" : " sessions") + " growing one " +
                               std::to_string(std::min(kExtendMb, req.max_scratch_mb)) +
                               " MB file, data written, " + sizing_rule_text(sizing) +
                               ": posix_fallocate " +
                               describe_runs(summarize_runs(fa.seconds), 3, " s") + ", " +
                               std::to_string(fa.switches / em->m.rounds) +
                               " fallocate<->zeros switches a run; write_zeros " +
                               describe_runs(summarize_runs(wz.seconds), 3, " s") +
                               "; posix_fallocate / write_zeros " + describe_runs(ratio, 2);
        if (em->variants.size() > 2 && !em->alternation_over_fixed.empty()) {
            const ExtendVariant& alt = em->variants[2];
            evidence += "; sized by lock waiters alone (before 82a4edab) posix_fallocate "
                        "alternates: " +
                        describe_runs(summarize_runs(alt.seconds), 3, " s") + ", " +
                        std::to_string(alt.switches / em->m.rounds) + " switches a run, " +
                        describe_runs(summarize_runs(em->alternation_over_fixed), 2) +
                        " x the sizing with 82a4edab";
        }
        if (!em->m.failed.empty())
            evidence += "; an error ended the rounds: " + em->m.failed;
        if (em->tablespaces.size() > 1)
            evidence += "; the same filesystem holds " + std::to_string(em->tablespaces.size()) +
                        " tablespaces, measured once";
        const bool current_is_zeros = has_setting && req.file_extend_method == "write_zeros";
        const ExtendVariant& cur = current_is_zeros ? wz : fa;
        const ExtendVariant& other = current_is_zeros ? fa : wz;
        std::string cost = fixed(summarize_runs(cur.us_per_extension).median, 1) +
                           " us per extension with " + cur.name + ", against " +
                           fixed(summarize_runs(other.us_per_extension).median, 1) + " with " +
                           other.name;
        add("file_extend_method", setting, current, advice,
            confidence_of(em->m.rounds, decisive, false), evidence, cost);
    }

    // ---- limits ----
    {
        const std::string for_io_uring = "io_method=io_uring at max_connections " +
                                         std::to_string(s.max_connections) + " needs ";
        const unsigned long long need = static_cast<unsigned long long>(plan.fds_recommended);
        const std::string evidence =
            for_io_uring + std::to_string(plan.rings) + " ring fds + max_files_per_process " +
            std::to_string(s.max_files_per_process) + " = " + std::to_string(need) + "; " +
            std::to_string(lim.open_fds) + " open in this process now";
        // Said for io_uring: the server runs it, or would once advised to.
        const std::string before =
            srv.io_method == "io_uring" ? "" : " before io_method = io_uring";
        std::string advice;
        if (lim.nofile_soft < need)
            advice = on18 + "ulimit -n " + std::to_string(need) + " (now short by " +
                     std::to_string(need - lim.nofile_soft) + ")" + before;
        else
            advice = "keep ulimit -n " + limit_text(lim.nofile_soft) +
                     (lim.nofile_soft == ~0ULL
                          ? ""
                          : " (margin " + std::to_string(lim.nofile_soft - need) + ")");
        add("limits", "ulimit -n", limit_text(lim.nofile_soft), advice, "high", evidence,
            "one fd per ring in the postmaster and in every backend: " +
                std::to_string(plan.rings));
    }
    {
        std::string advice, evidence;
        const std::string memlock_now =
            lim.memlock_soft == ~0ULL ? "unlimited" : kib_text(lim.memlock_soft) + " KiB";
        if (caps.memlock != MemlockCharge::charged) {
            advice = "keep ulimit -l " +
                     (lim.memlock_soft == ~0ULL ? std::string("unlimited")
                                                : kib_text(lim.memlock_soft)) +
                     " (ring memory is not charged to it here)";
            evidence = "this kernel does not charge ring memory to RLIMIT_MEMLOCK (" +
                       caps.memlock_detail + ")";
        } else {
            const std::string need = kib_text(plan.locked_bytes);
            evidence = "ring memory is charged to RLIMIT_MEMLOCK, per user: " + need + " KiB for " +
                       std::to_string(plan.rings) + " rings of " + std::to_string(depth) +
                       " entries";
            if (lim.memlock_soft != ~0ULL && lim.memlock_soft < plan.locked_bytes)
                advice = on18 + "ulimit -l " + need + " (KiB; now short by " +
                         kib_text(plan.locked_bytes - lim.memlock_soft) + ")" +
                         (srv.io_method == "io_uring" ? "" : " before io_method = io_uring");
            else
                advice = "keep ulimit -l " +
                         (lim.memlock_soft == ~0ULL
                              ? std::string("unlimited")
                              : kib_text(lim.memlock_soft) + " (margin " +
                                    kib_text(lim.memlock_soft - plan.locked_bytes) + " KiB)");
        }
        add("limits", "ulimit -l", memlock_now, advice, "high", evidence,
            fixed(plan.ring_bytes / 1048576.0, 1) + " MiB of ring memory");
    }

    // ---- budget ----
    res.seconds = (now_ns() - start) / 1e9;
    {
        std::string evidence =
            "spent " + seconds_text(res.seconds) + " of " + seconds_text(req.budget_seconds);
        if (!req.budget_note.empty())
            evidence += " (" + req.budget_note + ")";
        double more = 0;
        bool cut = false, failed = false;
        for (const Measurement* m : order) {
            cut = cut || m->budget_cut;
            failed = failed || !m->failed.empty();
            evidence += "; " + m->account();
            if (m->budget_cut && m->rounds < kEnoughRounds)
                more += (kEnoughRounds - m->rounds) * m->estimate();
        }
        if (order.empty())
            evidence += "; nothing could be measured";
        std::string advice =
            more > 0
                ? "budget => '" +
                      std::to_string(static_cast<long>(std::ceil(req.budget_seconds + more))) +
                      " s' for " + std::to_string(kEnoughRounds) + " rounds of each"
                : "keep budget => '" + fixed(req.budget_seconds, 0) + " s': " +
                      (failed ? std::string("an error, not the budget, ended a measurement")
                       : cut  ? "every measurement got " + std::to_string(kEnoughRounds) + " rounds"
                              : std::string("every measurement got the rounds it wanted"));
        add("budget", "budget", seconds_text(req.budget_seconds), advice, "high", evidence,
            seconds_text(res.seconds) + " of this process's time");
    }
    return res;
}

Table advise_table(const AdviseResult& r) {
    Table t;
    t.columns = {"topic", "setting", "current", "advice", "confidence", "evidence", "cost"};
    for (const auto& row : r.rows)
        t.rows.push_back({Value::text(row.topic), Value::text(row.setting),
                          Value::text(row.current), Value::text(row.advice),
                          Value::text(row.confidence), Value::text(row.evidence),
                          Value::text(row.cost)});
    return t;
}

} // namespace uringprobe
