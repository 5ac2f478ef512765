#include "experiments/monitor.hpp"

#include "uring/pg_ring_plan.hpp"

namespace uringprobe {

std::string refused_without_a_ring(const RefusalFacts& f) {
    if (f.io_uring_disabled == "2")
        return "kernel.io_uring_disabled = 2";
    if (f.io_uring_disabled == "1" && !f.in_group)
        return "kernel.io_uring_disabled = 1, outside kernel.io_uring_group";
    if (f.seccomp_mode == 1)
        return "seccomp strict mode";
    return "";
}

MonitorReading read_monitor(const ServerFacts& server, pid_t postmaster) {
    MonitorReading r;
    r.io_method = server.io_method;
    const RefusalFacts f = refusal_facts();
    r.io_uring_disabled = f.io_uring_disabled.empty() ? "absent" : f.io_uring_disabled;
    r.seccomp = seccomp_mode_name(f.seccomp_mode);
    r.refused_by = refused_without_a_ring(f);
    const ProcessLimits lim = current_limits();
    r.memlock_limit = lim.memlock_soft;
    r.pg18 = server.version_num >= 180000;
    if (r.pg18) {
        validate(server.settings);
        r.plan = plan_pg18_rings(server.settings,
                                 unprobed_caps("a monitoring reading makes no ring"), lim);
    }
    r.postmaster = snapshot_process(postmaster);
    return r;
}

std::vector<Column> monitor_columns() {
    return {text_column("io_method"),
            text_column("io_uring_disabled"),
            text_column("seccomp"),
            text_column("io_uring_refused_by"),
            text_column("ring_layout"),
            bigint_column("rings"),
            bigint_column("ring_memory_bytes"),
            bigint_column("postmaster_io_uring_fds"),
            bigint_column("postmaster_io_uring_mappings"),
            bigint_column("memlock_limit_bytes"),
            bigint_column("memlock_margin_bytes")};
}

Table monitor_table(const MonitorReading& r) {
    const auto pg18_int = [&](long long v) { return r.pg18 ? Value::integer(v) : Value::null(); };
    const bool unlimited = r.memlock_limit == ~0ULL;
    const long long ring_bytes = static_cast<long long>(r.plan.ring_bytes);
    Table t{monitor_columns(), {}};
    t.add({r.io_method.empty() ? Value::null() : Value::text(r.io_method),
           Value::text(r.io_uring_disabled), Value::text(r.seccomp),
           r.refused_by.empty() ? Value::null() : Value::text(r.refused_by),
           r.pg18 ? Value::text(r.plan.layout_value) : Value::null(), pg18_int(r.plan.rings),
           pg18_int(ring_bytes), Value::integer(r.postmaster.io_uring_fds),
           Value::integer(r.postmaster.io_uring_mappings),
           unlimited ? Value::null() : Value::integer(static_cast<long long>(r.memlock_limit)),
           unlimited || !r.pg18
               ? Value::null()
               : Value::integer(static_cast<long long>(r.memlock_limit) - ring_bytes)});
    return t;
}

} // namespace uringprobe
