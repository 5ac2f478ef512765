-- uringprobe_events(): the SQL surface and argument errors.
CREATE EXTENSION IF NOT EXISTS uringprobe;
-- The samples in a latency_histogram ("low_ns:count,...").
CREATE FUNCTION pg_temp.histogram_count(h text) RETURNS bigint LANGUAGE sql
AS $$ SELECT coalesce(sum(split_part(b, ':', 2)::bigint), 0) FROM unnest(string_to_array(h, ',')) b $$;
-- Every backend delivers exactly the events asked for, a round per pipe set.
SELECT variant, status, ops, pipes, rounds, enters IS NOT NULL AS counts_enters,
       pg_temp.histogram_count(latency_histogram) = rounds AS histogram_has_all
FROM (VALUES ('epoll'), ('poll'), ('uring_oneshot'), ('uring_oneshot_defer'),
             ('uring_multishot'), ('uring_multishot_defer'), ('pg_waiteventset')) b(backend),
     LATERAL uringprobe_events(b.backend, 4, 1000)
ORDER BY 1;
