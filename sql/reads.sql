-- uringprobe_reads(): the SQL surface and exact counts. What each method
-- buys on a device that makes you wait is the benchmark's; t/024 checks
-- the reads in flight on one.
CREATE EXTENSION IF NOT EXISTS uringprobe;
LOAD 'uringprobe';
SET uringprobe.scratch_dirs = '/tmp';
-- Every method reads every byte once, in either order; cold starts with
-- none of the file's pages cached, warm with all of them.
SELECT variant, status, ops, in_flight, cache, file_mb, max_in_flight,
       resident_before, pages,
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
