# uringprobe-cli: the same engine in a bare process; its usage errors.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

for my $server (servers())
{
	my $cli = "$server->{bindir}/uringprobe-cli";
	my ($out, $err);

	($out, $err) = run_command([ $cli, 'env', '--format', 'tsv' ]);
	like($out, qr/^process\tbare process\t/m, "$server->{name}: bare-process report");
	like($out, qr/^server\tnone\t/m, "$server->{name}: no server without settings");
	like($out, qr/^pg18\.io_uring\.verdict\tnot applicable\t/m,
		"$server->{name}: no ring verdict without a server");

	($out, $err) = run_command([ $cli, 'env', '--format', 'tsv', '--max-connections', '50' ]);
	like($out, qr/^server\.max_connections\t50\t/m, "$server->{name}: settings predict PostgreSQL 18");
	like($out, qr/^pg18\.io_uring\.rings\t92\t/m,
		"$server->{name}: rings = 50 + 16 + 8 + 10 + 2 + 6 with the other defaults");

	for my $bad (
		[ [ 'env', '--max-connections', '0' ], qr/max_connections must be between 1 and 262143, got 0/ ],
		[ [ 'env', '--io-max-concurrency', 'x' ], qr/--io-max-concurrency must be an integer, got 'x'/ ],
		[ [ 'env', '--io-method', 'aio' ], qr/--io-method must be sync, worker or io_uring/ ],
		[ [ 'env', '--bogus' ], qr/unknown option '--bogus'/ ],
		[ ['frobnicate'], qr/unknown command 'frobnicate'/ ])
	{
		my ($args, $msg) = @$bad;
		my $ok = IPC::Run::run([ $cli, @$args ], '>', \$out, '2>', \$err);
		ok(!$ok && $? >> 8 == 2, "$server->{name}: '@$args' is a usage error (exit 2)");
		like($err, $msg, "$server->{name}: '@$args' says why");
	}
}

done_testing();
