# The statistics of repeated runs, shared by the benchmark scripts (through
# Uringprobe::BenchScript) and the report: medians, a cell's spread, whether a
# run was disturbed, and a ratio's bootstrap interval. No PostgreSQL
# modules: bench/report.pl loads it too.
package Uringprobe::Stats;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT = qw(median least spread robust_spread range_spread noisy disturbed ratio_interval
  $noisy_pct $disturbed_steal_pct $disturbed_foreign_pct);

# A cell is noisy when its spread is above this percentage of its median.
our $noisy_pct = 10;
# A run was measured while the machine was visibly busy elsewhere when more
# than this share of its CPU was stolen by the hypervisor, or used by other
# processes.
our ($disturbed_steal_pct, $disturbed_foreign_pct) = (5, 10);

sub numbers { return grep { defined && $_ ne '' && /^-?[\d.]+(e[-+]?\d+)?$/i } @_; }

# Median of the numeric values; '' when there are none.
sub median
{
	my @v = sort { $a <=> $b } numbers(@_);
	return '' unless @v;
	return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
}

sub least { my @v = sort { $a <=> $b } @_; return $v[0]; }

# "min-max" of the values, to two decimals.
sub spread { my @v = sort { $a <=> $b } @_; return sprintf('%.2f-%.2f', $v[0], $v[-1]); }

# The spread of a cell's runs, in percent of their median: the median
# absolute deviation scaled by 1.4826 (for runs spread normally it is their
# standard deviation; pyperf reports a median with its MAD, hyperfine
# finds outliers with it), so that one run disturbed among many does not
# make the whole cell noisy, and more runs make it surer instead of only
# ever wider. undef with fewer than 2 runs or a zero median.
sub robust_spread
{
	my @v = numbers(@_);
	return undef if @v < 2;
	my $m = median(@v);
	return undef unless $m;
	return 100 * 1.4826 * median(map { abs($_ - $m) } @v) / abs($m);
}

# The runs' range (max - min) in percent of their median: it can only grow
# with more runs; shown beside the spread.
sub range_spread
{
	my @v = sort { $a <=> $b } numbers(@_);
	return undef if @v < 2;
	my $m = median(@v);
	return undef unless $m;
	return 100 * ($v[-1] - $v[0]) / abs($m);
}

sub noisy { my $s = robust_spread(@_); return defined $s && $s > $noisy_pct; }

# Whether a run's weather (steal and foreign CPU, in percent) disturbed it.
sub disturbed
{
	my ($steal, $foreign) = @_;
	return (defined $steal && $steal =~ /^[\d.]+$/ && $steal > $disturbed_steal_pct)
	  || (defined $foreign && $foreign =~ /^[\d.]+$/ && $foreign > $disturbed_foreign_pct);
}

# The ratio of the medians of two sides' runs (\@x over \@y) with its 95%
# bootstrap interval: 2000 resamples of each side with replacement, the
# 2.5th and 97.5th percentiles of their ratios of medians, from a fixed
# seed so that the same runs always give the same interval. Returns the
# interval as "lo-hi" and a verdict: "differs" when it excludes 1, "no
# difference detectable" when it holds it; fewer than 3 runs a side give no
# interval. With 3 runs a side the interval is about that of the extreme
# runs: only runs that do not overlap differ.
sub ratio_interval
{
	my ($x, $y) = @_;
	my @x = numbers(@$x);
	my @y = numbers(@$y);
	return ('', 'not measured') unless @x && @y;
	return ('', 'too few runs (' . scalar(@x) . ' and ' . scalar(@y) . ', 3 a side needed)') if @x < 3 || @y < 3;
	my $state = 20261202;
	my $draw = sub { $state = ($state * 1103515245 + 12345) % 2147483648; return $state / 2147483648; };
	my @ratios;
	for (1 .. 2000)
	{
		my $my = median(map { $y[ int($draw->() * @y) ] } @y);
		my $mx = median(map { $x[ int($draw->() * @x) ] } @x);
		push @ratios, $mx / $my if $my;
	}
	return ('', 'not measured') unless @ratios;
	@ratios = sort { $a <=> $b } @ratios;
	my ($lo, $hi) = @ratios[ int(0.025 * @ratios), int(0.975 * @ratios) - 1 ];
	return (sprintf('%.2f-%.2f', $lo, $hi), $lo > 1 || $hi < 1 ? 'differs' : 'no difference detectable');
}

1;
