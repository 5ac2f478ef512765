# What the benchmark scripts share: medians, rows parsed from psql or CLI
# output, TSV files with a header, and the scratch filesystems to measure on.
package Uringprobe::Bench;

use strict;
use warnings;
use List::Util ();
use Uringprobe::Benchmarks qw(cell_key);
use Exporter 'import';
use IPC::Run ();
use POSIX ();
use PostgreSQL::Test::Utils ();
use Test::More ();
use Time::HiRes ();
use Uringprobe::Cluster;
use Uringprobe::Stats;

our @EXPORT = (@Uringprobe::Stats::EXPORT,
	qw(parse_rows tsv_open tsv_row bench_filesystems cli_row plan_cells cell bench_query bench_command
	  ran settle_fs @settle_cols runs_open run_row @weather_cols repeat_rounds));

# Progress. A script states how many measurements ("cells") it will make
# with plan_cells() before it starts any cluster, and announces each with
# cell(). tools/run-bench first runs every script with
# URINGPROBE_BENCH_PLAN=FILE: plan_cells() then writes the count there and
# the script ends, so the run's total is known; then it passes
# URINGPROBE_PROGRESS="CELLS_BEFORE TOTAL_CELLS START_EPOCH RATE AFTER" to
# each script, so that every line shows the whole run's position, elapsed
# time and ETA. The ETA is this script's cells left at its own pace so far
# (before its first cell: RATE, seconds per cell in the last run of the
# same profile) plus AFTER, the last run's seconds for the benchmarks still
# to come; where the last run says nothing ('-'), the whole run's pace.
my ($cells_before, $cells_total, $run_start, $cells_here, $planned_here) = (0, 0, Time::HiRes::time, 0, 0);
my ($prev_rate, $after, $script_start, $added_here) = ('-', '-', Time::HiRes::time, 0);
my $current_cell = '';

sub plan_cells
{
	my ($n) = @_;
	if (my $file = $ENV{URINGPROBE_BENCH_PLAN})
	{
		open my $fh, '>', $file or die "cannot write $file: $!\n";
		print $fh "$n\n";
		close $fh or die "cannot write $file: $!\n";
		exit 0;
	}
	# From here on this is a benchmark, not a test: the TAP modules' notes
	# ("initializing database system by running initdb", one per cluster)
	# go to its log only; it speaks to the terminal through cell() and its
	# failures.
	if (open my $log, '>>', $PostgreSQL::Test::Utils::test_logfile)
	{
		$log->autoflush(1);
		Test::More->builder->output($log);
	}
	($cells_before, $cells_total, $run_start, $prev_rate, $after) =
	  $ENV{URINGPROBE_PROGRESS} ? split(' ', $ENV{URINGPROBE_PROGRESS}) : (0, $n, Time::HiRes::time);
	($planned_here, $script_start) = ($n, Time::HiRes::time);
	$prev_rate //= '-';
	$after //= '-';
	return;
}

sub duration
{
	my ($s) = @_;
	return $s < 60 ? sprintf('%ds', $s) : sprintf('%dm%02ds', $s / 60, $s % 60);
}

# The weather of a run: what else the machine did while it ran. From the
# start of the cell (or the end of settle_fs) to its row: the CPU stolen by
# the hypervisor (/proc/stat) and the CPU of the other processes — every
# process that is neither a kernel thread nor the benchmark's (PostgreSQL's
# processes, uringprobe-cli, pgbench, the reference loop, psql, and the
# driver: perl, bash, make, sync, setpriv, perf, gnuplot) — as a percentage
# of the CPU time there was, with the busiest of them; and the dirty and
# writeback pages before and after. Other processes are counted when alive
# at both ends: a lower bound.
our @weather_cols = qw(steal_pct foreign_cpu_pct foreign_top dirty_kb_before writeback_kb_before
  dirty_kb_after writeback_kb_after);
my %ours = map { $_ => 1 }
  qw(postgres postmaster uringprobe-cli pgbench epoll-pingpong psql perl bash sh make sync setpriv
  perf gnuplot env pg_ctl initdb);
my $clock_ticks = POSIX::sysconf(POSIX::_SC_CLK_TCK()) || 100;
my %weather_start;
# The clock repeat_rounds times rounds by, and the weather run_row records
# (the tests put their own in, so that what they assert follows from made-up
# time and weather, never from the machine's).
our $clock = \&Time::HiRes::time;
our $weather = \&weather_now;
sub cpu_totals
{
	open my $fh, '<', '/proc/stat' or return (0, 0);
	my $line = <$fh>;
	my @f = split ' ', $line;
	shift @f;
	my $total = 0;
	$total += $_ for @f[ 0 .. 7 ];
	return ($total, $f[7] // 0);    # all ticks, steal ticks
}
sub foreign_cpu
{
	my %cpu;
	for my $stat (glob('/proc/[0-9]*/stat'))
	{
		open my $fh, '<', $stat or next;
		my $line = <$fh> // next;
		my ($pid, $comm, $rest) = $line =~ /^(\d+) \((.*)\) (.*)$/ or next;
		my @f = split ' ', $rest;
		# f[1]: ppid; f[6]: flags (PF_KTHREAD 0x00200000); f[11], f[12]: utime, stime
		next if $pid == 2 || $f[1] == 2 || ($f[6] & 0x00200000) || $ours{$comm};
		$cpu{$pid} = [ $comm, $f[11] + $f[12] ];
	}
	return \%cpu;
}
sub weather_start
{
	my ($total, $steal) = cpu_totals();
	my ($dirty, $writeback) = dirty_kb();
	%weather_start = (time => Time::HiRes::time, total => $total, steal => $steal, foreign => foreign_cpu(),
		dirty => $dirty, writeback => $writeback);
	return;
}
sub weather_now
{
	return map { '' } @weather_cols unless %weather_start;
	my ($total, $steal) = cpu_totals();
	my ($dirty, $writeback) = dirty_kb();
	my $ticks = $total - $weather_start{total};
	my $now = foreign_cpu();
	my (%by_comm, $foreign);
	for my $pid (keys %$now)
	{
		my $before = $weather_start{foreign}{$pid} or next;
		my $used = $now->{$pid}[1] - $before->[1];
		next unless $used > 0;
		$foreign += $used;
		$by_comm{ $now->{$pid}[0] } += $used;
	}
	my ($top) = sort { $by_comm{$b} <=> $by_comm{$a} } keys %by_comm;
	# (processes' ticks and the machine's are counted apart: over a run of
	# a few ticks the processes' may come out above the machine's, which
	# they cannot be; a run shorter than a tick, 10 ms, saw no tick of
	# either: 0.0)
	my $pct = sub { $ticks > 0 ? sprintf('%.1f', List::Util::min(100, 100 * $_[0] / $ticks)) : '0.0' };
	return ($pct->($steal - $weather_start{steal}), $pct->($foreign // 0),
		$top ? "$top " . $pct->($by_comm{$top}) . '%' : '',
		$weather_start{dirty}, $weather_start{writeback}, $dirty, $writeback);
}

# A runs file: its columns, then @weather_cols; run_row() writes a run's
# values (padded to the columns) and its weather since the cell began.
my %runs_columns;
sub runs_open
{
	my ($file, @cols) = @_;
	my $fh = tsv_open($file, @cols, @weather_cols);
	$runs_columns{ fileno($fh) } = scalar(@cols);
	return $fh;
}
my @disturbed_runs;    # the runs written since repeat_rounds began a round that the weather disturbed
sub run_row
{
	my ($fh, @values) = @_;
	my $n = $runs_columns{ fileno($fh) } // scalar(@values);
	push @values, '' while @values < $n;
	my @weather = $weather->();
	push @disturbed_runs, "steal $weather[0]%, foreign $weather[1]%" if disturbed(@weather[ 0, 1 ]);
	return tsv_row($fh, @values, @weather);
}

# A file run's starting state, the same for every run: before its clock
# starts, the scratch filesystem holding DIR is synced (syncfs, as `sync
# -f`) and the machine's dirty and writeback pages (/proc/meminfo) brought
# back to their baseline — what a full `sync` left when the benchmark's
# first run began — within 8 MiB or 10%: if they are above it, everything
# is synced (`sync`), and then they are waited for, at most
# $settle_timeout seconds. So no run pays for the writeback of the one
# before, and every run starts with the page cache warm and clean. Returns
# the columns @settle_cols: start_state ("settled", or why not: the sync
# failed, or how far above the baseline the dirty pages stayed),
# settle_ms, and Dirty and Writeback in kB as the run starts.
our @settle_cols = qw(start_state settle_ms dirty_kb writeback_kb);
my $settle_timeout = 20;
my $dirty_baseline_kb;
sub dirty_kb
{
	open my $fh, '<', '/proc/meminfo' or return (0, 0);
	my %m = map { /^(\w+):\s+(\d+)/ ? ($1 => $2) : () } <$fh>;
	return ($m{Dirty} // 0, $m{Writeback} // 0);
}
# sync(1) with @args; '' or why it failed.
sub sync_failure
{
	my ($out, $err) = ('', '');
	return '' if IPC::Run::run([ 'sync', @_ ], '>', \$out, '2>', \$err);
	$err =~ s/\s+/ /g;
	return "sync @_ failed: $err";
}
sub settle_fs
{
	my ($dir) = @_;
	my $t0 = Time::HiRes::time;
	$dirty_baseline_kb //= do { sync_failure(); my ($d, $w) = dirty_kb(); $d + $w };
	my $limit = $dirty_baseline_kb + ($dirty_baseline_kb / 10 > 8192 ? $dirty_baseline_kb / 10 : 8192);
	my $failed = sync_failure('-f', $dir);
	my ($dirty, $writeback) = dirty_kb();
	if ($dirty + $writeback > $limit)
	{
		$failed ||= sync_failure();
		($dirty, $writeback) = dirty_kb();
	}
	while ($dirty + $writeback > $limit && Time::HiRes::time - $t0 < $settle_timeout)
	{
		Time::HiRes::sleep(0.05);
		($dirty, $writeback) = dirty_kb();
	}
	my $state = $failed
	  || ($dirty + $writeback > $limit
		? sprintf('not settled: %d kB dirty and under writeback after %d s (baseline %d kB)',
			$dirty + $writeback, $settle_timeout, $dirty_baseline_kb)
		: 'settled');
	# the run's weather from here, settled
	weather_start();
	return { start_state => $state, settle_ms => sprintf('%.0f', 1000 * (Time::HiRes::time - $t0)),
		dirty_kb => $dirty, writeback_kb => $writeback };
}
# make bench PERF=1: when each cell starts, on perf's clock
# (CLOCK_MONOTONIC), appended to URINGPROBE_CELL_TIMES, and the script's
# end, so that bench/perf-profile.pl gives each sample to its cell.
sub note_cell_time
{
	my ($name, $key) = @_;
	my $file = $ENV{URINGPROBE_CELL_TIMES} or return;
	open my $fh, '>>', $file or die "cannot write $file: $!\n";
	printf $fh "%.6f\t%s%s\n", Time::HiRes::clock_gettime(Time::HiRes::CLOCK_MONOTONIC()), $name,
	  defined $key ? "\t$key" : '';
	close $fh or die "cannot write $file: $!\n";
	return;
}
END
{
	note_cell_time('(end)') if $cells_here;
	# how many cells repeat_rounds added to the plan, for tools/run-bench
	if (my $file = $ENV{URINGPROBE_EXTRA_CELLS})
	{
		if (open my $fh, '>', $file) { print $fh $added_here, "\n"; close $fh; }
	}
}

# cell(LABEL [, PARAMETER => VALUE ...]): a cell begins, shown as LABEL and
# keyed by its parameters where given.
sub cell
{
	my ($name, %key) = @_;
	$current_cell = $name;
	note_cell_time($name, %key ? cell_key(%key) : undef);
	weather_start();
	my $now = Time::HiRes::time;
	my $done_here = $cells_here++;
	# a cell repeat_rounds added: the totals grow by it
	($planned_here, $cells_total, $added_here) = ($planned_here + 1, $cells_total + 1, $added_here + 1)
	  if $cells_here > $planned_here;
	my $done = $cells_before + $done_here;
	my $elapsed = $now - $run_start;
	my $rate_here = $done_here ? ($now - $script_start) / $done_here : $prev_rate;
	my $eta =
	    $rate_here ne '-' && $after ne '-' ? duration(($planned_here - $done_here) * $rate_here + $after)
	  : $done ? duration($elapsed / $done * ($cells_total - $done))
	  :         '?';
	# PostgreSQL::Test::Utils sends STDERR to the script's log only; the
	# handle Test::More reports failures on reaches the terminal too.
	my $out = Test::More->builder->failure_output;
	print $out sprintf("[uringprobe %s] [%d/%d, %s, ETA %s] %s\n", POSIX::strftime('%H:%M:%S', localtime),
		$done + 1, $cells_total, duration($elapsed), $eta, $name);
	return;
}

# Adaptive repetitions. repeat_rounds(NAME, \@cells, ROUNDS, RUN) measures
# each cell (an id) in rounds: RUN->($id, $round, $label) runs one round of
# it — every side it compares, each through cell() and run_row() — and
# returns that round's measurement of each metric the report shows for it
# ({ "backend seconds" => 0.15, "cli seconds" => 0.16, ... }; '' or undef
# where a run failed). First ROUNDS rounds of every cell, round by round
# (so that a slow drift of the machine spreads over all of them); then,
# while some cells are not steady and max_rounds(ROUNDS) (ROUNDS + 2, or
# URINGPROBE_MAX_ROUNDS) is not reached, another round of those cells
# only, those nearest to steady first (the smallest spread: another round
# is likeliest to settle them), as long as the extra rounds have taken less
# than extra_share() (URINGPROBE_EXTRA_SHARE, 20) percent of the time the
# first ROUNDS rounds took: so a noisy machine costs a profile a fifth more
# time at most, not twice its time. A cell is steady when every metric
# has ROUNDS runs not disturbed and a spread (robust_spread) within
# $noisy_pct. A disturbed run (more than $disturbed_steal_pct of its CPU
# stolen, or $disturbed_foreign_pct used by other processes) stays in the
# runs file and the medians; the cell gets a round more for it. A cell
# whose runs' range is above $noisy_pct has at least 5 runs. Each
# cell's outcome is added to the file URINGPROBE_ROUNDS_FILE names (make
# bench: rounds.tsv): benchmark, cell, its rounds, the rounds it took, the
# largest spread, the disturbed rounds, the seconds of its extra rounds,
# and its state: steady, or why it stayed noisy. Returns { id => rounds }.
our @rounds_cols = qw(benchmark cell base_rounds rounds spread_pct disturbed_rounds extra_seconds state);
sub max_rounds
{
	my ($rounds) = @_;
	my $cap = $ENV{URINGPROBE_MAX_ROUNDS} || $rounds + 2;
	return $cap < $rounds ? $rounds : $cap;
}
sub extra_share
{
	my $share = $ENV{URINGPROBE_EXTRA_SHARE} // 20;
	die "URINGPROBE_EXTRA_SHARE must be a percentage (0 or more), got '$share'\n" unless $share =~ /^\d+(\.\d+)?$/;
	return $share;
}
sub repeat_rounds
{
	my ($name, $cells, $rounds, $run) = @_;
	my $cap = max_rounds($rounds);
	my $share = extra_share();
	my (%values, %took, %disturbed, %extra_s, %stopped);
	my $one = sub {
		my ($id, $round) = @_;
		my $label = $round <= $rounds ? "round $round/$rounds" : "extra round $round (at most $cap)";
		my $t0 = $clock->();
		@disturbed_runs = ();
		my $m = $run->($id, $round, $label) // {};
		$disturbed{$id}++ if @disturbed_runs;
		$took{$id} = $round;
		$extra_s{$id} += $clock->() - $t0 if $round > $rounds;
		push @{ $values{$id}{$_} }, $m->{$_} for keys %$m;
	};
	my $worst = sub {
		my ($id) = @_;
		my ($w) = sort { $b <=> $a } grep { defined } map { robust_spread(@$_) } values %{ $values{$id} };
		return $w;
	};
	# with a range above $noisy_pct, the spread is taken over at least 5
	# runs: that of 3 runs is their smaller gap, blind to which of the
	# other two is off; of 5, the middle one of their distances
	my $sure = $rounds > 5 ? $rounds : 5;
	$sure = $cap if $sure > $cap;
	my $steady = sub {
		my ($id) = @_;
		return 0 if $took{$id} - ($disturbed{$id} // 0) < $rounds;
		my $w = $worst->($id);
		return 1 unless defined $w;
		return 0 if $w > $noisy_pct;
		return $took{$id} >= $sure
		  || !grep { my $r = range_spread(@$_); defined $r && $r > $noisy_pct } values %{ $values{$id} };
	};
	my $t0 = $clock->();
	for my $round (1 .. $rounds)
	{
		$one->($_, $round) for @$cells;
	}
	my $allowed = ($clock->() - $t0) * $share / 100;
	my $spent = 0;
	ROUND: for my $round ($rounds + 1 .. $cap)
	{
		my @more = sort { ($worst->($a) // 0) <=> ($worst->($b) // 0) } grep { !$steady->($_) } @$cells;
		last unless @more;
		for my $id (@more)
		{
			if ($spent >= $allowed)
			{
				$stopped{$_} = 1 for grep { !$steady->($_) } @$cells;
				last ROUND;
			}
			my $t = $clock->();
			$one->($id, $round);
			$spent += $clock->() - $t;
		}
	}
	if (my $file = $ENV{URINGPROBE_ROUNDS_FILE})
	{
		my $new = !-s $file;
		open my $fh, '>>', $file or die "cannot write $file: $!\n";
		print $fh join("\t", @rounds_cols), "\n" if $new;
		for my $id (@$cells)
		{
			my $w = $worst->($id);
			my $why = $stopped{$id} && $took{$id} < $cap
			  ? "its benchmark's extra time spent ($share% of its first rounds')"
			  : 'the most allowed';
			my ($range) = sort { $b <=> $a } grep { defined } map { range_spread(@$_) } values %{ $values{$id} };
			my $state =
			    $steady->($id) ? 'steady'
			  : !(grep { defined && $_ ne '' } map { @$_ } values %{ $values{$id} }) ? 'not measured'
			  : defined $w && $w > $noisy_pct ? sprintf('noisy: spread %.1f%% after %d rounds, %s', $w, $took{$id}, $why)
			  : $took{$id} - ($disturbed{$id} // 0) < $rounds ? "disturbed: $disturbed{$id} of $took{$id} rounds, $why"
			  : sprintf('unsure: range %.1f%% after %d rounds, fewer than %d, %s', $range, $took{$id}, $sure, $why);
			(my $cell = $id) =~ s/\t/ /g;
			print $fh join("\t", $name, $cell, $rounds, $took{$id}, defined $w ? sprintf('%.1f', $w) : '',
				$disturbed{$id} // 0, sprintf('%.1f', $extra_s{$id} // 0), $state), "\n";
		}
		close $fh or die "cannot write $file: $!\n";
	}
	return \%took;
}

# What each cell ran, to rerun one by hand: "cell<TAB>command" lines added
# to the file named by URINGPROBE_CELL_COMMANDS (make bench: cells.tsv).
sub ran
{
	my ($command) = @_;
	my $file = $ENV{URINGPROBE_CELL_COMMANDS} or return;
	open my $fh, '>>', $file or die "cannot write $file: $!\n";
	print $fh "$current_cell\t$command\n";
	close $fh or die "cannot write $file: $!\n";
	return;
}

sub shell_words
{
	return join ' ', map { m{^[\w./=:,+-]+$} ? $_ : "'" . s/'/'\\''/gr . "'" } @_;
}

# query_row() and PostgreSQL::Test::Utils::run_command(), recorded by ran()
# first; bench_command() also returns the seconds the command alone took,
# so that a benchmark timing it does not time the record.
sub bench_query
{
	my ($node, $sql) = @_;
	ran(shell_words('psql', '-d', 'postgres', '-c', $sql));
	return query_row($node, $sql);
}

sub bench_command
{
	my ($command) = @_;
	ran(shell_words(@$command));
	my $start = Time::HiRes::time;
	my ($out, $err) = PostgreSQL::Test::Utils::run_command($command);
	return ($out, $err, Time::HiRes::time - $start);
}

# The first row of `uringprobe-cli @args --format tsv`, as a hash.
sub cli_row
{
	my ($cli, @args) = @_;
	my ($out, $err) = bench_command([ $cli, @args, '--format', 'tsv' ]);
	die "uringprobe-cli @args failed: $err\n" unless $out =~ /\n/;
	return (parse_rows($out, '\t'))[0];
}

# Rows of $text (a header line, then data; columns split by $sep) as hashes.
sub parse_rows
{
	my ($text, $sep) = @_;
	my @lines = grep { length } split /\n/, $text;
	my @hdr = split /$sep/, shift @lines;
	return map { my %r; @r{@hdr} = split /$sep/, $_, -1; \%r } @lines;
}

# A TSV file with header @cols.
sub tsv_open
{
	my ($file, @cols) = @_;
	open my $fh, '>', $file or die "cannot write $file: $!\n";
	$fh->autoflush(1);
	print $fh join("\t", @cols), "\n";
	return $fh;
}

sub tsv_row
{
	my ($fh, @values) = @_;
	print $fh join("\t", map { $_ // '' } @values), "\n";
}

# The scratch filesystems named in $names (space-separated): a list of
# those mounted, and a list of the others, each with its status (why it is
# unavailable), so that a table can keep their cells and say why they are
# empty. Dies on an unknown name, or when none is mounted.
sub bench_filesystems
{
	my ($names) = @_;
	my %fs = map { $_->{name} => $_ } scratch_filesystems();
	my (@picked, @missing);
	for my $name (split ' ', $names)
	{
		my $fs = $fs{$name} or die "no scratch filesystem '$name' (have: @{[ sort keys %fs ]})\n";
		if ($fs->{status} eq 'ok') { push @picked, $fs; }
		else
		{
			warn "filesystem $name is unavailable: $fs->{status}\n";
			push @missing, $fs;
		}
	}
	die "none of the filesystems '$names' is available: "
	  . join('; ', map { "$_->{name}: $_->{status}" } @missing) . "\n" unless @picked;
	return (\@picked, \@missing);
}

1;
