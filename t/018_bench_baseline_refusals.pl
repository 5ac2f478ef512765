# make bench against a baseline (bench/report.pl --baseline, on copies of
# the tiny bench's results that tools/run-tests made: URINGPROBE_BENCH_RESULTS),
# its refusals of bad input, which all happen before anything is set up, so
# they run here as the cluster user, and what it keeps of a run that ends
# early.
use strict;
use warnings;
use Cwd ();
use File::Basename ();
use File::Copy ();
use JSON::PP;
use POSIX ();
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run ();
use Time::HiRes ();
use Uringprobe::BenchScript;
use Uringprobe::Cluster;

my ($dir, $log, $root) = tiny_bench_run();
my $json = decode_json(slurp_file("$dir/results.json"));
my @servers = servers();
my @cells = @{ $json->{cells} };

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
# the whole staged suite but what the runs write, so the copy holds
# whatever make bench reads (tools/lib.sh stage_suite)
my @suite = grep { !/^(?:results|log|tmp_check|tmp|servers\.list)$/ } do {
	opendir my $dh, '.' or die "opendir .: $!";
	grep { !/^\.\.?$/ } readdir $dh;
};
system('cp', '-a', @suite, $driver) == 0 or die "cannot copy the driver\n";
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

# The run's stage removed and none of its processes left.
sub nothing_left
{
	my ($what, $log) = @_;
	my ($stage) = $log =~ /staging in (\S+)/;
	ok($stage && !-e $stage, "$what: the stage is removed");
	my @left = grep { (eval { slurp_file("$_/cmdline") } // '') =~ /\Q$stage\E/ } glob('/proc/[0-9]*');
	is(scalar(@left), 0, "$what: no process of the run is left (servers stopped)");
	return;
}

# the failed run's directory, checked; returns it. $measured: a table
# measured before the end, kept (environment.tsv unless given).
sub kept_run
{
	my ($what, $results_dir, $log, $error_re, $measured) = @_;
	$measured //= 'environment.tsv';
	my @dirs = glob("$results_dir/*");
	is(scalar(@dirs), 1, "$what: one results directory") or diag($log);
	my $kept = $dirs[0] // '';
	like($kept, qr{/\d{8}-\d{6}-failed$}, "$what: named failed");
	ok(-s "$kept/$measured" && (() = slurp_file("$kept/$measured") =~ /\n/g) >= 2,
		"$what: $measured, measured before, is kept");
	like(eval { slurp_file("$kept/error.txt") } // '', $error_re, "$what: error.txt says what ended it");
	like(eval { slurp_file("$kept/report.md") } // '', qr/^FAILED: the run ended early: /m,
		"$what: the report says the run ended early");
	ok(-f "$kept/run.tsv" && -f "$kept/results.json", "$what: run.tsv and results.json written");
	my @lines = grep { length } split /\n/, $log;
	my $name = File::Basename::basename($kept);
	like($lines[-1] // '', qr{measured results kept in /\S*/\Q$name\E }, "$what: the last line says where");
	nothing_left($what, $log);
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

# Interrupted at every other phase. Before anything is measured (setting
# the stage up, planning): nothing to keep, no results directory, not even
# the name it had reserved.
# (held there by a stage hook, as the cluster user, that waits)
($code, $stderr) = bench_until("$work/results-setup", qr/^setting up$/m, URINGPROBE_BENCHES => 'environment',
	URINGPROBE_STAGE_HOOK => 'echo setting up >&2; sleep 30');
is($code, 130, 'interrupted while setting up: exits 130');
is(join(' ', map { File::Basename::basename($_) } glob("$work/results-setup/{*,.[!.]*}")), '',
	'interrupted while setting up: no results directory, no reserved name left');
nothing_left('interrupted while setting up', $stderr);

# In the first benchmark, its first cells under way; every name of the
# coming two minutes reserved by another run (started in the same second):
# the run takes the next free one, <time>-2.
mkdir "$work/results-first" or die "mkdir: $!";
my @reserved = map { POSIX::strftime('.%Y%m%d-%H%M%S.incomplete', localtime(time + $_)) } 0 .. 120;
mkdir "$work/results-first/$_" or die "mkdir $_: $!" for @reserved;
($code, $stderr) = bench_until("$work/results-first", qr/\] environment /, URINGPROBE_BENCHES => 'environment events');
is($code, 130, 'interrupted in the first benchmark: exits 130');
my @first = glob("$work/results-first/*");
is(scalar(@first), 1, 'interrupted in the first benchmark: one results directory');
like($first[0] // '', qr{/\d{8}-\d{6}-2-failed$}, 'its own second reserved by another run: named <time>-2, failed');
is(scalar(grep { -d "$work/results-first/$_" } @reserved), scalar(@reserved), 'the names other runs reserved are left to them');
like(eval { slurp_file("$first[0]/error.txt") } // '', qr/^interrupted$/, 'interrupted in the first benchmark: error.txt says so');
nothing_left('interrupted in the first benchmark', $stderr);

# While the report is written, everything measured: the report is written
# again, saying the run ended early, and every table kept.
File::Copy::move("$driver/bench/report.pl", "$driver/bench/report-real.pl") or die "move: $!";
open my $slow, '>', "$driver/bench/report.pl" or die "report.pl: $!";
print $slow <<'PERL';
# the report, begun slowly the first time, so that it is interrupted
use FindBin;
my $marker = "$ARGV[0].slow";
if (!-e $marker) { open my $m, '>', $marker; close $m; print STDERR "writing the report\n"; sleep 30; }
unlink $marker;
exec 'perl', "$FindBin::Bin/report-real.pl", @ARGV;
PERL
close $slow;
($code, $stderr) = bench_until("$work/results-report", qr/^writing the report$/m, URINGPROBE_BENCHES => 'environment');
is($code, 130, 'interrupted while writing the report: exits 130');
kept_run('interrupted while writing the report', "$work/results-report", $stderr, qr/^interrupted$/);
File::Copy::move("$driver/bench/report-real.pl", "$driver/bench/report.pl") or die "move: $!";

done_testing();
