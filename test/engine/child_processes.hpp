// What tests of experiments with child processes share: finding the
// children, and a watchdog for a run that must end.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <string>
#include <sys/types.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace uringprobe {

// This process's children (every thread's), from /proc.
inline std::vector<pid_t> children() {
    std::vector<pid_t> out;
    DIR* tasks = ::opendir("/proc/self/task");
    if (!tasks)
        return out;
    while (dirent* e = ::readdir(tasks)) {
        if (e->d_name[0] == '.')
            continue;
        std::ifstream in(std::string("/proc/self/task/") + e->d_name + "/children");
        for (pid_t pid; in >> pid;)
            out.push_back(pid);
    }
    ::closedir(tasks);
    return out;
}

// Runs `body`; a body still running after `seconds` is a failure that
// ends the test program (a loop that spins or blocks for ever would
// otherwise hang the suite).
template <typename Body> void finishes_within(int seconds, Body body) {
    std::thread watchdog;
    std::atomic<bool> done{false};
    watchdog = std::thread([&] {
        for (int i = 0; i < seconds * 10 && !done; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (!done) {
            std::fprintf(stderr, "FAILED: still running after %d s\n", seconds);
            std::_Exit(1);
        }
    });
    body();
    done = true;
    watchdog.join();
}

// Runs `run(should_stop)` under finishes_within(seconds), with a stop
// rule that answers true from `after` on; returns the milliseconds from
// its first true answer to the return of `run` (the stop latency).
template <typename Run>
double stop_latency_ms(std::chrono::milliseconds after, Run run, int seconds = 20) {
    const auto started = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point asked, returned;
    bool stopping = false;
    const std::function<bool()> should_stop = [&] {
        if (!stopping && std::chrono::steady_clock::now() - started > after) {
            stopping = true;
            asked = std::chrono::steady_clock::now();
        }
        return stopping;
    };
    finishes_within(seconds, [&] {
        run(should_stop);
        returned = std::chrono::steady_clock::now();
    });
    return std::chrono::duration<double, std::milli>(returned - asked).count();
}

// Runs `body` (returning a std::string) in a child process; returns the
// text it returned. For what must not touch this process: a seccomp
// filter, say.
template <typename Body> std::string in_child(Body body) {
    int fds[2];
    if (::pipe(fds) != 0)
        return "pipe failed";
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        std::string out = body();
        (void)!::write(fds[1], out.data(), out.size());
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
        out.append(buf, static_cast<size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return out;
}

} // namespace uringprobe
