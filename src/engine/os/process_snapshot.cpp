#include "os/process_snapshot.hpp"
#include "os/dir.hpp"
#include "os/system_info.hpp"

#include "contract/error.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace uringprobe {

namespace {

std::ifstream open_proc(pid_t pid, const char* file) {
    const std::string path = "/proc/" + std::to_string(pid) + "/" + file;
    std::ifstream in(path);
    if (!in)
        throw SysError(errno ? errno : ENOENT, "open " + path);
    return in;
}

void read_maps(pid_t pid, ProcessSnapshot& s) {
    auto in = open_proc(pid, "maps");
    std::string line;
    while (std::getline(in, line)) {
        ++s.mappings;
        if (line.find("anon_inode:[io_uring]") != std::string::npos)
            ++s.io_uring_mappings;
    }
}

void read_status(pid_t pid, ProcessSnapshot& s) {
    auto in = open_proc(pid, "status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("VmPTE:", 0) == 0)
            s.vm_pte_kb = std::atol(line.c_str() + 6);
        else if (line.rfind("VmRSS:", 0) == 0)
            s.vm_rss_kb = std::atol(line.c_str() + 6);
    }
}

void read_stat(pid_t pid, ProcessSnapshot& s) {
    const ProcStat st = read_proc_stat("/proc/" + std::to_string(pid) + "/stat");
    s.user_ms = st.user_ms;
    s.sys_ms = st.sys_ms;
}

void read_fds(pid_t pid, ProcessSnapshot& s) {
    const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
    Dir d = Dir::open(dir);
    char target[64];
    while (dirent* e = d.next()) {
        if (e->d_name[0] == '.')
            continue;
        if (pid == getpid() && std::atoi(e->d_name) == d.fd())
            continue;
        ++s.open_fds;
        const std::string link = dir + "/" + e->d_name;
        const ssize_t len = readlink(link.c_str(), target, sizeof target - 1);
        if (len > 0) {
            target[len] = '\0';
            if (std::strcmp(target, "anon_inode:[io_uring]") == 0)
                ++s.io_uring_fds;
        }
    }
}

void read_threads(pid_t pid, ProcessSnapshot& s) {
    each_task(pid, false, [&s](long, const std::string& task, const std::string& comm) {
        if (comm.rfind(kIoWqWorkerName, 0) == 0)
            return;
        try {
            if (counts_as_thread(comm, read_proc_stat(task + "/stat").flags))
                ++s.threads;
        } catch (const SysError&) {
            // ended between the name and the stat
        }
    });
}

} // namespace

bool counts_as_thread(const std::string& comm, unsigned long flags) {
    if (comm.rfind(kIoWqWorkerName, 0) == 0)
        return false;
    return !(flags & kPfIoWorker) || comm.rfind(kSqPollThreadName, 0) == 0;
}

void each_task(pid_t pid, bool may_be_missing, const TaskVisit& visit) {
    const std::string dir =
        pid == 0 ? std::string("/proc/self/task") : "/proc/" + std::to_string(pid) + "/task";
    Dir d = may_be_missing ? Dir::open_if_possible(dir.c_str()) : Dir::open(dir);
    if (!d)
        return;
    while (dirent* e = d.next()) {
        if (e->d_name[0] == '.')
            continue;
        const std::string task = dir + "/" + e->d_name;
        const std::string comm = read_first_line(task + "/comm");
        if (!comm.empty())
            visit(std::atol(e->d_name), task, comm);
    }
}

// Fields 9 (flags), 14 (utime), 15 (stime) and 22 (starttime) of a stat file, counted
// after the parenthesised command name (which may hold spaces).
ProcStat read_proc_stat(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        throw SysError(errno ? errno : ENOENT, "open " + path);
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')');
    if (close == std::string::npos || close + 2 >= stat.size())
        throw SysError(EINVAL, "parse " + path);
    std::vector<unsigned long long> fields; // fields[0] is field 3 (state)
    const char* p = stat.c_str() + close + 2;
    while (*p) {
        const char* next = std::strchr(p, ' ');
        fields.push_back(std::strtoull(p, nullptr, 10));
        if (!next)
            break;
        p = next + 1;
    }
    if (fields.size() < 20)
        throw SysError(EINVAL, "parse " + path);
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    ProcStat r;
    r.user_ms = fields[14 - 3] * 1000.0 / ticks;
    r.sys_ms = fields[15 - 3] * 1000.0 / ticks;
    r.start_ticks = fields[22 - 3];
    r.flags = static_cast<unsigned long>(fields[9 - 3]);
    return r;
}

ProcessSnapshot snapshot_process(pid_t pid) {
    ProcessSnapshot s;
    s.pid = pid;
    read_maps(pid, s);
    read_status(pid, s);
    read_stat(pid, s);
    read_fds(pid, s);
    read_threads(pid, s);
    return s;
}

std::vector<Column> process_columns() {
    return {text_column("process"),        bigint_column("pid"),
            bigint_column("mappings"),     bigint_column("io_uring_mappings"),
            bigint_column("io_uring_fds"), bigint_column("open_fds"),
            bigint_column("vmpte_kb"),     bigint_column("vmrss_kb"),
            real_column("user_ms"),        real_column("sys_ms"),
            bigint_column("threads")};
}

Table process_table(const std::string& which, const ProcessSnapshot& s) {
    Table t{process_columns(), {}};
    t.add({Value::text(which), Value::integer(s.pid), Value::integer(s.mappings),
           Value::integer(s.io_uring_mappings), Value::integer(s.io_uring_fds),
           Value::integer(s.open_fds), Value::integer(s.vm_pte_kb), Value::integer(s.vm_rss_kb),
           Value::real(s.user_ms), Value::real(s.sys_ms), Value::integer(s.threads)});
    return t;
}

} // namespace uringprobe
