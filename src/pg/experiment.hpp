// What every experiment's entry point shares: the wait event shown in
// pg_stat_activity while it runs, the stop check the engine polls, and the
// run itself from engine to result rows.
#pragma once

#include "boundary.hpp"
#include "postgres_headers.hpp"
#include "result_table.hpp"
#include "sql_args.hpp"

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

// Runs the experiment `function` (its parameters in `table()`): reads the
// arguments by the table, then, inside run_guarded() under the wait event,
// sets them into a Params and calls `body(P& p, bool& stopped)`, which
// validates and runs the engine, sets `stopped` when the engine stopped for
// a pending interrupt, and returns the engine's Table. Afterwards the
// interrupt is served and the table becomes the function's rows.
template <typename P, typename Body>
Datum run_experiment(FunctionCallInfo fcinfo, const char* function, const ParamTable<P>& (*table)(),
                     Body&& body) {
    SqlArgShape shape;
    run_guarded([&] { copy_shape(params_of(table()), &shape); });
    const SqlArg* args = read_sql_args(fcinfo, shape, function);
    const uint32 wait_event = experiment_wait_event();
    ResultRows out;
    bool stopped = false;
    pgstat_report_wait_start(wait_event);
    run_guarded([&] {
        P p;
        set_from_args(table(), args, p);
        copy_table(body(p, stopped), &out);
    });
    pgstat_report_wait_end();
    if (stopped)
        CHECK_FOR_INTERRUPTS();
    emit_rows(fcinfo, out);
    return (Datum)0;
}

} // namespace uringprobe::pg
