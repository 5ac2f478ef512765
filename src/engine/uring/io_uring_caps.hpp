// What io_uring offers this process, probed against the running kernel:
// setup flags accepted, opcodes supported, feature bits, multishot polling,
// and whether ring memory is charged to RLIMIT_MEMLOCK.
#pragma once

#include <string>
#include <vector>

namespace uringprobe {

struct ProbeOutcome {
    std::string name;
    bool ok = false;
    int err = 0;        // errno when !ok and the kernel said why, else 0
    std::string detail; // what was tried or what it means
};

enum class MemlockCharge { charged, not_charged, exempt, unknown };

struct IoUringCaps {
    // Whether a ring was tried at all (false: nothing below was probed;
    // not_probed says why), and whether this process could create one.
    bool probed = true;
    std::string not_probed;
    bool ring_ok = false;
    int ring_err = 0;
    std::string kernel_release; // known without a ring
    unsigned features = 0;
    std::vector<std::string> feature_names;
    std::vector<ProbeOutcome> setup_flags;
    std::vector<ProbeOutcome> opcodes;
    ProbeOutcome poll_multishot;
    MemlockCharge memlock = MemlockCharge::unknown;
    std::string memlock_detail;
    // A ring of `entries` in the default (mmap) layout: bytes and mappings.
    size_t mmap_ring_bytes = 0;
    int mmap_ring_mappings = 0;
    // The same ring in one user-memory region (IORING_SETUP_NO_MMAP via
    // io_uring_queue_init_mem), 0 when liburing or the kernel lacks it.
    size_t region_ring_bytes = 0;
    std::string region_detail;
};

// Probe with rings of `entries` entries (the size PostgreSQL would use).
IoUringCaps probe_io_uring(unsigned entries);
// What is known with no ring created, no thread started: the kernel's
// release; `why` says why nothing was probed.
IoUringCaps unprobed_caps(const std::string& why);

// Whether this kernel charges this process's ring memory to RLIMIT_MEMLOCK:
// probed once (a ring created under a soft limit of 0), then remembered.
MemlockCharge ring_memory_charge();
// The hint for a ring set-up that failed with ENOMEM: names RLIMIT_MEMLOCK
// only where ring memory is found charged to it.
std::string ring_memory_hint(MemlockCharge charge);

// What a process can see of why io_uring is refused to it.
struct RefusalFacts {
    std::string io_uring_disabled; // kernel.io_uring_disabled, "" where absent
    std::string io_uring_group;    // kernel.io_uring_group, "" where absent
    bool in_group = false;         // in that group, or holding CAP_SYS_ADMIN
    int seccomp_mode = 0;          // /proc/self/status: 0 none, 1 strict, 2 filter
    int seccomp_filters = -1;      // filters installed, -1 where not shown
};
// This process's facts.
RefusalFacts refusal_facts();
// A seccomp mode of /proc/<pid>/status by name: none, strict, filter, or
// unknown.
std::string seccomp_mode_name(int mode);
// Why io_uring_setup failed with `err` (EPERM or ENOSYS), as far as `f`
// tells: kernel.io_uring_disabled (2, or 1 outside kernel.io_uring_group),
// a seccomp filter (container runtimes' default profiles refuse io_uring
// with EPERM), a kernel without io_uring; and what to do.
std::string refusal_cause(int err, const RefusalFacts& f);
// The same, as what a fix names: refusal_cause()'s cases in its order.
enum class RefusalKind { sysctl_disabled, sysctl_group, seccomp, no_kernel_support, unexplained };
RefusalKind refusal_kind(int err, const RefusalFacts& f);

// The hint for a failed ring set-up (io_uring_setup, io_uring_queue_init*):
// why io_uring is refused (EPERM, ENOSYS), the memory a ring is charged to
// (ENOMEM), setup flags this kernel lacks (EINVAL, EOPNOTSUPP); else
// errno_hint's. SysError's hint for the calls that make a ring.
std::string ring_setup_hint(int err, const std::string& call);

// liburing: the version compiled against, and the one actually loaded.
std::string liburing_compiled_version();
std::string liburing_loaded_version(std::string* path);

} // namespace uringprobe
