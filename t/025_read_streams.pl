# PostgreSQL 18's read streams as the reads benchmark measures them, on
# the 1 ms device tools/storage made for the run (read ahead 128 kB): a
# run made cold is cold (EXPLAIN BUFFERS reads every block of the table and
# hits none, no page of it in the page cache) and one that is not, is not;
# under io_method io_uring and worker a cold sequential scan keeps more than
# one read in flight (pg_aios, sampled from another session), under sync
# at most one; an index scan, which PostgreSQL 18 does not read ahead for,
# at most one under every io_method (the benchmark's control); VACUUM's
# workload leaves the table's layout as it was for the others; at
# max_connections 950 a backend's share of shared_buffers holds one read
# (the depth uringprobe_advise() reads at).
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;
use Uringprobe::Reads;

my ($slow) = grep { $_->{name} =~ /^latency-/ } storage_kinds();
BAIL_OUT('no storage list: run through make test') unless defined $slow || $ENV{URINGPROBE_STORAGE_LIST};
my @servers = grep { $_->{major} >= 18 } servers();
# Before PostgreSQL 18 there are no read streams and nothing to sample:
# what the benchmark's pg_aios sampler relies on is absent, said so.
for my $server (grep { $_->{major} < 18 } servers())
{
	my ($node) = start_cluster(server => $server, name => "streams_$server->{name}");
	is($node->safe_psql('postgres', "SELECT to_regclass('pg_catalog.pg_aios') IS NULL"), 't',
		"$server->{name}: no pg_aios before PostgreSQL 18 (the reads benchmark samples none there)");
	$node->stop;
}
if (!$slow || $slow->{status} ne 'ok')
{
  SKIP: { skip 'the 1 ms device: ' . ($slow ? $slow->{status} : 'not made'), 1; }
	done_testing();
	exit 0;
}
# a usual disk's readahead: the loop device's own (2560 kB) keeps a
# sequential scan's requests in flight whatever the io_method
set_read_ahead($slow, 128);

for my $server (@servers)
{
	my ($node) = start_cluster(server => $server, io_method => 'sync', name => "streams_$server->{name}",
		settings => [ 'shared_buffers = 128MB', 'max_parallel_workers_per_gather = 0', 'autovacuum = off' ]);
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe; CREATE EXTENSION pg_buffercache');
	my $loc = "$slow->{dir}/streams_$server->{name}";
	mkdir $loc or die "mkdir $loc: $!\n";
	$node->safe_psql('postgres', "CREATE TABLESPACE slow LOCATION '$loc'");
	create_read_table($node, 't', 'slow', 100000);
	# under a quarter of shared_buffers: a scan reads it into shared
	# buffers, not through a ring of a few (bulk reads of a bigger table)
	my $relpages = $node->safe_psql('postgres', "SELECT pg_relation_size('t') / 8192");
	my $seqscan = $seqscan_only;
	my $indexscan = $indexscan_only;

	for my $m (qw(sync worker io_uring))
	{
		my $cell = "$server->{name}/$m";
		$node->append_conf('postgresql.conf', "io_method = $m\n");
		$node->restart;
		is($node->safe_psql('postgres', 'SHOW io_method'), $m, "$cell: io_method");

		# cold: every block read, none hit, no page cached as it began
		my $resident = make_cold($node, $server->{major}, 't', 't_id');
		is($resident, 0, "$cell: the table's pages dropped from the page cache");
		my $s = start_aios_sampler($node);
		my $r = measured_run($node, $seqscan, 'SELECT count(*) FROM t', 1, $server->{major});
		my $aios = finish_aios_sampler($s);
		is("$r->{read} $r->{hit}", "$relpages 0", "$cell: a cold sequential scan reads every block and hits none");
		# its relation reads: the table's, and a few blocks of the catalogs
		# (after a restart) and the visibility map
		cmp_ok($r->{io_read_bytes}, '>=', $relpages * 8192, "$cell: pg_stat_io counted the session reading the table's bytes");
		cmp_ok($r->{io_read_bytes}, '<=', ($relpages + 64) * 8192,
			"$cell: and at most 64 blocks besides ($r->{io_read_bytes} bytes, the table $relpages blocks)");
		cmp_ok($r->{io_reads}, '>=', $relpages / 16, "$cell: in reads of at most 128 kB ($r->{io_reads})");
		cmp_ok($aios->{samples}, '>', 0, "$cell: pg_aios sampled while it ran ($aios->{samples} samples)");
		if ($m eq 'sync')
		{
			cmp_ok($aios->{max}, '<=', 1, "$cell: at most one read in flight ($aios->{max})");
		}
		else
		{
			cmp_ok($aios->{max}, '>', 1, "$cell: more than one read in flight ($aios->{max}, mean $aios->{mean})");
		}
		# not cold: the second scan finds the table in shared buffers
		$r = measured_run($node, $seqscan, 'SELECT count(*) FROM t', 1, $server->{major});
		cmp_ok($r->{hit}, '>', 0.9 * $relpages, "$cell: scanned again without eviction, it hits ($r->{hit} of $relpages)");
		cmp_ok($r->{io_read_bytes}, '<', 0.1 * $relpages * 8192, "$cell: and pg_stat_io counts few reads ($r->{io_read_bytes} bytes)");

		# the control: an index scan is not read ahead
		make_cold($node, $server->{major}, 't', 't_id');
		$s = start_aios_sampler($node);
		$r = measured_run($node, $indexscan, 'SELECT count(pad) FROM t WHERE id <= 10000', 1);
		$aios = finish_aios_sampler($s);
		cmp_ok($aios->{samples}, '>', 0, "$cell: the index scan sampled ($aios->{samples} samples)");
		cmp_ok($aios->{max}, '<=', 1, "$cell: an index scan keeps at most one read in flight ($aios->{max})");
	}

	# what uringprobe_advise() reads at: a backend may pin shared_buffers /
	# (MaxBackends + auxiliary processes), at max_connections 950 16 of
	# 16384 buffers, one 128 kB read, so a cold scan keeps one in flight
	# however deep effective_io_concurrency would go
	# (AdviseRules.ReadDepthFollowsWhatABackendMayPin: 950 -> 1)
	$node->append_conf('postgresql.conf', "max_connections = 950\n");
	$node->restart;
	make_cold($node, $server->{major}, 't', 't_id');
	my $s = start_aios_sampler($node);
	measured_run($node, $seqscan, 'SELECT count(*) FROM t', 1, $server->{major});
	my $aios = finish_aios_sampler($s);
	cmp_ok($aios->{samples}, '>', 0, "$server->{name}/io_uring, max_connections 950: pg_aios sampled ($aios->{samples} samples)");
	cmp_ok($aios->{max}, '<=', 1,
		"$server->{name}/io_uring, max_connections 950: a cold scan keeps one read in flight ($aios->{max}, mean $aios->{mean})");

	# VACUUM's workload leaves the table as it was made for the others:
	# its updates stay on their pages, so the same pages, and an index scan
	# reads the same blocks, after two of its rounds
	make_cold($node, $server->{major}, 't', 't_id');
	my $before = measured_run($node, $indexscan, 'SELECT count(pad) FROM t WHERE id <= 10000', 1);
	for my $round (1, 2)
	{
		is(update_in_place($node, 't'), 10000, "$server->{name}: VACUUM's round $round updated a tenth of the rows in place");
		$node->safe_psql('postgres', 'VACUUM t');
	}
	is($node->safe_psql('postgres', "SELECT pg_relation_size('t') / 8192"), $relpages,
		"$server->{name}: after two VACUUM rounds the table has its pages as made ($relpages)");
	make_cold($node, $server->{major}, 't', 't_id');
	my $after = measured_run($node, $indexscan, 'SELECT count(pad) FROM t WHERE id <= 10000', 1);
	is("$after->{read} $after->{hit}", "$before->{read} $before->{hit}",
		"$server->{name}: and the index scan reads and hits the blocks it did before");
	# on pages without room the updates leave them, and that is refused
	$node->safe_psql('postgres', 'CREATE TABLE packed TABLESPACE slow AS SELECT * FROM t');
	eval { update_in_place($node, 'packed') };
	like($@, qr/^update_in_place\(packed\): \d+ of 10000 updates stayed on their page/,
		"$server->{name}: updates that moved rows to other pages are refused");
	$node->safe_psql('postgres', 'DROP TABLE t, packed; DROP TABLESPACE slow');
	$node->stop;
}

done_testing();
