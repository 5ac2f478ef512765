# make bench, the driver itself: tools/run-tests runs the tiny profile end to
# end before the TAP tests (URINGPROBE_BENCH_RESULTS: its results root,
# URINGPROBE_BENCH_LOG: its output) and this checks what it left: every file,
# the columns, that the plots are real non-empty images titled with the
# machine, the report and results.json; then the baseline comparison
# (bench/report.pl) and make bench's refusals of bad input, which all happen
# before anything is set up, so they run here as the cluster user.
use strict;
use warnings;
use Cwd ();
use File::Basename ();
use File::Copy ();
use File::Path ();
use JSON::PP;
use POSIX ();
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run ();
use Time::HiRes ();
use Uringprobe::Bench;
use Uringprobe::Benchmarks qw(names benchmark runs_specs heading);
use Uringprobe::Browser;
use Uringprobe::Cluster;
use Uringprobe::TextTable;

my $root = $ENV{URINGPROBE_BENCH_RESULTS}
  or BAIL_OUT('URINGPROBE_BENCH_RESULTS is not set: run through make test, which runs the tiny bench first');
my $log = slurp_file($ENV{URINGPROBE_BENCH_LOG});
my @runs = grep { -d } glob("$root/*");
is(scalar(@runs), 1, 'the tiny bench left one results directory') or BAIL_OUT("in $root: @runs");
my $dir = $runs[0];
like($dir, qr{/\d{8}-\d{6}$}, 'named by its time, not marked failed');

# every benchmark run unless others are named, each file it declares (a
# sparse one, a comparison that needs two configurations, may have no row)
my @benches = names();
my @files = map { grep { !$_->{sparse} } @{ benchmark($_)->{files} } } @benches;
for my $f (map { $_->{file} } @files)
{
	my @lines = split /\n/, slurp_file("$dir/$f");
	cmp_ok(scalar(@lines), '>=', 2, "$f: a header and rows");
}
for my $f (qw(report.md report.html results.json results.csv run.tsv cells.tsv commands.sh servers.list))
{
	ok(-s "$dir/$f", "$f is there and not empty");
}
ok(scalar(glob("$dir/logs/*.log")), 'the servers\' logs are kept');
is_deeply([ glob("$dir/.[!.]*"), glob("$root/.[!.]*") ], [], 'no temporary or incomplete files left');

# Progress: a line per cell, numbered through the whole run, with an ETA.
my ($total) = $log =~ /\] (\d+) cells: /;
ok($total, "the plan counted $total cells before the run");
# Cells repeated because they were noisy add to the total as they come.
my @progress = $log =~ /^\[uringprobe [\d:]+\] \[(\d+\/\d+), (?:\d+m)?\d+s, ETA [^\]]+\] \S/mg;
my @numbers = map { (split m{/})[0] } @progress;
my @totals = map { (split m{/})[1] } @progress;
cmp_ok(scalar(@progress), '>=', $total, 'a progress line for every planned cell, and every added one');
is_deeply(\@numbers, [ 1 .. scalar(@progress) ], 'numbered in order through the whole run');
ok(!(grep { $totals[$_] < ($_ ? $totals[ $_ - 1 ] : $total) } 0 .. $#totals), 'the total only grows, from the plan\'s');
is($totals[-1], scalar(@progress), 'the last line\'s total is the cells run');

# results.csv: a row per cell and repetition of every benchmark, with a
# benchmark column and every parameter as a column.
my @csv = split /\n/, slurp_file("$dir/results.csv");
my @head = split /,/, shift @csv;
is($head[0], 'benchmark', 'results.csv: benchmark first');
for my $col (qw(server io_method max_connections fs where round strategy interface sessions clients
	op depth reaping variant pipes seconds conn_ms ns_per_completion ops_per_sec
	steal_pct foreign_cpu_pct foreign_top dirty_kb_before writeback_kb_before dirty_kb_after writeback_kb_after
	start_state settle_ms))
{
	ok((grep { $_ eq $col } @head), "results.csv has column $col");
}
my $expected_rows = 0;
my @runs_specs = grep { my $b = $_->{bench}; grep { $_ eq $b } @benches } runs_specs();
for my $f (map { "$dir/$_->{file}" } @runs_specs)
{
	$expected_rows += () = slurp_file($f) =~ /\n/g;
	$expected_rows--;    # header
}
is(scalar(@csv), $expected_rows, "results.csv: every run ($expected_rows)");
my %csv_benches = map { (split /,/)[0] => 1 } @csv;
my @measuring = sort map { $_->{name} // $_->{bench} } @runs_specs;
is_deeply([ sort keys %csv_benches ], \@measuring, 'results.csv: rows of every benchmark that has runs');

# The plots: PNG and SVG of each, real images, titled with the machine.
chomp(my $kernel = `uname -r`);
for my $plot (map { map { $_->{name} } @{ benchmark($_)->{plots} // [] } } @benches)
{
	my $png = slurp_file("$dir/$plot.png");
	is(substr($png, 0, 8), "\x89PNG\r\n\x1a\n", "$plot.png is a PNG");
	my ($w, $h) = unpack('NN', substr($png, 16, 8));
	ok($w >= 800 && $h >= 400, "$plot.png is ${w}x$h");
	cmp_ok(length($png), '>', 10000, "$plot.png has content (" . length($png) . ' bytes)');
	my $svg = slurp_file("$dir/$plot.svg");
	like($svg, qr/<svg\b[^>]*\bviewBox="0 0 \d+ \d+"/, "$plot.svg is an SVG");
	cmp_ok(scalar(() = $svg =~ /<path\b/g), '>', 10, "$plot.svg draws something");
	like($svg, qr/kernel \Q$kernel\E/, "$plot.svg is titled with the kernel");
	like($svg, qr/PostgreSQL|18\.\d|15\.\d/, "$plot.svg names the server versions");
}

# report.md: plain text, the machine and every benchmark's tables.
my $md = slurp_file("$dir/report.md");
like($md, qr/^Machine: \d+ CPUs, \d+ GiB RAM, kernel \Q$kernel\E$/m, 'report.md: the machine');
like($md, qr/^Profile: tiny; /m, 'report.md: the profile');
my @servers = servers();
like($md, qr/^- \Q$_->{name}\E: PostgreSQL \Q$_->{major}\E\b/m, "report.md: the version of $_->{name}") for @servers;
# (the advice has the report's own section, the others their titles)
for my $b (@benches)
{
	my $title = $b eq 'advise' ? heading('advice') : benchmark($b)->{title};
	like($md, qr/^## \Q$title\E$/m, "report.md: a section for $b");
}
is(scalar(() = $md =~ /^## /mg), scalar(@benches) + 2,
	'report.md: a section per benchmark, the findings before them and the repetitions after');
like($md, qr/\A(?:[^\n]*\n){3,14}\n## \Q@{[heading('advice')]}\E\n/,
	'report.md: the advice right after the run\'s description');
like($md, qr/\n## \Q@{[heading('advice')]}\E.*\n## \Q@{[heading('findings')]}\E\n(?:(?!\n## ).)*\n## \Q@{[benchmark('environment')->{title}]}\E/s,
	'report.md: then the findings, then the benchmarks');

# The advice: every server, every row graded, with figures; rows linked
# to the benchmark sections of this run, which exist.
my ($adv_head, @adv) = map { [ split /\t/, $_, -1 ] } split /\n/, slurp_file("$dir/advise.tsv");
my %ac = map { $adv_head->[$_] => $_ } 0 .. $#$adv_head;
is_deeply([ sort keys %{ { map { $_->[ $ac{server} ] => 1 } @adv } } ], [ sort map { $_->{name} } servers() ],
	'advise.tsv: every server advised');
is_deeply([ grep { $_->[ $ac{confidence} ] !~ /^(high|medium|low)$/ } @adv ], [], 'advise.tsv: every row graded');
is_deeply([ map { "$_->[ $ac{server} ] $_->[ $ac{setting} ]" } grep { $_->[ $ac{advice} ] eq '' || $_->[ $ac{evidence} ] eq '' } @adv ],
	[], 'advise.tsv: every row advises, with its evidence');
for my $s (servers())
{
	like($md, qr/^### \Q$s->{name}\E \([^)]*max_connections \d+; the call took [\d.]+ s of a [\d.]+ s budget\)$/m,
		"report.md: the advice for $s->{name}, and its time against the budget");
}
my $adv_html = slurp_file("$dir/report.html");
my @links = $adv_html =~ /<a href="#(bench-\w+)">/g;
cmp_ok(scalar(@links), '>', 0, 'report.html: advice rows link to the cells behind them');
is_deeply([ grep { $adv_html !~ /<h2 id="\Q$_\E">/ } @links ], [], 'report.html: every link reaches its section');
my @verdicts = $md =~ /^\*\*Report (\d), [^:*]+: ([^*]+)\*\*$/mg;
is_deeply([ map { $verdicts[ 2 * $_ ] } 0 .. $#verdicts / 2 ], [ 1 .. 4 ], 'report.md: a finding per report');
my @bad_verdicts = grep { !/^(?:reproduced|not reproduced here|not measurable here: \S)/ } map { $verdicts[ 2 * $_ + 1 ] } 0 .. $#verdicts / 2;
is_deeply(\@bad_verdicts, [], 'report.md: each finding\'s verdict is reproduced, not reproduced here or not measurable here and why');
like($md, qr/^- reported: .+\n- here: .*\d\.\d\dx \((?:95% interval \d+\.\d\d-\d+\.\d\d over \d+ and \d+ runs: (?:differs|no difference detectable)|too few runs \(\d+ and \d+, 3 a side needed\))\)/m,
	'report.md: what the run measured, a ratio with its interval or why it has none');
like($md, qr/^\*\*Report 2, [^*]+: not measurable here: the completions benchmark did not run recv with SQPOLL at depth 100\*\*$/m,
	'report.md: report 2 (its cell not in the tiny profile) says why it is not measurable')
  or diag($md =~ /^(\*\*Report 2.*)$/m);
like($md, qr/\n## \Q@{[heading('repetitions')]}\E\n\nadaptive repetitions \(rounds\.tsv\)/,
	'report.md: the repetitions last, opening with what the adaptive rounds did');
like($md, qr/^spread of the repetitions \(events-runs\.tsv\): median, min-max, range% \(max - min\) and spread% \(1\.4826 x the median absolute deviation[^)]*\) in percent of the median; \d+ of \d+ cells spread more than 10% \(noisy\)[;:]/m,
	'report.md: the spread of the repetitions, noisy cells counted');
like($md, qr/^backend\s+epoll\s+1\s+self\s+ops_per_sec\s+[234]\s+\d+\s+\d+\s+\d+\s+[\d.]+\s+[\d.]+/m,
	'report.md: events cells with their 2 to 4 repetitions: median, min, max, range, spread')
  or diag($md);
unlike($md, qr/REGRESSION|FAILED/, 'report.md: no failure, no baseline');

# The weather of every run: the CPU stolen and used by other processes
# while it ran (percentages), dirty pages before and after; summed up per
# cell in the report.
for my $f (glob("$dir/*-runs.tsv"), "$dir/rings.tsv")
{
	my ($h, @rows) = read_tsv($f);
	my %c = map { $h->[$_] => $_ } 0 .. $#$h;
	my $name = File::Basename::basename($f);
	is_deeply([ @$h[ $#$h - 6 .. $#$h ] ], [qw(steal_pct foreign_cpu_pct foreign_top dirty_kb_before
		writeback_kb_before dirty_kb_after writeback_kb_after)], "$name: the weather of each run, last");
	my @bad = grep {
		my $r = $_;
		(grep { ($r->[ $c{$_} ] // '') !~ /^\d+(\.\d)?$/ } qw(steal_pct foreign_cpu_pct dirty_kb_after))
		  || $r->[ $c{steal_pct} ] > 100 || $r->[ $c{foreign_cpu_pct} ] > 100
	} @rows;
	is(scalar(@bad), 0, "$name: every run's weather is measured, in percent and kB") or diag(join(' ', @{ $bad[0] }));
}
like($md, qr/cells spread more than 10% \(noisy\); steal% and foreign%: the most of a run's CPU stolen by the hypervisor or used by other processes, disturbed: runs above 5% or 10% \(\d+ cells have some\):$/m,
	'report.md: the weather per cell beside the spread');

# Comparisons with a confidence: the ratio of medians with its 95%
# bootstrap interval over the runs, reproducible, and a verdict.
is_deeply([ ratio_interval([ 10, 11, 12 ], [ 5, 5.5, 6 ]) ], [ '1.67-2.40', 'differs' ],
	'ratio_interval: runs that do not overlap differ');
is((ratio_interval([ 1, 2, 3 ], [ 1.5, 2, 2.5 ]))[1], 'no difference detectable',
	'ratio_interval: overlapping runs: no difference detectable');
is_deeply([ ratio_interval([ 3, 1, 2, 5, 4 ], [ 2, 2.1, 1.9 ]) ], [ ratio_interval([ 3, 1, 2, 5, 4 ], [ 2, 2.1, 1.9 ]) ],
	'ratio_interval: the same runs, the same interval');
like((ratio_interval([ 1, 2 ], [ 1, 2, 3 ]))[1], qr/^too few runs \(2 and 3, 3 a side needed\)$/,
	'ratio_interval: fewer than 3 runs a side give no interval');
for my $f (qw(extend.tsv completions.tsv events.tsv))
{
	my ($h, @rows) = read_tsv("$dir/$f");
	my %c = map { $h->[$_] => $_ } 0 .. $#$h;
	ok(defined $c{ratio_ci95} && defined $c{ratio_verdict}, "$f: the backend / bare process ratio's interval and verdict");
	my @bad = grep {
		my ($ci, $v) = map { $_ // '' } @$_[ $c{ratio_ci95}, $c{ratio_verdict} ];
		!(($ci =~ /^\d+\.\d\d-\d+\.\d\d$/ && $v =~ /^(differs|no difference detectable)$/)
			|| ($ci eq '' && $v =~ /^(too few runs \(\d+ and \d+, 3 a side needed\)|not measured)$/))
	} grep { ($_->[ $c{status} ] // '') eq 'ok' } @rows;
	is(scalar(@bad), 0, "$f: every interval is lo-hi with a verdict, or says why there is none");
}

# Adaptive repetitions: rounds.tsv, a row per cell of every benchmark that
# repeats; a cell took its benchmark's rounds, more while noisy, at most
# URINGPROBE_MAX_ROUNDS (the tiny profile: 3), and says why it stayed noisy.
{
	my ($h, @rows) = read_tsv("$dir/rounds.tsv");
	is_deeply($h, [qw(benchmark cell base_rounds rounds spread_pct disturbed_rounds extra_seconds state)],
		'rounds.tsv: its columns');
	my %benches = map { $_->[0] => 1 } @rows;
	is_deeply([ sort keys %benches ], \@measuring, 'rounds.tsv: the cells of every benchmark that measures');
	# stopped at the most rounds allowed, or earlier when the extra rounds
	# had taken their share of the benchmark's time; a spread printed as
	# 10.0 may be 10.04, above the 10% that makes a cell noisy
	my $why = sub { $_[0] == 3 ? 'the most allowed' : "its benchmark's extra time spent (20% of its first rounds')" };
	my @bad = grep {
		my ($b, $cell, $base, $rounds, $spread, $dist, $secs, $state) = @$_;
		$rounds < $base || $rounds > ($base > 3 ? $base : 3)
		  || !($state eq 'steady' && ($spread eq '' || $spread <= 10)
			|| ($state =~ /^noisy: spread ([\d.]+)% after (\d+) rounds, (.+)$/ && $1 >= 10 && $3 eq $why->($2))
			|| ($state =~ /^disturbed: \d+ of (\d+) rounds, (.+)$/ && $2 eq $why->($1))
			|| ($state =~ /^unsure: range ([\d.]+)% after (\d+) rounds, fewer than 3, (.+)$/ && $1 > 10 && $3 eq $why->($2)))
	} @rows;
	is(scalar(@bad), 0, 'rounds.tsv: every cell within its rounds and the most allowed, steady or why not ('
		  . scalar(@rows) . ' cells)') or diag(join("\n", map { join(' ', @$_) } @bad));
	# the runs of each events cell in its runs file are the rounds it took
	my ($eh, @erows) = read_tsv("$dir/events-runs.tsv");
	my %ec = map { $eh->[$_] => $_ } 0 .. $#$eh;
	my %runs;
	$runs{"$_->[ $ec{variant} ]/$_->[ $ec{pipes} ]/$_->[ $ec{peer} ]"}++
	  for grep { $_->[ $ec{where} ] eq 'backend' } @erows;
	my @mismatch = grep { $_->[0] eq 'events' && $_->[1] ne 'reference' && ($runs{ $_->[1] } // 0) != $_->[3] } @rows;
	is(scalar(@mismatch), 0, 'rounds.tsv: an events cell\'s rounds are its runs') or diag(join("\n", map { "@$_" } @mismatch));
}

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
	local $Uringprobe::Bench::weather = sub { return ('0.0', $busy ? '80.0' : '0.0', $busy ? 'yes 80.0%' : '', 0, 0, 0, 0); };
	my $took = repeat_rounds('unit', [qw(steady noisy stray busy)], 3, sub {
		my ($id, $round, $label) = @_;
		$busy = $id eq 'busy' && $round == 2;
		cell("unit $id, $label");
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
	local $Uringprobe::Bench::clock = sub { return $now; };
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

# COPY's comparisons: every configuration against pg15, each with its
# interval or why it has none (the tiny profile: one round).
{
	my ($h, @rows) = read_tsv("$dir/copy-ratios.tsv");
	is_deeply($h, [qw(fs clients comparison ratio ratio_ci95 ratio_verdict)], 'copy-ratios.tsv: its columns');
	ok((grep { $_->[2] eq 'pg18-combined/sync/posix_fallocate / pg15/sync' } @rows), 'copy-ratios.tsv: pg18 against pg15')
	  if (grep { $_->{name} eq 'pg18-combined' } servers()) && (grep { $_->{name} eq 'pg15' } servers());
	my @bad = grep {
		!(($_->[4] =~ /^\d+\.\d\d-\d+\.\d\d$/ && $_->[5] =~ /^(differs|no difference detectable)$/)
			|| ($_->[4] eq '' && $_->[5] =~ /^(too few runs \(\d+ and \d+, 3 a side needed\)|not measured)$/))
	} @rows;
	is(scalar(@bad), 0, 'copy-ratios.tsv: every interval is lo-hi with a verdict, or says why there is none');
}

# Every file run starts from the same state: synced, writeback back to its
# baseline (or the run says why not), and says so.
for my $f (qw(extend-runs.tsv extend-pgbench-runs.tsv extend-sizing-runs.tsv copy-runs.tsv))
{
	my ($h, @rows) = read_tsv("$dir/$f");
	my %c = map { $h->[$_] => $_ } 0 .. $#$h;
	ok(defined $c{start_state} && defined $c{settle_ms} && defined $c{dirty_kb} && defined $c{writeback_kb},
		"$f: each run's starting state");
	my @bad = grep {
		my $st = $_->[ $c{start_state} ] // '';
		!($st eq 'settled' || $st =~ /^not settled: \d+ kB dirty and under writeback after \d+ s/
			|| $st =~ /^sync (?:-f \S+ )?failed: /) || ($_->[ $c{settle_ms} ] // '') !~ /^\d+$/
	} @rows;
	is(scalar(@bad), 0, "$f: every run settled, or says why not (" . scalar(@rows) . ' runs)')
	  or diag(join("\n", map { join(' ', @$_) } @bad[ 0 .. 2 ]));
}
# Loop devices with direct I/O, or the list of filesystems says why not.
for my $fs (grep { $_->{status} eq 'ok' } scratch_filesystems())
{
	if ($fs->{name} =~ /^(xfs|ext4|btrfs|tiny)$/)
	{
		like($fs->{device}, qr/^loop, (?:direct I\/O|buffered: direct I\/O refused \(.+\))$/,
			"$fs->{name}: its loop device's direct I/O is stated ($fs->{device})");
	}
	else
	{
		is($fs->{device}, '', "$fs->{name}: no loop device");
	}
}

# The kernel's profile of every cell (PERF=1, as make test runs the tiny
# bench when it is root): per benchmark with cells, the top functions of
# each cell, kernel ones among them, the report's evidence per cell as a
# table and a plot, in the benchmark's section of the report.
my $perf = ($ENV{URINGPROBE_BENCH_PERF} // '') eq '1';
my @profiled = qw(rings churn extend copy completions events);
SKIP:
{
	skip "the tiny bench ran without PERF=1: $ENV{URINGPROBE_BENCH_PERF}", 5 + 6 * @profiled unless $perf;
	my ($ph, @prows) = read_tsv("$dir/perf.tsv");
	is_deeply($ph, [qw(benchmark cell threads rank function space samples share_pct threads_samples)],
		'perf.tsv: its columns');
	my %kernel_functions;
	$kernel_functions{ $_->[0] }++ for grep { $_->[5] eq 'k' && $_->[4] =~ /^[a-z_][a-z0-9_.]*$/i } @prows;
	for my $b (@profiled)
	{
		ok($kernel_functions{$b}, "perf.tsv: ${b}'s cells name kernel functions (" . ($kernel_functions{$b} // 0) . ')');
		my ($fh, @frows) = read_tsv("$dir/perf-$b.tsv");
		is($fh->[0], 'cell', "perf-$b.tsv: a row per cell");
		cmp_ok(scalar(@$fh), '>=', 3, "perf-$b.tsv: and a column per family of functions (@$fh[1 .. $#$fh])");
		ok(@frows && !(grep { grep { !/^\d+\.\d$/ } @$_[ 1 .. $#$_ ] } @frows), "perf-$b.tsv: shares in percent");
		ok(-s "$dir/perf-$b.png" && -s "$dir/perf-$b.svg", "perf-$b.png and .svg are drawn");
		like($md, qr/^## \Q@{[benchmark($b)->{title}]}\E(?:(?!^## ).)*^kernel profile \(PERF=1/ms, "report.md: ${b}'s kernel profile in its section");
	}
	# the cells of one benchmark are its own, rounds merged
	my @rings_cells = grep { $_->[0] eq 'rings' } @prows;
	ok(!(grep { $_->[1] =~ /round \d/ } @rings_cells), 'perf.tsv: rounds merged into their cell');
	ok(!(grep { $_->[1] =~ /^\(/ } @prows), 'perf.tsv: cluster set-up and the end are no cell');
	ok((grep { $_->[2] eq 'all' } @prows) && !(grep { $_->[2] !~ /^(all|main|sqpoll|iowq)$/ } @prows),
		'perf.tsv: thread groups all, main, sqpoll, iowq');
	ok(!-e "$dir/perf-rings.data", 'perf.data is not kept unless asked for');
	is_deeply([ glob("$dir/.cells-*") ], [], 'the cell timelines are gone');
}

# report.html: self-contained, plots inline.
my $html = slurp_file("$dir/report.html");
my $plots = 5 + ($perf ? scalar(@profiled) : 0);
is(scalar(() = $html =~ /<svg\b/g), $plots, "report.html: the $plots plots inline as SVG");
is(scalar(() = $html =~ /href="data:image\/png;base64,[A-Za-z0-9+\/=]{1000,}"/g), $plots,
	'report.html: and as embedded PNG');
unlike($html, qr/(?:src|href)="(?!data:|#)/, 'report.html: no external reference');
like($html, qr/<\/body><\/html>\s*$/, 'report.html: complete');

# report.html as a person sees it: opened in headless Chromium, every plot
# displayed, nothing logged; the screenshot kept as report.png.
SKIP:
{
	skip 'no Chromium here (make test installs it as root: apt-get install chromium)', 4
	  unless Uringprobe::Browser::chromium();
	my $page = Uringprobe::Browser::render_page("$dir/report.html", "$dir/report.png");
	is(scalar(@{ $page->{svgs} }), $plots, "in Chromium: the $plots plots");
	is_deeply([ grep { !($_->{visible} && $_->{width} > 300 && $_->{height} > 150) } @{ $page->{svgs} } ], [],
		'in Chromium: every plot displayed at a readable size');
	is_deeply($page->{problems}, [], 'in Chromium: no error, exception or failed load logged');
	my $png = slurp_file("$dir/report.png");
	my ($w, $h) = unpack('NN', substr($png, 16, 8));
	ok(substr($png, 0, 8) eq "\x89PNG\r\n\x1a\n" && $w >= 1280 && $h >= $page->{height} && $h > 2000,
		"report.png: the whole page, ${w}x$h");
}

# results.json
my $json = decode_json(slurp_file("$dir/results.json"));
is($json->{format}, 'uringprobe-results/1', 'results.json: format');
is($json->{config}{URINGPROBE_PROFILE}, 'tiny', 'results.json: the configuration echo');
is($json->{config}{URINGPROBE_EVENTS}, '2000', 'results.json: with the profile\'s variables');
for my $server (@servers)
{
	ok(exists $json->{environment}{"$server->{name}/$_"}, "results.json: the environment report of $server->{name}/$_")
	  for io_methods($server);
	is($json->{environment}{"$server->{name}/sync"}{'pg18.io_uring.layout'},
		$server->{major} < 18 ? 'not applicable' : $server->{name} eq 'pg18-combined' ? 'one region' : 'separate',
		"results.json: environment values of $server->{name}")
	  if $server->{major} < 18 || $server->{name} =~ /^pg18-/;
}
my @cells = @{ $json->{cells} };
cmp_ok(scalar(@cells), '>', 50, scalar(@cells) . ' cells in results.json');
my ($ev) = grep { $_->{benchmark} eq 'events' && $_->{key}{where} eq 'backend' } @cells;
my ($ev_rounds) = map { $_->[3] } grep { $_->[0] eq 'events' && $_->[1] eq "$ev->{key}{variant}/$ev->{key}{pipes}/$ev->{key}{peer}" }
  read_tsv("$dir/rounds.tsv");
is($ev->{runs}, $ev_rounds, "a cell: its repetitions, the rounds it took ($ev_rounds)");
is(scalar(@{ $ev->{values} }), $ev->{runs}, 'a cell: the values of each');
ok($ev->{min} <= $ev->{median} && $ev->{median} <= $ev->{max}, 'a cell: min <= median <= max');
my @hist = @{ $json->{histograms} };
ok((grep { $_->{benchmark} eq 'extend' } @hist), 'results.json: extension latency histograms');
ok((grep { $_->{benchmark} eq 'rings' } @hist), 'results.json: fork latency histograms');
my ($h) = grep { $_->{benchmark} eq 'extend' } @hist;
my $count = 0;
$count += $_->[1] for @{ $h->{buckets_ns} };
cmp_ok($count, '>', 0, "a histogram holds the samples ($count)");

# cells.tsv: what each cell ran.
my $cells_tsv = slurp_file("$dir/cells.tsv");
like($cells_tsv, qr/^extend ext4\/fallocate\/sync\/1, backend, round 1\/1\tpsql -d postgres -c 'SELECT \* FROM uringprobe_extend\(/m,
	'cells.tsv: the SQL a backend cell ran');
like($cells_tsv, qr/^extend ext4\/fallocate\/sync\/1, bare process, round 1\/1\t\S+\/uringprobe-cli extend --dir /m,
	'cells.tsv: the command a bare-process cell ran');

# Baseline comparison (bench/report.pl): against itself, nothing regresses.
my $work = PostgreSQL::Test::Utils::tempdir;
sub copy_run
{
	my ($to) = @_;
	mkdir $to or die "mkdir $to: $!";
	File::Copy::copy($_, $to) or die "copy $_: $!" for grep { -f } glob("$dir/*");
	return $to;
}
my $current = copy_run("$work/current");
my ($rc, $out, $err) = report($current, '--baseline', $dir);
is($rc, 0, 'compared with itself: exit 0');
like($out, qr/, \d+ compared with \Q$dir\E, 0 regressions/, 'compared with itself: no regression');
my $cmp = decode_json(slurp_file("$current/results.json"));
is($cmp->{baseline}{compared}, scalar(@cells), 'every cell compared');
is_deeply([ grep { defined $_->{ratio} && $_->{ratio} != 1 } @{ $cmp->{cells} } ], [], 'every ratio is 1');

sub report
{
	my ($stdout, $stderr);
	my $ok = IPC::Run::run([ 'perl', 'bench/report.pl', @_ ], '>', \$stdout, '2>', \$stderr);
	return ($? >> 8, $stdout, $stderr);
}

# A baseline twice as fast in events per second and twice as fast in time:
# every cell is a regression beyond a 10% threshold.
my $faster = copy_run("$work/faster");
my $bj = decode_json(slurp_file("$faster/results.json"));
for my $c (@{ $bj->{cells} })
{
	$c->{median} = $c->{better} eq 'lower' ? $c->{median} / 2 : $c->{median} * 2;
}
write_json("$faster/results.json", $bj);
sub write_json
{
	my ($file, $data) = @_;
	open my $fh, '>', $file or die "$file: $!";
	print $fh encode_json($data);
	close $fh;
}
my $md_before = slurp_file("$current/report.md");
($rc, $out, $err) = report($current, '--baseline', $faster, '--threshold', 10);
is($rc, 3, 'a slower run than the baseline exits 3');
my $regressed = grep { $_->{median} != 0 } @cells;
like($out, qr/, $regressed regressions$/m, "every cell with a non-zero median regressed ($regressed)");
my $md2 = slurp_file("$current/report.md");
like($md2, qr/^\d+ cells compared, 0 not in the baseline; $regressed worse by more than 10%:$/m,
	'report.md: the regressions counted');
like($md2, qr/^  - REGRESSION events \S.* ops_per_sec: \S+ -> \S+ \(100(\.0)?% worse\)$/m,
	'report.md: each regression listed with its medians');
like($md2, qr/\sbaseline\s+ratio\s+worse%\s+verdict/, 'report.md: the baseline columns');
like(slurp_file("$current/report.html"), qr/<tr class="regression">/, 'report.html: regressions marked');
# and a threshold above the change: none
($rc, $out) = report($current, '--baseline', $faster, '--threshold', 150);
is($rc, 0, 'a change within the threshold is no regression');

# Baselines that cannot be compared: refused, the report left as it was.
$md_before = slurp_file("$current/report.md");
my $other = copy_run("$work/other-matrix");
my $oj = decode_json(slurp_file("$other/results.json"));
$_->{key}{round} = 1 for grep { $_->{benchmark} eq 'churn' } @{ $oj->{cells} };
write_json("$other/results.json", $oj);
($rc, $out, $err) = report($current, '--baseline', $other);
isnt($rc, 0, 'a baseline measuring a benchmark over other parameters is refused');
like($err, qr/measured churn over \(io_method max_connections round server\), this run over \(io_method max_connections server\): incompatible/,
	'and says how they differ');
my $disjoint = copy_run("$work/disjoint");
my $dj = decode_json(slurp_file("$disjoint/results.json"));
$_->{id} .= "\tother" for @{ $dj->{cells} };
write_json("$disjoint/results.json", $dj);
($rc, $out, $err) = report($current, '--baseline', $disjoint);
isnt($rc, 0, 'a baseline sharing no cell is refused');
like($err, qr/shares no cell with this run .*incompatible matrix/, 'and says so');
($rc, $out, $err) = report($current, '--baseline', $work);
like($err, qr/is not the results directory of a make bench run \(no results\.json\)/,
	'a directory that is not a results directory is refused');
write_json("$work/bad.json", {});
mkdir "$work/not-ours";
write_json("$work/not-ours/results.json", { format => 'something else' });
($rc, $out, $err) = report($current, '--baseline', "$work/not-ours");
like($err, qr/is not a make bench result \(format 'something else'/, 'a foreign results.json is refused');
is(slurp_file("$current/report.md"), $md_before, 'a refused baseline leaves the report as it was');
ok(!glob("$current/.*.tmp"), 'and no temporary file');
($rc, $out, $err) = report($work);
like($err, qr/is not the results directory of a make bench run \(no run\.tsv and report\.list\)/,
	'report.pl refuses a directory that is not a results directory');

# make bench's refusals, before anything is set up or written.
my $results = "$work/results";
mkdir $results;
sub bench
{
	my %env = @_;
	my ($stdout, $stderr);
	local %ENV = (%ENV, URINGPROBE_RESULTS => $results, %env);
	IPC::Run::run([ 'bash', 'tools/run-bench' ], '<', \undef, '>', \$stdout, '2>', \$stderr);
	return ($? >> 8, $stderr);
}
# a results directory nobody may write, and a baseline from elsewhere
my $read_only = "$work/read-only";
mkdir $read_only;
chmod 0555, $read_only;
my $elsewhere = copy_run("$work/elsewhere");
my $xj = decode_json(slurp_file("$elsewhere/results.json"));
$xj->{run}{machine} = '64 CPUs, 512 GiB RAM, kernel 6.1.0';
write_json("$elsewhere/results.json", $xj);
my @refusals = (
	[ { URINGPROBE_BENCHES => 'churn nosuch' }, qr/unknown benchmark 'nosuch'/ ],
	[ { URINGPROBE_PROFILE => 'huge' }, qr/unknown profile 'huge'/ ],
	[ { URINGPROBE_BENCH_IO_METHODS => 'io_uring aio' }, qr/unknown io_method 'aio'/ ],
	[ { URINGPROBE_BENCH_FS => 'zfs' }, qr/unknown filesystem 'zfs'/ ],
	[ { URINGPROBE_BENCH_CLIENTS => '2 x' }, qr/client counts must be positive integers, got 'x'/ ],
	[ { URINGPROBE_RESULTS => "$dir/report.md" }, qr/RESULTS=\S+ is not a directory/ ],
	[ { URINGPROBE_RESULTS => $read_only }, qr/RESULTS=\S+ is not writable by / ],
	[ { URINGPROBE_BASELINE => $elsewhere }, qr/was measured on another machine \(64 CPUs, 512 GiB RAM[^;]*; this one: \d+ CPUs/ ],
	[ { URINGPROBE_THRESHOLD => '-5' }, qr/THRESHOLD must be a positive percentage/ ],
	[ { URINGPROBE_BASELINE => "$work/nosuch" }, qr/BASELINE \S+ does not exist/ ],
	[ { URINGPROBE_BASELINE => $work }, qr/is not the results directory of a make bench run/ ],
	[ { URINGPROBE_BASELINE => "$work/not-ours" }, qr/is not a make bench result/ ],
	[ { URINGPROBE_GNUPLOT => "$work/no-gnuplot" }, qr/gnuplot \(\S+\) is missing: the report's plots need it/ ],
	[ { URINGPROBE_PERF => '2' }, qr/PERF must be 1, got '2'/ ],
	# this test runs as the cluster user
	[ { URINGPROBE_PERF => '1' }, qr/PERF=1 needs root: a system-wide perf record with kernel symbols is refused/ ]);
for my $r (@refusals)
{
	my ($env, $re) = @$r;
	my ($code, $stderr) = bench(%$env);
	my $what = join(' ', map { "$_=$env->{$_}" } sort keys %$env);
	isnt($code, 0, "make bench refuses $what");
	like($stderr, $re, "$what: the message says why") or diag($stderr);
}
# results on a filesystem too small to hold them (the 8 MiB scratch one)
my ($small) = grep { $_->{name} eq 'tiny' && $_->{status} eq 'ok' } scratch_filesystems();
SKIP:
{
	skip 'no small scratch filesystem (tools/scratch-fs mounts it as root)', 2 unless $small;
	my ($code, $stderr) = bench(URINGPROBE_RESULTS => "$small->{dir}/results");
	isnt($code, 0, 'make bench refuses RESULTS on a filesystem without room');
	like($stderr, qr/RESULTS=\S+ has \d+ kB free; a run's results need up to \d+ MB/, 'and says how much is free');
	rmdir "$small->{dir}/results";
}
# a baseline without the benchmarks asked for
my $events_only = copy_run("$work/events-only");
my $ej = decode_json(slurp_file("$events_only/results.json"));
$ej->{run}{benchmarks} = 'events';
write_json("$events_only/results.json", $ej);
my ($code, $stderr) = bench(URINGPROBE_BENCHES => 'churn', URINGPROBE_BASELINE => $events_only);
isnt($code, 0, 'make bench refuses a baseline without the benchmarks asked for');
like($stderr, qr/ran none of the benchmarks ' churn ' \(it ran: events\): incompatible matrix/, 'and says so');
is_deeply([ glob("$results/*"), glob("$results/.*[!.]") ], [], 'the refusals wrote no results');

# --list shows the matrix and runs nothing.
{
	local %ENV = (%ENV, URINGPROBE_PROFILE => 'tiny', URINGPROBE_RESULTS => $results);
	my ($stdout, $stderr);
	IPC::Run::run([ 'bash', 'tools/run-bench', '--list' ], '>', \$stdout, '2>', \$stderr);
	is($? >> 8, 0, '--list succeeds');
	like($stdout, qr/^events\s+EVENTS=2000 EVENTS_PEERS=self process EVENTS_PIPES=1 EVENTS_PROCESS=200 EVENTS_ROUNDS=2$/m,
		'--list: every variable of each benchmark, as the profile sets it or by default');
	is_deeply([ glob("$results/*") ], [], '--list wrote nothing');
}

# Measurements are never lost. A copy of the driver runs for real, as make
# bench does (the servers make test installed), and ends early after its
# first cells: once because a part of it breaks (the table printer is
# replaced by one that fails, as a bug in the driver would), once by a
# TERM to the whole process group (Ctrl-C). Each time what was measured is
# kept in results/<time>-failed/ with error.txt and a report that says the
# run ended early, the last line says where, and the stage is gone.
my $driver = Cwd::abs_path($work) . '/driver';
mkdir $driver or die "mkdir $driver: $!";
system('cp', '-a', qw(t sql expected bench tools patches docs README.md Makefile), $driver) == 0 or die "cannot copy the driver\n";
my %small_run = (
	URINGPROBE_PROFILE => 'tiny',
	URINGPROBE_SERVERS_INSTALLED => $ENV{URINGPROBE_SERVERS},
	URINGPROBE_BENCH_SERVERS => $servers[0]{name},
	URINGPROBE_BENCH_IO_METHODS => 'sync');

# bench_until(RESULTS, PATTERN, %env): make bench from the driver's copy in
# its own process group; once its output matches PATTERN (if given), TERM
# the group. Returns its exit status and output.
sub bench_until
{
	my ($results_dir, $pattern, %env) = @_;
	mkdir $results_dir;
	$results_dir = Cwd::abs_path($results_dir);
	my $errfile = "$results_dir.log";
	my $pid = fork // die "fork: $!";
	if (!$pid)
	{
		POSIX::setpgid(0, 0);
		%ENV = (%ENV, %small_run, URINGPROBE_RESULTS => $results_dir, %env);
		chdir $driver or POSIX::_exit(126);
		open STDIN, '<', '/dev/null';
		open STDOUT, '>', '/dev/null';
		open STDERR, '>', $errfile;
		{ exec 'bash', 'tools/run-bench'; }
		POSIX::_exit(127);
	}
	if ($pattern)
	{
		my $until = time + 300;
		Time::HiRes::sleep(0.2) while time < $until && (eval { slurp_file($errfile) } // '') !~ $pattern;
		kill 'TERM', -$pid;
	}
	waitpid $pid, 0;
	return ($? >> 8, slurp_file($errfile));
}

# the failed run's directory, checked; returns it
sub kept_run
{
	my ($what, $results_dir, $log, $error_re) = @_;
	my @dirs = glob("$results_dir/*");
	is(scalar(@dirs), 1, "$what: one results directory") or diag($log);
	my $kept = $dirs[0] // '';
	like($kept, qr{/\d{8}-\d{6}-failed$}, "$what: named failed");
	ok(-s "$kept/environment.tsv" && (() = slurp_file("$kept/environment.tsv") =~ /\n/g) >= 2,
		"$what: the environment report measured before is kept");
	like(eval { slurp_file("$kept/error.txt") } // '', $error_re, "$what: error.txt says what ended it");
	like(eval { slurp_file("$kept/report.md") } // '', qr/^FAILED: the run ended early: /m,
		"$what: the report says the run ended early");
	ok(-f "$kept/run.tsv" && -f "$kept/results.json", "$what: run.tsv and results.json written");
	my @lines = grep { length } split /\n/, $log;
	my $name = File::Basename::basename($kept);
	like($lines[-1] // '', qr{measured results kept in /\S*/\Q$name\E }, "$what: the last line says where");
	my ($stage) = $log =~ /staging in (\S+)/;
	ok($stage && !-e $stage, "$what: the stage is removed");
	my @left = grep { (eval { slurp_file("$_/cmdline") } // '') =~ /\Q$stage\E/ } glob('/proc/[0-9]*');
	is(scalar(@left), 0, "$what: no process of the run is left (servers stopped)");
	return $kept;
}

# a part of the driver broken
my $printer = "$driver/bench/print-table.pl";
File::Copy::copy($printer, "$printer.orig") or die "copy: $!";
open my $broken, '>', $printer or die "$printer: $!";
print $broken "exit 1;\n";
close $broken;
($code, $stderr) = bench_until("$work/results-broken", undef, URINGPROBE_BENCHES => 'environment');
isnt($code, 0, 'a driver that breaks after the first cells fails');
kept_run('broken driver', "$work/results-broken", $stderr, qr/exit status 1\) at line \d+: perl \S*print-table\.pl/);
File::Copy::move("$printer.orig", $printer) or die "move: $!";

# A filesystem that cannot be mounted (not root here) keeps its row in the
# extension tables, empty, with the reason; the others are measured.
($code, $stderr) = bench_until("$work/results-unmounted", undef,
	URINGPROBE_BENCHES => 'extend', URINGPROBE_BENCH_FS => 'default xfs');
is($code, 0, 'extend with a filesystem that cannot be mounted: the run completes');
my ($unmounted) = glob("$work/results-unmounted/2*");
for my $table (qw(extend.tsv extend-pgbench.tsv))
{
	my @rows = map { [ split /\t/, $_, -1 ] } split /\n/, eval { slurp_file("$unmounted/$table") } // '';
	my %col;
	@col{ @{ shift(@rows) // [] } } = 0 .. 99;
	my @xfs = grep { $_->[0] eq 'xfs' } @rows;
	is(scalar(@xfs), 1, "$table: one row for the unmounted xfs");
	like($xfs[0][ $col{status} // 0 ] // '', qr/^not measured: unavailable: mounting needs root$/, "$table: its status says why");
	is_deeply([ grep { length } @{ $xfs[0] }[ $col{rounds} .. $#{ $xfs[0] } ] ], [], "$table: and no number");
	ok((grep { $_->[0] eq 'default' && $_->[ $col{status} ] eq 'ok' } @rows), "$table: the plain directory measured");
}
like(eval { slurp_file("$unmounted/report.md") } // '', qr/^xfs .*not measured: unavailable: mounting needs root/m,
	'report.md shows the unmounted filesystem with its reason');

# interrupted during the second benchmark
($code, $stderr) = bench_until("$work/results-interrupted", qr/\] events /, URINGPROBE_BENCHES => 'environment events');
is($code, 130, 'an interrupted run exits 130');
my $kept = kept_run('interrupted', "$work/results-interrupted", $stderr, qr/^interrupted$/);
ok(-f "$kept/events-runs.tsv", 'interrupted: the benchmark under way kept what it had');

done_testing();
