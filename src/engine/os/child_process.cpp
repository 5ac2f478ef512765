#include "os/child_process.hpp"

#include "contract/error.hpp"
#include "os/signals.hpp"

#include <cerrno>
#include <csignal>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

namespace uringprobe {

ChildProcess::ChildProcess(const std::function<void()>& body) {
    int err = 0;
    {
        // Blocked across fork: the child starts with every signal blocked
        // and never leaves this scope.
        const AllSignalsBlocked blocked;
        const pid_t parent = getpid();
        pid_ = fork();
        if (pid_ == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent)
                _exit(0);
            body();
            _exit(0);
        }
        err = errno;
    }
    if (pid_ < 0)
        throw SysError(err, "fork");
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept : pid_(std::exchange(other.pid_, -1)) {}

bool ChildProcess::exited() {
    if (pid_ <= 0)
        return true;
    int status;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno == ECHILD)) {
        pid_ = -1;
        return true;
    }
    return false;
}

ChildProcess::~ChildProcess() {
    if (pid_ <= 0)
        return;
    kill(pid_, SIGKILL);
    int status;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
}

} // namespace uringprobe
