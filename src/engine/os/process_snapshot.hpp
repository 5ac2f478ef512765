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
    // Threads, the kernel's io-wq workers (iou-wrk-*, and one just started
    // that has not named itself yet) left out: they serve the process's
    // io_uring context, not one ring, and come and go on their own. A
    // ring's SQPOLL thread (iou-sqp-*) counts.
    long threads = 0;
};

// The CPU time and start time of a process or thread, from its stat file
// (/proc/<pid>/stat or /proc/<pid>/task/<tid>/stat); throws SysError.
struct ProcStat {
    double user_ms = 0;
    double sys_ms = 0;
    unsigned long long start_ticks = 0; // since boot, in clock ticks
    unsigned long flags = 0;            // the task's PF_* flags
};
ProcStat read_proc_stat(const std::string& path);

// The name every io-wq worker of io_uring starts with, and every SQPOLL
// thread.
inline constexpr const char* kIoWqWorkerName = "iou-wrk-";
inline constexpr const char* kSqPollThreadName = "iou-sqp-";
// The kernel's flag of its io_uring threads (PF_IO_WORKER), in a stat
// file's flags.
inline constexpr unsigned long kPfIoWorker = 0x10;

// Whether a task named `comm` with stat flags `flags` counts among a
// process's threads: not an io-wq worker, named as one, nor a kernel io
// thread still named as the process (a worker the kernel has just started
// names itself when it first runs; a SQPOLL thread is named before its
// ring's set-up returns).
bool counts_as_thread(const std::string& comm, unsigned long flags);

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
