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
use Uringprobe::Bench;
use Uringprobe::Benchmarks qw(setting);
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

my @servers = servers();
# make bench PERF=1: each layout also alone in the backend, a cell each
# measured by nothing but the kernel's profile (a measured cell holds the
# three variants side by side, so its profile mixes them).
my @profile_only = $ENV{URINGPROBE_PERF} ? qw(mmap no_mmap) : ();
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
		my (%cost, %maps, %why, $failed);
		my $took = repeat_rounds('rings', ["$server->{name}/$rings"], $rounds, sub {
			my (undef, $round, $label) = @_;
			my %m;
			cell("rings $server->{name} rings=$rings $label (backend, bare process)", server => $server->{name}, rings => $rings);
			my $sql = "SET uringprobe.max_rings = 65536; "
			  . "SELECT * FROM uringprobe_rings(rings => $rings, depth => 64, forks => $forks)";
			ran("psql -d postgres -c '$sql'");
			my ($ret, $stdout, $stderr) = $node->psql('postgres', $sql,
				extra_params => [ '--pset=tuples_only=off', '--pset=footer=off' ]);
			my ($cli_out, $cli_err) = bench_command([ "$server->{bindir}/uringprobe-cli", 'rings',
				'--rings', $rings, '--depth', 64, '--forks', $forks, '--format', 'tsv' ]);
			my %runs = (
				backend => [ $ret == 0 ? parse_rows($stdout, '\|') : () ],
				cli => [ parse_rows($cli_out, '\t') ]);
			for my $where (qw(backend cli))
			{
				my @rows = @{ $runs{$where} };
				if (!@rows)
				{
					(my $why = $where eq 'backend' ? $stderr : $cli_err) =~ s/\s+/ /g;
					run_row($out, $server->{name}, $where, $round, 'rings', '', "failed: $why");
					$failed //= "$where failed: $why";
					next;
				}
				run_row($out, $server->{name}, $where, $round, map { $_ // '' } @{$_}{@cols})
				  for @rows;
				my %v = map { $_->{variant} => $_ } @rows;
				$maps{$where} = $v{baseline}{maps_before};
				for my $variant (grep { $_ ne 'baseline' && $v{$_}{status} ne 'ok' } keys %v)
				{
					$why{$variant} //= "$where: $v{$variant}{status}";
				}
				for my $variant (grep { $_ ne 'baseline' && $v{$_}{status} eq 'ok' } keys %v)
				{
					push @{ $cost{$variant}{$where}{p50} }, $v{$variant}{p50_us} - $v{baseline}{p50_us};
					push @{ $cost{$variant}{$where}{cpu} },
					  cpu_per_fork($v{$variant}) - cpu_per_fork($v{baseline});
					push @{ $cost{$variant}{$where}{call} },
					  $v{$variant}{fork_call_p50_us} - $v{baseline}{fork_call_p50_us};
				}
				for my $variant (grep { $v{$_}{status} eq 'ok' } keys %v)
				{
					$m{"$where $variant $_"} = $v{$variant}{$_} for qw(p50_us fork_call_p50_us);
				}
			}
			return \%m;
		})->{"$server->{name}/$rings"};
		for my $mode (@profile_only)
		{
			cell("rings $server->{name} rings=$rings, the $mode layout alone in the backend (kernel profile only)",
				server => $server->{name}, rings => $rings, mode => $mode);
			my ($ret, $stdout, $stderr) = $node->psql('postgres', "SET uringprobe.max_rings = 65536; "
				  . "SELECT count(*) FROM uringprobe_rings(rings => $rings, depth => 64, mode => '$mode', forks => $forks)");
			warn "rings $server->{name}, the $mode layout alone: $stderr\n" if $ret != 0;
		}
		if ($failed)
		{
			unmeasured_row($server->{name}, $rings, '', $failed);
			next;
		}
		for my $variant (sort keys %why)
		{
			unmeasured_row($server->{name}, $rings, $variant, $why{$variant});
		}
		for my $variant (sort grep { !$why{$_} } keys %cost)
		{
			my $c = $cost{$variant};
			my %m = map {
				my $w = $_;
				($w => { map { $_ => median(@{ $c->{$w}{$_} }) } qw(p50 cpu call) })
			} qw(backend cli);
			print $cmp join("\t", $server->{name}, $rings, $variant, 'ok', $took,
				sprintf('%.1f', $m{backend}{p50}), sprintf('%.1f', $m{cli}{p50}),
				cost_ratio($c->{backend}{p50}, $c->{cli}{p50}),
				sprintf('%.1f', $m{backend}{cpu}), sprintf('%.1f', $m{cli}{cpu}),
				cost_ratio($c->{backend}{cpu}, $c->{cli}{cpu}),
				sprintf('%.1f', $m{backend}{call}), sprintf('%.1f', $m{cli}{call}),
				cost_ratio($c->{backend}{call}, $c->{cli}{call}),
				$maps{backend}, $maps{cli},
				cost_ratio($c->{backend}{p50}, $c->{cli}{p50}) =~ /^~/
				? ('', 'within the noise')
				: ratio_interval($c->{backend}{p50}, $c->{cli}{p50})), "\n";
		}
	}
	$node->stop;
}
close $out;
close $cmp;
