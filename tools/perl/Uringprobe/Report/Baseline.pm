# A run against the results of an earlier one (make bench BASELINE=DIR):
#
#   check_baseline($bdir, $benchmarks, $machine, $cpu)  before a run: is it
#       usable here, for these benchmarks? (dies saying why not)
#   compare_with_baseline($r, $bdir, $threshold)  after it: every cell the
#       two runs share gets the ratio of the medians, and a cell worse by
#       more than $threshold percent is a regression ($r->{regressions});
#       a baseline that shares no cell, or measures a benchmark over other
#       parameters, is refused.
package Uringprobe::Report::Baseline;

use strict;
use warnings;
use Exporter 'import';
use JSON::PP;
use Uringprobe::Report::Results qw(cell_label fmt_num);

our @EXPORT = qw(results_format load_baseline check_baseline compare_with_baseline baseline_lines);

# What results.json says it is.
sub results_format { return 'uringprobe-results/1'; }

# The results.json of an earlier run, or a clear refusal.
sub load_baseline
{
	my ($bdir) = @_;
	my $json_file = "$bdir/results.json";
	die "BASELINE $bdir is not a directory\n" unless -d $bdir;
	die "BASELINE $bdir is not the results directory of a make bench run (no results.json)\n"
	  unless -f $json_file;
	my $base = eval { decode_json(do { local (@ARGV, $/) = $json_file; <> }) };
	die "BASELINE $json_file is not readable as JSON: $@" unless $base;
	die "BASELINE $json_file is not a make bench result (format '" . ($base->{format} // 'none')
	  . "', expected '" . results_format() . "')\n" unless ($base->{format} // '') eq results_format();
	return $base;
}

# Before a run: is the baseline usable, and does it have any of the
# benchmarks about to run? Figures are compared only with figures from the
# same hardware (a kernel or server upgrade on it is what a baseline is
# for).
sub check_baseline
{
	my ($bdir, $benchmarks, $machine, $cpu) = @_;
	my $base = load_baseline($bdir);
	my %had = map { $_ => 1 } split ' ', $base->{run}{benchmarks} // '';
	my @common = grep { $had{$_} } split ' ', $benchmarks // '';
	die "BASELINE $bdir ran none of the benchmarks '" . ($benchmarks // '')
	  . "' (it ran: $base->{run}{benchmarks}): incompatible matrix\n" unless @common;
	my $base_machine = ($base->{run}{machine} // '') =~ s/, kernel .*//r;
	die "BASELINE $bdir was measured on another machine ($base_machine"
	  . (defined $base->{run}{cpu} ? ", $base->{run}{cpu}" : '') . "; this one: $machine"
	  . (defined $cpu ? ", $cpu" : '') . "): its figures cannot be compared with this machine's;"
	  . " make a baseline here with the same profile first\n"
	  if defined $machine
	  && ($base_machine ne $machine || (defined $cpu && defined $base->{run}{cpu} && $cpu ne $base->{run}{cpu}));
	return;
}

# Against a baseline: the same benchmark, key and metric. Sets each shared
# cell's baseline_median, ratio, worse_pct and regression, and
# $r->{baseline} (what was compared) and $r->{regressions}. $bdir names
# it; $base, where given, is it already read (a run of the results
# database, bench/results-db baseline, in results_format()), else $bdir's
# results.json (load_baseline checks its format).
sub compare_with_baseline
{
	my ($r, $bdir, $threshold, $base) = @_;
	$threshold > 0 or die "the threshold must be a positive percentage, got $threshold\n";
	$base //= load_baseline($bdir);
	my %base_cells = map { join("\n", $_->{benchmark}, $_->{id}, $_->{metric}) => $_ } @{ $base->{cells} };
	my %base_keys = map { $_->{benchmark} => join(' ', sort keys %{ $_->{key} }) } @{ $base->{cells} };
	my ($compared, $missing) = (0, 0);
	my @regressions;
	for my $c (@{ $r->{cells} })
	{
		my $keys = join(' ', sort keys %{ $c->{key} });
		die "BASELINE $bdir measured $c->{benchmark} over ($base_keys{ $c->{benchmark} }), "
		  . "this run over ($keys): incompatible\n"
		  if exists $base_keys{ $c->{benchmark} } && $base_keys{ $c->{benchmark} } ne $keys;
		my $b = $base_cells{ join("\n", $c->{benchmark}, $c->{id}, $c->{metric}) };
		if (!$b) { $missing++; next; }
		$compared++;
		$c->{baseline_median} = $b->{median};
		my $ratio = $b->{median} ? $c->{median} / $b->{median} : undef;
		next unless defined $ratio && $ratio > 0;
		$c->{ratio} = sprintf('%.3f', $ratio) + 0;
		# percent worse, in the metric's direction
		my $worse = ($c->{better} eq 'lower' ? $ratio - 1 : 1 / $ratio - 1) * 100;
		$c->{worse_pct} = sprintf('%.1f', $worse) + 0;
		$c->{regression} = $worse > $threshold ? JSON::PP::true : JSON::PP::false;
		push @regressions, $c if $worse > $threshold;
	}
	die "BASELINE $bdir shares no cell with this run (its benchmarks: "
	  . join(' ', sort keys %base_keys) . "; its profile: " . ($base->{run}{profile} // '?')
	  . "): incompatible matrix\n" unless $compared;
	$r->{baseline} = { dir => $bdir, threshold_pct => $threshold, compared => $compared,
		not_in_baseline => $missing, run => $base->{run}, servers => $base->{servers},
		regressions => scalar(@regressions) };
	$r->{regressions} = \@regressions;
	return;
}

# The report's lines on the comparison, each regression with its medians.
sub baseline_lines
{
	my ($r) = @_;
	my $info = $r->{baseline} or return;
	my $b = $info->{run};
	my @regressions = @{ $r->{regressions} };
	return (
		"Baseline: $info->{dir} ($b->{machine}; profile $b->{profile}; started $b->{started})",
		"Baseline servers: " . join(', ', map { "$_->{name} $_->{version}" } @{ $info->{servers} }),
		"$info->{compared} cells compared, $info->{not_in_baseline} not in the baseline; "
		  . scalar(@regressions) . " worse by more than $info->{threshold_pct}%"
		  . (@regressions ? ':' : '.'),
		map {
			"- REGRESSION $_->{benchmark} " . cell_label($_) . " $_->{metric}: " . fmt_num($_->{baseline_median}) . ' -> '
			  . fmt_num($_->{median}) . " ($_->{worse_pct}% worse)"
		} @regressions);
}

1;
