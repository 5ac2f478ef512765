-- uringprobe_extend() with every kind of invalid argument: NULLs, zero,
-- negatives, huge values, wrong names and types, combinations the
-- documentation rules out, directories outside uringprobe.scratch_dirs;
-- the session goes on and no file is left.
CREATE EXTENSION IF NOT EXISTS uringprobe;
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
