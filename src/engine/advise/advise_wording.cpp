#include "advise/advise_wording.hpp"

#include "contract/number_text.hpp"

#include <cstring>

namespace uringprobe {

std::string seconds_text(double s) {
    return fixed(s, s < 10 ? 1 : 0) + " s";
}

std::string kib_text(unsigned long long bytes) {
    return std::to_string((bytes + 1023) / 1024);
}

std::string limit_text(unsigned long long v) {
    return v == ~0ULL ? "unlimited" : std::to_string(v);
}

std::string percent_text(double share) {
    return fixed(100 * share, 0) + "%";
}

const char* sizing_rule_text(ExtendSizing s) {
    return s == ExtendSizing::waiters_prior
               ? "sized by lock waiters and the session's earlier extensions (PostgreSQL 16+)"
               : "sized by lock waiters alone";
}

std::string added_text(const LayoutFigures& f) {
    return (f.added_us.median < 0 ? "" : "+") + describe_runs(f.added_us, 0, " us", false) +
           " per connection, " + percent_text(f.share.median) + " of a bare fork";
}

std::string rings_evidence(const AdviseContext& c, const ForkCostSummary& fork) {
    if (!fork.not_measured.empty())
        return "fork cost not measured: " + fork.not_measured;
    std::string out = "fork + exit of this process with " + std::to_string(fork.rings) +
                      " rings of " + std::to_string(c.depth) + " entries, p50 of " +
                      std::to_string(fork.forks_per_round) + " forks a round" +
                      (fork.forks_capped.empty() ? "" : " (limited by " + fork.forks_capped + ")") +
                      ": bare " + describe_runs(fork.bare_us, 0, " us");
    if (fork.separate)
        out += "; separate mappings " + describe_runs(fork.separate->fork_us, 0, " us");
    if (fork.region)
        out += "; one region " + describe_runs(fork.region->fork_us, 0, " us");
    if (fork.scaled)
        out += "; scaled to the server's " + std::to_string(fork.plan_rings) + " rings (" +
               fork.why_fewer + " allows " + std::to_string(fork.rings) + ")";
    if (c.holds_server_rings())
        out += "; this backend already holds the server's own rings, so the bare fork "
               "includes them";
    if (!fork.failed.empty())
        out += "; an error ended the rounds: " + fork.failed;
    return out;
}

std::string kernel_text(const AdviseContext& c) {
    const std::string head = "kernel " + c.kernel_release + ": kernel.io_uring_disabled " +
                             (c.io_uring_disabled.empty() ? "absent" : c.io_uring_disabled);
    if (!c.ring_ok) {
        // No ring to try the flags on: what the kernel accepts is not known.
        const char* name = strerrorname_np(c.ring_err);
        return head + ", NO_MMAP and DEFER_TASKRUN unknown (no ring could be created: " +
               (name ? name : "errno " + std::to_string(c.ring_err)) + ")";
    }
    return head + ", NO_MMAP " + (c.no_mmap_accepted ? "accepted" : "refused") +
           ", DEFER_TASKRUN " + (c.defer_taskrun_accepted ? "accepted" : "refused");
}

std::string layout_name(bool one_region) {
    return one_region ? "one region" : "separate mappings per ring";
}

std::string plan_text(const AdviseContext& c) {
    return std::to_string(c.plan.rings) + " rings (" + c.plan.rings_formula + "), " +
           mib_text(c.plan.ring_bytes) + " of ring memory, " +
           (c.ring_ok ? layout_name(c.plan.one_region) : c.plan.layout_value);
}

std::string extend_evidence(const ExtendSummary& s) {
    std::string out = s.fs + " at " + s.dir + ", " + std::to_string(s.sessions) +
                      (s.sessions == 1 ? " session" : " sessions") + " growing one " +
                      std::to_string(s.mb) + " MB file, data written, " +
                      sizing_rule_text(s.sizing) + ": posix_fallocate " +
                      describe_runs(s.fallocate.seconds, 3, " s") + ", " +
                      std::to_string(s.fallocate.switches_per_run) +
                      " fallocate<->zeros switches a run; write_zeros " +
                      describe_runs(s.zeros.seconds, 3, " s") + "; posix_fallocate / write_zeros " +
                      describe_runs(s.fallocate_over_zeros, 2);
    if (s.alternation)
        out += "; sized by lock waiters alone (before 82a4edab) posix_fallocate alternates: " +
               describe_runs(s.alternation->seconds, 3, " s") + ", " +
               std::to_string(s.alternation->switches_per_run) + " switches a run, " +
               describe_runs(s.alternation_over_fixed, 2) + " x the sizing with 82a4edab";
    if (!s.failed.empty())
        out += "; an error ended the rounds: " + s.failed;
    if (s.tablespaces > 1)
        out += "; the same filesystem holds " + std::to_string(s.tablespaces) +
               " tablespaces, measured once";
    return out;
}

} // namespace uringprobe
