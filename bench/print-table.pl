# Print a results TSV (first row: column names) as an aligned table, long
# values cut to fit the terminal's width per column.
use strict;
use warnings;

my $file = shift @ARGV or die "usage: print-table.pl RESULTS.tsv [MAX_WIDTH]\n";
my $max = shift @ARGV // 24;
open my $fh, '<', $file or die "cannot read $file: $!\n";
my @rows = map { chomp; [ split /\t/, $_, -1 ] } <$fh>;
my @width;
for my $row (@rows)
{
	for my $i (0 .. $#$row)
	{
		my $len = length $row->[$i];
		$len = $max if $i > 0 && $len > $max;
		$width[$i] = $len if !defined $width[$i] || $len > $width[$i];
	}
}
for my $row (@rows)
{
	my @cells;
	for my $i (0 .. $#$row)
	{
		my $v = $row->[$i];
		$v = substr($v, 0, $max - 1) . '~' if $i > 0 && length $v > $max;
		push @cells, sprintf('%-*s', $width[$i], $v);
	}
	print join('  ', @cells), "\n";
}
