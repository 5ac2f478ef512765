-- The result contract: every experiment's rows start with the shared
-- columns; a function whose OUT columns differ from what the module
-- produces in name, type or number is an error naming the column.
CREATE EXTENSION IF NOT EXISTS uringprobe;
-- The shared columns, in order, first in every experiment: every function
-- of the extension but the readings that are no experiment.
SELECT proname, substr(args, strpos(args, 'OUT ')) LIKE
  'OUT experiment text, OUT variant text, OUT status text, OUT ops bigint, OUT seconds double precision, OUT ops_per_sec double precision, OUT p50_us double precision, OUT p99_us double precision, OUT max_us double precision, OUT user_ms double precision, OUT sys_ms double precision, OUT minflt bigint, OUT vcsw bigint, OUT ivcsw bigint, %'
  AS shared_columns_first
FROM (SELECT proname, pg_get_function_arguments(p.oid) AS args
      FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
      JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'uringprobe') p
WHERE proname NOT IN ('uringprobe_environment', 'uringprobe_advise', 'uringprobe_advise_script',
                      'uringprobe_postmaster', 'uringprobe_backend', 'uringprobe_monitor')
ORDER BY 1;
-- uringprobe_events() declared again with its OUT columns changed: the
-- call is refused naming the column, never returned misread.
CREATE FUNCTION pg_temp.events_declared_as(args text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('CREATE FUNCTION misdeclared_events(%s) RETURNS SETOF record AS %L, %L LANGUAGE C',
                   args, '$libdir/uringprobe', 'uringprobe_events');
    PERFORM count(*) FROM misdeclared_events(events => 10);
    DROP FUNCTION misdeclared_events;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT change, pg_temp.events_declared_as(replace(args, from_text, to_text)) AS result
FROM (SELECT pg_get_function_arguments('uringprobe_events'::regproc)) f(args),
     (VALUES ('as installed', '', ''),
             ('vcsw and ivcsw swapped', 'OUT vcsw bigint, OUT ivcsw bigint', 'OUT ivcsw bigint, OUT vcsw bigint'),
             ('ops as text', 'OUT ops bigint', 'OUT ops text'),
             ('latency_histogram missing', ', OUT latency_histogram text', '')) c(change, from_text, to_text)
ORDER BY change;
