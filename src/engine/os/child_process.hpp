// A child process that runs a function and is always killed and reaped:
// movable, not copyable. The child blocks every signal (so no handler of
// the parent, a PostgreSQL backend say, ever runs in it) and dies with the
// thread that forked it (PR_SET_PDEATHSIG).
#pragma once

#include <functional>
#include <sys/types.h>

namespace uringprobe {

class ChildProcess {
public:
    // Forks; the child runs `body` and _exit(0)s. Throws SysError.
    explicit ChildProcess(const std::function<void()>& body);
    ChildProcess(ChildProcess&& other) noexcept;
    ChildProcess& operator=(ChildProcess&&) = delete;
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;
    // SIGKILL and waitpid.
    ~ChildProcess();

    pid_t pid() const { return pid_; }
    // True once the child has exited (reaped here: the destructor then has
    // nothing left to do). Never blocks.
    bool exited();

private:
    pid_t pid_ = -1;
};

} // namespace uringprobe
