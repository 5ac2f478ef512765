#include "experiment.hpp"

extern "C" {
#include "utils/wait_event.h"
}

namespace uringprobe::pg {

uint32 experiment_wait_event() {
#if PG_VERSION_NUM >= 170000
    static uint32 event = 0;
    if (event == 0)
        event = WaitEventExtensionNew("UringprobeExperiment");
    return event;
#else
    return PG_WAIT_EXTENSION;
#endif
}

bool stop_requested() {
    return QueryCancelPending || ProcDiePending;
}

} // namespace uringprobe::pg
