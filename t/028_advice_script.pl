# uringprobe_advise()'s advice as a script, applied to a throwaway cluster:
# a saved advice table of made-up rows (every kind the script renders:
# a server's setting that waits for a restart, the server's
# file_extend_method from its tablespaces, a tablespace's read depths, a
# tablespace whose name SQL must quote, the workers and read sizes, a
# device's readahead, a limit, a build matter) rendered
# by `uringprobe-cli advise_script --from`; its SQL part run by psql on a PostgreSQL 18
# cluster, which then restarts and reads every value back; the whole
# script well-formed for /bin/sh; and the live function's script on every
# server, with nothing to run where nothing was measured. The rows are
# made up: which values the advice takes is advise_rules_test.cpp's.
use strict;
use warnings;
use Cwd ();
use IPC::Run ();
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

my $dir = PostgreSQL::Test::Utils::tempdir();
my @cols = qw(server setting scope scope_name action value current needs_version confidence advice);
my @rows = (
	[qw(made io_method server), '', qw(set io_uring worker), '', 'high', 'io_method = io_uring'],
	[qw(made file_extend_method tablespace ts_a set write_zeros posix_fallocate), '', 'high', 'file_extend_method = write_zeros'],
	[qw(made file_extend_method tablespace pg_default set write_zeros posix_fallocate), '', 'high', 'file_extend_method = write_zeros'],
	[qw(made effective_io_concurrency tablespace ts_a raise 32 16), '', 'high', 'ALTER TABLESPACE ts_a SET (effective_io_concurrency = 32)'],
	[qw(made maintenance_io_concurrency tablespace), 'Odd Name', qw(lower 8 64), '', 'medium', 'lowered'],
	[ 'made', 'ulimit -n', 'os', '', qw(raise 4096 1024), '', 'high', 'ulimit -n 4096' ],
	[ 'made', 'ring layout', 'build', '', 'set', 'one region', 'separate', '', 'high', 'one region: build against liburing 2.7' ],
	[qw(made effective_io_concurrency tablespace pg_default keep 16 16), '', 'high', 'keep'],
	[qw(made io_workers server), '', qw(raise 8 3), '', 'high', 'io_workers = 8'],
	[qw(made io_combine_limit server), '', qw(raise 512kB 128kB), '', 'high', 'io_combine_limit = 512kB'],
	[qw(made io_max_combine_limit server), '', qw(raise 512kB 128kB), '', 'high', 'io_max_combine_limit = 512kB'],
	[qw(made read_ahead_kb os loop3 raise 256 128), '', 'high', 'read_ahead_kb = 256 on loop3'],
	[qw(other io_method server), '', qw(set worker io_uring), '', 'high', 'io_method = worker']);
open my $fh, '>', "$dir/advice.tsv" or die "$dir/advice.tsv: $!\n";
print $fh join("\t", @cols), "\n", map { join("\t", @$_) . "\n" } @rows;
close $fh;

for my $server (servers())
{
	my $cli = "$server->{bindir}/uringprobe-cli";
	my ($out, $err) = ('', '');
	IPC::Run::run([ $cli, 'advise_script', '--from', "$dir/advice.tsv" ], '<', \undef, '>', \$out, '2>', \$err);
	like($err, qr/holds several servers' rows: which\? \(--server NAME\)/, "$server->{name}: a table of two servers: which?");
	IPC::Run::run([ $cli, 'advise_script', '--from', "$dir/advice.tsv", '--server', 'made' ], '<', \undef, '>', \$out, '2>', \$err)
	  or die "script: $err\n";
	my $script = $out;
	open my $sh, '>', "$dir/apply.sh" or die "$dir/apply.sh: $!\n";
	print $sh $script;
	close $sh;
	ok(IPC::Run::run([ 'sh', '-n', "$dir/apply.sh" ], '<', \undef, '>', \$out, '2>', \$err),
		"$server->{name}: the script is well-formed for /bin/sh") or diag($err);
	like($script, qr/^LimitNOFILE=4096$/m, "$server->{name}: the limit raised in the drop-in");
	like($script, qr/^echo 256 >\/sys\/block\/loop3\/queue\/read_ahead_kb\n.*^ACTION=="add\|change", SUBSYSTEM=="block", KERNEL=="loop3", ATTR\{queue\/read_ahead_kb\}="256"$/ms,
		"$server->{name}: a device's readahead now and as a udev rule");
	like($script, qr/^# not a command here: ring layout: one region: build against liburing 2\.7$/m,
		"$server->{name}: a build matter as a comment");
	like($script, qr/^# kept: effective_io_concurrency \(pg_default\) 16 \(high\)$/m, "$server->{name}: a value kept");
	IPC::Run::run([ $cli, 'advise_script', '--from', "$dir/advice.tsv", '--server', 'made', '--format', 'tsv' ],
		'<', \undef, '>', \$out, '2>', \$err)
	  or die "script --format tsv: $err\n";
	my @sql = map { (split /\t/, $_, 2)[1] } grep { /^sql\t/ } split /\n/, $out;
	is(scalar(@sql), 8, "$server->{name}: eight statements") or diag($out);

	# the live function: nothing measured in 1 ms, nothing to run
	my ($node) = start_cluster(server => $server, io_method => $server->{major} >= 18 ? 'worker' : 'sync',
		name => "advice_script_$server->{name}", settings => ['max_connections = 20']);
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
	my $live = $node->safe_psql('postgres', "SELECT part || E'\\t' || line FROM uringprobe_advise_script(budget => '1 ms')");
	is(scalar(grep { /^sql\t/ } split /\n/, $live), 0, "$server->{name}: the live script, nothing measured: no statement");
	like($live, qr/^sh\t# nothing to change$/m, "$server->{name}: ... and it says so");

	if ($server->{major} < 18)
	{
		$node->stop;
		next;
	}
	# the SQL part applied: the server restarts and reads each value back
	for my $ts ([ 'ts_a', 'ts_a' ], [ '"Odd Name"', 'odd' ])
	{
		my $loc = Cwd::abs_path($node->basedir) . "/$ts->[1]";
		mkdir $loc or die "mkdir $loc: $!\n";
		$node->safe_psql('postgres', "CREATE TABLESPACE $ts->[0] LOCATION '$loc'");
	}
	my ($stdout, $stderr) = ('', '');
	my $rc = $node->psql('postgres', join("\n", @sql), stdout => \$stdout, stderr => \$stderr, on_error_stop => 1);
	is($rc, 0, "$server->{name}: the statements run") or diag($stderr);
	$node->restart;
	is($node->safe_psql('postgres', 'SHOW io_method'), 'io_uring', "$server->{name}: io_method after the restart");
	is($node->safe_psql('postgres', 'SHOW file_extend_method'), 'write_zeros', "$server->{name}: file_extend_method");
	is($node->safe_psql('postgres', 'SHOW io_workers'), '8', "$server->{name}: io_workers");
	is(join(' ', map { $node->safe_psql('postgres', "SHOW $_") } qw(io_combine_limit io_max_combine_limit)), '512kB 512kB',
		"$server->{name}: io_combine_limit and io_max_combine_limit");
	is($node->safe_psql('postgres', "SELECT array_to_string(spcoptions, ',') FROM pg_tablespace WHERE spcname = 'ts_a'"),
		'effective_io_concurrency=32', "$server->{name}: ts_a's effective_io_concurrency");
	is($node->safe_psql('postgres', "SELECT array_to_string(spcoptions, ',') FROM pg_tablespace WHERE spcname = 'Odd Name'"),
		'maintenance_io_concurrency=8', "$server->{name}: \"Odd Name\"'s maintenance_io_concurrency");
	$node->stop;
}

done_testing();
