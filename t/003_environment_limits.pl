# The environment report against reality at the edge of the limits. PostgreSQL 18
# with io_method=io_uring keeps one ring fd per process slot and, on kernels
# that charge ring memory to RLIMIT_MEMLOCK, a few pages per ring. For each
# case the environment report (uringprobe-cli environment, run under the case's limits) must
# predict the outcome and name the errno, and the server, started under the
# same limits, must then do exactly that. A server before PostgreSQL 18
# must start under the limits that refuse one with io_uring.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

my %hard = (nofile => hard_limit('nofile'), memlock => hard_limit('memlock'));

sub predict
{
	my ($server, $case) = @_;
	my @args = ('--max-connections', $case->{max_connections}, '--io-max-concurrency', 32,
		'--max-wal-senders', 0);
	my $out = `$server->{bindir}/uringprobe-cli environment --format tsv @args`;
	die "uringprobe-cli failed: $?\n" if $?;
	my %row;
	for (split /\n/, $out)
	{
		my ($name, $value, $detail) = split /\t/, $_, 3;
		$row{$name} = [ $value, $detail // '' ];
	}
	return \%row;
}

my $eight_mib = 8 * 1024 * 1024;
my @cases = (
	{
		what => 'ulimit -n 256, 300 connections',
		max_connections => 300,
		limits => { nofile => 256, memlock => $hard{memlock} },
		errno => 'EMFILE',
		message => qr/could not setup io_uring queue: Too many open files/,
	},
	{
		what => 'ulimit -l 8 MiB, 1000 connections',
		max_connections => 1000,
		limits => {
			nofile => $hard{nofile},
			memlock => ($hard{memlock} eq 'unlimited' || $hard{memlock} > $eight_mib)
			? $eight_mib : $hard{memlock} },
		errno => 'ENOMEM',
		needs_memlock_charge => 1,
		message => qr/could not setup io_uring queue: Cannot allocate memory/,
	},
	{
		what => 'hard limits, 300 connections',
		max_connections => 300,
		limits => { nofile => $hard{nofile}, memlock => $hard{memlock} },
	},
);

for my $server (grep { $_->{major} >= 18 } servers())
{
	my $pre = predict($server, $cases[-1]);
	if ($pre->{'io_uring.ring_setup'}[0] ne 'ok')
	{
	  SKIP: { skip "$server->{name}: this user cannot create io_uring rings: "
			  . $pre->{'io_uring.ring_setup'}[0], 1; }
		next;
	}
	for my $case (@cases)
	{
		my $cell = "$server->{name}, $case->{what}";
		if ($case->{needs_memlock_charge} && $pre->{'io_uring.memlock'}[0] ne 'charged')
		{
		  SKIP: { skip "$cell: ring memory is not charged to RLIMIT_MEMLOCK for this user ("
				  . $pre->{'io_uring.memlock'}[0] . ')', 3; }
			next;
		}
		set_soft_limits(%{ $case->{limits} });
		my $p = predict($server, $case);
		my ($node, $started) = start_cluster(
			server => $server,
			io_method => 'io_uring',
			name => "limits_$server->{name}_" . ($case->{errno} // 'ok'),
			settings => [
				"max_connections = $case->{max_connections}",
				'io_max_concurrency = 32', 'max_wal_senders = 0', 'shared_buffers = 16MB'
			],
			fail_ok => 1);
		set_soft_limits(%hard);
		my $verdict = $p->{'pg18.io_uring.verdict'};

		if ($case->{errno})
		{
			is($verdict->[0], 'fails', "$cell: the environment report predicts a refusal");
			like($verdict->[1], qr/\Q$case->{errno}\E/, "$cell: the environment report names $case->{errno}");
			ok(!$started && slurp_file($node->logfile) =~ $case->{message},
				"$cell: the server refuses to start with $case->{errno}");
		}
		elsif ($verdict->[0] eq 'fails')
		{
			# The machine's hard limits are too low even for this case: the
			# prediction must still hold.
			ok(!$started, "$cell: the environment report predicts a refusal ($verdict->[1]) and the server refuses");
		}
		else
		{
			like($verdict->[0], qr/^(ok|starts, short of file descriptors)$/,
				"$cell: the environment report predicts a start");
			ok($started, "$cell: the server starts");
			if ($started)
			{
				is(io_uring_fds(postmaster_pid($node)), $p->{'pg18.io_uring.rings'}[0],
					"$cell: the postmaster holds the predicted number of rings");
				$node->stop;
			}
		}
	}
}
# Before PostgreSQL 18 there are no rings: the limits that refuse a
# PostgreSQL 18 server with io_uring do not refuse it, and the environment report
# does not predict that they would.
for my $server (grep { $_->{major} < 18 } servers())
{
	my $case = $cases[0];
	my $cell = "$server->{name}, $case->{what}";
	set_soft_limits(%{ $case->{limits} });
	my ($node, $started) = start_cluster(
		server => $server,
		name => "limits_$server->{name}",
		settings => [ "max_connections = $case->{max_connections}", 'shared_buffers = 16MB' ],
		fail_ok => 1);
	set_soft_limits(%hard);
	ok($started, "$cell: the server starts (no rings before PostgreSQL 18)");
	next unless $started;
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
	my $env = environment($node);
	is($env->{'pg18.io_uring.verdict'}[0], 'not applicable', "$cell: the environment report predicts no ring refusal");
	is($env->{'rlimit.nofile'}[0], $case->{limits}{nofile}, "$cell: the environment report reads the server's limit");
	is(io_uring_fds(postmaster_pid($node)), 0, "$cell: the postmaster holds no ring");
	$node->stop;
}
done_testing();
