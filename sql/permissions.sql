-- Nothing in uringprobe is executable by PUBLIC.
CREATE EXTENSION IF NOT EXISTS uringprobe;
-- loaded, so that its settings are defined before a role tries them
LOAD 'uringprobe';
CREATE ROLE regress_uringprobe_nobody;
CREATE ROLE regress_uringprobe_monitor IN ROLE pg_monitor;
CREATE ROLE regress_uringprobe_program IN ROLE pg_execute_server_program;
CREATE ROLE regress_uringprobe_writer IN ROLE pg_write_server_files;
CREATE ROLE regress_uringprobe_reader IN ROLE pg_execute_server_program, pg_read_server_files;
CREATE TABLE regress_reads_private AS SELECT 1 AS id;

SELECT p.proname,
       has_function_privilege('regress_uringprobe_nobody', p.oid, 'EXECUTE') AS nobody,
       has_function_privilege('regress_uringprobe_monitor', p.oid, 'EXECUTE') AS monitor,
       has_function_privilege('regress_uringprobe_program', p.oid, 'EXECUTE') AS program,
       has_function_privilege('regress_uringprobe_writer', p.oid, 'EXECUTE') AS writer
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
WHERE e.extname = 'uringprobe'
ORDER BY 1;

-- the backend's io_uring fds, mappings and threads before any reading
SELECT io_uring_fds AS fds, io_uring_mappings AS maps, threads FROM uringprobe_backend() \gset before_
SET ROLE regress_uringprobe_nobody;
SELECT count(*) FROM uringprobe_environment();
-- a non-superuser cannot point experiments at other directories
SET uringprobe.scratch_dirs = '/tmp';
RESET ROLE;

SET ROLE regress_uringprobe_monitor;
SELECT count(*) > 0 AS allowed FROM uringprobe_environment();
-- the readings leave the backend as it was: no io_uring fd, mapping or
-- thread (an SQPOLL thread) more
SELECT count(*) > 0 AS read FROM uringprobe_postmaster();
-- the exporters' one row: its columns, whatever the server
SELECT io_method IS NOT DISTINCT FROM nullif(current_setting('io_method', true), '') AS its_io_method,
       io_uring_disabled IS NOT NULL AS sysctl_read, seccomp IN ('none', 'strict', 'filter') AS seccomp_read,
       (ring_layout IS NULL) = (current_setting('server_version_num')::int < 180000) AS layout_on_18,
       postmaster_io_uring_fds >= 0 AS postmaster_read,
       memlock_margin_bytes IS NULL OR memlock_margin_bytes = memlock_limit_bytes - ring_memory_bytes AS margin
FROM uringprobe_monitor();
SELECT io_uring_fds = :before_fds AS same_fds, io_uring_mappings = :before_maps AS same_mappings,
       threads = :before_threads AS same_threads
FROM uringprobe_backend();
-- a monitoring role's reading makes no ring: the rows that need one say so
SELECT name, value, detail FROM uringprobe_environment()
WHERE name LIKE 'io_uring.%' ORDER BY name;
SELECT count(*) FROM uringprobe_environment(probe => true);
SELECT value FROM uringprobe_environment(probe => false) WHERE name = 'io_uring.ring_setup';
SELECT count(*) FROM uringprobe_postmaster();
SELECT count(*) FROM uringprobe_rings(rings => 1, forks => 1);
RESET ROLE;
-- the probe is for those trusted with rings (here a superuser), unless
-- they ask for none
SELECT value FROM uringprobe_environment() WHERE name = 'io_uring.ring_setup';
SELECT value, detail FROM uringprobe_environment(probe => false) WHERE name = 'io_uring.ring_setup';

SET ROLE regress_uringprobe_program;
SELECT count(*) > 0 AS allowed FROM uringprobe_rings(rings => 1, forks => 1, mode => 'mmap');
SELECT count(*) FROM uringprobe_extend(total_mb => 1);
SELECT status, ops FROM uringprobe_completions(completions => 10);
SELECT status, ops FROM uringprobe_events(events => 10);
-- reading writes a scratch file first: pg_write_server_files as well
SELECT status FROM uringprobe_completions('read', completions => 10);
-- reads: a scratch file needs pg_write_server_files, a relation's files
-- pg_read_server_files
SELECT status FROM uringprobe_reads(file_mb => 1);
SELECT status FROM uringprobe_reads(rel => 'pg_class');
RESET ROLE;

SET ROLE regress_uringprobe_reader;
SELECT status, source FROM uringprobe_reads(rel => 'pg_class', block_kb => 8);
-- and only a relation it may select from
SELECT status FROM uringprobe_reads(rel => 'regress_reads_private');
RESET ROLE;

-- writing scratch files: for those trusted to write the server's files,
-- and only where a superuser allows
SET uringprobe.scratch_dirs = '/tmp';
-- EXECUTE granted by hand makes no writer: extend checks
-- pg_write_server_files itself, as reads and completions('read') do
GRANT EXECUTE ON FUNCTION uringprobe_extend TO regress_uringprobe_program;
SET ROLE regress_uringprobe_program;
SELECT count(*) FROM uringprobe_extend(total_mb => 1);
RESET ROLE;
REVOKE EXECUTE ON FUNCTION uringprobe_extend FROM regress_uringprobe_program;
SET ROLE regress_uringprobe_writer;
SELECT status, bytes FROM uringprobe_extend(total_mb => 1);
SELECT count(*) FROM uringprobe_extend(dir => '/var/tmp', total_mb => 1);
SET uringprobe.scratch_dirs = '/var/tmp';
RESET ROLE;
RESET uringprobe.scratch_dirs;

DROP ROLE regress_uringprobe_nobody;
DROP ROLE regress_uringprobe_monitor;
DROP ROLE regress_uringprobe_program;
DROP ROLE regress_uringprobe_writer;
DROP ROLE regress_uringprobe_reader;
DROP TABLE regress_reads_private;
DROP EXTENSION uringprobe;
-- and made again, for the files after this one
CREATE EXTENSION uringprobe;
