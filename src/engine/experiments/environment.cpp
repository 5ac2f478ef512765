#include "experiments/environment.hpp"

#include "contract/error.hpp"
#include "contract/params.hpp"
#include "os/system_info.hpp"
#include "uring/io_uring_caps.hpp"

#include <cstring>
#include <functional>

namespace uringprobe {

namespace {

std::string limit_text(unsigned long long v) {
    return v == ~0ULL ? "unlimited" : std::to_string(v);
}

std::string errno_text(int err) {
    return err ? std::string(strerrorname_np(err) ? strerrorname_np(err) : "errno") + " (" +
                     std::strerror(err) + ")"
               : "";
}

const char* io_uring_disabled_meaning(const std::string& v) {
    if (v == "0")
        return "io_uring is enabled for all processes";
    if (v == "1")
        return "io_uring is limited to members of kernel.io_uring_group and CAP_SYS_ADMIN";
    if (v == "2")
        return "io_uring is disabled for everyone";
    return "the sysctl does not exist on this kernel (io_uring is not restricted by it)";
}

std::string memlock_name(MemlockCharge m) {
    static const NamedValue kCharges[] = {{"charged", int(MemlockCharge::charged)},
                                          {"not charged", int(MemlockCharge::not_charged)},
                                          {"exempt", int(MemlockCharge::exempt)},
                                          {"unknown", int(MemlockCharge::unknown)}};
    return name_of(kCharges, int(m));
}

} // namespace

void set_io_method(ServerFacts& srv, const std::string& io_method) {
    if (io_method != "sync" && io_method != "worker" && io_method != "io_uring")
        throw InvalidArgument("io_method must be sync, worker or io_uring, got '" + io_method +
                              "'");
    srv.io_method = io_method;
}

const ParamTable<EnvironmentRequest>& environment_params() {
    using R = EnvironmentRequest;
    static const ParamTable<R> table = {
        io_method_row<R>(),
        data_directory_row<R>("the data directory"),
        dir_list_row<R, &R::scratch_dirs, as_path>("scratch_dir", "a directory to report on"),
        boolean_row<R, &R::probe>(
            boolean_param("probe", true,
                          "create io_uring rings and an SQPOLL thread to probe the kernel (false: "
                          "a reading that makes none)")
                .cli_option("--no-probe", "make no ring: the rows that need one say so")
                // SQL: NULL, a probe for pg_execute_server_program only
                .sql_defaults_to("NULL")),
    };
    return table;
}

namespace {

using AddRow = std::function<void(std::string, std::string, std::string)>;

// The rows of a ring made here (or of why none was).
void add_io_uring_rows(const AddRow& add, const IoUringCaps& caps, unsigned entries) {
    if (!caps.probed) {
        add("io_uring.ring_setup", "not probed", caps.not_probed);
        // What only a ring tells; the setup flags' and opcodes' rows too.
        for (const char* n : {"io_uring.features", "io_uring.memlock", "io_uring.ring_bytes.mmap",
                              "io_uring.ring_bytes.region"})
            add(n, "not probed", "needs a ring made here (see io_uring.ring_setup)");
    } else if (caps.ring_ok) {
        add("io_uring.ring_setup", "ok",
            "this process created a ring of " + std::to_string(entries) + " entries");
    } else {
        add("io_uring.ring_setup", "failed: " + errno_text(caps.ring_err),
            ring_setup_hint(caps.ring_err, "io_uring_setup"));
    }
    add("liburing.compiled", liburing_compiled_version(), "headers this module was built with");
    std::string lib_path;
    add("liburing.loaded", liburing_loaded_version(&lib_path), lib_path);
    if (!caps.ring_ok)
        return;
    std::string names;
    for (const auto& n : caps.feature_names)
        names += (names.empty() ? "" : " ") + n;
    char hex[16];
    snprintf(hex, sizeof hex, "0x%x", caps.features);
    add("io_uring.features", hex, names);
    for (const auto& f : caps.setup_flags)
        add("io_uring.setup." + f.name, f.ok ? "accepted" : "rejected: " + errno_text(f.err),
            f.ok ? "" : f.detail);
    for (const auto& o : caps.opcodes)
        add("io_uring.op." + o.name, o.ok ? "supported" : "unsupported", o.ok ? "" : o.detail);
    add("io_uring.op.POLL_ADD.multishot",
        caps.poll_multishot.ok
            ? "supported"
            : (caps.poll_multishot.err ? "rejected: " + errno_text(caps.poll_multishot.err)
                                       : "unsupported"),
        caps.poll_multishot.detail);
    add("io_uring.memlock", memlock_name(caps.memlock), caps.memlock_detail);
    add("io_uring.ring_bytes.mmap", std::to_string(caps.mmap_ring_bytes),
        std::to_string(caps.mmap_ring_mappings) + " mappings for a ring of " +
            std::to_string(entries) + " entries");
    add("io_uring.ring_bytes.region", std::to_string(caps.region_ring_bytes), caps.region_detail);
}

// What PostgreSQL 18 with io_method=io_uring would set up on this server.
void add_pg18_rows(const AddRow& add, const EnvironmentRequest& req, const IoUringCaps& caps,
                   const ProcessLimits& lim) {
    const ServerFacts& srv = req.server;
    const Pg18Settings& s = srv.settings;
    add("server.io_method", srv.io_method, "");
    add("server.max_connections", std::to_string(s.max_connections), "");
    add("server.io_max_concurrency", std::to_string(s.io_max_concurrency), "entries per ring");
    const RingPlan plan = plan_pg18_rings(s, caps, lim);
    add("pg18.io_uring.rings", std::to_string(plan.rings), plan.rings_formula);
    add("pg18.io_uring.layout", plan.layout_value, plan.layout);
    add("pg18.io_uring.mappings", std::to_string(plan.rings * plan.mappings_per_ring),
        plan.one_region ? "ring memory lives in shared memory: no per-ring mappings"
                        : "mapped into the postmaster and inherited by every backend it forks");
    const std::string charged =
        caps.memlock == MemlockCharge::unknown
            ? "whether it is charged to RLIMIT_MEMLOCK is not known here"
            : "charged to RLIMIT_MEMLOCK: " + std::to_string(plan.locked_bytes) +
                  " bytes, per user";
    add("pg18.io_uring.ring_memory", std::to_string(plan.ring_bytes),
        std::to_string(plan.bytes_per_ring) + " bytes per ring" +
            (caps.ring_ok ? "" : " (estimated)") + "; " + charged);
    add("pg18.io_uring.fds", std::to_string(plan.fds_needed),
        "ring fds held by the postmaster; with max_files_per_process: " +
            std::to_string(plan.fds_recommended));
    const bool running = req.process == "backend" && srv.io_method == "io_uring";
    add("pg18.io_uring.verdict", plan.verdict,
        (running ? "this server runs io_uring now; " : "for io_method=io_uring: ") +
            plan.verdict_detail);
}

// What this process's kernel and its limits say about io_uring, no ring made.
void add_kernel_rows(const AddRow& add) {
    add("kernel.release", kernel_release(), "");
    const RefusalFacts refusal = refusal_facts();
    const std::string& disabled = refusal.io_uring_disabled;
    add("kernel.io_uring_disabled", disabled.empty() ? "absent" : disabled,
        io_uring_disabled_meaning(disabled));
    if (!refusal.io_uring_group.empty())
        add("kernel.io_uring_group", refusal.io_uring_group,
            std::string("this process is ") + (refusal.in_group ? "" : "not ") +
                "in it or holding CAP_SYS_ADMIN (what counts when kernel.io_uring_disabled is 1)");
    add("process.seccomp", seccomp_mode_name(refusal.seccomp_mode),
        refusal.seccomp_mode == 2
            ? "filters installed: " +
                  (refusal.seccomp_filters >= 0 ? std::to_string(refusal.seccomp_filters)
                                                : std::string("some")) +
                  " (a container runtime's or a service manager's profile); one may refuse "
                  "io_uring, as io_uring.ring_setup shows"
            : "no seccomp filter restricts this process's system calls");
}

} // namespace

std::vector<EnvironmentRow> probe_environment(const EnvironmentRequest& req) {
    std::vector<EnvironmentRow> rows;
    const AddRow add = [&rows](std::string name, std::string value, std::string detail) {
        rows.push_back({std::move(name), std::move(value), std::move(detail)});
    };
    const ServerFacts& srv = req.server;
    const bool pg18 = srv.version_num >= 180000;
    validate(srv.settings);
    const unsigned entries =
        pg18 && srv.settings.io_max_concurrency > 0 ? srv.settings.io_max_concurrency : 64;

    add("process", req.process, "");
    add_kernel_rows(add);
    const IoUringCaps caps =
        req.probe ? probe_io_uring(entries)
                  : unprobed_caps(req.no_probe_why.empty() ? "asked for a reading without rings"
                                                           : req.no_probe_why);
    add_io_uring_rows(add, caps, entries);

    const ProcessLimits lim = current_limits();
    add("rlimit.nofile", limit_text(lim.nofile_soft),
        "soft limit of this process; " + std::to_string(lim.open_fds) + " open now");
    add("rlimit.memlock", limit_text(lim.memlock_soft), "soft limit of this process, in bytes");

    if (srv.version_num == 0)
        add("server", "none",
            "bare process: pass server settings to predict a PostgreSQL 18 server");
    else
        add("server.version", srv.version, "");
    if (!pg18) {
        const char* why =
            srv.version_num ? "PostgreSQL before 18 has no asynchronous I/O" : "no server";
        for (const char* n :
             {"server.io_method", "server.max_connections", "server.io_max_concurrency",
              "pg18.io_uring.rings", "pg18.io_uring.layout", "pg18.io_uring.mappings",
              "pg18.io_uring.ring_memory", "pg18.io_uring.fds", "pg18.io_uring.verdict"})
            add(n, "not applicable", why);
    } else {
        add_pg18_rows(add, req, caps, lim);
    }

    if (!srv.data_directory.empty())
        add("fs.data_directory", filesystem_type(srv.data_directory), srv.data_directory);
    for (const auto& dir : req.scratch_dirs)
        add("fs.scratch", filesystem_type(dir), dir);
    add("clock.source", clock_source(), "timings use CLOCK_MONOTONIC");
    return rows;
}

std::vector<Column> environment_columns() {
    return {text_column("name"), text_column("value"), text_column("detail")};
}

Table environment_table(const std::vector<EnvironmentRow>& rows) {
    Table t{environment_columns(), {}};
    for (const auto& r : rows)
        t.add({Value::text(r.name), Value::text(r.value), Value::text(r.detail)});
    return t;
}

} // namespace uringprobe
