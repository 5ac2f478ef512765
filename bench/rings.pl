# The ring-per-backend fork cost, measured in a backend (uringprobe_rings)
# and in a bare process (uringprobe-cli rings) with the same parameters, on
# every server flavour (io_method=sync, so the backend inherits no rings).
# The cost of the rings is each variant's p50 fork latency minus the
# baseline's p50 measured in the same call: that removes what the backend's
# own mappings add to every fork, so backend and CLI can be compared.
#
#   perl bench/rings.pl RESULTS.tsv COMPARISON.tsv
# Environment: URINGPROBE_RINGS ("132 432"), URINGPROBE_RINGS_FORKS (500).
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Uringprobe::Cluster;

my ($results_file, $cmp_file) = @ARGV;
die "usage: rings.pl RESULTS.tsv COMPARISON.tsv\n" unless $cmp_file;
my @ring_counts = split ' ', ($ENV{URINGPROBE_RINGS} // '132 432');
my $forks = $ENV{URINGPROBE_RINGS_FORKS} // 500;

my @cols = qw(experiment variant status ops seconds ops_per_sec p50_us p99_us max_us user_ms
  sys_ms minflt rings depth ring_bytes setup_ms teardown_ms maps_before maps_after
  vmpte_before_kb vmpte_after_kb);

sub parse_rows
{
	my ($text, $sep) = @_;
	my @lines = grep { length } split /\n/, $text;
	my @hdr = split /$sep/, shift @lines;
	return map { my %r; @r{@hdr} = split /$sep/, $_, -1; \%r } @lines;
}

open my $out, '>', $results_file or die "cannot write $results_file: $!\n";
print $out join("\t", 'server', 'where', @cols), "\n";
open my $cmp, '>', $cmp_file or die "cannot write $cmp_file: $!\n";
print $cmp join("\t", qw(server rings variant backend_p50_us backend_baseline_us backend_cost_us
	  cli_p50_us cli_baseline_us cli_cost_us cost_ratio backend_maps_before cli_maps_before)), "\n";

for my $server (servers())
{
	my ($node, $started) = start_cluster(server => $server, io_method => 'sync',
		name => "rings_bench_$server->{name}", fail_ok => 1);
	next unless $started;
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
	for my $rings (@ring_counts)
	{
		my $sql = "SET uringprobe.max_rings = 65536; "
		  . "SELECT * FROM uringprobe_rings(rings => $rings, depth => 64, forks => $forks)";
		my ($ret, $stdout, $stderr) = $node->psql('postgres', $sql,
			extra_params => [ '--pset=tuples_only=off', '--pset=footer=off' ]);
		my @backend = $ret == 0 ? parse_rows($stdout, '\|') : ();
		my ($cli_out, $cli_err) = run_command([ "$server->{bindir}/uringprobe-cli", 'rings',
			'--rings', $rings, '--depth', 64, '--forks', $forks, '--format', 'tsv' ]);
		my @cli = parse_rows($cli_out, '\t');
		for my $set ([ backend => \@backend ], [ cli => \@cli ])
		{
			my ($where, $rows) = @$set;
			if (!@$rows)
			{
				my $why = $where eq 'backend' ? $stderr : $cli_err;
				$why =~ s/\s+/ /g;
				print $out join("\t", $server->{name}, $where, 'rings', '', "failed: $why"), "\n";
				next;
			}
			print $out join("\t", $server->{name}, $where, map { $_ // '' } @{$_}{@cols}), "\n"
			  for @$rows;
		}
		next unless @backend && @cli;
		my %b = map { $_->{variant} => $_ } @backend;
		my %c = map { $_->{variant} => $_ } @cli;
		for my $variant (grep { $_ ne 'baseline' && $b{$_}{status} eq 'ok' } map { $_->{variant} } @backend)
		{
			my $bc = $b{$variant}{p50_us} - $b{baseline}{p50_us};
			my $cc = $c{$variant}{p50_us} - $c{baseline}{p50_us};
			print $cmp join("\t", $server->{name}, $rings, $variant,
				$b{$variant}{p50_us}, $b{baseline}{p50_us}, sprintf('%.1f', $bc),
				$c{$variant}{p50_us}, $c{baseline}{p50_us}, sprintf('%.1f', $cc),
				$cc != 0 ? sprintf('%.2f', $bc / $cc) : '',
				$b{baseline}{maps_before}, $c{baseline}{maps_before}), "\n";
		}
	}
	$node->stop;
}
close $out;
close $cmp;
