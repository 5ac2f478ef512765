// uringprobe_postmaster() and uringprobe_backend(): a process seen through
// /proc, so that a benchmark can charge the postmaster's CPU and mappings
// to the connections it forked.
#include "boundary.hpp"
#include "result_table.hpp"

#include "../engine/os/process_snapshot.hpp"

#include <unistd.h>

namespace {

Datum snapshot_rows(FunctionCallInfo fcinfo, pid_t pid, const char* which) {
    uringprobe::pg::ResultRows out;
    uringprobe::pg::run_guarded([&] {
        const uringprobe::ProcessSnapshot s = uringprobe::snapshot_process(pid);
        uringprobe::pg::copy_table(uringprobe::process_table(which, s), &out);
    });
    uringprobe::pg::emit_rows(fcinfo, out);
    return (Datum)0;
}

} // namespace

extern "C" {
PG_FUNCTION_INFO_V1(uringprobe_postmaster);
PG_FUNCTION_INFO_V1(uringprobe_backend);
Datum uringprobe_postmaster(PG_FUNCTION_ARGS);
Datum uringprobe_backend(PG_FUNCTION_ARGS);
}

Datum uringprobe_postmaster(PG_FUNCTION_ARGS) {
    return snapshot_rows(fcinfo, PostmasterPid, "postmaster");
}

Datum uringprobe_backend(PG_FUNCTION_ARGS) {
    return snapshot_rows(fcinfo, getpid(), "backend");
}
