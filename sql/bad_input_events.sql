-- uringprobe_events() with every kind of invalid argument: NULLs, zero,
-- negatives, huge values, wrong names and types; the session goes on.
CREATE EXTENSION IF NOT EXISTS uringprobe;
SELECT call, regress_error_of(call) AS error
FROM (VALUES
    ('uringprobe_events(loop => NULL)'),
    ('uringprobe_events(backend => ''epoll'')'),
    ('uringprobe_events(pipes => NULL)'),
    ('uringprobe_events(events => NULL)'),
    ('uringprobe_events(peer => NULL)'),
    ('uringprobe_events(peer => ''thread'')'),
    ('uringprobe_events(''kqueue'')'),
    ('uringprobe_events('''')'),
    ('uringprobe_events(''EPOLL'')'),
    ('uringprobe_events(pipes => 0)'),
    ('uringprobe_events(pipes => -1)'),
    ('uringprobe_events(pipes => 1001)'),
    ('uringprobe_events(pipes => 2147483647)'),
    ('uringprobe_events(events => 0)'),
    ('uringprobe_events(events => -1)'),
    ('uringprobe_events(events => 100000001)'),
    ('uringprobe_events(events => 9223372036854775807)'),
    ('uringprobe_events(pipes => ''two'')')
) c(call);
-- a page of pipe buffer per pipe, and an io_uring loop's ring, count
-- against uringprobe.max_memory_mb
SET uringprobe.max_memory_mb = 1;
SELECT regress_error_of('uringprobe_events(''epoll'', pipes => 1000, events => 1000)') AS error;
SELECT regress_error_of('uringprobe_events(''uring_multishot'', pipes => 1000, events => 1000)') AS error;
RESET uringprobe.max_memory_mb;
SELECT 1 AS still_usable;
