# make bench, the driver itself: tools/run-tests runs the tiny profile end to
# end before the TAP tests (URINGPROBE_BENCH_RESULTS: its results root,
# URINGPROBE_BENCH_LOG: its output) and this checks what it left: every file,
# the columns, that the plots are real non-empty images titled with the
# machine, the report and results.json; then the baseline comparison
# (bench/report.pl) and make bench's refusals of bad input, which all happen
# before anything is set up, so they run here as the cluster user.
use strict;
use warnings;
use File::Copy ();
use File::Path ();
use JSON::PP;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Bench;

my $root = $ENV{URINGPROBE_BENCH_RESULTS}
  or BAIL_OUT('URINGPROBE_BENCH_RESULTS is not set: run through make test, which runs the tiny bench first');
my $log = slurp_file($ENV{URINGPROBE_BENCH_LOG});
my @runs = grep { -d } glob("$root/*");
is(scalar(@runs), 1, 'the tiny bench left one results directory') or BAIL_OUT("in $root: @runs");
my $dir = $runs[0];
like($dir, qr{/\d{8}-\d{6}$}, 'named by its time, not marked failed');

my @benches = qw(preflight rings churn extend copy completions events);
my %tsv = (
	preflight => ['preflight.tsv'],
	rings => [qw(rings.tsv rings-compare.tsv)],
	churn => [qw(churn-runs.tsv churn.tsv)],
	extend => [qw(extend-runs.tsv extend.tsv extend-pgbench.tsv extend-pgbench-runs.tsv)],
	copy => [qw(copy-runs.tsv copy.tsv copy-extends.tsv)],
	completions => [qw(completions-runs.tsv completions.tsv)],
	events => [qw(events-runs.tsv events.tsv)]);
for my $f (map { @$_ } values %tsv)
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
my @progress = $log =~ /^\[uringprobe [\d:]+\] \[(\d+)\/\Q$total\E, \d+s, ETA [^\]]+\] \S/mg;
is(scalar(@progress), $total, 'a progress line for every planned cell');
is_deeply(\@progress, [ 1 .. $total ], 'numbered in order through the whole run');

# results.csv: a row per cell and repetition of every benchmark, with a
# benchmark column and every parameter as a column.
my @csv = split /\n/, slurp_file("$dir/results.csv");
my @head = split /,/, shift @csv;
is($head[0], 'benchmark', 'results.csv: benchmark first');
for my $col (qw(server io_method max_connections fs where round strategy interface sessions clients
	op depth reaping variant pipes seconds conn_ms ns_per_completion ops_per_sec))
{
	ok((grep { $_ eq $col } @head), "results.csv has column $col");
}
my $expected_rows = 0;
for my $f (glob("$dir/*-runs.tsv"), "$dir/rings.tsv")
{
	$expected_rows += () = slurp_file($f) =~ /\n/g;
	$expected_rows--;    # header
}
is(scalar(@csv), $expected_rows, "results.csv: every run ($expected_rows)");
my %csv_benches = map { (split /,/)[0] => 1 } @csv;
is_deeply([ sort keys %csv_benches ],
	[ sort qw(rings churn extend extend-pgbench copy completions events) ],
	'results.csv: rows of every benchmark that has runs');

# The plots: PNG and SVG of each, real images, titled with the machine.
chomp(my $kernel = `uname -r`);
for my $plot (qw(churn extend copy completions events))
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
like($md, qr/^- pg18-separate: PostgreSQL 18\./m, 'report.md: the server versions');
my %section = (
	preflight => 'preflight of every server',
	rings => 'ring-per-backend fork cost',
	churn => 'connection churn: pgbench -C',
	extend => 'relation-style file extension',
	copy => 'concurrent COPY into one table',
	completions => 'reaping completions each or in batches',
	events => 'event loop ping-pong');
for my $b (@benches)
{
	like($md, qr/^## \Q$section{$b}\E/m, "report.md: a section for $b");
}
is(scalar(() = $md =~ /^## /mg), scalar(@benches), 'report.md: a section per benchmark');
like($md, qr/^spread of the repetitions \(events-runs\.tsv\): median, min-max; \d+ of \d+ cells spread more than 10% \(noisy\):$/m,
	'report.md: the spread of the repetitions, noisy cells counted');
like($md, qr/^backend\s+epoll\s+1\s+ops_per_sec\s+2\s+\d+\s+\d+\s+\d+\s+[\d.]+/m,
	'report.md: events cells with their 2 repetitions: median, min, max, spread')
  or diag($md);
unlike($md, qr/REGRESSION|FAILED/, 'report.md: no failure, no baseline');

# report.html: self-contained, plots inline.
my $html = slurp_file("$dir/report.html");
is(scalar(() = $html =~ /<svg\b/g), 5, 'report.html: the five plots inline as SVG');
is(scalar(() = $html =~ /href="data:image\/png;base64,[A-Za-z0-9+\/=]{1000,}"/g), 5,
	'report.html: and as embedded PNG');
unlike($html, qr/(?:src|href)="(?!data:)/, 'report.html: no external reference');
like($html, qr/<\/body><\/html>\s*$/, 'report.html: complete');

# results.json
my $json = decode_json(slurp_file("$dir/results.json"));
is($json->{format}, 'uringprobe-results/1', 'results.json: format');
is($json->{config}{URINGPROBE_PROFILE}, 'tiny', 'results.json: the configuration echo');
is($json->{config}{URINGPROBE_EVENTS}, '2000', 'results.json: with the profile\'s variables');
ok(exists $json->{preflight}{'pg18-separate/io_uring'}, 'results.json: the preflight of every server');
is($json->{preflight}{'pg18-combined/io_uring'}{'pg18.io_uring.layout'}, 'one region',
	'results.json: preflight values');
my @cells = @{ $json->{cells} };
cmp_ok(scalar(@cells), '>', 50, scalar(@cells) . ' cells in results.json');
my ($ev) = grep { $_->{benchmark} eq 'events' && $_->{key}{where} eq 'backend' } @cells;
is($ev->{runs}, 2, 'a cell: its repetitions');
is(scalar(@{ $ev->{values} }), 2, 'a cell: the values of each');
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
my @refusals = (
	[ { URINGPROBE_BENCHES => 'churn nosuch' }, qr/unknown benchmark 'nosuch'/ ],
	[ { URINGPROBE_PROFILE => 'huge' }, qr/unknown profile 'huge'/ ],
	[ { URINGPROBE_BENCH_IO_METHODS => 'io_uring aio' }, qr/unknown io_method 'aio'/ ],
	[ { URINGPROBE_BENCH_FS => 'zfs' }, qr/unknown filesystem 'zfs'/ ],
	[ { URINGPROBE_BENCH_CLIENTS => '2 x' }, qr/client counts must be positive integers, got 'x'/ ],
	[ { URINGPROBE_RESULTS => "$dir/report.md" }, qr/RESULTS=\S+ is not a directory/ ],
	[ { URINGPROBE_THRESHOLD => '-5' }, qr/THRESHOLD must be a positive percentage/ ],
	[ { URINGPROBE_BASELINE => "$work/nosuch" }, qr/BASELINE \S+ does not exist/ ],
	[ { URINGPROBE_BASELINE => $work }, qr/is not the results directory of a make bench run/ ],
	[ { URINGPROBE_BASELINE => "$work/not-ours" }, qr/is not a make bench result/ ],
	[ { URINGPROBE_GNUPLOT => "$work/no-gnuplot" }, qr/gnuplot \(\S+\) is missing: the report's plots need it/ ]);
for my $r (@refusals)
{
	my ($env, $re) = @$r;
	my ($code, $stderr) = bench(%$env);
	my $what = join(' ', map { "$_=$env->{$_}" } sort keys %$env);
	isnt($code, 0, "make bench refuses $what");
	like($stderr, $re, "$what: the message says why") or diag($stderr);
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
	like($stdout, qr/^events\s+EVENTS=2000 EVENTS_ROUNDS=2/m, '--list: the profile\'s variables per benchmark');
	is_deeply([ glob("$results/*") ], [], '--list wrote nothing');
}

done_testing();
