# Every advice row checked on the workload it is for, in the same run
# (Uringprobe::AdviceCheck), on made-up runs files: held, not shown,
# contradicted and not checked, each for its reason; and a run whose
# advice its workload contradicted makes bench/report.pl fail (status 4)
# saying which, like a regression. No cluster: the rule is tested on
# figures made up for it; make bench measures them live.
use strict;
use warnings;
use FindBin;
use File::Temp ();
use IPC::Run ();
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::AdviceCheck;

my $root = "$FindBin::Bin/..";
my $dir = File::Temp::tempdir(CLEANUP => 1);

sub write_tsv
{
	my ($file, @rows) = @_;
	open my $fh, '>', "$dir/$file" or die "$file: $!\n";
	print $fh join("\t", @$_), "\n" for @rows;
	close $fh;
}
# COPY on xfs at 4 clients: write_zeros 1.20 s against posix_fallocate 1.00
# (3 runs each, apart; extension 20% of the sessions' time under
# write_zeros); on f2fs the same times, but extension took 5% of them; on
# ext4 within the noise; on btrfs write_zeros faster.
my @copy = ([qw(server io_method file_extend_method fs clients round seconds extend_ms)]);
for my $run (1 .. 3)
{
	push @copy, [ 'pg18-combined', 'sync', 'posix_fallocate', 'xfs', 4, $run, 1.00 + $run / 100, 200 ],
	  [ 'pg18-combined', 'sync', 'write_zeros', 'xfs', 4, $run, 1.20 + $run / 100, 0.20 * 4000 * (1.20 + $run / 100) ],
	  [ 'pg18-combined', 'sync', 'posix_fallocate', 'f2fs', 4, $run, 1.00 + $run / 100, 200 ],
	  [ 'pg18-combined', 'sync', 'write_zeros', 'f2fs', 4, $run, 1.20 + $run / 100, 0.05 * 4000 * (1.20 + $run / 100) ],
	  [ 'pg18-combined', 'sync', 'posix_fallocate', 'ext4', 4, $run, 1.00 + $run / 50 ],
	  [ 'pg18-combined', 'sync', 'write_zeros', 'ext4', 4, $run, 1.01 + $run / 50 ],
	  [ 'pg18-combined', 'sync', 'posix_fallocate', 'btrfs', 4, $run, 2.00 + $run / 100 ],
	  [ 'pg18-combined', 'sync', 'write_zeros', 'btrfs', 4, $run, 1.50 + $run / 100 ];
}
write_tsv('copy-runs.tsv', @copy);
# Cold seqscans on a 1 ms device: io_uring 0.5 s, worker 0.9 s, sync 1.4 s;
# then each read setting varied from there: io_workers 8 0.6 s, 1 MB reads
# under io_uring 0.4 s, sync with read_ahead_kb 256 1.2 s.
my @reads = ([qw(server io_method storage read_ahead read_ahead_kb eic io_combine_limit cache workload round seconds)]);
for my $run (1 .. 3)
{
	push @reads, map { [ 'pg18-combined', $_->[0], 'latency-1ms', $_->[2] // 128, $_->[2] // 128, 16, $_->[3] // '128kB', 'cold',
			'seqscan', $run, $_->[1] + $run / 100 ] }
	  [ sync => 1.4 ], [ worker => 0.9 ], [ io_uring => 0.5 ];
}
for my $run (1 .. 3)
{
	push @reads, map { [ 'pg18-combined', $_->[0], 'latency-1ms', $_->[2] // 128, $_->[2] // 128, 16, $_->[3] // '128kB', 'cold',
			'seqscan', $run, $_->[1] + $run / 100 ] }
	  [ 'worker:8' => 0.6 ], [ io_uring => 0.4, undef, '1MB' ], [ sync => 1.2, 256 ];
}
write_tsv('reads-runs.tsv', @reads);
# Connection churn at 950: separate mappings slow under io_uring.
my @churn = ([qw(server io_method max_connections run status conn_ms)]);
for my $run (1 .. 3)
{
	push @churn, [ 'pg18-separate', 'worker', 950, $run, 'ok', 2.0 + $run / 100 ],
	  [ 'pg18-separate', 'io_uring', 950, $run, 'ok', 3.5 + $run / 100 ],
	  [ 'pg18-combined', 'worker', 950, $run, 'ok', 2.0 + $run / 100 ],
	  [ 'pg18-combined', 'io_uring', 950, $run, 'ok', 2.05 + $run / 100 ];
}
write_tsv('churn-runs.tsv', @churn);
# OLTP on the 1 ms device (pg18-combined): select-only at 8 clients 5%
# faster under io_uring than worker (p99 0.9x); TPC-B the same under both;
# mixed 8% slower under io_uring (an io_method row claims no OLTP slowdown
# beyond 10%). Under the advised set (io_uring and 1 MB reads together):
# select-only 20% faster than worker as started, TPC-B the same.
my @oltp = ([qw(server storage io_method workload clients round tps latency_ms p99_ms settings)]);
my $set = 'io_method=io_uring; io_combine_limit=1024kB';
for my $run (1 .. 3)
{
	push @oltp, [ 'pg18-combined', 'latency-1ms', 'advised', 'select-only', 8, $run, 1200 + $run, 7, 15, $set ],
	  [ 'pg18-combined', 'latency-1ms', 'advised', 'tpcb', 8, $run, 502 + $run, 16, 40, $set ];
	push @oltp, [ 'pg18-combined', 'latency-1ms', 'worker', 'select-only', 8, $run, 1000 + $run, 8, 20 ],
	  [ 'pg18-combined', 'latency-1ms', 'io_uring', 'select-only', 8, $run, 1050 + $run, 7.6, 18 ],
	  [ 'pg18-combined', 'latency-1ms', 'worker', 'tpcb', 8, $run, 500 + 3 * $run, 16, 40 ],
	  [ 'pg18-combined', 'latency-1ms', 'io_uring', 'tpcb', 8, $run, 500 + 2 * $run, 16, 40 ],
	  [ 'pg18-combined', 'latency-1ms', 'worker', 'mixed', 8, $run, 1000 + $run, 8, 20 ],
	  [ 'pg18-combined', 'latency-1ms', 'io_uring', 'mixed', 8, $run, 926 + $run, 8.6, 22 ];
}
write_tsv('oltp-runs.tsv', @oltp);
# The advise cluster's own checks (bench/advise.pl) on pg18-separate: COPY
# into its 1 ms tablespace, write_zeros 0.8 s against posix_fallocate 1.0
# (extension 30% of the time); cold scans there, io_uring 0.5 s against
# worker 0.9. They come before the benchmarks' runs of the same question.
my @checks = ([qw(server setting scope_name workload value round seconds share)]);
for my $run (1 .. 3)
{
	my $copy = 'concurrent COPY into tablespace latency_1ms (4 clients)';
	my $scan = 'cold sequential scan of 128 MB in tablespace latency_1ms';
	my $bitmap = 'cold bitmap heap scan of 0.25% of 128 MB in tablespace latency_1ms';
	my $sessions = '4 concurrent cold bitmap heap scans of 0.25% each of 128 MB in tablespace latency_1ms';
	my $vacuum = 'cold VACUUM of 128 MB in tablespace latency_1ms, a tenth of its rows updated';
	my $fem = 'file_extend_method';
	# and COPY into pg_default on pg18-combined: posix_fallocate 6% slower
	# (1.06 s against 1.00, a spread of 2% each)
	push @checks, [ 'pg18-combined', $fem, 'pg_default', 'concurrent COPY into tablespace pg_default (4 clients)',
		'posix_fallocate', $run, 1.06 + $run / 100, 0.07 ],
	  [ 'pg18-combined', $fem, 'pg_default', 'concurrent COPY into tablespace pg_default (4 clients)',
		'write_zeros', $run, 1.00 + $run / 100, 0.07 ];
	# and into latency_1ms on pg18-combined: posix_fallocate 8% slower,
	# extension 5% of the time under it
	push @checks, [ 'pg18-combined', $fem, 'latency_1ms', $copy, 'posix_fallocate', $run, 1.08 + $run / 100, 0.05 ],
	  [ 'pg18-combined', $fem, 'latency_1ms', $copy, 'write_zeros', $run, 1.00 + $run / 100, 0.04 ];
	push @checks, [ 'pg18-separate', $fem, 'latency_1ms', $copy, 'write_zeros', $run, 0.80 + $run / 100, 0.05 ],
	  [ 'pg18-separate', $fem, 'latency_1ms', $copy, 'posix_fallocate', $run, 1.00 + $run / 100, 0.30 ],
	  [ 'pg15', 'effective_io_concurrency', 'latency_1ms', 'cold bitmap heap scan of 0.25% of 128 MB in tablespace latency_1ms',
		'8', $run, 0.25 + $run / 100, '' ],
	  [ 'pg15', 'effective_io_concurrency', 'latency_1ms', 'cold bitmap heap scan of 0.25% of 128 MB in tablespace latency_1ms',
		'1', $run, 1.00 + $run / 100, '' ],
	  # io_workers 8 against 3 in the advise cluster: the sessions read 1%
	  # of the bytes themselves with 8, 30% with 3
	  [ 'pg18-separate', 'io_workers', '', $sessions, '8', $run, 1.00 + $run / 100, 0.01 ],
	  [ 'pg18-separate', 'io_workers', '', $sessions, '3', $run, 1.50 + $run / 100, 0.30 ],
	  # a depth kept against the best one, and VACUUM's depth raised
	  [ 'pg18-combined', 'effective_io_concurrency', 'latency_1ms', $bitmap, '16', $run, 1.00 + $run / 100, '' ],
	  [ 'pg18-combined', 'effective_io_concurrency', 'latency_1ms', $bitmap, '32', $run, 1.30 + $run / 100, '' ],
	  [ 'pg18-combined', 'maintenance_io_concurrency', 'latency_1ms', $vacuum, '64', $run, 0.60 + $run / 100, '' ],
	  [ 'pg18-combined', 'maintenance_io_concurrency', 'latency_1ms', $vacuum, '16', $run, 1.00 + $run / 100, '' ],
	  [ 'pg18-separate', 'io_method', '', $scan, 'io_uring', $run, 0.50 + $run / 100, '' ],
	  [ 'pg18-separate', 'io_method', '', $scan, 'worker', $run, 0.90 + $run / 100, '' ];
}
write_tsv('advise-checks.tsv', @checks);

# Which storage each tablespace of the advise clusters is on (latency_1ms:
# the reads benchmark's latency-1ms; xfs: xfs).
write_tsv('advise-tablespaces.tsv', [qw(server tablespace storage)],
	map { my $s = $_; ([ $s, 'latency_1ms', 'latency-1ms' ], map { [ $s, $_, $_ ] } qw(xfs ext4 btrfs f2fs tmpfs pg_default)) }
	  qw(pg18-combined pg18-separate pg15));

# The rows as uringprobe_advise() gives them, by column: the prose is
# left empty, the checks must not need it.
my @cols = qw(server io_method max_connections topic setting scope scope_name action value current needs_version
  confidence decided_by measured_in ratio_of compared_with ratio ratio_lo ratio_hi margin not_measured advice evidence cost seconds budget);
sub row
{
	my (%r) = @_;
	return { server => 'pg18-combined', io_method => 'worker', max_connections => 950, confidence => 'high',
		scope => 'server', scope_name => '', needs_version => '', decided_by => '', measured_in => '', ratio_of => '',
		compared_with => '', ratio => '', ratio_lo => '', ratio_hi => '', margin => '', not_measured => '', advice => '', evidence => '',
		cost => '', seconds => 5, budget => 20, %r };
}
# a file_extend_method row of tablespace $ts: $action $value, now $current
sub fem
{
	my ($ts, $action, $value, $current, %r) = @_;
	return row(topic => 'file_extend_method', setting => 'file_extend_method', scope => 'tablespace', scope_name => $ts,
		action => $action, value => $value, current => $current, decided_by => 'extension runs', measured_in => $ts,
		ratio_of => 'posix_fallocate / write_zeros seconds', %r);
}
sub io_method
{
	my ($action, $value, $current, %r) = @_;
	return row(topic => 'io_method', setting => 'io_method', action => $action, value => $value, current => $current, %r);
}
my %reads_1ms = (decided_by => 'cold reads', measured_in => 'latency_1ms', ratio => 1.8, ratio_lo => 1.7, ratio_hi => 1.9,
	margin => 0.1);
my %rows = (
	xfs => fem('xfs', 'set', 'write_zeros', 'posix_fallocate', ratio => 2.7, ratio_lo => 2.5, ratio_hi => 2.9, margin => 1,
		advice => 'file_extend_method = write_zeros'),
	ext4 => fem('ext4', 'set', 'write_zeros', 'posix_fallocate'),
	btrfs => fem('btrfs', 'set', 'write_zeros', 'posix_fallocate'),
	keep_btrfs => fem('btrfs', 'keep', 'posix_fallocate', 'posix_fallocate', margin => 0.05),
	keep_flat => fem('pg_default', 'keep', 'posix_fallocate', 'posix_fallocate', margin => 0.05),
	f2fs => fem('f2fs', 'set', 'write_zeros', 'posix_fallocate'),
	keep_short => fem('latency_1ms', 'keep', 'posix_fallocate', 'posix_fallocate', margin => 1),
	fallocate_flat => fem('pg_default', 'set', 'posix_fallocate', 'write_zeros'),
	tmpfs => fem('tmpfs', 'set', 'write_zeros', 'posix_fallocate'),
	reads => io_method('set', 'io_uring', 'worker', %reads_1ms),
	reads_elsewhere => io_method('set', 'io_uring', 'worker', %reads_1ms, measured_in => 'xfs'),
	churn => io_method('keep', 'worker', 'worker', server => 'pg18-separate', decided_by => 'fork cost',
		ratio => 2.8, ratio_lo => 2.6, ratio_hi => 3, margin => 0.25),
	layout => row(server => 'pg18-separate', topic => 'io_method', setting => 'ring layout', scope => 'build',
		action => 'set', value => 'one region', current => 'separate'),
	keep_layout => row(topic => 'io_method', setting => 'ring layout', scope => 'build', action => 'keep',
		value => 'one region', current => 'one region'),
	own_copy => fem('latency_1ms', 'set', 'write_zeros', 'posix_fallocate', server => 'pg18-separate'),
	own_reads => io_method('set', 'io_uring', 'worker', %reads_1ms, server => 'pg18-separate'),
	ulimit => row(topic => 'limits', setting => 'ulimit -n', scope => 'os', action => 'keep', value => '20000', current => '20000'),
	ulimit_raise => row(topic => 'limits', setting => 'ulimit -l', scope => 'os', action => 'raise', value => '8192',
		current => '64'),
	pg15_ulimit => row(server => 'pg15', topic => 'limits', setting => 'ulimit -l', scope => 'os', action => 'keep',
		value => '8192', current => '8192'),
	pg15 => io_method('set', 'worker', '', server => 'pg15', needs_version => 180000),
	pg15_layout => row(server => 'pg15', topic => 'io_method', setting => 'ring layout', scope => 'build',
		action => 'set', value => 'one region', current => 'separate', needs_version => 180000),
	pg15_fem => fem('pg_default', 'none', '', '', server => 'pg15', decided_by => ''),
	io_uring_allowed => row(topic => 'io_method', setting => 'io_uring', scope => 'os', action => 'keep', value => 'allowed',
		current => 'allowed', decided_by => 'io_uring_setup'),
	pg15_eic => row(server => 'pg15', topic => 'io_concurrency', setting => 'effective_io_concurrency', scope => 'tablespace',
		scope_name => 'latency_1ms', action => 'raise', value => '8', current => '1', decided_by => 'read depths'),
	keep_eic => row(topic => 'io_concurrency', setting => 'effective_io_concurrency', scope => 'tablespace',
		scope_name => 'latency_1ms', action => 'keep', value => '16', current => '16', decided_by => 'read depths',
		server => 'pg18-separate'),
	unmeasured_ra => row(topic => 'read_ahead', setting => 'read_ahead_kb', scope => 'os', scope_name => 'loop4',
		action => 'keep', value => '128', current => '128',
		not_measured => 'sequential reads: the budget had no room for a round'),
	own_workers => row(server => 'pg18-separate', topic => 'io_workers', setting => 'io_workers', action => 'raise',
		value => '8', current => '3', decided_by => 'reads through workers', measured_in => 'latency_1ms'),
	keep_eic_32 => row(topic => 'io_concurrency', setting => 'effective_io_concurrency', scope => 'tablespace',
		scope_name => 'latency_1ms', action => 'keep', value => '16', current => '16', decided_by => 'read depths',
		compared_with => '32', margin => 0.1),
	raise_mic => row(topic => 'io_concurrency', setting => 'maintenance_io_concurrency', scope => 'tablespace',
		scope_name => 'latency_1ms', action => 'raise', value => '64', current => '16', decided_by => 'read depths',
		compared_with => '128', margin => 0.1),
	# the read settings, on the reads benchmark's runs
	io_workers => row(topic => 'io_workers', setting => 'io_workers', action => 'raise', value => '8', current => '3',
		decided_by => 'reads through workers', measured_in => 'latency_1ms'),
	io_workers_24 => row(topic => 'io_workers', setting => 'io_workers', action => 'raise', value => '24', current => '3',
		decided_by => 'reads through workers', measured_in => 'latency_1ms'),
	keep_workers => row(topic => 'io_workers', setting => 'io_workers', action => 'keep', value => '8', current => '8',
		decided_by => 'reads through workers', measured_in => 'latency_1ms', margin => 0.1),
	combine => row(topic => 'read_size', setting => 'io_combine_limit', action => 'raise', value => '1024kB',
		current => '128kB', decided_by => 'sequential reads', measured_in => 'latency_1ms'),
	max_combine => row(topic => 'read_size', setting => 'io_max_combine_limit', action => 'raise', value => '1024kB',
		current => '128kB', decided_by => 'sequential reads', measured_in => 'latency_1ms'),
	read_ahead => row(topic => 'read_ahead', setting => 'read_ahead_kb', scope => 'os', scope_name => 'loop3',
		action => 'raise', value => '256', current => '128', decided_by => 'sequential reads', measured_in => 'latency_1ms'),
	read_ahead_xfs => row(topic => 'read_ahead', setting => 'read_ahead_kb', scope => 'os', scope_name => 'loop4',
		action => 'raise', value => '256', current => '128', decided_by => 'sequential reads', measured_in => 'xfs'),
	read_ahead_none => row(topic => 'read_ahead', setting => 'read_ahead_kb', scope => 'os', scope_name => '',
		action => 'none', value => '', current => '', not_measured => 'no block device behind device 0:42'),
	# a keep of the current value, and a set to it: never checked against itself
	keep_worker => io_method('keep', 'worker', 'worker', decided_by => 'cold reads', measured_in => 'latency_1ms',
		ratio => 1.02, ratio_lo => 0.97, ratio_hi => 1.06, margin => 0.1),
);
my @all = values %rows;
my %check = map { $_ => check_advice($dir, $rows{$_}, \@all) } keys %rows;
sub verdict_is
{
	my ($key, $verdict, $effect, $name) = @_;
	# (the row's own workload; a row checked on others too: `own`)
	is($check{$key}{own} // $check{$key}{verdict}, $verdict, "$name: $verdict");
	like($check{$key}{effect}, $effect, "$name: the effect on the workload says so") or diag($check{$key}{effect});
}
verdict_is('xfs', 'contradicted', qr/^concurrent COPY on xfs, 4 clients \(sync\): write_zeros against posix_fallocate: 1\.20x the time \(95% interval/,
	'write_zeros advised, COPY 20% slower with it');
verdict_is('f2fs', 'not shown',
	qr/write_zeros against posix_fallocate: 1\.20x the time .*; it moved by 1[67]% of the slower time, more than the 5% extension took under the advised value: not the setting's doing$/,
	'write_zeros advised, COPY 20% slower with it while extension took 5% of its time');
verdict_is('ext4', 'not shown', qr/1\.0\dx the time/, 'write_zeros advised, COPY within the noise');
verdict_is('btrfs', 'held', qr/0\.75x the time/, 'write_zeros advised, COPY 25% faster with it');
verdict_is('keep_btrfs', 'contradicted', qr/posix_fallocate against write_zeros: 1\.33x the time/,
	'posix_fallocate kept, the alternative 25% faster');
# the same 6% against a row that claimed no difference beyond 5% (the
# interval reaching below 5%: not beyond it), and against one that
# advised posix_fallocate outright (it moved the other way)
verdict_is('keep_flat', 'not shown', qr/^concurrent COPY into tablespace pg_default \(4 clients\): posix_fallocate against write_zeros: 1\.06x the time \(95% interval 1\.0[0-4]-/,
	'posix_fallocate kept for no difference beyond 5% shown, the workload 6% slower with it but not wholly beyond 5%');
verdict_is('fallocate_flat', 'contradicted', qr/posix_fallocate against write_zeros: 1\.06x the time/,
	'posix_fallocate advised outright, the workload 6% slower with it');
# kept for write_zeros short of twice as fast (its margin 100%): 8% is
# no contradiction
verdict_is('keep_short', 'not shown',
	qr/^concurrent COPY into tablespace latency_1ms \(4 clients\): posix_fallocate against write_zeros: 1\.08x the time .*; extension took 4% of its sessions' time under write_zeros: at most that to gain$/,
	'posix_fallocate kept short of a 2x margin, COPY 8% slower with it');
verdict_is('tmpfs', 'not checked', qr/ran no COPY on tmpfs/, 'a filesystem COPY did not run on');
verdict_is('reads', 'held', qr/^cold sequential scans on latency-1ms: io_method io_uring against worker: 0\.5\dx the time/,
	'io_uring advised for its read gain, checked on cold scans');
verdict_is('reads_elsewhere', 'not checked', qr/measured on tablespace xfs, a storage the reads benchmark did not measure/,
	'a read gain measured on a storage the reads benchmark did not measure');
verdict_is('churn', 'held', qr/^connection churn at max_connections 950: io_method worker against io_uring: 0\.5\dx the time/,
	'worker advised for the connection cost, checked on connection churn');
verdict_is('layout', 'held', qr/one region \(pg18-combined\) against separate mappings \(pg18-separate\): 0\.5\dx/,
	'one region advised on the server of separate mappings, checked against the other server');
verdict_is('keep_layout', 'held', qr/one region \(pg18-combined\) against separate mappings \(pg18-separate\)/,
	'one region kept, the other layout slower');
verdict_is('own_copy', 'held',
	qr/^concurrent COPY into tablespace latency_1ms \(4 clients\): write_zeros against posix_fallocate: 0\.8\dx the time \(95% interval .*; extension took 30% of its sessions' time under posix_fallocate: at most that to gain$/,
	'write_zeros advised, checked by the advise cluster\'s own COPY, with the share extension had');
verdict_is('own_reads', 'held', qr/^cold sequential scan of 128 MB in tablespace latency_1ms: io_uring against worker: 0\.5\dx the time/,
	'io_uring advised for its read gain, checked by the advise cluster\'s own cold scans');
verdict_is('ulimit', 'held', qr/pg18-combined started under io_uring at max_connections 950 within it and churned connections \(3 runs\)/,
	'a limit kept: the server ran under io_uring at that max_connections');
verdict_is('ulimit_raise', 'not checked', qr/a host's setting to change/, 'a limit to raise');
verdict_is('io_uring_allowed', 'held', qr/^pg18-combined started under io_uring at max_connections 950/,
	'io_uring allowed: the server started under it');
verdict_is('io_workers', 'held', qr/^cold seqscan runs on latency-1ms \(worker\): io_workers 8 against 3: 0\.6\dx the time/,
	'io_workers raised, checked on the reads benchmark\'s runs of each count');
verdict_is('io_workers_24', 'not checked', qr/had io_workers 3, 8: not 24 and 3/, 'io_workers raised to a count no run had');
verdict_is('keep_workers', 'held', qr/io_workers 8 against 3/, 'io_workers kept, against the other count the run measured');
verdict_is('combine', 'held', qr/^cold seqscan runs on latency-1ms \(io_uring\): io_combine_limit 1024 against 128: 0\.8\dx the time/,
	'io_combine_limit raised, checked on the reads benchmark\'s 1 MB runs');
verdict_is('max_combine', 'not checked', qr/follows io_combine_limit's row/, 'io_max_combine_limit goes with io_combine_limit');
verdict_is('read_ahead', 'held', qr/^cold seqscan runs on latency-1ms \(sync\): read_ahead_kb 256 against 128: 0\.8\dx the time/,
	'read_ahead_kb raised, checked on sync scans with each readahead');
verdict_is('read_ahead_xfs', 'not checked', qr/^the reads benchmark ran no seqscan on xfs/,
	'read_ahead_kb of a device the reads benchmark did not read');
verdict_is('read_ahead_none', 'not checked', qr/^nothing to set: no block device/, 'no read_ahead_kb to set');
# io_method on OLTP too: one check per workload, the row's verdict taken
# with its own
is(scalar(@{ $check{reads}{also} // [] }), 5,
	'io_uring advised: checked on OLTP\'s three workloads under each io_method and two under the advised set besides');
my %oltp = map { $_->{workload} => $_ } @{ $check{reads}{also} // [] };
is($oltp{'OLTP select-only, 8 clients on latency-1ms'}{verdict}, 'held', 'io_uring advised: select-only 5% faster with it: held');
like($oltp{'OLTP select-only, 8 clients on latency-1ms'}{effect},
	qr/^OLTP select-only, 8 clients on latency-1ms: io_method io_uring against worker: 0\.95x the time per transaction .*; p99 0\.90x$/,
	'... per transaction, the p99 beside');
is($oltp{'OLTP tpcb, 8 clients on latency-1ms'}{verdict}, 'not shown', 'io_uring advised: TPC-B the same: not shown');
is($oltp{'OLTP mixed, 8 clients on latency-1ms'}{verdict}, 'not shown',
	'io_uring advised: mixed 8% slower with it, within the 10% OLTP is held to: not shown');
like($oltp{'OLTP mixed, 8 clients on latency-1ms'}{effect}, qr/: 1\.08x the time per transaction \(95% interval 1\.0/,
	'... its interval beyond 1, not beyond 1.10');
is($oltp{'OLTP select-only, 8 clients on latency-1ms, the advised set'}{verdict}, 'held',
	'io_uring advised: the advised set 20% faster on select-only than worker as started: held');
like($oltp{'OLTP select-only, 8 clients on latency-1ms, the advised set'}{effect},
	qr/^OLTP select-only, 8 clients on latency-1ms: the advised set \(io_method=io_uring; io_combine_limit=1024kB\) against worker as started: 0\.8\dx the time per transaction/,
	'... named with what the set applied');
is($oltp{'OLTP tpcb, 8 clients on latency-1ms, the advised set'}{verdict}, 'not shown', '... TPC-B the same: not shown');
is_deeply([ map { $_->{verdict} } @{ $check{combine}{also} } ], [ 'held', 'not shown' ],
	'io_combine_limit raised, in the set: checked on its OLTP runs besides its own');
is($check{combine}{own}, 'held', '... its own check on the reads runs kept');
ok(!$check{io_workers}{also}, 'io_workers raised to 8, not in the set: no OLTP check of the set');
is($check{keep_worker}{also}[0]{verdict}, 'not shown', 'worker kept for no read gain: OLTP 5% slower with it, within its 10%');
is($check{keep_worker}{verdict}, 'contradicted', '... the row contradicted all the same by its cold scans');
is($check{reads_elsewhere}{verdict}, 'held', 'a read gain not checked on its storage, held on OLTP: held');
ok(!$check{churn}{also}, 'no OLTP ran on pg18-separate: its row checked on churn alone');
verdict_is('pg15_eic', 'held', qr/^cold bitmap heap scan of 0\.25% of 128 MB in tablespace latency_1ms: 8 against 1: 0\.2\dx the time/,
	'effective_io_concurrency raised on PostgreSQL 15 (its own setting, no claim for 18), checked by bitmap heap scans');
verdict_is('keep_eic', 'not checked', qr/^kept at 16: its curve gave no other depth to run against$/,
	'a depth kept with no other point on its curve');
verdict_is('unmeasured_ra', 'not checked', qr/^kept unmeasured: sequential reads: the budget had no room for a round$/,
	'a setting kept for want of a measurement claims nothing to check');
verdict_is('own_workers', 'held',
	qr/^4 concurrent cold bitmap heap scans of 0\.25% each of 128 MB in tablespace latency_1ms: 8 against 3: 0\.6\dx the time .*; the sessions read 1% of the bytes themselves with 8 workers, 30% with 3 \(the rest by the io workers/,
	'io_workers raised, checked by the advise cluster\'s concurrent scans, the sessions\' own reads counted live beside');
verdict_is('keep_eic_32', 'held', qr/^cold bitmap heap scan of 0\.25% of 128 MB in tablespace latency_1ms: 16 against 32: 0\.7\dx/,
	'a depth kept, checked against the best depth it was held to (compared_with)');
verdict_is('raise_mic', 'held', qr/^cold VACUUM of 128 MB in tablespace latency_1ms, a tenth of its rows updated: 64 against 16: 0\.6\dx/,
	'maintenance_io_concurrency raised, checked by cold VACUUM against the current depth (not compared_with)');
verdict_is('pg15_ulimit', 'held', qr/^pg18-(?:separate|combined) started under io_uring at max_connections 950 within it/,
	'a limit kept on 15 (a claim for 18): a PostgreSQL 18 server ran under io_uring within the same limits');
verdict_is('pg15', 'held',
	qr/^on PostgreSQL 18 \(pg18-separate, the same ring layout\), connection churn at max_connections 950: io_method worker against io_uring: 0\.5\dx/,
	'advice for PostgreSQL 18 given on 15, checked on the churn of the 18 server of its ring layout');
verdict_is('pg15_layout', 'held', qr/^on PostgreSQL 18, connection churn under io_uring at max_connections 950: one region \(pg18-combined\) against separate mappings \(pg18-separate\)/,
	'the ring layout advised on 15, checked on the 18 servers of either layout');
verdict_is('pg15_fem', 'not checked', qr/nothing to set/, 'nothing to set before 16');
verdict_is('keep_worker', 'contradicted', qr/^cold sequential scans on latency-1ms: io_method worker against io_uring: 1\.7\dx the time/,
	'worker kept for no read gain beyond 10% shown, cold scans 1.77x as fast under io_uring');

# A check compares two values, never one with itself: a keep against the
# alternative, a set against the current, a set to the current value
# (no change) against the alternative.
is_deeply([ advised_pair($rows{keep_flat}) ], [qw(posix_fallocate write_zeros)], 'a keep: against the alternative');
is_deeply([ advised_pair($rows{fallocate_flat}) ], [qw(posix_fallocate write_zeros)], 'a set: against the current');
is_deeply([ advised_pair(fem('pg_default', 'set', 'write_zeros', 'write_zeros')) ], [qw(write_zeros posix_fallocate)],
	'a set to the current value: against the alternative');
is_deeply([ advised_pair($rows{pg15}) ], [], 'a claim for PostgreSQL 18 made before it: no pair on this server');
for my $key (sort keys %rows)
{
	my @pair = advised_pair($rows{$key});
	ok(!@pair || $pair[0] ne $pair[1], "$key: no value against itself");
}

# A run whose advice its workload contradicted: the report says so and
# bench/report.pl fails with status 4.
# (a run of the advise benchmark alone: the made-up runs files above are
# not whole enough for the report's tables)
write_tsv('run.tsv', [ 'started', '2026-12-03 20:00 UTC' ], [ 'seconds', 60 ], [ 'machine', 'made up' ], [ 'cpus', 2 ],
	[ 'kernel', '6.18' ], [ 'profile', 'quick' ], [ 'benchmarks', 'advise' ], [ 'cells', 1 ], [ 'failed', '' ],
	[ 'command', 'make bench' ]);
write_tsv('report.list', [ 'section', 'advise', 'what uringprobe_advise() says on each server' ]);
unlink "$dir/churn-runs.tsv", "$dir/reads-runs.tsv";
write_tsv('advise.tsv', [@cols], map { my $r = $_; [ map { $r->{$_} } @cols ] } $rows{xfs}, $rows{btrfs});
my ($out, $err) = ('', '');
IPC::Run::run([ 'perl', "$root/bench/report.pl", $dir ], '<', \undef, '>', \$out, '2>', \$err);
my $rc = $? >> 8;
is($rc, 4, 'report.pl: advice contradicted by its workload fails the run (status 4)') or diag($err);
like($out, qr/advice contradicted by its workload: pg18-combined file_extend_method \(xfs\) \(see report\.md\)/,
	'report.pl: ... naming the row');
my $md = slurp_file("$dir/report.md");
like($md, qr/^Advice checked on its workloads in this run: 1 held, 0 not shown, 1 contradicted, 0 not checked \(2 checks of 2 rows\)$/m,
	'report.md: the verdicts counted in its opening');
like($out, qr/^Advice checked on its workloads in this run: 1 held, /m, 'report.pl: ... and on the terminal');
like($md, qr/- \*\*file_extend_method \(xfs\)\*\*: set write_zeros \(now posix_fallocate; confidence high; decided by extension runs in xfs: posix_fallocate \/ write_zeros seconds 2\.70 \(2\.50-2\.90\), margin 100%\)\n  - advice: file_extend_method = write_zeros\n  - evidence: .*\n  - checked on its workload: contradicted \(concurrent COPY on xfs[^\n]*; its confidence high is not borne out by the workload\n/,
	'report.md: the row by its columns, its prose, checked, and its high confidence not borne out');
like($md, qr/- \*\*file_extend_method \(btrfs\)\*\*: [^\n]*\n(?:  - [^\n]*\n)*?  - checked on its workload: held \(/, 'report.md: a row held');
# the same row of confidence low (too few rounds): named, not a failure
{
	my %low = (%{ $rows{xfs} }, confidence => 'low');
	write_tsv('advise.tsv', [@cols], map { my $r = $_; [ map { $r->{$_} } @cols ] } \%low, $rows{btrfs});
	my ($lout, $lerr) = ('', '');
	IPC::Run::run([ 'perl', "$root/bench/report.pl", $dir ], '<', \undef, '>', \$lout, '2>', \$lerr);
	is($? >> 8, 0, 'report.pl: advice of confidence low contradicted fails no run') or diag($lerr);
	like($lout, qr/advice of confidence low contradicted by its workload \(a guess: too few rounds, or a lean its interval did not show; not a failure\): pg18-combined file_extend_method \(xfs\)/,
		'report.pl: ... and names it');
	write_tsv('advise.tsv', [@cols], map { my $r = $_; [ map { $r->{$_} } @cols ] } $rows{xfs}, $rows{btrfs});
	IPC::Run::run([ 'perl', "$root/bench/report.pl", $dir ], '<', \undef, '>', \$lout, '2>', \$lerr);
}
# the HTML report: a row per setting to scan, its prose folded below it
my $html = slurp_file("$dir/report.html");
like($html, qr{<tr class="confidence-high"><td>file_extend_method</td><td>tablespace xfs</td><td>posix_fallocate</td><td><b>set write_zeros</b></td><td>high</td><td class="contradicted"><span class="mark">&#10007;</span> contradicted</td></tr>\n<tr class="why"><td colspan="6"><details><summary>file_extend_method = write_zeros</summary>},
	'report.html: the row\'s columns and its check as a mark, the prose folded below');

done_testing();
