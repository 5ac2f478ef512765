# A backend killed (-9) in the middle of every experiment, on the newest
# server (under io_uring where it has it), the module preloaded as a DBA
# who keeps it would have it: the postmaster restarts the server after the
# crash, every child the backend had exits with it (none orphaned), the
# crash restart removes the scratch file it was writing, and the next call
# runs.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

my $scratch = default_scratch_dir();
my ($server) = sort { $b->{major} <=> $a->{major} } servers();
my $io_method = $server->{major} >= 18 ? 'io_uring' : 'sync';
my $cell = "$server->{name}/$io_method";
my ($node) = start_cluster(server => $server, io_method => $io_method,
	name => "killed_$server->{name}",
	settings => [ "uringprobe.scratch_dirs = '$scratch'", "shared_preload_libraries = 'uringprobe'",
		'restart_after_crash = on' ]);
$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');

for my $run (long_runs($scratch))
{
	my ($what, $sql) = @$run;
	my $name = "$cell: $what";
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	my $pid = $bg->query_safe('SELECT pg_backend_pid()');
	start_long_run($node, $bg, $pid, $sql);
	my @kids = children_of($pid);
	my $offset = -s $node->logfile;
	kill 'KILL', $pid;
	eval { $bg->quit };
	ok(within(10, sub { exited($pid, @kids) }),
		"$name: killed, the backend and its " . scalar(@kids) . ' children are gone');
	ok(poll_until($node, 'SELECT true'), "$name: the server restarts after the crash");
	like(slurp_file($node->logfile, $offset), qr/all server processes terminated; reinitializing/,
		"$name: ... through its crash recovery");
	is_deeply([ grep { /^uringprobe-$pid-/ } scratch_files($scratch) ], [],
		"$name: no scratch file of it left after the restart");
	is($node->safe_psql('postgres', "SELECT status FROM uringprobe_events('epoll', 1, 1000)"), 'ok',
		"$name: the next call runs");
	# A fresh postmaster for the next crash: PostgreSQL 18's keeps the
	# rings of every earlier start across a crash restart (their fds and
	# locked memory), so that under io_method=io_uring a few crashes in a
	# row exhaust RLIMIT_NOFILE or RLIMIT_MEMLOCK and the restart fails
	# (docs/findings.md).
	$node->restart;
}
$node->stop;

done_testing();
