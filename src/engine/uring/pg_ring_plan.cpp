#include "uring/pg_ring_plan.hpp"

#include "contract/error.hpp"
#include "contract/number_text.hpp"
#include "os/process_snapshot.hpp"
#include "uring/ring.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

namespace uringprobe {

namespace {
// PostgreSQL 18: MaxBackends = max_connections + autovacuum_worker_slots +
// max_worker_processes + max_wal_senders + NUM_SPECIAL_WORKER_PROCS (2); rings
// = MaxBackends + NUM_AUXILIARY_PROCS (6 + MAX_IO_WORKERS) - MAX_IO_WORKERS.
constexpr int kSpecialWorkerProcs = 2;
constexpr int kAuxiliaryProcsWithoutIoWorkers = 6;
constexpr int kMaxIoWorkers = 32; // MAX_IO_WORKERS: counted among the auxiliary processes

// MaxBackends + NUM_AUXILIARY_PROCS - MAX_IO_WORKERS: the processes with a
// ring of their own (io workers have none).
int processes_but_io_workers(const Pg18Settings& s) {
    return s.max_connections + s.autovacuum_worker_slots + s.max_worker_processes +
           s.max_wal_senders + kSpecialWorkerProcs + kAuxiliaryProcsWithoutIoWorkers;
}

#ifdef URINGPROBE_HAVE_QUEUE_INIT_MEM
constexpr bool kHaveQueueInitMem = true;
#else
constexpr bool kHaveQueueInitMem = false;
#endif

constexpr int kEstimatedMappings = 2;

// Linux's release "6.18.44-..." as major x 100 + minor; -1 where unreadable.
int kernel_version(const std::string& release) {
    int major = 0, minor = 0;
    if (std::sscanf(release.c_str(), "%d.%d", &major, &minor) != 2 || major < 0 || minor < 0)
        return -1;
    return major * 100 + minor;
}
constexpr int kNoMmapKernel = 605; // IORING_SETUP_NO_MMAP came with Linux 6.5

// Why caps holds no ring: the probe's errno, or why none was tried.
std::string no_ring_why(const IoUringCaps& caps) {
    if (!caps.probed)
        return "not probed (" + caps.not_probed + ")";
    const char* name = strerrorname_np(caps.ring_err);
    return std::string("no ring could be created here: io_uring_setup failed with ") +
           (name ? name : "errno " + std::to_string(caps.ring_err)) + " (" +
           std::strerror(caps.ring_err) + ")";
}

std::string separate_text(const RingPlan& p) {
    return "separate: " + std::to_string(p.mappings_per_ring) + " kernel mappings per ring, " +
           std::to_string(p.rings * p.mappings_per_ring) + " in the postmaster and every backend";
}

// The layout a ring made here shows.
void probed_layout(RingPlan& p, const Pg18Settings& s, const IoUringCaps& caps) {
    bool no_mmap_ok = false;
    for (const auto& f : caps.setup_flags)
        no_mmap_ok = no_mmap_ok || (f.name == "NO_MMAP" && f.ok);
    p.one_region = s.built_with_queue_init_mem && no_mmap_ok && caps.region_ring_bytes > 0;
    p.layout_value = p.one_region ? "one region" : "separate";
    if (p.one_region) {
        p.bytes_per_ring = caps.region_ring_bytes;
        p.layout = "one shared-memory region for all rings (io_uring_queue_init_mem, NO_MMAP)";
        return;
    }
    p.bytes_per_ring = caps.mmap_ring_bytes;
    p.mappings_per_ring = caps.mmap_ring_mappings;
    p.layout = separate_text(p);
    if (!s.built_with_queue_init_mem)
        p.layout += " (server built without io_uring_queue_init_mem)";
    else if (!no_mmap_ok)
        p.layout += " (kernel refuses IORING_SETUP_NO_MMAP)";
}

// No ring here: what the server's build would use on this kernel, sizes
// estimated, and why no ring tells more.
void expected_layout(RingPlan& p, const Pg18Settings& s, const IoUringCaps& caps) {
    p.bytes_per_ring = estimated_ring_bytes(static_cast<unsigned>(s.io_max_concurrency));
    const int kernel = kernel_version(caps.kernel_release);
    const std::string release = "kernel " + caps.kernel_release;
    std::string why;
    if (!s.built_with_queue_init_mem) {
        p.layout_value = "separate (expected)";
        why = "the server's liburing has no io_uring_queue_init_mem";
    } else if (kernel < 0) {
        p.layout_value = "unknown";
        why = "one region (io_uring_queue_init_mem) where the kernel accepts "
              "IORING_SETUP_NO_MMAP (6.5 or later), and the release of this one is unreadable ('" +
              caps.kernel_release + "')";
    } else if (kernel < kNoMmapKernel) {
        p.layout_value = "separate (expected)";
        why = release + " predates IORING_SETUP_NO_MMAP (6.5)";
    } else {
        p.layout_value = "one region (expected)";
        p.one_region = true;
        why = "the server's liburing has io_uring_queue_init_mem and " + release +
              " IORING_SETUP_NO_MMAP (6.5 or later)";
    }
    if (p.one_region) {
        p.layout = "one shared-memory region for all rings (io_uring_queue_init_mem, NO_MMAP)";
    } else {
        p.mappings_per_ring = kEstimatedMappings;
        p.layout = separate_text(p);
    }
    p.layout += ", expected: " + why + "; sizes estimated: " + no_ring_why(caps);
}

} // namespace

size_t estimated_ring_bytes(unsigned entries) {
    unsigned rounded = 1; // the kernel's: a power of two
    while (rounded < entries)
        rounded <<= 1;
    entries = rounded;
    return page_round(512 + size_t(entries) * (2 * 16 + 4)) + page_round(size_t(entries) * 64);
}

const ParamTable<Pg18Settings>& pg18_settings_params() {
    // PostgreSQL 18's own defaults and ranges for these settings.
    using S = Pg18Settings;
    const S pg18;
    static const ParamTable<S> table = {
        number_row<S, &S::max_connections>(
            integer_param("max_connections", pg18.max_connections, 1, 262143, "max_connections")),
        number_row<S, &S::autovacuum_worker_slots>(
            integer_param("autovacuum_worker_slots", pg18.autovacuum_worker_slots, 1, 262143,
                          "autovacuum_worker_slots")),
        number_row<S, &S::max_worker_processes>(integer_param(
            "max_worker_processes", pg18.max_worker_processes, 0, 262143, "max_worker_processes")),
        number_row<S, &S::max_wal_senders>(
            integer_param("max_wal_senders", pg18.max_wal_senders, 0, 262143, "max_wal_senders")),
        number_row<S, &S::io_max_concurrency>(integer_param(
            "io_max_concurrency", pg18.io_max_concurrency, 1, 1024, "io_max_concurrency")),
        number_row<S, &S::max_files_per_process>(
            integer_param("max_files_per_process", pg18.max_files_per_process, 64, 2147483647,
                          "max_files_per_process")),
        number_row<S, &S::io_workers>(
            integer_param("io_workers", pg18.io_workers, 1, 32, "io_workers")),
        number_row<S, &S::effective_io_concurrency>(
            integer_param("effective_io_concurrency", pg18.effective_io_concurrency, 0, 1000,
                          "effective_io_concurrency")),
        number_row<S, &S::maintenance_io_concurrency>(
            integer_param("maintenance_io_concurrency", pg18.maintenance_io_concurrency, 0, 1000,
                          "maintenance_io_concurrency")),
        number_row<S, &S::shared_buffers>(integer_param("shared_buffers", pg18.shared_buffers, 16,
                                                        1073741823,
                                                        "shared_buffers, in 8 kB blocks")),
        number_row<S, &S::io_combine_limit>(integer_param(
            "io_combine_limit", pg18.io_combine_limit, 1, 128, "io_combine_limit, in 8 kB blocks")),
        number_row<S, &S::io_max_combine_limit>(
            integer_param("io_max_combine_limit", pg18.io_max_combine_limit, 1, 128,
                          "io_max_combine_limit, in 8 kB blocks")),
        boolean_row<S, &S::built_with_queue_init_mem>(
            boolean_param("queue_init_mem", kHaveQueueInitMem,
                          "the server's liburing has io_uring_queue_init_mem")
                .cli_option("--without-queue-init-mem",
                            "the server's liburing lacks io_uring_queue_init_mem")),
    };
    return table;
}

void validate(const Pg18Settings& s) {
    check_ranges(pg18_settings_params(), s, {});
}

ProcessLimits current_limits() {
    ProcessLimits lim;
    rlimit r{};
    if (getrlimit(RLIMIT_NOFILE, &r) == 0)
        lim.nofile_soft = r.rlim_cur == RLIM_INFINITY ? ~0ULL : r.rlim_cur;
    if (getrlimit(RLIMIT_MEMLOCK, &r) == 0)
        lim.memlock_soft = r.rlim_cur == RLIM_INFINITY ? ~0ULL : r.rlim_cur;
    // Rings this process already holds (a backend of a server running
    // io_method=io_uring inherits them all) are what the plan counts.
    const ProcessSnapshot self = snapshot_process(getpid());
    lim.open_fds = static_cast<int>(self.open_fds - self.io_uring_fds);
    return lim;
}

ReadDepth pg18_read_depth(const Pg18Settings& s) {
    ReadDepth d;
    d.processes = processes_but_io_workers(s) + kMaxIoWorkers;
    d.pin_limit = s.shared_buffers / d.processes;
    const int combine = std::max(1, s.combine_blocks());
    const int by_pins = (d.pin_limit + combine - 1) / combine;
    d.in_flight = std::max(1, std::min(s.effective_io_concurrency, by_pins));
    d.why = "effective_io_concurrency " + std::to_string(s.effective_io_concurrency) +
            "; a backend may pin shared_buffers " + std::to_string(s.shared_buffers) + " / " +
            std::to_string(d.processes) + " processes = " + std::to_string(d.pin_limit) +
            " buffers, reads of io_combine_limit " + std::to_string(combine) + " blocks";
    return d;
}

RingPlan plan_pg18_rings(const Pg18Settings& s, const IoUringCaps& caps, const ProcessLimits& lim) {
    RingPlan p;
    p.rings = processes_but_io_workers(s);
    p.rings_formula = "max_connections " + std::to_string(s.max_connections) +
                      " + autovacuum_worker_slots " + std::to_string(s.autovacuum_worker_slots) +
                      " + max_worker_processes " + std::to_string(s.max_worker_processes) +
                      " + max_wal_senders " + std::to_string(s.max_wal_senders) +
                      " + 2 special workers + 6 auxiliary processes";
    if (caps.ring_ok)
        probed_layout(p, s, caps);
    else
        expected_layout(p, s, caps);
    p.ring_bytes = p.bytes_per_ring * static_cast<size_t>(p.rings);
    p.locked_bytes = caps.memlock == MemlockCharge::charged ? p.ring_bytes : 0;
    p.fds_needed = p.rings;
    p.fds_recommended = p.rings + s.max_files_per_process;

    if (!caps.ring_ok) {
        p.verdict = caps.probed ? "fails" : "not probed";
        p.verdict_detail = caps.probed ? "this process cannot create an io_uring ring at all"
                                       : "whether a ring can be created here: " + no_ring_why(caps);
        return p;
    }
    const unsigned long long fds_at_start = static_cast<unsigned long long>(p.rings) + lim.open_fds;
    p.emfile = fds_at_start > lim.nofile_soft;
    p.enomem = caps.memlock == MemlockCharge::charged && p.locked_bytes > lim.memlock_soft;
    p.fd_headroom_short = !p.emfile && p.fds_recommended > static_cast<long long>(lim.nofile_soft);
    std::string why;
    if (p.emfile)
        why += "EMFILE: " + std::to_string(p.rings) + " ring fds + ~" +
               std::to_string(lim.open_fds) + " open exceed RLIMIT_NOFILE " +
               std::to_string(lim.nofile_soft) + " (raise ulimit -n to at least " +
               std::to_string(p.fds_recommended) + "); ";
    if (p.enomem)
        why += "ENOMEM: " + mib_text(p.locked_bytes) + " of ring memory exceeds RLIMIT_MEMLOCK " +
               mib_text(lim.memlock_soft) + " (raise ulimit -l); ";
    if (p.emfile || p.enomem) {
        p.verdict = "fails";
        p.verdict_detail =
            "the server will not start with io_method=io_uring: " + why.substr(0, why.size() - 2);
    } else if (p.fd_headroom_short) {
        p.verdict = "starts, short of file descriptors";
        p.verdict_detail = "rings + max_files_per_process = " + std::to_string(p.fds_recommended) +
                           " > RLIMIT_NOFILE " + std::to_string(lim.nofile_soft) +
                           ": backends get fewer safe file descriptors";
    } else {
        p.verdict = "ok";
        p.verdict_detail = std::to_string(p.rings) + " rings, " + mib_text(p.ring_bytes) +
                           " of ring memory, within RLIMIT_NOFILE and RLIMIT_MEMLOCK";
    }
    return p;
}

} // namespace uringprobe
