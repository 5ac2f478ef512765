# Before make bench BASELINE=DIR runs: is DIR the results of an earlier run
# that this one can be compared with — the same machine and CPU, and some
# of the benchmarks about to run? Exits 0, or dies saying why not.
#
#   perl bench/check-baseline.pl DIR --benchmarks 'NAME ...' [--machine M --cpu MODEL]
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tools/perl";
use Getopt::Long;
use Uringprobe::Report::Baseline;

my ($benchmarks, $machine, $cpu);
GetOptions('benchmarks=s' => \$benchmarks, 'machine=s' => \$machine, 'cpu=s' => \$cpu)
  or die "usage: check-baseline.pl DIR --benchmarks 'NAME ...' [--machine M --cpu MODEL]\n";
my $dir = shift @ARGV or die "usage: check-baseline.pl DIR --benchmarks 'NAME ...' [--machine M --cpu MODEL]\n";
check_baseline($dir, $benchmarks, $machine, $cpu);
