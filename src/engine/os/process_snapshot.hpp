// A process seen through /proc: its mappings (all, and io_uring rings), its
// page-table and resident size, its io_uring fds, its CPU time so far and
// its threads.
#pragma once

#include "contract/table.hpp"

#include <functional>
#include <string>

#include <sys/types.h>

namespace uringprobe {

struct ProcessSnapshot {
    pid_t pid = 0;
    long mappings = 0;
    long io_uring_mappings = 0;
    long io_uring_fds = 0;
    long open_fds = 0;
    long vm_pte_kb = 0;
    long vm_rss_kb = 0;
    double user_ms = 0;
    double sys_ms = 0;
    // Threads, the kernel's io-wq workers (iou-wrk-*) left out: they serve
    // the process's io_uring context, not one ring, and come and go on their
    // own. A ring's SQPOLL thread (iou-sqp-*) counts.
    long threads = 0;
};

// The CPU time and start time of a process or thread, from its stat file
// (/proc/<pid>/stat or /proc/<pid>/task/<tid>/stat); throws SysError.
struct ProcStat {
    double user_ms = 0;
    double sys_ms = 0;
    unsigned long long start_ticks = 0; // since boot, in clock ticks
};
ProcStat read_proc_stat(const std::string& path);

// The name every io-wq worker of io_uring starts with.
inline constexpr const char* kIoWqWorkerName = "iou-wrk-";

// Calls visit(tid, task_dir, comm) for every thread of `pid` (0: this
// process) still there when its name is read: a thread that ends between
// the listing and the read (io-wq workers idle out at any moment) is left
// out. Throws SysError when the process's task directory cannot be opened,
// unless `may_be_missing`.
using TaskVisit =
    std::function<void(long tid, const std::string& task_dir, const std::string& comm)>;
void each_task(pid_t pid, bool may_be_missing, const TaskVisit& visit);

// Throws SysError when the process cannot be read (gone, or not ours).
ProcessSnapshot snapshot_process(pid_t pid);

// The columns of a process's row (SQL's type uringprobe_process).
std::vector<Column> process_columns();
// One row: process (e.g. "postmaster"), pid, mappings, io_uring_mappings,
// io_uring_fds, open_fds, vmpte_kb, vmrss_kb, user_ms, sys_ms, threads.
Table process_table(const std::string& which, const ProcessSnapshot& s);

} // namespace uringprobe
