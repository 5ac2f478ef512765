# make bench's adaptive repetitions (repeat_rounds) on measurements, weather
# and a clock the test makes up: what it asserts follows from them, never
# from how busy the machine is. Needs no benchmark and no server.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::BenchScript;
use Uringprobe::TextTable;

# repeat_rounds itself, with measurements made up: a steady cell takes its
# rounds; a noisy one more, up to the most allowed; one whose runs agree
# but for one far off takes two more; a run whose weather says another
# process took the CPU is disturbed, kept, and earns its cell a round. The
# weather and (below) the clock are the test's own: what it asserts
# follows from them, never from how busy the machine is.
{
	my $unit = PostgreSQL::Test::Utils::tempdir;
	local $ENV{URINGPROBE_ROUNDS_FILE} = "$unit/rounds-unit.tsv";
	local $ENV{URINGPROBE_MAX_ROUNDS} = 6;
	local $ENV{URINGPROBE_EXTRA_SHARE} = 100000;
	my $runs = runs_open("$unit/runs-unit.tsv", qw(cell round value));
	my %seq = (steady => [ 1, 1.02, 0.99 ], noisy => [ 1, 1.3, 0.7, 1.5, 0.6, 1.4 ], stray => [ 1, 1.5, 1.02, 1.01, 0.98 ],
		busy => [ 1, 1.01, 0.99, 1 ]);
	# the weather of a run, made up: calm, but for busy's second round,
	# where another process took 80% of the CPU
	my $busy = 0;
	local $Uringprobe::BenchScript::Weather::weather = sub { return ('0.0', $busy ? '80.0' : '0.0', $busy ? 'yes 80.0%' : '', 0, 0, 0, 0); };
	my $took = repeat_rounds('unit', [qw(steady noisy stray busy)], 3, sub {
		my ($id, $round, $label) = @_;
		$busy = $id eq 'busy' && $round == 2;
		cell("unit $id, $label", unit => $id);
		run_row($runs, $id, $round, $seq{$id}[ $round - 1 ]);
		return { value => $seq{$id}[ $round - 1 ] };
	});
	close $runs;
	is_deeply($took, { steady => 3, noisy => 6, stray => 5, busy => 4 },
		'repeat_rounds: steady 3 rounds, noisy 6 (the most), one stray run 5, one disturbed run 4');
	my ($h, @rows) = read_tsv("$unit/rounds-unit.tsv");
	my %state = map { $_->[1] => $_ } @rows;
	like($state{noisy}[7], qr/^noisy: spread 3\d\.\d% after 6 rounds, the most allowed$/, 'repeat_rounds: why a cell stayed noisy');
	is($state{busy}[5], 1, 'repeat_rounds: the disturbed round counted');
	is($state{busy}[7], 'steady', '... and the cell steady with a round more');
	my ($rh, @runs_rows) = read_tsv("$unit/runs-unit.tsv");
	is(scalar(grep { $_->[0] eq 'busy' } @runs_rows), 4, '... its disturbed run kept in the runs file');
}

# The first rounds take the cells in turns, the order reversed every
# other round, so that no cell always follows the same one.
{
	my $unit = PostgreSQL::Test::Utils::tempdir;
	local $ENV{URINGPROBE_ROUNDS_FILE} = "$unit/rounds-order.tsv";
	my @order;
	repeat_rounds('order', [qw(a b c)], 3, sub {
		my ($id, $round) = @_;
		push @order, "$id/$round";
		return { value => 1 };
	});
	is_deeply(\@order, [qw(a/1 b/1 c/1 c/2 b/2 a/2 a/3 b/3 c/3)], 'repeat_rounds: the order reversed every other round');
}

# The extra rounds' time is a share of the first rounds': two noisy cells
# whose first 3 rounds take 0.1 s each (0.6 s), at 50% the extra rounds
# may take 0.3 s; each takes 0.25 s, so the calmer cell's extra round
# (the nearer to steady) comes first, the other's is the last begun, and
# both stop short of the most allowed and say so.
{
	my $unit = PostgreSQL::Test::Utils::tempdir;
	local $ENV{URINGPROBE_ROUNDS_FILE} = "$unit/rounds-share.tsv";
	local $ENV{URINGPROBE_MAX_ROUNDS} = 6;
	local $ENV{URINGPROBE_EXTRA_SHARE} = 50;
	my %seq = (calmer => [ 1, 1.2, 0.8, 1 ], noisier => [ 1, 1.5, 0.5, 1 ]);
	my @order;
	# the rounds' time on a clock the test moves
	my $now = 1000;
	local $Uringprobe::BenchScript::Rounds::clock = sub { return $now; };
	my $took = repeat_rounds('share', [qw(calmer noisier)], 3, sub {
		my ($id, $round) = @_;
		push @order, "$id/$round" if $round > 3;
		$now += $round > 3 ? 0.25 : 0.1;
		return { value => $seq{$id}[ $round - 1 ] };
	});
	is_deeply(\@order, [qw(calmer/4 noisier/4)], 'repeat_rounds: the cell nearer to steady first, no round begun once the share is spent');
	is_deeply($took, { calmer => 4, noisier => 4 }, '... 4 rounds each, below the most allowed (6)');
	my ($h, @rows) = read_tsv("$unit/rounds-share.tsv");
	like($_->[7], qr/^noisy: spread [\d.]+% after 4 rounds, its benchmark's extra time spent \(50% of its first rounds'\)$/,
		"repeat_rounds: $_->[1] says why it stopped") for @rows;
	local $ENV{URINGPROBE_EXTRA_SHARE} = 'a fifth';
	ok(!eval { repeat_rounds('share', ['x'], 1, sub { return {} }); 1 } && $@ =~ /URINGPROBE_EXTRA_SHARE must be a percentage/,
		'repeat_rounds: a share that is not a percentage refused');
}

done_testing();
