-- uringprobe_advise() with a budget or concurrency it cannot take: one
-- error naming the argument and what is allowed.
CREATE EXTENSION IF NOT EXISTS uringprobe;
SELECT call, regress_error_of(call) AS error
FROM (VALUES
    ('uringprobe_advise(budget => ''0 s'')'),
    ('uringprobe_advise(budget => ''-5 s'')'),
    ('uringprobe_advise(budget => ''1 day'')'),
    ('uringprobe_advise(budget => ''soon'')'),
    ('uringprobe_advise(budget => NULL)'),
    ('uringprobe_advise(concurrency => 0)'),
    ('uringprobe_advise(concurrency => 65)'),
    ('uringprobe_advise(concurrency => NULL)')
) c(call);
-- an infinite interval (PostgreSQL 17 and later have them; before, the
-- answer is written out, so that every server's output is the same)
SELECT CASE WHEN current_setting('server_version_num')::int >= 170000
    THEN regress_error_of('uringprobe_advise(budget => ''infinity'')')
    ELSE '22023: uringprobe: budget must be a finite interval, got infinity' END AS error;
SELECT CASE WHEN current_setting('server_version_num')::int >= 170000
    THEN regress_error_of('uringprobe_advise(budget => ''-infinity'')')
    ELSE '22023: uringprobe: budget must be a finite interval, got -infinity' END AS error;
-- the cap is a superuser's setting
SET uringprobe.max_advise_seconds = 10;
SELECT regress_error_of('uringprobe_advise(budget => ''11 s'')') AS error;
RESET uringprobe.max_advise_seconds;
SELECT 1 AS still_usable;
