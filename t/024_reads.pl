# uringprobe_reads() on storage that makes you wait (tools/storage: a
# 1 ms device made of nbdkit's delay filter, nbdfuse and a loop device with
# direct I/O, XFS on it; and the machine's disk): reads kept in flight as
# asked, cold and warm starts, a relation's own files in a tablespace on
# the device, another session's temporary table refused, a statement
# cancelled mid-read leaves the backend as it was and no file. Every
# storage kind tools/storage could not make is a row saying why.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

my @storage = storage_kinds();
BAIL_OUT('no storage list: run through make test') unless @storage;
for my $kind (@storage)
{
	ok($kind->{status} eq 'ok' || $kind->{status} =~ /^unavailable: \S/,
		"storage $kind->{name}: made, or a row saying why not ($kind->{status})");
	ok($kind->{how} ne '' && $kind->{device} =~ /^\d+:\d+$/ && $kind->{read_ahead_kb} =~ /^\d+$/,
		"storage $kind->{name}: says how it was made, its device and read_ahead_kb")
	  if $kind->{status} eq 'ok';
}
my ($slow) = grep { $_->{name} =~ /^latency-/ } @storage;
my ($disk) = grep { $_->{name} eq 'disk' && $_->{status} eq 'ok' } @storage;
ok($disk, 'the machine\'s disk is always there');

for my $server (servers())
{
	my $io_method = $server->{major} >= 18 ? 'io_uring' : 'sync';
	my $cell = "$server->{name}/$io_method";
	if (!$slow || $slow->{status} ne 'ok')
	{
	  SKIP: { skip "$cell: the 1 ms device: " . ($slow ? $slow->{status} : 'not made'), 1; }
		next;
	}
	my $dir = $slow->{dir};
	my ($node) = start_cluster(server => $server, io_method => $io_method, name => "reads_$server->{name}",
		settings => ["uringprobe.scratch_dirs = '$dir,$disk->{dir}'"]);
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');

	# Kept in flight as asked, on a device where each read waits 1 ms.
	my $r = query_row($node,
		"SELECT * FROM uringprobe_reads('io_uring', 'random', block_kb => 8, in_flight => 16, direct => true, "
		  . "file_mb => 4, dir => '$dir')");
	is($r->{status}, 'ok', "$cell: io_uring reads on the 1 ms device");
	cmp_ok($r->{mean_in_flight}, '>=', 0.9 * 16, "$cell: io_uring keeps 16 reads in flight ($r->{mean_in_flight})");
	is($r->{max_in_flight}, 16, "$cell: ... never more");
	$r = query_row($node,
		"SELECT * FROM uringprobe_reads('workers', 'random', block_kb => 8, in_flight => 16, workers => 3, "
		  . "file_mb => 4, dir => '$dir')");
	cmp_ok($r->{mean_in_flight}, '>=', 0.9 * 16, "$cell: workers keep 16 reads queued ($r->{mean_in_flight})");
	cmp_ok($r->{worker_wakeups}, '>=', 1, "$cell: ... handed to the worker threads");
	$r = query_row($node,
		"SELECT * FROM uringprobe_reads('sync', 'random', block_kb => 8, direct => true, file_mb => 1, dir => '$dir')");
	is("$r->{status} $r->{mean_in_flight} $r->{max_in_flight}", 'ok 1 1', "$cell: sync keeps one read in flight");
	$r = query_row($node, "SELECT * FROM uringprobe_reads('sync', file_mb => 4, dir => '$dir')");
	is($r->{resident_before}, 0, "$cell: a cold start finds none of the file's pages cached");
	$r = query_row($node, "SELECT * FROM uringprobe_reads('sync', cache => 'warm', file_mb => 4, dir => '$dir')");
	is($r->{resident_before}, $r->{pages}, "$cell: a warm start finds all of them");

	# A relation's own files, in a tablespace on the device.
	$node->safe_psql('postgres', "CREATE TABLESPACE slow LOCATION '$dir'");
	$node->safe_psql('postgres',
		"CREATE TABLE on_slow TABLESPACE slow AS SELECT g AS id, repeat('x', 200) AS pad FROM generate_series(1, 20000) g; CHECKPOINT");
	$r = query_row($node, "SELECT *, pg_relation_size('on_slow') / 8192 AS blocks FROM uringprobe_reads('io_uring', "
		  . "'random', block_kb => 8, rel => 'on_slow')");
	is("$r->{status} $r->{source} $r->{ops}", "ok on_slow $r->{blocks}",
		"$cell: a table's files in a tablespace on the device: every block read");
	is($r->{resident_before}, 0, "$cell: ... its pages dropped first");

	# Another session's temporary table: refused.
	my $other = $node->background_psql('postgres');
	$other->query_safe('CREATE TEMP TABLE mine AS SELECT 1 AS id');
	my $oid = $other->query_safe("SELECT 'mine'::regclass::oid");
	my ($rc, $out, $err) = $node->psql('postgres', "SELECT count(*) FROM uringprobe_reads(rel => $oid)");
	like($err, qr/cannot read temporary tables of other sessions/, "$cell: another session's temporary table refused");
	my ($own) = $other->query_safe("SELECT status FROM uringprobe_reads(rel => 'mine', block_kb => 8)");
	is($own, 'ok', "$cell: a session reads its own temporary table");
	$other->quit;

	# Cancelled mid-read: the backend as it was, no file left.
	for my $method (qw(sync io_uring workers))
	{
		cancel_leaves_backend_as_was($node,
			"uringprobe_reads('$method', 'random', block_kb => 4, direct => true, file_mb => 4, passes => 100000, "
			  . "dir => '$dir')", '1s', "$cell: reads $method on the 1 ms device");
		is(scalar(scratch_files($dir)), 0, "$cell: reads $method cancelled: no scratch file left");
	}
	$node->safe_psql('postgres', 'DROP TABLE on_slow; DROP TABLESPACE slow');
	$node->stop;
}

done_testing();
