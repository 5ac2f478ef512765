#include "os/io_threads.hpp"
#include "os/dir.hpp"

#include "os/process_snapshot.hpp"
#include "os/system_info.hpp"

#include <cstdlib>
#include <dirent.h>
#include <string>
#include <unistd.h>

namespace uringprobe {

namespace {

// Calls visit(tid, cpu_ms) for every thread of this process whose name
// starts with `prefix_`.
template <typename Visit> void each_thread(const char* prefix_, Visit&& visit) {
    Dir d = Dir::open_if_possible("/proc/self/task");
    if (!d)
        return; // not observable here
    while (dirent* e = d.next()) {
        if (e->d_name[0] == '.')
            continue;
        const std::string task = std::string("/proc/self/task/") + e->d_name;
        if (read_first_line(task + "/comm").rfind(prefix_, 0) != 0)
            continue;
        // schedstat's first field is the time on a CPU in ns; stat has ticks.
        const std::string sched = read_first_line(task + "/schedstat");
        if (!sched.empty()) {
            visit(std::atol(e->d_name), std::strtod(sched.c_str(), nullptr) / 1e6);
            continue;
        }
        try {
            const ProcStat st = read_proc_stat(task + "/stat");
            visit(std::atol(e->d_name), st.user_ms + st.sys_ms);
        } catch (...) {
            // exited between readdir and the read
        }
    }
}

} // namespace

IoThreadSampler::IoThreadSampler(const char* prefix) : prefix_(prefix) {
    each_thread(prefix_, [this](long tid, double ms) { baseline_[tid] = ms; });
}

void IoThreadSampler::sample() {
    each_thread(prefix_, [this](long tid, double ms) {
        auto b = baseline_.find(tid);
        if (b == baseline_.end())
            seen_[tid] = ms;
        else if (ms > b->second || seen_.count(tid))
            seen_[tid] = ms - b->second;
    });
}

long count_io_threads(const char* prefix) {
    long n = 0;
    each_thread(prefix, [&n](long, double) { ++n; });
    return n;
}

bool wait_for_io_threads(const char* prefix, long count, int timeout_ms) {
    for (int waited = 0;; waited += 5) {
        if (count_io_threads(prefix) <= count)
            return true;
        if (waited >= timeout_ms)
            return false;
        ::usleep(5000);
    }
}

double IoThreadSampler::cpu_ms() const {
    double total = 0;
    for (const auto& [tid, ms] : seen_)
        total += ms;
    return total;
}

} // namespace uringprobe
