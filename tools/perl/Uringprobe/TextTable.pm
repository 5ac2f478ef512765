# Rows of cells as an aligned plain-text table, long values cut to a
# maximum width per column (the first column, the header and a status
# column, which holds why a cell has no numbers, never are).
package Uringprobe::TextTable;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT = qw(text_table read_tsv);

# The rows of a TSV file (the first is the header) as array refs.
sub read_tsv
{
	my ($file) = @_;
	open my $fh, '<', $file or die "cannot read $file: $!\n";
	return map { chomp; [ split /\t/, $_, -1 ] } <$fh>;
}

sub text_table
{
	my ($rows, $max) = @_;
	$max //= 24;
	my @width;
	my %whole = (0 => 1);
	$whole{$_} = 1 for grep { ($rows->[0][$_] // '') eq 'status' } 0 .. $#{ $rows->[0] // [] };
	for my $r (0 .. $#$rows)
	{
		my $row = $rows->[$r];
		for my $i (0 .. $#$row)
		{
			my $len = length($row->[$i] // '');
			$len = $max if $r > 0 && !$whole{$i} && $len > $max;
			$width[$i] = $len if !defined $width[$i] || $len > $width[$i];
		}
	}
	my $text = '';
	for my $r (0 .. $#$rows)
	{
		my $row = $rows->[$r];
		my @cells;
		for my $i (0 .. $#$row)
		{
			my $v = $row->[$i] // '';
			$v = substr($v, 0, $max - 1) . '~' if $r > 0 && !$whole{$i} && length $v > $max;
			push @cells, sprintf('%-*s', $width[$i], $v);
		}
		$text .= join('  ', @cells) =~ s/\s+$//r . "\n";
	}
	return $text;
}

1;
