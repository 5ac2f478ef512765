# Adaptive repetitions of a benchmark's cells (repeat_rounds).
package Uringprobe::BenchScript::Rounds;

use strict;
use warnings;
use Exporter 'import';
use Time::HiRes ();
use Uringprobe::Stats;

our @EXPORT = qw(repeat_rounds @rounds_cols note_disturbed);

# The clock repeat_rounds times rounds by (the tests put their own in, so
# that what they assert follows from made-up time, never from the
# machine's).
our $clock = \&Time::HiRes::time;

# The runs written since repeat_rounds began a round that the weather
# disturbed (run_row notes them).
my @disturbed_runs;
sub note_disturbed
{
	my ($why) = @_;
	push @disturbed_runs, $why;
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
# The widest robust spread of a cell's figures so far (undef: none).
sub worst_spread
{
	my ($st, $id) = @_;
	my ($w) = sort { $b <=> $a } grep { defined } map { robust_spread(@$_) } values %{ $st->{values}{$id} };
	return $w;
}

# Whether a cell has its rounds, undisturbed, and figures within the noise.
sub steady
{
	my ($st, $id) = @_;
	return 0 if $st->{took}{$id} - ($st->{disturbed}{$id} // 0) < $st->{rounds};
	my $w = worst_spread($st, $id);
	return 1 unless defined $w;
	return 0 if $w > $noisy_pct;
	return $st->{took}{$id} >= $st->{sure}
	  || !grep { my $r = range_spread(@$_); defined $r && $r > $noisy_pct } values %{ $st->{values}{$id} };
}

# A cell's line of URINGPROBE_ROUNDS_FILE: its state and why.
sub rounds_line
{
	my ($st, $name, $id) = @_;
	my ($took, $disturbed, $values) = ($st->{took}{$id}, $st->{disturbed}{$id} // 0, $st->{values}{$id});
	my $w = worst_spread($st, $id);
	my $why = $st->{stopped}{$id} && $took < $st->{cap}
	  ? "its benchmark's extra time spent ($st->{share}% of its first rounds')"
	  : 'the most allowed';
	my ($range) = sort { $b <=> $a } grep { defined } map { range_spread(@$_) } values %$values;
	my $state =
	    steady($st, $id) ? 'steady'
	  : !(grep { defined && $_ ne '' } map { @$_ } values %$values) ? 'not measured'
	  : defined $w && $w > $noisy_pct ? sprintf('noisy: spread %.1f%% after %d rounds, %s', $w, $took, $why)
	  : $took - $disturbed < $st->{rounds} ? "disturbed: $disturbed of $took rounds, $why"
	  : sprintf('unsure: range %.1f%% after %d rounds, fewer than %d, %s', $range, $took, $st->{sure}, $why);
	(my $cell = $id) =~ s/\t/ /g;
	return join("\t", $name, $cell, $st->{rounds}, $took, defined $w ? sprintf('%.1f', $w) : '',
		$disturbed, sprintf('%.1f', $st->{extra_s}{$id} // 0), $state) . "\n";
}

sub repeat_rounds
{
	my ($name, $cells, $rounds, $run) = @_;
	my $cap = max_rounds($rounds);
	# with a range above $noisy_pct, the spread is taken over at least 5
	# runs: that of 3 runs is their smaller gap, blind to which of the
	# other two is off; of 5, the middle one of their distances
	my $sure = $rounds > 5 ? $rounds : 5;
	$sure = $cap if $sure > $cap;
	my $st = { rounds => $rounds, cap => $cap, sure => $sure, share => extra_share(),
		values => {}, took => {}, disturbed => {}, extra_s => {}, stopped => {} };
	my $one = sub {
		my ($id, $round) = @_;
		my $label = $round <= $rounds ? "round $round/$rounds" : "extra round $round (at most $cap)";
		my $t0 = $clock->();
		@disturbed_runs = ();
		my $m = $run->($id, $round, $label) // {};
		$st->{disturbed}{$id}++ if @disturbed_runs;
		$st->{took}{$id} = $round;
		$st->{extra_s}{$id} += $clock->() - $t0 if $round > $rounds;
		push @{ $st->{values}{$id}{$_} }, $m->{$_} for keys %$m;
	};
	my $t0 = $clock->();
	# the cells' order reversed every other round (A B, B A, A B ...): a
	# cell that leaves work behind (dirty pages written back, a cache
	# filled) slows the one after it, which would otherwise always be the
	# same cell and bias every ratio between them
	for my $round (1 .. $rounds)
	{
		$one->($_, $round) for $round % 2 ? @$cells : reverse @$cells;
	}
	my $allowed = ($clock->() - $t0) * $st->{share} / 100;
	my $spent = 0;
	ROUND: for my $round ($rounds + 1 .. $cap)
	{
		my @more = sort { (worst_spread($st, $a) // 0) <=> (worst_spread($st, $b) // 0) } grep { !steady($st, $_) } @$cells;
		last unless @more;
		for my $id (@more)
		{
			if ($spent >= $allowed)
			{
				$st->{stopped}{$_} = 1 for grep { !steady($st, $_) } @$cells;
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
		print $fh rounds_line($st, $name, $_) for @$cells;
		close $fh or die "cannot write $file: $!\n";
	}
	return $st->{took};
}
1;
