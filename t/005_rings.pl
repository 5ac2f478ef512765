# uringprobe_rings() and uringprobe_postmaster() on real clusters: sane rows
# in both ring layouts, the postmaster seen as the environment report predicts, and a
# cancelled run that leaves the backend's fds and mappings as they were.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

sub rows
{
	my ($node, $sql) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', $sql, extra_params => [ '--pset=tuples_only=off', '--pset=footer=off' ]);
	die "query failed: $sql\n$err\n" if $ret != 0;
	my @lines = split /\n/, $out;
	my @cols = split /\|/, shift @lines;
	return map { my %r; @r{@cols} = split /\|/, $_, -1; \%r } @lines;
}

for my $server (servers())
{
	my $io_method = $server->{major} >= 18 ? 'io_uring' : 'sync';
	my $cell = "$server->{name}/$io_method";
	my ($node, $started) = start_cluster(server => $server, io_method => $io_method,
		name => "rings_$server->{name}", fail_ok => 1);
	if (!$started)
	{
	  SKIP: { skip "$cell: the server did not start (see its log)", 1; }
		next;
	}
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
	my %env = %{ environment($node) };
	if ($env{'io_uring.ring_setup'}[0] ne 'ok')
	{
	  SKIP: { skip "$cell: this backend cannot create io_uring rings: $env{'io_uring.ring_setup'}[0]", 1; }
		$node->stop;
		next;
	}

	# The postmaster, as the backend sees it, holds what the environment report says.
	my ($pm) = rows($node, 'SELECT * FROM uringprobe_postmaster()');
	is($pm->{pid}, postmaster_pid($node), "$cell: uringprobe_postmaster() reads the postmaster");
	is($pm->{io_uring_fds}, io_uring_fds($pm->{pid}), "$cell: its io_uring fds as /proc shows them");
	if ($io_method eq 'io_uring')
	{
		is($pm->{io_uring_fds}, $env{'pg18.io_uring.rings'}[0], "$cell: one ring per predicted process");
		is($pm->{io_uring_mappings}, $env{'pg18.io_uring.mappings'}[0],
			"$cell: ring mappings as predicted ($env{'pg18.io_uring.layout'}[0])");
	}
	else
	{
		is($pm->{io_uring_mappings}, 0, "$cell: no ring mappings");
	}

	# Both layouts, 32 rings, 20 forks each.
	my @r = rows($node, 'SELECT * FROM uringprobe_rings(rings => 32, depth => 64, forks => 20)');
	is(join(',', map { $_->{variant} } @r), 'baseline,mmap,no_mmap', "$cell: one row per variant");
	my %v = map { $_->{variant} => $_ } @r;
	for my $name (qw(baseline mmap no_mmap))
	{
		my $row = $v{$name};
		if ($name eq 'no_mmap' && $row->{status} =~ /^unsupported/)
		{
		  SKIP: { skip "$cell: $row->{status}", 3; }
			next;
		}
		is($row->{status}, 'ok', "$cell/$name: completed");
		is($row->{ops}, 20, "$cell/$name: 20 forks timed");
		ok($row->{p50_us} > 0 && $row->{p50_us} <= $row->{p99_us} && $row->{p99_us} <= $row->{max_us} * 1.02,
			"$cell/$name: 0 < p50 <= p99 <= max ($row->{p50_us}, $row->{p99_us}, $row->{max_us})");
	}
	is($v{baseline}{maps_after} - $v{baseline}{maps_before}, 0, "$cell/baseline: no mappings added");
	cmp_ok($v{mmap}{maps_after} - $v{mmap}{maps_before}, '>=', 2 * 32,
		"$cell/mmap: at least two mappings per ring");
	cmp_ok($v{no_mmap}{maps_after} - $v{no_mmap}{maps_before}, '<=', 1,
		"$cell/no_mmap: one region for all rings")
	  if $v{no_mmap}{status} eq 'ok';

	# Cancelled mid-run by statement_timeout: the statement stops, and the
	# backend holds what it held before.
	my $took = cancel_leaves_backend_as_was($node, 'uringprobe_rings(rings => 256, forks => 100000)', '700ms', $cell);
	cmp_ok($took, '<', 30, "$cell: the cancelled run stopped (took ${took}s)");

	# Limits: more rings than RLIMIT_NOFILE allows is refused up front.
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET uringprobe.max_rings = 65536; SET uringprobe.max_memory_mb = 1024; "
		  . "SELECT count(*) FROM uringprobe_rings(rings => 65536, forks => 1)");
	like($err, qr/rings = 65536 needs 65536 file descriptors, but RLIMIT_NOFILE is \d+/,
		"$cell: too many rings for RLIMIT_NOFILE is refused, naming the limit");
	if ($env{'io_uring.memlock'}[0] eq 'charged' && $env{'rlimit.memlock'}[0] ne 'unlimited')
	{
		# Enough rings to pass the memlock limit, within the fd limit.
		my $rings = int($env{'rlimit.memlock'}[0] / 8192) + 64;
		($ret, $out, $err) = $node->psql('postgres',
			"SET uringprobe.max_rings = 65536; SELECT count(*) FROM uringprobe_rings(rings => $rings, forks => 1, mode => 'mmap')");
		like($err, qr/io_uring_queue_init: Cannot allocate memory.*\n.*HINT:.*RLIMIT_MEMLOCK/,
			"$cell: ring memory beyond RLIMIT_MEMLOCK fails with ENOMEM and the hint");
		my ($after) = rows($node, 'SELECT io_uring_fds FROM uringprobe_backend()');
		is($after->{io_uring_fds}, $pm->{io_uring_fds}, "$cell: no ring leaked by the failed run");
	}
	$node->stop;
}

done_testing();
