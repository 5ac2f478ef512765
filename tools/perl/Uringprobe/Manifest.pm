# The benchmarks of make bench, each declared once: its script, the files
# it writes (in the order the script takes them), how the report tells its
# cells apart and which metrics it compares, the tables and plots it shows
# with their captions, and its variables with their defaults in each
# profile. The driver (tools/run-bench through bench/manifest.pl), the
# report, results.csv, the findings, tools/check-results and the tests
# read this; docs/benchmarks.md is held to it by t/014.
#
# Adding a benchmark: a declaration here, its script in bench/, its tests.
#
# A declaration:
#   name, script, title (the report's section), report (the finding it
#   feeds: 1-4 the upstream reports, 5 what io_uring buys; the findings
#   are drawn from the benchmarks that ran with it), on_request (run
#   only when named)
#   files: [{ id, file, runs (its rows are runs: { key => [columns naming
#     a cell], metrics => [[metric, 'lower'|'higher'], ...], name => the
#     spread table's name where not the benchmark's }), table (shown: {
#     caption, width }), terminal (printed, not in the report: { caption,
#     width, columns (those printed, where not all) }), sparse (may
#     hold no row: a comparison that needs two configurations) }]
#   shown: the ids of its tables in the order the report shows them (where
#   not the files' order)
#   plots: [{ name, gp (bench/<gp>.gp, default name), vars => sub (RESULTS
#     dir) -> (name => value, ...): gnuplot's variables, quoted by plot_vars }]
#   variables: [[name, default, help, { quick => v, full => v, tiny => v }]]
#   (the full URINGPROBE_ name; the default: what a profile that does not
#   set it leaves)
# A caption may name variables in braces, {URINGPROBE_...}: their values
# in this run.
package Uringprobe::Manifest;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT_OK = qw(benchmarks benchmark names file_of setting runs_specs profiles profile_settings
  caption_text plot_vars gnuplot_assignments variables docs_mismatches heading cell_key);

# The distinct values of a TSV file's column $col (or of columns @$col,
# joined by '/'), in order, of the rows $where accepts: what a plot's
# variables take from what ran.
sub column_values
{
	my ($file, $col, $where) = @_;
	open my $fh, '<', $file or return ();
	<$fh>;
	my (@v, %seen);
	while (my $line = <$fh>)
	{
		chomp $line;
		my @f = split /\t/, $line, -1;
		next if $where && !$where->(@f);
		my $v = ref $col ? join('/', @f[@$col]) : $f[$col];
		push @v, $v unless $seen{$v}++;
	}
	return @v;
}

sub header_columns
{
	my ($file) = @_;
	open my $fh, '<', $file or return 0;
	my $h = <$fh> // '';
	chomp $h;
	return scalar(split /\t/, $h, -1);
}

my @benchmarks = (
	{
		name => 'advise',
		script => 'bench/advise.pl',
		title => "what uringprobe_advise() says on each server",
		files => [
			{
				id => 'advice',
				file => 'advise.tsv',
				terminal => {
					caption =>
					  "uringprobe_advise() on each server (report.md opens with it, the prose and figures behind each row beside it):",
					width => 24,
					columns => [qw(server setting scope_name current action value confidence decided_by ratio)]
				}
			},
			# each advice row's workload, under the advised value and the other
			# (none where no row advises a setting to check: PostgreSQL 15 alone)
			{
				id => 'checks',
				file => 'advise-checks.tsv',
				sparse => 1,
				runs => { key => [qw(server setting scope_name value)], metrics => [ [ seconds => 'lower' ] ], name => 'advise-checks' }
			},
			# the storage each tablespace the advise cluster made is on
			{ id => 'tablespaces', file => 'advise-tablespaces.tsv', sparse => 1 },
		],
		variables => [
			[ URINGPROBE_ADVISE_BUDGET => 20, 'seconds each server\'s call may take', { quick => 12, full => 40, tiny => 1 } ],
			[ URINGPROBE_ADVISE_CONNECTIONS => 950, 'max_connections of every server advised', { tiny => 20 } ],
			[ URINGPROBE_ADVISE_CONCURRENCY => 4, 'sessions extending one relation at once' ],
			[ URINGPROBE_ADVISE_FS => 'xfs ext4', 'scratch filesystems given a tablespace each', { quick => 'xfs', tiny => 'ext4' } ],
			[ URINGPROBE_ADVISE_CHECK_ROUNDS => 3, 'rounds of each advice row\'s workload, per value', { tiny => 2 } ],
			[ URINGPROBE_ADVISE_CHECK_COPY_MB => 64, 'MB copied by each check of file_extend_method', { quick => 32, tiny => 8 } ],
			[ URINGPROBE_ADVISE_CHECK_TABLE_MB => 256, 'MB of the table the checks of the read settings scan or vacuum', { quick => 32, tiny => 8 } ],
			[ URINGPROBE_ADVISE_CHECK_KEEPS => 1, 'check the read settings kept too, against the point of their curve they were held to (0: those changed alone)',
				{ quick => 0, tiny => 0 } ],
		],
	},
	{
		name => 'environment',
		script => 'bench/environment.pl',
		title => 'uringprobe_environment() of every server under every io_method',
		files => [
			{
				id => 'environment',
				file => 'environment.tsv',
				table => {
					caption =>
					  'uringprobe_environment() of every server under every io_method, and what each postmaster holds:'
				}
			}
		],
	},
	{
		name => 'rings',
		report => 1,
		script => 'bench/rings.pl',
		title => 'ring-per-backend fork cost, in a backend and in a bare process',
		files => [
			{
				id => 'runs',
				file => 'rings.tsv',
				runs => { key => [qw(server where rings variant)], metrics => [ [ p50_us => 'lower' ], [ fork_call_p50_us => 'lower' ] ] }
			},
			{
				id => 'costs',
				file => 'rings-compare.tsv',
				table => {
					caption => 'fork cost of the rings: variant minus zero-ring baseline of the same call, medians of '
					  . '{URINGPROBE_RINGS_ROUNDS} rounds or more (rounds); a ratio ~(+-N) where a cost is within the noise (its rounds '
					  . 'disagree on its sign; N: the largest cost of any round, us); p50_ratio_ci95: its 95% bootstrap '
					  . 'interval over the rounds:',
					width => 16
				}
			},
		],
		variables => [
			[ URINGPROBE_RINGS => '132 432', 'ring counts', { quick => '132', tiny => '16' } ],
			[ URINGPROBE_RINGS_ROUNDS => 9, 'rounds per cell', { quick => 3, tiny => 1 } ],
			[ URINGPROBE_RINGS_FORKS => 300, 'forks timed per variant and round', { quick => 200, tiny => 20 } ],
		],
	},
	{
		name => 'churn',
		report => 1,
		script => 'bench/churn.pl',
		title => 'connection churn: pgbench -C over server x io_method x max_connections',
		files => [
			{
				id => 'runs',
				file => 'churn-runs.tsv',
				runs => {
					key => [qw(server io_method max_connections)],
					metrics => [ [ conn_ms => 'lower' ], [ pm_cpu_us_per_conn => 'lower' ] ]
				}
			},
			{
				id => 'medians',
				file => 'churn.tsv',
				table => {
					caption => 'connection churn ({URINGPROBE_CHURN_CLIENTS} clients, medians of {URINGPROBE_CHURN_RUNS} runs or more (runs) '
					  . 'of {URINGPROBE_CHURN_SECONDS} s each):',
					width => 40
				}
			},
		],
		plots => [
			{
				name => 'churn',
				vars => sub {
					my ($dir) = @_;
					my @series = column_values("$dir/churn.tsv", [ 0, 1 ]);
					return (data => "$dir/churn.tsv", series => "@series");
				}
			}
		],
		variables => [
			[ URINGPROBE_CHURN_CONNECTIONS => '100 400 950 1000', 'max_connections values', { quick => '950', tiny => '20' } ],
			[ URINGPROBE_CHURN_RUNS => 3, 'runs per cell', { tiny => 1 } ],
			[ URINGPROBE_CHURN_SECONDS => 3, 'seconds per run', { quick => 2, tiny => 1 } ],
			[ URINGPROBE_CHURN_CLIENTS => 2, 'pgbench clients' ],
		],
	},
	{
		name => 'extend',
		report => 3,
		script => 'bench/extend.pl',
		title => 'relation-style file extension on real filesystems, in a backend, a bare process and from pgbench',
		files => [
			{
				id => 'runs',
				file => 'extend-runs.tsv',
				runs => { key => [qw(fs where strategy interface sessions)], metrics => [ [ seconds => 'lower' ] ] }
			},
			{
				id => 'sides',
				file => 'extend.tsv',
				table => {
					caption => 'file extension, one shared file ({URINGPROBE_EXTEND_MB} MB, random 1-64 blocks, data written; '
					  . 'medians of {URINGPROBE_EXTEND_ROUNDS} rounds or more (rounds); ratio = backend / bare process of the '
					  . 'medians, min_ratio of the fastest runs):'
				}
			},
			{
				id => 'pgbench',
				file => 'extend-pgbench.tsv',
				table => {
					caption => 'file extension from pgbench, each client its own file, the same volume split among '
					  . 'them (median seconds):'
				}
			},
			{
				id => 'pgbench_runs',
				file => 'extend-pgbench-runs.tsv',
				runs => { key => [qw(fs strategy clients)], metrics => [ [ seconds => 'lower' ] ], name => 'extend-pgbench' }
			},
			{
				id => 'sizing',
				file => 'extend-sizing.tsv',
				table => {
					caption => 'extension sized as PostgreSQL 16 sizes it, from the sessions waiting on the lock: '
					  . 'without 82a4edab (waiters) and with it (waiters_prior); one shared file, mdzeroextend, '
					  . '{URINGPROBE_EXTEND_MB} MB, data written page by page; medians of {URINGPROBE_EXTEND_ROUNDS} rounds or more '
					  . '(rounds); ratio = waiters / waiters_prior; switches = fallocate<->zeros changes; blocks = per '
					  . 'extension:'
				}
			},
			{
				id => 'sizing_runs',
				file => 'extend-sizing-runs.tsv',
				runs => { key => [qw(fs sizing sessions)], metrics => [ [ seconds => 'lower' ] ], name => 'extend-sizing' }
			},
		],
		plots => [ { name => 'extend', vars => sub { my ($dir) = @_; return (data => "$dir/extend.tsv"); } } ],
		variables => [
			[ URINGPROBE_EXTEND_FS => 'xfs ext4 tmpfs', 'scratch filesystems', { quick => 'xfs', tiny => 'ext4' } ],
			[ URINGPROBE_EXTEND_MB => 512, 'MB grown per run', { quick => 256, tiny => 8 } ],
			[ URINGPROBE_EXTEND_ROUNDS => 3, 'rounds per cell', { tiny => 1 } ],
			[ URINGPROBE_EXTEND_SESSIONS => '1 4', 'sessions on one shared file', { tiny => '1' } ],
			[ URINGPROBE_EXTEND_INTERFACES => 'sync io_uring', 'interfaces', { quick => 'sync', tiny => 'sync' } ],
			[ URINGPROBE_EXTEND_SIZING_SESSIONS => '1 2 4 8', 'sessions sized by the lock waiters', { tiny => '2' } ],
			[ URINGPROBE_EXTEND_CLIENTS => '1 2 4', 'pgbench clients', { quick => '1 4', tiny => '1' } ],
		],
	},
	{
		name => 'copy',
		report => 3,
		script => 'bench/copy.pl',
		title => 'concurrent COPY into one table: server x io_method x file_extend_method x filesystem x clients',
		files => [
			{
				id => 'runs',
				file => 'copy-runs.tsv',
				runs => { key => [qw(server io_method file_extend_method fs clients)], metrics => [ [ seconds => 'lower' ] ] }
			},
			{
				id => 'table',
				file => 'copy.tsv',
				table => {
					caption => sub {
						my ($dir) = @_;
						my $noprior = grep { /pg18-noprior/ } (read_first_line("$dir/copy.tsv"));
						return 'concurrent COPY of {URINGPROBE_COPY_MB} MB into one table, execution time in seconds (medians and '
						  . 'min-max of {URINGPROBE_COPY_ROUNDS} rounds or more: rounds.tsv)'
						  . ($noprior ? '' : '; pg18-noprior, the regression, is measured with PROFILE=full or SERVERS naming it')
						  . ':';
					},
					width => 40
				}
			},
			{
				id => 'extends',
				file => 'copy-extends.tsv',
				table => {
					caption => 'relation extensions during the COPY runs (pg_stat_io, PostgreSQL 16+; MB per extension '
					  . '18+; medians):',
					width => 40
				}
			},
			{
				id => 'ratios',
				file => 'copy-ratios.tsv',
				sparse => 1,
				table => {
					caption => "the table's comparisons: ratio of the medians (seconds), its 95% bootstrap interval over "
					  . 'the runs and whether it excludes 1:',
					width => 60
				}
			},
		],
		shown => [qw(table ratios extends)],
		plots => [
			{
				name => 'copy',
				vars => sub {
					my ($dir) = @_;
					my $ncols = header_columns("$dir/copy.tsv");
					my @fs = column_values("$dir/copy.tsv", 0, sub { ($_[2] // '') eq 'ok' });
					return (data => "$dir/copy.tsv", ncols => $ncols, filesystems => "@fs");
				}
			}
		],
		variables => [
			[ URINGPROBE_COPY_MB => 128, 'MB copied per run', { quick => 64, tiny => 4 } ],
			[ URINGPROBE_COPY_CHUNK_MB => 8, 'MB per COPY', { tiny => 2 } ],
			[ URINGPROBE_COPY_CLIENTS => '1 2 4 8', 'pgbench clients', { quick => '1 4 8', full => '1 2 4 8 16', tiny => '1 2' } ],
			[ URINGPROBE_COPY_ROUNDS => 3, 'rounds per cell', { tiny => 1 } ],
			[ URINGPROBE_COPY_FS => 'xfs ext4', 'scratch filesystems', { quick => 'xfs', tiny => 'ext4' } ],
			[ URINGPROBE_COPY_IO_METHODS => 'sync io_uring', 'io_methods', { quick => 'sync', tiny => 'sync' } ],
			[ URINGPROBE_COPY_ON_REQUEST => '', 'on-request servers measured too', { full => 'pg18-noprior' } ],
			[ URINGPROBE_COPY_SERVERS => '', 'servers measured (default: the last of each major version)' ],
			[ URINGPROBE_COPY_PLACEMENT => 'cluster', 'the whole cluster on the filesystem, or a tablespace' ],
			[ URINGPROBE_COPY_ROWS => 'narrow', 'rows of one integer, or 110-byte lines (wide)' ],
			[ URINGPROBE_COPY_SETTINGS => '', 'settings added to every cluster' ],
		],
	},
	{
		name => 'completions',
		report => 2,
		script => 'bench/completions.pl',
		title => 'completions kept in flight, each replaced and reaped alone or per batch, in a backend and in a bare process',
		files => [
			{
				id => 'runs',
				file => 'completions-runs.tsv',
				runs => {
					key => [qw(where op flags_in_effect depth resubmit)],
					metrics => [ [ ns_per_completion => 'lower' ] ]
				}
			},
			{
				id => 'sides',
				file => 'completions.tsv',
				table => {
					caption => 'ns per completion (medians of {URINGPROBE_COMPLETIONS_ROUNDS} rounds or more (rounds); ratio = '
					  . 'backend / bare process of the medians, min_ratio of the fastest runs; mean_in_flight, '
					  . 'completions_per_enter, submitter_ns and sqpoll_ns (CPU per completion of the submitting thread '
					  . 'and of the SQPOLL thread) are the backend\'s medians; report 2\'s configuration is recv, sqpoll, '
					  . 'depth 100, pattern each):'
				}
			},
		],
		plots => [
			{
				name => 'completions',
				vars => sub {
					my ($dir) = @_;
					return (
						data => "$dir/completions.tsv",
						ops => setting('URINGPROBE_COMPLETIONS_OPS'),
						flagsets => setting('URINGPROBE_COMPLETIONS_FLAGS'));
				}
			}
		],
		variables => [
			[ URINGPROBE_COMPLETIONS_OPS => 'nop recv', 'operations', { tiny => 'nop' } ],
			[ URINGPROBE_COMPLETIONS_DEPTHS => '1 8 32 100', 'depths in flight', { quick => '8 100', tiny => '1 8' } ],
			[ URINGPROBE_COMPLETIONS_FLAGS => 'none sqpoll', 'setup flag sets', { tiny => 'none' } ],
			[ URINGPROBE_COMPLETIONS_SECONDS => 0.5, 'seconds per run', { quick => 0.25, tiny => 0.01 } ],
			[ URINGPROBE_COMPLETIONS_ROUNDS => 3, 'rounds per cell', { tiny => 2 } ],
		],
	},
	{
		name => 'events',
		report => 4,
		script => 'bench/events.pl',
		title => 'event loop ping-pong over every loop, in a backend, a bare process and a minimal C loop',
		files => [
			{
				id => 'runs',
				file => 'events-runs.tsv',
				runs => { key => [qw(where variant pipes peer)], metrics => [ [ ops_per_sec => 'higher' ] ] }
			},
			{
				id => 'loops',
				file => 'events.tsv',
				table => {
					caption => 'pipe events per second (medians of {URINGPROBE_EVENTS_ROUNDS} rounds or more (rounds); peer self: '
					  . 'the waiter writes its own bytes once armed, process: a child process writes them when asked; '
					  . 'vs_epoll = the backend\'s events/s over epoll\'s, same pipes and peer; enters_per_event: '
					  . 'waiting and arming system calls; cli_vs_reference = uringprobe-cli epoll / '
					  . 'bench/epoll-pingpong.c, of the medians and best_vs_reference of the best runs):'
				}
			},
		],
		plots => [ { name => 'events', vars => sub { my ($dir) = @_; return (data => "$dir/events.tsv"); } } ],
		variables => [
			[ URINGPROBE_EVENTS => 200000, 'events per run (peer self)', { quick => 100000, tiny => 2000 } ],
			[ URINGPROBE_EVENTS_PIPES => '1', 'pipe counts', { full => '1 8' } ],
			[ URINGPROBE_EVENTS_PEERS => 'self process', 'who writes the bytes' ],
			[ URINGPROBE_EVENTS_PROCESS => 20000, 'events per run with a peer process', { quick => 5000, tiny => 200 } ],
			[ URINGPROBE_EVENTS_ROUNDS => 5, 'rounds per cell', { quick => 3, tiny => 2 } ],
		],
	},
	{
		name => 'reads',
		report => 5,
		script => 'bench/reads.pl',
		title => 'what io_uring buys: PostgreSQL\'s cold reads under each io_method, on storage that makes you wait',
		files => [
			{
				id => 'runs',
				file => 'reads-runs.tsv',
				runs => {
					key => [qw(server io_method storage read_ahead eic io_combine_limit cache direct workload)],
					metrics => [ [ seconds => 'lower' ] ]
				}
			},
			{
				id => 'speedup',
				file => 'reads.tsv',
				table => {
					caption => 'cold reads (medians of {URINGPROBE_READS_ROUNDS} runs or more; a {URINGPROBE_READS_TABLE_MB} MB table, '
					  . 'shared_buffers 128 MB, parallel query off): vs_sync = sync\'s median seconds over this '
					  . 'io_method\'s, same server, storage and workload, with its 95% bootstrap interval; ceiling_share = '
					  . 'MB/s over fio\'s 128 kB sequential reads at depth 16 on the same storage; aio_mean/aio_max: AIO '
					  . 'handles of the backend in pg_aios, sampled every 2 ms; cold: no page cached as it began, and a '
					  . 'seqscan read every block:',
					width => 60
				}
			},
			{
				id => 'ceiling',
				file => 'reads-ceiling.tsv',
				table => { caption => 'each storage\'s ceiling in the same run: fio (io_uring engine, direct) and uringprobe-cli reads (direct; depth 1: sync) on a file there:', width => 60 }
			},
			# the plot's data: the cold seqscan's speedup against the latency added
			{ id => 'latency', file => 'reads-speedup.tsv', sparse => 1 },
		],
		plots => [
			{
				name => 'reads',
				vars => sub {
					my ($dir) = @_;
					my @methods = column_values("$dir/reads-speedup.tsv", 2);
					return (data => "$dir/reads-speedup.tsv", methods => "@methods");
				}
			}
		],
		variables => [
			[ URINGPROBE_READS_STORAGE => 'disk latency:1 latency:0.2', 'storage kinds (tools/storage; capped:IOPS on request)',
				{ quick => 'disk latency:1', tiny => 'disk' } ],
			[ URINGPROBE_READS_IO_METHODS => 'sync worker worker:8 io_uring', 'io_methods (worker:N: io_workers N)',
				{ quick => 'sync worker io_uring', tiny => 'sync io_uring' } ],
			[ URINGPROBE_READS_WORKLOADS => 'seqscan bitmap bitmap:1 index prewarm vacuum concurrent',
				'workloads (bitmap: 0.1% of the rows; bitmap:P: P%)',
				{ quick => 'seqscan bitmap', tiny => 'seqscan' } ],
			[ URINGPROBE_READS_READ_AHEAD => '128 default', 'read_ahead_kb of the devices tools/storage made (default: as made)',
				{ quick => '128', tiny => '128' } ],
			[ URINGPROBE_READS_EIC => '16 0 128', 'effective_io_concurrency values (0: the control, nothing read ahead)',
				{ quick => '16', tiny => '16' } ],
			[ URINGPROBE_READS_COMBINE => '128kB 1MB', 'io_combine_limit values (PostgreSQL 18; io_max_combine_limit 1MB)',
				{ quick => '128kB', tiny => '128kB' } ],
			[ URINGPROBE_READS_CACHE => 'cold os', 'cold: out of shared buffers and the page cache; os: in the page cache',
				{ quick => 'cold', tiny => 'cold' } ],
			[ URINGPROBE_READS_DIRECT => 'off data', 'debug_io_direct values (PostgreSQL 18; data: O_DIRECT, no page cache)',
				{ quick => 'off', tiny => 'off' } ],
			[ URINGPROBE_READS_TABLE_MB => 256, 'the table\'s size in MB (2x shared_buffers)', { tiny => 8 } ],
			[ URINGPROBE_READS_ROUNDS => 3, 'rounds per cell', { tiny => 2 } ],
			[ URINGPROBE_READS_SERVERS => 'pg18-combined pg15', 'servers measured (PostgreSQL 15: sync, the baseline)',
				{ quick => 'pg18-combined', tiny => 'pg18-combined' } ],
		],
	},
	{
		name => 'oltp',
		script => 'bench/oltp.pl',
		title => 'OLTP under each io_method: pgbench select-only and TPC-B-like with reads reaching the device, alone and beside a cold scan',
		files => [
			{
				id => 'runs',
				file => 'oltp-runs.tsv',
				runs => {
					key => [qw(server storage io_method workload clients)],
					metrics => [ [ tps => 'higher' ], [ p99_ms => 'lower' ] ]
				}
			},
			{
				id => 'table',
				file => 'oltp.tsv',
				table => {
					caption => 'OLTP (pgbench, {URINGPROBE_OLTP_SECONDS} s runs, medians of {URINGPROBE_OLTP_ROUNDS} runs or more; '
					  . 'scale {URINGPROBE_OLTP_SCALE}, shared_buffers {URINGPROBE_OLTP_SHARED_BUFFERS}, the page cache held down by a '
					  . 'memory cgroup of {URINGPROBE_OLTP_MEMORY_MB} MB where one could be made (page_cache; where not, reads may '
					  . 'not reach the device; why in the runs\' memory), each run cold): tps and p99 latency against worker\'s (same '
					  . 'server, storage, workload and clients) with their 95% intervals; advised: the advise benchmark\'s changes '
					  . 'applied as a set (settings); mixed: select-only beside a cold sequential '
					  . 'scan of {URINGPROBE_OLTP_SCAN_MB} MB, its seconds in scan_seconds:',
					width => 60
				}
			},
		],
		variables => [
			[ URINGPROBE_OLTP_STORAGE => 'disk latency:1', 'storage kinds (tools/storage), among those made for the reads benchmark',
				{ quick => 'latency:1', tiny => 'disk' } ],
			[ URINGPROBE_OLTP_IO_METHODS => 'sync worker io_uring', 'io_methods (worker:N: io_workers N; worker: the baseline)',
				{ quick => 'worker io_uring' } ],
			[ URINGPROBE_OLTP_WORKLOADS => 'select-only tpcb mixed', 'workloads (mixed: select-only beside a cold scan)',
				{ quick => 'select-only mixed', tiny => 'select-only' } ],
			[ URINGPROBE_OLTP_CLIENTS => '1 8 32', 'pgbench client counts', { quick => '8', tiny => '2' } ],
			[ URINGPROBE_OLTP_SECONDS => 3, 'seconds per run', { quick => 2, tiny => 1 } ],
			[ URINGPROBE_OLTP_ROUNDS => 3, 'rounds per cell', { tiny => 2 } ],
			[ URINGPROBE_OLTP_SCALE => 20, 'pgbench scale (about 15 MB each)', { quick => 10, tiny => 1 } ],
			[ URINGPROBE_OLTP_SCAN_MB => 128, 'MB of the table the mixed run scans', { quick => 32, tiny => 8 } ],
			[ URINGPROBE_OLTP_SHARED_BUFFERS => '32MB', 'shared_buffers' ],
			[ URINGPROBE_OLTP_MEMORY_MB => 224, 'MB of the memory cgroup the benchmark runs in (its clusters, clients, page cache)',
				{ quick => 160 } ],
			[ URINGPROBE_OLTP_SERVERS => 'pg18-combined', 'servers measured (PostgreSQL 18)' ],
		],
	},
	{
		name => 'soak',
		on_request => 1,
		script => 'bench/soak.pl',
		title => 'every experiment from concurrent pgbench sessions, then leaks and crashes looked for',
		files => [
			{
				id => 'soak',
				file => 'soak.tsv',
				table => {
					caption => 'soak ({URINGPROBE_SOAK_CLIENTS} clients, {URINGPROBE_SOAK_SECONDS} s): the postmaster\'s fds, io_uring fds, '
					  . 'mappings and RSS and its auxiliary processes (the same pids: no crash-restart), scratch files '
					  . 'left, a witness backend\'s RSS, the server log\'s errors by SQLSTATE:',
					width => 60
				}
			}
		],
		variables => [
			[ URINGPROBE_SOAK_SECONDS => 180, 'seconds' ],
			[ URINGPROBE_SOAK_CLIENTS => 8, 'pgbench clients' ],
			[ URINGPROBE_SOAK_SERVER => '', 'the server (default: the last set up)' ],
			[ URINGPROBE_SOAK_IO_METHOD => '', 'its io_method (default: io_uring on 18, sync before)' ],
			[ URINGPROBE_SOAK_WITNESS_ROUNDS => 10, 'rounds of every experiment in the witness session after the soak' ],
		],
	},
);

# The profiles: what each is for, and the driver's own settings in it.
my %profiles = (
	quick => {
		about => "make bench's default: every benchmark in a reduced matrix, each cell repeated 3 times; noisy "
		  . 'cells get extra rounds within a fifth of their benchmark\'s time',
		settings => { URINGPROBE_EXTRA_SHARE => 20 },
	},
	full => {
		about => 'the report-sized matrices: every benchmark with its own defaults; copy also measures pg18-noprior, '
		  . 'built once on first use; noisy cells get extra rounds within a tenth of their benchmark\'s time',
		settings => { URINGPROBE_EXTRA_SHARE => 10 },
	},
	tiny => {
		about => 'the smallest run of every benchmark, one repetition of one small cell each: it checks the driver '
		  . 'end to end (make test runs it); its numbers mean nothing',
		settings => { URINGPROBE_MAX_ROUNDS => 3 },
	},
);

# The report's own sections, around the benchmarks' (whose headings are
# their titles), by key.
my %headings = (
	advice => 'What to set on each server (uringprobe_advise)',
	findings => 'What this run found',
	repetitions => 'repetitions: how steady each cell was',
);
sub heading { my ($key) = @_; return $headings{$key} // die "no report section '$key'\n"; }

my %by_name = map { $_->{name} => $_ } @benchmarks;

sub read_first_line
{
	my ($file) = @_;
	open my $fh, '<', $file or return '';
	my $l = <$fh> // '';
	chomp $l;
	return $l;
}

sub benchmarks { return @benchmarks; }

sub benchmark
{
	my ($name) = @_;
	return $by_name{$name} // die "unknown benchmark '$name'\n";
}

# The benchmarks run unless others are named, in their order.
sub names { return map { $_->{name} } grep { !$_->{on_request} } @benchmarks; }

sub file_of
{
	my ($bench, $id) = @_;
	my ($f) = grep { $_->{id} eq $id } @{ benchmark($bench)->{files} };
	die "benchmark $bench has no file '$id'\n" unless $f;
	return $f->{file};
}

# The variables of every benchmark: [full name, default, help, profiles, benchmark].
sub variables
{
	return map {
		my $b = $_;
		map { [ $_->[0], $_->[1], $_->[2], $_->[3] // {}, $b->{name} ] } @{ $b->{variables} // [] }
	} @benchmarks;
}
my %variable = map { $_->[0] => $_ } variables();

# A benchmark variable's value in this run: the environment's (the
# driver exports the profile's there), else its default.
sub setting
{
	my ($name) = @_;
	my $v = $variable{$name} or die "no benchmark variable $name\n";
	return $ENV{$name} // $v->[1];
}

sub profiles { return sort keys %profiles; }

# NAME=value of every variable profile $p sets, the driver's first.
sub profile_settings
{
	my ($p) = @_;
	my $profile = $profiles{$p} or die "unknown profile '$p'\n";
	my @out = map { [ $_, $profile->{settings}{$_} ] } sort keys %{ $profile->{settings} };
	for my $v (variables())
	{
		push @out, [ $v->[0], $v->[3]{$p} ] if exists $v->[3]{$p};
	}
	return @out;
}

sub profile_about { my ($p) = @_; return ($profiles{$p} // die "unknown profile '$p'\n")->{about}; }

# The report's cells: a spec per runs file.
sub runs_specs
{
	return map {
		my $b = $_;
		map { { bench => $b->{name}, file => $_->{file}, %{ $_->{runs} } } } grep { $_->{runs} } @{ $b->{files} }
	} @benchmarks;
}

# A caption with its {NAME}s replaced by this run's values.
sub caption_text
{
	my ($caption, $dir) = @_;
	my $text = ref $caption ? $caption->($dir) : $caption;
	$text =~ s/\{(URINGPROBE_[A-Z0-9_]+)\}/setting($1)/ge;
	return $text;
}

# A plot's gnuplot variables as one `-e` program: every value comes from
# the results (files the cluster user wrote), so it is data, never program
# text: a number as a number, anything else a single-quoted string (a
# quote doubled, as gnuplot reads it); a value with a control character
# (a newline would end the statement) is refused.
sub plot_vars
{
	my ($plot, $dir) = @_;
	my @pairs = $plot->{vars}->($dir);
	return gnuplot_assignments(@pairs);
}

sub gnuplot_assignments
{
	my @pairs = @_;
	my @out;
	while (my ($name, $value) = splice @pairs, 0, 2)
	{
		die "gnuplot variable name '$name'\n" unless $name =~ /\A[a-z_][a-z0-9_]*\z/;
		$value //= '';
		die "gnuplot variable $name: a control character in its value\n" if $value =~ /[\x00-\x1f\x7f]/;
		if ($value =~ /\A-?[0-9]{1,15}(?:\.[0-9]{1,15})?\z/) { push @out, "$name=$value"; }
		else { (my $q = $value) =~ s/'/''/g; push @out, "$name='$q'"; }
	}
	return join('; ', @out);
}

# A cell's key: its parameters as "name=value" in name order. The kernel
# profile's rows are found by it; the label beside it is only shown.
sub cell_key
{
	my (%k) = @_;
	return join(' ', map { "$_=$k{$_}" } sort keys %k);
}

# The files of a run that no benchmark declares: the driver's.
my @driver_files = qw(run.tsv rounds.tsv cells.tsv perf.tsv perf-families.tsv perf-<benchmark>.tsv);

# What a benchmarks document (docs/benchmarks.md's text) and the
# declarations (default: these) disagree on, one line each: a benchmark,
# result file or variable declared but not documented (a benchmark as
# **name**, a file or variable by name), or documented but not declared (a
# numbered **name** entry, a *.tsv file, a URINGPROBE_<BENCHMARK>...
# variable). Empty when they agree.
sub docs_mismatches
{
	my ($text, $declared) = @_;
	my @bs = @{ $declared // \@benchmarks };
	my @problems;
	my %name = map { $_->{name} => 1 } @bs;
	my %file = map { $_ => 1 } @driver_files, map { map { $_->{file} } @{ $_->{files} } } @bs;
	my %var = map { $_->[0] => 1 } map { @{ $_->{variables} // [] } } @bs;
	for my $b (@bs)
	{
		push @problems, "benchmark $b->{name} is not documented (as **$b->{name}**)"
		  unless $text =~ /\*\*\Q$b->{name}\E\*\*/;
		push @problems, "$b->{name}'s file $_->{file} is not documented"
		  for grep { $text !~ /\b\Q$_->{file}\E\b/ } @{ $b->{files} };
		push @problems, "$b->{name}'s variable $_->[0] is not documented"
		  for grep { $text !~ /\b\Q$_->[0]\E\b/ } @{ $b->{variables} // [] };
	}
	my %seen;
	push @problems, "benchmark $_ is documented but not declared"
	  for grep { !$name{$_} && !$seen{"b$_"}++ } $text =~ /^\s*\d+\. \*\*([\w-]+)\*\*/mg;
	push @problems, "file $_ is documented but no benchmark declares it"
	  for grep { !$file{$_} && !$seen{"f$_"}++ } $text =~ /\b([\w<>-]+\.tsv)\b/g;
	my $prefix = join('|', map { uc } sort keys %name);
	push @problems, "variable $_ is documented but not declared"
	  for grep { !$var{$_} && !$seen{"v$_"}++ } $text =~ /\b(URINGPROBE_(?:$prefix)(?:_[A-Z0-9_]*[A-Z0-9])?)\b/g;
	return @problems;
}

1;
