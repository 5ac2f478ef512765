-- uringprobe_completions() with every kind of invalid argument: NULLs,
-- zero, negatives, huge values, wrong names and types; the session goes on.
CREATE EXTENSION IF NOT EXISTS uringprobe;
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
