#include "io_threads.hpp"

#include "process_snapshot.hpp"
#include "system_info.hpp"

#include <cstdlib>
#include <dirent.h>
#include <string>

namespace uringprobe {

template <typename Visit> void IoThreadSampler::each_worker(Visit&& visit) const {
    DIR* d = ::opendir("/proc/self/task");
    if (!d)
        return; // not observable here
    while (dirent* e = ::readdir(d)) {
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
    ::closedir(d);
}

IoThreadSampler::IoThreadSampler(const char* prefix) : prefix_(prefix) {
    each_worker([this](long tid, double ms) { baseline_[tid] = ms; });
}

void IoThreadSampler::sample() {
    each_worker([this](long tid, double ms) {
        auto b = baseline_.find(tid);
        if (b == baseline_.end())
            seen_[tid] = ms;
        else if (ms > b->second || seen_.count(tid))
            seen_[tid] = ms - b->second;
    });
}

double IoThreadSampler::cpu_ms() const {
    double total = 0;
    for (const auto& [tid, ms] : seen_)
        total += ms;
    return total;
}

} // namespace uringprobe
