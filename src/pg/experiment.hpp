// What every experiment's entry point shares: the wait event shown in
// pg_stat_activity while it runs, and the stop check the engine polls.
#pragma once

#include "postgres_headers.hpp"

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

} // namespace uringprobe::pg
