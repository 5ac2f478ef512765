-- uringprobe_advise(): the rows' shape, whatever the machine and server;
-- what the advice says is checked against real clusters in t/016_advise.pl.
CREATE EXTENSION IF NOT EXISTS uringprobe;

-- A budget too small for any round: every setting still gets a row, its
-- decision as data (an action, the value it sets or keeps, what decided
-- it or what was not measured), its prose beside; the measured ones say
-- they were not measured and are only "low".
SELECT topic, setting, scope,
       action IN ('set', 'keep', 'raise', 'lower', 'none') AS acts,
       (value <> '') = (action <> 'none') AS valued,
       (decided_by <> '' OR not_measured <> '' OR action = 'none') AS says_why,
       (ratio IS NULL) = (ratio_of = '') AND (ratio IS NULL) = (margin IS NULL) AS ratio_whole,
       advice <> '' AS advised, confidence IN ('high', 'medium', 'low') AS graded,
       evidence <> '' AS has_evidence, cost <> '' AS has_cost
FROM uringprobe_advise(budget => '1 ms')
WHERE topic NOT IN ('io_workers', 'read_size');

-- PostgreSQL 18's own settings (io_workers, io_combine_limit,
-- io_max_combine_limit): rows there alone, of the same shape.
SELECT count(*) = CASE WHEN current_setting('server_version_num')::int >= 180000
                       THEN 3 ELSE 0 END AS pg18_rows,
       coalesce(bool_and(action IN ('set', 'keep', 'raise', 'lower')
                         AND value <> '' AND scope = 'server'
                         AND (decided_by <> '' OR not_measured <> '')
                         AND advice <> '' AND confidence = 'low'), true) AS shaped
FROM uringprobe_advise(budget => '1 ms')
WHERE topic IN ('io_workers', 'read_size');

SELECT bool_and(confidence = 'low') AS unmeasured_are_low
FROM uringprobe_advise(budget => '1 ms')
WHERE not_measured <> '' OR cost LIKE 'not measured%';

SELECT advice LIKE 'budget => ''% s'' for 5 rounds of each' AS asks_for_more,
       evidence LIKE 'spent % of 0.0 s;%budget spent%' AS says_what_was_cut
FROM uringprobe_advise(budget => '1 ms') WHERE topic = 'budget';

-- statement_timeout shorter than the budget: the rounds end in time (a
-- round still running at 80% of it stopped), and the budget row says so.
SET statement_timeout = '500ms';
SELECT evidence LIKE '%(lowered from 20.0 s to 0.25 s, half of statement_timeout; a round still running at 0.40 s is stopped)%' AS lowered
FROM uringprobe_advise(budget => '20 s', concurrency => 1) WHERE topic = 'budget';
RESET statement_timeout;

-- Its catalog query is the catalog's own whatever the search_path: an
-- operator <> that a schema ahead of pg_catalog offers is never called.
CREATE SCHEMA regress_shadow;
CREATE FUNCTION regress_shadow.ne(name, name) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'the shadowing operator was called'; END $$;
CREATE OPERATOR regress_shadow.<> (LEFTARG = name, RIGHTARG = name, FUNCTION = regress_shadow.ne);
SET search_path = regress_shadow, pg_catalog, public;
SELECT count(*) > 0 AS advised FROM uringprobe_advise(budget => '1 ms');
RESET search_path;
DROP SCHEMA regress_shadow CASCADE;

-- uringprobe_advise() with a budget or concurrency it cannot take: one
-- error naming the argument and what is allowed.
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
