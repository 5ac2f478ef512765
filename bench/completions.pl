# Reaping completions one by one or in batches (seeds/002_*):
# uringprobe_completions() in a backend and `uringprobe-cli completions` in
# a bare process, over op x setup flags x depth x reaping, in rounds that
# alternate which side goes first. ns per completion, medians.
#
#   perl bench/completions.pl RUNS.tsv COMPARISON.tsv
# Each configuration runs for about URINGPROBE_COMPLETIONS_SECONDS (0.5):
# a calibration run in the backend sets the count both sides then use.
# Environment: URINGPROBE_COMPLETIONS_OPS ("nop recv"),
# URINGPROBE_COMPLETIONS_DEPTHS ("1 8 32 128"), URINGPROBE_COMPLETIONS_FLAGS
# ("none sqpoll"), URINGPROBE_COMPLETIONS_ROUNDS (3).
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Uringprobe::Bench;
use Uringprobe::Cluster;

my ($runs_file, $cmp_file) = @ARGV;
die "usage: completions.pl RUNS.tsv COMPARISON.tsv\n" unless $cmp_file;
my @ops = split ' ', ($ENV{URINGPROBE_COMPLETIONS_OPS} // 'nop recv');
my @depths = split ' ', ($ENV{URINGPROBE_COMPLETIONS_DEPTHS} // '1 8 32 128');
my @flag_sets = split ' ', ($ENV{URINGPROBE_COMPLETIONS_FLAGS} // 'none sqpoll');
my $run_seconds = $ENV{URINGPROBE_COMPLETIONS_SECONDS} // 0.5;
my $rounds = $ENV{URINGPROBE_COMPLETIONS_ROUNDS} // 3;
plan_cells($rounds * @ops * @flag_sets * @depths * 2 * 2);

my ($server) = sort { $b->{major} <=> $a->{major} } servers();
my $cli = "$server->{bindir}/uringprobe-cli";
my ($fs) = grep { $_->{name} eq 'default' } scratch_filesystems();
my ($node) = start_cluster(server => $server, name => 'completions_bench',
	settings => $fs ? ["uringprobe.scratch_dirs = '$fs->{dir}'"] : []);
$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');

my @cols = qw(variant status ops seconds user_ms sys_ms op depth batch reaping flags_in_effect
  ns_per_completion completions_per_enter enters sqpoll_cpu_ms errors);
my $runs = tsv_open($runs_file, qw(where round), @cols);
my %ns;    # key -> where -> [ns]; key -> 'row' -> last backend row
my %count;    # key -> completions per run
my @keys;

# Completions that take about $run_seconds, from 20000 of them.
sub calibrate
{
	my ($op, $depth, $reaping, $f) = @_;
	my $r = bench_query($node, "SELECT * FROM uringprobe_completions('$op', $depth, 0, '$reaping', '$f', 20000)");
	return 20000 unless $r->{status} eq 'ok' && $r->{ns_per_completion} > 0;
	my $n = int($run_seconds * 1e9 / $r->{ns_per_completion});
	return $n < 20000 ? 20000 : $n > 50000000 ? 50000000 : $n;
}
for my $round (1 .. $rounds)
{
	for my $op (@ops)
	{
		for my $flags (@flag_sets)
		{
			my $f = $flags eq 'none' ? '' : $flags;
			for my $depth (@depths)
			{
				for my $reaping (qw(each batch))
				{
					my $key = join("\t", $op, $flags, $depth, $reaping);
					if ($round == 1)
					{
						push @keys, $key;
						$count{$key} = calibrate($op, $depth, $reaping, $f);
					}
					my $n = $count{$key};
					my @order = $round % 2 ? qw(backend cli) : qw(cli backend);
					for my $where (@order)
					{
						cell("completions $op, flags $flags, depth $depth, reaping $reaping, "
							  . ($where eq 'cli' ? 'bare process' : $where) . ", round $round/$rounds");
						my $r = $where eq 'backend'
						  ? bench_query($node,
							"SELECT * FROM uringprobe_completions('$op', $depth, 0, '$reaping', '$f', $n)")
						  : cli_row($cli, 'completions', '--op', $op, '--depth', $depth, '--reaping', $reaping,
							($f ? ('--flags', $f) : ()), '--completions', $n,
							($fs ? ('--dir', $fs->{dir}) : ()));
						tsv_row($runs, $where, $round, map { $r->{$_} } @cols);
						next unless $r->{status} eq 'ok';
						push @{ $ns{$key}{$where} }, $r->{ns_per_completion};
						$ns{$key}{row} = $r if $where eq 'backend';
					}
				}
			}
		}
	}
}
close $runs;
$node->stop;

my $cmp = tsv_open($cmp_file, qw(op flags depth reaping rounds completions backend_ns cli_ns ratio
	  min_ratio completions_per_enter sqpoll_cpu_ms status));
# Sorted so that each line of the plot (op, flags, reaping) is contiguous.
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
		tsv_row($cmp, split(/\t/, $key), $rounds, $count{$key}, ('') x 6, 'not run: see the runs file');
		next;
	}
	my ($bk, $c) = (median(@{ $s->{backend} }), median(@{ $s->{cli} }));
	tsv_row($cmp, split(/\t/, $key), $rounds, $count{$key}, sprintf("%.1f", $bk), sprintf("%.1f", $c),
		sprintf("%.2f", $bk / $c), sprintf("%.2f", least(@{ $s->{backend} }) / least(@{ $s->{cli} })),
		sprintf('%.1f', $s->{row}{completions_per_enter}), $s->{row}{sqpoll_cpu_ms}, 'ok');
}
close $cmp;
