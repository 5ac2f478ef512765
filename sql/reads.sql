-- uringprobe_reads(): the SQL surface and exact counts. What each method
-- buys on a device that makes you wait is the benchmark's; t/024 checks
-- the reads in flight on one.
CREATE EXTENSION IF NOT EXISTS uringprobe;
LOAD 'uringprobe';
SET uringprobe.scratch_dirs = '/tmp';
-- Every method reads every byte once, in either order; cold starts with
-- none of the file's pages cached, warm with all of them. A scratch
-- directory in memory (a /tmp on tmpfs) keeps every page: cold cannot be
-- made there, and resident_before says so.
SELECT value IN ('tmpfs', 'ramfs') AS scratch_in_memory
FROM uringprobe_environment() WHERE name = 'fs.scratch' \gset
SELECT variant, status, ops, in_flight, cache, file_mb, max_in_flight,
       resident_before = CASE WHEN :'scratch_in_memory'::boolean THEN pages ELSE 0 END AS resident_as_cold_leaves, pages,
       read_calls IS NOT NULL AS preads, fadvise_calls, enters IS NOT NULL AS entered,
       worker_wakeups IS NOT NULL AS handed_off
FROM (VALUES ('sync'), ('sync_fadvise'), ('io_uring'), ('workers')) m(method),
     (VALUES ('sequential'), ('random')) p(pattern),
     LATERAL uringprobe_reads(m.method, p.pattern, block_kb => 64, in_flight => 4, file_mb => 2)
ORDER BY 1;
SELECT variant, cache, resident_before = pages AS all_cached
FROM uringprobe_reads(cache => 'warm', file_mb => 2);
SELECT variant, status, ops, cache FROM uringprobe_reads('io_uring', direct => true, file_mb => 2);
SELECT count(*) AS files_left FROM pg_ls_dir('/tmp') f
WHERE f LIKE 'uringprobe-' || pg_backend_pid() || '-%';
-- A relation's own files, read in place: all of its blocks, its name.
CREATE TABLE reads_t AS SELECT g AS id, repeat('x', 100) AS pad FROM generate_series(1, 20000) g;
CHECKPOINT;
SELECT variant, status, source, ops = pg_relation_size('reads_t') / 8192 AS every_block,
       pages * 4096 = pg_relation_size('reads_t') AS its_pages
FROM uringprobe_reads('io_uring', 'random', block_kb => 8, rel => 'reads_t');
DROP TABLE reads_t;
RESET uringprobe.scratch_dirs;

-- uringprobe_reads() with every kind of invalid argument: NULLs, zero,
-- negatives, huge values, wrong names, relations it may not read; the
-- session goes on.
LOAD 'uringprobe';
SET uringprobe.scratch_dirs = '/tmp';
SELECT call, regress_error_of(call) AS error
FROM (VALUES
    ('uringprobe_reads(method => NULL)'),
    ('uringprobe_reads(pattern => NULL)'),
    ('uringprobe_reads(block_kb => NULL)'),
    ('uringprobe_reads(in_flight => NULL)'),
    ('uringprobe_reads(direct => NULL)'),
    ('uringprobe_reads(cache => NULL)'),
    ('uringprobe_reads(method => ''uring'')'),
    ('uringprobe_reads(method => '''')'),
    ('uringprobe_reads(pattern => ''backward'')'),
    ('uringprobe_reads(cache => ''hot'')'),
    ('uringprobe_reads(block_kb => 0)'),
    ('uringprobe_reads(block_kb => 12)'),
    ('uringprobe_reads(block_kb => 2)'),
    ('uringprobe_reads(block_kb => 2048)'),
    ('uringprobe_reads(in_flight => 0)'),
    ('uringprobe_reads(in_flight => -1)'),
    ('uringprobe_reads(in_flight => 257)'),
    ('uringprobe_reads(in_flight => 2147483647)'),
    ('uringprobe_reads(workers => 0)'),
    ('uringprobe_reads(workers => 33)'),
    ('uringprobe_reads(distance => 0)'),
    ('uringprobe_reads(file_mb => 0)'),
    ('uringprobe_reads(file_mb => 1025)'),
    ('uringprobe_reads(seed => -1)'),
    ('uringprobe_reads(''sync_fadvise'', direct => true)'),
    ('uringprobe_reads(direct => true, cache => ''warm'')'),
    ('uringprobe_reads(dir => ''/var/tmp'')'),
    ('uringprobe_reads(dir => ''tmp'')'),
    ('uringprobe_reads(rel => ''pg_class'', dir => ''/tmp'')'),
    ('uringprobe_reads(rel => ''pg_class_oid_index'')'),
    ('uringprobe_reads(rel => ''pg_stat_activity'')'),
    ('uringprobe_reads(rel => ''no_such_table'')'),
    ('uringprobe_reads(rel => 0)')
) c(call);
-- An empty table has nothing to read.
CREATE TABLE reads_empty (id int);
SELECT regress_error_of('uringprobe_reads(rel => ''reads_empty'')') AS error;
DROP TABLE reads_empty;
-- The cap follows its setting.
SET uringprobe.max_read_in_flight = 4;
SELECT regress_error_of('uringprobe_reads(''io_uring'', in_flight => 5)') AS error;
RESET uringprobe.max_read_in_flight;
SET uringprobe.max_memory_mb = 1;
SELECT regress_error_of('uringprobe_reads(''io_uring'', in_flight => 16, block_kb => 128)') AS error;
RESET uringprobe.max_memory_mb;
-- Without rel it needs an allowed scratch directory.
SET uringprobe.scratch_dirs = '';
SELECT regress_error_of('uringprobe_reads(file_mb => 1)') AS error;
RESET uringprobe.scratch_dirs;
SELECT 1 AS still_usable;
