# pg_regress (sql/, expected/) against a cluster of every server flavour
# under every io_method it has (sync, worker and io_uring on PostgreSQL 18;
# sync before): the SQL surface, argument errors and permissions,
# deterministically. Every pg_regress test file is one test here, so that
# make test counts them.
use strict;
use warnings;
use FindBin;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

my $suite = "$FindBin::RealBin/..";
# the test files, as the Makefile's REGRESS lists them (make installcheck)
my @tests = split ' ', regress_list($suite);

# The result of every test file in pg_regress's output: name => 1 (passed)
# or 0. PostgreSQL 16 and later print TAP ("ok 1 - name 25 ms"), earlier
# versions "test name ... ok 25 ms".
sub regress_results
{
	my ($output) = @_;
	my %result;
	for my $line (split /\n/, $output)
	{
		if ($line =~ /^(not )?ok\s+\d+\s+[-+]\s+(\S+)/) { $result{$2} = $1 ? 0 : 1; }
		elsif ($line =~ /^(?:test\s+)?(\S+)\s+\.\.\.\s+(ok|FAILED|failed)\b/) { $result{$1} = $2 eq 'ok' ? 1 : 0; }
	}
	return \%result;
}

for my $server (servers())
{
	for my $io_method (io_methods($server))
	{
		my $cell = "$server->{name}/$io_method";
		my ($node) = start_cluster(server => $server, io_method => $io_method,
			name => "regress_$server->{name}_$io_method");
		# kept with the logs, for the diffs and results
		my $outdir = "$PostgreSQL::Test::Utils::log_path/pg_regress_$server->{name}_$io_method";
		my ($stdout, $stderr) = run_command([
			$server->{pg_regress},
			"--bindir=$server->{bindir}",
			"--inputdir=$suite",
			"--outputdir=$outdir",
			'--host=' . $node->host,
			'--port=' . $node->port,
			'--dbname=contrib_regression',
			@tests ]);
		my $results = regress_results($stdout);
		for my $test (@tests)
		{
			ok($results->{$test}, "$cell: pg_regress $test")
			  or diag(exists $results->{$test} ? "$test: see $outdir/regression.diffs" : "$test did not run:\n$stdout$stderr");
		}
		if (-f "$outdir/regression.diffs" && grep { !$_ } values %$results)
		{
			diag(slurp_file("$outdir/regression.diffs"));
		}
		$node->stop;
	}
}

done_testing();
