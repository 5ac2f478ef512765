-- uringprobe_advise_script(): the advice as a script, whatever the machine
-- and server. A budget too small for any round measures nothing, so every
-- setting is kept: a script with nothing to run, its parts known.
CREATE EXTENSION IF NOT EXISTS uringprobe;

SELECT (array_agg(line))[1] AS first_line,
       bool_and(part IN ('sh', 'sql', 'systemd', 'sysctl')) AS parts_known,
       count(*) FILTER (WHERE part = 'sql') AS statements,
       count(*) FILTER (WHERE line = '# nothing to change') AS says_so
FROM uringprobe_advise_script(budget => '1 ms');

-- the arguments uringprobe_advise() takes, refused the same way
SELECT call, regress_error_of(call) AS error
FROM (VALUES
    ('uringprobe_advise_script(budget => ''0 s'')'),
    ('uringprobe_advise_script(concurrency => 65)')
) c(call);
