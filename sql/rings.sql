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
