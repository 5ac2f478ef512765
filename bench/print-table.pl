# Print a results TSV (first row: column names) as an aligned table, long
# values cut to fit the terminal's width per column.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tools/perl";
use Uringprobe::TextTable;

my $file = shift @ARGV or die "usage: print-table.pl RESULTS.tsv [MAX_WIDTH]\n";
print text_table([ read_tsv($file) ], shift @ARGV);
