# The postmaster's view unavailable: a server whose processes are not
# dumpable (t/preload/not_dumpable.c, preloaded when it starts, as file
# capabilities on the postgres binary would leave it), so that its backends
# may not read the postmaster's /proc/<pid>/maps and fd/. On every server:
# uringprobe_postmaster() fails with one clear error (SQLSTATE 42501, the
# path, the errno and a hint saying why); the backend holds what it held,
# its own view and every experiment still work, no scratch file is left.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

my $scratch = default_scratch_dir();
my $state = backend_state_sql();

my $preload = PostgreSQL::Test::Utils::tempdir() . '/not_dumpable.so';
my ($ok, $out, $err);
system('cc', '-shared', '-fPIC', '-O', '-o', $preload, 't/preload/not_dumpable.c') == 0
  or BAIL_OUT("cannot build the preload library $preload");

# Experiments that read only the backend's own /proc entries.
my @experiments = (
	'uringprobe_backend()',
	'uringprobe_environment()',
	'uringprobe_rings(rings => 2, forks => 2)',
	"uringprobe_extend('$scratch', 'mdzeroextend', 'sync', total_mb => 1)",
	"uringprobe_completions('read', 8, 'batch', 'batch', '', 1000, '$scratch')",
	"uringprobe_events('epoll', 1, 1000)");

for my $server (servers())
{
	my $io_method = $server->{major} >= 18 ? 'io_uring' : 'sync';
	my $cell = "$server->{name}/$io_method";
	my $node;
	{
		local $ENV{LD_PRELOAD} = $preload;
		($node) = start_cluster(server => $server, io_method => $io_method,
			name => "postmaster_view_$server->{name}",
			settings => [ "uringprobe.scratch_dirs = '$scratch'", 'max_connections = 10' ]);
	}
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
	my $pm = postmaster_pid($node);

	# The fault is real: the same user cannot read the postmaster's mappings.
	ok(!open(my $fh, '<', "/proc/$pm/maps"), "$cell: /proc/$pm/maps is unreadable to the cluster user");
	like($!, qr/Permission denied/, "$cell: ... with EACCES");
	like(slurp_file("/proc/$pm/status"), qr/^Name:\s+postgres/m, "$cell: ... while the postmaster runs");

	($ok, $out, $err) = $node->psql('postgres',
		"$state; SELECT * FROM uringprobe_postmaster(); $state; "
		  . "SELECT status FROM uringprobe_events('epoll', 1, 100)",
		extra_params => [ '--set=VERBOSITY=verbose' ], on_error_stop => 0);
	like($err, qr{ERROR:  42501: uringprobe: open /proc/$pm/maps: Permission denied},
		"$cell: uringprobe_postmaster() fails with 42501, the path and the errno") or diag($err);
	like($err, qr/HINT:  .*ptrace access.*not dumpable.*setcap/, "$cell: the hint says why");
	is(scalar(() = $err =~ /ERROR:/g), 1, "$cell: one error");
	my ($before, $after, $next) = split /\n/, $out;
	is($after, $before, "$cell: the backend holds what it held ($before)");
	is($next, 'ok', "$cell: the next call runs");

	for my $call (@experiments)
	{
		($ok, $out, $err) = $node->psql('postgres', "SELECT count(*) > 0 FROM $call", on_error_stop => 0);
		is($out, 't', "$cell: $call runs without the postmaster's view") or diag($err);
	}
	is_deeply([ scratch_files($scratch) ], [], "$cell: no scratch file left");
	$node->stop;
}

done_testing();
