# Every experiment at the edge of the backend's resource limits, set for
# real on the cluster (prlimit before pg_ctl starts it): out of file
# descriptors (RLIMIT_NOFILE: EMFILE) and out of lockable memory for ring
# setup (RLIMIT_MEMLOCK: ENOMEM, where the kernel charges ring memory to
# it). Each case fails with one error — SQLSTATE 53000, the errno and a hint
# naming the limit — and the backend holds afterwards exactly what it held
# before, with no scratch file left and the next call running normally.
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
	[ 'a ring of depth 4096' => "uringprobe_completions('nop', 4096, 0, 'batch', '', 10000)" ],
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
