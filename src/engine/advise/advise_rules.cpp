#include "advise/advise_rules.hpp"

#include "advise/advise_budget.hpp"
#include "advise/advise_wording.hpp"
#include "contract/error.hpp"
#include "contract/number_text.hpp"
#include "uring/io_uring_caps.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace uringprobe {

namespace {

// "on PostgreSQL 18: " before advice for a server that is not 18 yet.
std::string on18(const AdviseContext& c) {
    return c.pg18() ? "" : "on PostgreSQL 18: ";
}

AdviceRow row(std::string topic, std::string setting, std::string current, std::string advice,
              std::string confidence, std::string evidence, std::string cost) {
    return {std::move(topic),      std::move(setting),  std::move(current), std::move(advice),
            std::move(confidence), std::move(evidence), std::move(cost)};
}

// io_uring_setup fails in this process: worker, for certain; until ulimit
// -l allows the rings where it failed for ring memory charged to it.
AdviceRow io_method_refused(const AdviseContext& c, const std::string& current) {
    const char* name = strerrorname_np(c.ring_err);
    std::string advice = on18(c) + "io_method = worker";
    if (c.ring_err == ENOMEM && c.memlock == MemlockCharge::charged)
        advice += " until ulimit -l is at least " + kib_text(c.plan.locked_bytes);
    return row("io_method", "io_method", current, advice, "high",
               "io_uring_setup fails in this process: " + std::string(name ? name : "errno") +
                   " (" + std::strerror(c.ring_err) +
                   "): " + ring_setup_hint(c.ring_err, "io_uring_setup") + "; " + kernel_text(c),
               "io_uring is not available to the server's processes");
}

// The server would not start under io_method=io_uring (EMFILE, ENOMEM).
AdviceRow io_method_would_not_start(const AdviseContext& c, const std::string& current,
                                    const ForkCostSummary& fork) {
    const RingPlan& plan = c.plan;
    std::string advice = on18(c) + "io_method = worker";
    if (plan.emfile)
        advice += " until ulimit -n is at least " + std::to_string(plan.fds_recommended);
    if (plan.enomem)
        advice += std::string(plan.emfile ? " and" : " until") + " ulimit -l is at least " +
                  kib_text(plan.locked_bytes);
    return row("io_method", "io_method", current, advice, "high",
               plan.verdict_detail + "; " + plan_text(c) + "; " + rings_evidence(c, fork),
               "io_method = io_uring would stop the server from starting");
}

} // namespace

std::string confidence_of(int rounds, bool decisive, bool scaled) {
    if (rounds >= kEnoughRounds && decisive && !scaled)
        return "high";
    if (rounds >= kFewestRounds)
        return "medium";
    return "low";
}

LayoutJudgement judge_layout(const LayoutFigures& f) {
    LayoutJudgement j;
    j.adds = f.share.median > kForkCostShare;
    j.decisive = f.share.lo > kForkCostShare || f.share.hi < kForkCostShare;
    return j;
}

RatioJudgement judge_ratio(const RunSummary& r, double margin) {
    // A change is advised where the interval excludes no difference and the
    // median is beyond the margin; it is sure only where the whole interval
    // is beyond the margin: with 5 runs the interval of a median is about
    // the middle runs' range.
    RatioJudgement j;
    if (r.lo > 1 && r.median > 1 + margin) {
        j.direction = 1;
        j.decisive = r.lo > 1 + margin;
    } else if (r.hi < 1 && r.median < 1 - margin) {
        j.direction = -1;
        j.decisive = r.hi < 1 - margin;
    } else {
        // Within the margin both ways, or an interval too wide to say.
        j.decisive = r.lo >= 1 - margin && r.hi <= 1 + margin;
    }
    return j;
}

ExtendJudgement judge_extend_ratio(const RunSummary& r) {
    const RatioJudgement j = judge_ratio(r, kExtendMargin);
    if (j.direction > 0) {
        // write_zeros faster: a change only beyond kZerosMargin, all of it
        const bool clears = r.lo > 1 + kZerosMargin;
        return {clears ? "write_zeros" : "", clears, !clears};
    }
    return {j.direction < 0 ? "posix_fallocate" : "", j.decisive, false};
}

ReadsJudgement judge_reads(const ReadsSummary& r) {
    ReadsJudgement j;
    if (!r.not_measured.empty() || r.rounds == 0) {
        j.why = "cold reads not measured" + (r.not_measured.empty() ? "" : ": " + r.not_measured);
        j.text = j.why;
        return j;
    }
    const std::string where = "tablespace " + r.tablespace + " (" + r.fs + ", sync " +
                              fixed(r.sync_mbps.median, 0) + " MB/s)";
    const RunSummary& g = r.uring_over_workers;
    j.text = "cold reads on " + where + ", MB/s: io_uring (" + std::to_string(r.in_flight) +
             " in flight" + (r.capped.empty() ? "" : ", limited: " + r.capped) +
             (r.depth_why.empty() ? "" : ": " + r.depth_why) + "; " + std::to_string(r.block_kb) +
             " kB reads) " + fixed(g.median, 2) + "x worker (" + std::to_string(r.workers) +
             " threads), 95% interval " + fixed(g.lo, 2) + "-" + fixed(g.hi, 2) + ", and " +
             fixed(r.uring_over_sync.median, 2) + "x sync; " + fixed(r.workers_mbps.median, 0) +
             " MB/s worker, " + fixed(r.uring_mbps.median, 0) + " io_uring (" +
             std::to_string(r.rounds) + (r.rounds == 1 ? " round)" : " rounds)");
    if (r.fs == "tmpfs" || r.fs == "ramfs") {
        j.why = "reads there are served from memory (" + r.fs + "): no device wait to hide";
        j.text += "; " + j.why;
        return j;
    }
    const RatioJudgement ratio = judge_ratio(g, kReadGainMargin);
    j.decisive = ratio.decisive;
    if (ratio.direction > 0) {
        j.better = "io_uring";
    } else if (ratio.direction < 0) {
        j.better = "worker";
    } else {
        j.decisive = false;
        j.flat = true;
        j.why = "cold reads within " + fixed(kReadGainMargin * 100, 0) +
                "% either way: io_uring buys them nothing here, so the connection cost decides";
    }
    return j;
}

AdviceRow io_method_advice(const AdviseContext& c, const ForkCostSummary& fork,
                           const ReadsSummary& reads) {
    const RingPlan& plan = c.plan;
    const std::string current =
        c.pg18() ? c.server.io_method
                 : "none (PostgreSQL " + c.server.version + ": no asynchronous I/O)";
    if (!c.ring_ok)
        return io_method_refused(c, current);
    if (plan.emfile || plan.enomem)
        return io_method_would_not_start(c, current, fork);
    // It starts. What cold reads gain under io_uring, against what every
    // connection pays for the rings: a decisive read gain decides, the
    // connection cost beside it; reads measured on a device and within the
    // margin: worker (io_uring buys nothing, connections pay); else (reads
    // not measured, or from memory) the connection cost decides. No fork
    // cost: the current value is kept, not guessed at.
    const auto& own = fork.layout(plan.one_region);
    const LayoutJudgement j = own ? judge_layout(*own) : LayoutJudgement{};
    const ReadsJudgement rj = judge_reads(reads);
    const bool acceptable = own && !j.adds;
    std::string advice, confidence;
    if (rj.better == "io_uring") {
        advice = on18(c) + "io_method = io_uring";
        if (own && j.adds)
            advice += " for cold reads; worker where connections come and go often (see cost)";
        confidence = confidence_of(reads.rounds, rj.decisive, false);
        if (!acceptable && confidence == "high")
            confidence = "medium";
    } else if (rj.better == "worker") {
        advice = on18(c) + "io_method = worker";
        confidence = confidence_of(reads.rounds, rj.decisive, false);
    } else if (rj.flat && own) {
        // Nothing gained on reads, and every connection pays for its rings
        // under io_uring, however little: worker. (make bench's churn check
        // contradicted io_uring advised here for one region's +60 us.)
        advice = on18(c) + "io_method = worker";
        // At most medium (the line is the connection cost's, however
        // small), and low from fewer than kFewestRounds of either.
        confidence = std::min(reads.rounds, fork.rounds) >= kFewestRounds ? "medium" : "low";
    } else {
        advice = on18(c) + (acceptable ? "io_method = io_uring" : "io_method = worker");
        if (!own)
            advice = c.pg18() ? "keep io_method = " + c.server.io_method
                              : on18(c) + "no advice without the fork cost (see evidence)";
        else if (!acceptable && !plan.one_region && c.no_mmap_accepted)
            advice += " (or io_uring with the rings in one region: see ring layout)";
        confidence = own ? confidence_of(fork.rounds, j.decisive, fork.scaled) : "low";
    }
    if (advice.find("io_method = io_uring") != std::string::npos && plan.fd_headroom_short)
        advice += " with ulimit -n " + std::to_string(plan.fds_recommended);
    const std::string connections =
        own ? added_text(*own) + " (" + layout_name(plan.one_region) + ")"
            : "not measured: computed, every fork copies " +
                  (plan.one_region
                       ? std::to_string(plan.rings) + " ring fds"
                       : std::to_string(plan.rings * plan.mappings_per_ring) +
                             " ring mappings and " + std::to_string(plan.rings) + " ring fds");
    std::string read_cost;
    if (reads.not_measured.empty() && reads.rounds > 0)
        read_cost = "cold reads " + fixed(reads.uring_over_workers.median, 2) +
                    "x worker's speed under io_uring on tablespace " + reads.tablespace + "; ";
    return row(
        "io_method", "io_method", current, advice, confidence,
        rj.text +
            (rj.why.empty() || rj.text.find(rj.why) != std::string::npos ? "" : "; " + rj.why) +
            "; starts: " + plan.verdict_detail + "; " + plan_text(c) + "; " +
            rings_evidence(c, fork) + "; " + kernel_text(c),
        read_cost + connections);
}

AdviceRow ring_layout_advice(const AdviseContext& c, const ForkCostSummary& fork) {
    const RingPlan& plan = c.plan;
    const int mappings = plan.rings * plan.mappings_per_ring;
    const std::string current = !c.ring_ok ? plan.layout_value
                                : plan.one_region
                                    ? "one region (io_uring_queue_init_mem, NO_MMAP)"
                                    : "separate: " + std::to_string(plan.mappings_per_ring) +
                                          " mappings per ring, " + std::to_string(mappings) +
                                          " in every process";
    std::string advice, confidence = "high", evidence = rings_evidence(c, fork), cost;
    if (!c.ring_ok) {
        advice = "none: io_uring is not available here";
        cost = "none";
    } else if (plan.one_region) {
        advice = "keep one region";
        confidence = fork.region ? confidence_of(fork.rounds, judge_layout(*fork.region).decisive,
                                                 fork.scaled)
                                 : "low";
        cost = fork.region ? added_text(*fork.region) : "not measured";
    } else {
        advice = c.no_mmap_accepted
                     ? "one region: build PostgreSQL 18 against liburing 2.7 or later "
                       "(io_uring_queue_init_mem; 2.5 and 2.6 size each ring 64 bytes short); "
                       "this kernel accepts IORING_SETUP_NO_MMAP"
                     : "one region needs a kernel with IORING_SETUP_NO_MMAP (6.5 or later) "
                       "and liburing 2.7 or later; until then io_method = worker";
        if (fork.separate && fork.region) {
            // Sure when the separate layout's interval lies wholly above one region's.
            const bool differs = fork.separate->added_us.lo > fork.region->added_us.hi;
            confidence = confidence_of(fork.rounds, differs, fork.scaled);
            cost = added_text(*fork.separate) + ", against " + added_text(*fork.region) +
                   " in one region";
        } else {
            confidence = fork.separate ? "medium" : "low";
            cost = fork.separate ? added_text(*fork.separate)
                                 : "not measured: " + std::to_string(mappings) +
                                       " ring mappings copied by every fork";
            if (!fork.region_refused.empty())
                evidence += "; one region not measured: " + fork.region_refused;
        }
    }
    return row("io_method", "ring layout", current, advice, confidence, evidence, cost);
}

AdviceRow file_extend_method_advice(const AdviseContext& c, const std::string& tablespace,
                                    const ExtendSummary& s) {
    const std::string setting = "file_extend_method (" + tablespace + ")";
    const bool has_setting = !c.file_extend_method.empty();
    const std::string current =
        has_setting ? c.file_extend_method
        : c.extends_by_rule()
            ? "posix_fallocate (fixed: file_extend_method came with PostgreSQL 18.2)"
            : "none (PostgreSQL " + c.server.version + " extends one block per write)";
    const std::string keep =
        "keep file_extend_method = " + (has_setting ? c.file_extend_method : "posix_fallocate");
    if (!c.extends_by_rule())
        return row("file_extend_method", setting, current,
                   "none before PostgreSQL 16: relations grow one block per write, never by "
                   "fallocate",
                   "high", "not measured: no extension rule to choose", "none");
    if (!s.not_measured.empty())
        return row("file_extend_method", setting, current, keep, "low",
                   "not measured: " + s.not_measured, "not measured");
    const RunSummary& ratio = s.fallocate_over_zeros;
    const ExtendJudgement j = judge_extend_ratio(ratio);
    std::string advice;
    if (j.zeros_short)
        advice =
            keep + " (write_zeros " + fixed(ratio.median, 2) +
            "x as fast in extension runs, interval " + fixed(ratio.lo, 2) + "-" +
            fixed(ratio.hi, 2) + ": short of the " + fixed(1 + kZerosMargin, 0) +
            "x a change needs, since a COPY writes the zeros of new blocks again with their data)";
    else if (j.better.empty())
        advice = keep + " (" +
                 (j.decisive ? "the two within " + percent_text(kExtendMargin) + " of each other"
                             : "no difference beyond " + percent_text(kExtendMargin) + " shown") +
                 ": " + fixed(ratio.median, 2) + ", interval " + fixed(ratio.lo, 2) + "-" +
                 fixed(ratio.hi, 2) + ")";
    else if (has_setting)
        advice = "file_extend_method = " + j.better;
    else
        advice = j.better == "write_zeros"
                     ? "file_extend_method = write_zeros (PostgreSQL 18.2 or later)"
                     : keep;
    // What the current method costs per extension, against the other.
    const bool current_is_zeros = has_setting && c.file_extend_method == "write_zeros";
    const ExtendFigures& cur = current_is_zeros ? s.zeros : s.fallocate;
    const ExtendFigures& other = current_is_zeros ? s.fallocate : s.zeros;
    const std::string cost = fixed(cur.us_per_extension.median, 1) + " us per extension with " +
                             (current_is_zeros ? "write_zeros" : "posix_fallocate") + ", against " +
                             fixed(other.us_per_extension.median, 1) + " with " +
                             (current_is_zeros ? "posix_fallocate" : "write_zeros");
    return row("file_extend_method", setting, current, advice,
               confidence_of(s.rounds, j.decisive, false), extend_evidence(s), cost);
}

AdviceRow ulimit_n_advice(const AdviseContext& c) {
    const ProcessLimits& lim = c.limits;
    const unsigned long long need = static_cast<unsigned long long>(c.plan.fds_recommended);
    const std::string evidence =
        "io_method=io_uring at max_connections " +
        std::to_string(c.server.settings.max_connections) + " needs " +
        std::to_string(c.plan.rings) + " ring fds + max_files_per_process " +
        std::to_string(c.server.settings.max_files_per_process) + " = " + std::to_string(need) +
        "; " + std::to_string(lim.open_fds) + " open in this process now";
    // Said for io_uring: the server runs it, or would once advised to.
    const std::string before =
        c.server.io_method == "io_uring" ? "" : " before io_method = io_uring";
    std::string advice;
    if (lim.nofile_soft < need)
        advice = on18(c) + "ulimit -n " + std::to_string(need) + " (now short by " +
                 std::to_string(need - lim.nofile_soft) + ")" + before;
    else
        advice =
            "keep ulimit -n " + limit_text(lim.nofile_soft) +
            (lim.nofile_soft == ~0ULL ? ""
                                      : " (margin " + std::to_string(lim.nofile_soft - need) + ")");
    return row("limits", "ulimit -n", limit_text(lim.nofile_soft), advice, "high", evidence,
               "one fd per ring in the postmaster and in every backend: " +
                   std::to_string(c.plan.rings));
}

AdviceRow ulimit_l_advice(const AdviseContext& c) {
    const ProcessLimits& lim = c.limits;
    const RingPlan& plan = c.plan;
    const bool unlimited = lim.memlock_soft == ~0ULL;
    const std::string now = unlimited ? "unlimited" : kib_text(lim.memlock_soft);
    std::string advice, evidence, confidence = "high";
    if (c.memlock == MemlockCharge::unknown) {
        // Not probed, or a probe that could not tell: no claim either way.
        confidence = "low";
        evidence = "whether ring memory is charged to RLIMIT_MEMLOCK here is unknown (" +
                   c.memlock_detail + ")";
        advice =
            !c.ring_ok && c.ring_err == ENOMEM
                ? on18(c) + "ulimit -l " + kib_text(plan.ring_bytes) +
                      " (KiB) if ring memory is charged to it: rings fail here with ENOMEM"
                : "keep ulimit -l " + now + " (whether ring memory is charged to it is unknown)";
    } else if (c.memlock != MemlockCharge::charged) {
        advice = "keep ulimit -l " + now + " (ring memory is not charged to it here)";
        evidence =
            "this kernel does not charge ring memory to RLIMIT_MEMLOCK (" + c.memlock_detail + ")";
    } else {
        const std::string need = kib_text(plan.locked_bytes);
        evidence = "ring memory is charged to RLIMIT_MEMLOCK, per user: " + need + " KiB for " +
                   std::to_string(plan.rings) + " rings of " + std::to_string(c.depth) + " entries";
        if (!unlimited && lim.memlock_soft < plan.locked_bytes)
            advice = on18(c) + "ulimit -l " + need + " (KiB; now short by " +
                     kib_text(plan.locked_bytes - lim.memlock_soft) + ")" +
                     (c.server.io_method == "io_uring" ? "" : " before io_method = io_uring");
        else
            advice = "keep ulimit -l " +
                     (unlimited ? now
                                : now + " (margin " +
                                      kib_text(lim.memlock_soft - plan.locked_bytes) + " KiB)");
    }
    return row("limits", "ulimit -l", unlimited ? now : now + " KiB", advice, confidence, evidence,
               mib_text(plan.ring_bytes) + " of ring memory");
}

AdviceRow budget_advice(const BudgetSummary& b) {
    std::string evidence = "spent " + seconds_text(b.spent) + " of " + seconds_text(b.budget);
    if (!b.note.empty())
        evidence += " (" + b.note + ")";
    double more = 0; // seconds the cut measurements would need for kEnoughRounds
    bool cut = false, failed = false;
    for (const BudgetSummary::Part& p : b.parts) {
        cut = cut || p.budget_cut;
        failed = failed || p.failed;
        evidence += "; " + p.account;
        if (p.budget_cut && p.rounds < kEnoughRounds)
            more += (kEnoughRounds - p.rounds) * p.estimate;
    }
    if (b.parts.empty())
        evidence += "; nothing could be measured";
    const std::string advice =
        more > 0 ? "budget => '" + std::to_string(static_cast<long>(std::ceil(b.budget + more))) +
                       " s' for " + std::to_string(kEnoughRounds) + " rounds of each"
                 : "keep budget => '" + fixed(b.budget, 0) + " s': " +
                       (failed ? std::string("an error, not the budget, ended a measurement")
                        : cut ? "every measurement got " + std::to_string(kEnoughRounds) + " rounds"
                              : std::string("every measurement got the rounds it wanted"));
    return row("budget", "budget", seconds_text(b.budget), advice, "high", evidence,
               seconds_text(b.spent) + " of this process's time");
}

} // namespace uringprobe
