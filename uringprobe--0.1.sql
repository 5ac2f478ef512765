/* uringprobe--0.1.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION uringprobe" to load this file. \quit

-- Preflight: can this backend use io_uring, what the kernel accepts, and what
-- io_method=io_uring costs with this server's settings (or with the
-- max_connections / io_max_concurrency given). Probing the kernel creates
-- rings and an SQPOLL thread: by default only for pg_execute_server_program
-- (probe => true asks for it, false for a reading that makes no ring).
CREATE FUNCTION uringprobe_environment(
    max_connections integer DEFAULT NULL,
    io_max_concurrency integer DEFAULT NULL,
    probe boolean DEFAULT NULL,
    OUT name text,
    OUT value text,
    OUT detail text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'uringprobe_environment'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;

REVOKE ALL ON FUNCTION uringprobe_environment(integer, integer, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION uringprobe_environment(integer, integer, boolean) TO pg_monitor;

-- What to set on this server, with the measurements behind it: small runs
-- of the experiments in this backend against the server's own settings
-- (the rings PostgreSQL 18 creates at its max_connections, fork() with
-- them; relation extension by each file_extend_method in every
-- tablespace's temporary-file directory, `concurrency` sessions growing one
-- file), taking turns within `budget` (at most uringprobe.max_advise_seconds;
-- a statement_timeout under twice the budget makes it half of that). One row
-- per setting: its current value, the advice (the setting and its value), confidence
-- (high: 5 runs or more and an interval that decides; medium: 3 or more;
-- low: fewer, or nothing measured), the evidence (figures with units,
-- intervals and runs) and what the current setting costs.
CREATE FUNCTION uringprobe_advise(
    budget interval DEFAULT '20 seconds',
    concurrency integer DEFAULT 4,
    OUT topic text,
    OUT setting text,
    OUT current text,
    OUT advice text,
    OUT confidence text,
    OUT evidence text,
    OUT cost text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'uringprobe_advise'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;

-- The cost of many io_uring rings on fork(): N rings of the given depth in
-- this backend, each with its own mappings ('mmap') or all in one
-- user-memory region ('no_mmap'), then fork() -> child _exit -> waitpid timed
-- `forks` times (p50_us..max_us; fork_call_* is the part until fork() returns
-- in the parent), beside a zero-ring baseline measured in the same call.
-- latency_histogram: the fork latencies as low_ns:count of every non-empty
-- bucket (log-linear, ~1.6% wide), the raw data behind the percentiles.
CREATE FUNCTION uringprobe_rings(
    rings integer DEFAULT 128,
    depth integer DEFAULT 64,
    mode text DEFAULT 'both',
    dontfork boolean DEFAULT false,
    forks integer DEFAULT 200,
    OUT experiment text,
    OUT variant text,
    OUT status text,
    OUT ops bigint,
    OUT seconds double precision,
    OUT ops_per_sec double precision,
    OUT p50_us double precision,
    OUT p99_us double precision,
    OUT max_us double precision,
    OUT user_ms double precision,
    OUT sys_ms double precision,
    OUT minflt bigint,
    OUT vcsw bigint,
    OUT ivcsw bigint,
    OUT rings bigint,
    OUT depth bigint,
    OUT ring_bytes bigint,
    OUT setup_ms double precision,
    OUT teardown_ms double precision,
    OUT maps_before bigint,
    OUT maps_after bigint,
    OUT vmpte_before_kb bigint,
    OUT vmpte_after_kb bigint,
    OUT fork_call_p50_us double precision,
    OUT fork_call_p99_us double precision,
    OUT latency_histogram text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'uringprobe_rings'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Relation-style file extension in a scratch directory (dir NULL: the first
-- of uringprobe.scratch_dirs): total_mb grown in extensions of min_blocks to
-- max_blocks blocks (drawn with `seed`) by strategy 'fallocate',
-- 'write_zeros', 'mdzeroextend' (PostgreSQL 16+: more than 8 blocks ->
-- fallocate, else zeros) or 'write' (one block per write, PostgreSQL 15),
-- through interface 'sync', 'io_uring' or 'io_uring_async' (IOSQE_ASYNC);
-- write_data fills each new block afterwards like COPY, write_batch pages
-- per write (the same writes through either interface); `sessions` threads
-- extend one shared file under a lock, or each its own file (shared false).
-- p50_us..max_us are per extension (latency_histogram: all of them, as
-- low_ns:count buckets); extents is the files' FIEMAP count.
CREATE FUNCTION uringprobe_extend(
    dir text DEFAULT NULL,
    strategy text DEFAULT 'mdzeroextend',
    interface text DEFAULT 'sync',
    min_blocks integer DEFAULT 1,
    max_blocks integer DEFAULT 64,
    total_mb integer DEFAULT 64,
    write_data boolean DEFAULT false,
    sessions integer DEFAULT 1,
    shared boolean DEFAULT true,
    seed bigint DEFAULT 1,
    block_size integer DEFAULT 8192,
    verify boolean DEFAULT false,
    sizing text DEFAULT 'uniform',
    pages integer DEFAULT 8,
    write_batch integer DEFAULT 1,
    OUT experiment text,
    OUT variant text,
    OUT status text,
    OUT ops bigint,
    OUT seconds double precision,
    OUT ops_per_sec double precision,
    OUT p50_us double precision,
    OUT p99_us double precision,
    OUT max_us double precision,
    OUT user_ms double precision,
    OUT sys_ms double precision,
    OUT minflt bigint,
    OUT vcsw bigint,
    OUT ivcsw bigint,
    OUT strategy text,
    OUT interface text,
    OUT sessions bigint,
    OUT shared text,
    OUT min_blocks bigint,
    OUT max_blocks bigint,
    OUT block_size bigint,
    OUT write_data text,
    OUT bytes bigint,
    OUT mb_per_sec double precision,
    OUT fallocates bigint,
    OUT zero_writes bigint,
    OUT data_writes bigint,
    OUT lock_wait_ms double precision,
    OUT iowq_workers bigint,
    OUT iowq_cpu_ms double precision,
    OUT filesystem text,
    OUT extents bigint,
    OUT file_bytes bigint,
    OUT verified text,
    OUT stale_removed bigint,
    OUT sizing text,
    OUT pages bigint,
    OUT switches bigint,
    OUT mean_extension_blocks double precision,
    OUT size_histogram text,
    OUT write_batch bigint,
    OUT latency_histogram text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'uringprobe_extend'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;

-- What asynchronous reads buy (the counterpart of uringprobe_extend): the
-- same bytes of a file read in block_kb pieces, in order or in a seeded
-- random order, by method 'sync' (pread one at a time), 'sync_fadvise'
-- (pread, POSIX_FADV_WILLNEED `distance` pieces ahead), 'io_uring'
-- (`in_flight` reads kept in flight on this backend's ring, one submitted per
-- completion) or 'workers' (`in_flight` reads queued for `workers` threads
-- doing pread: io_method=worker's hand-offs, modelled). Buffered reads start
-- cold (the file's pages dropped, resident_before counts what was left) or
-- warm; direct reads use O_DIRECT; `passes` times over. The file: a scratch file of file_mb MB
-- written first in dir (NULL: the first of uringprobe.scratch_dirs), or the
-- segment files of relation rel, opened read-only. p50_us..max_us: per read,
-- issued to completion seen (latency_histogram: every read).
CREATE FUNCTION uringprobe_reads(
    method text DEFAULT 'sync',
    pattern text DEFAULT 'sequential',
    block_kb integer DEFAULT 128,
    in_flight integer DEFAULT 16,
    distance integer DEFAULT 16,
    workers integer DEFAULT 3,
    direct boolean DEFAULT false,
    cache text DEFAULT 'cold',
    file_mb integer DEFAULT 64,
    passes integer DEFAULT 1,
    seed bigint DEFAULT 1,
    rel regclass DEFAULT NULL,
    dir text DEFAULT NULL,
    OUT experiment text,
    OUT variant text,
    OUT status text,
    OUT ops bigint,
    OUT seconds double precision,
    OUT ops_per_sec double precision,
    OUT p50_us double precision,
    OUT p99_us double precision,
    OUT max_us double precision,
    OUT user_ms double precision,
    OUT sys_ms double precision,
    OUT minflt bigint,
    OUT vcsw bigint,
    OUT ivcsw bigint,
    OUT method text,
    OUT pattern text,
    OUT block_kb bigint,
    OUT in_flight bigint,
    OUT cache text,
    OUT source text,
    OUT file_mb double precision,
    OUT mb_per_sec double precision,
    OUT mean_in_flight double precision,
    OUT max_in_flight bigint,
    OUT enters bigint,
    OUT read_calls bigint,
    OUT fadvise_calls bigint,
    OUT worker_wakeups bigint,
    OUT submitter_waits bigint,
    OUT submitter_cpu_ms double precision,
    OUT helpers_cpu_ms double precision,
    OUT iowq_workers bigint,
    OUT pages bigint,
    OUT resident_before bigint,
    OUT latency_histogram text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'uringprobe_reads'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;

-- Completions kept in flight (report 2): `depth` operations on a ring of
-- this backend, every reaped completion replaced at once by a new operation
-- with its own submission (resubmit 'each', the report's shape) or all those
-- reaped together with one (resubmit 'batch'); CQEs taken off one head store
-- each (reaping 'each', io_uring_cqe_seen) or with one cq_advance per batch.
-- op 'nop', 'read' (4 KiB from a page-cached scratch file in `dir`, NULL: the
-- first of uringprobe.scratch_dirs) or 'recv' (datagrams on a loopback UDP
-- socket fed by a child process). flags: a list of sqpoll, single_issuer,
-- defer_taskrun, coop_taskrun; a combination io_uring defines as invalid is
-- an error naming the rule, one this kernel refuses a row whose status says
-- so. enters: io_uring_enter calls made; mean_in_flight: submitted and not
-- yet reaped, at each reaped CQE; *_ns_per_completion: CPU of the submitting
-- thread and of the SQPOLL thread per completion; iowq_*: the io-wq workers
-- that took operations the kernel could not complete by polling.
CREATE FUNCTION uringprobe_completions(
    op text DEFAULT 'nop',
    depth integer DEFAULT 32,
    resubmit text DEFAULT 'each',
    reaping text DEFAULT 'each',
    flags text DEFAULT '',
    completions bigint DEFAULT 1000000,
    dir text DEFAULT NULL,
    OUT experiment text,
    OUT variant text,
    OUT status text,
    OUT ops bigint,
    OUT seconds double precision,
    OUT ops_per_sec double precision,
    OUT p50_us double precision,
    OUT p99_us double precision,
    OUT max_us double precision,
    OUT user_ms double precision,
    OUT sys_ms double precision,
    OUT minflt bigint,
    OUT vcsw bigint,
    OUT ivcsw bigint,
    OUT op text,
    OUT depth bigint,
    OUT resubmit text,
    OUT reaping text,
    OUT flags_requested text,
    OUT flags_in_effect text,
    OUT ns_per_completion double precision,
    OUT mean_in_flight double precision,
    OUT completions_per_enter double precision,
    OUT enters bigint,
    OUT submitter_ns_per_completion double precision,
    OUT sqpoll_ns_per_completion double precision,
    OUT sqpoll_cpu_ms double precision,
    OUT iowq_workers bigint,
    OUT iowq_cpu_ms double precision,
    OUT errors bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'uringprobe_completions'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;

-- An event loop's cost per event (report 4), as Samba's local.event test:
-- a byte on each of `pipes` pipes, wait until readable, read it. loop
-- 'epoll', 'poll', 'uring_oneshot' (POLL_ADD re-armed per event and submitted
-- before the next byte, so each poll waits and is woken), 'uring_multishot',
-- either with '_defer' (DEFER_TASKRUN), or 'pg_waiteventset' (this backend's
-- WaitEventSet). peer 'self': this backend writes the bytes once armed;
-- 'process': a child process writes them each time this backend, armed,
-- asks (a cross-process ping-pong). enters: waiting (and arming) system
-- calls made; armed_ready: io_uring polls that completed as they were armed
-- (0: every poll waited). p50_us..max_us: per round (latency_histogram:
-- every round, as low_ns:count buckets).
CREATE FUNCTION uringprobe_events(
    loop text DEFAULT 'epoll',
    pipes integer DEFAULT 1,
    events bigint DEFAULT 100000,
    peer text DEFAULT 'self',
    OUT experiment text,
    OUT variant text,
    OUT status text,
    OUT ops bigint,
    OUT seconds double precision,
    OUT ops_per_sec double precision,
    OUT p50_us double precision,
    OUT p99_us double precision,
    OUT max_us double precision,
    OUT user_ms double precision,
    OUT sys_ms double precision,
    OUT minflt bigint,
    OUT vcsw bigint,
    OUT ivcsw bigint,
    OUT pipes bigint,
    OUT peer text,
    OUT rounds bigint,
    OUT enters bigint,
    OUT armed_ready bigint,
    OUT latency_histogram text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'uringprobe_events'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- A process seen through /proc: mappings (all, and io_uring rings),
-- io_uring and other fds, page-table and resident size, CPU time so far.
CREATE TYPE uringprobe_process AS (
    process text,
    pid bigint,
    mappings bigint,
    io_uring_mappings bigint,
    io_uring_fds bigint,
    open_fds bigint,
    vmpte_kb bigint,
    vmrss_kb bigint,
    user_ms double precision,
    sys_ms double precision,
    threads bigint);

CREATE FUNCTION uringprobe_postmaster()
RETURNS SETOF uringprobe_process
AS 'MODULE_PATHNAME', 'uringprobe_postmaster'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE FUNCTION uringprobe_backend()
RETURNS SETOF uringprobe_process
AS 'MODULE_PATHNAME', 'uringprobe_backend'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Forking the backend and creating rings: for those trusted to run programs
-- as the server's user. Reading the server's processes: for monitoring.
REVOKE ALL ON FUNCTION uringprobe_rings(integer, integer, text, boolean, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION uringprobe_rings(integer, integer, text, boolean, integer)
    TO pg_execute_server_program;
-- Writing files as the server's user, in the allowed scratch directories.
REVOKE ALL ON FUNCTION uringprobe_extend(text, text, text, integer, integer, integer, boolean,
    integer, boolean, bigint, integer, boolean, text, integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION uringprobe_extend(text, text, text, integer, integer, integer, boolean,
    integer, boolean, bigint, integer, boolean, text, integer, integer) TO pg_write_server_files;
-- Rings, kernel threads and a forked sender: for those trusted to run
-- programs as the server's user ('read' also needs pg_write_server_files).
REVOKE ALL ON FUNCTION uringprobe_completions(text, integer, text, text, text, bigint, text)
    FROM PUBLIC;
GRANT EXECUTE ON FUNCTION uringprobe_completions(text, integer, text, text, text, bigint, text)
    TO pg_execute_server_program;
-- Rings and threads: for those trusted to run programs as the server's user
-- (a scratch file also needs pg_write_server_files, rel pg_read_server_files).
REVOKE ALL ON FUNCTION uringprobe_reads(text, text, integer, integer, integer, integer, boolean,
    text, integer, integer, bigint, regclass, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION uringprobe_reads(text, text, integer, integer, integer, integer, boolean,
    text, integer, integer, bigint, regclass, text) TO pg_execute_server_program;
REVOKE ALL ON FUNCTION uringprobe_events(text, integer, bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION uringprobe_events(text, integer, bigint, text) TO pg_execute_server_program;
-- Rings, forks and (with pg_write_server_files) scratch files in the
-- tablespaces: for those trusted to run programs as the server's user.
REVOKE ALL ON FUNCTION uringprobe_advise(interval, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION uringprobe_advise(interval, integer) TO pg_execute_server_program;
REVOKE ALL ON FUNCTION uringprobe_postmaster() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION uringprobe_postmaster() TO pg_monitor;
REVOKE ALL ON FUNCTION uringprobe_backend() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION uringprobe_backend() TO pg_monitor;
