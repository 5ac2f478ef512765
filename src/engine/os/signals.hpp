// Blocks the calling thread's signals for its lifetime: threads created
// and processes forked meanwhile inherit the full mask, so every signal
// keeps going to the caller (a backend's handlers never run elsewhere).
#pragma once

#include <csignal>
#include <pthread.h>

namespace uringprobe {

class AllSignalsBlocked {
public:
    AllSignalsBlocked() {
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old_);
    }
    ~AllSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
    AllSignalsBlocked(const AllSignalsBlocked&) = delete;
    AllSignalsBlocked& operator=(const AllSignalsBlocked&) = delete;

private:
    sigset_t old_;
};

} // namespace uringprobe
