# make bench, the driver itself: tools/run-tests runs the tiny profile end to
# end before the TAP tests (URINGPROBE_BENCH_RESULTS: its results root,
# URINGPROBE_BENCH_LOG: its output) and this checks what it left: every file,
# the columns, that the plots are real non-empty images titled with the
# machine, the report and results.json. The baseline comparison, make
# bench's refusals and what it keeps of a run that ends early are
# t/018_bench_baseline_refusals.pl; repeat_rounds on made-up measurements
# t/017_bench_rounds.pl.
use strict;
use warnings;
use JSON::PP;
use POSIX ();
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::BenchScript;
use Uringprobe::Manifest qw(names benchmark runs_specs heading);
use Uringprobe::Browser;
use Uringprobe::PerfFamilies qw(profiled_benchmarks);
use Uringprobe::Cluster;
use Uringprobe::TextTable;

my ($dir, $log, $root) = tiny_bench_run();
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
# (those whose file has runs: a sparse one may have none, e.g. the advice
# checks where no server has a setting to check, PostgreSQL 15 alone)
my @measuring = sort map { $_->{name} // $_->{bench} } grep { (() = slurp_file("$dir/$_->{file}") =~ /\n/g) > 1 } @runs_specs;
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
is_deeply([ map { "$_->[ $ac{server} ] $_->[ $ac{setting} ]" } grep { $_->[ $ac{action} ] !~ /^(?:set|keep|raise|lower|none)$/ } @adv ],
	[], 'advise.tsv: every row\'s decision as data, an action of the five');
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
is_deeply([ map { $verdicts[ 2 * $_ ] } 0 .. $#verdicts / 2 ], [ 1 .. 5 ], 'report.md: a finding per report');
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
my @profiled = profiled_benchmarks([ names() ]);
SKIP:
{
	skip "the tiny bench ran without PERF=1: $ENV{URINGPROBE_BENCH_PERF}", 8 + 6 * @profiled unless $perf;
	my ($ph, @prows) = read_tsv("$dir/perf.tsv");
	is_deeply($ph, [qw(benchmark cell threads rank function space samples share_pct threads_samples cell_key)],
		'perf.tsv: its columns');
	ok(!(grep { $_->[9] !~ /^\S+=\S+(?: \S+=\S+)*$/ } @prows), 'perf.tsv: every cell by its key (its parameters)');
	my %labels;
	$labels{"$_->[0] $_->[9]"}{ $_->[1] }++ for @prows;
	ok(!(grep { keys %{ $labels{$_} } != 1 } keys %labels), 'perf.tsv: one label a key in a benchmark')
	  or diag(join("\n", map { "$_: " . join(' | ', keys %{ $labels{$_} }) } grep { keys %{ $labels{$_} } != 1 } keys %labels));
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
my $plots = scalar(map { @{ benchmark($_)->{plots} // [] } } @benches) + ($perf ? scalar(@profiled) : 0);
is(scalar(() = $html =~ /<svg\b/g), $plots, "report.html: the $plots plots inline as SVG");
is(scalar(() = $html =~ /href="data:image\/png;base64,[A-Za-z0-9+\/=]{1000,}"/g), $plots,
	'report.html: and as embedded PNG');
unlike($html, qr/(?:src|href)="(?!data:|#)/, 'report.html: no external reference');
like($html, qr/<\/body><\/html>\s*$/, 'report.html: complete');

# report.html as a person sees it: opened in headless Chromium, every plot
# displayed, nothing logged; the screenshot kept as report.png in the
# test's log directory (the results are root's, read-only here).
SKIP:
{
	skip 'no Chromium here (make test installs it as root: apt-get install chromium)', 4
	  unless Uringprobe::Browser::chromium();
	my $shot = "$PostgreSQL::Test::Utils::log_path/report.png";
	my $page = Uringprobe::Browser::render_page("$dir/report.html", $shot);
	is(scalar(@{ $page->{svgs} }), $plots, "in Chromium: the $plots plots");
	is_deeply([ grep { !($_->{visible} && $_->{width} > 300 && $_->{height} > 150) } @{ $page->{svgs} } ], [],
		'in Chromium: every plot displayed at a readable size');
	is_deeply($page->{problems}, [], 'in Chromium: no error, exception or failed load logged');
	my $png = slurp_file($shot);
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

done_testing();
