#include "advise/advise_rules.hpp"

#include "advise/advise_budget.hpp"
#include "advise/advise_wording.hpp"
#include "contract/error.hpp"
#include "contract/number_text.hpp"
#include "uring/io_uring_caps.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace uringprobe {

namespace {

// "on PostgreSQL 18: " before advice for a server that is not 18 yet.
std::string on18(const AdviseContext& c) {
    return c.pg18() ? "" : "on PostgreSQL 18: ";
}

AdviceRow row(std::string topic, std::string setting, std::string scope, std::string current) {
    AdviceRow r;
    r.topic = std::move(topic);
    r.setting = std::move(setting);
    r.scope = std::move(scope);
    r.current = std::move(current);
    return r;
}

// What a row decided, and the prose that says it.
void decide(AdviceRow& r, std::string action, std::string value, std::string advice,
            std::string confidence) {
    r.action = std::move(action);
    r.value = std::move(value);
    r.advice = std::move(advice);
    r.confidence = std::move(confidence);
}

// The current value kept, low, for want of a measurement: `why` what
// was not measured and why.
void keep_unmeasured(AdviceRow& r, const std::string& advice, std::string why) {
    decide(r, "keep", r.current, advice, "low");
    r.not_measured = std::move(why);
    r.evidence = "not measured: " + r.not_measured;
    r.cost = "not measured";
}

// "set" where `value` differs from the row's current value, else "keep".
std::string set_or_keep(const AdviceRow& r, const std::string& value) {
    return value == r.current ? "keep" : "set";
}

// The less sure of two confidences.
std::string least_sure(const std::string& a, const std::string& b) {
    for (const char* level : {"low", "medium"})
        if (a == level || b == level)
            return level;
    return a;
}

Decision counted(std::string by) {
    Decision d;
    d.by = std::move(by);
    return d;
}

Decision measured(std::string by, std::string measured_in, std::string ratio_of,
                  const RunSummary& ratio, double margin) {
    Decision d;
    d.by = std::move(by);
    d.measured_in = std::move(measured_in);
    d.ratio_of = std::move(ratio_of);
    d.has_ratio = true;
    d.ratio = ratio.median;
    d.lo = ratio.lo;
    d.hi = ratio.hi;
    d.margin = margin;
    return d;
}

// A layout's fork + exit over a bare one's (1 + its share), against the
// line a connection's cost is held to.
Decision fork_decision(const LayoutFigures& f) {
    const RunSummary& s = f.share;
    RunSummary over = s;
    over.median = 1 + s.median;
    over.lo = 1 + s.lo;
    over.hi = 1 + s.hi;
    return measured("fork cost", "", "fork + exit with the rings / a bare fork", over,
                    kForkCostShare);
}

// A server before 18: its io_method row is a claim for 18.
AdviceRow io_method_row(const AdviseContext& c) {
    AdviceRow r = row("io_method", "io_method", "server", c.pg18() ? c.server.io_method : "");
    if (!c.pg18())
        r.needs_version = 180000;
    return r;
}

// io_method = worker, "set" or "keep" (before 18: set, for 18).
void advise_worker(const AdviseContext& c, AdviceRow& r, const std::string& advice_tail,
                   const std::string& confidence) {
    const std::string action = c.pg18() ? set_or_keep(r, "worker") : "set";
    decide(r, action, "worker",
           on18(c) + (action == "keep" ? "keep " : "") + "io_method = worker" + advice_tail,
           confidence);
}

// io_uring_setup fails in this process: worker, for certain; until ulimit
// -l allows the rings where it failed for ring memory charged to it.
AdviceRow io_method_refused(const AdviseContext& c) {
    AdviceRow r = io_method_row(c);
    const char* name = strerrorname_np(c.ring_err);
    std::string tail;
    if (c.ring_err == ENOMEM && c.memlock == MemlockCharge::charged)
        tail = " until ulimit -l is at least " + kib_text(c.plan.locked_bytes);
    advise_worker(c, r, tail, "high");
    r.decided_by = counted("io_uring_setup");
    r.evidence = "io_uring_setup fails in this process: " + std::string(name ? name : "errno") +
                 " (" + std::strerror(c.ring_err) +
                 "): " + ring_setup_hint(c.ring_err, "io_uring_setup") + "; " + kernel_text(c);
    r.cost = "io_uring is not available to the server's processes";
    return r;
}

// The server would not start under io_method=io_uring (EMFILE, ENOMEM).
AdviceRow io_method_would_not_start(const AdviseContext& c, const ForkCostSummary& fork) {
    const RingPlan& plan = c.plan;
    AdviceRow r = io_method_row(c);
    std::string tail;
    if (plan.emfile)
        tail += " until ulimit -n is at least " + std::to_string(plan.fds_recommended);
    if (plan.enomem)
        tail += std::string(plan.emfile ? " and" : " until") + " ulimit -l is at least " +
                kib_text(plan.locked_bytes);
    advise_worker(c, r, tail, "high");
    r.decided_by = counted("ring limits");
    r.evidence = plan.verdict_detail + "; " + plan_text(c) + "; " + rings_evidence(c, fork);
    r.cost = "io_method = io_uring would stop the server from starting";
    return r;
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
    // A lean where the interval excludes no difference and the median is
    // beyond the margin; shown only where the whole interval is beyond the
    // margin: with 5 runs the interval of a median is about the middle
    // runs' range.
    // Fewer than kFewestRounds rounds show nothing: their "interval" is
    // their range (one round: a point).
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
    if (r.runs < kFewestRounds)
        j.decisive = false;
    j.leans = !j.changes() && (r.median > 1 + margin || r.median < 1 - margin);
    return j;
}

std::string keep_confidence(int rounds, const RatioJudgement& j) {
    return j.leans ? "low" : confidence_of(rounds, j.decisive, false);
}

ExtendJudgement judge_extend_ratio(const RunSummary& r) {
    const RatioJudgement j = judge_ratio(r, kExtendMargin);
    ExtendJudgement e;
    if (j.direction > 0) {
        // write_zeros faster: a change only beyond kZerosMargin, all of it
        e.margin = kZerosMargin;
        e.decisive = r.runs >= kFewestRounds && r.lo > 1 + kZerosMargin;
        e.better = e.decisive ? "write_zeros" : "";
        e.zeros_short = !e.decisive;
        return e;
    }
    e.better = j.changes() ? "posix_fallocate" : "";
    e.decisive = j.decisive;
    return e;
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
    if (ratio.changes()) {
        j.better = ratio.direction > 0 ? "io_uring" : "worker";
        j.decisive = true;
        return j;
    }
    j.flat = true;
    j.decisive = ratio.direction == 0 && ratio.decisive;
    j.why = j.decisive ? "cold reads within " + percent_text(kReadGainMargin) +
                             " either way: io_uring buys them nothing here"
                       : "no difference in cold reads shown beyond " +
                             percent_text(kReadGainMargin) + " either way";
    return j;
}

namespace {

// What io_method is decided from, once the server would start: the
// judgements of the reads and of the rings' cost in the server's layout.
struct IoMethodFacts {
    std::string now; // the current value (before 18: worker, 18's default)
    const std::optional<LayoutFigures>* own = nullptr;
    LayoutJudgement layout;
    ReadsJudgement reads;
    Decision by_reads;
    std::string reads_conf, fork_conf;
    // the rings cost a connection beyond the line: what makes worker the
    // better choice for churn beside a read gain
    bool rings_dear = false;
};

IoMethodFacts io_method_facts(const AdviseContext& c, const ForkCostSummary& fork,
                              const ReadsSummary& reads) {
    IoMethodFacts f;
    f.now = c.pg18() ? c.server.io_method : "worker";
    f.own = &fork.layout(c.plan.one_region);
    f.layout = *f.own ? judge_layout(**f.own) : LayoutJudgement{};
    f.reads = judge_reads(reads);
    if (reads.rounds > 0 && reads.not_measured.empty())
        f.by_reads = measured("cold reads", reads.tablespace, "io_uring / worker MB/s",
                              reads.uring_over_workers, kReadGainMargin);
    f.reads_conf = confidence_of(reads.rounds, f.reads.decisive, false);
    f.fork_conf = *f.own ? confidence_of(fork.rounds, f.layout.decisive, fork.scaled) : "low";
    f.rings_dear = *f.own && f.layout.adds;
    return f;
}

// " (or io_uring with the rings in one region: see ring layout)" where
// that is open to this server.
std::string one_region_aside(const AdviseContext& c) {
    return !c.plan.one_region && c.no_mmap_accepted
               ? " (or io_uring with the rings in one region: see ring layout)"
               : "";
}

// Kept: no change shown to gain. Where reads were measured on a device,
// they decided it (on io_uring, the rings' cost within the line beside
// them); else the rings' cost, where it argues for the kept value; else
// nothing did, and the row says what was not measured.
void keep_io_method(const AdviseContext& c, const IoMethodFacts& f, AdviceRow& r) {
    const std::string action = c.pg18() ? "keep" : "set";
    std::string confidence = "low";
    if (f.reads.flat)
        confidence = f.now == "io_uring" ? least_sure(f.reads_conf, f.fork_conf) : f.reads_conf;
    else if (*f.own && f.rings_dear && f.now != "io_uring")
        confidence = f.fork_conf;
    else if (*f.own && !f.rings_dear && f.now == "io_uring")
        confidence = least_sure(f.fork_conf, "medium");
    const std::string tail = f.now == "worker" && f.rings_dear ? one_region_aside(c) : "";
    decide(r, action, f.now,
           on18(c) + (action == "keep" ? "keep " : "") + "io_method = " + f.now + tail, confidence);
    if (f.reads.flat)
        r.decided_by = f.by_reads;
    else if (*f.own)
        r.decided_by = fork_decision(**f.own);
    if (!f.reads.flat)
        r.not_measured = f.reads.why;
}

// The row's prose: the reads, whether it starts, the rings; the cost of
// io_uring to reads and to every connection.
void io_method_figures(const AdviseContext& c, const ForkCostSummary& fork,
                       const ReadsSummary& reads, const IoMethodFacts& f, AdviceRow& r) {
    const RingPlan& plan = c.plan;
    const std::string connections =
        *f.own ? added_text(**f.own) + " (" + layout_name(plan.one_region) + ")"
               : "not measured: computed, every fork copies " +
                     (plan.one_region
                          ? std::to_string(plan.rings) + " ring fds"
                          : std::to_string(plan.rings * plan.mappings_per_ring) +
                                " ring mappings and " + std::to_string(plan.rings) + " ring fds");
    std::string read_cost;
    if (reads.not_measured.empty() && reads.rounds > 0)
        read_cost = "cold reads " + fixed(reads.uring_over_workers.median, 2) +
                    "x worker's speed under io_uring on tablespace " + reads.tablespace + "; ";
    const ReadsJudgement& rj = f.reads;
    r.evidence =
        (c.pg18() ? "" : "PostgreSQL " + c.server.version + ": no asynchronous I/O; ") + rj.text +
        (rj.why.empty() || rj.text.find(rj.why) != std::string::npos ? "" : "; " + rj.why) +
        "; starts: " + plan.verdict_detail + "; " + plan_text(c) + "; " + rings_evidence(c, fork) +
        "; " + kernel_text(c);
    r.cost = read_cost + connections;
}

} // namespace

AdviceRow io_method_advice(const AdviseContext& c, const ForkCostSummary& fork,
                           const ReadsSummary& reads) {
    const RingPlan& plan = c.plan;
    if (!c.ring_ok)
        return io_method_refused(c);
    if (plan.emfile || plan.enomem)
        return io_method_would_not_start(c, fork);
    // It starts. A read gain or loss shown beyond the margin decides; a
    // server on io_uring whose rings cost a connection beyond the line
    // goes to worker; anything else keeps the current value, nothing
    // having been shown to gain by a change.
    AdviceRow r = io_method_row(c);
    const IoMethodFacts f = io_method_facts(c, fork, reads);
    if (f.reads.better == "io_uring") {
        const std::string tail =
            f.rings_dear ? " for cold reads; worker where connections come and go often (see cost)"
                         : "";
        const std::string action = c.pg18() ? set_or_keep(r, "io_uring") : "set";
        const std::string confidence =
            f.rings_dear ? least_sure(f.reads_conf, "medium") : f.reads_conf;
        decide(r, action, "io_uring",
               on18(c) + (action == "keep" ? "keep " : "") + "io_method = io_uring" + tail,
               confidence);
        r.decided_by = f.by_reads;
    } else if (f.reads.better == "worker") {
        advise_worker(c, r, "", f.reads_conf);
        r.decided_by = f.by_reads;
    } else if (f.now == "io_uring" && f.rings_dear && f.layout.decisive) {
        advise_worker(c, r, one_region_aside(c), f.fork_conf);
        r.decided_by = fork_decision(**f.own);
    } else {
        keep_io_method(c, f, r);
    }
    if (r.value == "io_uring" && plan.fd_headroom_short)
        r.advice += " with ulimit -n " + std::to_string(plan.fds_recommended);
    if (!*f.own && r.not_measured.empty() && r.value == "io_uring")
        r.not_measured = "fork cost: " + fork.not_measured;
    io_method_figures(c, fork, reads, f, r);
    return r;
}

AdviceRow ring_layout_advice(const AdviseContext& c, const ForkCostSummary& fork) {
    const RingPlan& plan = c.plan;
    const int mappings = plan.rings * plan.mappings_per_ring;
    const std::string layout = !c.ring_ok        ? plan.layout_value
                               : plan.one_region ? "one region"
                                                 : "separate";
    AdviceRow r = row("io_method", "ring layout", "build", layout);
    if (!c.pg18())
        r.needs_version = 180000;
    r.evidence = (plan.one_region ? std::string("one region (io_uring_queue_init_mem, NO_MMAP)")
                                  : "separate: " + std::to_string(plan.mappings_per_ring) +
                                        " mappings per ring, " + std::to_string(mappings) +
                                        " in every process") +
                 "; " + rings_evidence(c, fork);
    if (!c.ring_ok) {
        decide(r, "none", "", "none: io_uring is not available here", "high");
        r.decided_by = counted("io_uring_setup");
        r.cost = "none";
        return r;
    }
    if (plan.one_region) {
        decide(r, "keep", "one region", "keep one region",
               fork.region
                   ? confidence_of(fork.rounds, judge_layout(*fork.region).decisive, fork.scaled)
                   : "low");
        if (fork.region)
            r.decided_by = fork_decision(*fork.region);
        else
            r.not_measured = "fork cost: " + fork.not_measured;
        r.cost = fork.region ? added_text(*fork.region) : "not measured";
        return r;
    }
    const std::string advice =
        c.no_mmap_accepted
            ? "one region: build PostgreSQL 18 against liburing 2.7 or later "
              "(io_uring_queue_init_mem; 2.5 and 2.6 size each ring 64 bytes short); "
              "this kernel accepts IORING_SETUP_NO_MMAP"
            : "one region needs a kernel with IORING_SETUP_NO_MMAP (6.5 or later) "
              "and liburing 2.7 or later; until then io_method = worker";
    std::string confidence;
    if (fork.separate && fork.region) {
        // Sure when the separate layout's interval lies wholly above one region's.
        const bool differs = fork.separate->added_us.lo > fork.region->added_us.hi;
        confidence = confidence_of(fork.rounds, differs, fork.scaled);
        r.cost =
            added_text(*fork.separate) + ", against " + added_text(*fork.region) + " in one region";
    } else {
        confidence = fork.separate ? "medium" : "low";
        r.cost = fork.separate ? added_text(*fork.separate)
                               : "not measured: " + std::to_string(mappings) +
                                     " ring mappings copied by every fork";
        if (!fork.region_refused.empty()) {
            r.evidence += "; one region not measured: " + fork.region_refused;
            r.not_measured = "one region's fork cost: " + fork.region_refused;
        }
        if (!fork.separate)
            r.not_measured = "fork cost: " + fork.not_measured;
    }
    decide(r, "set", "one region", advice, confidence);
    if (fork.separate)
        r.decided_by = fork_decision(*fork.separate);
    return r;
}

AdviceRow io_uring_access_advice(const AdviseContext& c) {
    const std::string why =
        c.ring_ok ? "" : ring_setup_hint(c.ring_err, "io_uring_setup") + "; " + kernel_text(c);
    AdviceRow r = row("io_method", "io_uring", "os", "allowed");
    r.decided_by = counted("io_uring_setup");
    r.cost = "none";
    if (c.ring_ok || c.ring_err == ENOMEM) {
        // (ENOMEM: allowed, short of locked memory: the ulimit -l row's)
        decide(r, "keep", "allowed", "keep: io_uring is allowed to the server's processes", "high");
        r.evidence = c.ring_ok ? "io_uring_setup succeeds in this process; " + kernel_text(c)
                               : "io_uring_setup fails with ENOMEM: " + why;
        return r;
    }
    const char* name = strerrorname_np(c.ring_err);
    r.evidence =
        "io_uring_setup fails in this process: " + std::string(name ? name : "errno") + ": " + why;
    switch (refusal_kind(c.ring_err, c.refusal)) {
    case RefusalKind::sysctl_disabled:
    case RefusalKind::sysctl_group:
        r.setting = "kernel.io_uring_disabled";
        r.current = c.refusal.io_uring_disabled;
        decide(r, "set", "0",
               "sysctl kernel.io_uring_disabled = 0 on the host" +
                   std::string(c.refusal.io_uring_disabled == "1"
                                   ? " (or the server's user in kernel.io_uring_group " +
                                         c.refusal.io_uring_group + ")"
                                   : ""),
               "high");
        break;
    case RefusalKind::seccomp:
        r.setting = "seccomp";
        r.current = "refuses io_uring";
        decide(r, "set", "allows io_uring",
               "a seccomp profile for the server that allows io_uring_setup, io_uring_enter and "
               "io_uring_register beside the runtime's default",
               "high");
        break;
    case RefusalKind::no_kernel_support:
        r.setting = "kernel";
        r.current = "no io_uring";
        decide(r, "none", "", "none: a kernel with io_uring (5.1 or later, CONFIG_IO_URING)",
               "high");
        break;
    case RefusalKind::unexplained:
        r.current = "refused";
        decide(r, "none", "", "none: " + why, "low");
        r.not_measured = "what refuses io_uring here (neither the sysctl nor a seccomp filter)";
        break;
    }
    return r;
}

AdviceRow file_extend_method_advice(const AdviseContext& c, const std::string& tablespace,
                                    const ExtendSummary& s) {
    const bool has_setting = !c.file_extend_method.empty();
    AdviceRow r = row("file_extend_method", "file_extend_method", "tablespace",
                      has_setting           ? c.file_extend_method
                      : c.extends_by_rule() ? "posix_fallocate"
                                            : "");
    r.scope_name = tablespace;
    if (!c.extends_by_rule()) {
        decide(r, "none", "",
               "none before PostgreSQL 16: relations grow one block per write, never by "
               "fallocate",
               "high");
        r.evidence = "PostgreSQL " + c.server.version +
                     " extends one block per write: no extension rule to choose";
        r.cost = "none";
        return r;
    }
    const std::string fixed_note =
        has_setting ? ""
                    : "posix_fallocate is fixed: file_extend_method came with PostgreSQL 18.2; ";
    if (!s.not_measured.empty()) {
        decide(r, "keep", r.current, "keep file_extend_method = " + r.current, "low");
        r.not_measured = "extension runs: " + s.not_measured;
        r.evidence = fixed_note + "not measured: " + s.not_measured;
        r.cost = "not measured";
        return r;
    }
    const RunSummary& ratio = s.fallocate_over_zeros;
    const ExtendJudgement j = judge_extend_ratio(ratio);
    r.decided_by = measured("extension runs", tablespace, "posix_fallocate / write_zeros seconds",
                            ratio, j.margin);
    const std::string keep = "keep file_extend_method = " + r.current;
    const std::string confidence = confidence_of(s.rounds, j.decisive, false);
    if (j.better.empty() || j.better == r.current) {
        std::string why;
        if (j.zeros_short)
            why = "write_zeros " + fixed(ratio.median, 2) +
                  "x as fast in extension runs, interval " + fixed(ratio.lo, 2) + "-" +
                  fixed(ratio.hi, 2) + ": short of the " + fixed(1 + kZerosMargin, 0) +
                  "x a change needs, since a COPY writes the zeros of new blocks again with "
                  "their data";
        else if (j.better.empty())
            why = (j.decisive ? "the two within " + percent_text(kExtendMargin) + " of each other"
                              : "no difference beyond " + percent_text(kExtendMargin) + " shown") +
                  ": " + fixed(ratio.median, 2) + ", interval " + fixed(ratio.lo, 2) + "-" +
                  fixed(ratio.hi, 2);
        decide(r, "keep", r.current, keep + (why.empty() ? "" : " (" + why + ")"), confidence);
    } else {
        decide(r, "set", j.better,
               "file_extend_method = " + j.better +
                   (has_setting ? "" : " (PostgreSQL 18.2 or later)"),
               confidence);
        if (!has_setting)
            r.needs_version = 180002;
    }
    // What the current method costs per extension, against the other.
    const bool current_is_zeros = r.current == "write_zeros";
    const ExtendFigures& cur = current_is_zeros ? s.zeros : s.fallocate;
    const ExtendFigures& other = current_is_zeros ? s.fallocate : s.zeros;
    r.cost = fixed(cur.us_per_extension.median, 1) + " us per extension with " + r.current +
             ", against " + fixed(other.us_per_extension.median, 1) + " with " +
             (current_is_zeros ? "posix_fallocate" : "write_zeros");
    r.evidence = fixed_note + extend_evidence(s);
    return r;
}

namespace {

// A measured curve: MB/s and read p99 at each of several values of a
// setting (ascending), per round, the rounds in the same order at each.
struct Curve {
    std::vector<int> at;
    std::vector<const std::vector<double>*> mbps, p99_us;
};

// The point of a curve a ratio set the current one against: the best,
// else (the current one is the best) the one that suffices; "" where both
// are the current one.
std::string compared_point(int best, int at, int enough, const std::string& unit = "") {
    const int other = best != at ? best : enough;
    return other != at && other > 0 ? std::to_string(other) + unit : "";
}

struct CurveJudgement {
    size_t enough = 0; // the first point reaching kDepthShare of each round's best (median)
    size_t at = 0;     // the last point at or below the setting
    size_t best = 0;   // the point of the highest median share
    RunSummary share;  // MB/s at `at` over each round's best
    RunSummary p99_over_enough; // reads' p99 at `at` over at `enough`, per round
};

// The curve of `points`, each at x(point).
template <class P, class X> Curve curve_of(const std::vector<P>& points, X x) {
    Curve c;
    for (const P& p : points) {
        c.at.push_back(x(p));
        c.mbps.push_back(&p.mbps);
        c.p99_us.push_back(&p.p99_us);
    }
    return c;
}

CurveJudgement judge_curve(const Curve& c, int setting) {
    CurveJudgement j;
    const size_t n = c.at.size(), rounds = c.mbps.front()->size();
    std::vector<std::vector<double>> share(n);
    for (size_t r = 0; r < rounds; ++r) {
        double best = 0;
        for (size_t i = 0; i < n; ++i)
            best = std::max(best, (*c.mbps[i])[r]);
        for (size_t i = 0; i < n; ++i)
            share[i].push_back(best > 0 ? (*c.mbps[i])[r] / best : 0);
    }
    j.enough = n - 1;
    for (size_t i = n; i-- > 0;)
        if (summarize_runs(share[i]).median >= kDepthShare)
            j.enough = i;
    for (size_t i = 0; i < n; ++i)
        if (summarize_runs(share[i]).median > summarize_runs(share[j.best]).median)
            j.best = i;
    for (size_t i = 0; i < n; ++i)
        if (c.at[i] <= setting)
            j.at = i;
    j.share = summarize_runs(share[j.at]);
    std::vector<double> waits;
    for (size_t r = 0; r < rounds; ++r)
        if ((*c.p99_us[j.enough])[r] > 0)
            waits.push_back((*c.p99_us[j.at])[r] / (*c.p99_us[j.enough])[r]);
    j.p99_over_enough = summarize_runs(waits);
    return j;
}

} // namespace

DepthJudgement judge_depth(const DepthCurveSummary& s, int setting, int pin_limit) {
    DepthJudgement j;
    j.effective = std::max(1, setting);
    if (pin_limit > 0 && pin_limit < j.effective) {
        j.effective = std::max(1, pin_limit);
        j.capped = "a backend may pin " + std::to_string(pin_limit) +
                   " buffers (shared_buffers over max_connections and the other processes)";
    }
    if (s.points.empty())
        return j;
    const CurveJudgement k =
        judge_curve(curve_of(s.points, [](const DepthPoint& p) { return p.depth; }), j.effective);
    j.enough = s.points[k.enough].depth;
    j.measured_at = s.points[k.at].depth;
    j.best = s.points[k.best].depth;
    j.share = k.share;
    j.p99_over_enough = k.p99_over_enough;
    return j;
}

WorkersJudgement judge_workers(const WorkersCurveSummary& s, int current) {
    WorkersJudgement j;
    if (s.points.empty())
        return j;
    const CurveJudgement k =
        judge_curve(curve_of(s.points, [](const WorkersPoint& p) { return p.workers; }), current);
    const WorkersPoint& at = s.points[k.at];
    j.enough = s.points[k.enough].workers;
    j.measured_at = at.workers;
    j.best = s.points[k.best].workers;
    j.share = k.share;
    j.synchronous = summarize_runs(at.synchronous);
    j.enough_synchronous = summarize_runs(s.points[k.enough].synchronous);
    std::vector<double> over;
    for (size_t r = 0; r < s.uring_mbps.size(); ++r) {
        double best = 0;
        for (const WorkersPoint& p : s.points)
            if (r < p.mbps.size())
                best = std::max(best, p.mbps[r]);
        if (s.uring_mbps[r] > 0)
            over.push_back(best / s.uring_mbps[r]);
    }
    j.best_over_uring = summarize_runs(over);
    return j;
}

AdviceRow io_concurrency_advice(const AdviseContext& c, const std::string& setting,
                                const std::string& tablespace, int current,
                                const DepthCurveSummary& s) {
    AdviceRow r = row("io_concurrency", setting, "tablespace", std::to_string(current));
    r.scope_name = tablespace;
    const std::string keep = "keep " + setting + " = " + r.current;
    const ReadDepth pins = pg18_read_depth(c.server.settings);
    const DepthJudgement j = judge_depth(s, current, c.pg18() ? pins.pin_limit : 0);
    if (!s.not_measured.empty() || s.points.empty()) {
        keep_unmeasured(r, keep,
                        "read depths: " + (s.not_measured.empty() ? "no depth" : s.not_measured));
        return r;
    }
    const RatioJudgement short_of = judge_ratio(j.share, kDepthMargin);
    const RatioJudgement waits = judge_ratio(j.p99_over_enough, kDepthLatencyMargin);
    const std::string at = "depth " + std::to_string(j.measured_at);
    r.decided_by = measured("read depths", tablespace, "MB/s at " + at + " / the best depth's",
                            j.share, kDepthMargin);
    r.decided_by.compared_with = compared_point(j.best, j.measured_at, j.enough);
    std::string why;
    if (short_of.changes() && short_of.direction < 0 && j.enough > current) {
        decide(r, "raise", std::to_string(j.enough),
               "ALTER TABLESPACE " + tablespace + " SET (" + setting + " = " +
                   std::to_string(j.enough) + ")",
               confidence_of(s.rounds, true, false));
        why = "at " + at + " reads reach " + percent_text(j.share.median) +
              " of the device's best; depth " + std::to_string(j.enough) + " reaches " +
              percent_text(kDepthShare);
    } else if (short_of.direction >= 0 && waits.changes() && waits.direction > 0 &&
               j.enough < j.measured_at && current > j.enough) {
        r.decided_by = measured("read depths", tablespace,
                                "read p99 at " + at + " / at depth " + std::to_string(j.enough),
                                j.p99_over_enough, kDepthLatencyMargin);
        r.decided_by.compared_with = std::to_string(j.enough);
        decide(r, "lower", std::to_string(j.enough),
               "ALTER TABLESPACE " + tablespace + " SET (" + setting + " = " +
                   std::to_string(j.enough) + ")",
               confidence_of(s.rounds, true, false));
        why = "reads at " + at + " wait " + fixed(j.p99_over_enough.median, 1) +
              "x as long at the 99th percentile as at depth " + std::to_string(j.enough) +
              ", which reaches " + percent_text(kDepthShare) + " of the best already";
    } else {
        decide(r, "keep", r.current, keep, keep_confidence(s.rounds, short_of));
        why = j.enough <= j.measured_at
                  ? "depth " + std::to_string(j.enough) + " reaches " + percent_text(kDepthShare) +
                        " of the device's best, and " + at + " is no slower"
                  : "no shortfall beyond " + percent_text(kDepthMargin) + " shown at " + at;
    }
    if (!j.capped.empty() && j.enough > j.effective)
        why += "; but " + j.capped + ", so a backend reads " + std::to_string(j.effective) +
               " deep whatever this setting: raise shared_buffers or lower max_connections";
    r.advice += " (" + why + ")";
    std::string curve;
    for (const DepthPoint& p : s.points)
        curve += (curve.empty() ? "" : ", ") + std::to_string(p.depth) + ": " +
                 fixed(summarize_runs(p.mbps).median, 0) + " MB/s p99 " +
                 fixed(summarize_runs(p.p99_us).median, 0) + " us";
    r.evidence =
        "cold random " + std::to_string(s.block_kb) + " kB reads of " + std::to_string(s.mb) +
        " MB on tablespace " + s.tablespace + " (" + s.fs +
        (s.advised  ? ", buffered, each depth the reads advised that far ahead by "
                      "POSIX_FADV_WILLNEED, as PostgreSQL before 18 and io_method sync "
                      "read ahead"
         : s.direct ? ", direct"
                    : ", buffered: the filesystem refuses O_DIRECT") +
        (s.through_workers > 0 ? ", each depth queued for " + std::to_string(s.through_workers) +
                                     " worker threads as io_method worker's are"
                               : "") +
        ") by depth, medians of " + std::to_string(s.rounds) + " rounds: " + curve +
        (s.capped.empty() ? "" : "; deepest limited: " + s.capped) + "; " + setting + " " +
        r.current + " gives a backend depth " + std::to_string(j.effective) +
        (j.capped.empty() ? "" : " (" + j.capped + ")");
    r.cost = at + ": " + percent_text(j.share.median) + " of the best MB/s, reads' p99 " +
             fixed(j.p99_over_enough.median, 2) + "x depth " + std::to_string(j.enough) + "'s";
    return r;
}

// A server setting chosen on a curve (io_workers, io_combine_limit): set
// to the value that suffices where the current one's MB/s is shown short
// of the best point's by more than kDepthMargin (raised, or lowered where
// more was shown slower), else kept. Returns why, in words.
struct CurvePick {
    std::string setting, value; // `value`: the one that suffices, as the setting takes it
    int enough = 0, current = 0, measured_at = 0;
    std::string enough_text; // "8 reach", "512 kB reads reach"
    std::string at;          // "reads with 3 workers", "128 kB reads"
    std::string best;        // "the best count's"
    std::string slower;      // what a lower was: "more workers were shown slower"
};
std::string decide_on_curve(AdviceRow& r, const CurvePick& p, const RunSummary& share, int rounds,
                            const std::string& keep) {
    const RatioJudgement short_of = judge_ratio(share, kDepthMargin);
    if (short_of.changes() && short_of.direction < 0 && p.enough != p.current) {
        const bool more = p.enough > p.current;
        decide(r, more ? "raise" : "lower", p.value, p.setting + " = " + p.value,
               confidence_of(rounds, true, false));
        return p.at + " reach " + percent_text(share.median) + " of " + p.best + " MB/s; " +
               p.enough_text + " " + percent_text(kDepthShare) + (more ? "" : ": " + p.slower);
    }
    decide(r, "keep", r.current, keep, keep_confidence(rounds, short_of));
    return p.enough <= p.measured_at
               ? p.enough_text + " " + percent_text(kDepthShare) + " of " + p.best + " MB/s, and " +
                     p.at + " are no slower"
               : "no shortfall beyond " + percent_text(kDepthMargin) + " shown for " + p.at;
}

AdviceRow io_workers_advice(const AdviseContext& c, const WorkersCurveSummary& s) {
    const int current = c.server.settings.io_workers;
    AdviceRow r = row("io_workers", "io_workers", "server", std::to_string(current));
    const std::string keep = "keep io_workers = " + r.current;
    if (!s.not_measured.empty() || s.points.empty()) {
        keep_unmeasured(r, keep,
                        "reads through workers: " +
                            (s.not_measured.empty() ? "no count" : s.not_measured));
        return r;
    }
    const WorkersJudgement j = judge_workers(s, current);
    const std::string workers = std::to_string(j.measured_at) + " workers";
    const std::string at = "reads with " + workers;
    r.decided_by = measured("reads through workers", s.tablespace,
                            "MB/s with " + workers + " / the best count's", j.share, kDepthMargin);
    r.decided_by.compared_with = compared_point(j.best, j.measured_at, j.enough);
    std::string why = decide_on_curve(r,
                                      {"io_workers", std::to_string(j.enough), j.enough, current,
                                       j.measured_at, std::to_string(j.enough) + " workers reach",
                                       at, "the best count's", "more workers were shown slower"},
                                      j.share, s.rounds, keep);
    if (j.synchronous.median > 0)
        why += "; with " + workers + " the sessions did " + percent_text(j.synchronous.median) +
               " of their reads themselves (the shared queue of " + std::to_string(s.queue) +
               " was full)";
    if (c.server.io_method != "worker")
        why += "; it applies while io_method = worker (now " + c.server.io_method + ")";
    r.advice += " (" + why + ")";
    std::string curve;
    for (const WorkersPoint& p : s.points)
        curve += (curve.empty() ? "" : ", ") + std::to_string(p.workers) + ": " +
                 fixed(summarize_runs(p.mbps).median, 0) + " MB/s p99 " +
                 fixed(summarize_runs(p.p99_us).median, 0) + " us, " +
                 percent_text(summarize_runs(p.synchronous).median) + " by the sessions, " +
                 fixed(summarize_runs(p.cpu_ms_per_mb).median, 2) + " ms CPU/MB";
    r.evidence =
        "cold random " + std::to_string(s.block_kb) + " kB reads of " + std::to_string(s.mb) +
        " MB on tablespace " + s.tablespace + " (" + s.fs + ") by " + std::to_string(s.sessions) +
        " sessions each keeping " + std::to_string(s.depth) + " in flight through a queue of " +
        std::to_string(s.queue) + ", by workers, medians of " + std::to_string(s.rounds) +
        " rounds: " + curve + "; io_uring at depth " + std::to_string(s.sessions * s.depth) + ": " +
        fixed(summarize_runs(s.uring_mbps).median, 0) + " MB/s, the best count " +
        percent_text(j.best_over_uring.median) + " of it";
    r.cost = at + ": " + percent_text(j.share.median) + " of the best count's MB/s, " +
             percent_text(j.synchronous.median) + " of reads done by the sessions";
    return r;
}

CombineJudgement judge_combine(const SequentialReadsSummary& s, int current_kb) {
    CombineJudgement j;
    if (s.sizes.empty())
        return j;
    const CurveJudgement k =
        judge_curve(curve_of(s.sizes, [](const SizePoint& p) { return p.kb; }), current_kb);
    j.enough_kb = s.sizes[k.enough].kb;
    j.measured_at_kb = s.sizes[k.at].kb;
    j.best_kb = s.sizes[k.best].kb;
    j.share = k.share;
    return j;
}

namespace {
std::string kb_setting(int kb) {
    return std::to_string(kb) + "kB";
}
} // namespace

AdviceRow io_combine_limit_advice(const AdviseContext& c, const SequentialReadsSummary& s) {
    const int current_kb = c.server.settings.io_combine_limit * 8;
    AdviceRow r = row("read_size", "io_combine_limit", "server", kb_setting(current_kb));
    const std::string keep = "keep io_combine_limit = " + r.current;
    if (!s.not_measured.empty() || s.sizes.empty()) {
        keep_unmeasured(r, keep,
                        "sequential reads: " +
                            (s.not_measured.empty() ? "no read size" : s.not_measured));
        return r;
    }
    const CombineJudgement j = judge_combine(s, current_kb);
    const std::string at = std::to_string(j.measured_at_kb) + " kB reads";
    r.decided_by = measured("sequential reads", s.tablespace,
                            "MB/s of " + at + " / the best size's", j.share, kDepthMargin);
    r.decided_by.compared_with = compared_point(j.best_kb, j.measured_at_kb, j.enough_kb, "kB");
    const std::string why =
        decide_on_curve(r,
                        {"io_combine_limit", kb_setting(j.enough_kb), j.enough_kb, current_kb,
                         j.measured_at_kb, std::to_string(j.enough_kb) + " kB reads reach", at,
                         "the best size's", "larger reads were shown slower"},
                        j.share, s.rounds, keep);
    r.advice += " (" + why + ")";
    std::string curve;
    for (const SizePoint& p : s.sizes)
        curve += (curve.empty() ? "" : ", ") + std::to_string(p.kb) + " kB x " +
                 std::to_string(p.in_flight) + ": " + fixed(summarize_runs(p.mbps).median, 0) +
                 " MB/s";
    r.evidence = "cold sequential buffered reads of " + std::to_string(s.mb) +
                 " MB on tablespace " + s.tablespace + " (" + s.fs +
                 ") by io_uring, each size as deep as a read stream keeps it (size x in flight), "
                 "medians of " +
                 std::to_string(s.rounds) + " rounds: " + curve;
    r.cost = at + ": " + percent_text(j.share.median) + " of the best size's MB/s";
    return r;
}

AdviceRow io_max_combine_limit_advice(const AdviseContext& c, const AdviceRow& combine) {
    const int max_kb = c.server.settings.io_max_combine_limit * 8;
    AdviceRow r = row("read_size", "io_max_combine_limit", "server", kb_setting(max_kb));
    r.decided_by = combine.decided_by;
    r.not_measured = combine.not_measured;
    r.evidence = combine.evidence;
    const int wanted_kb = std::atoi(combine.value.c_str());
    if (wanted_kb > max_kb) {
        decide(r, "raise", combine.value,
               "io_max_combine_limit = " + combine.value + " (a restart: io_combine_limit " +
                   combine.value + " is held to it)",
               combine.confidence);
        r.cost = "a restart";
    } else {
        decide(r, "keep", r.current,
               "keep io_max_combine_limit = " + r.current + " (io_combine_limit " + combine.value +
                   " is within it)",
               combine.confidence);
        r.cost = "none";
    }
    return r;
}

AdviceRow read_ahead_kb_advice(const AdviseContext& c, const SequentialReadsSummary& s) {
    AdviceRow r = row("read_ahead", "read_ahead_kb", "os",
                      s.read_ahead_kb >= 0 ? std::to_string(s.read_ahead_kb) : "");
    r.scope_name = s.device;
    const std::string leans =
        c.pg18() && c.server.io_method != "sync"
            ? "it serves reads that lean on the kernel's readahead: io_method = sync (now " +
                  c.server.io_method + ": its read streams read ahead themselves)"
            : "scans lean on the kernel's readahead here (" +
                  std::string(c.pg18() ? "io_method = sync" : "no asynchronous reads") + ")";
    if (s.read_ahead_kb < 0) {
        decide(r, "none", "", "no read_ahead_kb to advise for tablespace " + s.tablespace, "low");
        r.not_measured = s.no_device.empty() ? "no block device" : s.no_device;
        r.evidence = "not measured: " + r.not_measured;
        r.cost = "not measured";
        return r;
    }
    const std::string keep = "keep read_ahead_kb = " + r.current + " on " + s.device;
    if (!s.not_measured.empty()) {
        keep_unmeasured(r, keep, "sequential reads: " + s.not_measured);
        return r;
    }
    const RatioJudgement doubled = judge_ratio(s.doubled_over_normal, kReadaheadMargin);
    r.decided_by =
        measured("sequential reads", s.tablespace, "8 kB reads' MB/s, readahead doubled / as set",
                 s.doubled_over_normal, kReadaheadMargin);
    const std::string twice = std::to_string(2 * s.read_ahead_kb);
    r.decided_by.compared_with = twice;
    if (doubled.changes() && doubled.direction > 0) {
        decide(r, "raise", twice,
               "read_ahead_kb = " + twice + " on " + s.device + " (a udev rule; " + leans + ")",
               confidence_of(s.rounds, true, false));
    } else {
        decide(r, "keep", r.current,
               keep + " (no gain beyond " + percent_text(kReadaheadMargin) +
                   " shown with twice the window; " + leans + ")",
               keep_confidence(s.rounds, doubled));
    }
    r.evidence = "cold sequential buffered 8 kB reads one at a time of " + std::to_string(s.mb) +
                 " MB on tablespace " + s.tablespace + " (" + s.fs + ", device " + s.device +
                 "), medians of " + std::to_string(s.rounds) +
                 " rounds: readahead as set (read_ahead_kb " + r.current + ") " +
                 fixed(s.normal_mbps.median, 0) + " MB/s, doubled (POSIX_FADV_SEQUENTIAL) " +
                 fixed(s.doubled_mbps.median, 0) + " MB/s";
    r.cost = "the page cache read ahead of a scan: up to " + twice + " kB per file read in order";
    return r;
}

void defer_depths_to_io_method(const AdviceRow& io_method, std::vector<AdviceRow>& rows) {
    if (io_method.setting != "io_method" || io_method.needs_version != 0 ||
        io_method.current.empty() || io_method.value == io_method.current)
        return;
    for (AdviceRow& r : rows) {
        if (r.topic != "io_concurrency" || (r.action != "raise" && r.action != "lower"))
            continue;
        const std::string was = r.action + " to " + r.value;
        keep_unmeasured(r,
                        "keep " + r.setting + " = " + r.current +
                            " until io_method = " + io_method.value + " runs, then advise again",
                        "read depths under io_method = " + io_method.value +
                            ": these were read as " + io_method.current +
                            " reads ahead (there: " + was + ")");
        r.decided_by = Decision{};
    }
}

AdviceRow ulimit_n_advice(const AdviseContext& c) {
    const ProcessLimits& lim = c.limits;
    const unsigned long long need = static_cast<unsigned long long>(c.plan.fds_recommended);
    AdviceRow r = row("limits", "ulimit -n", "os", limit_text(lim.nofile_soft));
    r.decided_by = counted("limits");
    r.evidence = "io_method=io_uring at max_connections " +
                 std::to_string(c.server.settings.max_connections) + " needs " +
                 std::to_string(c.plan.rings) + " ring fds + max_files_per_process " +
                 std::to_string(c.server.settings.max_files_per_process) + " = " +
                 std::to_string(need) + "; " + std::to_string(lim.open_fds) +
                 " open in this process now";
    // Said for io_uring: the server runs it, or would once advised to.
    const std::string before =
        c.server.io_method == "io_uring" ? "" : " before io_method = io_uring";
    if (lim.nofile_soft < need)
        decide(r, "raise", std::to_string(need),
               on18(c) + "ulimit -n " + std::to_string(need) + " (now short by " +
                   std::to_string(need - lim.nofile_soft) + ")" + before,
               "high");
    else
        decide(r, "keep", r.current,
               "keep ulimit -n " + r.current +
                   (lim.nofile_soft == ~0ULL
                        ? ""
                        : " (margin " + std::to_string(lim.nofile_soft - need) + ")"),
               "high");
    r.cost =
        "one fd per ring in the postmaster and in every backend: " + std::to_string(c.plan.rings);
    return r;
}

AdviceRow ulimit_l_advice(const AdviseContext& c) {
    const ProcessLimits& lim = c.limits;
    const RingPlan& plan = c.plan;
    const bool unlimited = lim.memlock_soft == ~0ULL;
    // in KiB, as ulimit -l takes it
    AdviceRow r =
        row("limits", "ulimit -l", "os", unlimited ? "unlimited" : kib_text(lim.memlock_soft));
    r.decided_by = counted("limits");
    r.cost = mib_text(plan.ring_bytes) + " of ring memory";
    if (c.memlock == MemlockCharge::unknown) {
        // Not probed, or a probe that could not tell: no claim either way.
        r.not_measured =
            "whether ring memory is charged to RLIMIT_MEMLOCK (" + c.memlock_detail + ")";
        r.evidence = "whether ring memory is charged to RLIMIT_MEMLOCK here is unknown (" +
                     c.memlock_detail + ")";
        if (!c.ring_ok && c.ring_err == ENOMEM)
            decide(r, "raise", kib_text(plan.ring_bytes),
                   on18(c) + "ulimit -l " + kib_text(plan.ring_bytes) +
                       " (KiB) if ring memory is charged to it: rings fail here with ENOMEM",
                   "low");
        else
            decide(r, "keep", r.current,
                   "keep ulimit -l " + r.current +
                       " (whether ring memory is charged to it is unknown)",
                   "low");
        return r;
    }
    if (c.memlock != MemlockCharge::charged) {
        decide(r, "keep", r.current,
               "keep ulimit -l " + r.current + " (ring memory is not charged to it here)", "high");
        r.evidence =
            "this kernel does not charge ring memory to RLIMIT_MEMLOCK (" + c.memlock_detail + ")";
        return r;
    }
    const std::string need = kib_text(plan.locked_bytes);
    r.evidence = "ring memory is charged to RLIMIT_MEMLOCK, per user: " + need + " KiB for " +
                 std::to_string(plan.rings) + " rings of " + std::to_string(c.depth) + " entries";
    if (!unlimited && lim.memlock_soft < plan.locked_bytes)
        decide(r, "raise", need,
               on18(c) + "ulimit -l " + need + " (KiB; now short by " +
                   kib_text(plan.locked_bytes - lim.memlock_soft) + ")" +
                   (c.server.io_method == "io_uring" ? "" : " before io_method = io_uring"),
               "high");
    else
        decide(r, "keep", r.current,
               "keep ulimit -l " +
                   (unlimited ? r.current
                              : r.current + " (margin " +
                                    kib_text(lim.memlock_soft - plan.locked_bytes) + " KiB)"),
               "high");
    return r;
}

AdviceRow budget_advice(const BudgetSummary& b) {
    AdviceRow r = row("budget", "budget", "call", seconds_text(b.budget));
    r.decided_by = counted("budget");
    r.evidence = "spent " + seconds_text(b.spent) + " of " + seconds_text(b.budget);
    std::string how = b.note; // what the caller changed or set
    if (b.deadline > 0)
        how += (how.empty() ? "" : "; ") + std::string("a round still running at ") +
               fixed(b.deadline, 2) + " s is stopped";
    if (!how.empty())
        r.evidence += " (" + how + ")";
    double more = 0; // seconds the cut measurements would need for kEnoughRounds
    bool cut = false, failed = false;
    for (const BudgetSummary::Part& p : b.parts) {
        cut = cut || p.budget_cut;
        failed = failed || p.failed;
        r.evidence += "; " + p.account;
        if (p.budget_cut && p.rounds < kEnoughRounds)
            more += (kEnoughRounds - p.rounds) * p.estimate;
    }
    if (b.parts.empty())
        r.evidence += "; nothing could be measured";
    if (more > 0) {
        const std::string enough =
            std::to_string(static_cast<long>(std::ceil(b.budget + more))) + " s";
        decide(r, "raise", enough,
               "budget => '" + enough + "' for " + std::to_string(kEnoughRounds) +
                   " rounds of each",
               "high");
    } else {
        decide(r, "keep", r.current,
               "keep budget => '" + fixed(b.budget, 0) + " s': " +
                   (failed ? std::string("an error, not the budget, ended a measurement")
                    : cut  ? "every measurement got " + std::to_string(kEnoughRounds) + " rounds"
                           : std::string("every measurement got the rounds it wanted")),
               "high");
    }
    r.cost = seconds_text(b.spent) + " of this process's time";
    return r;
}

} // namespace uringprobe
