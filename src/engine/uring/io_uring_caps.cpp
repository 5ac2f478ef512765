#include "uring/io_uring_caps.hpp"

#include "contract/error.hpp"
#include "os/fd.hpp"
#include "os/mapping.hpp"
#include "os/system_info.hpp"
#include "uring/ring.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <link.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

namespace uringprobe {

namespace {

// Kernel ABI values, for liburing headers older than the kernel.
constexpr unsigned kSetupSqpoll = 1U << 1;
constexpr unsigned kSetupCoopTaskrun = 1U << 8;
constexpr unsigned kSetupSingleIssuer = 1U << 12;
constexpr unsigned kSetupDeferTaskrun = 1U << 13;

struct FeatureName {
    unsigned bit;
    const char* name;
};
// IORING_FEAT_* bits, by kernel ABI value.
constexpr FeatureName kFeatures[] = {
    {1U << 0, "SINGLE_MMAP"},    {1U << 1, "NODROP"},          {1U << 2, "SUBMIT_STABLE"},
    {1U << 3, "RW_CUR_POS"},     {1U << 4, "CUR_PERSONALITY"}, {1U << 5, "FAST_POLL"},
    {1U << 6, "POLL_32BITS"},    {1U << 7, "SQPOLL_NONFIXED"}, {1U << 8, "EXT_ARG"},
    {1U << 9, "NATIVE_WORKERS"}, {1U << 10, "RSRC_TAGS"},      {1U << 11, "CQE_SKIP"},
    {1U << 12, "LINKED_FILE"},   {1U << 13, "REG_REG_RING"},   {1U << 14, "RECVSEND_BUNDLE"},
    {1U << 15, "MIN_TIMEOUT"},   {1U << 16, "RW_ATTR"},        {1U << 17, "NO_IOWAIT"},
};

ProbeOutcome probe_setup_flag(const char* name, unsigned flags, unsigned entries) {
    ProbeOutcome out;
    out.name = name;
    try {
        Ring ring(entries, flags);
    } catch (const SysError& e) {
        out.err = e.err();
        out.detail = std::string("io_uring_setup: ") + std::strerror(e.err());
        return out;
    }
    out.ok = true;
    out.detail = "accepted";
    return out;
}

// IORING_SETUP_NO_MMAP needs the rings and SQEs in memory the caller
// provides; probe it with the raw system call so that it works whatever
// liburing this was built against.
ProbeOutcome probe_no_mmap(unsigned entries) {
    ProbeOutcome out;
    out.name = "NO_MMAP";
    const size_t bytes = 64 * page_round(1);
    try {
        const Mapping mem = Mapping::anonymous(2 * bytes, Mapping::Sharing::private_, "mmap");
        Ring ring = Ring::in_region(entries, mem.data() + bytes, mem.data());
    } catch (const SysError& e) {
        out.err = e.err();
        out.detail = e.what();
        return out;
    }
    out.ok = true;
    out.detail = "accepted";
    return out;
}

struct OpcodeName {
    int op;
    const char* name;
};
constexpr OpcodeName kOpcodes[] = {
    {IORING_OP_NOP, "NOP"},
    {IORING_OP_READV, "READV"},
    {IORING_OP_WRITEV, "WRITEV"},
    {IORING_OP_READ, "READ"},
    {IORING_OP_WRITE, "WRITE"},
    {IORING_OP_FSYNC, "FSYNC"},
    {IORING_OP_FALLOCATE, "FALLOCATE"},
    {IORING_OP_POLL_ADD, "POLL_ADD"},
};

std::vector<ProbeOutcome> probe_opcodes(Ring& ring) {
    std::vector<ProbeOutcome> out;
    io_uring_probe* probe = io_uring_get_probe_ring(ring.get());
    for (const auto& op : kOpcodes) {
        ProbeOutcome o;
        o.name = op.name;
        if (!probe) {
            o.detail = "IORING_REGISTER_PROBE unsupported";
        } else {
            o.ok = io_uring_opcode_supported(probe, op.op) != 0;
            o.detail = o.ok ? "supported" : "not supported";
        }
        out.push_back(o);
    }
    if (probe)
        io_uring_free_probe(probe);
    return out;
}

// Arms a multishot POLL_ADD on a readable pipe: the kernel supports it when
// the completion carries IORING_CQE_F_MORE (the poll stays armed).
ProbeOutcome probe_poll_multishot(Ring& ring) {
    ProbeOutcome out;
    out.name = "POLL_ADD multishot";
    const Pipe pipe = Pipe::open();
    check_syscall(write(pipe.write_end.get(), "x", 1), "write");
    io_uring* r = ring.get();
    io_uring_sqe* sqe = io_uring_get_sqe(r);
    io_uring_prep_poll_add(sqe, pipe.read_end.get(), POLLIN);
    sqe->len = IORING_POLL_ADD_MULTI;
    sqe->user_data = 1;
    check_neg_errno(io_uring_submit(r), "io_uring_submit");
    io_uring_cqe* cqe = nullptr;
    check_neg_errno(io_uring_wait_cqe(r, &cqe), "io_uring_wait_cqe");
    const int res = cqe->res;
    const bool more = (cqe->flags & IORING_CQE_F_MORE) != 0;
    io_uring_cqe_seen(r, cqe);
    if (res < 0) {
        out.err = -res;
        out.detail = std::string("POLL_ADD with IORING_POLL_ADD_MULTI: ") + std::strerror(-res);
        return out;
    }
    out.ok = more;
    out.detail = more ? "completion kept the poll armed (IORING_CQE_F_MORE)"
                      : "one-shot only: the completion did not keep the poll armed";
    if (more) {
        // Cancel the armed poll and drain both completions before the pipe closes.
        sqe = io_uring_get_sqe(r);
        io_uring_prep_poll_remove(sqe, 1);
        sqe->user_data = 2;
        check_neg_errno(io_uring_submit(r), "io_uring_submit");
        for (int pending = 2; pending > 0; --pending) {
            check_neg_errno(io_uring_wait_cqe(r, &cqe), "io_uring_wait_cqe");
            if (cqe->user_data == 1 && (cqe->flags & IORING_CQE_F_MORE))
                ++pending; // another multishot event before the cancel took effect
            io_uring_cqe_seen(r, cqe);
        }
    }
    return out;
}

bool has_cap_ipc_lock() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("CapEff:", 0) == 0) {
            unsigned long long caps = std::strtoull(line.c_str() + 7, nullptr, 16);
            return (caps >> 14) & 1ULL; // CAP_IPC_LOCK
        }
    }
    return false;
}

// Where a probe of the memlock charge is needed: false when this process
// is exempt (CAP_IPC_LOCK) or its limit cannot be read (caps says so);
// otherwise true, with the limit in *saved.
bool memlock_to_probe(IoUringCaps& caps, rlimit* saved) {
    if (has_cap_ipc_lock()) {
        caps.memlock = MemlockCharge::exempt;
        caps.memlock_detail = "this process has CAP_IPC_LOCK: its rings are not charged";
        return false;
    }
    if (getrlimit(RLIMIT_MEMLOCK, saved) != 0) {
        caps.memlock_detail = std::string("getrlimit: ") + std::strerror(errno);
        return false;
    }
    return true;
}

// Lower the soft RLIMIT_MEMLOCK to 0 for one ring creation: if the kernel
// charges ring memory to it, creation fails with ENOMEM.
void probe_memlock(IoUringCaps& caps) {
    rlimit saved{};
    if (!memlock_to_probe(caps, &saved))
        return;
    rlimit zero = saved;
    zero.rlim_cur = 0;
    if (setrlimit(RLIMIT_MEMLOCK, &zero) != 0) {
        caps.memlock_detail = std::string("setrlimit: ") + std::strerror(errno);
        return;
    }
    int err = 0;
    try {
        Ring ring(8);
    } catch (const SysError& e) {
        err = e.err();
    }
    setrlimit(RLIMIT_MEMLOCK, &saved);
    if (err == 0) {
        caps.memlock = MemlockCharge::not_charged;
        caps.memlock_detail = "a ring was created with a memlock limit of 0";
    } else if (err == ENOMEM) {
        caps.memlock = MemlockCharge::charged;
        caps.memlock_detail = "ring creation failed with ENOMEM under a memlock limit of 0";
    } else {
        caps.memlock_detail = std::string("io_uring_setup: ") + std::strerror(err);
    }
}

// The first ring failed with ENOMEM, so a ring under a limit of 0 tells
// nothing: its memory is charged to RLIMIT_MEMLOCK if a ring is created
// once the soft limit is raised to the hard one. Where they are equal,
// which of the two it was stays unknown, and the detail says so.
void probe_memlock_after_enomem(IoUringCaps& caps) {
    rlimit saved{};
    if (!memlock_to_probe(caps, &saved))
        return;
    const std::string soft =
        saved.rlim_cur == RLIM_INFINITY ? std::string("unlimited") : std::to_string(saved.rlim_cur);
    caps.memlock_detail = "ring creation failed with ENOMEM under RLIMIT_MEMLOCK " + soft +
                          ", the hard limit too: ring memory charged to it, or memory short";
    if (saved.rlim_cur >= saved.rlim_max)
        return;
    rlimit raised = saved;
    raised.rlim_cur = saved.rlim_max;
    if (setrlimit(RLIMIT_MEMLOCK, &raised) != 0)
        return;
    bool created = false;
    try {
        Ring ring(8);
        created = true;
    } catch (const SysError&) {
    }
    setrlimit(RLIMIT_MEMLOCK, &saved);
    if (created) {
        caps.memlock = MemlockCharge::charged;
        caps.memlock_detail = "ring creation failed with ENOMEM under the soft RLIMIT_MEMLOCK " +
                              soft + " and succeeded under the hard limit";
    }
}

} // namespace

std::string seccomp_mode_name(int mode) {
    static const char* const kModes[] = {"none", "strict", "filter"};
    return mode >= 0 && mode <= 2 ? kModes[mode] : "unknown";
}

RefusalFacts refusal_facts() {
    RefusalFacts f;
    f.io_uring_disabled = read_first_line("/proc/sys/kernel/io_uring_disabled");
    f.io_uring_group = read_first_line("/proc/sys/kernel/io_uring_group");
    unsigned long long cap_eff = 0;
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("Seccomp:", 0) == 0)
            f.seccomp_mode = std::atoi(line.c_str() + 8);
        else if (line.rfind("Seccomp_filters:", 0) == 0)
            f.seccomp_filters = std::atoi(line.c_str() + 16);
        else if (line.rfind("CapEff:", 0) == 0)
            cap_eff = std::strtoull(line.c_str() + 7, nullptr, 16);
    }
    f.in_group = cap_eff & (1ULL << 21); // CAP_SYS_ADMIN
    if (!f.io_uring_group.empty() && !f.in_group) {
        const gid_t group = static_cast<gid_t>(std::atol(f.io_uring_group.c_str()));
        std::vector<gid_t> groups(static_cast<size_t>(std::max(0, getgroups(0, nullptr))));
        const int n = getgroups(static_cast<int>(groups.size()), groups.data());
        groups.resize(static_cast<size_t>(std::max(0, n)));
        f.in_group =
            getegid() == group || std::find(groups.begin(), groups.end(), group) != groups.end();
    }
    return f;
}

RefusalKind refusal_kind(int err, const RefusalFacts& f) {
    if (err == ENOSYS)
        return f.seccomp_mode == 2 && !f.io_uring_disabled.empty() ? RefusalKind::seccomp
                                                                   : RefusalKind::no_kernel_support;
    if (f.io_uring_disabled == "2")
        return RefusalKind::sysctl_disabled;
    if (f.io_uring_disabled == "1" && !f.in_group)
        return RefusalKind::sysctl_group;
    if (f.seccomp_mode == 2)
        return RefusalKind::seccomp;
    return RefusalKind::unexplained;
}

std::string refusal_cause(int err, const RefusalFacts& f) {
    const std::string filter =
        "a seccomp filter (Seccomp: filter" +
        (f.seccomp_filters >= 0 ? ", " + std::to_string(f.seccomp_filters) + " installed" : "") +
        ")";
    if (err == ENOSYS) {
        if (f.seccomp_mode == 2 && !f.io_uring_disabled.empty())
            return filter + " refuses io_uring with ENOSYS: this kernel has io_uring "
                            "(kernel.io_uring_disabled exists); allow io_uring_setup, "
                            "io_uring_enter and io_uring_register in the process's profile";
        if (f.seccomp_mode == 2)
            return filter + " refuses io_uring with ENOSYS, or the kernel has none (older "
                            "than 5.1, or built without CONFIG_IO_URING)";
        return "the kernel does not support io_uring (older than 5.1, or built without "
               "CONFIG_IO_URING)";
    }
    if (f.io_uring_disabled == "2")
        return "kernel.io_uring_disabled is 2: io_uring is disabled for every process on this "
               "host (kernel.io_uring_disabled = 0 allows it)";
    if (f.io_uring_disabled == "1" && !f.in_group)
        return "kernel.io_uring_disabled is 1 and this process is neither in "
               "kernel.io_uring_group (" +
               (f.io_uring_group.empty() ? std::string("absent") : f.io_uring_group) +
               ") nor holds CAP_SYS_ADMIN: add its user to that group, or set the sysctl to 0";
    if (f.seccomp_mode == 2)
        return filter + " refuses io_uring in this process (kernel.io_uring_disabled is " +
               (f.io_uring_disabled.empty() ? std::string("absent") : f.io_uring_disabled) +
               "): container runtimes' default profiles (Docker's, containerd's, since 2023) "
               "refuse io_uring_setup with EPERM; allow io_uring_setup, io_uring_enter and "
               "io_uring_register in the process's profile";
    return "io_uring_setup is not permitted, and neither kernel.io_uring_disabled (" +
           (f.io_uring_disabled.empty() ? std::string("absent") : f.io_uring_disabled) +
           ") nor a seccomp filter explains it: a security module (SELinux, AppArmor) may "
           "refuse it";
}

MemlockCharge ring_memory_charge() {
    static const MemlockCharge charge = [] {
        IoUringCaps caps;
        probe_memlock(caps);
        return caps.memlock;
    }();
    return charge;
}

std::string ring_memory_hint(MemlockCharge charge) {
    switch (charge) {
    case MemlockCharge::charged:
        return "io_uring ring memory is charged to RLIMIT_MEMLOCK here: raise ulimit -l, or "
               "use fewer or smaller rings";
    case MemlockCharge::not_charged:
    case MemlockCharge::exempt:
        return "the kernel could not allocate the ring's memory (it is not charged to "
               "RLIMIT_MEMLOCK here): free memory, or use fewer or smaller rings";
    default:
        return "out of memory for the ring, or RLIMIT_MEMLOCK (ulimit -l) if this kernel "
               "charges ring memory to it";
    }
}

namespace {

void probe_region(IoUringCaps& caps, unsigned entries) {
#ifdef URINGPROBE_HAVE_QUEUE_INIT_MEM
    try {
        const Mapping mem = Mapping::anonymous(1024 * 1024, Mapping::Sharing::shared, "mmap");
        size_t used = 0;
        Ring ring = Ring::in_memory(entries, mem.data(), mem.size(), &used);
        caps.region_ring_bytes = used;
        caps.region_detail = "measured with io_uring_queue_init_mem";
    } catch (const SysError& e) {
        caps.region_detail = e.what();
    }
#else
    (void)entries;
    caps.region_detail =
        "liburing " + liburing_compiled_version() + " has no io_uring_queue_init_mem";
#endif
}

} // namespace

IoUringCaps unprobed_caps(const std::string& why) {
    IoUringCaps caps;
    caps.probed = false;
    caps.not_probed = why;
    caps.kernel_release = kernel_release();
    return caps;
}

IoUringCaps probe_io_uring(unsigned entries) {
    IoUringCaps caps;
    caps.kernel_release = kernel_release();
    try {
        Ring ring(entries, 0);
        caps.ring_ok = true;
        caps.features = ring.params().features;
        for (const auto& f : kFeatures)
            if (caps.features & f.bit)
                caps.feature_names.emplace_back(f.name);
        caps.mmap_ring_bytes = ring.mapped_bytes();
        caps.mmap_ring_mappings = ring.mapping_count();
        caps.opcodes = probe_opcodes(ring);
        caps.poll_multishot = probe_poll_multishot(ring);
    } catch (const SysError& e) {
        if (caps.ring_ok)
            throw;
        caps.ring_err = e.err();
        if (caps.ring_err == ENOMEM)
            probe_memlock_after_enomem(caps);
        return caps;
    }
    caps.setup_flags.push_back(probe_setup_flag("SQPOLL", kSetupSqpoll, entries));
    caps.setup_flags.push_back(probe_setup_flag("COOP_TASKRUN", kSetupCoopTaskrun, entries));
    caps.setup_flags.push_back(probe_setup_flag("SINGLE_ISSUER", kSetupSingleIssuer, entries));
    caps.setup_flags.push_back(
        probe_setup_flag("DEFER_TASKRUN", kSetupSingleIssuer | kSetupDeferTaskrun, entries));
    caps.setup_flags.push_back(probe_no_mmap(entries));
    probe_memlock(caps);
    probe_region(caps, entries);
    return caps;
}

std::string liburing_compiled_version() {
#ifdef IO_URING_VERSION_MAJOR
    return std::to_string(IO_URING_VERSION_MAJOR) + "." + std::to_string(IO_URING_VERSION_MINOR);
#else
    return "2.3 or older";
#endif
}

namespace {
int find_liburing(dl_phdr_info* info, size_t, void* data) {
    const char* name = info->dlpi_name;
    if (name && std::strstr(name, "/liburing.so")) {
        *static_cast<std::string*>(data) = name;
        return 1;
    }
    return 0;
}
} // namespace

std::string liburing_loaded_version(std::string* path) {
    std::string loaded;
    dl_iterate_phdr(find_liburing, &loaded);
    if (loaded.empty())
        return "statically linked";
    char resolved[PATH_MAX];
    if (realpath(loaded.c_str(), resolved))
        loaded = resolved;
    if (path)
        *path = loaded;
    // The library exports its version from 2.4 on; before that its file name
    // (liburing.so.2.3) is the only record.
    using VersionFn = int (*)();
    auto major = reinterpret_cast<VersionFn>(dlsym(RTLD_DEFAULT, "io_uring_major_version"));
    auto minor = reinterpret_cast<VersionFn>(dlsym(RTLD_DEFAULT, "io_uring_minor_version"));
    if (major && minor)
        return std::to_string(major()) + "." + std::to_string(minor());
    const auto pos = loaded.rfind(".so.");
    return pos == std::string::npos ? "unknown" : loaded.substr(pos + 4);
}

std::string ring_setup_hint(int err, const std::string& call) {
    switch (err) {
    case EPERM:
    case ENOSYS:
        return refusal_cause(err, refusal_facts());
    case ENOMEM:
        return ring_memory_hint(ring_memory_charge());
    case EINVAL:
    case EOPNOTSUPP:
        return "the kernel refused the ring's setup flags or size (flags newer than this "
               "kernel, or 0 entries or more than it allows)";
    default:
        return errno_hint(err, call);
    }
}

} // namespace uringprobe
