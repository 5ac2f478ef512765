# What io_uring buys: PostgreSQL's own read paths, cold, under each
# io_method, on each storage kind tools/storage made (the machine's disk,
# devices that make every request wait, an IOPS-capped one), beside the
# device's ceiling measured in the same run.
#
# Per server (URINGPROBE_READS_SERVERS; PostgreSQL 15: sync alone, the
# pre-AIO baseline) one cluster, shared_buffers 128 MB (the default),
# parallel query off, autovacuum off; per storage kind a tablespace on it
# holding table t (URINGPROBE_READS_TABLE_MB, random r, indexes on r and
# id). Each run: the relation and its indexes evicted from shared buffers
# (pg_buffercache_evict_relation, 18) or the server restarted (15), the
# table's pages dropped from the page cache (uringprobe_reads(rel, passes
# => 0): what stays resident is recorded), then the workload timed:
#   seqscan  SELECT count(*) FROM t, a sequential scan (a read stream)
#   bitmap   a bitmap heap scan of 0.1% of rows, placed at random
#            (bitmap:P: P% of them)
#   index    an index scan of 10% of rows in id order: the control,
#            PostgreSQL 18 does not read ahead for it
#   prewarm  pg_prewarm('t') (its own read stream)
#   vacuum   VACUUM t after 10% of its rows were updated in place (each
#            page keeps room for them: every workload reads the same pages)
#   concurrent  8 sessions at once, each a sequential scan of a table of
#            its own (an eighth of t each): their wall time
# io_method takes turns in every round (a restart each): sync, worker
# (io_workers 3; worker:N for N), io_uring. Every workload runs at the
# first value of each other axis (the device's read_ahead_kb,
# effective_io_concurrency, io_combine_limit, cache, debug_io_direct); the
# cold seqscan on the first storage that adds latency (else the first one)
# also at each other value of one axis at a time. Per run: seconds, MB/s,
# EXPLAIN's shared blocks read and hit (the cold check: a cold seqscan reads
# every block and hits none), what pg_stat_io counted for the session's
# relation reads (18: reads, bytes, read_time), the AIO handles in flight
# sampled every 2 ms from pg_aios (mean and max), the backend's and the io
# workers' CPU, the commonest wait event. The table: each io_method's speedup over sync
# (same server, storage, workload) with its 95% bootstrap interval, and
# MB/s as a share of the device's ceiling: fio (io_uring engine, direct,
# 128 kB sequential reads at depth 16) on the same storage, in the same run,
# beside uringprobe-cli reads at that depth.
#
#   perl bench/reads.pl RUNS.tsv TABLE.tsv CEILING.tsv SPEEDUP.tsv
# SPEEDUP.tsv: the cold seqscan's speedup over sync per io_method against
# the latency each storage adds (0: the machine's disk; capped storage
# left out), at the first value of every other axis: the plot's data.
# Environment: URINGPROBE_READS_STORAGE ("disk latency:1 latency:0.2
# capped:500": tools/storage's kinds), URINGPROBE_READS_IO_METHODS ("sync
# worker worker:8 io_uring"), URINGPROBE_READS_WORKLOADS, URINGPROBE_READS_TABLE_MB
# (256), URINGPROBE_READS_ROUNDS (5), URINGPROBE_READS_SERVERS
# ("pg18-combined pg15"; none of them set up: the newest server there is),
# URINGPROBE_STORAGE_LIST (tools/storage's list).
use strict;
use warnings;
use IPC::Run ();
use JSON::PP ();
use PostgreSQL::Test::Utils;
use Time::HiRes ();
use Uringprobe::BenchScript;
use Uringprobe::Manifest qw(setting);
use Uringprobe::Cluster;
use Uringprobe::Reads;

my ($runs_file, $table_file, $ceiling_file, $speedup_file) = @ARGV;
die "usage: reads.pl RUNS.tsv TABLE.tsv CEILING.tsv SPEEDUP.tsv\n" unless $speedup_file;
my @kinds = split ' ', setting('URINGPROBE_READS_STORAGE');
my @methods = split ' ', setting('URINGPROBE_READS_IO_METHODS');
my @workloads = split ' ', setting('URINGPROBE_READS_WORKLOADS');
my $table_mb = setting('URINGPROBE_READS_TABLE_MB');
my $rounds = setting('URINGPROBE_READS_ROUNDS');
my @read_aheads = split ' ', setting('URINGPROBE_READS_READ_AHEAD');
my @eics = split ' ', setting('URINGPROBE_READS_EIC');
my @combines = split ' ', setting('URINGPROBE_READS_COMBINE');
my @caches = split ' ', setting('URINGPROBE_READS_CACHE');
my @directs = split ' ', setting('URINGPROBE_READS_DIRECT');
for (@directs) { die "URINGPROBE_READS_DIRECT: '$_' is neither off nor data\n" unless /^(off|data)$/; }
for (@eics) { die "URINGPROBE_READS_EIC: '$_' is not a whole number\n" unless /^\d+$/; }
for (@combines) { die "URINGPROBE_READS_COMBINE: '$_' is not 8kB..1MB (e.g. 128kB, 1MB)\n" unless /^(\d+kB|1MB)$/; }
for (@caches) { die "URINGPROBE_READS_CACHE: '$_' is neither cold nor os\n" unless /^(cold|os)$/; }
for (@read_aheads) { die "URINGPROBE_READS_READ_AHEAD: '$_' is neither a number of kB nor default\n" unless /^(\d+|default)$/; }
my %known_workload = map { $_ => 1 } qw(seqscan bitmap index prewarm vacuum concurrent);
# bitmap:P: the bitmap heap scan of P% of the rows (bitmap: 0.1%)
sub bitmap_percent { my ($w) = @_; return $w eq 'bitmap' ? 0.1 : $w =~ /^bitmap:(\d+(?:\.\d+)?)$/ && $1 > 0 && $1 <= 100 ? $1 : undef; }
# concurrent: this many sessions, each scanning a table of its own
my $concurrent = 8;
for (@workloads)
{
	die "URINGPROBE_READS_WORKLOADS: unknown workload '$_' (bitmap:P takes a percentage, 0 < P <= 100)\n"
	  unless $known_workload{$_} || defined bitmap_percent($_);
}
for (@methods) { die "URINGPROBE_READS_IO_METHODS: unknown io_method '$_'\n" unless /^(sync|worker(:\d+)?|io_uring)$/; }
die "URINGPROBE_READS_TABLE_MB must be a whole number of MB, at least 8, got '$table_mb'\n"
  unless $table_mb =~ /^\d+$/ && $table_mb >= 8;

my @storage = storage_asked(@kinds);
# a capped storage caps only processes in its cgroup: one this user cannot
# put its processes into is not measured (cgroup v2 without delegation)
for my $st (grep { $_->{status} eq 'ok' && ($_->{cgroup} // '') ne '' } @storage)
{
	$st->{status} = "unavailable: this user cannot put processes into its cgroup $st->{cgroup}"
	  unless -w "$st->{cgroup}/cgroup.procs";
}
my @usable = grep { $_->{status} eq 'ok' } @storage;

my @servers = servers_named(setting('URINGPROBE_READS_SERVERS'));
sub methods_of { my ($server) = @_; return $server->{major} >= 18 ? @methods : ('sync'); }
# The cells, io_methods side by side: every workload on every storage at
# the first value of each other axis; the cold seqscan on the storage the
# axes are varied on also at each other value of one axis at a time (every
# combination would be hundreds of cells). io_combine_limit and
# debug_io_direct are PostgreSQL 18's here (15 takes the first value).
my ($axes_storage) = ((grep { $_->{name} =~ /^latency-/ } @usable), @usable);
my %first = (ra => $read_aheads[0], eic => $eics[0], combine => $combines[0], cache => $caches[0], direct => $directs[0]);
my @cells;
for my $server (@servers)
{
	my %values = (ra => \@read_aheads, eic => \@eics, cache => \@caches,
		$server->{major} >= 18 ? (combine => \@combines, direct => \@directs) : ());
	for my $m (methods_of($server))
	{
		for my $st (@usable)
		{
			push @cells, map { +{ server => $server, m => $m, st => $st, %first, workload => $_ } }
			  grep { $_ ne 'prewarm' || $server->{major} >= 18 } @workloads;
			next unless $st == $axes_storage && grep { $_ eq 'seqscan' } @workloads;
			for my $axis (qw(ra eic combine cache direct))
			{
				push @cells, map { +{ server => $server, m => $m, st => $st, %first, $axis => $_, workload => 'seqscan' } }
				  grep { $_ ne $first{$axis} } @{ $values{$axis} // [] };
			}
		}
	}
}
plan_cells($rounds * @cells + scalar(@usable));

my $runs = runs_open($runs_file,
	qw(server io_method storage read_ahead read_ahead_kb eic io_combine_limit cache direct workload round seconds mb_per_sec shared_read
	  shared_hit io_reads io_read_mb io_read_ms relpages resident_before aio_mean aio_max backend_cpu_ms workers_cpu_ms wait_event));
my $ceiling = tsv_open($ceiling_file, qw(storage how read_ahead_kb tool pattern block_kb depth mb_per_sec status));

# The storage's read_ahead_kb now (the device's queue, or its disk's).
sub read_ahead_of
{
	my ($st) = @_;
	return '' unless ($st->{device} // '') =~ /^\d+:\d+$/;
	for my $q ("/sys/dev/block/$st->{device}/queue", "/sys/dev/block/$st->{device}/../queue")
	{
		my $v = eval { slurp_file("$q/read_ahead_kb") };
		return $v =~ s/\s+//gr if defined $v;
	}
	return '';
}

# The device's ceiling: fio and uringprobe-cli reads, direct, 128 kB
# sequential at depth 1 and 16, and 8 kB random at 16. Like for like: each
# reads the same file once, whole (fio not time-based, which would read it
# again and again for a fixed time). The file is 128 MB (the table's size
# where smaller): a thousand reads of 128 kB, sixteen thousand of 8 kB,
# enough for a device's rate; the 512 MB table's size took the 1 ms
# device 54 s of a quick profile's 8 minutes.
my $ceiling_mb = $table_mb < 128 ? $table_mb : 128;
my ($cli_server) = sort { $b->{major} <=> $a->{major} } servers();
my $fio = -x '/usr/bin/fio' ? '/usr/bin/fio' : '';
for my $st (@storage)
{
	if ($st->{status} ne 'ok')
	{
		tsv_row($ceiling, $st->{name}, '', '', '', '', '', '', '', $st->{status});
		next;
	}
	cell("reads: the ceiling of $st->{name}", storage => $st->{name}, what => 'ceiling');
	set_read_ahead($st, $read_aheads[0]);
	my $ra = read_ahead_of($st);
	my $file = "$st->{dir}/ceiling.fio";
	for my $c ([ 'sequential', 128, 1 ], [ 'sequential', 128, 16 ], [ 'random', 8, 16 ])
	{
		my ($pattern, $kb, $depth) = @$c;
		if ($fio)
		{
			my ($out, $err) = bench_command([ capped_command($st, $fio, '--name=ceiling', "--filename=$file", "--size=${ceiling_mb}M",
				'--rw=' . ($pattern eq 'random' ? 'randread' : 'read'), "--bs=${kb}k", '--direct=1',
				'--ioengine=io_uring', "--iodepth=$depth", '--loops=1', '--output-format=json') ]);
			my $j = eval { JSON::PP::decode_json($out) };
			my $bw = $j ? $j->{jobs}[0]{read}{bw_bytes} : undef;
			tsv_row($ceiling, $st->{name}, $st->{how}, $ra, 'fio', $pattern, $kb, $depth,
				defined $bw ? sprintf('%.1f', $bw / 1e6) : '', defined $bw ? 'ok' : "fio failed: $err" =~ s/\s+/ /gr);
		}
		else
		{
			tsv_row($ceiling, $st->{name}, $st->{how}, $ra, 'fio', $pattern, $kb, $depth, '', 'fio is not installed');
		}
		my $r = eval {
			cli_row(capped_command($st, "$cli_server->{bindir}/uringprobe-cli"), 'reads', '--file', $file, '--method',
				$depth > 1 ? 'io_uring' : 'sync', '--in-flight', $depth, '--pattern', $pattern, '--block-kb', $kb,
				'--direct', '--passes', 1);
		};
		tsv_row($ceiling, $st->{name}, $st->{how}, $ra, 'uringprobe-cli reads', $pattern, $kb, $depth,
			$r ? sprintf('%.1f', $r->{mb_per_sec}) : '', $r ? $r->{status} : "failed: $@" =~ s/\s+/ /gr);
	}
	unlink $file;
}

# One cluster per server; per storage a tablespace with the table.
my %node;
my %pages;    # server -> table -> its pages as made: no workload changes them
for my $server (@servers)
{
	# PostgreSQL's default shared_buffers: a read stream may pin only its
	# backend's share of them (shared_buffers / max_connections and the
	# auxiliary processes), which caps the reads it keeps in flight; with
	# 16 MB that share held one 128 kB read at a time
	my ($node) = start_cluster(server => $server, name => "reads_$server->{name}",
		settings => [ 'shared_buffers = 128MB', 'max_parallel_workers_per_gather = 0', 'autovacuum = off',
			'track_io_timing = on', 'max_wal_size = 4GB', $server->{major} >= 18 ? ("io_max_combine_limit = '1MB'") : () ]);
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe; CREATE EXTENSION pg_buffercache');
	$node->safe_psql('postgres', 'CREATE EXTENSION pg_prewarm') if $server->{major} >= 18;
	my $rows = $table_mb * $read_table_rows_per_mb;
	for my $st (@usable)
	{
		my $ts = "ts_$st->{name}" =~ s/[^a-z0-9_]/_/gr;
		my $loc = "$st->{dir}/$server->{name}";
		mkdir $loc;
		$node->safe_psql('postgres', "CREATE TABLESPACE $ts LOCATION '$loc'");
		my $t = "t_$ts";
		create_read_table($node, $t, $ts, $rows);
		$pages{ $server->{name} }{$t} = $node->safe_psql('postgres', "SELECT pg_relation_size('$t') / 8192");
		next unless grep { $_ eq 'concurrent' } @workloads;
		my $each = int($rows / $concurrent);
		$node->safe_psql('postgres',
			join('',
				map { "CREATE TABLE ${t}_c$_ WITH (fillfactor = 85) TABLESPACE $ts AS SELECT * FROM $t WHERE id <= $each;" }
				  1 .. $concurrent)
			  . "VACUUM ANALYZE; CHECKPOINT;");
	}
	join_caps($node);
	$node{ $server->{name} } = { node => $node, io_method => '', direct => '', rows => $rows };
}

# The io_method of $server's cluster, restarted into it where it differs.
# The cluster's processes put into the cgroup of each capped storage (an
# I/O cap of a cgroup applies to its processes' requests to that device):
# after every start, since a restarted server's processes are new.
my @capped = grep { ($_->{cgroup} // '') ne '' } @usable;
sub join_caps
{
	my ($node) = @_;
	return unless @capped;
	my $pm = postmaster_pid($node);
	my @pids = ($pm, map { split ' ', (eval { slurp_file($_) } // '') } glob("/proc/$pm/task/*/children"));
	for my $st (@capped)
	{
		for my $pid (@pids)
		{
			open my $fh, '>', "$st->{cgroup}/cgroup.procs" or die "cannot join $st->{cgroup}: $!\n";
			print $fh "$pid\n";
			close $fh or die "cannot put pid $pid into $st->{cgroup}: $!\n";
		}
	}
	return;
}
# A command that joins storage $st's cgroup first, where it has one.
sub capped_command
{
	my ($st, @cmd) = @_;
	return @cmd unless ($st->{cgroup} // '') ne '';
	return ('sh', '-c', 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"', 'sh', $st->{cgroup}, @cmd);
}

# $server's cluster under io_method $m and debug_io_direct $direct (off,
# or data: relation files opened with O_DIRECT, no page cache),
# restarted into them where they differ (PostgreSQL 18 only).
sub use_config
{
	my ($server, $m, $direct) = @_;
	my $c = $node{ $server->{name} };
	return $c->{node} if "$c->{io_method}/$c->{direct}" eq "$m/$direct" || $server->{major} < 18;
	my ($method, $workers) = $m =~ /^worker(?::(\d+))?$/ ? ('worker', $1 // 3) : ($m, 3);
	my $io_direct = $direct eq 'data' ? 'data' : '';
	$c->{node}->append_conf('postgresql.conf', "io_method = $method\nio_workers = $workers\ndebug_io_direct = '$io_direct'\n");
	$c->{node}->restart;
	join_caps($c->{node});
	my $got = $c->{node}->safe_psql('postgres', 'SHOW io_method') . '/' . $c->{node}->safe_psql('postgres', 'SHOW debug_io_direct');
	die "io_method/debug_io_direct is '$got', expected '$method/$io_direct'\n" unless $got eq "$method/$io_direct";
	@$c{qw(io_method direct)} = ($m, $direct);
	return $c->{node};
}

# CPU ms (user + system) of process $pid so far, from /proc.
sub cpu_ms
{
	my ($pid) = @_;
	my $stat = eval { slurp_file("/proc/$pid/stat") } // return 0;
	my @f = split ' ', $stat =~ s/^.*\) //sr;
	return ($f[11] + $f[12]) * 1000 / 100;    # utime, stime in clock ticks
}

# Each workload's plan made certain: no index-only scan (the table is all
# visible: count(*) would read an index instead), and a column of every
# row fetched (a bitmap heap scan skips all-visible pages it need not read).
my %workload_sql = (
	seqscan => [ $seqscan_only,
		'SELECT count(*) FROM %t' ],
	bitmap => [ 'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off;',
		'SELECT count(pad) FROM %t WHERE r < %r' ],
	index => [ $indexscan_only,
		'SELECT count(pad) FROM %t WHERE id <= %n' ],
	prewarm => [ '', q{SELECT pg_prewarm('%t')} ],
	vacuum => [ '', 'VACUUM %t' ],
	concurrent => [ '', '' ],    # concurrent_scans() runs them
);

# One run of $workload on $server's table on storage $st: its figures.
sub run_once
{
	my ($c, $round) = @_;
	my ($server, $m, $st, $ra, $workload) = @$c{qw(server m st ra workload)};
	my $node = use_config($server, $m, $c->{direct});
	set_read_ahead($st, $ra);
	my $t = "t_ts_$st->{name}" =~ s/[^a-z0-9_]/_/gr;
	my $n = int($node{ $server->{name} }{rows} / 10);
	# every workload reads the table as it was made: VACUUM's updates stay
	# on their pages (else which layout a run found would depend on how
	# many VACUUM runs came before it, and io_methods taking turns in a
	# fixed order would each find one of them)
	my $pages = $node->safe_psql('postgres', "SELECT pg_relation_size('$t') / 8192");
	die "$t has $pages pages, $pages{ $server->{name} }{$t} as made: a workload changed its layout\n"
	  unless $pages == $pages{ $server->{name} }{$t};
	update_in_place($node, $t) if $workload eq 'vacuum';
	# cold: out of shared buffers (or a restart before 18), out of the page
	# cache; os: in the page cache, out of shared buffers (what a restarted
	# server finds on a machine that read it lately). The concurrent scans'
	# tables each so, their pages summed.
	if ($server->{major} < 18)
	{
		$node->restart;
		join_caps($node);
	}
	my @tables = $workload eq 'concurrent' ? map { "${t}_c$_" } 1 .. $concurrent : ($t);
	my ($resident, $relpages) = (0, 0);
	for my $rel (@tables)
	{
		my $left = make_cold($node, $server->{major}, $rel, $rel eq $t ? ("${t}_r", "${t}_id") : ());
		($left) = split /\|/,
		  $node->safe_psql('postgres', "SELECT resident_before FROM uringprobe_reads(rel => '$rel', cache => 'warm', passes => 0)")
		  if $c->{cache} eq 'os';
		$resident += $left;
		$relpages += $node->safe_psql('postgres', "SELECT pg_relation_size('$rel') / 8192");
	}
	$node->safe_psql('postgres', 'CHECKPOINT');
	my @workers = $server->{major} >= 18 && $m =~ /^worker/
	  ? split(/\n/, $node->safe_psql('postgres', "SELECT pid FROM pg_stat_activity WHERE backend_type = 'io worker'"))
	  : ();
	my $percent = bitmap_percent($workload);
	my ($setup, $sql) = @{ $workload_sql{ defined $percent ? 'bitmap' : $workload } };
	$setup = "SET effective_io_concurrency = $c->{eic}; "
	  . ($server->{major} >= 18 ? "SET io_combine_limit = '$c->{combine}'; " : '') . $setup;
	$sql =~ s/%t/$t/g;
	$sql =~ s/%n/$n/g;
	# r is uniform over 0 .. 2^20 - 1: P% of the rows have r below this
	$sql =~ s/%r/int(1048576 * $percent \/ 100 + 0.5)/e if defined $percent;
	# pg_aios sampled every 2 ms from another session while the statement
	# runs (one statement: not the concurrent scans)
	my $sampler = $server->{major} >= 18 && $workload ne 'concurrent' ? start_aios_sampler($node) : undef;
	my $workers_cpu0 = 0;
	$workers_cpu0 += cpu_ms($_) for @workers;
	my $r = eval {
		$workload eq 'concurrent'
		  ? concurrent_scans($node, $setup, @tables)
		  : measured_run($node, $setup, $sql, $workload ne 'vacuum', $server->{major});
	};
	my $failed = $@;
	my $workers_cpu = 0;
	$workers_cpu += cpu_ms($_) for @workers;
	my $aios = $sampler ? finish_aios_sampler($sampler) : {};
	die "$workload on $st->{name} ($server->{name}, $m) failed: $failed" unless $r;
	ran("psql -d postgres <<'EOF'\n$r->{script}\nEOF");
	my ($seconds, $read, $hit) = @$r{qw(seconds read hit)};
	my $bytes = $workload eq 'concurrent' ? $relpages * 8192 : $read ne '' ? $read * 8192 : '';
	my $mb = $bytes ne '' && $seconds > 0 ? sprintf('%.1f', $bytes / 1e6 / $seconds) : '';
	my @row = ($server->{name}, $m, $st->{name}, $ra, read_ahead_of($st), $c->{eic}, $c->{combine}, $c->{cache},
		$c->{direct}, $workload, $round, sprintf('%.4f', $seconds), $mb, $read, $hit, $r->{io_reads} // '',
		($r->{io_read_bytes} // '') eq '' ? '' : sprintf('%.1f', $r->{io_read_bytes} / 1e6), $r->{io_read_ms} // '',
		$relpages, $resident, $aios->{mean} // '', $aios->{max} // '',
		$r->{backend_cpu_ms}, @workers ? $workers_cpu - $workers_cpu0 : '', $aios->{wait} // '');
	run_row($runs, @row);
	return { seconds => $seconds };
}

# $concurrent sessions started together, each scanning one of @tables
# (count(*), a sequential scan) after $setup: { seconds (the last to end),
# read, hit '' (no EXPLAIN), backend_cpu_ms '', script }.
sub concurrent_scans
{
	my ($node, $setup, @tables) = @_;
	my $scan = $seqscan_only;
	my @h;
	my $t0 = Time::HiRes::time;
	for my $rel (@tables)
	{
		my ($out, $err) = ('', '');
		push @h, [ IPC::Run::start([ $node->installed_command('psql'), '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d',
					$node->connstr('postgres'), '-c', "$setup $scan SELECT count(*) FROM $rel" ], '<', \undef, '>', \$out,
				'2>', \$err), \$err ];
	}
	my @failed = grep { !$_->[0]->finish } @h;
	my $seconds = Time::HiRes::time - $t0;
	die join('; ', map { ${ $_->[1] } } @failed) . "\n" if @failed;
	return { seconds => $seconds, read => '', hit => '', backend_cpu_ms => '',
		script => join("\n", map { "$setup $scan SELECT count(*) FROM $_; -- at once" } @tables) };
}

sub cell_id
{
	my ($c, %as) = @_;
	my %v = (%$c, %as);
	return join('/', $v{server}{name}, $v{m}, $v{st}{name}, "ra $v{ra}", "eic $v{eic}", "combine $v{combine}", $v{cache},
		"direct $v{direct}", $v{workload});
}
my %cell_of = map { (cell_id($_) => $_) } @cells;
repeat_rounds('reads', [ map { cell_id($_) } @cells ], $rounds, sub {
	my ($id, $round, $label) = @_;
	my $c = $cell_of{$id};
	cell("reads $id, $label", server => $c->{server}{name}, io_method => $c->{m}, storage => $c->{st}{name},
		read_ahead => $c->{ra}, eic => $c->{eic}, io_combine_limit => $c->{combine}, cache => $c->{cache},
		direct => $c->{direct}, workload => $c->{workload});
	return run_once($c, $round);
});
$_->{node}->stop for values %node;

# The table: per cell its median, speedup over sync with its interval, MB/s
# against the ceiling.
my %ceiling_mb;
if (open my $c, '<', $ceiling_file)
{
	<$c>;
	while (<$c>)
	{
		chomp;
		my @f = split /\t/, $_, -1;
		$ceiling_mb{ $f[0] } = $f[7] if $f[3] eq 'fio' && $f[4] eq 'sequential' && $f[6] == 16 && $f[7] ne '';
	}
}
my %runs_of;    # id -> [rows]
if (open my $r, '<', $runs_file)
{
	my @h = split /\t/, scalar(<$r>) =~ s/\n//r;
	while (my $line = <$r>)
	{
		chomp $line;
		my %row;
		@row{@h} = split /\t/, $line, -1;
		push @{ $runs_of{ join('/', $row{server}, $row{io_method}, $row{storage}, "ra $row{read_ahead}", "eic $row{eic}",
					"combine $row{io_combine_limit}", $row{cache}, "direct $row{direct}", $row{workload}) } }, \%row;
	}
}
my $speedup = tsv_open($speedup_file, qw(storage latency_ms io_method vs_sync lo hi));
my $table = tsv_open($table_file,
	qw(server storage read_ahead_kb eic io_combine_limit cache direct workload io_method runs seconds vs_sync vs_sync_ci95 verdict
	  mb_per_sec ceiling_share io_reads io_read_mb io_read_ms aio_mean aio_max backend_cpu_ms workers_cpu_ms wait_event cold));
for my $st (grep { $_->{status} ne 'ok' } @storage)
{
	tsv_row($table, '', $st->{name}, ('') x 6, '', 0, '', '', '', $st->{status}, ('') x 11);
}
for my $c (@cells)
{
	my ($server, $m, $st, $workload) = @$c{qw(server m st workload)};
	my $id = cell_id($c);
	my @rows = @{ $runs_of{$id} // [] };
	my @s = map { $_->{seconds} } @rows;
	my $sync = [ map { $_->{seconds} } @{ $runs_of{ cell_id($c, m => 'sync') } // [] } ];
	# sync's median over this one's: the speedup, with its interval
	my ($ci, $verdict) = $m eq 'sync' ? ('', '') : ratio_interval($sync, \@s);
	my %waits;
	$waits{ $_->{wait_event} }++ for grep { $_->{wait_event} ne '' } @rows;
	my ($wait) = sort { $waits{$b} <=> $waits{$a} || $a cmp $b } keys %waits;
	my $med = median(@s);
	my $mb = median(map { $_->{mb_per_sec} } @rows);
	# cold: nothing resident in the page cache (os: all of it); a seqscan
	# read every block, hit none
	my @warm = $c->{cache} eq 'os' ? grep { $_->{resident_before} < $_->{relpages} * 2 } @rows
	  : grep { $_->{resident_before} ne '0' } @rows;
	# (and where pg_stat_io counts the session's reads: it read the
	# table's bytes)
	my @partial = $workload eq 'seqscan'
	  ? grep {
		$_->{shared_read} eq '' || $_->{shared_read} < 0.99 * $_->{relpages}
		  || ($_->{io_read_mb} ne '' && $_->{io_read_mb} < 0.99 * $_->{relpages} * 8192 / 1e6)
	  } @rows
	  : ();
	my $cold = @warm ? scalar(@warm) . ($c->{cache} eq 'os' ? ' runs started without all pages cached' : ' runs started with pages cached')
	  : @partial ? scalar(@partial) . ' runs read less than the table' : 'yes';
	my $latency = $st->{name} eq 'disk' ? 0 : $st->{name} =~ /^latency-([\d.]+)ms$/ ? $1 : undef;
	if ($m ne 'sync' && $workload eq 'seqscan' && $ci ne '' && defined $latency && $server == $servers[0]
		&& !grep({ $c->{$_} ne $first{$_} } keys %first) && $c->{cache} eq 'cold')
	{
		tsv_row($speedup, $st->{name}, $latency, $m, sprintf('%.3f', median(@$sync) / median(@s)), split /-/, $ci);
	}
	tsv_row($table, $server->{name}, $st->{name}, median(map { $_->{read_ahead_kb} } @rows), $c->{eic}, $c->{combine},
		$c->{cache}, $c->{direct}, $workload, $m, scalar(@s),
		$med eq '' ? '' : sprintf('%.3f', $med),
		$m eq 'sync' || !@$sync || $med eq '' || !$med ? '' : sprintf('%.2f', median(@$sync) / $med),
		$ci, $verdict,
		$mb, $mb ne '' && $ceiling_mb{ $st->{name} } ? sprintf('%.2f', $mb / $ceiling_mb{ $st->{name} }) : '',
		map({ my $k = $_; median(map { $_->{$k} } @rows) } qw(io_reads io_read_mb io_read_ms)),
		median(map { $_->{aio_mean} } @rows), median(map { $_->{aio_max} } @rows),
		median(map { $_->{backend_cpu_ms} } @rows), median(map { $_->{workers_cpu_ms} } @rows),
		$wait // '', $cold);
}
