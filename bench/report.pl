# The report of a make bench run, from its results directory:
#
#   report.md    plain-text tables for a mailing list: the machine, kernel,
#                profile and servers, every benchmark's tables, and per
#                benchmark the spread of its cells (median, min-max over the
#                repetitions; cells spread more than 10% are flagged)
#   report.html  the same, self-contained, with the plots inline (SVG, and
#                the PNG embedded as a download)
#   results.json the configuration echo, the environment report of every server, the
#                cells with their repetitions, and the latency histograms
#
#   perl bench/report.pl RESULTS_DIR [--baseline DIR | --baseline-db HOST[@TIME]] [--threshold PCT]
#   perl bench/report.pl --findings-md [--in-full] RESULTS_DIR
#
# The model of the results is Uringprobe::Report::Results, the renderers
# ::Markdown and ::Html, the comparison with a baseline ::Baseline (and
# bench/check-baseline.pl before a run).
#
# --findings-md prints what the run found of each report as a markdown
# table, from the run's runs files and run.tsv alone: the README's, a
# headline figure or two per report; with --in-full, docs/findings.md's,
# every figure with its 95% interval and runs.
#
# With --baseline (the results directory of an earlier run), every cell the
# two runs share gets the ratio of the medians, and a cell worse by more
# than --threshold percent (default 10) is a regression: the report lists
# them and this script exits with status 3. --baseline-db takes the
# baseline from the results database instead (bench/results-db baseline:
# host HOST's newest run of this run's profile, or the one started at
# TIME, "YYYY-MM-DD HH:MI"). A baseline that shares no cell
# with the run, or measures a benchmark over other parameters, is refused.
#
# RESULTS_DIR holds what tools/run-bench wrote: run.tsv (the run: machine,
# profile, variables, servers), report.list (the report's sections, tables
# and plots in order), the TSVs and plots. Outputs are written beside them
# under temporary names and renamed when complete.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tools/perl";
use Getopt::Long;
use JSON::PP;
use Uringprobe::Findings;
use Uringprobe::Report::Baseline;
use Uringprobe::Report::Html;
use Uringprobe::Report::Markdown;
use Uringprobe::Report::Results;
use Uringprobe::Stats qw($noisy_pct);
use Uringprobe::TextTable qw(read_tsv);

my $usage = "usage: report.pl RESULTS_DIR [--baseline DIR | --baseline-db HOST[\@TIME]] [--threshold PCT]\n"
  . "       report.pl --findings-md [--in-full] RESULTS_DIR\n";
my ($baseline_dir, $baseline_db, $threshold, $findings_md, $in_full) = (undef, undef, 10);
GetOptions(
	'findings-md' => \$findings_md,
	'in-full' => \$in_full,
	'baseline=s' => \$baseline_dir,
	'baseline-db=s' => \$baseline_db,
	'threshold=f' => \$threshold) or die $usage;

# The findings as the README's table: report, verdict, what was measured.
if ($findings_md)
{
	my $dir = shift @ARGV or die $usage;
	-f "$dir/run.tsv" or die "$dir has no run.tsv: not the results of a make bench run\n";
	my %r = map { $_->[0] => $_->[1] } read_tsv("$dir/run.tsv");
	my $cell = sub { return $_[0] =~ s/\|/\\|/gr; };
	print "| finding | verdict | measured here |\n|---|---|---|\n";
	print '| ' . join(' | ', map { $cell->($_) } "$_->{report}: $_->{title}", $_->{verdict}, $in_full ? $_->{here} : $_->{headline}) . " |\n"
	  for findings($dir, $r{benchmarks}, $r{kernel} // '', $r{cpus});
	exit 0;
}

my $dir = shift @ARGV or die $usage;
my $r = read_results($dir);
$threshold > 0 or die "the threshold must be a positive percentage, got $threshold\n";
die "give --baseline or --baseline-db, not both\n" if defined $baseline_dir && defined $baseline_db;
compare_with_baseline($r, $baseline_dir, $threshold) if defined $baseline_dir;
if (defined $baseline_db)
{
	my ($host, $time) = split /@/, $baseline_db, 2;
	my @cmd = ("$FindBin::Bin/results-db", 'baseline', '--host', $host, '--profile', $r->{run}{profile} // '',
		(defined $time ? ('--started', $time) : ()));
	open my $fh, '-|', @cmd or die "cannot run bench/results-db: $!\n";
	my $json = do { local $/; <$fh> };
	close $fh or die "bench/results-db found no baseline for $baseline_db (its error above)\n";
	my $base = JSON::PP->new->decode($json);
	$baseline_dir = "the results database (host $base->{run}{host}, started $base->{run}{started})";
	compare_with_baseline($r, $baseline_dir, $threshold, $base);
}
arrange_report($r);

# results.json: the configuration echo, the environment report of every
# server, the cells with their repetitions, and the latency histograms.
my $run = $r->{run};
my %json = (
	format => results_format(),
	run => { %$run, failed => $r->{failed}, timing => $r->{timing}, (defined $r->{error} ? (error => $r->{error}) : ()) },
	config => $r->{config},
	servers => $r->{servers},
	environment => $r->{environment},
	noisy_threshold_pct => $noisy_pct,
	findings => $r->{findings},
	advice => { map { $_ => $r->{advice}{$_} } @{ $r->{advice_servers} } },
	rounds => $r->{rounds},
	cells => $r->{cells},
	histograms => $r->{histograms});
$json{baseline} = $r->{baseline} if $r->{baseline};

# Write $name in $dir from a complete temporary file.
sub write_file
{
	my ($name, $content) = @_;
	my $tmp = "$dir/.$name.tmp";
	open my $fh, '>', $tmp or die "cannot write $tmp: $!\n";
	print $fh $content;
	close $fh or die "cannot write $tmp: $!\n";
	rename $tmp, "$dir/$name" or die "cannot rename $tmp: $!\n";
}
write_file('report.md', report_markdown($r));
write_file('report.html', report_html($r));
write_file('results.json', JSON::PP->new->canonical->pretty->encode(\%json));
my @cells = @{ $r->{cells} };
my @regressions = @{ $r->{regressions} // [] };
print "report.md, report.html and results.json in $dir: " . scalar(@cells) . " cells, "
  . scalar(grep { $_->{noisy} } @cells) . " noisy"
  . ($r->{baseline} ? ", $r->{baseline}{compared} compared with $baseline_dir, " . scalar(@regressions) . " regressions" : '')
  . "\n";
# advice the workload it is for contradicted in this run: a failure like a
# regression (status 4; 3 where there are regressions too), but for advice
# of confidence low (decided on too few rounds or none), which is named
my @contradicted = @{ $r->{contradicted} // [] };
print "$r->{advice_counts}\n" if $r->{advice_counts};
print "advice contradicted by its workload: " . join('; ', @contradicted) . " (see report.md)\n" if @contradicted;
print "advice of confidence low contradicted by its workload (a guess: too few rounds, or a lean its interval did not show; not a failure): "
  . join('; ', @{ $r->{low_contradicted} }) . "\n"
  if @{ $r->{low_contradicted} // [] };
exit(@regressions ? 3 : @contradicted ? 4 : 0);
