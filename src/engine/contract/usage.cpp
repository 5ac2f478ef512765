#include "contract/usage.hpp"

namespace uringprobe {

namespace {
double ms(const timeval& tv) {
    return tv.tv_sec * 1000.0 + tv.tv_usec / 1000.0;
}
} // namespace

UsageMeter::UsageMeter(int who) : who_(who) {
    getrusage(who_, &start_);
}

UsageDelta UsageMeter::delta() const {
    rusage now{};
    getrusage(who_, &now);
    UsageDelta d;
    d.user_ms = ms(now.ru_utime) - ms(start_.ru_utime);
    d.sys_ms = ms(now.ru_stime) - ms(start_.ru_stime);
    d.minflt = now.ru_minflt - start_.ru_minflt;
    d.nvcsw = now.ru_nvcsw - start_.ru_nvcsw;
    d.nivcsw = now.ru_nivcsw - start_.ru_nivcsw;
    return d;
}

UsageDelta operator+(const UsageDelta& a, const UsageDelta& b) {
    return {a.user_ms + b.user_ms, a.sys_ms + b.sys_ms, a.minflt + b.minflt, a.nvcsw + b.nvcsw,
            a.nivcsw + b.nivcsw};
}

} // namespace uringprobe
