-- uringprobe_completions(): the SQL surface and exact counts. Timings
-- are checked for sanity in t/007_completions_events.pl.
CREATE EXTENSION IF NOT EXISTS uringprobe;
LOAD 'uringprobe';
-- Each operation, resubmission and reaping mode completes exactly what it
-- was asked for; replaced as reaped, the depth is what is in flight.
SELECT variant, status, ops, depth, resubmit, reaping, flags_in_effect, errors,
       CASE WHEN s.rs = 'each' THEN mean_in_flight BETWEEN 7.9 AND 8 END AS depth_in_flight
FROM (VALUES ('nop'), ('recv')) o(op),
     (VALUES ('each'), ('batch')) s(rs),
     (VALUES ('each'), ('batch')) r(rp),
     LATERAL uringprobe_completions(o.op, 8, s.rs, r.rp, '', 1000)
ORDER BY 1;
-- Every io_uring_enter counted where it is made: NOPs complete as they are
-- submitted, so at depth 8 one submission fills the ring, then one per
-- replaced CQE (992), or one per reaped batch of 8 (124); none waits.
SELECT resubmit, enters, completions_per_enter
FROM (VALUES ('each'), ('batch')) s(rs),
     LATERAL uringprobe_completions('nop', 8, s.rs, s.rs, '', 1000)
ORDER BY 1;
-- Replaced per batch, a batch of 8 drains before it is refilled.
SELECT mean_in_flight FROM uringprobe_completions('nop', 8, 'batch', 'batch', '', 8000);
-- Flags: what took effect.
SELECT flags_requested, flags_in_effect, status
FROM uringprobe_completions(flags => 'single_issuer, coop_taskrun', completions => 100);
-- read needs a scratch directory
SET uringprobe.scratch_dirs = '/tmp';
SELECT variant, status, ops, errors FROM uringprobe_completions('read', completions => 1000);
SELECT count(*) AS files_left FROM pg_ls_dir('/tmp') f
WHERE f LIKE 'uringprobe-' || pg_backend_pid() || '-%';
RESET uringprobe.scratch_dirs;

-- uringprobe_completions() with every kind of invalid argument: NULLs,
-- zero, negatives, huge values, wrong names and types; the session goes on.
LOAD 'uringprobe';
SELECT call, regress_error_of(call) AS error
FROM (VALUES
    ('uringprobe_completions(op => NULL)'),
    ('uringprobe_completions(depth => NULL)'),
    ('uringprobe_completions(resubmit => NULL)'),
    ('uringprobe_completions(reaping => NULL)'),
    ('uringprobe_completions(flags => NULL)'),
    ('uringprobe_completions(completions => NULL)'),
    ('uringprobe_completions(op => ''write'')'),
    ('uringprobe_completions(op => '''')'),
    ('uringprobe_completions(reaping => ''some'')'),
    ('uringprobe_completions(resubmit => ''never'')'),
    ('uringprobe_completions(flags => ''iopoll'')'),
    ('uringprobe_completions(flags => ''sqpoll,,bogus'')'),
    ('uringprobe_completions(flags => ''defer_taskrun'')'),
    ('uringprobe_completions(flags => ''sqpoll, single_issuer, defer_taskrun'')'),
    ('uringprobe_completions(flags => ''sqpoll, coop_taskrun'')'),
    ('uringprobe_completions(depth => 0)'),
    ('uringprobe_completions(depth => -1)'),
    ('uringprobe_completions(depth => 4097)'),
    ('uringprobe_completions(depth => 2147483647)'),
    ('uringprobe_completions(completions => 0)'),
    ('uringprobe_completions(completions => -1)'),
    ('uringprobe_completions(completions => 100000001)'),
    ('uringprobe_completions(completions => 9223372036854775807)'),
    ('uringprobe_completions(depth => ''deep'')'),
    ('uringprobe_completions(flags => ''sqpoll,sqpoll'')'),
    ('uringprobe_completions(flags => '','')'),
    ('uringprobe_completions(flags => ''sqpoll,'')'),
    ('uringprobe_completions(op => ''nop'', dir => ''/tmp'')'),
    ('uringprobe_completions(op => ''recv'', dir => ''/tmp'')')
) c(call);
-- the buffers and the ring count against uringprobe.max_memory_mb:
-- 4096 reads of 4 KiB are 16 MiB
SET uringprobe.max_memory_mb = 1;
SET uringprobe.scratch_dirs = '/tmp';
SELECT regress_error_of('uringprobe_completions(''read'', depth => 4096, completions => 10)') AS error;
SELECT regress_error_of('uringprobe_completions(''nop'', depth => 4096, completions => 10)') AS error;
RESET uringprobe.scratch_dirs;
RESET uringprobe.max_memory_mb;
-- read needs an allowed scratch directory
SET uringprobe.scratch_dirs = '';
SELECT regress_error_of('uringprobe_completions(''read'', completions => 10)') AS error;
SET uringprobe.scratch_dirs = '/tmp';
SELECT regress_error_of('uringprobe_completions(''read'', completions => 10, dir => ''/var/tmp'')') AS error;
RESET uringprobe.scratch_dirs;
SELECT 1 AS still_usable;
