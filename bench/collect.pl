# results.csv of a results directory: every run of every benchmark (each
# file whose rows are runs, as Uringprobe::Manifest declares them) as
# one CSV, a row per cell and repetition, with a benchmark column (the
# benchmark, or its spread table's name) and the union of all the
# parameter and measurement columns (empty where a benchmark has none).
#
#   perl bench/collect.pl RESULTS_DIR
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tools/perl";
use Uringprobe::Manifest qw(runs_specs);

my $dir = shift @ARGV or die "usage: collect.pl RESULTS_DIR\n";
-d $dir or die "$dir is not a directory\n";
my @specs = sort { $a->{file} cmp $b->{file} } grep { -f "$dir/$_->{file}" } runs_specs();
die "no runs in $dir\n" unless @specs;

my (@columns, %seen, @rows);
for my $spec (@specs)
{
	my $file = "$dir/$spec->{file}";
	my $benchmark = $spec->{name} // $spec->{bench};
	open my $fh, '<', $file or die "cannot read $file: $!\n";
	chomp(my $header = <$fh> // '');
	my @cols = split /\t/, $header;
	for my $c (@cols)
	{
		push @columns, $c unless $seen{$c}++;
	}
	while (my $line = <$fh>)
	{
		chomp $line;
		my %r;
		@r{@cols} = split /\t/, $line, -1;
		push @rows, { %r, benchmark => $benchmark };
	}
}

sub csv
{
	my ($v) = @_;
	$v //= '';
	return $v =~ /[",\n]/ ? '"' . ($v =~ s/"/""/gr) . '"' : $v;
}

my $out = "$dir/results.csv";
open my $fh, '>', "$out.tmp" or die "cannot write $out.tmp: $!\n";
print $fh join(',', map { csv($_) } 'benchmark', @columns), "\n";
print $fh join(',', map { csv($_) } $_->{benchmark}, @{$_}{@columns}), "\n" for @rows;
close $fh or die "cannot write $out.tmp: $!\n";
# only a complete file gets the name
rename "$out.tmp", $out or die "cannot rename $out.tmp: $!\n";
print scalar(@rows), " runs of ", scalar(@specs), " benchmarks in $out\n";
