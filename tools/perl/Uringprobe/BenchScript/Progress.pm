# A benchmark's progress: how many cells it will make, each announced with
# its place in the whole run and an ETA, and when each began (for the
# kernel's profile of each cell).
package Uringprobe::BenchScript::Progress;

use strict;
use warnings;
use Exporter 'import';
use POSIX ();
use PostgreSQL::Test::Utils ();
use Test::More ();
use Time::HiRes ();
use Uringprobe::BenchScript::Weather;
use Uringprobe::Manifest qw(cell_key);

our @EXPORT = qw(plan_cells cell);

# Progress. A script states how many measurements ("cells") it will make
# with plan_cells() before it starts any cluster, and announces each with
# cell(). tools/run-bench first runs every script with
# URINGPROBE_BENCH_PLAN=FILE: plan_cells() then writes the count there and
# the script ends, so the run's total is known; then it passes
# URINGPROBE_PROGRESS="CELLS_BEFORE TOTAL_CELLS START_EPOCH RATE AFTER
# PLANNED" to each script, so that every line shows the whole run's
# position, elapsed time and ETA. PLANNED is the count this script gave
# then: one that finds more cells once it runs (oltp's advised set, from
# the advise benchmark that ran in between) adds them to the totals. The ETA is this script's cells left at its own pace so far
# (before its first cell: RATE, seconds per cell in the last run of the
# same profile) plus AFTER, the last run's seconds for the benchmarks still
# to come; where the last run says nothing ('-'), the whole run's pace.
my ($cells_before, $cells_total, $run_start, $cells_here, $planned_here) = (0, 0, Time::HiRes::time, 0, 0);
my ($prev_rate, $after, $script_start, $added_here) = ('-', '-', Time::HiRes::time, 0);
my $current_cell = '';

# The label of the cell running now (what ran() notes a command under).
sub current_cell { return $current_cell; }

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
	my $planned_then;
	($cells_before, $cells_total, $run_start, $prev_rate, $after, $planned_then) =
	  $ENV{URINGPROBE_PROGRESS} ? split(' ', $ENV{URINGPROBE_PROGRESS}) : (0, $n, Time::HiRes::time);
	($planned_here, $script_start) = ($n, Time::HiRes::time);
	if (defined $planned_then && $planned_then =~ /^\d+$/ && $n > $planned_then)
	{
		$cells_total += $n - $planned_then;
		$added_here += $n - $planned_then;
	}
	$prev_rate //= '-';
	$after //= '-';
	return;
}

sub duration
{
	my ($s) = @_;
	return $s < 60 ? sprintf('%ds', $s) : sprintf('%dm%02ds', $s / 60, $s % 60);
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

# cell(LABEL, PARAMETER => VALUE ...): a cell begins, shown as LABEL (which
# may name the round) and keyed by its parameters (the same in every round
# of it): what reads the cell's times and profile (bench/perf-profile.pl,
# the findings) goes by the key, never by the label.
sub cell
{
	my ($name, %key) = @_;
	die "cell '$name': no parameters to key it by\n" unless %key;
	$current_cell = $name;
	note_cell_time($name, cell_key(%key));
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

1;
