# Completions kept in flight (report 2): uringprobe_completions() in a
# backend and `uringprobe-cli completions` in a bare process, over op x
# setup flags x depth x pattern, in rounds that alternate which side goes
# first. Pattern 'each': every CQE taken off with its own head store and
# replaced by its own submission (report 2's: 100 receives in flight on an
# SQPOLL ring, one re-submitted per completion, is the cell recv/sqpoll/100/
# each); 'batch': the CQEs found taken off and replaced together. ns per
# completion, and the submitting thread's and the SQPOLL thread's CPU per
# completion, medians.
#
#   perl bench/completions.pl RUNS.tsv COMPARISON.tsv
# Each configuration runs for about URINGPROBE_COMPLETIONS_SECONDS (0.5):
# a calibration run in the backend sets the count both sides then use.
# Environment: URINGPROBE_COMPLETIONS_OPS ("nop recv"),
# URINGPROBE_COMPLETIONS_DEPTHS ("1 8 32 128"), URINGPROBE_COMPLETIONS_FLAGS
# ("none sqpoll"), URINGPROBE_COMPLETIONS_ROUNDS (3). Depths "1 8 32 100".
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Uringprobe::BenchScript;
use Uringprobe::Manifest qw(setting);
use Uringprobe::Cluster;

my ($runs_file, $cmp_file) = @ARGV;
die "usage: completions.pl RUNS.tsv COMPARISON.tsv\n" unless $cmp_file;
my @ops = split ' ', setting('URINGPROBE_COMPLETIONS_OPS');
my @depths = split ' ', setting('URINGPROBE_COMPLETIONS_DEPTHS');
my @flag_sets = split ' ', setting('URINGPROBE_COMPLETIONS_FLAGS');
my $run_seconds = setting('URINGPROBE_COMPLETIONS_SECONDS');
my $rounds = setting('URINGPROBE_COMPLETIONS_ROUNDS');
plan_cells($rounds * @ops * @flag_sets * @depths * 2 * 2);

my ($server) = sort { $b->{major} <=> $a->{major} } servers();
my $cli = "$server->{bindir}/uringprobe-cli";
my ($fs) = grep { $_->{name} eq 'default' } scratch_filesystems();
my ($node) = start_cluster(server => $server, name => 'completions_bench',
	settings => $fs ? ["uringprobe.scratch_dirs = '$fs->{dir}'"] : []);
$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');

my @cols = qw(variant status ops seconds user_ms sys_ms op depth resubmit reaping flags_in_effect
  ns_per_completion mean_in_flight completions_per_enter enters submitter_ns_per_completion
  sqpoll_ns_per_completion sqpoll_cpu_ms iowq_workers iowq_cpu_ms errors);
my $runs = runs_open($runs_file, qw(where round), @cols);
my %ns;    # key -> where -> [ns]; key -> "where/metric" -> [values]
my %count;    # key -> completions per run
my @keys;

# Completions that take about $run_seconds, from 20000 of them.
sub calibrate
{
	my ($op, $depth, $pattern, $f) = @_;
	my $r = bench_query($node,
		"SELECT * FROM uringprobe_completions('$op', $depth, '$pattern', '$pattern', '$f', 20000)");
	return 20000 unless $r->{status} eq 'ok' && $r->{ns_per_completion} > 0;
	my $n = int($run_seconds * 1e9 / $r->{ns_per_completion});
	return $n < 20000 ? 20000 : $n > 50000000 ? 50000000 : $n;
}
my %config;    # key -> [op, flags, depth, pattern, setup flags]
for my $op (@ops)
{
	for my $flags (@flag_sets)
	{
		my $f = $flags eq 'none' ? '' : $flags;
		for my $depth (@depths)
		{
			for my $pattern (qw(each batch))
			{
				my $key = join("\t", $op, $flags, $depth, $pattern);
				push @keys, $key;
				$config{$key} = [ $op, $flags, $depth, $pattern, $f ];
			}
		}
	}
}
my $took = repeat_rounds('completions', \@keys, $rounds, sub {
	my ($key, $round, $label) = @_;
	my ($op, $flags, $depth, $pattern, $f) = @{ $config{$key} };
	my $n = $count{$key} //= calibrate($op, $depth, $pattern, $f);
	my %m;
	for my $where ($round % 2 ? qw(backend cli) : qw(cli backend))
	{
		cell("completions $op, flags $flags, depth $depth, resubmit and reap $pattern, "
			  . ($where eq 'cli' ? 'bare process' : $where) . ", $label",
			where => $where, op => $op, flags => $flags, depth => $depth, resubmit => $pattern);
		my $r = $where eq 'backend'
		  ? bench_query($node,
			"SELECT * FROM uringprobe_completions('$op', $depth, '$pattern', '$pattern', '$f', $n)")
		  : cli_row($cli, 'completions', '--op', $op, '--depth', $depth, '--resubmit', $pattern,
			'--reaping', $pattern, ($f ? ('--flags', $f) : ()), '--completions', $n,
			($fs && $op eq 'read' ? ('--dir', $fs->{dir}) : ()));
		run_row($runs, $where, $round, map { $r->{$_} } @cols);
		next unless $r->{status} eq 'ok';
		$m{$where} = $r->{ns_per_completion};
		push @{ $ns{$key}{$where} }, $r->{ns_per_completion};
		next unless $where eq 'backend';
		for my $m (qw(mean_in_flight completions_per_enter submitter_ns_per_completion sqpoll_ns_per_completion))
		{
			push @{ $ns{$key}{"backend/$m"} }, $r->{$m} if ($r->{$m} // '') ne '';
		}
	}
	return \%m;
});
close $runs;
$node->stop;

# The backend's medians beside the comparison: what was in flight, the
# completions per io_uring_enter, the submitting thread's and the SQPOLL
# thread's CPU per completion (the report's metric); and the backend / bare
# process ratio's 95% bootstrap interval over the runs and whether it
# excludes 1.
my $cmp = tsv_open($cmp_file, qw(op flags depth pattern rounds completions backend_ns cli_ns ratio
	  min_ratio mean_in_flight completions_per_enter submitter_ns sqpoll_ns status ratio_ci95 ratio_verdict));
# Sorted so that each line of the plot (op, flags, pattern) is contiguous.
sub key_order
{
	my @a = split /\t/, $a;
	my @b = split /\t/, $b;
	return $a[0] cmp $b[0] || $a[1] cmp $b[1] || $a[3] cmp $b[3] || $a[2] <=> $b[2];
}
for my $key (sort key_order @keys)
{
	my $s = $ns{$key};
	if (!$s->{backend} || !$s->{cli})
	{
		tsv_row($cmp, split(/\t/, $key), $took->{$key}, $count{$key}, ('') x 8, 'not run: see the runs file', '', 'not measured');
		next;
	}
	my ($bk, $c) = (median(@{ $s->{backend} }), median(@{ $s->{cli} }));
	my $m = sub { my $v = $s->{"backend/$_[0]"}; return $v ? sprintf($_[1], median(@$v)) : ''; };
	tsv_row($cmp, split(/\t/, $key), $took->{$key}, $count{$key}, sprintf("%.1f", $bk), sprintf("%.1f", $c),
		sprintf("%.2f", $bk / $c), sprintf("%.2f", least(@{ $s->{backend} }) / least(@{ $s->{cli} })),
		$m->('mean_in_flight', '%.1f'), $m->('completions_per_enter', '%.1f'),
		$m->('submitter_ns_per_completion', '%.0f'), $m->('sqpoll_ns_per_completion', '%.0f'), 'ok',
		ratio_interval($s->{backend}, $s->{cli}));
}
close $cmp;
