# pg_regress (sql/, expected/) against a cluster of every server flavour:
# the SQL surface, argument errors and permissions, deterministically.
use strict;
use warnings;
use FindBin;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

my $suite = "$FindBin::RealBin/..";
my @tests = qw(environment rings extend completions events error_of bad_input_environment bad_input_rings
  bad_input_extend bad_input_completions bad_input_events permissions);

for my $server (servers())
{
	my ($node) = start_cluster(server => $server, name => "regress_$server->{name}");
	# kept with the logs, for the diffs and results
	my $outdir = "$PostgreSQL::Test::Utils::log_path/pg_regress_$server->{name}";
	my $rc = system($server->{pg_regress},
		"--bindir=$server->{bindir}",
		"--inputdir=$suite",
		"--outputdir=$outdir",
		'--host=' . $node->host,
		'--port=' . $node->port,
		'--dbname=contrib_regression',
		@tests);
	if ($rc != 0 && -f "$outdir/regression.diffs")
	{
		diag(PostgreSQL::Test::Utils::slurp_file("$outdir/regression.diffs"));
	}
	is($rc, 0, "pg_regress passes on $server->{name}");
	$node->stop;
}

done_testing();
