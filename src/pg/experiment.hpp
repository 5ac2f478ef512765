// What every experiment's entry point shares: the wait event shown in
// pg_stat_activity while it runs, the stop check the engine polls, and the
// run itself from engine to result rows.
#pragma once

#include "boundary.hpp"
#include "postgres_headers.hpp"
#include "result_table.hpp"

extern "C" {
#include "utils/wait_event.h" // pgstat_report_wait_start/end around a run
}

namespace uringprobe::pg {

// The wait event "UringprobeExperiment" (PostgreSQL 17+), or the generic
// Extension wait event before. Call outside run_guarded(): it may raise.
uint32 experiment_wait_event();

// Polled by engines: true once a cancel or termination is pending. Reads
// the signal flags only; the caller runs CHECK_FOR_INTERRUPTS() after the
// engine has cleaned up.
bool stop_requested();

// Runs an experiment inside run_guarded() under the wait event: `body`
// takes a bool& it sets when the engine stopped for a pending interrupt,
// and returns the engine's Table. Afterwards the interrupt is served and
// the table becomes the function's rows. The arguments must have been
// read into plain values before.
template <typename Body> Datum run_experiment(FunctionCallInfo fcinfo, Body&& body) {
    const uint32 wait_event = experiment_wait_event();
    ResultRows out;
    bool stopped = false;
    pgstat_report_wait_start(wait_event);
    run_guarded([&] { copy_table(body(stopped), &out); });
    pgstat_report_wait_end();
    if (stopped)
        CHECK_FOR_INTERRUPTS();
    emit_rows(fcinfo, out);
    return (Datum)0;
}

} // namespace uringprobe::pg
