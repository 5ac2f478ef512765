-- uringprobe_events(): the SQL surface and argument errors.
CREATE EXTENSION IF NOT EXISTS uringprobe;
-- The samples in a latency_histogram ("low_ns:count,...").
CREATE FUNCTION pg_temp.histogram_count(h text) RETURNS bigint LANGUAGE sql
AS $$ SELECT coalesce(sum(split_part(b, ':', 2)::bigint), 0) FROM unnest(string_to_array(h, ',')) b $$;
-- Every loop delivers exactly the events asked for, a round per pipe
-- set, whoever writes the bytes; no io_uring poll completes as it is armed.
SELECT variant, peer, status, ops, pipes, rounds, enters IS NOT NULL AS counts_enters,
       armed_ready, pg_temp.histogram_count(latency_histogram) = rounds AS histogram_has_all
FROM (VALUES ('epoll'), ('poll'), ('uring_oneshot'), ('uring_oneshot_defer'),
             ('uring_multishot'), ('uring_multishot_defer'), ('pg_waiteventset')) b(loop),
     (VALUES ('self'), ('process')) w(pr),
     LATERAL uringprobe_events(b.loop, 4, 1000, w.pr)
ORDER BY 1, 2 DESC;
-- System calls counted where they are made, one pipe: a one-shot ring
-- enters twice per event (to arm, to wait), a multishot one once after
-- arming once, epoll and poll wait once; a few more where a signal to the
-- backend interrupted a wait (each retry is a call made).
SELECT variant, peer, e.expected, enters - e.expected BETWEEN 0 AND 10 AS as_expected
FROM (VALUES ('epoll', 1000), ('poll', 1000), ('uring_oneshot', 2000),
             ('uring_multishot', 1001)) e(loop, expected),
     (VALUES ('self'), ('process')) w(pr),
     LATERAL uringprobe_events(e.loop, 1, 1000, w.pr)
ORDER BY 1, 2 DESC;
-- No peer process is left behind.
SELECT count(*) AS threads_with_children
FROM pg_ls_dir('/proc/' || pg_backend_pid() || '/task') t
WHERE pg_read_file('/proc/' || pg_backend_pid() || '/task/' || t || '/children') <> '';

-- uringprobe_events() with every kind of invalid argument: NULLs, zero,
-- negatives, huge values, wrong names and types; the session goes on.
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
