# The report's first screen: for each of the four reports uringprobe is
# built around, the effect it reported, what this run measured of it (a
# ratio of medians with its 95% bootstrap interval over the runs), a
# verdict — reproduced, not reproduced here, or not measurable here and
# why — and the advice where the measurements give one. Read from a make
# bench results directory's runs files; nothing is measured here.
package Uringprobe::Findings;

use strict;
use warnings;
use Exporter 'import';
use Uringprobe::Stats;
use Uringprobe::TextTable qw(read_tsv);
use Uringprobe::Manifest qw(benchmarks file_of cell_key);
use Uringprobe::TsvRows qw(ok_rows values_where);

our @EXPORT = qw(findings);

# Each report: its name (the one the README, the docs and the report use)
# and the effect it reported.
my %reports = (
	1 => [ 'PostgreSQL 18 connection cost',
		'with io_method=io_uring, connections slower and the postmaster busier: every fork and exit '
		  . 'pays for the mappings of one ring per possible backend; fixed by one memory region (IORING_SETUP_NO_MMAP)' ],
	2 => [ 'SQPOLL completion commits',
		'at 800k UDP packets/s, 100 receives in flight on an SQPOLL ring, one re-submitted per completion: '
		  . 'a quarter of the SQ thread\'s CPU committing the completion ring once per CQE (batched since Linux 5.9)' ],
	3 => [ 'PostgreSQL 16 concurrent COPY',
		'concurrent COPY into one table slower than PostgreSQL 15 from 2 clients on XFS: extensions sized '
		  . 'by the lock waiters make mdzeroextend alternate fallocate and zeros; fixed by 82a4edab' ],
	5 => [ 'what io_uring buys on cold reads',
		'PostgreSQL 18 reads ahead of a scan with several reads in flight (worker: io_workers processes; io_uring: '
		  . 'the backend\'s ring); public cold seq scans: NVMe worker(3) 1.9x sync, io_uring 2.25x; EBS worker 1.5x, '
		  . 'io_uring 2.6x; SATA all equal; bitmap heap scans worker 0.34x on NVMe, io_uring 1.0x; index scans not read ahead' ],
	4 => [ 'io_uring polling in an event loop',
		'an event loop on io_uring poll slower than on epoll: each one-shot POLL_ADD is re-armed, then waits '
		  . 'and is woken, unless the kernel offers multishot polling' ],
);
sub finding_of { my ($n) = @_; return (report => $n, title => $reports{$n}[0], reported => $reports{$n}[1]); }

# x over y: the ratio of their medians, its interval and verdict; undef
# when either side has no runs.
sub compare
{
	my ($x, $y) = @_;
	return undef unless @$x && @$y && median(@$y);
	my ($ci, $verdict) = ratio_interval($x, $y);
	return { ratio => median(@$x) / median(@$y), ci => $ci, verdict => $verdict, runs => [ scalar(@$x), scalar(@$y) ] };
}

# $c, kept in finding %$f's figures under its name (for the results
# database: each report's ratios as numbers), and returned
sub figure
{
	my ($f, $name, $c) = @_;
	if ($c)
	{
		my ($lo, $hi) = ($c->{ci} // '') =~ /^([\d.]+)-([\d.]+)$/;
		push @{ $f->{figures} }, { figure => $name, ratio => $c->{ratio}, lo => $lo, hi => $hi,
			verdict => $c->{verdict}, runs => $c->{runs} };
	}
	return $c;
}

# "1.95x (95% interval 1.90-2.01 over 3 and 3 runs: differs)"
sub said
{
	my ($c) = @_;
	return sprintf('%.2fx (%s)', $c->{ratio},
		$c->{ci} ne '' ? "95% interval $c->{ci} over $c->{runs}[0] and $c->{runs}[1] runs: $c->{verdict}" : $c->{verdict});
}

# the same in a few words, for a headline: "1.95x (differs)"
sub brief { my ($c) = @_; return sprintf('%.2fx (%s)', $c->{ratio}, $c->{verdict}); }

sub more { my ($c) = @_; return $c && $c->{verdict} eq 'differs' && $c->{ratio} > 1; }
sub less { my ($c) = @_; return $c && $c->{verdict} eq 'differs' && $c->{ratio} < 1; }

# What a comparison says of an effect expected in a direction (1: x above
# y, -1: below): [state, why], state 'yes', 'no', 'unmeasurable' (too few
# runs) or '' (not measured).
sub judged
{
	my ($c, $direction) = @_;
	return [ '', '' ] unless $c;
	return [ 'unmeasurable', $c->{verdict} ] if $c->{ci} eq '';
	return [ ($direction > 0 ? more($c) : less($c)) ? 'yes' : 'no', '' ];
}
# Of several comparisons: yes if one is, no if one is not, else the first's.
sub any_judged
{
	my @j = @_;
	my ($yes) = grep { $_->[0] eq 'yes' } @j;
	my ($no) = grep { $_->[0] eq 'no' } @j;
	return $yes // $no // $j[0] // [ '', '' ];
}
# The verdict from the report's effect (its symptom: [judged, name, what
# measures it where it was not]) and
# its mechanism where it has one; $missing says what to run when neither
# was measured.
sub verdict
{
	my ($symptom, $mechanism, $missing) = @_;
	my ($s, $sname, $hint) = @$symptom;
	my ($m, $mname) = $mechanism ? @$mechanism : ([ '', '' ], '');
	return 'reproduced' if $s->[0] eq 'yes';
	return 'not reproduced here' . ($m->[0] eq 'yes' ? " ($sname; $mname is)" : '') if $s->[0] eq 'no';
	my $why = $s->[0] eq 'unmeasurable' ? "$sname: $s->[1]" : "$sname not measured" . ($hint ? ": $hint" : '');
	return "reproduced ($mname; $why)" if $m->[0] eq 'yes';
	return "not reproduced here ($mname; $why)" if $m->[0] eq 'no';
	return 'not measurable here: '
	  . ($s->[0] eq 'unmeasurable' ? $why : $m->[0] eq 'unmeasurable' ? "$mname: $m->[1]" : $missing);
}

sub numerically { return sort { $a <=> $b } @_; }
sub distinct { my %s; return grep { !$s{$_}++ } @_; }

# Report 1: one ring per possible backend, mapped into the postmaster and
# copied by every fork.
sub rings_finding
{
	my ($dir) = @_;
	my %f = finding_of(1);
	my $churn = ok_rows($dir, file_of(churn => 'runs'));
	my $rings = ok_rows($dir, file_of(rings => 'runs'));
	my @here;
	my ($symptom, $fix);
	if (grep { $_->{server} eq 'pg18-separate' } @$churn)
	{
		my ($mc) = reverse numerically(distinct(map { $_->{max_connections} }
			  grep { $_->{server} eq 'pg18-separate' && $_->{io_method} eq 'io_uring' } @$churn));
		if (defined $mc)
		{
			$symptom = figure(\%f, 'connection time io_uring / sync, one ring per backend (pg18-separate)', compare(map { values_where($churn, 'conn_ms', server => 'pg18-separate', io_method => $_, max_connections => $mc) } qw(io_uring sync)));
			$fix = figure(\%f, 'connection time io_uring / sync, one region (pg18-combined)', compare(map { values_where($churn, 'conn_ms', server => 'pg18-combined', io_method => $_, max_connections => $mc) } qw(io_uring sync)));
			push @here, "connection time io_uring / sync at max_connections $mc: pg18-separate " . said($symptom) if $symptom;
			push @here, 'pg18-combined (one region) ' . said($fix) if $fix;
			my $cost = $symptom
			  ? median(@{ values_where($churn, 'conn_ms', server => 'pg18-separate', io_method => 'io_uring', max_connections => $mc) })
			  - median(@{ values_where($churn, 'conn_ms', server => 'pg18-separate', io_method => 'sync', max_connections => $mc) })
			  : 0;
			$f{advice} = sprintf('PostgreSQL 18 with io_method=io_uring: build against a liburing with io_uring_queue_init_mem '
				  . '(2.7 or later: one region, as pg18-combined), or set io_method=worker; here each connection paid '
				  . '%.2f ms more at max_connections %d', $cost, $mc) if more($symptom);
		}
	}
	my ($server) = grep { my $s = $_; grep { $_->{server} eq $s } @$rings } qw(pg18-separate pg18-combined pg15);
	my $mechanism;
	if ($server)
	{
		my ($n) = reverse numerically(distinct(map { $_->{rings} } grep { $_->{server} eq $server && $_->{variant} eq 'mmap' } @$rings));
		$mechanism = defined $n
		  ? figure(\%f, 'fork and exit, mmap rings / one region', compare(map { values_where($rings, 'p50_us', server => $server, where => 'backend', variant => $_, rings => $n) } qw(mmap no_mmap)))
		  : undef;
		push @here, "fork and exit of a backend holding $n rings ($server), mmap layout / one region " . said($mechanism)
		  if $mechanism;
	}
	$f{here} = join('; ', @here);
	$f{headline} = join('; ', ($symptom ? 'connection time io_uring / sync: one ring per backend ' . brief($symptom) : ()),
		($fix ? 'one region ' . brief($fix) : ()),
		($mechanism ? 'fork and exit, mmap / one region ' . brief($mechanism) : ()));
	$f{verdict} = verdict([ judged($symptom, 1), 'the slower connections' ],
		[ judged($mechanism, 1), 'the fork cost of the mappings' ],
		'run the rings and churn benchmarks with pg18-separate');
	return \%f;
}

# Report 2: the completion ring committed once per CQE by the SQPOLL thread.
sub completions_finding
{
	my ($dir, $kernel, $cpus) = @_;
	my %f = finding_of(2);
	my $runs = ok_rows($dir, file_of(completions => 'runs'));
	my %report2 = (where => 'backend', op => 'recv', flags_in_effect => 'sqpoll', depth => 100);
	my $each = values_where($runs, 'sqpoll_ns_per_completion', %report2, resubmit => 'each');
	my $batch = values_where($runs, 'sqpoll_ns_per_completion', %report2, resubmit => 'batch');
	my @here;
	push @here, sprintf('the SQPOLL thread\'s CPU per completion in the report\'s cell (recv, depth 100, replaced per CQE): %.0f ns', median(@$each)) if @$each;
	my $c = figure(\%f, 'SQPOLL thread CPU per completion, per CQE / per batch', compare($each, $batch));
	push @here, 'per CQE / per batch ' . said($c) if $c;
	# The cell keeps three threads busy: the datagram sender, the thread
	# that submits and reaps, and the SQPOLL thread; with fewer CPUs they
	# take turns, and how they do varies from run to run.
	my $spread = robust_spread(@$each);
	push @here, sprintf('its runs spread %.0f%%: this machine has %d CPUs for the cell\'s three busy threads '
		  . '(the datagram sender, the submitting thread, the SQPOLL thread), which take turns differently from run to run',
		$spread, $cpus)
	  if defined $spread && $spread > $noisy_pct && $cpus && $cpus < 3;
	# the kernel profile's share of CQ posting in the SQPOLL thread's
	# samples of that cell (a family counted on that thread alone)
	my $share;
	if (-f "$dir/perf-families.tsv")
	{
		my $key = cell_key(where => 'backend', op => 'recv', flags => 'sqpoll', depth => 100, resubmit => 'each');
		my ($h, @rows) = read_tsv("$dir/perf-families.tsv");
		my %c = map { $h->[$_] => $_ } 0 .. $#$h;
		my ($row) = grep {
			$_->[ $c{benchmark} ] eq 'completions' && $_->[ $c{family_id} ] eq 'cq_posting_sqpoll'
			  && $_->[ $c{cell_key} ] eq $key
		} @rows if defined $c{cell_key};
		$share = $row->[ $c{share_pct} ] if $row && $row->[ $c{of_samples} ];
		push @here, sprintf('CQ posting %.1f%% of the SQPOLL thread\'s samples (perf)', $share) if defined $share;
	}
	$f{here} = join('; ', @here);
	$f{headline} = join('; ', (@$each ? sprintf('SQPOLL thread CPU per completion %.0f ns', median(@$each)) : ()),
		($c ? 'per CQE / per batch ' . brief($c) : ()),
		(defined $share ? sprintf('CQ posting %.1f%% of its samples', $share) : ()));
	$f{verdict} =
	    !@$each ? 'not measurable here: the completions benchmark did not run recv with SQPOLL at depth 100'
	  : !defined $share ? 'not measurable here: the report\'s figure is a share of the SQPOLL thread\'s kernel profile; run make bench PERF=1 as root'
	  : $share >= 15 ? 'reproduced'
	  : "not reproduced here: kernel $kernel posts completions in batches";
	return \%f;
}

# Report 3: relation extension sized by lock waiters, mdzeroextend
# alternating fallocate and zeros.
sub extend_finding
{
	my ($dir) = @_;
	my %f = finding_of(3);
	my $sizing = ok_rows($dir, file_of(extend => 'sizing_runs'));
	my $copy = ok_rows($dir, file_of(copy => 'runs'));
	my @here;
	my ($mechanism, @regression);
	my ($fs) = grep { my $n = $_; grep { $_->{fs} eq $n } @$sizing, @$copy } qw(xfs ext4 btrfs);
	if ($fs && @$sizing)
	{
		# the session count where the waiters sizing switched most
		my ($n) = sort {
			median(@{ values_where($sizing, 'switches', fs => $fs, sizing => 'waiters', sessions => $b) })
			  <=> median(@{ values_where($sizing, 'switches', fs => $fs, sizing => 'waiters', sessions => $a) })
		} grep { $_ >= 2 } distinct(map { $_->{sessions} } grep { $_->{fs} eq $fs } @$sizing);
		if (defined $n)
		{
			$mechanism = figure(\%f, "extension time, sizing by waiters / with the fix, $fs, $n sessions", compare(map { values_where($sizing, 'seconds', fs => $fs, sessions => $n, sizing => $_) } qw(waiters waiters_prior)));
			push @here, sprintf('extension sized by the waiters, %s, %d sessions: %s fallocate<->zeros switches '
				  . 'without the fix, %s with it; time without / with %s', $fs, $n,
				median(@{ values_where($sizing, 'switches', fs => $fs, sessions => $n, sizing => 'waiters') }),
				median(@{ values_where($sizing, 'switches', fs => $fs, sessions => $n, sizing => 'waiters_prior') }),
				said($mechanism)) if $mechanism;
			# tmpfs has no disk: what the smaller extensions cost by their
			# number alone, with no filesystem penalty
			my $control = figure(\%f, "extension time on tmpfs, sizing by waiters / with the fix, $n sessions", compare(map { values_where($sizing, 'seconds', fs => 'tmpfs', sessions => $n, sizing => $_) } qw(waiters waiters_prior)));
			push @here, "on tmpfs (no disk: the cost of more, smaller extensions alone) " . said($control) if $mechanism && $control;
			$f{headline} = sprintf('%s, %d sessions: %s fallocate<->zeros switches without the fix, %s with it; time without / with %s',
				$fs, $n, median(@{ values_where($sizing, 'switches', fs => $fs, sessions => $n, sizing => 'waiters') }),
				median(@{ values_where($sizing, 'switches', fs => $fs, sessions => $n, sizing => 'waiters_prior') }),
				brief($mechanism)) if $mechanism;
		}
	}
	if ($fs && grep { $_->{server} eq 'pg18-noprior' } @$copy)
	{
		my @worse;
		for my $c (grep { $_ >= 2 } numerically(distinct(map { $_->{clients} } @$copy)))
		{
			my $pg15 = values_where($copy, 'seconds', server => 'pg15', fs => $fs, clients => $c);
			my $noprior = values_where($copy, 'seconds', server => 'pg18-noprior', fs => $fs, clients => $c);
			my $r = figure(\%f, "COPY time on $fs, $c clients, pg18-noprior / pg15", compare($noprior, $pg15));
			my $fixed = values_where($copy, 'seconds', server => 'pg18-combined', io_method => 'sync',
				file_extend_method => 'posix_fallocate', fs => $fs, clients => $c);
			my $p = figure(\%f, "COPY time on $fs, $c clients, the fix / pg15", compare($fixed, $pg15));
			next unless $r;
			# the report's regression: slower than 15, and slower than
			# the same server with the fix (else something else made it)
			my $q = figure(\%f, "COPY time on $fs, $c clients, pg18-noprior / the fix", compare($noprior, $fixed));
			$f{copy_headline} //= "COPY, $c clients: pg18-noprior / pg15 " . brief($r) . ($q ? ', / the fix ' . brief($q) : '');
			push @worse, "$c clients: pg18-noprior / pg15 " . said($r) . ($q ? ', / pg18 (the fix) ' . said($q) : '')
			  . ($p ? ', pg18 / pg15 ' . said($p) : '');
			my $jr = judged($r, 1);
			push @regression, $jr->[0] eq 'yes' && $q ? judged($q, 1) : $jr;
		}
		push @here, "COPY on $fs: " . join('; ', @worse) if @worse;
	}
	$f{here} = join('; ', @here);
	$f{headline} = join('; ', grep { defined } $f{headline}, delete $f{copy_headline});
	$f{verdict} = verdict([ any_judged(@regression), 'the COPY regression',
			'it needs pg18-noprior, measured with PROFILE=full or SERVERS naming it' ],
		[ judged($mechanism, 1), 'the alternation of extensions sized by the waiters' ],
		'run the extend benchmark on a scratch XFS');
	my $extend = ok_rows($dir, file_of(extend => 'runs'));
	if ($fs && @$extend)
	{
		my ($n) = reverse numerically(distinct(map { $_->{sessions} } grep { $_->{fs} eq $fs } @$extend));
		my %m = (fs => $fs, where => 'backend', interface => 'sync', sessions => $n);
		my $z = figure(\%f, "extension time on $fs, $n sessions, mdzeroextend / write_zeros", compare(map { values_where($extend, 'seconds', %m, strategy => $_) } qw(mdzeroextend write_zeros)));
		$f{advice} = "on $fs, file_extend_method = write_zeros (PostgreSQL 18): mdzeroextend's mix took " . said($z)
		  . " the time of zeros alone at $n sessions" if more($z);
	}
	return \%f;
}

# Report 4: io_uring one-shot polls against epoll in an event loop.
sub events_finding
{
	my ($dir) = @_;
	my %f = finding_of(4);
	my $runs = ok_rows($dir, file_of(events => 'runs'));
	my %m = (where => 'backend', pipes => 1, peer => 'self');
	my $epoll = values_where($runs, 'ops_per_sec', %m, variant => 'epoll');
	my $oneshot = figure(\%f, 'events/s, io_uring one-shot / epoll', compare(values_where($runs, 'ops_per_sec', %m, variant => 'uring_oneshot'), $epoll));
	my $multi = figure(\%f, 'events/s, io_uring multishot / epoll', compare(values_where($runs, 'ops_per_sec', %m, variant => 'uring_multishot'), $epoll));
	my $multi_defer = figure(\%f, 'events/s, io_uring multishot with DEFER_TASKRUN / epoll', compare(values_where($runs, 'ops_per_sec', %m, variant => 'uring_multishot_defer'), $epoll));
	$f{here} = join('; ', ($oneshot ? 'events/s one-shot / epoll ' . said($oneshot) : ()),
		($multi ? 'multishot / epoll ' . said($multi) : ()),
		($multi_defer ? 'multishot + DEFER_TASKRUN / epoll ' . said($multi_defer) : ()));
	$f{headline} = join(', ', ($oneshot ? 'events/s against epoll: one-shot ' . brief($oneshot) : ()),
		($multi ? 'multishot ' . brief($multi) : ()), ($multi_defer ? 'multishot + DEFER_TASKRUN ' . brief($multi_defer) : ()));
	$f{verdict} = verdict([ judged($oneshot, -1), 'one-shot polls slower than epoll' ], undef,
		'run the events benchmark with one pipe and the waiter writing its own bytes');
	$f{advice} = 'an event loop on io_uring: multishot polls (IORING_POLL_ADD_MULTI)'
	  . ($multi_defer && !less($multi_defer) ? ' on a ring with DEFER_TASKRUN, which kept up with epoll here' : '')
	  . ', never one-shot POLL_ADD re-armed per event'
	  if less($oneshot) && $multi && $multi->{ratio} > $oneshot->{ratio};
	return \%f;
}

# What asynchronous reads bought: on the storage that waits the longest
# (the first latency kind measured, else the machine's disk), at the first
# read-ahead setting, each io_method's cold seqscan against sync's, and
# io_uring's against worker's; the bitmap scan and the index-scan control
# beside them.
sub reads_finding
{
	my ($dir) = @_;
	my %f = finding_of(5);
	my $runs = ok_rows($dir, file_of(reads => 'runs'));
	my @storages = distinct(map { $_->{storage} } @$runs);
	my ($st) = (sort { ($b =~ /^latency-([\d.]+)ms$/ ? $1 : 0) <=> ($a =~ /^latency-([\d.]+)ms$/ ? $1 : 0) } @storages);
	my ($server) = distinct(map { $_->{server} } @$runs);
	# the first value of every other axis, the cache cold
	my %m = (server => $server // '', storage => $st // '', cache => 'cold',
		map { my $k = $_; ($k => (distinct(map { $_->{$k} } @$runs))[0] // '') } qw(read_ahead eic io_combine_limit direct));
	my $sec = sub { my ($io, $w) = @_; return values_where($runs, 'seconds', %m, io_method => $io, workload => $w); };
	my ($worker) = grep { /^worker/ } distinct(map { $_->{io_method} } @$runs);
	my $wname = $worker ? ($worker =~ /^worker:(\d+)$/ ? "worker($1)" : 'worker(3)') : '';
	my $uring = figure(\%f, 'cold seqscan time, sync / io_uring', compare($sec->('sync', 'seqscan'), $sec->('io_uring', 'seqscan')));
	my $wk = $worker ? figure(\%f, 'cold seqscan time, sync / worker', compare($sec->('sync', 'seqscan'), $sec->($worker, 'seqscan'))) : undef;
	my $over = $worker ? figure(\%f, 'cold seqscan time, worker / io_uring', compare($sec->($worker, 'seqscan'), $sec->('io_uring', 'seqscan'))) : undef;
	my $bitmap = figure(\%f, 'cold bitmap heap scan time, sync / io_uring', compare($sec->('sync', 'bitmap'), $sec->('io_uring', 'bitmap')));
	my $index = figure(\%f, 'cold index scan time, sync / io_uring', compare($sec->('sync', 'index'), $sec->('io_uring', 'index')));
	my ($kb) = distinct(map { $_->{read_ahead_kb} } grep { ($_->{storage} // '') eq ($st // '') } @$runs);
	my $where = $st ? "$st, read_ahead_kb " . ($kb // '?') : '';
	$f{here} = join('; ',
		($uring ? "cold seqscan on $where, speed over sync: io_uring " . said($uring) : ()),
		($wk ? "$wname " . said($wk) : ()),
		($over ? "io_uring over $wname " . said($over) : ()),
		($bitmap ? 'bitmap heap scan, io_uring over sync ' . said($bitmap) : ()),
		($index ? 'index scan (the control), io_uring over sync ' . said($index) . control_note($index, $runs, %m) : ()));
	$f{headline} = join(', ', ($uring ? "cold seqscan on $st, speed over sync: io_uring " . brief($uring) : ()),
		($wk ? "$wname " . brief($wk) : ()), ($bitmap ? 'bitmap heap scan io_uring ' . brief($bitmap) : ()));
	$f{verdict} = verdict([ judged($uring, 1), 'io_uring faster than sync on a cold seqscan' ], undef,
		'run the reads benchmark (make bench BENCHES=reads)');
	$f{advice} = more($over) ? "io_method = io_uring where reads wait on the device ($where here)"
	  : less($over)          ? "io_method = worker ($wname): it read faster than io_uring here ($where)"
	  :                        ''
	  if more($uring) || more($wk);
	return \%f;
}

# Where the index-scan control (PostgreSQL 18 reads none of it ahead)
# differs by more than 5%: that it does not hold, with the time its
# reads waited (pg_stat_io's read_time, medians) under sync and io_uring.
sub control_note
{
	my ($index, $runs, %m) = @_;
	return '' unless (more($index) || less($index)) && abs($index->{ratio} - 1) > 0.05;
	my ($sync, $uring) = map { median(@{ values_where($runs, 'io_read_ms', %m, io_method => $_, workload => 'index') }) } qw(sync io_uring);
	return ': the control does not hold here'
	  . ($sync ne '' && $uring ne '' ? sprintf(' (its reads waited %.0f ms under sync, %.0f under io_uring: pg_stat_io read_time)', $sync, $uring) : '');
}

# Each finding's function, by its number.
my %finding = (1 => \&rings_finding, 2 => \&completions_finding, 3 => \&extend_finding, 4 => \&events_finding,
	5 => \&reads_finding);

# The findings of the benchmarks a run had: each finding one of them
# feeds (its manifest's report key), in the findings' order.
sub findings
{
	my ($dir, $benchmarks, $kernel, $cpus) = @_;
	my %ran = map { $_ => 1 } split ' ', $benchmarks // '';
	my %fed = map { $_->{report} => 1 } grep { $_->{report} && $ran{ $_->{name} } } benchmarks();
	return map { $finding{$_}->($dir, $kernel, $cpus) } grep { $fed{$_} } sort { $a <=> $b } keys %finding;
}
1;
