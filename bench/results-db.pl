# The SQL of bench/results-db (Uringprobe::ResultsDb), printed:
#
#   perl bench/results-db.pl schema
#   perl bench/results-db.pl key DIR [--host NAME]       the WHERE clause naming its run
#   perl bench/results-db.pl load-sql DIR [--host NAME]  the transaction that loads it
#   perl bench/results-db.pl query NAME [--host NAME] [--other NAME]
#   perl bench/results-db.pl baseline-sql --host NAME [--profile P] [--started 'YYYY-MM-DD HH:MI']
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tools/perl";
use Getopt::Long;
use Uringprobe::ResultsDb qw(schema_sql read_run_dir load_sql run_key_sql query_sql baseline_sql);

my $cmd = shift @ARGV // '';
my ($host, $other, $profile, $started);
GetOptions('host=s' => \$host, 'other=s' => \$other, 'profile=s' => \$profile, 'started=s' => \$started) or die "results-db.pl: bad options\n";
if ($cmd eq 'schema') { print schema_sql(); }
elsif ($cmd eq 'key') { print run_key_sql(read_run_dir(shift(@ARGV) // die("key: no directory\n"), host => $host)), "\n"; }
elsif ($cmd eq 'load-sql') { print load_sql(read_run_dir(shift(@ARGV) // die("load-sql: no directory\n"), host => $host)); }
elsif ($cmd eq 'baseline-sql') { print baseline_sql(host => $host, profile => $profile, started => $started); }
elsif ($cmd eq 'query') { print query_sql(shift(@ARGV) // die("query: no name\n"), host => $host, other => $other); }
else { die "usage: results-db.pl schema | key DIR | load-sql DIR | query NAME | baseline-sql --host NAME\n"; }
