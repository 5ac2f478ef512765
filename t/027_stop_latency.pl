# Every experiment stopped while every operation it starts completes at
# once: reads the page cache serves (cache => 'warm'), extensions of a
# tmpfs file, no-ops, bytes this process wrote itself. Such a loop can
# keep the kernel busy without ever waiting, and must still ask the stop
# rule. Each call below would run for minutes; it must end within 5 s
# (a bound that tells "served" from "left until the call ends", never a
# speed), the backend as it was (fds, rings, mappings, threads,
# children), no scratch file left. The measured stop latency of each is
# noted ("stop latency: ...").
#
# make test stops them by statement_timeout (every one on the first
# server, the warm io_uring reads on every server). With
# URINGPROBE_STOP_MATRIX=1 it runs the whole matrix instead: every long
# call (Uringprobe::Cluster's long_runs and these) x {cancel, terminate,
# statement_timeout, transaction_timeout (17+), postmaster killed, client
# killed} on every server, each stop within 1 s, and prints the longest
# latency of each. A backend that exited counts as gone when init has
# yet to reap it (Uringprobe::Cluster's exited).
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();
use Uringprobe::Cluster;

my $matrix = stop_matrix();
# make test: served or not (5 s); the matrix holds each stop to 1 s
my $bound = $matrix ? 1 : 5;
my $scratch = default_scratch_dir();
my ($tmpfs) = grep { $_->{name} eq 'tmpfs' && $_->{status} eq 'ok' } scratch_filesystems();
my $fast_dir = $tmpfs ? $tmpfs->{dir} : $scratch;
my $state = backend_state_sql();
my %worst;    # "experiment\tkind" => [ seconds, server ]

# Calls whose every operation completes at once.
my @at_once = (
	[ 'reads io_uring, warm' => "uringprobe_reads('io_uring', cache => 'warm', file_mb => 8, passes => 1000000, "
		  . "dir => '$scratch')" ],
	[ 'reads workers, warm' => "uringprobe_reads('workers', cache => 'warm', file_mb => 8, passes => 1000000, "
		  . "dir => '$scratch')" ],
	[ 'reads sync, warm' => "uringprobe_reads('sync', cache => 'warm', file_mb => 8, passes => 1000000, "
		  . "dir => '$scratch')" ],
	[ 'extend io_uring, tmpfs' => "uringprobe_extend('$fast_dir', 'write', 'io_uring', min_blocks => 1, "
		  . "max_blocks => 1, total_mb => 1024, write_data => true, sessions => 2)" ],
	[ 'completions nop' => "uringprobe_completions('nop', 32, 'each', 'each', '', 100000000)" ],
	[ 'completions read, cached' =>
		  "uringprobe_completions('read', 32, 'batch', 'batch', '', 100000000, '$fast_dir')" ],
	[ 'events epoll' => "uringprobe_events('epoll', 1, 100000000)" ],
	[ 'rings, 8 rings' => 'uringprobe_rings(rings => 8, depth => 8, forks => 100000)' ]);

sub scratch_left
{
	my ($pid) = @_;
	return grep { /^uringprobe-$pid-/ } map { scratch_files($_) } $scratch, $fast_dir;
}

sub record
{
	my ($server, $what, $kind, $seconds) = @_;
	note(sprintf('stop latency: %s: %s: %s: %.3f s', $server, $what, $kind, $seconds));
	my $w = $worst{"$what\t$kind"} //= [ -1, '' ];
	@$w = ($seconds, $server) if $seconds > $w->[0];
	return;
}

# Until $check is true (every 5 ms), at most 5 s (past the bound: how
# late a stop was is measured too): the seconds it took, or undef.
sub time_until
{
	my ($check) = @_;
	my $t0 = Time::HiRes::time();
	while (Time::HiRes::time() - $t0 < 5)
	{
		return Time::HiRes::time() - $t0 if $check->();
		Time::HiRes::usleep(5_000);
	}
	return undef;
}

# A timeout of 1 s set in the session ($kind: statement_timeout or
# transaction_timeout): the call ends with its error, within the bound
# after the timeout.
sub by_timeout
{
	my ($node, $server, $what, $sql, $kind) = @_;
	my $name = "$server: $what: $kind";
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	my $pid = $bg->query_safe('SELECT pg_backend_pid()');
	my $before = $bg->query_safe($state);
	$bg->query_safe("SET $kind = '1s'");
	my $t0 = Time::HiRes::time();
	eval { $bg->query("SELECT count(*) FROM $sql") };
	my $took = Time::HiRes::time() - $t0;
	ok($took < 1 + $bound, "$name: the call ends (after $took s)");
	record($server, $what, $kind, $took - 1);
	if ($kind eq 'statement_timeout')
	{
		like($bg->{stderr}, qr/canceling statement due to statement timeout/, "$name: ... with its error");
		$bg->{stderr} = '';
		$bg->query_safe('RESET statement_timeout');
		is($bg->query_safe($state), $before, "$name: ... the backend as it was ($before)");
		eval { $bg->quit };
	}
	else
	{
		like($bg->{stderr}, qr/terminating connection due to transaction timeout/, "$name: ... with its error");
		eval { $bg->quit };
	}
	ok(within(30, sub { exited($pid) }), "$name: ... the backend exits") if $kind eq 'transaction_timeout';
	is_deeply([ scratch_left($pid) ], [], "$name: ... no scratch file of it left");
	return;
}

# A call whose first run in a session opens files PostgreSQL then keeps
# open (advise reads pg_tablespace) runs once first, in that session;
# the SQPOLL thread of its io_uring probe exits after the ring.
sub warm_up
{
	my ($bg, $pid, $sql) = @_;
	$bg->query_safe("SELECT count(*) FROM $sql");
	for (1 .. 250)
	{
		last if scalar(() = glob("/proc/$pid/task/*")) == 1;
		Time::HiRes::usleep(20_000);
	}
	return;
}

# Cancelled or terminated by another session.
sub by_signal
{
	my ($node, $server, $what, $sql, $kind, $warm_up) = @_;
	my $name = "$server: $what: $kind";
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	my $pid = $bg->query_safe('SELECT pg_backend_pid()');
	warm_up($bg, $pid, $warm_up) if $warm_up;
	my $before = $bg->query_safe($state);
	start_long_run($node, $bg, $pid, $sql);
	my @kids = children_of($pid);
	my $function = $kind eq 'cancel' ? 'pg_cancel_backend' : 'pg_terminate_backend';
	my $t0 = Time::HiRes::time();
	$node->safe_psql('postgres', "SELECT $function($pid)");
	my $took;
	if ($kind eq 'cancel')
	{
		$bg->query('SELECT 1');
		$took = Time::HiRes::time() - $t0;
		like($bg->{stderr}, qr/canceling statement due to user request/, "$name: cancelled");
		$bg->{stderr} = '';
		is($bg->query_safe($state), $before, "$name: ... the backend as it was ($before)");
		$bg->quit;
	}
	else
	{
		$took = time_until(sub { exited($pid) && !grep { -e "/proc/$_" } @kids });
		$took = Time::HiRes::time() - $t0 if defined $took;
		eval { $bg->quit };
	}
	ok(defined $took && $took < $bound, "$name: the call ends within ${bound} s");
	record($server, $what, $kind, $took // 5);
	is_deeply([ scratch_left($pid) ], [], "$name: ... no scratch file of it left");
	return;
}

# The postmaster killed (-9), or the client killed with
# client_connection_check_interval = 100ms: the backend and its children
# exit.
sub by_loss
{
	my ($node, $server, $what, $sql, $kind) = @_;
	my $name = "$server: $what: $kind";
	my ($bg, $psql, $pid);
	if ($kind eq 'postmaster killed')
	{
		$bg = $node->background_psql('postgres', on_error_stop => 0);
		$pid = $bg->query_safe('SELECT pg_backend_pid()');
		start_long_run($node, $bg, $pid, $sql);
	}
	else
	{
		($psql, $pid) = start_checked_client($node, $sql);
		Time::HiRes::sleep(0.3);
	}
	my @kids = children_of($pid);
	my $t0 = Time::HiRes::time();
	my $postmaster;
	if ($bg) { $postmaster = kill_postmaster($node); }
	else { $psql->kill_kill; }
	my $took = time_until(sub { exited($pid) && !grep { -e "/proc/$_" } @kids });
	$took = Time::HiRes::time() - $t0 if defined $took;
	ok(defined $took && $took < $bound,
		"$name: the backend and its " . scalar(@kids) . " children exit within ${bound} s");
	record($server, $what, $kind, $took // 5);
	is_deeply([ scratch_left($pid) ], [], "$name: ... no scratch file of it left");
	kill 'KILL', grep { -e "/proc/$_" } $pid, @kids;    # a test that failed leaves none
	if ($bg)
	{
		eval { $bg->quit };
		ok(start_after_kill($node, $postmaster), "$name: ... the server starts again");
	}
	return;
}

for my $server (servers())
{
	my $io_method = $server->{major} >= 18 ? 'io_uring' : 'sync';
	my $first = $server->{name} eq (servers())[0]->{name};
	my ($node) = start_cluster(server => $server, io_method => $io_method,
		name => "latency_$server->{name}",
		settings => [ "uringprobe.scratch_dirs = '" . join(',', $scratch, $fast_dir) . "'" ]);
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
	my @runs = $matrix ? (@at_once, long_runs($scratch)) : $first ? @at_once : ($at_once[0]);
	my @kinds = $matrix ? ('cancel', 'terminate', 'statement_timeout', 'transaction_timeout',
		'postmaster killed', 'client killed') : ('statement_timeout');
	for my $kind (@kinds)
	{
		next if $kind eq 'transaction_timeout' && $server->{major} < 17;
		for my $run (@runs)
		{
			my ($what, $sql, $warm_up) = @$run;
			# advise fits its budget to statement_timeout and ends in
			# time, as it should (t/016): no stop to measure
			next if $warm_up && $kind eq 'statement_timeout';
			if ($kind =~ /timeout/) { by_timeout($node, $server->{name}, $what, $sql, $kind); }
			elsif ($kind =~ /cancel|terminate/) { by_signal($node, $server->{name}, $what, $sql, $kind, $warm_up); }
			else { by_loss($node, $server->{name}, $what, $sql, $kind); }
		}
	}
	unlike(slurp_file($node->logfile), qr/was terminated by signal/, "$server->{name}: no backend crashed");
	$node->stop;
}

diag(sprintf('longest stop latency: %s: %s: %.3f s (%s)', (split /\t/, $_), @{ $worst{$_} }))
  for sort keys %worst;

done_testing();
