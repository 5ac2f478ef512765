-- uringprobe_rings(): the SQL surface (argument errors: bad_input_rings).
-- Measurements are checked in t/005_rings.pl.
CREATE EXTENSION IF NOT EXISTS uringprobe;
-- The samples in a latency_histogram ("low_ns:count,...").
CREATE FUNCTION pg_temp.histogram_count(h text) RETURNS bigint LANGUAGE sql
AS $$ SELECT coalesce(sum(split_part(b, ':', 2)::bigint), 0) FROM unnest(string_to_array(h, ',')) b $$;
-- a small run: one row per variant, baseline first
SELECT variant, status, ops, rings, depth, pg_temp.histogram_count(latency_histogram) = ops AS histogram_has_all
FROM uringprobe_rings(rings => 2, depth => 8, forks => 2, mode => 'mmap');
-- the processes the benchmarks read
SELECT process, pid > 0 AS has_pid, mappings > 0 AS has_mappings FROM uringprobe_postmaster();
SELECT process, pid = pg_backend_pid() AS is_me, threads AS threads_without_io_workers FROM uringprobe_backend();

-- uringprobe_rings() with every kind of invalid argument: NULLs, zero,
-- negatives, huge values, wrong names and types; the session goes on.
SELECT call, regress_error_of(call) AS error
FROM (VALUES
    ('uringprobe_rings(rings => NULL)'),
    ('uringprobe_rings(depth => NULL)'),
    ('uringprobe_rings(mode => NULL)'),
    ('uringprobe_rings(dontfork => NULL)'),
    ('uringprobe_rings(forks => NULL)'),
    ('uringprobe_rings(rings => 0)'),
    ('uringprobe_rings(rings => -1)'),
    ('uringprobe_rings(rings => 4097)'),
    ('uringprobe_rings(rings => 2147483647)'),
    ('uringprobe_rings(depth => 0)'),
    ('uringprobe_rings(depth => -64)'),
    ('uringprobe_rings(depth => 32769)'),
    ('uringprobe_rings(rings => 4096, depth => 32768)'),
    ('uringprobe_rings(forks => 0)'),
    ('uringprobe_rings(forks => -1)'),
    ('uringprobe_rings(forks => 100001)'),
    ('uringprobe_rings(mode => ''mmapp'')'),
    ('uringprobe_rings(mode => '''')'),
    ('uringprobe_rings(mode => ''MMAP'')'),
    ('uringprobe_rings(mode => ''no_mmap'', dontfork => true)'),
    ('uringprobe_rings(rings => ''many'')'),
    ('uringprobe_rings(rings => 2147483648)')
) c(call);
-- the caps are a superuser's to move
SET uringprobe.max_rings = 8;
SET uringprobe.max_forks = 2;
SELECT call, regress_error_of(call) AS error
FROM (VALUES ('uringprobe_rings(rings => 9)'), ('uringprobe_rings(rings => 1, forks => 3)')) c(call);
RESET uringprobe.max_rings;
RESET uringprobe.max_forks;
SELECT 1 AS still_usable;
