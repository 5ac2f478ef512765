-- uringprobe_completions(): the SQL surface and argument errors. Timings
-- are checked for sanity in t/007_completions_events.pl.
CREATE EXTENSION IF NOT EXISTS uringprobe;
LOAD 'uringprobe';
-- Each operation and reaping mode completes exactly what it was asked for.
SELECT variant, status, ops, depth, batch, flags_in_effect, errors
FROM (VALUES ('nop'), ('recv')) o(op),
     (VALUES ('each'), ('batch')) r(reaping),
     LATERAL uringprobe_completions(o.op, 8, 0, r.reaping, '', 1000)
ORDER BY 1;
-- depth 8 in batches of 8, 1000 completions: 125 submissions, each one
-- io_uring_enter that also waits
SELECT enters, completions_per_enter FROM uringprobe_completions('nop', 8, 8, 'batch', '', 1000);
-- Flags: what took effect; a combination the kernel refuses is a row.
SELECT flags_requested, flags_in_effect, status
FROM uringprobe_completions(flags => 'single_issuer, coop_taskrun', completions => 100);
SELECT flags_requested, flags_in_effect, status
FROM uringprobe_completions(flags => 'defer_taskrun', completions => 100);
-- read needs a scratch directory
SET uringprobe.scratch_dirs = '/tmp';
SELECT variant, status, ops, errors FROM uringprobe_completions('read', completions => 1000);
SELECT count(*) AS files_left FROM pg_ls_dir('/tmp') f
WHERE f LIKE 'uringprobe-' || pg_backend_pid() || '-%';
RESET uringprobe.scratch_dirs;
