# Every long call stops when PostgreSQL needs it to, not only on a cancel
# or a termination (t/009): the postmaster killed (-9) mid-call, the
# backend exits and leaves no child and no scratch file, and the server
# starts again; transaction_timeout (17+) ends the call with its SQLSTATE;
# a client gone is seen with client_connection_check_interval; and what
# must not wait for the end of a call is served while it runs and does not
# stop it: a procsignal barrier (DROP DATABASE waits for every backend to
# absorb one) and pg_log_backend_memory_contexts(); a recovery conflict on
# a standby ends it as it ends any query, also once the call has served
# an interrupt of its own (a client check). Each call below would
# run for minutes; the bounds only tell "served" from "left until the
# call ends".
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();
use Uringprobe::Cluster;

my $scratch = default_scratch_dir();
my $long_events = "uringprobe_events('epoll', 1, 100000000)";

sub scratch_files_of
{
	my ($pid) = @_;
	return grep { /^uringprobe-$pid-/ } scratch_files($scratch);
}

sub still_running
{
	my ($node, $pid) = @_;
	return $node->safe_psql('postgres',
		"SELECT state = 'active' AND query LIKE '%uringprobe_%' FROM pg_stat_activity WHERE pid = $pid") eq
	  't';
}

# The postmaster killed while $sql runs: the backend and its children exit,
# no scratch file of it is left, and the server starts again (a backend
# still attached to the shared memory would keep it from starting).
sub postmaster_killed
{
	my ($node, $name, $sql) = @_;
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	my $pid = $bg->query_safe('SELECT pg_backend_pid()');
	start_long_run($node, $bg, $pid, $sql);
	my @kids = children_of($pid);
	my $postmaster = kill_postmaster($node);
	ok(within(30, sub { exited($pid) && !grep { -e "/proc/$_" } @kids }),
		"$name: postmaster killed, the backend and its " . scalar(@kids) . ' children exit');
	is_deeply([ scratch_files_of($pid) ], [], "$name: ... no scratch file of it left");
	eval { $bg->quit };
	kill 'KILL', grep { -e "/proc/$_" } $pid, @kids;    # a test that failed leaves none
	ok(start_after_kill($node, $postmaster), "$name: ... the server starts again");
	return;
}

# What the session whose call a recovery conflict ended was told; the
# session is closed. The startup process signals the conflict again every
# few milliseconds until the call's transaction has ended, so a signal can
# land after the error and before the end: PostgreSQL then ends the
# session at its next command (FATAL, the same reason and SQLSTATE), as it
# would for any query, and psql is gone.
sub conflict_error
{
	my ($bg) = @_;
	eval { $bg->query('SELECT 1') };
	my $said = $bg->{stderr};
	eval { $bg->quit };
	diag($said) unless $said =~ /conflict with recovery/;
	return $said;
}

# A recovery conflict on a standby, twice. The call's snapshot is older
# than the rows a VACUUM on the primary removed: the standby cancels the
# call as it would any query that conflicts. Then a call that has served
# an interrupt of its own first (the client check of
# client_connection_check_interval, every second) reads a table the
# primary drops: the lock conflict ends it too, after
# max_standby_streaming_delay, with 40001 (it was taken for one more
# served interrupt and the call held replay up for as long as it ran).
sub standby_conflict
{
	my ($server, $io_method) = @_;
	my $cell = "$server->{name}/$io_method standby";
	my ($primary) = start_cluster(server => $server, io_method => $io_method,
		name => "pgstop_primary_$server->{name}", streaming => 1);
	$primary->safe_psql('postgres',
		'CREATE EXTENSION uringprobe; CREATE TABLE doomed AS SELECT generate_series(1, 1000) AS i; '
		  . 'CREATE TABLE dropped AS SELECT generate_series(1, 100000) AS i');
	$primary->backup('base');
	my $standby = PostgreSQL::Test::Cluster->new("pgstop_standby_$server->{name}",
		install_path => $server->{install_path});
	$standby->init_from_backup($primary, 'base', has_streaming => 1);
	$standby->append_conf('postgresql.conf', "max_standby_streaming_delay = 1s\n");
	$standby->start;
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

	my $bg = $standby->background_psql('postgres', on_error_stop => 0);
	my $pid = $bg->query_safe('SELECT pg_backend_pid()');
	start_long_run($standby, $bg, $pid, $long_events);
	$primary->safe_psql('postgres', 'DELETE FROM doomed; VACUUM doomed');
	ok(within(30, sub { !still_running($standby, $pid) }), "$cell: a recovery conflict ends the call");
	like(conflict_error($bg), qr/(canceling statement|terminating connection) due to conflict with recovery/,
		"$cell: ... saying so");

	$bg = $standby->background_psql('postgres', on_error_stop => 0);
	$pid = $bg->query_safe('SELECT pg_backend_pid()');
	$bg->query_safe("SET client_connection_check_interval = '1s'");
	$bg->query_safe('\set VERBOSITY verbose');
	# a million warm passes over 100000 rows: minutes
	start_long_run($standby, $bg, $pid,
		"uringprobe_reads(rel => 'dropped', cache => 'warm', passes => 1000000)", 2.5);
	my $t0 = Time::HiRes::time();
	$primary->safe_psql('postgres', 'DROP TABLE dropped');
	my $ended;
	while (Time::HiRes::time() - $t0 < 20 && !($ended = !still_running($standby, $pid)))
	{
		Time::HiRes::usleep(50_000);
	}
	my $took = Time::HiRes::time() - $t0;
	ok($ended, "$cell: a lock conflict after a served client check ends the call");
	note(sprintf('%s: the call ended %.2f s after DROP TABLE (max_standby_streaming_delay = 1s)', $cell, $took));
	$standby->safe_psql('postgres', "SELECT pg_cancel_backend($pid)") unless $ended;
	like(conflict_error($bg), qr/40001: (canceling statement|terminating connection) due to conflict with recovery/,
		"$cell: ... with 40001");
	$standby->stop;
	$primary->stop;
	return;
}

for my $server (servers())
{
	my $io_method = $server->{major} >= 18 ? 'io_uring' : 'sync';
	my $cell = "$server->{name}/$io_method";
	my ($node) = start_cluster(server => $server, io_method => $io_method,
		name => "pgstop_$server->{name}", settings => ["uringprobe.scratch_dirs = '$scratch'"]);
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');

	# Every experiment on the first server; the stop rule is the same code
	# for all, so one call on each other server.
	my @runs = $server->{name} eq (servers())[0]->{name} ? long_runs($scratch) : ([ 'events epoll', $long_events ]);
	for my $run (@runs)
	{
		my ($what, $sql) = @$run;
		postmaster_killed($node, "$cell: $what", $sql);
	}

	# transaction_timeout exists since PostgreSQL 17
	if ($server->{major} >= 17)
	{
		my $timed_out;
		my ($ret, $out, $err) = $node->psql('postgres',
			"SET transaction_timeout = '1s'; SELECT count(*) FROM $long_events",
			extra_params => [ '-v', 'VERBOSITY=verbose' ], timeout => 20, timed_out => \$timed_out);
		ok(!$timed_out, "$cell: transaction_timeout = 1s ends the call");
		like($err, qr/FATAL:  25P04: terminating connection due to transaction timeout/,
			"$cell: ... with 25P04") or diag($err);
		is($node->safe_psql('postgres', 'SELECT 1'), '1', "$cell: ... and the server goes on");
	}

	# The client killed mid-call: with client_connection_check_interval the
	# backend sees it gone and exits.
	{
		my ($psql, $pid) = start_checked_client($node, $long_events);
		$psql->kill_kill;
		ok(within(30, sub { exited($pid) }), "$cell: its client killed, the backend exits");
		kill 'KILL', $pid if -e "/proc/$pid";
	}

	# Served while the call runs, which goes on: a barrier (DROP DATABASE)
	# and memory-context logging; then the call is cancelled.
	{
		my $bg = $node->background_psql('postgres', on_error_stop => 0);
		my $pid = $bg->query_safe('SELECT pg_backend_pid()');
		$node->safe_psql('postgres', 'CREATE DATABASE stop_victim');
		start_long_run($node, $bg, $pid, $long_events);
		my ($ret, $out, $err) =
		  $node->psql('postgres', "SET statement_timeout = '30s'; DROP DATABASE stop_victim");
		is($ret, 0, "$cell: DROP DATABASE completes while a call runs (its barrier absorbed)") or diag($err);
		ok(still_running($node, $pid), "$cell: ... and the call goes on");
		my $offset = -s $node->logfile;
		$node->safe_psql('postgres', "SELECT pg_log_backend_memory_contexts($pid)");
		ok(within(30, sub { slurp_file($node->logfile, $offset) =~ /logging memory contexts of PID $pid/ }),
			"$cell: memory contexts logged while a call runs");
		ok(still_running($node, $pid), "$cell: ... and the call goes on");
		$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
		$bg->query('SELECT 1');
		like($bg->{stderr}, qr/canceling statement due to user request/, "$cell: ... until cancelled");
		$bg->quit;
	}
	unlike(slurp_file($node->logfile), qr/was terminated by signal/, "$cell: no backend crashed");
	$node->stop;
	standby_conflict($server, $io_method) if $server->{name} eq (servers())[0]->{name};
}

done_testing();
