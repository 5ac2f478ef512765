-- One transaction of the soak (bench/soak.pl): a random experiment in a
-- small size, each of its modes in turn. :dir is an allowed scratch
-- directory.
\set pick random(1, 10)
SELECT CASE :pick
    WHEN 1 THEN (SELECT string_agg(status, ',') FROM uringprobe_rings(rings => 4, depth => 8, forks => 10))
    WHEN 2 THEN (SELECT status FROM uringprobe_extend(':dir', 'mdzeroextend', 'sync', total_mb => 2,
                                                      write_data => true, sessions => 2, seed => :client_id))
    WHEN 3 THEN (SELECT status FROM uringprobe_extend(':dir', 'write_zeros', 'io_uring', total_mb => 2,
                                                      sessions => 2, shared => false))
    WHEN 4 THEN (SELECT status FROM uringprobe_completions('nop', 32, 'each', 'each', '', 20000))
    WHEN 5 THEN (SELECT status FROM uringprobe_completions('recv', 8, 'batch', 'batch', '', 5000))
    WHEN 6 THEN (SELECT status FROM uringprobe_completions('read', 8, 'batch', 'batch', '', 5000, ':dir'))
    WHEN 7 THEN (SELECT status FROM uringprobe_completions('nop', 8, 'batch', 'batch', 'sqpoll', 5000))
    WHEN 8 THEN (SELECT status FROM uringprobe_events('uring_multishot_defer', 4, 4000, 'process'))
    WHEN 9 THEN (SELECT status FROM uringprobe_events('pg_waiteventset', 2, 2000))
    ELSE (SELECT count(*)::text FROM uringprobe_environment())
END;
