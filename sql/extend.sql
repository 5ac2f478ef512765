-- uringprobe_extend(): the SQL surface and every argument error. /tmp is
-- the allowed scratch directory here: it exists wherever the tests run.
CREATE EXTENSION IF NOT EXISTS uringprobe;
LOAD 'uringprobe';
SET uringprobe.scratch_dirs = '/tmp';
-- The samples in a latency_histogram ("low_ns:count,...").
CREATE FUNCTION pg_temp.histogram_count(h text) RETURNS bigint LANGUAGE sql
AS $$ SELECT coalesce(sum(split_part(b, ':', 2)::bigint), 0) FROM unnest(string_to_array(h, ',')) b $$;

-- Every strategy and interface, fixed sizes: 1 MB in extensions of 8
-- blocks is 16 extensions; with data written and read back.
SELECT variant, status, ops, bytes, file_bytes, fallocates, zero_writes, data_writes, verified,
       pg_temp.histogram_count(latency_histogram) = ops AS histogram_has_all
FROM (VALUES ('fallocate'), ('write_zeros'), ('mdzeroextend'), ('write')) s(strategy),
     (VALUES ('sync'), ('io_uring'), ('io_uring_async')) i(interface),
     LATERAL uringprobe_extend('/tmp', s.strategy, i.interface, min_blocks => 8, max_blocks => 8,
                               total_mb => 1, write_data => true, verify => true)
ORDER BY 1;

-- mdzeroextend switches at 8 blocks: 9-block extensions use fallocate.
SELECT fallocates, zero_writes FROM uringprobe_extend(strategy => 'mdzeroextend',
    min_blocks => 9, max_blocks => 9, total_mb => 1);
-- Random sizes: reproducible from the seed.
SELECT a.ops = b.ops AS same_ops, a.fallocates = b.fallocates AS same_split
FROM uringprobe_extend(min_blocks => 1, max_blocks => 64, total_mb => 4, seed => 7) a,
     uringprobe_extend(min_blocks => 1, max_blocks => 64, total_mb => 4, seed => 7) b;
-- Four sessions on one shared file, and each on its own file.
SELECT sessions, shared, ops, file_bytes, verified
FROM uringprobe_extend(sessions => 4, min_blocks => 4, max_blocks => 4, total_mb => 2,
                       write_data => true, verify => true);
SELECT sessions, shared, ops, file_bytes, verified
FROM uringprobe_extend(sessions => 4, shared => false, min_blocks => 4, max_blocks => 4,
                       total_mb => 2, write_data => true, verify => true);
-- PostgreSQL 16's sizing with one session, nobody waiting: without the
-- fix every extension is pages (8) blocks of zeros; with it the sizes grow
-- with the session's blocks so far (8, 8, 16, 32, then 64): one switch
-- from zeros to fallocate.
SELECT sizing, pages, ops, switches, fallocates, zero_writes, round(mean_extension_blocks::numeric, 2) AS mean_blocks,
       size_histogram, file_bytes
FROM (VALUES ('waiters'), ('waiters_prior')) s(rule),
     LATERAL uringprobe_extend(total_mb => 2, sizing => s.rule)
ORDER BY 1;
-- Four sessions sized by the waiters they see: the file is exact.
SELECT sizing, sessions, file_bytes, verified
FROM (VALUES ('waiters'), ('waiters_prior')) s(rule),
     LATERAL uringprobe_extend(sessions => 4, total_mb => 2, sizing => s.rule, pages => 2,
                               write_data => true, verify => true)
ORDER BY 1;
-- The same writes through either interface: one session's sizes (8, 8,
-- 16, 32, 64, 64, 64) written 16 pages per write are 17 data writes.
SELECT e.interface, write_batch, ops, data_writes, verified
FROM (VALUES ('sync'), ('io_uring')) i(via),
     LATERAL uringprobe_extend(interface => i.via, total_mb => 2, sizing => 'waiters_prior',
                               write_data => true, write_batch => 16, verify => true) e
ORDER BY 1;
-- Nothing is left behind.
SELECT count(*) AS files_left FROM pg_ls_dir('/tmp') f
WHERE f LIKE 'uringprobe-' || pg_backend_pid() || '-%';


-- uringprobe_extend() with every kind of invalid argument: NULLs, zero,
-- negatives, huge values, wrong names and types, combinations the
-- documentation rules out, directories outside uringprobe.scratch_dirs;
-- the session goes on and no file is left.
LOAD 'uringprobe';
SET uringprobe.scratch_dirs = '/tmp';
SELECT call, regress_error_of(call) AS error
FROM (VALUES
    ('uringprobe_extend(strategy => NULL)'),
    ('uringprobe_extend(interface => NULL)'),
    ('uringprobe_extend(min_blocks => NULL)'),
    ('uringprobe_extend(max_blocks => NULL)'),
    ('uringprobe_extend(total_mb => NULL)'),
    ('uringprobe_extend(write_data => NULL)'),
    ('uringprobe_extend(sessions => NULL)'),
    ('uringprobe_extend(shared => NULL)'),
    ('uringprobe_extend(seed => NULL)'),
    ('uringprobe_extend(block_size => NULL)'),
    ('uringprobe_extend(verify => NULL)'),
    ('uringprobe_extend(sizing => NULL)'),
    ('uringprobe_extend(pages => NULL)'),
    ('uringprobe_extend(sizing => ''lock_waiters'')'),
    ('uringprobe_extend(pages => 0)'),
    ('uringprobe_extend(pages => 65)'),
    ('uringprobe_extend(write_batch => NULL)'),
    ('uringprobe_extend(write_batch => 0)'),
    ('uringprobe_extend(write_batch => 129)'),
    ('uringprobe_extend(sizing => ''waiters'', block_size => 2097152)'),
    ('uringprobe_extend(sizing => ''waiters'', block_size => 1048576, write_data => true, sessions => 32)'),
    ('uringprobe_extend(strategy => ''posix_fallocate'')'),
    ('uringprobe_extend(strategy => '''')'),
    ('uringprobe_extend(interface => ''aio'')'),
    ('uringprobe_extend(min_blocks => 0)'),
    ('uringprobe_extend(min_blocks => -8)'),
    ('uringprobe_extend(min_blocks => 8, max_blocks => 4)'),
    ('uringprobe_extend(max_blocks => 5000)'),
    ('uringprobe_extend(max_blocks => 2147483647)'),
    ('uringprobe_extend(total_mb => 0)'),
    ('uringprobe_extend(total_mb => -1)'),
    ('uringprobe_extend(total_mb => 2147483647)'),
    ('uringprobe_extend(sessions => 0)'),
    ('uringprobe_extend(sessions => -4)'),
    ('uringprobe_extend(sessions => 65)'),
    ('uringprobe_extend(block_size => 0)'),
    ('uringprobe_extend(block_size => -8192)'),
    ('uringprobe_extend(block_size => 1000)'),
    ('uringprobe_extend(block_size => 2097152)'),
    ('uringprobe_extend(max_blocks => 4096, block_size => 65536)'),
    ('uringprobe_extend(max_blocks => 4096, write_data => true, sessions => 64)'),
    ('uringprobe_extend(shared => false, sessions => 4, total_mb => 1, block_size => 1048576)'),
    ('uringprobe_extend(total_mb => ''lots'')'),
    ('uringprobe_extend(dir => ''tmp'')'),
    ('uringprobe_extend(dir => '''')'),
    ('uringprobe_extend(dir => ''/tmp/../tmp'')'),
    ('uringprobe_extend(dir => ''/tmp/./'')'),
    ('uringprobe_extend(dir => ''/var/tmp'')'),
    ('uringprobe_extend(dir => ''/'')')
) c(call);
-- the caps and the allowed directories are a superuser's to set;
-- with write_data, the sessions' pages count to the byte against
-- uringprobe.max_memory_mb: 64 x 127 blocks of 8 kB are 63.5 MiB
SET uringprobe.max_memory_mb = 1;
SELECT regress_error_of('uringprobe_extend(sessions => 64, max_blocks => 127, write_data => true, total_mb => 1)') AS error;
SELECT regress_error_of('uringprobe_extend(min_blocks => 129, max_blocks => 129, write_data => true, total_mb => 1)') AS error;
RESET uringprobe.max_memory_mb;
SET uringprobe.max_scratch_mb = 2;
SELECT regress_error_of('uringprobe_extend(total_mb => 3)') AS error;
RESET uringprobe.max_scratch_mb;
SET uringprobe.scratch_dirs = '';
SELECT regress_error_of('uringprobe_extend()') AS error;
SET uringprobe.scratch_dirs = '/tmp/uringprobe-regress-missing';
SELECT regress_error_of('uringprobe_extend()') AS error;
-- a regular file listed, and a directory below one
SET uringprobe.scratch_dirs = '/etc/passwd';
SELECT regress_error_of('uringprobe_extend()') AS error;
SET uringprobe.scratch_dirs = '/etc/passwd/x';
SELECT regress_error_of('uringprobe_extend()') AS error;
RESET uringprobe.scratch_dirs;
SELECT count(*) AS files_left FROM pg_ls_dir('/tmp') f
WHERE f LIKE 'uringprobe-' || pg_backend_pid() || '-%';
SELECT 1 AS still_usable;
