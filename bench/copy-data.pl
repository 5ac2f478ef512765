# The data for the concurrent-COPY benchmark: FILE of about MB megabytes of
# CSV rows, the same every time, in one of two shapes:
#   wide    id, a number, 90 characters of text (about 110 bytes a line):
#           COPY's batches of 64 kB of lines fill about 10 pages each
#   narrow  one integer (about 8 bytes a line): batches of 1000 rows fill
#           about 5 pages each, so an extension is 8 blocks or fewer
#           unless other sessions wait (mdzeroextend's zeros), more when
#           they do (fallocate)
#
#   perl bench/copy-data.pl FILE MB [wide|narrow]
use strict;
use warnings;

my ($file, $mb, $shape) = @ARGV;
$shape //= 'wide';
die "usage: copy-data.pl FILE MB [wide|narrow]\n"
  unless $file && $mb && $mb =~ /^\d+$/ && $mb > 0 && $shape =~ /^(wide|narrow)$/;
open my $fh, '>', $file or die "cannot write $file: $!\n";
my $bytes = 0;
my $x = 12345;    # a small LCG: reproducible, and not all alike
my @chars = ('a' .. 'z', 'A' .. 'Z', '0' .. '9');
for (my $id = 1; $bytes < $mb * 1048576; $id++)
{
	$x = ($x * 1103515245 + 12345) % 2147483648;
	my $line;
	if ($shape eq 'narrow')
	{
		$line = ($x % 10000000) . "\n";
	}
	else
	{
		my $text = join('', map { $chars[ ($x >> $_) % @chars ] } 0 .. 14) x 6;
		$line = "$id," . ($x % 1000000) . ",$text\n";
	}
	print $fh $line;
	$bytes += length $line;
}
close $fh or die "cannot write $file: $!\n";
