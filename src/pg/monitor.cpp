// uringprobe_monitor(): the monitoring reading, one row, no I/O, no ring.
#include "boundary.hpp"
#include "result_table.hpp"
#include "server_settings.hpp"

#include "../engine/experiments/monitor.hpp"

extern "C" {
PG_FUNCTION_INFO_V1(uringprobe_monitor);
Datum uringprobe_monitor(PG_FUNCTION_ARGS);
}

Datum uringprobe_monitor(PG_FUNCTION_ARGS) {
    const uringprobe::pg::ServerSettingTexts t = uringprobe::pg::read_server_settings();
    uringprobe::pg::ResultRows out;
    uringprobe::pg::run_guarded([&] {
        uringprobe::pg::copy_table(uringprobe::monitor_table(uringprobe::read_monitor(
                                       uringprobe::pg::server_facts(t), PostmasterPid)),
                                   &out);
    });
    uringprobe::pg::emit_rows(fcinfo, out);
    return (Datum)0;
}
