# Print a results TSV (first row: column names) as an aligned table, long
# values cut to fit the terminal's width per column; COLUMNS (comma
# separated) the columns printed, where not all.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tools/perl";
use Uringprobe::TextTable;

my ($file, $width, $columns) = @ARGV;
die "usage: print-table.pl RESULTS.tsv [MAX_WIDTH [COLUMNS]]\n" unless defined $file;
my @rows = read_tsv($file);
if (@rows && ($columns // '') ne '')
{
	my %at = map { $rows[0][$_] => $_ } 0 .. $#{ $rows[0] };
	my @keep = grep { defined } map { $at{$_} } split /,/, $columns;
	@rows = map { [ @$_[@keep] ] } @rows;
}
print text_table(\@rows, $width);
