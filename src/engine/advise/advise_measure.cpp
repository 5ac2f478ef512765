#include "advise/advise_measure.hpp"

#include "experiments/reads_experiment.hpp"

#include "advise/advise_wording.hpp"
#include "contract/error.hpp"
#include "contract/stop_poll.hpp"
#include "experiments/rings_experiment.hpp"
#include "io/scratch_file.hpp"
#include "io/worker_pool_reads.hpp"
#include "os/fd.hpp"
#include "os/system_info.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace uringprobe {

namespace {

// Descriptors kept free for the rest of the process beside the rings.
constexpr long long kFdReserve = 64;
// Rings' worth of RLIMIT_MEMLOCK kept free beside the rings measured
// (the capability probe's rings, a ring the kernel has not given back yet).
constexpr long long kMemlockSpareRings = 2;
// A fork cost is scaled from at most this many times fewer rings than the
// server's, and from no fewer than kFewestScaledRings (or all of them):
// beyond, the noise of a small difference would be multiplied into it.
constexpr int kMostScaledDown = 4;
constexpr int kFewestScaledRings = 32;
// The kernel gives ring memory back to the memlock account asynchronously:
// a set-up refused ENOMEM waits this long, this many times, for it.
constexpr useconds_t kMemlockWaitUs = 25000;
constexpr int kMemlockWaits = 40;
// First estimates of a round, before one was timed: a fork + exit with
// margin on a small VM, a ring's set-up and teardown, an extension run's
// writes and their flush per MB on a loop-mounted filesystem.
constexpr double kForkSeconds = 1.5e-3;
constexpr double kRingSetupSeconds = 2 * 60e-6;
constexpr double kExtendSecondsPerMb = 0.006;

// What a per-filesystem summary says of where it ran and the rounds it
// got: false, and why, where it got none.
template <class Summary>
bool where_and_rounds(Summary& s, const std::string& tablespace, const std::string& fs,
                      const std::string& dir, const Measurement& m) {
    s.tablespace = tablespace;
    s.fs = fs;
    s.dir = dir;
    s.rounds = m.rounds;
    s.failed = m.failed;
    if (m.rounds == 0)
        s.not_measured = !m.failed.empty() ? m.failed : "the budget had no room for a round";
    return m.rounds > 0;
}

} // namespace

// ---- fork cost ----

void ForkCostMeasurement::fit_rings(const IoUringCaps& caps) {
    const ProcessLimits& lim = c_.limits;
    // Every ring takes a descriptor; keep room for the rest of the process.
    const long long fd_room = lim.nofile_soft == ~0ULL ? LLONG_MAX
                                                       : static_cast<long long>(lim.nofile_soft) -
                                                             lim.open_fds - kFdReserve;
    const long long max_rings = cap_value(limits_, kMaxRings);
    if (rings_ > max_rings) {
        rings_ = static_cast<int>(max_rings);
        why_fewer_ = std::string(kMaxRings.name) + " " + std::to_string(max_rings);
    }
    // As uringprobe_rings() counts a ring's memory, or as measured if more.
    const long long max_memory_mb = cap_value(limits_, kMaxMemoryMb);
    const long long ring_bytes = std::max<long long>(
        static_cast<long long>(caps.mmap_ring_bytes),
        static_cast<long long>(estimated_ring_bytes(static_cast<unsigned>(c_.depth))));
    const long long by_memory = (max_memory_mb << 20) / ring_bytes;
    if (rings_ > by_memory) {
        rings_ = static_cast<int>(std::max(1LL, by_memory));
        why_fewer_ = std::string(kMaxMemoryMb.name) + " " + std::to_string(max_memory_mb) + " MB";
    }
    if (rings_ > fd_room) {
        rings_ = static_cast<int>(std::max(1LL, fd_room));
        why_fewer_ = "RLIMIT_NOFILE " + limit_text(lim.nofile_soft) + " of this process, with " +
                     std::to_string(lim.open_fds) + " open,";
    }
    if (caps.memlock == MemlockCharge::charged && lim.memlock_soft != ~0ULL &&
        caps.mmap_ring_bytes > 0) {
        const long long fit =
            static_cast<long long>(lim.memlock_soft / caps.mmap_ring_bytes) - kMemlockSpareRings;
        if (rings_ > fit) {
            rings_ = static_cast<int>(std::max(1LL, fit));
            why_fewer_ = "RLIMIT_MEMLOCK " + limit_text(lim.memlock_soft) + " of this process";
            if (c_.holds_server_rings())
                why_fewer_ += ", the server's own rings charged to it too,";
        }
    }
}

ForkCostMeasurement::ForkCostMeasurement(const AdviseContext& c, const IoUringCaps& caps,
                                         const Caps& limits,
                                         const std::function<bool()>& should_stop)
    : c_(c), should_stop_(should_stop), limits_(limits), rings_(c.plan.rings) {
    fit_rings(caps);
    const long long max_forks = cap_value(limits_, kMaxForks);
    if (forks_ > max_forks) {
        forks_ = static_cast<int>(max_forks);
        forks_capped_ = std::string(kMaxForks.name) + " " + std::to_string(max_forks);
    }
    scaled_ = rings_ < c.plan.rings;
    // The experiment sets up its own region: only the kernel must accept it.
    no_mmap_ = c.no_mmap_accepted;
    if (!no_mmap_)
        no_mmap_refused_ = "this kernel refuses IORING_SETUP_NO_MMAP";
    m_.name = "fork cost at " + std::to_string(rings_) + " rings";
    const int variants = no_mmap_ ? 3 : 2;
    m_.first_estimate =
        variants * forks_ * kForkSeconds + rings_ * (variants - 1) * kRingSetupSeconds + 0.05;
    m_.round = [this](int) { return round(); };
    m_.spread = [this] {
        const auto& v = c_.plan.one_region ? region_us_ : mmap_us_;
        return v.size() < 2 ? 100.0 : summarize_runs(v).spread_pct;
    };
}

int ForkCostMeasurement::fewest_rings() const {
    const int plan_rings = c_.plan.rings;
    return std::max(std::min(kFewestScaledRings, plan_rings),
                    (plan_rings + kMostScaledDown - 1) / kMostScaledDown);
}

void ForkCostMeasurement::fewer_rings(int err) {
    const int fewest = fewest_rings();
    // The fewest that may be scaled from is tried last.
    rings_ = rings_ > fewest ? std::max(fewest, rings_ / 2) : 0;
    scaled_ = true;
    why_fewer_ = err == ENOMEM
                     ? std::string("the ring memory this user may still lock (RLIMIT_MEMLOCK") +
                           (c_.holds_server_rings() ? ", the server's own rings included)" : ")")
                     : "RLIMIT_NOFILE of this process";
    m_.name = "fork cost at " + std::to_string(rings_) + " rings";
}

bool ForkCostMeasurement::round() {
    const int plan_rings = c_.plan.rings;
    const int fewest = fewest_rings();
    RingsParams p;
    p.depth = static_cast<int>(c_.depth);
    set_ring_modes(p, no_mmap_ ? "both" : "mmap");
    p.forks = forks_;
    RingsResult r;
    int memlock_waits = 0;
    for (;;) {
        if (rings_ < fewest)
            throw NotMeasurable(why_fewer_ + " allows " + std::to_string(rings_) +
                                " of the server's " + std::to_string(plan_rings) +
                                " rings, fewer than a quarter: too few to scale from");
        p.rings = rings_;
        validate(p, limits_); // as uringprobe_rings() would be
        try {
            r = run_rings(p, should_stop_);
            break;
        } catch (const SysError& e) {
            // A later round waits for the last round's ring memory, and so
            // does the first unless the server's own rings are charged too
            // (then the shortage is theirs, and lasts).
            if (e.err() == ENOMEM && (!base_us_.empty() || !c_.holds_server_rings()) &&
                ++memlock_waits <= kMemlockWaits) {
                usleep(kMemlockWaitUs);
                continue;
            }
            // The limits count what the process (for RLIMIT_MEMLOCK: its
            // user, the server's own rings included) already holds: until
            // a first round succeeds, halve the rings and scale.
            if (!base_us_.empty() || (e.err() != ENOMEM && e.err() != EMFILE))
                throw;
            fewer_rings(e.err());
        }
    }
    if (r.outcome.is_stopped())
        return false;
    double base = 0, mmap = -1, region = -1;
    for (const auto& v : r.variants) {
        if (!v.outcome.is_ok()) {
            if (v.variant == "no_mmap")
                no_mmap_refused_ = v.outcome.status();
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
    base_us_.push_back(base);
    const double k = rings_ ? static_cast<double>(plan_rings) / rings_ : 1;
    if (mmap >= 0) {
        mmap_us_.push_back(mmap);
        mmap_added_.push_back((mmap - base) * k);
        mmap_share_.push_back(base > 0 ? (mmap - base) * k / base : 0);
    }
    if (region >= 0) {
        region_us_.push_back(region);
        region_added_.push_back((region - base) * k);
        region_share_.push_back(base > 0 ? (region - base) * k / base : 0);
    }
    return true;
}

ForkCostSummary ForkCostMeasurement::summary() const {
    ForkCostSummary s;
    s.rounds = m_.rounds;
    s.rings = rings_;
    s.plan_rings = c_.plan.rings;
    s.scaled = scaled_;
    s.why_fewer = why_fewer_;
    s.forks_per_round = forks_;
    s.forks_capped = forks_capped_;
    s.region_refused = no_mmap_refused_;
    s.failed = m_.failed;
    if (m_.rounds == 0) {
        s.not_measured = !m_.failed.empty() ? m_.failed : "the budget had no room for a round";
        return s;
    }
    s.bare_us = summarize_runs(base_us_);
    auto layout = [](const std::vector<double>& us, const std::vector<double>& added,
                     const std::vector<double>& share) {
        return LayoutFigures{summarize_runs(us), summarize_runs(added), summarize_runs(share)};
    };
    if (!mmap_added_.empty())
        s.separate = layout(mmap_us_, mmap_added_, mmap_share_);
    if (!region_added_.empty())
        s.region = layout(region_us_, region_added_, region_share_);
    return s;
}

// ---- extension ----

ExtendMeasurement::ExtendMeasurement(const AdviseContext& c, std::string dir, std::string fs,
                                     dev_t dev, const Caps& limits,
                                     const std::function<bool()>& should_stop)
    : c_(c), should_stop_(should_stop), dir_(std::move(dir)), fs_(std::move(fs)), dev_(dev),
      limits_(limits),
      mb_(static_cast<int>(std::min<long long>(kExtendMb, cap_value(limits, kMaxScratchMb)))) {
    const ExtendSizing sizing =
        c.server.version_num >= 160000 ? ExtendSizing::waiters_prior : ExtendSizing::waiters;
    variants_.push_back({ExtendStrategy::mdzeroextend, sizing, {}, {}});
    variants_.push_back({ExtendStrategy::write_zeros, sizing, {}, {}});
    if (sizing != ExtendSizing::waiters)
        variants_.push_back({ExtendStrategy::mdzeroextend, ExtendSizing::waiters, {}, {}});
    m_.name = "extension on " + fs_ + " (" + dir_ + ")";
    m_.first_estimate = static_cast<double>(variants_.size()) * mb_ * kExtendSecondsPerMb + 0.1;
    m_.round = [this](int round_no) { return round(round_no); };
    m_.spread = [this] {
        return fallocate_over_zeros_.size() < 2 ? 100.0
                                                : summarize_runs(fallocate_over_zeros_).spread_pct;
    };
}

bool ExtendMeasurement::round(int round_no) {
    const size_t n = variants_.size();
    std::vector<ExtendResult> results(n); // kept once every variant ran
    for (size_t k = 0; k < n; ++k) {
        // Rotate the order, so that no variant always follows another.
        const size_t i = (k + static_cast<size_t>(round_no)) % n;
        Variant& v = variants_[i];
        // No syncfs first: the filesystem holds a database, whose writes
        // are not this call's to force out (an earlier run's file, removed,
        // takes its dirty pages with it).
        ExtendParams p;
        p.dir = dir_;
        p.dir_given = true;
        p.strategy = v.strategy;
        p.interface = ExtendInterface::sync;
        p.total_mb = mb_;
        p.write_data = true;
        p.sessions = c_.concurrency;
        p.shared = true;
        p.seed = static_cast<std::uint64_t>(round_no) + 1;
        p.sizing = v.sizing;
        validate(p, limits_); // as uringprobe_extend() would be: a cap beyond names it
        results[i] = run_extend(p, {dir_}, should_stop_);
        if (results[i].outcome.is_stopped())
            return false;
    }
    for (size_t i = 0; i < n; ++i) {
        const ExtendResult& r = results[i];
        Variant& v = variants_[i];
        v.seconds.push_back(r.seconds);
        if (r.extensions > 0)
            v.us_per_extension.push_back(1e6 * r.seconds / r.extensions);
        v.switches += r.switches;
    }
    const auto took = [&](size_t i) { return results[i].seconds; };
    if (took(0) > 0 && took(1) > 0)
        fallocate_over_zeros_.push_back(took(0) / took(1));
    if (n > 2 && took(2) > 0 && took(0) > 0)
        alternation_over_fixed_.push_back(took(2) / took(0));
    return true;
}

ExtendSummary ExtendMeasurement::summary() const {
    ExtendSummary s;
    s.fs = fs_;
    s.dir = dir_;
    s.sessions = c_.concurrency;
    s.mb = mb_;
    s.sizing = variants_[0].sizing;
    s.rounds = m_.rounds;
    s.failed = m_.failed;
    s.tablespaces = tablespaces_;
    if (m_.rounds == 0) {
        s.not_measured = !m_.failed.empty() ? m_.failed : "the budget had no room for a round";
        return s;
    }
    auto figures = [this](const Variant& v) {
        ExtendFigures f;
        f.seconds = summarize_runs(v.seconds);
        if (!v.us_per_extension.empty())
            f.us_per_extension = summarize_runs(v.us_per_extension);
        f.switches_per_run = v.switches / m_.rounds;
        return f;
    };
    s.fallocate = figures(variants_[0]);
    s.zeros = figures(variants_[1]);
    s.fallocate_over_zeros = summarize_runs(fallocate_over_zeros_);
    if (variants_.size() > 2 && !alternation_over_fixed_.empty()) {
        s.alternation = figures(variants_[2]);
        s.alternation_over_fixed = summarize_runs(alternation_over_fixed_);
    }
    return s;
}

// ---- reads ----

// io_combine_limit's reads in kB, as uringprobe_reads() takes them: the
// power of two at or below it (4 to 1024).
int read_block_kb(int io_combine_limit) {
    const int kb = std::max(1, io_combine_limit) * 8;
    int p = 4;
    while (p * 2 <= kb && p < 1024)
        p *= 2;
    return p;
}

ReadsMeasurement::ReadsMeasurement(const AdviseContext& c, std::string tablespace, std::string dir,
                                   std::string fs, dev_t dev, const Caps& limits,
                                   const std::function<bool()>& should_stop)
    : should_stop_(should_stop), tablespace_(std::move(tablespace)), dir_(std::move(dir)),
      fs_(std::move(fs)), dev_(dev), limits_(limits),
      mb_(static_cast<int>(std::min<long long>(kReadsMb, cap_value(limits, kMaxScratchMb)))),
      workers_(c.server.settings.io_workers),
      // as deep as the server's read streams may go, in its reads' size
      depth_(pg18_read_depth(c.server.settings)), in_flight_(depth_.in_flight),
      block_kb_(read_block_kb(c.server.settings.combine_blocks())) {
    // ... or as deep as uringprobe_reads() may go here.
    const long long by_setting = cap_value(limits_, kMaxReadInFlight);
    const long long by_memory = (cap_value(limits_, kMaxMemoryMb) << 10) / block_kb_;
    if (in_flight_ > std::min(by_setting, by_memory)) {
        const bool memory = by_memory < by_setting;
        in_flight_ = static_cast<int>(std::max(1LL, std::min(by_setting, by_memory)));
        capped_ = (memory ? std::string(kMaxMemoryMb.name) + " " +
                                std::to_string(cap_value(limits_, kMaxMemoryMb)) + " MB"
                          : std::string(kMaxReadInFlight.name) + " " + std::to_string(by_setting)) +
                  " allows " + std::to_string(in_flight_) + " of the server's " +
                  std::to_string(depth_.in_flight);
    }
    m_.name = "cold reads on " + fs_ + " (" + dir_ + ")";
    // writing the file, then three reads of it; a slow device is found
    // out by the first round's time
    m_.first_estimate = 4 * mb_ * kExtendSecondsPerMb + 0.1;
    m_.round = [this](int round_no) { return round(round_no); };
    m_.spread = [this] {
        return uring_over_workers_.size() < 2 ? 100.0
                                              : summarize_runs(uring_over_workers_).spread_pct;
    };
}

bool ReadsMeasurement::round(int round_no) {
    const ReadMethod methods[] = {ReadMethod::sync, ReadMethod::workers, ReadMethod::io_uring};
    double mbps[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
        // Rotate the order, so that no method always follows another.
        const int i = (k + round_no) % 3;
        ReadsParams p;
        p.method = methods[i];
        p.pattern = ReadPattern::sequential;
        p.block_kb = block_kb_;
        p.in_flight = in_flight_;
        p.workers = workers_;
        p.cache = CacheState::cold;
        p.file_mb = mb_;
        p.dir = dir_;
        p.dir_given = true;
        validate(p, limits_); // as uringprobe_reads() would be
        const ReadsResult r = run_reads(p, {dir_}, should_stop_);
        if (r.outcome.is_stopped())
            return false;
        if (!r.outcome.is_ok() || r.seconds <= 0)
            throw NotMeasurable("reads (" + std::string(read_method_name(p.method)) +
                                "): " + r.outcome.status());
        mbps[i] = static_cast<double>(r.bytes) / 1e6 / r.seconds;
    }
    sync_.push_back(mbps[0]);
    workers_mbps_.push_back(mbps[1]);
    uring_.push_back(mbps[2]);
    uring_over_workers_.push_back(mbps[2] / mbps[1]);
    uring_over_sync_.push_back(mbps[2] / mbps[0]);
    return true;
}

ReadsSummary ReadsMeasurement::summary() const {
    ReadsSummary s;
    const bool measured = where_and_rounds(s, tablespace_, fs_, dir_, m_);
    s.workers = workers_;
    s.in_flight = in_flight_;
    s.depth_why = depth_.why;
    s.capped = capped_;
    s.block_kb = block_kb_;
    s.mb = mb_;
    if (!measured)
        return s;
    s.sync_mbps = summarize_runs(sync_);
    s.workers_mbps = summarize_runs(workers_mbps_);
    s.uring_mbps = summarize_runs(uring_);
    s.uring_over_workers = summarize_runs(uring_over_workers_);
    s.uring_over_sync = summarize_runs(uring_over_sync_);
    return s;
}

struct ReadsFile {
    ScratchDir dir;
    ScratchFile file;
    std::string path;
    ReadsFile(const std::string& d, long long bytes, const std::function<bool()>& should_stop)
        : dir(d, {d}), file(dir), path(dir.path() + "/" + file.name()) {
        StopPoll stop(should_stop);
        write_scratch(file.fd(), bytes, stop);
    }
};

std::vector<int> worker_counts(const WorkersCurvePlan& plan) {
    const int in_flight = std::max(1, plan.sessions) * std::max(1, plan.depth);
    std::vector<int> counts;
    for (int w : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32})
        if (w <= in_flight || w == plan.current)
            counts.push_back(w);
    if (plan.current >= 1 && plan.current <= 32 &&
        std::find(counts.begin(), counts.end(), plan.current) == counts.end())
        counts.insert(std::upper_bound(counts.begin(), counts.end(), plan.current), plan.current);
    return counts;
}

DepthCurveMeasurement::DepthCurveMeasurement(std::string tablespace, std::string dir,
                                             std::string fs, dev_t dev, const Caps& limits,
                                             const WorkersCurvePlan& workers, bool advised,
                                             int through_workers,
                                             const std::function<bool()>& should_stop)
    : should_stop_(should_stop), tablespace_(std::move(tablespace)), dir_(std::move(dir)),
      fs_(std::move(fs)), dev_(dev), limits_(limits),
      mb_(static_cast<int>(std::min<long long>(kDepthCurveMb, cap_value(limits, kMaxScratchMb)))),
      direct_(!advised), advised_(advised), through_workers_(advised ? 0 : through_workers),
      workers_plan_(workers) {
    // as deep as uringprobe_reads() may go here
    const int block_kb = 8;
    const long long deepest =
        std::min({static_cast<long long>(kDeepestRead), cap_value(limits_, kMaxReadInFlight),
                  (cap_value(limits_, kMaxMemoryMb) << 10) / block_kb});
    for (int d = 1; d <= deepest; d *= 2)
        points_.push_back({d, {}, {}});
    if (deepest < kDeepestRead)
        capped_ = (cap_value(limits_, kMaxReadInFlight) == deepest
                       ? std::string(kMaxReadInFlight.name) + " " + std::to_string(deepest)
                       : std::string(kMaxMemoryMb.name) + " " +
                             std::to_string(cap_value(limits_, kMaxMemoryMb)) + " MB") +
                  " allows " + std::to_string(points_.back().depth) + " of " +
                  std::to_string(kDeepestRead);
    if (workers_plan_.wanted) {
        // the sessions' reads in flight together, within what
        // uringprobe_reads() may keep here
        const int sessions = std::max(1, workers_plan_.sessions);
        workers_depth_ =
            std::max(1, std::min<int>(workers_plan_.depth, static_cast<int>(deepest / sessions)));
        for (int w : worker_counts(workers_plan_))
            workers_points_.push_back({w, {}, {}, {}, {}});
    }
    m_.name = "read depths on " + fs_ + " (" + dir_ + ")";
    // the file written, then read at each depth: a slow device is found
    // out by the first round's time
    m_.first_estimate = 2 * mb_ * kExtendSecondsPerMb + 0.1;
    m_.round = [this](int round_no) { return round(round_no); };
    m_.spread = [this] {
        // the spread of the best depth's MB/s
        double worst = 0;
        for (const DepthPoint& p : points_)
            if (p.mbps.size() >= 2)
                worst = std::max(worst, summarize_runs(p.mbps).spread_pct);
        return points_.empty() || points_[0].mbps.size() < 2 ? 100.0 : worst;
    };
}

DepthCurveMeasurement::~DepthCurveMeasurement() = default;

bool DepthCurveMeasurement::read_at(int depth, int round_no, double* mbps, double* p99_us) {
    ReadsParams p;
    p.method = advised_               ? ReadMethod::sync_fadvise
               : through_workers_ > 0 ? ReadMethod::workers
                                      : ReadMethod::io_uring;
    p.workers = std::max(1, through_workers_);
    p.pattern = ReadPattern::random;
    p.block_kb = 8;
    if (advised_)
        p.distance = depth;
    else
        p.in_flight = depth;
    p.cache = CacheState::cold;
    p.direct = direct_;
    p.seed = round_no + 1;
    p.files = {file_->path};
    p.source = "the depth curve's file";
    validate(p, limits_); // as uringprobe_reads() would be
    const ReadsResult r = run_reads(p, {dir_}, should_stop_);
    if (r.outcome.is_stopped())
        return false;
    if (r.outcome.is_unsupported() && direct_) {
        // a filesystem that refuses O_DIRECT (tmpfs before 6.6): buffered
        direct_ = false;
        return read_at(depth, round_no, mbps, p99_us);
    }
    if (!r.outcome.is_ok() || r.seconds <= 0)
        throw NotMeasurable("reads at depth " + std::to_string(depth) + ": " + r.outcome.status());
    *mbps = static_cast<double>(r.bytes) / 1e6 / r.seconds;
    *p99_us = static_cast<double>(r.latency.percentile(0.99)) / 1000.0;
    return true;
}

bool DepthCurveMeasurement::round(int round_no) {
    if (!file_)
        file_ =
            std::make_unique<ReadsFile>(dir_, static_cast<long long>(mb_) * 1000000, should_stop_);
    if (should_stop_())
        return false;
    std::vector<double> mbps(points_.size()), p99(points_.size());
    for (size_t k = 0; k < points_.size(); ++k) {
        // Rotate the order, so that no depth always follows another.
        const size_t i = (k + static_cast<size_t>(round_no)) % points_.size();
        if (!read_at(points_[i].depth, round_no, &mbps[i], &p99[i]))
            return false;
    }
    if (!workers_round(round_no))
        return false;
    for (size_t i = 0; i < points_.size(); ++i) {
        points_[i].mbps.push_back(mbps[i]);
        points_[i].p99_us.push_back(p99[i]);
    }
    return true;
}

bool DepthCurveMeasurement::workers_round(int round_no) {
    if (workers_points_.empty())
        return true;
    const int sessions = std::max(1, workers_plan_.sessions);
    struct Figures {
        double mbps, p99_us, synchronous, cpu_ms_per_mb;
    };
    std::vector<Figures> f(workers_points_.size());
    for (size_t k = 0; k < workers_points_.size(); ++k) {
        const size_t i = (k + static_cast<size_t>(round_no)) % workers_points_.size();
        WorkerPoolParams p;
        p.path = file_->path;
        p.sessions = sessions;
        p.depth = workers_depth_;
        p.workers = workers_points_[i].workers;
        p.direct = direct_;
        p.seed = round_no + 1;
        const WorkerPoolResult r = read_with_worker_pool(p, should_stop_);
        if (r.stopped)
            return false;
        if (r.seconds <= 0 || r.reads == 0)
            throw NotMeasurable("reads by " + std::to_string(p.workers) + " workers: none timed");
        const double mb = static_cast<double>(r.bytes) / 1e6;
        f[i] = {mb / r.seconds, static_cast<double>(r.latency.percentile(0.99)) / 1000.0,
                static_cast<double>(r.synchronous) / static_cast<double>(r.reads),
                mb > 0 ? r.workers_cpu_ms / mb : 0};
    }
    double uring = 0, uring_p99 = 0;
    if (!read_at(sessions * workers_depth_, round_no, &uring, &uring_p99))
        return false;
    for (size_t i = 0; i < workers_points_.size(); ++i) {
        WorkersPoint& w = workers_points_[i];
        w.mbps.push_back(f[i].mbps);
        w.p99_us.push_back(f[i].p99_us);
        w.synchronous.push_back(f[i].synchronous);
        w.cpu_ms_per_mb.push_back(f[i].cpu_ms_per_mb);
    }
    uring_at_demand_.push_back(uring);
    return true;
}

DepthCurveSummary DepthCurveMeasurement::summary() const {
    DepthCurveSummary s;
    const bool measured = where_and_rounds(s, tablespace_, fs_, dir_, m_);
    s.mb = mb_;
    s.direct = direct_;
    s.advised = advised_;
    s.through_workers = through_workers_;
    s.capped = capped_;
    if (measured)
        s.points = points_;
    return s;
}

WorkersCurveSummary DepthCurveMeasurement::workers_summary() const {
    WorkersCurveSummary s;
    if (!workers_plan_.wanted) {
        s.not_measured = "io_workers: not a setting of this server";
        return s;
    }
    const bool measured = where_and_rounds(s, tablespace_, fs_, dir_, m_);
    s.sessions = std::max(1, workers_plan_.sessions);
    s.depth = workers_depth_;
    s.queue = kIoWorkerQueueHolds;
    s.mb = mb_;
    if (measured) {
        s.points = workers_points_;
        s.uring_mbps = uring_at_demand_;
    }
    return s;
}

// ---- sequential reads ----

SequentialReadsMeasurement::SequentialReadsMeasurement(const AdviseContext& c,
                                                       std::string tablespace, std::string dir,
                                                       std::string fs, dev_t dev,
                                                       const Caps& limits,
                                                       const std::function<bool()>& should_stop)
    : should_stop_(should_stop), tablespace_(std::move(tablespace)), dir_(std::move(dir)),
      fs_(std::move(fs)), dev_(dev), limits_(limits),
      mb_(static_cast<int>(std::min<long long>(kSequentialMb, cap_value(limits, kMaxScratchMb)))) {
    if (c.pg18()) {
        const long long by_setting = cap_value(limits_, kMaxReadInFlight);
        for (int kb = kSmallestCombineKb; kb <= 1024; kb *= 2) {
            // as deep as a read stream goes with reads of this size
            Pg18Settings at = c.server.settings;
            at.io_combine_limit = at.io_max_combine_limit = kb / 8;
            const long long by_memory = (cap_value(limits_, kMaxMemoryMb) << 10) / kb;
            const int in_flight = static_cast<int>(std::max(
                1LL, std::min<long long>({pg18_read_depth(at).in_flight, by_setting, by_memory})));
            sizes_.push_back({kb, in_flight, {}, {}});
        }
    }
    m_.name = "sequential reads on " + fs_ + " (" + dir_ + ")";
    // the file written, then read twice and at each size
    m_.first_estimate = 2 * mb_ * kExtendSecondsPerMb + 0.1;
    m_.round = [this](int round_no) { return round(round_no); };
    m_.spread = [this] {
        return doubled_over_normal_.size() < 2 ? 100.0
                                               : summarize_runs(doubled_over_normal_).spread_pct;
    };
}

SequentialReadsMeasurement::~SequentialReadsMeasurement() = default;

bool SequentialReadsMeasurement::read_once(ReadMethod method, int block_kb, int in_flight,
                                           double* mbps, double* p99_us) {
    ReadsParams p;
    p.method = method;
    p.pattern = ReadPattern::sequential;
    p.block_kb = block_kb;
    p.in_flight = in_flight;
    p.cache = CacheState::cold;
    p.files = {file_->path};
    p.source = "the sequential reads' file";
    validate(p, limits_); // as uringprobe_reads() would be
    const ReadsResult r = run_reads(p, {dir_}, should_stop_);
    if (r.outcome.is_stopped())
        return false;
    if (!r.outcome.is_ok() || r.seconds <= 0)
        throw NotMeasurable("sequential reads (" + std::string(read_method_name(method)) + ", " +
                            std::to_string(block_kb) + " kB): " + r.outcome.status());
    *mbps = static_cast<double>(r.bytes) / 1e6 / r.seconds;
    *p99_us = static_cast<double>(r.latency.percentile(0.99)) / 1000.0;
    return true;
}

bool SequentialReadsMeasurement::round(int round_no) {
    if (!file_)
        file_ =
            std::make_unique<ReadsFile>(dir_, static_cast<long long>(mb_) * 1000000, should_stop_);
    // the two readahead windows, then each size, the order rotated
    const size_t n = 2 + sizes_.size();
    std::vector<double> mbps(n), p99(n);
    for (size_t k = 0; k < n; ++k) {
        const size_t i = (k + static_cast<size_t>(round_no)) % n;
        const bool ok = i < 2 ? read_once(i == 0 ? ReadMethod::sync : ReadMethod::sync_sequential,
                                          8, 1, &mbps[i], &p99[i])
                              : read_once(ReadMethod::io_uring, sizes_[i - 2].kb,
                                          sizes_[i - 2].in_flight, &mbps[i], &p99[i]);
        if (!ok)
            return false;
    }
    normal_.push_back(mbps[0]);
    doubled_.push_back(mbps[1]);
    doubled_over_normal_.push_back(mbps[1] / mbps[0]);
    for (size_t i = 0; i < sizes_.size(); ++i) {
        sizes_[i].mbps.push_back(mbps[i + 2]);
        sizes_[i].p99_us.push_back(p99[i + 2]);
    }
    return true;
}

SequentialReadsSummary SequentialReadsMeasurement::summary() const {
    SequentialReadsSummary s;
    const BlockDevice b = block_device_of(dev_);
    s.device = b.name;
    s.read_ahead_kb = b.read_ahead_kb;
    s.no_device = b.why;
    s.mb = mb_;
    if (!where_and_rounds(s, tablespace_, fs_, dir_, m_))
        return s;
    s.normal_mbps = summarize_runs(normal_);
    s.doubled_mbps = summarize_runs(doubled_);
    s.doubled_over_normal = summarize_runs(doubled_over_normal_);
    s.sizes = sizes_;
    return s;
}

namespace {

// `path` with its parent resolved (a tablespace's directory is reached
// through a symlink in pg_tblspc), created if missing as PostgreSQL would:
// its parent's owner (a root process must not leave a directory the
// server cannot write in its cluster) and mode, with group access where
// the parent has it. "" and *why when it cannot be.
std::string made_as_postgresql_makes_it(const std::string& path, std::string* why) {
    const size_t slash = path.find_last_of('/');
    const std::string parent = slash == 0 ? "/" : path.substr(0, slash);
    char* real = ::realpath(parent.c_str(), nullptr);
    struct stat parent_st {};
    if (!real || ::stat(real, &parent_st) != 0) {
        *why = parent + ": " + std::strerror(errno);
        std::free(real);
        return "";
    }
    const std::string dir =
        std::string(real) + (std::string(real) == "/" ? "" : "/") + path.substr(slash + 1);
    std::free(real);
    const mode_t mode = 0700 | (parent_st.st_mode & 0050);
    if (::mkdir(dir.c_str(), mode) == 0) {
        if ((geteuid() == 0 && ::chown(dir.c_str(), parent_st.st_uid, parent_st.st_gid) != 0) ||
            ::chmod(dir.c_str(), mode) != 0) {
            *why = "chown/chmod " + dir + ": " + std::strerror(errno);
            return "";
        }
    } else if (errno != EEXIST) {
        *why = "mkdir " + dir + ": " + std::strerror(errno);
        return "";
    }
    return dir;
}

} // namespace

std::string resolve_target(const AdviseTarget& t, std::string* why, dev_t* dev) {
    if (t.dir.empty() || t.dir[0] != '/') {
        *why = "not an absolute path: '" + t.dir + "'";
        return "";
    }
    // (a scratch directory is taken as listed: uringprobe_extend()'s checks
    // of its path for symlinks then apply)
    const std::string dir = t.make_missing ? made_as_postgresql_makes_it(t.dir, why) : t.dir;
    if (dir.empty())
        return "";
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
        *why = dir + ": " + std::strerror(errno);
        return "";
    }
    if (!S_ISDIR(st.st_mode)) {
        *why = dir + ": not a directory";
        return "";
    }
    if (::access(dir.c_str(), R_OK | W_OK | X_OK) != 0) {
        *why = dir + ": " + std::strerror(errno);
        return "";
    }
    *dev = st.st_dev;
    return dir;
}

} // namespace uringprobe
