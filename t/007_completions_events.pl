# uringprobe_completions() and uringprobe_events() under every io_method of
# every server: every operation, reaping mode and event loop runs and
# returns sane rows; refused setup flags are rows, not errors; a cancelled
# run leaves the backend's fds, rings, threads and children as they were.
use strict;
use warnings;
use POSIX ();
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

# What this kernel must accept: setup flags and poll modes exist since
# these releases; on a kernel that has them a refusal is a failure.
my ($kernel_major, $kernel_minor) = (POSIX::uname())[2] =~ /^(\d+)\.(\d+)/;
sub kernel_since
{
	my ($major, $minor) = @_;
	return $kernel_major > $major || ($kernel_major == $major && $kernel_minor >= $minor);
}
my %flags_since = (
	'sqpoll' => [ 5, 11 ],
	'single_issuer,defer_taskrun' => [ 6, 1 ],
	'single_issuer,coop_taskrun' => [ 6, 0 ]);
my %loop_since = (
	uring_oneshot => [ 5, 1 ],
	uring_multishot => [ 5, 13 ],
	uring_oneshot_defer => [ 6, 1 ],
	uring_multishot_defer => [ 6, 1 ]);

my $scratch = default_scratch_dir();

for my $server (servers())
{
	for my $io_method (io_methods($server))
	{
		my $cell = "$server->{name}/$io_method";
		my ($node) = start_cluster(server => $server, io_method => $io_method,
			name => "ce_$server->{name}_$io_method",
			settings => ["uringprobe.scratch_dirs = '$scratch'"]);
		$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');

		for my $op (qw(nop read recv))
		{
			for my $resubmit (qw(each batch))
			{
				for my $depth (1, 32)
				{
					my $what = "$cell: $op/$resubmit depth $depth";
					my $r = query_row($node,
						"SELECT * FROM uringprobe_completions('$op', $depth, '$resubmit', '$resubmit', '', 2000)");
					is($r->{status}, 'ok', "$what: completed");
					is($r->{ops}, 2000, "$what: every completion counted");
					is($r->{errors}, 0, "$what: none failed");
					ok($r->{ns_per_completion} > 0 && $r->{completions_per_enter} > 0
						  && $r->{completions_per_enter} <= $depth,
						"$what: 0 ns < cost, 0 < completions per enter <= depth "
						  . "($r->{ns_per_completion} ns, $r->{completions_per_enter})");
					# replaced as reaped: all but the last `depth` completions
					# are reaped with the whole depth in flight
					ok($resubmit eq 'batch'
						  || ($r->{mean_in_flight} >= $depth - 1 && $r->{mean_in_flight} <= $depth),
						"$what: the depth is kept in flight (mean $r->{mean_in_flight})");
				}
			}
		}
		# Combinations the io_uring API defines as invalid: bad input naming the rule.
		for my $bad ([ 'defer_taskrun', qr/defer_taskrun requires single_issuer/ ],
			[ 'sqpoll,single_issuer,defer_taskrun', qr/sqpoll cannot be combined with defer_taskrun or coop_taskrun/ ])
		{
			my ($flags, $rule) = @$bad;
			my ($ret, $out, $err) = $node->psql('postgres',
				"SELECT * FROM uringprobe_completions('nop', 8, flags => '$flags', completions => 100)");
			like($err, qr/ERROR:  .*$rule/, "$cell: $flags is refused as bad input, naming the rule");
		}
		for my $flags ('sqpoll', 'single_issuer,defer_taskrun', 'single_issuer,coop_taskrun')
		{
			my $r = query_row($node, "SELECT * FROM uringprobe_completions('nop', 8, 'batch', 'batch', '$flags', 2000)");
			if ($r->{status} =~ /^unsupported: / && !kernel_since(@{ $flags_since{$flags} }))
			{
			  SKIP: { skip "$cell: $flags: this kernel predates it ($r->{status})", 4; }
				next;
			}
			is($r->{status}, 'ok', "$cell: $flags completed");
			is($r->{flags_in_effect}, $flags, "$cell: $flags took effect");
			is($r->{ops}, 2000, "$cell: $flags: every completion counted");
			ok(($r->{sqpoll_cpu_ms} ne '') == ($flags =~ /sqpoll/)
				  && ($r->{sqpoll_ns_per_completion} ne '') == ($flags =~ /sqpoll/),
				"$cell: $flags: SQPOLL thread CPU reported exactly with SQPOLL");
		}

		for my $loop (qw(epoll poll uring_oneshot uring_oneshot_defer uring_multishot
			uring_multishot_defer pg_waiteventset))
		{
			for my $run ([ 1, 'self' ], [ 4, 'self' ], [ 4, 'process' ])
			{
				my ($pipes, $peer) = @$run;
				my $what = "$cell: events $loop x$pipes, peer $peer";
				# a peer process's events each take a sleep and a wake-up: fewer
				my $events = $peer eq 'process' ? 400 : 2000;
				my $r = query_row($node, "SELECT * FROM uringprobe_events('$loop', $pipes, $events, '$peer')");
				if ($r->{status} =~ /^unsupported: / && !kernel_since(@{ $loop_since{$loop} // [ 0, 0 ] }))
				{
				  SKIP: { skip "$what: this kernel predates it ($r->{status})", 3; }
					next;
				}
				is($r->{status}, 'ok', "$what: completed");
				is($r->{ops}, $events, "$what: $events events");
				ok($r->{ops_per_sec} > 0 && $r->{p50_us} > 0 && $r->{p50_us} <= $r->{p99_us}
					  && $r->{p99_us} <= $r->{max_us} * 1.02,
					"$what: events/s > 0, 0 < p50 <= p99 <= max");
				is($r->{armed_ready}, $loop =~ /^uring_/ ? 0 : '', "$what: no poll completed as it was armed");
			}
		}

		# Cancelled mid-run: nothing left behind, the session goes on.
		for my $run (
			"uringprobe_completions('recv', 32, 'each', 'each', '', 100000000)",
			"uringprobe_completions('nop', 32, 'batch', 'batch', 'sqpoll', 100000000)",
			"uringprobe_completions('read', 32, 'batch', 'batch', '', 100000000)",
			"uringprobe_events('uring_multishot', 8, 100000000)",
			"uringprobe_events('pg_waiteventset', 8, 100000000)",
			"uringprobe_events('uring_oneshot', 1, 100000000, 'process')",
			"uringprobe_events('pg_waiteventset', 1, 100000000, 'process')")
		{
			cancel_leaves_backend_as_was($node, $run, '300ms', "$cell: $run");
		}
		is(scalar(scratch_files($scratch)), 0, "$cell: no scratch file left");
		$node->stop;
	}
}

done_testing();
