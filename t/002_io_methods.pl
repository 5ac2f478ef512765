# A cluster of every server flavour under every io_method it has: the
# io_method really took effect, the extension installs, and the environment report's
# prediction of PostgreSQL 18's rings matches the postmaster's file
# descriptors and mappings.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

for my $server (servers())
{
	for my $io_method (io_methods($server))
	{
		my $cell = "$server->{name}/$io_method";
		my ($node, $started) = start_cluster(
			server => $server,
			io_method => $io_method,
			fail_ok => $io_method eq 'io_uring');
		if (!$started)
		{
			my $log = slurp_file($node->logfile);
			my ($why) = $log =~ /(could not setup io_uring queue: [^\n]*)/;
		  SKIP:
			{
				skip "$cell: the kernel refuses io_uring here: "
				  . ($why // 'server did not start'), 1
				  if defined $why;
				fail("$cell: the server did not start");
			}
			next;
		}
		$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
		my $env = environment($node);
		my $pid = postmaster_pid($node);
		my $fds = io_uring_fds($pid);
		my $maps = io_uring_mappings($pid);

		if ($server->{major} < 18)
		{
			is($env->{'server.io_method'}[0], 'not applicable', "$cell: io_method not applicable");
			is($env->{'pg18.io_uring.verdict'}[0], 'not applicable', "$cell: no ring verdict");
			is($fds, 0, "$cell: the postmaster has no io_uring instance");
		}
		elsif ($io_method ne 'io_uring')
		{
			is($env->{'server.io_method'}[0], $io_method, "$cell: the report shows io_method");
			is($fds, 0, "$cell: the postmaster has no io_uring instance");
			is($maps, 0, "$cell: the postmaster maps no io_uring ring");
		}
		else
		{
			my $rings = $env->{'pg18.io_uring.rings'}[0];
			is($env->{'server.io_method'}[0], 'io_uring', "$cell: the report shows io_method");
			cmp_ok($rings, '>', 0, "$cell: rings predicted");
			is($fds, $rings, "$cell: predicted rings = io_uring fds held by the postmaster");
			is($maps, $env->{'pg18.io_uring.mappings'}[0],
				"$cell: predicted ring mappings = io_uring mappings in the postmaster");
			is($env->{'pg18.io_uring.verdict'}[0], 'ok', "$cell: verdict ok for a running server");

			my $no_mmap = $env->{'io_uring.setup.NO_MMAP'}[0];
			if ($server->{name} eq 'pg18-separate')
			{
				is($env->{'pg18.io_uring.layout'}[0], 'separate', "$cell: one mapping set per ring");
				cmp_ok($maps, '>=', $rings, "$cell: at least one mapping per ring");
			}
			elsif ($server->{name} eq 'pg18-combined')
			{
			  SKIP:
				{
					skip "$cell: the kernel rejects IORING_SETUP_NO_MMAP ($no_mmap)", 2
					  unless $no_mmap eq 'accepted';
					is($env->{'pg18.io_uring.layout'}[0], 'one region', "$cell: all rings in one region");
					is($maps, 0, "$cell: no per-ring mappings");
				}
			}
		}
		$node->stop;
	}
}

done_testing();
