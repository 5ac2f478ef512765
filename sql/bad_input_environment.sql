-- uringprobe_environment() with invalid settings to predict for: each is
-- validated with PostgreSQL's own range; NULL means the server's value.
CREATE EXTENSION IF NOT EXISTS uringprobe;
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
