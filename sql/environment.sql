-- uringprobe_environment(): the environment report's shape, whatever the
-- machine; the values themselves are checked against reality in t/.
CREATE EXTENSION IF NOT EXISTS uringprobe;

-- Rows every report has, on every server version and kernel.
SELECT name
FROM uringprobe_environment()
WHERE name IN ('process', 'kernel.release', 'kernel.io_uring_disabled',
               'io_uring.ring_setup', 'liburing.compiled', 'liburing.loaded',
               'rlimit.nofile', 'rlimit.memlock', 'server.version',
               'server.io_method', 'server.max_connections',
               'server.io_max_concurrency', 'pg18.io_uring.rings',
               'pg18.io_uring.layout', 'pg18.io_uring.mappings',
               'pg18.io_uring.ring_memory',
               'pg18.io_uring.fds', 'pg18.io_uring.verdict',
               'fs.data_directory', 'clock.source')
ORDER BY name;

-- Every row is named once, and has a value.
SELECT count(*) = count(DISTINCT name) AS names_unique,
       bool_and(value <> '') AS values_present
FROM uringprobe_environment();

SELECT value FROM uringprobe_environment() WHERE name = 'process';

-- Predictions for other settings (their ranges: bad_input_environment).
SELECT count(*) > 0 AS predicted
FROM uringprobe_environment(max_connections => 1000, io_max_concurrency => 32);

-- Scratch directories are a superuser setting, each reported with its
-- filesystem.
SET uringprobe.scratch_dirs = '/tmp, /';
SELECT detail FROM uringprobe_environment() WHERE name = 'fs.scratch' ORDER BY detail;
RESET uringprobe.scratch_dirs;

-- uringprobe_environment() with invalid settings to predict for: each is
-- validated with PostgreSQL's own range; NULL means the server's value.
SELECT call, regress_error_of(call) AS error
FROM (VALUES
    ('uringprobe_environment(max_connections => 0)'),
    ('uringprobe_environment(max_connections => -1)'),
    ('uringprobe_environment(max_connections => 262144)'),
    ('uringprobe_environment(max_connections => 2147483647)'),
    ('uringprobe_environment(io_max_concurrency => 0)'),
    ('uringprobe_environment(io_max_concurrency => -1)'),
    ('uringprobe_environment(io_max_concurrency => 1025)'),
    ('uringprobe_environment(max_connections => ''many'')'),
    ('uringprobe_environment(max_connections => NULL, io_max_concurrency => NULL)')
) c(call);
SELECT 1 AS still_usable;
