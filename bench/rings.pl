# The ring-per-backend fork cost, measured in a backend (uringprobe_rings)
# and in a bare process (uringprobe-cli rings) with the same parameters, on
# every server flavour (io_method=sync, so the backend inherits no rings),
# in rounds that alternate backend and CLI.
#
# The cost of the rings is a variant's fork latency (p50), its fork() call
# alone (p50 until fork returns in the parent: the address-space copy), or
# its CPU per fork (user + sys of parent and child) minus the zero-ring
# baseline's from the
# same call: that takes out what the backend's own mappings add to every
# fork, so backend and CLI can be compared. Medians over the rounds.
#
#   perl bench/rings.pl RESULTS.tsv COMPARISON.tsv
# Environment: URINGPROBE_RINGS ("132 432"), URINGPROBE_RINGS_FORKS (300),
# URINGPROBE_RINGS_ROUNDS (9).
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Uringprobe::BenchScript;
use Uringprobe::Manifest qw(setting);
use Uringprobe::Cluster;

my ($results_file, $cmp_file) = @ARGV;
die "usage: rings.pl RESULTS.tsv COMPARISON.tsv\n" unless $cmp_file;
my @ring_counts = split ' ', setting('URINGPROBE_RINGS');
my $forks = setting('URINGPROBE_RINGS_FORKS');
my $rounds = setting('URINGPROBE_RINGS_ROUNDS');

my @cols = qw(experiment variant status ops seconds ops_per_sec p50_us p99_us max_us user_ms
  sys_ms minflt rings depth ring_bytes setup_ms teardown_ms maps_before maps_after
  vmpte_before_kb vmpte_after_kb fork_call_p50_us fork_call_p99_us latency_histogram);



sub cpu_per_fork { my ($r) = @_; return ($r->{user_ms} + $r->{sys_ms}) * 1000 / $r->{ops}; }

my $out = runs_open($results_file, qw(server where round), @cols);
open my $cmp, '>', $cmp_file or die "cannot write $cmp_file: $!\n";
print $cmp join("\t", qw(server rings variant status rounds backend_cost_p50_us cli_cost_p50_us
	  p50_ratio backend_cost_cpu_us cli_cost_cpu_us cpu_ratio backend_cost_fork_call_us
	  cli_cost_fork_call_us fork_call_ratio backend_maps cli_maps p50_ratio_ci95 p50_ratio_verdict)), "\n";
# A comparison row that measured nothing: the cell stays, blank, with why.
sub unmeasured_row
{
	my ($server, $rings, $variant, $why) = @_;
	$why =~ s/\s+/ /g;
	print $cmp join("\t", $server, $rings, $variant, $why, $rounds, ('') x 13), "\n";
}
# The ratio of two costs, each a difference of two noisy medians, or "~(+-N)"
# when either cost is within the noise: its rounds do not agree on a sign
# (their range includes 0), N the largest cost any round of either side
# measured, in microseconds.
sub cost_ratio
{
	my ($backend, $cli) = @_;
	my $in_noise = sub { my @v = sort { $a <=> $b } @_; return $v[0] <= 0 && $v[-1] >= 0; };
	if ($in_noise->(@$backend) || $in_noise->(@$cli))
	{
		my ($bound) = sort { $b <=> $a } map { abs } @$backend, @$cli;
		return sprintf('~(+-%.0f)', $bound);
	}
	return sprintf('%.2f', median(@$backend) / median(@$cli));
}

# One side's rows of a round (backend or cli) into the runs file, and the
# cost of each variant over the zero-ring baseline into $acc (cost, maps,
# why a variant did not run, why a side failed); returns the round's
# figures by "where variant figure" for the round's steadiness.
sub take_side
{
	my ($acc, $server, $where, $round, $rows, $err) = @_;
	my %m;
	if (!@$rows)
	{
		(my $why = $err) =~ s/\s+/ /g;
		run_row($out, $server, $where, $round, 'rings', '', "failed: $why");
		$acc->{failed} //= "$where failed: $why";
		return %m;
	}
	run_row($out, $server, $where, $round, map { $_ // '' } @{$_}{@cols}) for @$rows;
	my %v = map { $_->{variant} => $_ } @$rows;
	my $base = $v{baseline};
	$acc->{maps}{$where} = $base->{maps_before};
	for my $variant (grep { $_ ne 'baseline' } keys %v)
	{
		my $r = $v{$variant};
		if ($r->{status} ne 'ok')
		{
			$acc->{why}{$variant} //= "$where: $r->{status}";
			next;
		}
		my $c = $acc->{cost}{$variant}{$where} //= {};
		push @{ $c->{p50} }, $r->{p50_us} - $base->{p50_us};
		push @{ $c->{cpu} }, cpu_per_fork($r) - cpu_per_fork($base);
		push @{ $c->{call} }, $r->{fork_call_p50_us} - $base->{fork_call_p50_us};
	}
	for my $variant (grep { $v{$_}{status} eq 'ok' } keys %v)
	{
		$m{"$where $variant $_"} = $v{$variant}{$_} for qw(p50_us fork_call_p50_us);
	}
	return %m;
}

# One round: the same rings in the backend, then in a bare process.
sub one_round
{
	my ($acc, $node, $server, $rings, $round, $label) = @_;
	cell("rings $server->{name} rings=$rings $label (backend, bare process)", server => $server->{name}, rings => $rings);
	my $sql = "SET uringprobe.max_rings = 65536; "
	  . "SELECT * FROM uringprobe_rings(rings => $rings, depth => 64, forks => $forks)";
	ran("psql -d postgres -c '$sql'");
	my ($ret, $stdout, $stderr) = $node->psql('postgres', $sql,
		extra_params => [ '--pset=tuples_only=off', '--pset=footer=off' ]);
	my ($cli_out, $cli_err) = bench_command([ "$server->{bindir}/uringprobe-cli", 'rings',
		'--rings', $rings, '--depth', 64, '--forks', $forks, '--format', 'tsv' ]);
	my %m = (take_side($acc, $server->{name}, 'backend', $round, [ $ret == 0 ? parse_rows($stdout, '\|') : () ], $stderr),
		take_side($acc, $server->{name}, 'cli', $round, [ parse_rows($cli_out, '\t') ], $cli_err));
	return \%m;
}

# The comparison file's rows of one server and ring count.
sub compare_sides
{
	my ($acc, $server, $rings, $took) = @_;
	return unmeasured_row($server, $rings, '', $acc->{failed}) if $acc->{failed};
	unmeasured_row($server, $rings, $_, $acc->{why}{$_}) for sort keys %{ $acc->{why} };
	for my $variant (sort grep { !$acc->{why}{$_} } keys %{ $acc->{cost} })
	{
		my $c = $acc->{cost}{$variant};
		my %m = map {
			my $w = $_;
			($w => { map { $_ => median(@{ $c->{$w}{$_} }) } qw(p50 cpu call) })
		} qw(backend cli);
		my @figures = map {
			(sprintf('%.1f', $m{backend}{$_}), sprintf('%.1f', $m{cli}{$_}), cost_ratio($c->{backend}{$_}, $c->{cli}{$_}))
		} qw(p50 cpu call);
		print $cmp join("\t", $server, $rings, $variant, 'ok', $took, @figures, $acc->{maps}{backend}, $acc->{maps}{cli},
			cost_ratio($c->{backend}{p50}, $c->{cli}{p50}) =~ /^~/
			? ('', 'within the noise')
			: ratio_interval($c->{backend}{p50}, $c->{cli}{p50})), "\n";
	}
}

my @servers = servers();
# make bench PERF=1: each layout also alone in the backend, a cell each
# measured by nothing but the kernel's profile (a measured cell holds the
# three variants side by side, so its profile mixes them).
my @profile_only = $ENV{URINGPROBE_PERF} ? qw(mmap no_mmap) : ();

# Each layout alone in the backend, for the kernel's profile.
sub profile_only_cells
{
	my ($node, $server, $rings) = @_;
	for my $mode (@profile_only)
	{
		cell("rings $server->{name} rings=$rings, the $mode layout alone in the backend (kernel profile only)",
			server => $server->{name}, rings => $rings, mode => $mode);
		my ($ret, $stdout, $stderr) = $node->psql('postgres', "SET uringprobe.max_rings = 65536; "
			  . "SELECT count(*) FROM uringprobe_rings(rings => $rings, depth => 64, mode => '$mode', forks => $forks)");
		warn "rings $server->{name}, the $mode layout alone: $stderr\n" if $ret != 0;
	}
}

plan_cells(@servers * @ring_counts * ($rounds + @profile_only));
for my $server (@servers)
{
	my ($node, $started) = start_cluster(server => $server, io_method => 'sync',
		name => "rings_bench_$server->{name}", fail_ok => 1);
	if (!$started)
	{
		cell("rings $server->{name}: the server did not start", server => $server->{name}, status => 'not_started')
		  for 1 .. @ring_counts * ($rounds + @profile_only);
		unmeasured_row($server->{name}, $_, '', 'the server did not start (see its log)') for @ring_counts;
		next;
	}
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
	for my $rings (@ring_counts)
	{
		my %acc = (cost => {}, maps => {}, why => {});
		my $took = repeat_rounds('rings', ["$server->{name}/$rings"], $rounds, sub {
			my (undef, $round, $label) = @_;
			return one_round(\%acc, $node, $server, $rings, $round, $label);
		})->{"$server->{name}/$rings"};
		profile_only_cells($node, $server, $rings);
		compare_sides(\%acc, $server->{name}, $rings, $took);
	}
	$node->stop;
}
close $out;
close $cmp;
