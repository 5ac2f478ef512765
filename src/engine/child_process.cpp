#include "child_process.hpp"

#include "error.hpp"

#include <cerrno>
#include <csignal>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

namespace uringprobe {

ChildProcess::ChildProcess(const std::function<void()>& body) {
    sigset_t all, old;
    sigfillset(&all);
    // Blocked across fork: the child starts with every signal blocked.
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(0);
        body();
        _exit(0);
    }
    const int err = errno;
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (pid_ < 0)
        throw SysError(err, "fork");
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept : pid_(std::exchange(other.pid_, -1)) {}

ChildProcess::~ChildProcess() {
    if (pid_ <= 0)
        return;
    kill(pid_, SIGKILL);
    int status;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
}

} // namespace uringprobe
