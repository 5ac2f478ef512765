# What io_uring costs and buys where most servers live: OLTP. pgbench's
# built-in select-only and TPC-B-like scripts on a data set larger than
# shared_buffers and than the page cache the cluster may use, under each
# io_method, on each storage kind tools/storage made (URINGPROBE_OLTP_STORAGE:
# the machine's disk, the 1 ms device), at each client count: throughput
# and latency (mean and 99th percentile, from pgbench's per-transaction
# log). And a mixed run: select-only clients beside one cold sequential
# scan of a table of its own in the same tablespace (does a deep read
# ahead hurt their p99?), the scan's seconds beside.
#
# tools/run-bench runs this script, and so every cluster it starts and
# their clients, in a memory cgroup of URINGPROBE_OLTP_MEMORY_MB
# (URINGPROBE_MEMORY_CGROUP says which, or why there is none): the page cache
# is what is left of it, so that reads reach the device. Each run starts
# cold: the tables and indexes out of shared buffers (the server restarted
# into the run's io_method where it changes, else evicted by
# pg_buffercache_evict_relation; before 18, sync alone, restarted every
# run) and the tables' pages dropped from the page cache (the indexes'
# left to the cgroup's limit).
#
# And under the advised settings as a set ("advised"): the rows of this
# run's advise benchmark (advise.tsv) for the same server that change a
# setting, each applied where it bears on this storage — the server's
# (ALTER SYSTEM: io_method, io_workers, io_combine_limit,
# io_max_combine_limit, the file_extend_method of the advise tablespace on
# this storage), that tablespace's depths (ALTER TABLESPACE oltp SET) and
# the device's read_ahead_kb — against the settings the advice started
# from (worker with PostgreSQL 18's defaults: the worker cells). The runs
# say what was applied (settings); none where the advise benchmark did
# not run or kept everything.
#
# Per server (URINGPROBE_OLTP_SERVERS) and storage: a cluster with
# shared_buffers URINGPROBE_OLTP_SHARED_BUFFERS, autovacuum off, a
# tablespace on the storage holding pgbench's tables at scale
# URINGPROBE_OLTP_SCALE and the mixed run's table (URINGPROBE_OLTP_SCAN_MB).
# Cells (io_method x workload x clients) take turns in every round,
# URINGPROBE_OLTP_ROUNDS rounds (more where noisy), each run
# URINGPROBE_OLTP_SECONDS long. The table: per cell the medians, and tps
# and p99 against sync's (same server, storage, workload, clients), each a
# ratio of medians with its 95% interval; against worker's, PostgreSQL
# 18's default and the settings the advice started from.
#
#   perl bench/oltp.pl RUNS.tsv TABLE.tsv
use strict;
use warnings;
use IPC::Run ();
use PostgreSQL::Test::Utils;
use Time::HiRes ();
use Uringprobe::BenchScript;
use File::Basename ();
use Uringprobe::Manifest qw(setting file_of);
use Uringprobe::TsvRows qw(ok_rows rows_where);
use Uringprobe::Cluster;
use Uringprobe::Reads;

my ($runs_file, $table_file) = @ARGV;
die "usage: oltp.pl RUNS.tsv TABLE.tsv\n" unless $table_file;
my @kinds = split ' ', setting('URINGPROBE_OLTP_STORAGE');
my @methods = split ' ', setting('URINGPROBE_OLTP_IO_METHODS');
my @workloads = split ' ', setting('URINGPROBE_OLTP_WORKLOADS');
my @clients = split ' ', setting('URINGPROBE_OLTP_CLIENTS');
my ($scale, $seconds, $rounds, $scan_mb, $shared_buffers) =
  map { setting("URINGPROBE_OLTP_$_") } qw(SCALE SECONDS ROUNDS SCAN_MB SHARED_BUFFERS);
my %known_workload = map { $_ => 1 } qw(select-only tpcb mixed);
for (@workloads) { die "URINGPROBE_OLTP_WORKLOADS: unknown workload '$_' (select-only, tpcb, mixed)\n" unless $known_workload{$_}; }
for (@methods) { die "URINGPROBE_OLTP_IO_METHODS: unknown io_method '$_'\n" unless /^(sync|worker(:\d+)?|io_uring)$/; }
for ([ CLIENTS => @clients ], [ SCALE => $scale ], [ SECONDS => $seconds ], [ ROUNDS => $rounds ], [ SCAN_MB => $scan_mb ])
{
	my ($name, @v) = @$_;
	for (@v) { die "URINGPROBE_OLTP_$name must be a whole number, at least 1, got '$_'\n" unless /^\d+$/ && $_ >= 1; }
}
die "URINGPROBE_OLTP_SHARED_BUFFERS must be a size in MB (e.g. 32MB), got '$shared_buffers'\n"
  unless $shared_buffers =~ /^\d+MB$/;
# what holds the page cache down, as tools/run-bench made it
my $memory = $ENV{URINGPROBE_MEMORY_CGROUP} || 'not limited: not run by make bench';
# (the table's page_cache: the limit, or that there was none; why in the runs)
my $page_cache = $ENV{URINGPROBE_MEMORY_LIMIT_MB} ? "limited to $ENV{URINGPROBE_MEMORY_LIMIT_MB} MB" : 'not limited';

my @storage = storage_asked(@kinds);
my @usable = grep { $_->{status} eq 'ok' } @storage;

my @servers = servers_named(setting('URINGPROBE_OLTP_SERVERS'));
# (the readahead the advise cluster saw: the reads benchmark's first)
my ($read_ahead) = split ' ', setting('URINGPROBE_READS_READ_AHEAD');

# The block device's name (loop3) of storage $st, '' where none.
sub device_name
{
	my ($st) = @_;
	return '' unless ($st->{device} // '') =~ /^\d+:\d+$/;
	my $link = readlink("/sys/dev/block/$st->{device}") // '';
	return File::Basename::basename($link);
}

# The settings this run's advise benchmark advised $server to change, as
# they bear on a cluster with a tablespace on storage $st:
# { system => [[name, value]], tablespace => [[name, value]], read_ahead,
# applied => 'setting[:scope]=value; ...' }, or undef where it advised
# none (or did not run).
sub advised_set
{
	my ($server, $st) = @_;
	return undef if $server->{major} < 18;
	my $dir = File::Basename::dirname($runs_file);
	my ($space) = map { $_->{tablespace} }
	  rows_where(ok_rows($dir, file_of(advise => 'tablespaces')), server => $server->{name}, storage => $st->{name});
	my $device = device_name($st);
	my %set = (system => [], tablespace => [], applied => []);
	for my $row (rows_where(ok_rows($dir, file_of(advise => 'advice')), server => $server->{name}))
	{
		next unless $row->{action} =~ /^(?:set|raise|lower)$/ && ($row->{needs_version} // '') eq '';
		my ($setting, $scope, $name, $value) = @$row{qw(setting scope scope_name value)};
		if ($scope eq 'server' && $setting =~ /^(?:io_method|io_workers|io_combine_limit|io_max_combine_limit)$/)
		{
			push @{ $set{system} }, [ $setting, $value ];
		}
		elsif ($scope eq 'tablespace' && defined $space && $name eq $space && $setting eq 'file_extend_method')
		{
			push @{ $set{system} }, [ $setting, $value ];
		}
		elsif ($scope eq 'tablespace' && defined $space && $name eq $space
			&& $setting =~ /^(?:effective|maintenance)_io_concurrency$/)
		{
			push @{ $set{tablespace} }, [ $setting, $value ];
		}
		elsif ($scope eq 'os' && $setting eq 'read_ahead_kb' && $device ne '' && $name eq $device)
		{
			$set{read_ahead} = $value;
		}
		else
		{
			next;
		}
		push @{ $set{applied} }, $setting . ($name eq '' ? '' : ":$name") . "=$value";
	}
	return undef unless @{ $set{applied} };
	$set{applied} = join('; ', @{ $set{applied} });
	return \%set;
}
my %advised = map { my $server = $_; map { ("$server->{name}\t$_->{name}" => advised_set($server, $_)) } @usable } @servers;

# (before 18: sync alone, the baseline; on 18, the advised set too where
# there is one)
sub methods_of
{
	my ($server, $st) = @_;
	return ('sync') if $server->{major} < 18;
	return (@methods, $advised{"$server->{name}\t$st->{name}"} ? ('advised') : ());
}

# A server's cells on storage $st: io_method x workload x clients,
# io_method first (a restart each).
sub cells_of
{
	my ($server, $st) = @_;
	return map { my $m = $_; map { my $w = $_; map { [ $m, $w, $_ ] } @clients } @workloads } methods_of($server, $st);
}
plan_cells($rounds * scalar(map { my $server = $_; map { cells_of($server, $_) } @usable } @servers));

my $runs = runs_open($runs_file, qw(server storage io_method workload clients round tps latency_ms p99_ms transactions
	  scan_seconds memory settings));
my $tmp = $PostgreSQL::Test::Utils::tmp_check;

# The latencies (us) of pgbench's per-transaction logs under $prefix
# (one file per thread), the files removed.
sub logged_latencies
{
	my ($prefix) = @_;
	my @us;
	for my $file (glob("$prefix.*"))
	{
		open my $fh, '<', $file or die "$file: $!\n";
		while (my $line = <$fh>)
		{
			my @f = split ' ', $line;
			push @us, $f[2] if @f >= 3 && $f[2] =~ /^\d+$/;
		}
		close $fh;
		unlink $file;
	}
	return sort { $a <=> $b } @us;
}

# The value at fraction $p of sorted @v.
sub at_fraction
{
	my ($p, @v) = @_;
	return '' unless @v;
	my $i = int($p * @v + 0.5) - 1;
	$i = 0 if $i < 0;
	$i = $#v if $i > $#v;
	return $v[$i];
}

# One run of $workload at $clients on $node, cold: its figures.
my $run_no = 0;
sub oltp_run
{
	my ($server, $node, $workload, $clients) = @_;
	$node->safe_psql('postgres',
		"SELECT uringprobe_reads(rel => r, passes => 0) FROM unnest(ARRAY['pgbench_accounts', 'pgbench_branches', "
		  . "'pgbench_tellers'" . (grep({ $_ eq 'mixed' } @workloads) ? ", 'oltp_scan'" : '') . "]::regclass[]) r");
	# (and the machine's dirty pages written back: the clusters run with
	# fsync off, so the run before's writes would be written back in this)
	settle_fs($node->data_dir);
	my $prefix = "$tmp/oltp_log_" . ++$run_no;
	my @cmd = ("$server->{bindir}/pgbench", '-n', '-T', $seconds, '-c', $clients, '-j', ($clients < 2 ? $clients : 2),
		'-l', "--log-prefix=$prefix", ($workload eq 'tpcb' ? ('-b', 'tpcb-like') : ('-b', 'select-only')),
		'-h', $node->host, '-p', $node->port, 'postgres');
	my ($scan, $scan_out, $scan_err) = (undef, '', '');
	if ($workload eq 'mixed')
	{
		# the scan begins as the clients do
		my $sql = "SET max_parallel_workers_per_gather = 0; SET enable_indexscan = off; SET enable_bitmapscan = off;\n"
		  . "\\timing on\nSELECT count(*) FROM oltp_scan;\n";
		$scan = IPC::Run::start([ $node->installed_command('psql'), '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d',
				$node->connstr('postgres') ],
			'<', \$sql, '>', \$scan_out, '2>', \$scan_err);
	}
	my ($out, $err) = bench_command([@cmd]);
	my $scan_seconds = '';
	if ($scan)
	{
		$scan->finish or die "$server->{name}: the mixed run's scan failed: $scan_err\n";
		($scan_seconds) = $scan_out =~ /^Time: ([\d.]+) ms/m;
		$scan_seconds = sprintf('%.3f', $scan_seconds / 1000);
	}
	my ($tps) = $out =~ /^tps = ([\d.]+)/m;
	die "$server->{name}: pgbench gave no tps:\n$out\n$err\n" unless defined $tps;
	my @us = logged_latencies($prefix);
	die "$server->{name}: pgbench logged no transaction\n" unless @us;
	my $mean = 0;
	$mean += $_ for @us;
	return { tps => sprintf('%.1f', $tps), latency_ms => sprintf('%.3f', $mean / @us / 1000),
		p99_ms => sprintf('%.3f', at_fraction(0.99, @us) / 1000), transactions => scalar(@us), scan_seconds => $scan_seconds };
}

# $node readied for a run of cell $m (an io_method, or advised) after one
# of cell $now: restarted into it where it changes (leaving the advised
# set: its settings reset), else the tables evicted from shared buffers
# (before 18: restarted every run). Returns the cell it now runs.
sub ready_cell
{
	my ($server, $node, $st, $m, $now, @tables) = @_;
	if ($server->{major} < 18)
	{
		$node->restart;
		return $m;
	}
	if ($now eq $m)
	{
		$node->safe_psql('postgres', 'SELECT ' . join(', ', map { "pg_buffercache_evict_relation('$_')" } @tables));
		return $m;
	}
	my $set = $advised{"$server->{name}\t$st->{name}"};
	if ($now eq 'advised')
	{
		$node->safe_psql('postgres', "ALTER SYSTEM RESET $_->[0]") for @{ $set->{system} };
		$node->safe_psql('postgres', 'ALTER TABLESPACE oltp RESET (' . join(', ', map { $_->[0] } @{ $set->{tablespace} }) . ')')
		  if @{ $set->{tablespace} };
		set_read_ahead($st, $read_ahead);
	}
	# (the advised set starts from what the advice did: worker, 3 workers)
	my ($method, $workers) = $m eq 'advised' ? ('worker', 3) : $m =~ /^(\w+)(?::(\d+))?$/;
	$node->append_conf('postgresql.conf', "io_method = $method\nio_workers = " . ($workers // 3) . "\n");
	if ($m eq 'advised')
	{
		$node->safe_psql('postgres', "ALTER SYSTEM SET $_->[0] = '$_->[1]'") for @{ $set->{system} };
		$node->safe_psql('postgres', 'ALTER TABLESPACE oltp SET (' . join(', ', map { "$_->[0] = $_->[1]" } @{ $set->{tablespace} }) . ')')
		  if @{ $set->{tablespace} };
		set_read_ahead($st, $set->{read_ahead}) if defined $set->{read_ahead};
		($method) = map { $_->[1] } grep { $_->[0] eq 'io_method' } @{ $set->{system} };
	}
	$node->restart;
	my $got = $node->safe_psql('postgres', 'SHOW io_method');
	die "io_method is '$got', expected '" . ($method // 'worker') . "'\n" unless $got eq ($method // 'worker');
	return $m;
}

my @table_rows;
for my $server (@servers)
{
	for my $st (@usable)
	{
		my ($node) = start_cluster(
			server => $server,
			io_method => (methods_of($server, $st))[0] =~ s/:\d+$//r,
			name => "bench_oltp_$server->{name}_$st->{name}",
			# (maintenance_work_mem small: the memory cgroup holds the
			# index build's too)
			settings => [ "shared_buffers = $shared_buffers", 'autovacuum = off', 'max_connections = 100',
				'maintenance_work_mem = 16MB', 'max_parallel_workers_per_gather = 0' ]);
		$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
		$node->safe_psql('postgres', 'CREATE EXTENSION pg_buffercache') if $server->{major} >= 18;
		my $dir = "$st->{dir}/oltp_$server->{name}";
		mkdir $dir or die "mkdir $dir: $!\n" unless -d $dir;
		$node->safe_psql('postgres', "CREATE TABLESPACE oltp LOCATION '$dir'");
		my ($out, $err) = bench_command([ "$server->{bindir}/pgbench", '-i', '-q', '-s', $scale, '--tablespace=oltp',
			'--index-tablespace=oltp', '-h', $node->host, '-p', $node->port, 'postgres' ]);
		create_read_table($node, 'oltp_scan', 'oltp', $scan_mb * $read_table_rows_per_mb) if grep { $_ eq 'mixed' } @workloads;
		$node->safe_psql('postgres', 'VACUUM ANALYZE; CHECKPOINT');
		my $data_mb = $node->safe_psql('postgres', "SELECT pg_tablespace_size('oltp') / 1048576");
		set_read_ahead($st, $read_ahead);
		my @cells = cells_of($server, $st);
		my @tables = ('pgbench_accounts', 'pgbench_accounts_pkey', 'pgbench_branches', 'pgbench_tellers',
			(grep({ $_ eq 'mixed' } @workloads) ? 'oltp_scan' : ()));
		my $now = '';
		my %values;
		repeat_rounds('oltp', [ map { join("\t", $server->{name}, $st->{name}, @$_) } @cells ], $rounds, sub {
			my ($id, $round, $label) = @_;
			my (undef, undef, $m, $w, $c) = split /\t/, $id;
			cell("oltp $server->{name} $st->{name} $m $w clients=$c, $label",
				server => $server->{name}, storage => $st->{name}, io_method => $m, workload => $w, clients => $c);
			$now = ready_cell($server, $node, $st, $m, $now, @tables);
			my $r = oltp_run($server, $node, $w, $c);
			run_row($runs, $server->{name}, $st->{name}, $m, $w, $c, $round, @$r{qw(tps latency_ms p99_ms transactions scan_seconds)},
				"$memory; data $data_mb MB", $m eq 'advised' ? $advised{"$server->{name}\t$st->{name}"}{applied} : '');
			push @{ $values{$id}{$_} }, $r->{$_} for qw(tps latency_ms p99_ms scan_seconds);
			# (repeat_rounds: time per transaction, lower is better)
			return { ms_per_transaction => 1000 / $r->{tps}, p99_ms => $r->{p99_ms} };
		});
		$node->stop;
		set_read_ahead($st, $read_ahead);
		for my $cell (@cells)
		{
			my ($m, $w, $c) = @$cell;
			my $v = $values{ join("\t", $server->{name}, $st->{name}, @$cell) } or next;
			my $base = $values{ join("\t", $server->{name}, $st->{name}, 'worker', $w, $c) };
			my ($tps_ci, $p99_ci) = ('', '');
			my ($tps_vs, $p99_vs) = ('', '');
			if ($base && $m ne 'worker')
			{
				($tps_ci) = ratio_interval($v->{tps}, $base->{tps});
				($p99_ci) = ratio_interval($v->{p99_ms}, $base->{p99_ms});
				$tps_vs = sprintf('%.2f', median(@{ $v->{tps} }) / median(@{ $base->{tps} }));
				$p99_vs = sprintf('%.2f', median(@{ $v->{p99_ms} }) / median(@{ $base->{p99_ms} }));
			}
			my @scan = grep { $_ ne '' } @{ $v->{scan_seconds} };
			push @table_rows, [ $server->{name}, $st->{name}, $w, $c, $m, scalar(@{ $v->{tps} }), median(@{ $v->{tps} }),
				$tps_vs, $tps_ci, median(@{ $v->{p99_ms} }), $p99_vs, $p99_ci, median(@{ $v->{latency_ms} }),
				@scan ? median(@scan) : '', "$data_mb MB", $page_cache,
				$m eq 'advised' ? $advised{"$server->{name}\t$st->{name}"}{applied} : '' ];
		}
	}
}
my $table = tsv_open($table_file, qw(server storage workload clients io_method runs tps tps_vs_worker tps_vs_worker_ci95
	  p99_ms p99_vs_worker p99_vs_worker_ci95 latency_ms scan_seconds data page_cache settings));
tsv_row($table, @$_) for @table_rows;
close $table;
print "$_->{name}: $_->{status}\n" for grep { $_->{status} ne 'ok' } @storage;
print "page cache: $memory\n";
for my $server (grep { $_->{major} >= 18 } @servers)
{
	print "$server->{name} on $_->{name}: no advised set (the advise benchmark did not run in this results directory, "
	  . "or changed nothing that bears here)\n" for grep { !$advised{"$server->{name}\t$_->{name}"} } @usable;
}
