# Every experiment at the edge of the backend's resource limits, set for
# real on the cluster (prlimit before pg_ctl starts it): out of file
# descriptors (RLIMIT_NOFILE: EMFILE) and out of lockable memory for ring
# setup (RLIMIT_MEMLOCK: ENOMEM, where the kernel charges ring memory to
# it). Each case fails with one error — SQLSTATE 53000, the errno and a hint
# naming the limit — and the backend holds afterwards exactly what it held
# before, with no scratch file left and the next call running normally.
# An ERROR PostgreSQL itself raises inside an experiment (its WaitEventSet
# out of descriptors) reaches the caller with its own SQLSTATE and message.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

my $scratch = default_scratch_dir();
my $state = backend_state_sql();
my %hard = (nofile => hard_limit('nofile'), memlock => hard_limit('memlock'));

my @nofile_cases = (
	[ 'events with 200 pipes' => "uringprobe_events('epoll', 200, 1000)", qr/Too many open files/ ],
	[ 'events on io_uring with 200 pipes' => "uringprobe_events('uring_multishot', 200, 1000)",
		qr/Too many open files/ ],
	[ 'extension by 64 sessions, each its own file and ring' =>
		  "uringprobe_extend('$scratch', 'fallocate', 'io_uring', total_mb => 64, sessions => 64, shared => false)",
		qr/Too many open files/ ],
	[ 'more rings than descriptors' => 'uringprobe_rings(rings => 300, forks => 1)',
		qr/rings = 300 needs 300 file descriptors, but RLIMIT_NOFILE is 128 with \d+ open: Too many open files/ ]);
my @memlock_cases = (
	[ 'a ring of depth 4096' => "uringprobe_completions('nop', 4096, 'batch', 'batch', '', 10000)" ],
	[ '64 rings' => "uringprobe_rings(rings => 64, depth => 64, forks => 1, mode => 'mmap')" ],
	[ 'extension by 16 sessions on io_uring' =>
		  "uringprobe_extend('$scratch', 'fallocate', 'io_uring', total_mb => 16, sessions => 16)" ],
	[ 'events on 4 io_uring rings' => "uringprobe_events('uring_oneshot', 1000, 1000)" ]);

# Run $call in $node: one error with SQLSTATE 53000 matching $msg and a hint
# matching $hint; the backend as before; no scratch file; the next call runs.
sub refused
{
	my ($node, $what, $call, $msg, $hint) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		"$state; SELECT count(*) FROM $call; $state; SELECT status FROM uringprobe_events('epoll', 1, 100)",
		extra_params => [ '--set=VERBOSITY=verbose' ], on_error_stop => 0);
	like($err, qr/ERROR:  53000: uringprobe: .*$msg/, "$what: fails with 53000 and the errno ($msg)")
	  or diag($err);
	like($err, qr/HINT:  .*$hint/, "$what: the hint names $hint");
	is(scalar(() = $err =~ /ERROR:/g), 1, "$what: one error");
	my ($before, $after, $next) = split /\n/, $out;
	is($after, $before, "$what: the backend holds what it held ($before)");
	is($next, 'ok', "$what: the next call runs");
	is_deeply([ scratch_files($scratch) ], [], "$what: no scratch file left");
}

# An ERROR raised by PostgreSQL itself inside an experiment keeps its
# SQLSTATE, message and hint: the pipes of pg_waiteventset take every
# descriptor under RLIMIT_NOFILE but one short of what the WaitEventSet
# needs, so its epoll_create1() fails inside the server (elog: XX000).
# Reading a table holds one more descriptor open, to get the parity right;
# the server's own use of descriptors moves, so a session that never hits
# the exact count is followed by another (at most three).
sub server_error_kept
{
	my ($node, $name) = @_;
	$node->safe_psql('postgres', join ';', map { "CREATE TABLE pad$_ AS SELECT 1 AS x" } 1 .. 10);
	my $result;
	for my $session (1 .. 3)
	{
		$result = $node->safe_psql('postgres', <<'SQL');
CREATE FUNCTION pg_temp.waiteventset_out_of_fds() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    n int;
    st text;
    msg text;
    trace text := '';
BEGIN
    FOR i IN 1 .. 10 LOOP
        SELECT open_fds INTO n FROM uringprobe_backend();
        trace := trace || format(' [%s fds open:', n);
        -- from one pipe more than the descriptors counted allow (the count
        -- may include the one that listed them; the server holds a few
        -- more while it runs the call), down, until the pipes fit (then
        -- the parity is wrong: hold one more)
        FOR pipes IN REVERSE (128 - n) / 2 + 1 .. 1 LOOP
            BEGIN
                PERFORM count(*) FROM uringprobe_events('pg_waiteventset', pipes, 10);
                trace := trace || format(' %s pipes ok]', pipes);
                EXIT;
            EXCEPTION WHEN OTHERS THEN
                GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
                IF msg LIKE '%CreateWaitEventSet%' THEN
                    RETURN st || ' ' || msg;
                END IF;
            END;
        END LOOP;
        EXECUTE format('SELECT count(*) FROM pad%s', i);
    END LOOP;
    RETURN 'no error from the server:' || trace;
END $$;
SELECT pg_temp.waiteventset_out_of_fds();
SQL
		last if $result =~ /CreateWaitEventSet/;
	}
	like($result, qr/^XX000 uringprobe: CreateWaitEventSet: epoll_create1 failed: Too many open files$/,
		"$name, ulimit -n 128: the server's own ERROR inside an experiment keeps its SQLSTATE and message");
}

for my $server (servers())
{
	# PostgreSQL 18 under io_method=worker: no ring per process slot, so
	# the limits are the experiments' own.
	my $io_method = $server->{major} >= 18 ? 'worker' : 'sync';
	my %settings = (settings => [ "uringprobe.scratch_dirs = '$scratch'", 'max_connections = 10' ]);

	set_soft_limits(nofile => 128, memlock => $hard{memlock});
	my ($node, $started) = start_cluster(server => $server, io_method => $io_method,
		name => "nofile_$server->{name}", fail_ok => 1, %settings);
	set_soft_limits(%hard);
	ok($started, "$server->{name}: starts under ulimit -n 128") or next;
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
	is($node->safe_psql('postgres', "SELECT value FROM uringprobe_environment() WHERE name = 'rlimit.nofile'"),
		'128', "$server->{name}: the backend's RLIMIT_NOFILE is 128");
	refused($node, "$server->{name}, ulimit -n 128: $_->[0]", $_->[1], $_->[2], 'RLIMIT_NOFILE')
	  for @nofile_cases;
	server_error_kept($node, $server->{name});
	$node->stop;

	set_soft_limits(nofile => $hard{nofile}, memlock => 65536);
	($node, $started) = start_cluster(server => $server, io_method => $io_method,
		name => "memlock_$server->{name}", fail_ok => 1, %settings);
	set_soft_limits(%hard);
	ok($started, "$server->{name}: starts under ulimit -l 64 (kB)") or next;
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
	my $env = environment($node);
	if ($env->{'io_uring.memlock'}[0] ne 'charged')
	{
	  SKIP: { skip "$server->{name}: ring memory is not charged to RLIMIT_MEMLOCK here", 6 * @memlock_cases; }
		$node->stop;
		next;
	}
	refused($node, "$server->{name}, ulimit -l 64: $_->[0]", $_->[1], qr/Cannot allocate memory/,
		'RLIMIT_MEMLOCK') for @memlock_cases;
	$node->stop;
}

done_testing();
