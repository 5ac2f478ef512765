# The events loop against the bare epoll loop, side by side: RUNS pairs of
# bench/epoll-pingpong.c (compiled here, cc -O2) and `CLI events --loop
# epoll` (one pipe, peer self, EVENTS events each), one right after the
# other, alternating which goes first. Prints each pair's events per
# second and their ratio, then the median of the ratios and the ratio of
# the best of each side. The careful form of the events benchmark's
# cli_vs_reference, whose runs lie among many other cells (in the quick
# profile 3 rounds of 100000 events: it spreads over several percent).
#
#   perl bench/events-vs-reference.pl CLI [RUNS [EVENTS]]   (41, 300000)
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);

my ($cli, $runs, $events) = @ARGV;
die "usage: events-vs-reference.pl CLI [RUNS [EVENTS]]\n" unless $cli && -x $cli;
$runs //= 41;
$events //= 300000;
my $dir = tempdir(CLEANUP => 1);
my $reference = "$dir/epoll-pingpong";
system('cc', '-O2', '-o', $reference, dirname(__FILE__) . '/epoll-pingpong.c') == 0
  or die "could not compile bench/epoll-pingpong.c\n";

sub reference_rate
{
	my ($line) = `$reference $events` or die "$reference failed\n";
	return (split /\t/, $line)[2];
}

sub cli_rate
{
	my @lines = `$cli events --loop epoll --pipes 1 --peer self --events $events --format tsv`;
	die "$cli events failed\n" unless @lines == 2;
	chomp @lines;
	my @names = split /\t/, $lines[0];
	my %row;
	@row{@names} = split /\t/, $lines[1];
	return $row{ops_per_sec};
}

sub median
{
	my @s = sort { $a <=> $b } @_;
	return @s % 2 ? $s[$#s / 2] : ($s[@s / 2 - 1] + $s[@s / 2]) / 2;
}

my (@ref, @ours, @ratio);
print "run\treference_events_s\tcli_events_s\tratio\n";
for my $run (1 .. $runs)
{
	my ($r, $c);
	if ($run % 2) { $r = reference_rate(); $c = cli_rate(); }
	else { $c = cli_rate(); $r = reference_rate(); }
	push @ref, $r;
	push @ours, $c;
	push @ratio, $c / $r;
	printf "%d\t%.0f\t%.0f\t%.4f\n", $run, $r, $c, $c / $r;
}
my ($best_ref) = sort { $b <=> $a } @ref;
my ($best_ours) = sort { $b <=> $a } @ours;
printf "median of the ratios %.4f, best / best %.4f (%d runs of %d events each side)\n",
  median(@ratio), $best_ours / $best_ref, $runs, $events;
