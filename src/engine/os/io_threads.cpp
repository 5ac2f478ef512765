#include "os/io_threads.hpp"

#include "os/process_snapshot.hpp"
#include "os/system_info.hpp"

#include <cstdlib>
#include <string>
#include <unistd.h>

namespace uringprobe {

namespace {

// Calls visit(tid, cpu_ms) for every thread of this process whose name
// starts with `prefix`.
template <typename Visit> void each_thread(const char* prefix, Visit&& visit) {
    each_task(0, true,
              [prefix, &visit](long tid, const std::string& task, const std::string& comm) {
                  if (comm.rfind(prefix, 0) != 0)
                      return;
                  // schedstat's first field is the time on a CPU in ns; stat has ticks.
                  const std::string sched = read_first_line(task + "/schedstat");
                  if (!sched.empty()) {
                      visit(tid, std::strtod(sched.c_str(), nullptr) / 1e6);
                      return;
                  }
                  try {
                      const ProcStat st = read_proc_stat(task + "/stat");
                      visit(tid, st.user_ms + st.sys_ms);
                  } catch (...) {
                      // exited between the listing and the read
                  }
              });
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
