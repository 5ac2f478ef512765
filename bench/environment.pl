# uringprobe_environment() of every server flavour under every io_method, side by side,
# with what the postmaster actually holds: io_uring fds, ring mappings and
# page-table size, written as TSV to $ARGV[0] (bench/print-table.pl shows it).
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Uringprobe::BenchScript;
use Uringprobe::Cluster;

my $out_file = shift @ARGV or die "usage: environment.pl OUTPUT.tsv\n";

my @rows = (
	'server.version', 'server.io_method',
	'liburing.loaded', 'io_uring.ring_setup',
	'io_uring.memlock', 'rlimit.nofile',
	'rlimit.memlock', 'server.max_connections',
	'server.io_max_concurrency', 'pg18.io_uring.rings',
	'pg18.io_uring.layout', 'pg18.io_uring.mappings',
	'pg18.io_uring.ring_memory', 'pg18.io_uring.fds',
	'pg18.io_uring.verdict', 'fs.data_directory');
my @measured = ('postmaster io_uring fds', 'postmaster io_uring mappings', 'postmaster VmPTE kB');

my @servers = servers();
plan_cells(scalar map { io_methods($_) } @servers);
my (@columns, %cell);
for my $server (@servers)
{
	for my $io_method (io_methods($server))
	{
		my $col = "$server->{name}/$io_method";
		cell("environment $col", server => $server->{name}, io_method => $io_method);
		push @columns, $col;
		my ($node, $started) = start_cluster(
			server => $server,
			io_method => $io_method,
			name => "bench_$server->{name}_$io_method",
			fail_ok => 1);
		if (!$started)
		{
			my ($why) = slurp_file($node->logfile) =~ /(FATAL:[^\n]*|could not [^\n]*)/;
			$cell{$col}{$_} = '' for @rows, @measured;
			$cell{$col}{'server.io_method'} = "did not start: " . ($why // 'see log');
			next;
		}
		$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
		my $env = environment($node);
		$cell{$col}{$_} = $env->{$_} ? $env->{$_}[0] : '' for @rows;
		my $pid = postmaster_pid($node);
		$cell{$col}{'postmaster io_uring fds'} = io_uring_fds($pid);
		$cell{$col}{'postmaster io_uring mappings'} = io_uring_mappings($pid);
		my ($pte) = slurp_file("/proc/$pid/status") =~ /^VmPTE:\s+(\d+)/m;
		$cell{$col}{'postmaster VmPTE kB'} = $pte // '';
		$node->stop;
	}
}

open my $tsv, '>', $out_file or die "cannot write $out_file: $!\n";
print $tsv join("\t", 'name', @columns), "\n";
for my $name (@rows, @measured)
{
	print $tsv join("\t", $name, map { $cell{$_}{$name} // '' } @columns), "\n";
}
close $tsv;
