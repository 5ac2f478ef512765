// CPU and fault counts around an experiment (getrusage deltas).
#pragma once

#include <sys/resource.h>

namespace uringprobe {

struct UsageDelta {
    double user_ms = 0;
    double sys_ms = 0;
    long minflt = 0;
    long nvcsw = 0;  // voluntary context switches
    long nivcsw = 0; // involuntary context switches
};

// Snapshot of this process, or of its reaped children, taken at
// construction; delta() is what was used since.
class UsageMeter {
public:
    explicit UsageMeter(int who = RUSAGE_SELF);
    UsageDelta delta() const;

private:
    int who_;
    rusage start_{};
};

UsageDelta operator+(const UsageDelta& a, const UsageDelta& b);

} // namespace uringprobe
