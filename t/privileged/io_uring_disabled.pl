# io_uring refused by the kernel: tools/run-tests, as root, sets
# kernel.io_uring_disabled = 2 around this file and restores it afterwards,
# whatever happens. The environment report says so; PostgreSQL 18 with
# io_method=io_uring does not start (as predicted); under io_method=sync
# every experiment that needs io_uring fails with one error (SQLSTATE
# 42501, the errno and a hint naming the sysctl), the paths without
# io_uring still run, and the backend holds afterwards exactly what it held
# before, with no scratch file left; uringprobe_advise() says worker and
# why.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

BAIL_OUT('kernel.io_uring_disabled is not 2: run through make test as root')
  unless slurp_file('/proc/sys/kernel/io_uring_disabled') =~ /^2/;
my $scratch = default_scratch_dir();
my $state = backend_state_sql();

my @need_io_uring = (
	'uringprobe_rings(rings => 2, forks => 2, mode => \'mmap\')',
	"uringprobe_extend('$scratch', 'fallocate', 'io_uring', total_mb => 1)",
	"uringprobe_completions('nop', 8, 'batch', 'batch', '', 1000)",
	"uringprobe_completions('nop', 8, 'batch', 'batch', 'sqpoll', 1000)",
	"uringprobe_completions('recv', 8, 'batch', 'batch', '', 1000)",
	"uringprobe_events('uring_oneshot', 1, 1000)",
	"uringprobe_events('uring_multishot_defer', 1, 1000)");
my @without = (
	"uringprobe_extend('$scratch', 'mdzeroextend', 'sync', total_mb => 1)",
	"uringprobe_events('epoll', 1, 1000)",
	"uringprobe_events('pg_waiteventset', 1, 1000)");

for my $server (servers())
{
	my $cli = "$server->{bindir}/uringprobe-cli";
	my ($out) = run_command([ $cli, 'environment', '--format', 'tsv' ]);
	like($out, qr/^kernel\.io_uring_disabled\t2\t/m, "$server->{name}: the environment report sees the sysctl");
	like($out, qr/^io_uring\.ring_setup\tfailed: EPERM .*kernel\.io_uring_disabled/m,
		"$server->{name}: and that a ring cannot be set up, naming the sysctl");

	if ($server->{major} >= 18)
	{
		my ($node, $started) = start_cluster(server => $server, io_method => 'io_uring',
			name => "disabled_io_uring_$server->{name}", fail_ok => 1);
		ok(!$started, "$server->{name}: io_method=io_uring does not start");
		like(slurp_file($node->logfile), qr/io_uring|Operation not permitted/,
			"$server->{name}: and its log says why");
	}

	my ($node) = start_cluster(server => $server, io_method => 'sync',
		name => "disabled_sync_$server->{name}", settings => ["uringprobe.scratch_dirs = '$scratch'"]);
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
	my $env = environment($node);
	like($env->{'io_uring.ring_setup'}[0], qr/^failed: EPERM/, "$server->{name}: the backend's environment report agrees");

	for my $call (@need_io_uring)
	{
		my ($ret, $stdout, $stderr) = $node->psql('postgres', "$state; SELECT count(*) FROM $call; $state",
			extra_params => [ '--set=VERBOSITY=verbose' ], on_error_stop => 0);
		like($stderr, qr/ERROR:  42501: uringprobe: io_uring_queue_init: Operation not permitted/,
			"$server->{name}: $call: fails with 42501, naming the call and errno");
		is(scalar(() = $stderr =~ /ERROR:/g), 1, "$server->{name}: $call: one error");
		like($stderr, qr/HINT:  .*kernel\.io_uring_disabled/, "$server->{name}: $call: the hint names the sysctl");
		my ($before, $after) = split /\n/, $stdout;
		is($after, $before, "$server->{name}: $call: the backend holds what it held ($before)");
	}
	for my $call (@without)
	{
		is($node->safe_psql('postgres', "SELECT status FROM $call"), 'ok', "$server->{name}: $call still runs");
	}
	is_deeply([ scratch_files($scratch) ], [], "$server->{name}: no scratch file left");

	# The advice: worker, because the kernel refuses io_uring; nothing
	# about rings measured, and said so.
	my %advice = map { my @c = split /\x1f/, $_, 4; ($c[0] => { advice => $c[1], confidence => $c[2], evidence => $c[3] }) }
	  split /\n/, $node->safe_psql('postgres',
		"SELECT concat_ws(E'\\x1f', setting, advice, confidence, evidence) FROM uringprobe_advise(budget => '2 s')");
	my $on18 = $server->{major} >= 18 ? '' : 'on PostgreSQL 18: ';
	is($advice{io_method}{advice}, "${on18}io_method = worker", "$server->{name}: the advice is io_method = worker");
	is($advice{io_method}{confidence}, 'high', "$server->{name}: with confidence high");
	like($advice{io_method}{evidence}, qr/^io_uring_setup fails in this process: EPERM .*kernel\.io_uring_disabled 2/,
		"$server->{name}: because the kernel refuses rings, naming the sysctl");
	like($advice{'ring layout'}{evidence}, qr/^fork cost not measured: this process cannot create a ring/,
		"$server->{name}: the fork cost is not measured, and says why");
	$node->stop;
}

done_testing();
