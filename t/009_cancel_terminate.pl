# Every experiment stopped in the middle of a run by pg_cancel_backend() and
# by pg_terminate_backend(), on every server (PostgreSQL 18 under io_uring,
# so the backend holds rings of its own). Cancelled: the statement fails
# with the cancel message, the backend's fds, io_uring fds and mappings,
# threads and child processes are exactly as before, no scratch file is left, and the
# next call runs normally. Terminated: the backend exits, every child it had
# is gone (no orphan, no zombie), no scratch file of it is left, and the
# server did not crash. (statement_timeout is covered by t/005-t/007.)
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use Uringprobe::Cluster;

my $scratch = default_scratch_dir();
# What a backend holds: fds, io_uring fds and mappings, threads, child processes.
my $state = backend_state_sql();

my @runs = long_runs($scratch);

sub scratch_files_of
{
	my ($pid) = @_;
	return grep { /^uringprobe-$pid-/ } scratch_files($scratch);
}

for my $server (servers())
{
	my $io_method = $server->{major} >= 18 ? 'io_uring' : 'sync';
	my $cell = "$server->{name}/$io_method";
	my ($node) = start_cluster(server => $server, io_method => $io_method,
		name => "stop_$server->{name}", settings => ["uringprobe.scratch_dirs = '$scratch'"]);
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');

	for my $run (@runs)
	{
		my ($what, $sql, $warm_up) = @$run;
		my $name = "$cell: $what";

		# pg_cancel_backend
		my $bg = $node->background_psql('postgres', on_error_stop => 0);
		my $pid = $bg->query_safe('SELECT pg_backend_pid()');
		if ($warm_up)
		{
			$bg->query_safe("SELECT count(*) FROM $warm_up");
			# the SQPOLL thread of its io_uring probe exits after the ring
			for (1 .. 250)
			{
				last if scalar(() = glob("/proc/$pid/task/*")) == 1;
				usleep(20_000);
			}
		}
		my $before = $bg->query_safe($state);
		start_long_run($node, $bg, $pid, $sql);
		$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
		$bg->query('SELECT 1');
		like($bg->{stderr}, qr/canceling statement due to user request/, "$name: cancelled");
		$bg->{stderr} = '';
		is($bg->query_safe($state), $before, "$name: fds, io_uring fds and mappings, threads, children as before ($before)");
		is_deeply([ scratch_files_of($pid) ], [], "$name: no scratch file left");
		is($bg->query_safe("SELECT status FROM uringprobe_events('epoll', 1, 1000)"), 'ok',
			"$name: the next call runs");
		$bg->quit;

		# pg_terminate_backend
		$bg = $node->background_psql('postgres', on_error_stop => 0);
		$pid = $bg->query_safe('SELECT pg_backend_pid()');
		start_long_run($node, $bg, $pid, $sql);
		my @kids = children_of($pid);
		$node->safe_psql('postgres', "SELECT pg_terminate_backend($pid)");
		my $gone = 0;
		for (1 .. 300)
		{
			last if ($gone = !-e "/proc/$pid" && !grep { -e "/proc/$_" } @kids);
			usleep(20_000);
		}
		ok($gone, "$name: terminated, the backend and its " . scalar(@kids) . ' children are gone');
		is_deeply([ scratch_files_of($pid) ], [], "$name: no scratch file of it left");
		eval { $bg->quit };
		is($node->safe_psql('postgres', 'SELECT 1'), '1', "$name: the server goes on");
	}
	# The events peer process killed mid-run: one clear error, the backend
	# as it was, the next call runs.
	{
		my $bg = $node->background_psql('postgres', on_error_stop => 0);
		my $pid = $bg->query_safe('SELECT pg_backend_pid()');
		my $before = $bg->query_safe($state);
		start_long_run($node, $bg, $pid, "uringprobe_events('uring_oneshot', 1, 100000000, 'process')");
		my @kids = children_of($pid);
		is(scalar(@kids), 1, "$cell: events with a peer process: one child");
		kill 'KILL', @kids;
		$bg->query('SELECT 1');
		like($bg->{stderr}, qr/ERROR:  .*the peer process/, "$cell: its peer killed, the call fails saying so")
		  or diag($bg->{stderr});
		$bg->{stderr} = '';
		is($bg->query_safe($state), $before, "$cell: ... the backend as it was ($before)");
		is($bg->query_safe("SELECT status FROM uringprobe_events('epoll', 1, 1000, 'process')"), 'ok',
			"$cell: ... and the next call runs");
		$bg->quit;
	}
	# Every loop waiting for a peer process that stopped (SIGSTOP): killed
	# then, the call fails saying so (poll sees the pipe's end as POLLHUP,
	# it spun on it before); cancelled then, the cancel is served (every
	# wait for a peer is bounded and asks the stop rule) and the stopped
	# child does not outlive the call.
	my @loops = qw(epoll poll uring_oneshot uring_oneshot_defer uring_multishot uring_multishot_defer
	  pg_waiteventset);
	for my $loop (@loops)
	{
		for my $then (qw(killed cancelled))
		{
			my $name = "$cell: events $loop, its peer stopped, then $then";
			my $bg = $node->background_psql('postgres', on_error_stop => 0);
			my $pid = $bg->query_safe('SELECT pg_backend_pid()');
			my $before = $bg->query_safe($state);
			start_long_run($node, $bg, $pid, "uringprobe_events('$loop', 1, 100000000, 'process')", 0.1);
			my @kids = children_of($pid);
			kill 'STOP', @kids;
			Time::HiRes::sleep(0.3);
			if ($then eq 'killed') { kill 'KILL', @kids; }
			else { $node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)"); }
			$bg->query('SELECT 1');
			like($bg->{stderr}, $then eq 'killed' ? qr/ERROR:  .*the peer process/ : qr/ERROR:  canceling statement/,
				"$name: the call fails saying so") or diag($bg->{stderr});
			$bg->{stderr} = '';
			is($bg->query_safe($state), $before, "$name: the backend as it was ($before)");
			kill 'KILL', grep { -e "/proc/$_" } @kids;    # a test that failed leaves none
			$bg->quit;
		}
	}
	unlike(slurp_file($node->logfile), qr/terminating any other active server processes|was terminated by signal/,
		"$cell: no backend crashed");
	$node->stop;
}

done_testing();
