# Relation-style file extension (report 3) on real filesystems, in two
# shapes:
#
#  1. Sessions sharing one file, as backends share a relation: the same
#     uringprobe_extend() call in a backend and `uringprobe-cli extend` in
#     a bare process, in rounds that alternate which goes first, over
#     filesystem x strategy x interface x sessions. Random extension sizes
#     (1..64 blocks, seeded by the round), each new block written like COPY
#     fills pages. The backend/CLI ratio shows what the backend adds.
#  2. Many backends at once from pgbench (bench/extend.sql), each extending
#     its own file, a fixed total volume split among 1, 2, 4 ... clients.
#  3. Report 3's mechanism: sessions sharing one file with PostgreSQL 16's
#     extension sizes, from the sessions really waiting on the extension
#     lock, without the fix of 82a4edab (sizing waiters) and with it
#     (waiters_prior), mdzeroextend, data written page by page, in the
#     backend, over filesystem x sessions, the two sizings alternating
#     which goes first: seconds, fallocate<->zeros switches, blocks per
#     extension.
#
#   perl bench/extend.pl RUNS.tsv COMPARISON.tsv PGBENCH.tsv PGBENCH_RUNS.tsv SIZING.tsv SIZING_RUNS.tsv
# Environment: URINGPROBE_EXTEND_FS ("xfs ext4 tmpfs": tmpfs has no disk
# and no journal, so it shows the syscall path alone), URINGPROBE_EXTEND_MB
# (512, per call or pgbench run), URINGPROBE_EXTEND_ROUNDS (5),
# URINGPROBE_EXTEND_SESSIONS ("1 4"), URINGPROBE_EXTEND_INTERFACES
# ("sync io_uring"), URINGPROBE_EXTEND_CLIENTS ("1 2 4"),
# URINGPROBE_EXTEND_SIZING_SESSIONS ("1 2 4 8").
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Uringprobe::BenchScript;
use Uringprobe::Manifest qw(setting);
use Uringprobe::Cluster;

my ($runs_file, $cmp_file, $pgbench_file, $pgbench_runs_file, $sizing_file, $sizing_runs_file) = @ARGV;
die "usage: extend.pl RUNS.tsv COMPARISON.tsv PGBENCH.tsv PGBENCH_RUNS.tsv SIZING.tsv SIZING_RUNS.tsv\n"
  unless $sizing_runs_file;
my ($fs_ok, $fs_missing) = bench_filesystems(setting('URINGPROBE_EXTEND_FS'));
my @fs = @$fs_ok;
my $mb = setting('URINGPROBE_EXTEND_MB');
my $rounds = setting('URINGPROBE_EXTEND_ROUNDS');
my @sessions = split ' ', setting('URINGPROBE_EXTEND_SESSIONS');
my @interfaces = split ' ', setting('URINGPROBE_EXTEND_INTERFACES');
my @clients = split ' ', setting('URINGPROBE_EXTEND_CLIENTS');
my @sizing_sessions = split ' ', setting('URINGPROBE_EXTEND_SIZING_SESSIONS');
my @strategies = qw(fallocate write_zeros mdzeroextend);
my @sizings = qw(waiters waiters_prior);
plan_cells($rounds * @fs * (@strategies * (@interfaces * @sessions * 2 + @clients) + @sizing_sessions * @sizings));

# The newest server runs the backend side; io_method does not matter here.
my ($server) = sort { $b->{major} <=> $a->{major} } servers();
my $cli = "$server->{bindir}/uringprobe-cli";
my ($node) = start_cluster(
	server => $server,
	name => 'extend_bench',
	settings => [
		"uringprobe.scratch_dirs = '" . join(',', map { $_->{dir} } @fs) . "'",
		"uringprobe.max_scratch_mb = $mb",
		"max_connections = " . (20 + 2 * (sort { $b <=> $a } @clients)[0])
	]);
$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');

my @cols = qw(experiment variant status ops seconds ops_per_sec p50_us p99_us max_us user_ms
  sys_ms strategy interface sessions shared min_blocks max_blocks block_size write_data bytes
  mb_per_sec fallocates zero_writes data_writes lock_wait_ms vcsw ivcsw iowq_workers
  iowq_cpu_ms filesystem extents file_bytes verified stale_removed latency_histogram);
my $runs = runs_open($runs_file, qw(fs where round), @cols, @settle_cols);

sub in_backend
{
	my ($fs, $strategy, $interface, $sessions, $round) = @_;
	return bench_query($node,
		"SELECT * FROM uringprobe_extend('$fs->{dir}', '$strategy', '$interface', min_blocks => 1, "
		  . "max_blocks => 64, total_mb => $mb, write_data => true, sessions => $sessions, "
		  . "seed => $round)");
}

sub in_cli
{
	my ($fs, $strategy, $interface, $sessions, $round) = @_;
	return cli_row($cli, 'extend', '--dir', $fs->{dir}, '--strategy', $strategy, '--interface',
		$interface, '--min-blocks', 1, '--max-blocks', 64, '--total-mb', $mb, '--write-data',
		'--sessions', $sessions, '--seed', $round);
}

# 1. Backend and CLI side by side.
my %seconds;    # fs/strategy/interface/sessions -> where -> [seconds]
my %last;       # ... -> the backend's last row
my (%side_by_side, @side_by_side);    # key -> [fs, strategy, interface, sessions]
for my $fs (@fs)
{
	for my $strategy (@strategies)
	{
		for my $interface (@interfaces)
		{
			for my $n (@sessions)
			{
				my $key = join('/', $fs->{name}, $strategy, $interface, $n);
				push @side_by_side, $key;
				$side_by_side{$key} = [ $fs, $strategy, $interface, $n ];
			}
		}
	}
}
my $took = repeat_rounds('extend', \@side_by_side, $rounds, sub {
	my ($key, $round, $label) = @_;
	my ($fs, $strategy, $interface, $n) = @{ $side_by_side{$key} };
	my %m;
	for my $where ($round % 2 ? qw(backend cli) : qw(cli backend))
	{
		cell("extend $key, " . ($where eq 'cli' ? 'bare process' : $where) . ", $label", part => 'side_by_side',
			fs => $fs->{name}, strategy => $strategy, interface => $interface, sessions => $n, where => $where);
		my $start = settle_fs($fs->{dir});
		my $r = $where eq 'backend'
		  ? in_backend($fs, $strategy, $interface, $n, $round)
		  : in_cli($fs, $strategy, $interface, $n, $round);
		run_row($runs, $fs->{name}, $where, $round, (map { $r->{$_} } @cols), @$start{@settle_cols});
		push @{ $seconds{$key}{$where} }, $r->{seconds};
		push @{ $seconds{$key}{"$where.p99"} }, $r->{p99_us};
		push @{ $seconds{$key}{"$where.max"} }, $r->{max_us};
		$last{$key} = $r if $where eq 'backend';
		$m{$where} = $r->{seconds};
	}
	return \%m;
});
close $runs;

# The fastest run of each side is the least disturbed one on a noisy
# machine: min_ratio compares those, ratio the medians, ratio_ci95 is the
# ratio's 95% bootstrap interval over the runs and ratio_verdict whether
# it excludes 1.
my $cmp = tsv_open($cmp_file, qw(fs strategy interface sessions status rounds backend_s cli_s ratio
	  min_ratio backend_range cli_range backend_mb_s p99_us max_ms extents fallocates zero_writes
	  iowq_workers ratio_ci95 ratio_verdict));
for my $fs (@fs)
{
	for my $strategy (@strategies)
	{
		for my $interface (@interfaces)
		{
			for my $n (@sessions)
			{
				my $key = join('/', $fs->{name}, $strategy, $interface, $n);
				my $s = $seconds{$key};
				my ($b, $c) = (median(@{ $s->{backend} }), median(@{ $s->{cli} }));
				my $r = $last{$key};
				tsv_row($cmp, $fs->{name}, $strategy, $interface, $n, 'ok', $took->{$key},
					sprintf('%.3f', $b), sprintf('%.3f', $c), sprintf('%.2f', $b / $c),
					sprintf('%.2f', least(@{ $s->{backend} }) / least(@{ $s->{cli} })),
					spread(@{ $s->{backend} }), spread(@{ $s->{cli} }),
					sprintf('%.0f', $mb / $b), sprintf('%.0f', median(@{ $s->{'backend.p99'} })),
					sprintf('%.1f', median(@{ $s->{'backend.max'} }) / 1000),
					$r->{extents}, $r->{fallocates}, $r->{zero_writes}, $r->{iowq_workers},
					ratio_interval($s->{backend}, $s->{cli}));
			}
		}
	}
}
# a filesystem that could not be measured keeps its row, empty, with why
tsv_row($cmp, $_->{name}, '', '', '', "not measured: $_->{status}", ('') x 16) for @$fs_missing;
close $cmp;

# 2. Many backends at once: pgbench clients, each its own file.
my $pgb = tsv_open($pgbench_file, qw(fs strategy clients status rounds seconds mb_per_s));
my $pgb_runs = runs_open($pgbench_runs_file, qw(fs strategy clients round seconds mb), @settle_cols);
my (%pgbench_cell, @pgbench_cells, %pgbench_s);
for my $fs (@fs)
{
	for my $strategy (@strategies)
	{
		for my $c (@clients)
		{
			my $key = "$fs->{name}/$strategy/$c";
			push @pgbench_cells, $key;
			$pgbench_cell{$key} = [ $fs, $strategy, $c ];
		}
	}
}
my $pgbench_took = repeat_rounds('extend-pgbench', \@pgbench_cells, $rounds, sub {
	my ($key, $round, $label) = @_;
	my ($fs, $strategy, $c) = @{ $pgbench_cell{$key} };
	cell("extend from pgbench $fs->{name}/$strategy, $c clients, $label",
		part => 'pgbench', fs => $fs->{name}, strategy => $strategy, clients => $c);
	my $start = settle_fs($fs->{dir});
	my ($out, $err, $seconds) = bench_command([
		"$server->{bindir}/pgbench", '-n', '-c', $c, '-j', $c, '-t', 1,
		'-f', 'bench/extend.sql', '-D', "dir=$fs->{dir}", '-D', "strategy=$strategy",
		'-D', 'mb=' . int($mb / $c), '-h', $node->host, '-p', $node->port, 'postgres' ]);
	die "pgbench failed:\n$out\n$err\n" unless $out =~ /actually processed: $c\/$c/;
	push @{ $pgbench_s{$key} }, $seconds;
	run_row($pgb_runs, $fs->{name}, $strategy, $c, $round, sprintf('%.3f', $seconds), int($mb / $c) * $c,
		@$start{@settle_cols});
	return { seconds => $seconds };
});
for my $key (@pgbench_cells)
{
	my ($fs, $strategy, $c) = @{ $pgbench_cell{$key} };
	my $s = median(@{ $pgbench_s{$key} });
	tsv_row($pgb, $fs->{name}, $strategy, $c, 'ok', $pgbench_took->{$key}, sprintf('%.3f', $s),
		sprintf('%.0f', int($mb / $c) * $c / $s));
}
tsv_row($pgb, $_->{name}, '', '', "not measured: $_->{status}", ('') x 3) for @$fs_missing;
close $pgb;
close $pgb_runs;

# 3. Sizing by the waiters, without and with 82a4edab's fix.
my @sizing_cols = qw(experiment variant status ops seconds p50_us p99_us max_us user_ms sys_ms
  sessions sizing pages fallocates zero_writes data_writes switches mean_extension_blocks lock_wait_ms
  vcsw filesystem extents size_histogram);
my $sizing_runs = runs_open($sizing_runs_file, qw(fs round), @sizing_cols, @settle_cols);
my %sized;    # fs/sessions -> sizing -> [rows]
my %fs_named = map { $_->{name} => $_ } @fs;
my @sizing_cells = map { my $fs = $_; map { "$fs->{name}/$_" } @sizing_sessions } @fs;
my $sizing_took = repeat_rounds('extend-sizing', \@sizing_cells, $rounds, sub {
	my ($key, $round, $label) = @_;
	my ($name, $n) = split m{/}, $key;
	my $fs = $fs_named{$name};
	my %m;
	for my $sizing ($round % 2 ? @sizings : reverse @sizings)
	{
		cell("extend sized by $sizing, $name, $n sessions, $label", part => 'sizing', sizing => $sizing, fs => $name, sessions => $n);
		my $start = settle_fs($fs->{dir});
		my $r = bench_query($node,
			"SELECT * FROM uringprobe_extend('$fs->{dir}', 'mdzeroextend', 'sync', total_mb => $mb, "
			  . "write_data => true, sessions => $n, sizing => '$sizing', seed => $round)");
		run_row($sizing_runs, $name, $round, (map { $r->{$_} } @sizing_cols), @$start{@settle_cols});
		push @{ $sized{$key}{$sizing} }, $r;
		$m{$sizing} = $r->{seconds};
	}
	return \%m;
});
close $sizing_runs;
my $sz = tsv_open($sizing_file, qw(fs sessions status rounds waiters_s waiters_range prior_s prior_range
	  ratio waiters_switches prior_switches waiters_blocks prior_blocks waiters_fallocates
	  waiters_zero_writes prior_fallocates prior_zero_writes ratio_ci95 ratio_verdict));
for my $fs (@fs)
{
	for my $n (@sizing_sessions)
	{
		my ($w, $p) = map { $sized{"$fs->{name}/$n"}{$_} } @sizings;
		my %m;
		for my $c (qw(seconds switches mean_extension_blocks fallocates zero_writes))
		{
			$m{w}{$c} = median(map { $_->{$c} } @$w);
			$m{p}{$c} = median(map { $_->{$c} } @$p);
		}
		tsv_row($sz, $fs->{name}, $n, 'ok', $sizing_took->{"$fs->{name}/$n"}, sprintf('%.3f', $m{w}{seconds}),
			spread(map { $_->{seconds} } @$w), sprintf('%.3f', $m{p}{seconds}),
			spread(map { $_->{seconds} } @$p), sprintf('%.2f', $m{w}{seconds} / $m{p}{seconds}),
			$m{w}{switches}, $m{p}{switches}, sprintf('%.1f', $m{w}{mean_extension_blocks}),
			sprintf('%.1f', $m{p}{mean_extension_blocks}), $m{w}{fallocates}, $m{w}{zero_writes},
			$m{p}{fallocates}, $m{p}{zero_writes},
			ratio_interval([ map { $_->{seconds} } @$w ], [ map { $_->{seconds} } @$p ]));
	}
}
tsv_row($sz, $_->{name}, '', "not measured: $_->{status}", ('') x 18) for @$fs_missing;
close $sz;
$node->stop;
