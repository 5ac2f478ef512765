#include "io_uring_caps.hpp"

#include "error.hpp"
#include "fd.hpp"
#include "ring.hpp"

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

#if defined(IO_URING_VERSION_MAJOR) &&                                                             \
    (IO_URING_VERSION_MAJOR > 2 || (IO_URING_VERSION_MAJOR == 2 && IO_URING_VERSION_MINOR >= 5))
#define URINGPROBE_HAVE_QUEUE_INIT_MEM 1
#endif

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
    io_uring ring{};
    io_uring_params p{};
    p.flags = flags;
    int ret = io_uring_queue_init_params(entries, &ring, &p);
    if (ret < 0) {
        out.err = -ret;
        out.detail = std::string("io_uring_setup: ") + std::strerror(-ret);
        return out;
    }
    io_uring_queue_exit(&ring);
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
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = 64 * page;
    void* mem =
        mmap(nullptr, 2 * bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        out.err = errno;
        out.detail = std::string("mmap: ") + std::strerror(errno);
        return out;
    }
    std::memset(mem, 0, 2 * bytes);
    const int fd = setup_no_mmap_ring(entries, static_cast<char*>(mem) + bytes, mem);
    if (fd < 0) {
        out.err = -fd;
        out.detail = std::string("io_uring_setup: ") + std::strerror(-fd);
    } else {
        close(fd);
        out.ok = true;
        out.detail = "accepted";
    }
    munmap(mem, 2 * bytes);
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
    int fds[2];
    check_syscall(pipe(fds), "pipe");
    Fd rd(fds[0]), wr(fds[1]);
    check_syscall(write(wr.get(), "x", 1), "write");
    io_uring* r = ring.get();
    io_uring_sqe* sqe = io_uring_get_sqe(r);
    io_uring_prep_poll_add(sqe, rd.get(), POLLIN);
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

// Lower the soft RLIMIT_MEMLOCK to 0 for one ring creation: if the kernel
// charges ring memory to it, creation fails with ENOMEM.
void probe_memlock(IoUringCaps& caps) {
    if (has_cap_ipc_lock()) {
        caps.memlock = MemlockCharge::exempt;
        caps.memlock_detail = "this process has CAP_IPC_LOCK: its rings are not charged";
        return;
    }
    rlimit saved{};
    if (getrlimit(RLIMIT_MEMLOCK, &saved) != 0) {
        caps.memlock_detail = std::string("getrlimit: ") + std::strerror(errno);
        return;
    }
    rlimit zero = saved;
    zero.rlim_cur = 0;
    if (setrlimit(RLIMIT_MEMLOCK, &zero) != 0) {
        caps.memlock_detail = std::string("setrlimit: ") + std::strerror(errno);
        return;
    }
    io_uring ring{};
    int ret = io_uring_queue_init(8, &ring, 0);
    setrlimit(RLIMIT_MEMLOCK, &saved);
    if (ret == 0) {
        io_uring_queue_exit(&ring);
        caps.memlock = MemlockCharge::not_charged;
        caps.memlock_detail = "a ring was created with a memlock limit of 0";
    } else if (ret == -ENOMEM) {
        caps.memlock = MemlockCharge::charged;
        caps.memlock_detail = "ring creation failed with ENOMEM under a memlock limit of 0";
    } else {
        caps.memlock_detail = std::string("io_uring_setup: ") + std::strerror(-ret);
    }
}

} // namespace

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
    const size_t bytes = 1024 * 1024;
    void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        caps.region_detail = std::string("mmap: ") + std::strerror(errno);
        return;
    }
    io_uring ring{};
    io_uring_params p{};
    int ret = io_uring_queue_init_mem(entries, &ring, &p, mem, bytes);
    if (ret < 0) {
        caps.region_detail = std::string("io_uring_queue_init_mem: ") + std::strerror(-ret);
    } else {
        caps.region_ring_bytes = static_cast<size_t>(ret);
        caps.region_detail = "measured with io_uring_queue_init_mem";
        io_uring_queue_exit(&ring);
    }
    munmap(mem, bytes);
#else
    (void)entries;
    caps.region_detail =
        "liburing " + liburing_compiled_version() + " has no io_uring_queue_init_mem";
#endif
}

} // namespace

IoUringCaps probe_io_uring(unsigned entries) {
    IoUringCaps caps;
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

} // namespace uringprobe
