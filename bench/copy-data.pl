# The data for the concurrent-COPY benchmark: FILE of about MB megabytes of
# CSV rows (id, a number, 90 characters of text), the same every time.
#
#   perl bench/copy-data.pl FILE MB
use strict;
use warnings;

my ($file, $mb) = @ARGV;
die "usage: copy-data.pl FILE MB\n" unless $file && $mb && $mb =~ /^\d+$/ && $mb > 0;
open my $fh, '>', $file or die "cannot write $file: $!\n";
my $bytes = 0;
my $x = 12345;    # a small LCG: reproducible, and not all alike
my @chars = ('a' .. 'z', 'A' .. 'Z', '0' .. '9');
for (my $id = 1; $bytes < $mb * 1048576; $id++)
{
	$x = ($x * 1103515245 + 12345) % 2147483648;
	my $text = join('', map { $chars[ ($x >> $_) % @chars ] } 0 .. 14) x 6;
	my $line = "$id," . ($x % 1000000) . ",$text\n";
	print $fh $line;
	$bytes += length $line;
}
close $fh or die "cannot write $file: $!\n";
