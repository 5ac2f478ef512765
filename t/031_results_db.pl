# bench/results-db: results directories kept in PostgreSQL. The tiny
# bench's run (make test runs it first) and a second host's copy of it
# load into the local results database (a cluster it makes and starts in
# results/db, stopped after each command); loading them again changes
# nothing, a second run started in the same minute is a run of its own; a
# directory of format 1 is refused until given a host, one of a
# newer format refused by name; the runs, the history of each report's
# figures, the two hosts side by side (a host not loaded refused by name)
# and the advice answer; report.pl takes its baseline from the database.
use strict;
use warnings;
use IPC::Run ();
use FindBin;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

my ($dir) = tiny_bench_run();
my $root = "$FindBin::RealBin/..";
my $tool = "$root/bench/results-db";
my $tmp = PostgreSQL::Test::Utils::tempdir();

# results-db ARGS: (exit status, stdout and stderr)
sub results_db
{
	my @cmd = ($tool, @_);
	my ($out, $err) = ('', '');
	IPC::Run::run(\@cmd, '>', \$out, '2>', \$err);
	return ($? >> 8, $out, $err);
}
# run.tsv of directory $d with its lines changed by $edit (a sub on the text)
sub edit_run_tsv
{
	my ($d, $edit) = @_;
	my $text = $edit->(slurp_file("$d/run.tsv"));
	open my $fh, '>', "$d/run.tsv" or die "cannot write $d/run.tsv: $!";
	print $fh $text;
	close $fh;
}
sub run_tsv_says { my ($d, $k) = @_; my ($v) = slurp_file("$d/run.tsv") =~ /^\Q$k\E\t(.*)$/m; return $v; }

my $host = run_tsv_says($dir, 'host');
ok(defined $host && $host ne '', "the run names its host ($host)");
is(run_tsv_says($dir, 'format'), '2', '... in run.tsv of format 2');

# a second host: the same run, as another machine's
my $second = "$tmp/second";
system('cp', '-a', $dir, $second) == 0 or die "cannot copy $dir";
edit_run_tsv($second, sub { $_[0] =~ s/^host\t.*$/host\tsecond-host/mr });

my ($rc, $out, $err) = results_db('load', $dir, $second);
is($rc, 0, 'load: both directories') or diag($err);
like($err, qr/\Q$dir\E: loaded \(host \Q$host\E, tiny, \d+ cell runs, \d+ figures\)/, '... the first loaded, counted');
like($err, qr/second: loaded \(host second-host/, '... the second as its host');
my ($rc_runs, $runs) = results_db('runs');
is($rc_runs, 0, 'runs');
is(scalar(() = $runs =~ /^ \S+\s+\| \d{4}-\d\d-\d\d \d\d:\d\d \| tiny/mg), 2, '... two runs loaded') or diag($runs);

($rc, $out, $err) = results_db('load', $dir, $second);
is($rc, 0, 'load again');
is(scalar(() = $err =~ /already loaded, unchanged/g), 2, '... each already loaded, unchanged') or diag($err);
is((results_db('runs'))[1], $runs, '... the runs as they were');

# a second run of the host started in the same minute (make bench names
# its directory <time>-2): a run of its own
my $same_minute = "$tmp/" . ($dir =~ s{.*/}{}r) . '-2';
system('cp', '-a', $dir, $same_minute) == 0 or die "cannot copy $dir";
($rc, $out, $err) = results_db('load', $same_minute);
is($rc, 0, 'a second run started in the same minute') or diag($err);
like($err, qr/-2: loaded \(host \Q$host\E, tiny/, '... loaded as a run of its own');
is(scalar(() = (results_db('runs'))[1] =~ /^ \Q$host\E\s+\| \d{4}-\d\d-\d\d \d\d:\d\d \| tiny/mg), 2,
	'... two runs of the host');

# older and newer directories
my $old = "$tmp/old";
system('cp', '-a', $dir, $old) == 0 or die "cannot copy $dir";
edit_run_tsv($old, sub { $_[0] =~ s/^(host|format)\t.*\n//mgr });
($rc, $out, $err) = results_db('load', $old);
isnt($rc, 0, 'a directory of format 1 without --host: refused');
like($err, qr/old: run\.tsv of format 1 \(written before the host was recorded\) names no host: give --host NAME/, '... by name');
($rc, $out, $err) = results_db('load', '--host', 'third-host', $old);
is($rc, 0, '... and loaded with one') or diag($err);
my $new = "$tmp/new";
system('cp', '-a', $dir, $new) == 0 or die "cannot copy $dir";
edit_run_tsv($new, sub { $_[0] =~ s/^format\t.*$/format\t99/mr });
($rc, $out, $err) = results_db('load', $new);
isnt($rc, 0, 'a directory of a newer format: refused');
like($err, qr/new: run\.tsv of format 99, newer than this loader reads \(2\)/, '... by name');

# the queries
($rc, $out, $err) = results_db('history', '--host', $host);
is($rc, 0, 'history') or diag($err);
like($out, qr/^\s+started\s+\|\s+profile\s+\|\s+commit\s+\|\s+report\s+\|\s+figure\s+\|\s+ratio\s+\|\s+interval\s+\|\s+verdict\s*$/m, '... its columns');
($rc, $out, $err) = results_db('hosts', '--host', $host, '--other', 'second-host');
is($rc, 0, 'hosts: two hosts side by side') or diag($err);
like($out, qr/\|\s+\Q$host\E\s+\|\s+verdict_a\s+\|\s+second-host\s+\|\s+verdict_b\s*$/m, "... a column each");
my @same = $out =~ /^ tiny\s+\|\s+\d+ \| [^|]+\|\s+([\d.]+) \| [^|]+\|\s+([\d.]+) \|/mg;
ok(@same >= 2, '... figures of both') or diag($out);
my $differ = grep { $same[2 * $_] ne $same[2 * $_ + 1] } 0 .. @same / 2 - 1;
is($differ, 0, '... equal, the second being a copy of the first');
($rc, $out, $err) = results_db('hosts', '--host', $host, '--other', 'nohost');
isnt($rc, 0, 'hosts with a host not loaded: refused');
like($err, qr/no host 'nohost' in the results database/, '... by name');
like($err, qr/the hosts it holds: .*\Q$host\E/, '... naming those it holds');
($rc, $out, $err) = results_db('advice');
is($rc, 0, 'advice') or diag($err);
like($out, qr/^\s+host\s+\|\s+profile\s+\|\s+server\s+\|\s+setting\s+\|/m, '... its columns');
# the report's comparison drawn from the database: the second host's copy
# against the first host's run (the same cells: none worse)
my @report = ('perl', "$root/bench/report.pl", $second, '--baseline-db', $host);
($out, $err) = ('', '');
IPC::Run::run(\@report, '>', \$out, '2>', \$err);
is($? >> 8, 0, "report.pl --baseline-db $host") or diag($out, $err);
like($out, qr/(\d+) compared with the results database \(host \Q$host\E, started [-\d: ]+UTC\), 0 regressions/,
	'... every shared cell compared, none worse');
like(slurp_file("$second/report.md"), qr/^Baseline: the results database \(host \Q$host\E/m, '... the report names it');
$report[-1] = 'nohost';
($out, $err) = ('', '');
IPC::Run::run(\@report, '>', \$out, '2>', \$err);
isnt($? >> 8, 0, 'report.pl --baseline-db of a host not loaded: refused');
like($err, qr/no run of host 'nohost' of profile tiny in the results database/, '... by name');

($rc, $out, $err) = results_db('nonsense');
isnt($rc, 0, 'an unknown command: refused');

done_testing();
