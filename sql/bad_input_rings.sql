-- uringprobe_rings() with every kind of invalid argument: NULLs, zero,
-- negatives, huge values, wrong names and types; the session goes on.
CREATE EXTENSION IF NOT EXISTS uringprobe;
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
