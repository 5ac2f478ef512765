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

// The stop rule of every call, polled by the engines on the backend's
// main thread (never from one of an experiment's threads): true once
// PostgreSQL would end the statement or the session - a cancel, a
// termination, transaction_timeout (17+), the client gone (checked every
// client_connection_check_interval), the postmaster gone, or an
// interrupt PostgreSQL keeps to itself (a recovery conflict). What must
// not wait for the end of a call is served here as it comes: procsignal
// barriers (DROP DATABASE waits for them), memory-context logging. May
// throw a PgError (from call_pg). The engine then cleans up and returns,
// and serve_interrupts_after_run() raises what ended it.
bool stop_requested();
// After a run, outside run_guarded(): FATAL when the postmaster is gone,
// then CHECK_FOR_INTERRUPTS().
void serve_interrupts_after_run();

// Runs the experiment `function` (its parameters in `table()`): reads the
// arguments by the table, then, inside run_guarded() under the wait event,
// sets them into a Params and calls `body(P& p)`, which validates and
// runs the engine (stop_requested() its stop rule) and returns the
// engine's Table. Afterwards what ended the run, if anything, is served
// and the table becomes the function's rows.
template <typename P, typename Body>
Datum run_experiment(FunctionCallInfo fcinfo, const char* function, const ParamTable<P>& (*table)(),
                     Body&& body) {
    SqlArgShape shape;
    run_guarded([&] { copy_shape(sql_params_of(table()), &shape); });
    const SqlArg* args = read_sql_args(fcinfo, shape, function);
    const uint32 wait_event = experiment_wait_event();
    ResultRows out;
    pgstat_report_wait_start(wait_event);
    run_guarded([&] {
        P p;
        set_from_args(table(), args, p);
        copy_table(body(p), &out);
    });
    pgstat_report_wait_end();
    serve_interrupts_after_run();
    emit_rows(fcinfo, out);
    return (Datum)0;
}

} // namespace uringprobe::pg
