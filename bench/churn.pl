# Connection churn (report 1): pgbench -C with bench/churn.sql over
# server flavour x io_method x max_connections. Per cell and run: average
# connection time, tps including reconnects, the postmaster's CPU per
# connection (uringprobe_postmaster() before and after) and its io_uring
# mappings. The io_methods of a server and max_connections run side by
# side with their runs interleaved. Writes all runs and per-cell medians.
#
#   perl bench/churn.pl RUNS.tsv MEDIANS.tsv
# Environment: URINGPROBE_CHURN_SECONDS (5), URINGPROBE_CHURN_RUNS (3),
# URINGPROBE_CHURN_CONNECTIONS ("100 400 950 1000": 950 is the most that fits
# io_uring's ring memory into a default 8 MiB memlock limit), URINGPROBE_CHURN_CLIENTS (2): two clients keep both cores busy, so extra postmaster work shows in connection time.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Uringprobe::BenchScript;
use Uringprobe::Manifest qw(setting);
use Uringprobe::Cluster;

my ($runs_file, $medians_file) = @ARGV;
die "usage: churn.pl RUNS.tsv MEDIANS.tsv\n" unless $medians_file;
my $seconds = setting('URINGPROBE_CHURN_SECONDS');
my $runs = setting('URINGPROBE_CHURN_RUNS');
my @max_connections = split ' ', setting('URINGPROBE_CHURN_CONNECTIONS');
my $clients = setting('URINGPROBE_CHURN_CLIENTS');

my @servers = servers();
plan_cells(@max_connections * $runs * scalar(map { io_methods($_) } @servers));
# One client for every cell: the newest pgbench.
my ($client) = sort { $b->{major} <=> $a->{major} } @servers;
my $pgbench = "$client->{bindir}/pgbench";

sub postmaster
{
	my ($node) = @_;
	my $out = $node->safe_psql('postgres',
		'SELECT user_ms + sys_ms, io_uring_mappings, io_uring_fds FROM uringprobe_postmaster()');
	my ($cpu_ms, $maps, $fds) = split /\|/, $out;
	return { cpu_ms => $cpu_ms, maps => $maps, fds => $fds };
}


my @cols = qw(server io_method max_connections run status conn_ms tps connections
  pm_cpu_us_per_conn pm_io_uring_mappings pm_io_uring_fds);
my $runs_fh = runs_open($runs_file, @cols);
open my $med_fh, '>', $medians_file or die "cannot write $medians_file: $!\n";
print $med_fh join("\t", qw(server io_method max_connections runs status conn_ms tps
	  pm_cpu_us_per_conn pm_io_uring_mappings)), "\n";

# The io_methods of one server and max_connections run side by side, their
# runs interleaved, so that the machine's drift touches each alike.
my %medians;    # server -> io_method -> max_connections -> row
for my $server (@servers)
{
	for my $mc (@max_connections)
	{
		my (%node, %status, %done);
		for my $io_method (io_methods($server))
		{
			my ($node, $started) = start_cluster(
				server => $server,
				io_method => $io_method,
				name => "churn_$server->{name}_${io_method}_$mc",
				settings => [ "max_connections = $mc", 'shared_buffers = 64MB' ],
				fail_ok => 1);
			$done{$io_method} = [];
			if (!$started)
			{
				my ($why) = slurp_file($node->logfile) =~ /(could not [^\n]*|FATAL:\s+[^\n]*)/;
				$status{$io_method} = 'did not start: ' . ($why // 'see the server log');
				next;
			}
			$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
			$node{$io_method} = $node;
			$status{$io_method} = 'ok';
		}
		my @started = grep { $node{$_} } io_methods($server);
		repeat_rounds('churn', [ map { "$server->{name}/$_/$mc" } @started ], $runs, sub {
			my ($cell, $run, $label) = @_;
			my $io_method = (split m{/}, $cell)[1];
			my $node = $node{$io_method};
			cell("churn $server->{name} $io_method max_connections=$mc, $label",
				server => $server->{name}, io_method => $io_method, max_connections => $mc);
			my $before = postmaster($node);
			my ($out, $err) = bench_command([
				$pgbench, '-n', '-C', '-c', $clients, '-j', $clients, '-T', $seconds,
				'-f', 'bench/churn.sql', '-h', $node->host, '-p', $node->port, 'postgres' ]);
			my $after = postmaster($node);
			my ($tx) = $out =~ /number of transactions actually processed: (\d+)/;
			my ($conn_ms) = $out =~ /average connection time = ([\d.]+) ms/;
			my ($tps) = $out =~ /tps = ([\d.]+) \(including reconnection times\)/;
			die "pgbench output not understood:\n$out\n$err\n" unless $tx && defined $tps;
			# pgbench's connections, and the one that read the postmaster after.
			my $conns = $tx + 1;
			my $cpu = ($after->{cpu_ms} - $before->{cpu_ms}) * 1000 / $conns;
			run_row($runs_fh, $server->{name}, $io_method, $mc, $run, 'ok', $conn_ms // '',
				$tps, $conns, sprintf('%.1f', $cpu), $after->{maps}, $after->{fds});
			push @{ $done{$io_method} }, { conn_ms => $conn_ms, tps => $tps, cpu => $cpu, maps => $after->{maps} };
			return { conn_ms => $conn_ms, pm_cpu_us_per_conn => $cpu };
		});
		for my $io_method (io_methods($server))
		{
			my @d = @{ $done{$io_method} };
			$medians{ $server->{name} }{$io_method}{$mc} = join("\t", $server->{name}, $io_method, $mc,
				scalar(@d), $status{$io_method},
				@d ? (
					sprintf('%.3f', median(map { $_->{conn_ms} } @d)),
					sprintf('%.1f', median(map { $_->{tps} } @d)),
					sprintf('%.1f', median(map { $_->{cpu} } @d)),
					$d[-1]{maps}) : ('', '', '', ''));
		}
		$_->stop for values %node;
	}
}
close $runs_fh;
# A server's io_method at every max_connections in a row: a line in the plot.
for my $server (@servers)
{
	for my $io_method (io_methods($server))
	{
		print $med_fh "$medians{ $server->{name} }{$io_method}{$_}\n" for @max_connections;
	}
}
close $med_fh;
