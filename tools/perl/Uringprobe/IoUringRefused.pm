# What a test of a refused io_uring checks on one server, whatever refuses
# it (a seccomp filter in t/021, the host's sysctl in t/host_sysctl/): the
# environment report says so and names the cause; PostgreSQL 18 with
# io_method=io_uring does not start; under io_method=sync every experiment
# that needs io_uring fails with one error (SQLSTATE 42501, the errno and a
# hint naming the cause), the paths without io_uring still run, the backend
# holds afterwards exactly what it held before, and no scratch file is
# left; uringprobe_advise() says worker, naming the cause.
package Uringprobe::IoUringRefused;

use strict;
use warnings;
use Exporter 'import';
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::AdviseCall;
use Uringprobe::Cluster;

our @EXPORT = qw(check_io_uring_refused);

# Under io_method=sync, every experiment that needs io_uring fails with
# one error naming the cause, leaving the backend as it was; the others
# still run, and leave no scratch file.
sub check_calls
{
	my ($node, $name, $cause) = @_;
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
	for my $call (@need_io_uring)
	{
		my ($ret, $stdout, $stderr) = $node->psql('postgres', "$state; SELECT count(*) FROM $call; $state",
			extra_params => ['--set=VERBOSITY=verbose'], on_error_stop => 0);
		like($stderr, qr/ERROR:  42501: uringprobe: io_uring_queue_init: Operation not permitted/,
			"$name: $call: fails with 42501, naming the call and errno");
		is(scalar(() = $stderr =~ /ERROR:/g), 1, "$name: $call: one error");
		like($stderr, qr/HINT:  .*$cause/, "$name: $call: the hint names the cause");
		my ($before, $after) = split /\n/, $stdout;
		is($after, $before, "$name: $call: the backend holds what it held ($before)");
	}
	for my $call (@without)
	{
		is($node->safe_psql('postgres', "SELECT status FROM $call"), 'ok', "$name: $call still runs");
	}
	is_deeply([ scratch_files($scratch) ], [], "$name: no scratch file left");
}

# The advice: worker, because io_uring is refused; nothing about rings
# measured, and said so.
sub check_advice_refused
{
	my ($node, $server, $name, $cause, $access) = @_;
	my @rows = advise_rows($node, "budget => '2 s'");
	my %advice = map { row_key($_) => $_ } @rows;
	# what refuses it, as the setting a fix changes, and the fix in the script
	my ($refused) = grep { $_->{scope} eq 'os' && $_->{decided_by} eq 'io_uring_setup' } @rows;
	is(join(' | ', @$refused{qw(setting action value current)}), $access->{decision},
		"$name: what refuses io_uring, as the setting to change");
	my $script = $node->safe_psql('postgres', "SELECT string_agg(line, E'\\n') FROM uringprobe_advise_script(budget => '10 ms')");
	like($script, $access->{fix}, "$name: the script carries the fix");
	my $on18 = $server->{major} >= 18 ? '' : 'on PostgreSQL 18: ';
	is($advice{io_method}{advice}, "${on18}io_method = worker", "$name: the advice is io_method = worker");
	is($advice{io_method}{confidence}, 'high', "$name: with confidence high");
	like($advice{io_method}{evidence}, qr/^io_uring_setup fails in this process: EPERM .*$cause/,
		"$name: because io_uring is refused, naming the cause");
	is("$advice{io_method}{value} $advice{io_method}{decided_by}", 'worker io_uring_setup', "$name: ... as data");
	like($advice{'ring layout'}{evidence}, qr/; fork cost not measured: this process cannot create a ring/,
		"$name: the fork cost is not measured, and says why");
	is($advice{'ring layout'}{action}, 'none', "$name: no ring layout to choose");
	like($advice{io_method}{evidence}, qr/NO_MMAP and DEFER_TASKRUN unknown \(no ring could be created: EPERM\)/,
		"$name: the kernel's setup flags are unknown without a ring, not refused");
}

# check_io_uring_refused(server => $server, label => 'seccomp',
#   cli => [ prefix ], start => { start_cluster's arguments },
#   env => { row => qr/value/ }, cause => qr/.../,
#   access => { decision => 'setting | action | value | current' of the
#     advice row naming what refuses io_uring, fix => qr/a line of the script/ })
sub check_io_uring_refused
{
	my (%p) = @_;
	my $server = $p{server};
	my $name = "$server->{name} ($p{label})";
	my $scratch = default_scratch_dir();

	my ($out) = run_command([ @{ $p{cli} }, "$server->{bindir}/uringprobe-cli", 'environment', '--format', 'tsv' ]);
	for my $row (sort keys %{ $p{env} })
	{
		like($out, qr/^\Q$row\E\t$p{env}{$row}/m, "$name: the environment report's $row");
	}
	like($out, qr/^io_uring\.ring_setup\tfailed: EPERM [^\t]*\t.*$p{cause}/m,
		"$name: and that a ring cannot be set up, naming the cause");

	if ($server->{major} >= 18)
	{
		my ($node, $started) = start_cluster(%{ $p{start} }, server => $server, io_method => 'io_uring',
			name => "refused_io_uring_$server->{name}", fail_ok => 1);
		ok(!$started, "$name: io_method=io_uring does not start");
		like(slurp_file($node->logfile), qr/io_uring|Operation not permitted/, "$name: and its log says why");
	}

	my ($node) = start_cluster(%{ $p{start} }, server => $server, io_method => 'sync',
		name => "refused_sync_$server->{name}", settings => ["uringprobe.scratch_dirs = '$scratch'"]);
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
	my $env = environment($node);
	like($env->{'io_uring.ring_setup'}[0], qr/^failed: EPERM/, "$name: the backend's environment report agrees");
	like($env->{'io_uring.ring_setup'}[1], $p{cause}, "$name: ... naming the cause");
	if ($server->{major} >= 18)
	{
		# No ring to look at: the layout is the one the build would use
		# (the combined flavour's liburing has io_uring_queue_init_mem), said
		# as expected, with why no ring could be made.
		my %built = ('pg18-combined' => 'one region (expected)', 'pg18-separate' => 'separate (expected)');
		is($env->{'pg18.io_uring.layout'}[0], $built{ $server->{name} }, "$name: the ring layout is the build's, expected")
		  if $built{ $server->{name} };
		like($env->{'pg18.io_uring.layout'}[1], qr/no ring could be created here: io_uring_setup failed with EPERM/,
			"$name: ... saying why no ring could be made");
	}

	check_calls($node, $name, $p{cause});
	check_advice_refused($node, $server, $name, $p{cause}, $p{access});
	$node->stop;
	return;
}

1;
