# The rows of a results directory's TSV files as hashes by column, and the
# values of one column in the rows that match: the one reader of the
# runs and tables files for the findings, the advice checks and the
# report.
#
#   my $runs = ok_rows($dir, file_of(churn => 'runs'));
#   my $ms = values_where($runs, 'conn_ms', server => 'pg18-separate');
package Uringprobe::TsvRows;

use strict;
use warnings;
use Exporter 'import';
use Uringprobe::TextTable qw(read_tsv);

our @EXPORT_OK = qw(rows ok_rows rows_where values_where);

# Every row of $dir/$file ([] when there is no such file).
sub rows
{
	my ($dir, $file) = @_;
	return [] unless -f "$dir/$file";
	my ($h, @rows) = read_tsv("$dir/$file");
	return [ map { my $r = $_; +{ map { $h->[$_] => $r->[$_] } 0 .. $#$h } } @rows ];
}

# The rows that ran: status ok, or no status column.
sub ok_rows
{
	return [ grep { ($_->{status} // 'ok') eq 'ok' } @{ rows(@_) } ];
}

# The rows whose every column given has the value given.
sub rows_where
{
	my ($rows, %match) = @_;
	return grep { my $r = $_; !grep { ($r->{$_} // '') ne $match{$_} } keys %match } @$rows;
}

# The values of $column in those rows, the empty ones left out.
sub values_where
{
	my ($rows, $column, %match) = @_;
	return [ grep { defined && $_ ne '' } map { $_->{$column} } rows_where($rows, %match) ];
}

1;
