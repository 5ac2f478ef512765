-- The results database's schema (bench/results-db applies it before each
-- command: it only creates what is missing).
SET client_min_messages = warning;
CREATE SCHEMA IF NOT EXISTS uringprobe_results;
SET search_path = uringprobe_results;
CREATE TABLE IF NOT EXISTS hosts (
    host text PRIMARY KEY,
    machine text NOT NULL,
    cpu text,
    cpus int);
CREATE TABLE IF NOT EXISTS runs (
    run_id bigserial PRIMARY KEY,
    host text NOT NULL REFERENCES hosts,
    started timestamptz NOT NULL,
    seconds int,
    profile text,
    benchmarks text[],
    commit text,
    kernel text,
    liburing text,
    storage text,
    command text,
    failed text,
    format int NOT NULL,
    directory text NOT NULL,
    loaded timestamptz NOT NULL DEFAULT now());
-- a run: its host, start minute and directory (two runs of a host may
-- start in the same minute; a database made before keyed host and minute)
ALTER TABLE runs DROP CONSTRAINT IF EXISTS runs_host_started_key;
CREATE UNIQUE INDEX IF NOT EXISTS runs_host_started_directory ON runs (host, started, directory);
CREATE TABLE IF NOT EXISTS servers (
    run_id bigint REFERENCES runs ON DELETE CASCADE,
    server text,
    version text,
    pg_config text,
    PRIMARY KEY (run_id, server));
CREATE TABLE IF NOT EXISTS settings (
    run_id bigint PRIMARY KEY REFERENCES runs ON DELETE CASCADE,
    variables jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS cell_runs (
    run_id bigint REFERENCES runs ON DELETE CASCADE,
    benchmark text,
    file text,
    line int,
    server text,
    status text,
    measured jsonb NOT NULL,
    PRIMARY KEY (run_id, file, line));
-- the report's cells: benchmark, key, metric, median and repetitions
-- (what report.pl --baseline-db compares with)
CREATE TABLE IF NOT EXISTS cells (
    run_id bigint REFERENCES runs ON DELETE CASCADE,
    benchmark text,
    id text,
    metric text,
    median float8,
    cell jsonb NOT NULL,
    PRIMARY KEY (run_id, benchmark, id, metric));
CREATE TABLE IF NOT EXISTS findings (
    run_id bigint REFERENCES runs ON DELETE CASCADE,
    report int,
    title text,
    verdict text,
    headline text,
    here text,
    advice text,
    PRIMARY KEY (run_id, report));
CREATE TABLE IF NOT EXISTS figures (
    run_id bigint REFERENCES runs ON DELETE CASCADE,
    report int,
    figure text,
    ratio float8,
    ratio_lo float8,
    ratio_hi float8,
    verdict text,
    runs_x int,
    runs_y int,
    PRIMARY KEY (run_id, report, figure));
CREATE TABLE IF NOT EXISTS advice (
    run_id bigint REFERENCES runs ON DELETE CASCADE,
    line int,
    server text,
    setting text,
    scope_name text,
    action text,
    value text,
    current text,
    confidence text,
    decided_by text,
    ratio float8,
    ratio_lo float8,
    ratio_hi float8,
    margin float8,
    row jsonb NOT NULL,
    PRIMARY KEY (run_id, line));
CREATE TABLE IF NOT EXISTS advice_checks (
    run_id bigint REFERENCES runs ON DELETE CASCADE,
    line int,
    server text,
    setting text,
    scope_name text,
    workload text,
    value text,
    seconds float8,
    row jsonb NOT NULL,
    PRIMARY KEY (run_id, line));
-- each report's figures run after run, on each host: a regression over
-- time is one query on it
CREATE OR REPLACE VIEW history AS
SELECT r.host, r.started, r.profile, r.commit, f.report, f.figure, f.ratio, f.ratio_lo, f.ratio_hi, f.verdict
FROM runs r JOIN figures f USING (run_id);
-- each host's newest run of each profile
CREATE OR REPLACE VIEW newest_runs AS
SELECT DISTINCT ON (host, profile) * FROM runs ORDER BY host, profile, started DESC, directory DESC;
