-- The result contract: every experiment's rows start with the shared
-- columns; a function whose OUT columns differ from what the module
-- produces in name, type or number is an error naming the column.
CREATE EXTENSION IF NOT EXISTS uringprobe;
-- The shared columns, in order, first in every experiment.
SELECT proname, substr(args, strpos(args, 'OUT ')) LIKE
  'OUT experiment text, OUT variant text, OUT status text, OUT ops bigint, OUT seconds double precision, OUT ops_per_sec double precision, OUT p50_us double precision, OUT p99_us double precision, OUT max_us double precision, OUT user_ms double precision, OUT sys_ms double precision, OUT minflt bigint, OUT vcsw bigint, OUT ivcsw bigint, %'
  AS shared_columns_first
FROM (SELECT proname, pg_get_function_arguments(oid) AS args FROM pg_proc) p
WHERE proname IN ('uringprobe_rings', 'uringprobe_extend',
                  'uringprobe_completions', 'uringprobe_events')
ORDER BY 1;
-- A row that timed nothing (a combination the kernel refuses) has no rate
-- and no latencies, not zeros.
SELECT status LIKE 'unsupported: %' AS unsupported, ops, seconds, ops_per_sec IS NULL AS no_rate,
       p50_us IS NULL AND p99_us IS NULL AND max_us IS NULL AS no_latency
FROM uringprobe_completions('nop', flags => 'sqpoll,defer_taskrun', completions => 10);
-- The events function declared with vcsw and ivcsw swapped.
CREATE FUNCTION swapped_events(backend text DEFAULT 'epoll', pipes integer DEFAULT 1,
    events bigint DEFAULT 10,
    OUT experiment text, OUT variant text, OUT status text, OUT ops bigint,
    OUT seconds double precision, OUT ops_per_sec double precision,
    OUT p50_us double precision, OUT p99_us double precision, OUT max_us double precision,
    OUT user_ms double precision, OUT sys_ms double precision, OUT minflt bigint,
    OUT ivcsw bigint, OUT vcsw bigint, OUT pipes bigint, OUT rounds bigint,
    OUT enters bigint, OUT latency_histogram text)
RETURNS SETOF record AS '$libdir/uringprobe', 'uringprobe_events' LANGUAGE C;
SELECT count(*) FROM swapped_events();
-- ... with a text column where the module produces a number.
DROP FUNCTION swapped_events;
CREATE FUNCTION swapped_events(backend text DEFAULT 'epoll', pipes integer DEFAULT 1,
    events bigint DEFAULT 10,
    OUT experiment text, OUT variant text, OUT status text, OUT ops text,
    OUT seconds double precision, OUT ops_per_sec double precision,
    OUT p50_us double precision, OUT p99_us double precision, OUT max_us double precision,
    OUT user_ms double precision, OUT sys_ms double precision, OUT minflt bigint,
    OUT vcsw bigint, OUT ivcsw bigint, OUT pipes bigint, OUT rounds bigint,
    OUT enters bigint, OUT latency_histogram text)
RETURNS SETOF record AS '$libdir/uringprobe', 'uringprobe_events' LANGUAGE C;
SELECT count(*) FROM swapped_events();
-- ... with a column missing.
DROP FUNCTION swapped_events;
CREATE FUNCTION swapped_events(backend text DEFAULT 'epoll', pipes integer DEFAULT 1,
    events bigint DEFAULT 10,
    OUT experiment text, OUT variant text, OUT status text, OUT ops bigint,
    OUT seconds double precision, OUT ops_per_sec double precision,
    OUT p50_us double precision, OUT p99_us double precision, OUT max_us double precision,
    OUT user_ms double precision, OUT sys_ms double precision, OUT minflt bigint,
    OUT vcsw bigint, OUT ivcsw bigint, OUT pipes bigint, OUT rounds bigint,
    OUT enters bigint)
RETURNS SETOF record AS '$libdir/uringprobe', 'uringprobe_events' LANGUAGE C;
SELECT count(*) FROM swapped_events();
DROP FUNCTION swapped_events;
