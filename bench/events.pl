# The event-loop ping-pong (report 4): uringprobe_events() in a backend
# and `uringprobe-cli events` in a bare process, every loop (plus
# PostgreSQL's WaitEventSet, backend only), with the bytes written by the
# waiting process itself once armed (peer self) and by a child process
# each time the waiter asks (peer process: a real cross-process ping-pong,
# every event a sleep and a wake-up), in rounds that alternate which side
# goes first; and the CLI's epoll against bench/epoll-pingpong.c, the
# smallest hand-written epoll loop, compiled here. vs_epoll: a loop's
# events/s in a backend over epoll's, same peer and pipes (the report's
# comparison);
# *_ci95 and *_verdict: the 95% bootstrap interval of that ratio and of
# backend / bare process over the runs, and whether it excludes 1.
#
#   perl bench/events.pl RUNS.tsv COMPARISON.tsv
# Environment: URINGPROBE_EVENTS (200000 per run), URINGPROBE_EVENTS_PROCESS
# (20000 per run with a peer process: every event a sleep and a wake-up of
# each process, 10-100 us on a VM), URINGPROBE_EVENTS_PIPES ("1"),
# URINGPROBE_EVENTS_PEERS ("self process"), URINGPROBE_EVENTS_ROUNDS (5).
use strict;
use warnings;
use Cwd;
use PostgreSQL::Test::Utils;
use Uringprobe::BenchScript;
use Uringprobe::Manifest qw(setting);
use Uringprobe::Cluster;

my ($runs_file, $cmp_file) = @ARGV;
die "usage: events.pl RUNS.tsv COMPARISON.tsv\n" unless $cmp_file;
my $events = setting('URINGPROBE_EVENTS');
my @pipes = split ' ', setting('URINGPROBE_EVENTS_PIPES');
my @peers = split ' ', setting('URINGPROBE_EVENTS_PEERS');
my %events_of = (self => $events, process => setting('URINGPROBE_EVENTS_PROCESS'));
my $rounds = setting('URINGPROBE_EVENTS_ROUNDS');
my @loops = qw(epoll poll uring_oneshot uring_oneshot_defer uring_multishot
  uring_multishot_defer pg_waiteventset);

plan_cells($rounds * (@pipes * @peers * (@loops * 2 - 1) + scalar(grep { $_ == 1 } @pipes)));

my ($server) = sort { $b->{major} <=> $a->{major} } servers();
my $cli = "$server->{bindir}/uringprobe-cli";
my $reference = Cwd::abs_path($PostgreSQL::Test::Utils::tmp_check) . '/epoll-pingpong';
system('cc', '-O2', '-o', $reference, 'bench/epoll-pingpong.c') == 0
  or die "could not compile bench/epoll-pingpong.c\n";
my ($node) = start_cluster(server => $server, name => 'events_bench');
$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');

my @cols = qw(variant status ops seconds ops_per_sec p50_us p99_us max_us user_ms sys_ms pipes
  peer rounds enters armed_ready vcsw ivcsw latency_histogram);
my $runs = runs_open($runs_file, qw(where round), @cols);
my %eps;    # loop/pipes/peer -> where -> [events/s]; -> 'enters' -> [per event]
my %why;    # loop/pipes/peer -> where -> why a side has no rate
my @cells = map {
	my $n = $_;
	((map { my $peer = $_; map { "$_/$n/$peer" } @loops } @peers), $n == 1 ? ('reference') : ())
} @pipes;
my $took = repeat_rounds('events', \@cells, $rounds, sub {
	my ($e, $round, $label) = @_;
	if ($e eq 'reference')
	{
		cell("events epoll, bench/epoll-pingpong.c, $label", loop => 'reference');
		my ($out) = bench_command([ $reference, $events ]);
		my (undef, $secs, $rate) = split /\t/, $out;
		run_row($runs, 'reference', $round, 'epoll', 'ok', $events, $secs, $rate);
		push @{ $eps{'epoll/1/self'}{reference} }, $rate;
		return { reference => $rate };
	}
	my ($loop, $n, $peer) = split m{/}, $e;
	my $count = $events_of{$peer};
	my %m;
	for my $where ($round % 2 ? qw(backend cli) : qw(cli backend))
	{
		next if $where eq 'cli' && $loop eq 'pg_waiteventset';
		cell("events $loop, $n pipes, peer $peer, " . ($where eq 'cli' ? 'bare process' : $where) . ", $label",
			loop => $loop, pipes => $n, peer => $peer, where => $where);
		my $r = $where eq 'backend'
		  ? bench_query($node, "SELECT * FROM uringprobe_events('$loop', $n, $count, '$peer')")
		  : cli_row($cli, 'events', '--loop', $loop, '--pipes', $n, '--events', $count, '--peer', $peer);
		run_row($runs, $where, $round, map { $r->{$_} } @cols);
		# only what was measured: a refused loop has no rate
		if ($r->{status} ne 'ok') { $why{$e}{$where} //= $r->{status}; next; }
		push @{ $eps{$e}{$where} }, $r->{ops_per_sec};
		$m{$where} = $r->{ops_per_sec};
		push @{ $eps{$e}{enters} }, $r->{enters} / $r->{ops} if $where eq 'backend' && ($r->{enters} // '') ne '';
	}
	return \%m;
});
close $runs;
$node->stop;

# A side that measured nothing is blank, with the reason in status.
my $cmp = tsv_open($cmp_file, qw(loop pipes peer rounds status backend_events_s cli_events_s ratio
	  min_ratio backend_range_k cli_range_k vs_epoll enters_per_event reference_events_s cli_vs_reference
	  best_vs_reference ratio_ci95 ratio_verdict vs_epoll_ci95 vs_epoll_verdict));
my $best = sub { my @v = sort { $b <=> $a } @_; return $v[0]; };    # events/s: higher is better
for my $n (@pipes)
{
	for my $peer (@peers)
	{
		my $epoll = $eps{"epoll/$n/$peer"}{backend};
		for my $loop (@loops)
		{
			my $e = $eps{"$loop/$n/$peer"} // {};
			my ($bk, $c, $ref) = map { $e->{$_} ? median(@{ $e->{$_} }) : '' } qw(backend cli reference);
			my %w = %{ $why{"$loop/$n/$peer"} // {} };
			my $status = join('; ', map { "$_: $w{$_}" } sort keys %w) || 'ok';
			my $both = $bk ne '' && $c ne '';
			tsv_row($cmp, $loop, $n, $peer, $took->{"$loop/$n/$peer"}, $status,
				$bk eq '' ? '' : sprintf('%.0f', $bk),
				$c eq '' ? '' : sprintf('%.0f', $c),
				$both ? sprintf('%.2f', $bk / $c) : '',
				$both ? sprintf('%.2f', $best->(@{ $e->{backend} }) / $best->(@{ $e->{cli} })) : '',
				$bk eq '' ? '' : spread(map { $_ / 1000 } @{ $e->{backend} }),
				$c eq '' ? '' : spread(map { $_ / 1000 } @{ $e->{cli} }),
				$bk ne '' && $epoll ? sprintf('%.2f', $bk / median(@$epoll)) : '',
				$e->{enters} ? sprintf('%.2f', median(@{ $e->{enters} })) : '',
				$ref eq '' ? '' : sprintf('%.0f', $ref),
				$ref ne '' && $c ne '' ? sprintf('%.2f', $c / $ref) : '',
				$ref ne '' && $c ne '' ? sprintf('%.2f', $best->(@{ $e->{cli} }) / $best->(@{ $e->{reference} })) : '',
				ratio_interval($e->{backend} // [], $e->{cli} // []),
				$loop eq 'epoll' ? ('', '') : ratio_interval($e->{backend} // [], $epoll // []));
		}
	}
}
close $cmp;
