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
