# The preflight against reality at the edge of the limits: PostgreSQL 18
# with io_method=io_uring and max_connections=1000 needs more file
# descriptors than ulimit -n 1024 and more locked memory than 8 MiB. The
# preflight (uringprobe-cli env, run under the same limits) must predict
# each refusal, and the server must then refuse to start with that errno;
# with the limits raised both must agree that it starts.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

my @settings = ('max_connections = 1000', 'io_max_concurrency = 32', 'shared_buffers = 32MB');
my @cli_settings = qw(--max-connections 1000 --io-max-concurrency 32);

# Soft limits of this process (and so of pg_ctl and the postmaster it starts).
sub set_soft_limits
{
	my (%l) = @_;
	my @args = map { "--$_=$l{$_}:" } sort keys %l;
	system('prlimit', '--pid', $$, @args) == 0
	  or die "prlimit @args failed\n";
}

sub predict
{
	my ($server) = @_;
	my $out = `$server->{bindir}/uringprobe-cli env --format tsv @cli_settings`;
	die "uringprobe-cli failed: $?\n" if $?;
	my %row;
	for (split /\n/, $out)
	{
		my ($name, $value, $detail) = split /\t/, $_, 3;
		$row{$name} = [ $value, $detail // '' ];
	}
	return \%row;
}

my @cases = (
	{
		what => 'ulimit -n 1024',
		limits => { nofile => 1024, memlock => 'unlimited' },
		errno => 'EMFILE',
		message => qr/could not setup io_uring queue: Too many open files/,
	},
	{
		what => 'ulimit -l 8 MiB',
		limits => { nofile => 65536, memlock => 8 * 1024 * 1024 },
		errno => 'ENOMEM',
		message => qr/could not setup io_uring queue: Cannot allocate memory/,
	},
	{
		what => 'raised limits',
		limits => { nofile => 65536, memlock => 'unlimited' },
	},
);

my $tested = 0;
for my $server (grep { $_->{major} >= 18 } servers())
{
	my $pre = predict($server);
	if ($pre->{'io_uring.ring_setup'}[0] ne 'ok')
	{
	  SKIP: { skip "$server->{name}: this user cannot create io_uring rings: "
			  . $pre->{'io_uring.ring_setup'}[0], 1; }
		next;
	}
	for my $case (@cases)
	{
		my $cell = "$server->{name}, $case->{what}";
		if ($case->{errno} && $case->{errno} eq 'ENOMEM'
			&& $pre->{'io_uring.memlock'}[0] ne 'charged')
		{
		  SKIP: { skip "$cell: ring memory is not charged to RLIMIT_MEMLOCK here ("
				  . $pre->{'io_uring.memlock'}[0] . ')', 3; }
			next;
		}
		set_soft_limits(%{ $case->{limits} });
		my $p = predict($server);
		my ($node, $started) = start_cluster(
			server => $server,
			io_method => 'io_uring',
			name => "limits_$server->{name}_" . ($case->{errno} // 'ok'),
			settings => \@settings,
			fail_ok => 1);
		set_soft_limits(nofile => 65536, memlock => 'unlimited');
		$tested++;

		if ($case->{errno})
		{
			is($p->{'pg18.io_uring.verdict'}[0], 'fails', "$cell: preflight predicts a refusal");
			like($p->{'pg18.io_uring.verdict'}[1], qr/\Q$case->{errno}\E/,
				"$cell: preflight names $case->{errno}");
			ok(!$started && slurp_file($node->logfile) =~ $case->{message},
				"$cell: the server refuses to start with $case->{errno}");
		}
		else
		{
			is($p->{'pg18.io_uring.verdict'}[0], 'ok', "$cell: preflight predicts a start");
			ok($started, "$cell: the server starts");
			is(io_uring_fds(postmaster_pid($node)), $p->{'pg18.io_uring.rings'}[0],
				"$cell: the postmaster holds the predicted number of rings")
			  if $started;
			$node->stop if $started;
		}
	}
}
plan skip_all => 'no PostgreSQL 18 server to test' unless $tested;
done_testing();
