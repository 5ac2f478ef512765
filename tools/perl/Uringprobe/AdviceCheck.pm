# Advice is a claim about a workload: each row uringprobe_advise() gave in
# a make bench run, checked on the workload it is for in the same run's
# runs files — the advised value against the current (or, for a keep,
# against the alternative; never a value against itself). Rows are read by
# their columns (setting, scope_name, action, value, current,
# needs_version, decided_by, measured_in, margin), never from their prose:
#   file_extend_method (<ts>)  concurrent COPY into a table in that
#                              tablespace, in the advised server's own
#                              cluster (advise-checks.tsv: bench/advise.pl
#                              runs it beside the call), else concurrent
#                              COPY on that filesystem (copy), at the
#                              advice's concurrency where it ran
#   io_method                  where cold reads decided it: cold
#                              sequential scans of a table in the tablespace
#                              they were measured in (advise-checks.tsv),
#                              else on that storage (reads, the storage
#                              from advise-tablespaces.tsv); else
#                              connection churn at its max_connections
#                              (churn)
#   ring layout                connection churn under io_uring on the
#                              servers of either layout (churn)
#   io_method, besides                 OLTP: each storage, workload and
#                              client count the oltp benchmark ran on
#                              its server, the time per transaction
#                              (contradicted only beyond $oltp_within;
#                              combined: contradicted where any check
#                              is, else held where any is)
#   every row that changes a   OLTP under the advised set: the oltp runs
#   setting, besides           with the server's changes applied together
#                              against worker as the advice started,
#                              where the set named the row
# Verdicts: held (the workload moved the way the advice said: the
# interval excludes no change; for "keep", the alternative slower), not shown
# (within the noise: the effect is given), contradicted (moved the other
# way by more than $contradiction_margin, the interval excluding no
# change; a "keep" because no difference beyond N% was shown: the whole
# interval beyond N%: make bench fails; a keep claims its margin), not
# checked (why); a COPY's
# move larger than extension's share of its time is not the setting's
# (within_share). Pure: reads files only.
package Uringprobe::AdviceCheck;

use strict;
use warnings;
use Exporter 'import';
use Uringprobe::Stats;
use Uringprobe::Manifest qw(file_of);
use Uringprobe::TsvRows qw(ok_rows rows_where values_where);

our @EXPORT = qw(check_advice advised_pair decided_by_reads tablespace_storage);

# A workload moved against the advice by less than this is noise, not a
# contradiction, whatever its interval (3 runs a side: their extremes).
our $contradiction_margin = 0.05;

sub distinct { my %s; return grep { defined && !$s{$_}++ } @_; }

# The verdict of a time (lower is better) under the advised value against
# the other (for a "keep", the alternative not taken).
# $within: the difference a "keep" claimed not to have seen ("no
# difference beyond 5% shown": 0.05); such a row claims no direction, so
# only a workload whose whole interval lies beyond it contradicts it.
sub judge
{
	my ($advised, $other, $what, $within) = @_;
	return { verdict => 'not checked', effect => "$what: not measured in this run" } unless @$advised && @$other;
	my ($ci, $differs) = ratio_interval($advised, $other);
	my $ratio = median(@$advised) / median(@$other);
	my $effect = sprintf('%s: %.2fx the time (%s)', $what, $ratio,
		$ci eq '' ? $differs : "95% interval $ci over " . scalar(@$advised) . ' and ' . scalar(@$other) . ' runs');
	my $better = $differs eq 'differs' && $ratio < 1;
	my $worse = $differs eq 'differs' && $ratio > 1 + $contradiction_margin
	  && (!defined $within || ($ci =~ /^([\d.]+)-/ && $1 > 1 + $within));
	# "keep" is held where the alternative is slower beyond the noise
	my $verdict = $worse ? 'contradicted' : $better ? 'held' : 'not shown';
	$verdict = 'not shown' if $ci eq '';
	return { verdict => $verdict, effect => $effect, ratio => $ratio };
}

# A setting moves a workload only through the micro-operation it governs:
# where that took a share of the workload's time under each value
# ($shares: [advised, other]; '' where not measured), making it free
# saves at most the slower value's share. A verdict ($r from judge) that
# needs a larger move is not the setting's doing (noise, or another
# cause): not shown.
sub within_share
{
	my ($r, $shares, $operation) = @_;
	return $r if $r->{verdict} !~ /^(?:held|contradicted)$/;
	my $ratio = $r->{ratio};
	my ($share, $slower) = $ratio > 1 ? ($shares->[0], 'advised') : ($shares->[1], 'other');
	my $move = $ratio > 1 ? 1 - 1 / $ratio : 1 - $ratio;
	return $r if $share eq '' || $move <= $share;
	return { %$r, verdict => 'not shown',
		effect => $r->{effect} . sprintf('; it moved by %.0f%% of the slower time, more than the %.0f%% %s took under the %s value: '
			  . 'not the setting\'s doing', 100 * $move, 100 * $share, $operation, $slower) };
}

# The other value of a setting with two to choose from.
my %alternative = (
	file_extend_method => { posix_fallocate => 'write_zeros', write_zeros => 'posix_fallocate' },
	io_method => { io_uring => 'worker', worker => 'io_uring', sync => 'io_uring' },
);

# Settings whose value is a number (or a size in kB): a raise or lower
# runs against the current value; a keep against the point of its curve
# it was held to (compared_with), else whatever other value a workload of
# the run measured (check_on_reads).
my $numeric = qr/^(?:effective_io_concurrency|maintenance_io_concurrency|io_workers|io_combine_limit|io_max_combine_limit|read_ahead_kb)$/;

# The two values an advice row's workload runs under, advised first: the
# advised one against the current, or for a keep the alternative not
# taken (io_method: io_uring against worker); () where the row advises no
# value of file_extend_method or io_method, or a server before 18 (its
# claims are for 18), and never a value against itself.
sub advised_pair
{
	my ($row) = @_;
	my ($setting, $action, $value, $current) = @$row{qw(setting action value current)};
	# a number raised or lowered: against the current one; kept: against
	# the point of its curve it was held to (compared_with)
	if ($setting =~ $numeric)
	{
		return ($value, $current) if $action =~ /^(?:raise|lower)$/ && $value ne $current;
		my $against = $row->{compared_with} // '';
		return $action eq 'keep' && $against ne '' && $against ne $value ? ($value, $against) : ();
	}
	my $alt = $alternative{$setting} or return ();
	return () if $action eq 'none' || ($value // '') eq '' || !$alt->{$value} || ($row->{needs_version} // '') ne '';
	my $other = $action eq 'keep' || !$alt->{ $current // '' } ? $alt->{$value} : $current;
	$other = $alt->{$value} if $other eq $value;
	return $other eq $value ? () : ($value, $other);
}

# The filesystem or storage kind (the benchmarks' name for it) of
# tablespace $space of the advise cluster of $server
# (advise-tablespaces.tsv), undef where it made none of that name.
sub tablespace_storage
{
	my ($dir, $server, $space) = @_;
	my ($st) = map { $_->{storage} }
	  rows_where(ok_rows($dir, file_of(advise => 'tablespaces')), server => $server, tablespace => $space);
	return $st;
}

# The tablespace an io_method row's cold reads were measured in, where
# they decided it.
sub decided_by_reads
{
	my ($row) = @_;
	return undef unless $row->{setting} eq 'io_method' && ($row->{decided_by} // '') eq 'cold reads';
	return $row->{measured_in};
}

# A keep's claimed margin: the difference it held the other value to
# (no difference beyond it shown).
sub claimed_within
{
	my ($row) = @_;
	return $row->{action} eq 'keep' && ($row->{margin} // '') ne '' ? $row->{margin} : undef;
}

# The advise cluster's own check of $row (advise-checks.tsv), if it ran:
# a judge() of the advised value's seconds against the other's.
sub own_check
{
	my ($dir, $row, $value, $other) = @_;
	my $checks = [ grep { $_->{server} eq $row->{server} && $_->{setting} eq $row->{setting} && $_->{scope_name} eq $row->{scope_name} }
		  @{ ok_rows($dir, file_of(advise => 'checks')) } ];
	return undef unless @$checks;
	my $r = judge(values_where($checks, 'seconds', value => $value), values_where($checks, 'seconds', value => $other),
		"$checks->[0]{workload}: $value against $other", claimed_within($row));
	my ($mine, $share) = map { median(@{ values_where($checks, 'share', value => $_) }) } $value, $other;
	if ($row->{setting} eq 'io_workers')
	{
		# the sessions' own share of the bytes read: the queue's
		# synchronous fallback, counted live
		$r->{effect} .= sprintf('; the sessions read %.0f%% of the bytes themselves with %s workers, %.0f%% with %s '
			  . '(the rest by the io workers; a full queue sends reads back to their session)', 100 * $mine, $value,
			100 * $share, $other)
		  if $mine ne '' && $share ne '';
		return $r;
	}
	# what the workload could gain at most: the share of its time the
	# micro-operation took (COPY: pg_stat_io's extend_time)
	$r->{effect} .= sprintf('; extension took %.0f%% of its sessions\' time under %s: at most that to gain', 100 * $share, $other)
	  if $share ne '';
	return within_share($r, [ $mine, $share ], 'extension');
}

# The servers before PostgreSQL 18 among the rows (their io_method row
# needs 18), as a set.
sub pre18_servers
{
	my ($rows) = @_;
	return map { $_->{server} => 1 } grep { $_->{setting} eq 'io_method' && ($_->{needs_version} // '') ne '' } @{ $rows // [] };
}

# The ring layout rows of the run's PostgreSQL 18 servers that have rings
# (a server before 18's ring layout row is a claim for 18).
sub pg18_layout_rows
{
	my ($rows) = @_;
	my %pre18 = pre18_servers($rows);
	return grep { $_->{setting} eq 'ring layout' && !$pre18{ $_->{server} } && $_->{current} =~ /^(?:one region|separate)$/ }
	  @{ $rows // [] };
}

# A row of a server before PostgreSQL 18 about what to set on 18 (its
# io_method, the ring layout), checked on the connection churn of this
# run's PostgreSQL 18 servers: the layout's claim on the servers of either
# layout, the io_method's on the server of the layout this one's rings
# would have (its ring layout row's "now").
sub pg18_claim
{
	my ($dir, $row, $rows) = @_;
	my @layouts = pg18_layout_rows($rows);
	my ($region) = map { $_->{server} } grep { $_->{current} eq 'one region' } @layouts;
	my ($separate) = map { $_->{server} } grep { $_->{current} eq 'separate' } @layouts;
	my $churn = ok_rows($dir, file_of(churn => 'runs'));
	my $mc = $row->{max_connections};
	if ($row->{setting} eq 'ring layout' && $row->{value} eq 'one region')
	{
		return { verdict => 'not checked', effect => 'a claim for PostgreSQL 18: no servers of both layouts in this run' }
		  unless $region && $separate;
		my %m = (io_method => 'io_uring', max_connections => $mc);
		return judge(values_where($churn, 'conn_ms', %m, server => $region), values_where($churn, 'conn_ms', %m, server => $separate),
			"on PostgreSQL 18, connection churn under io_uring at max_connections $mc: one region ($region) "
			  . "against separate mappings ($separate)");
	}
	if ($row->{setting} eq 'io_method' && ($alternative{io_method}{ $row->{value} } // '') ne '')
	{
		my $value = $row->{value};
		my $other = $alternative{io_method}{$value};
		my ($mine) = grep { $_->{server} eq $row->{server} && $_->{setting} eq 'ring layout' } @{ $rows // [] };
		my $twin = ($mine && $mine->{current} eq 'one region') ? $region : $separate;
		return { verdict => 'not checked', effect => 'a claim for PostgreSQL 18: no server of that ring layout in this run' }
		  unless $twin;
		my %m = (server => $twin, max_connections => $mc);
		return judge(values_where($churn, 'conn_ms', %m, io_method => $value), values_where($churn, 'conn_ms', %m, io_method => $other),
			"on PostgreSQL 18 ($twin, the same ring layout), connection churn at max_connections $mc: io_method $value against $other");
	}
	return { verdict => 'not checked', effect => 'a claim for PostgreSQL 18 with no workload declared' };
}

# A limit kept is a claim that io_uring's rings at this max_connections
# fit in it, io_uring allowed a claim that it starts: the churn runs
# started this server so (before 18: a PostgreSQL 18 server under the same
# user's limits).
sub check_starts_under_io_uring
{
	my ($dir, $row, $rows, $pre18) = @_;
	my $server = $row->{server};
	return { verdict => 'not checked', effect => 'a host\'s setting to change: the benchmark runs under the one it has' }
	  unless $row->{action} eq 'keep';
	my $churn = ok_rows($dir, file_of(churn => 'runs'));
	my %m = (io_method => 'io_uring', max_connections => $row->{max_connections});
	my ($ran) = grep { @{ values_where($churn, 'conn_ms', %m, server => $_) } } $pre18
	  ? distinct(map { $_->{server} } pg18_layout_rows($rows))
	  : ($server);
	return { verdict => 'not checked', effect => "no churn ran $server under io_uring at max_connections $row->{max_connections}" }
	  unless $ran;
	my $n = @{ values_where($churn, 'conn_ms', %m, server => $ran) };
	return { verdict => 'held',
		effect => "$ran started under io_uring at max_connections $row->{max_connections} within it and churned connections ($n runs)" };
}

# file_extend_method on filesystem $fs: concurrent COPY with each method.
sub check_extend_method
{
	my ($dir, $row, $fs) = @_;
	my $server = $row->{server};
	my ($value, $other) = advised_pair($row) or return { verdict => 'not checked', effect => 'no value advised' };
	my $own = own_check($dir, $row, $value, $other);
	return $own if $own;
	my $copy = ok_rows($dir, file_of(copy => 'runs'));
	my @here = grep { $_->{server} eq $server && $_->{fs} eq $fs } @$copy;
	return { verdict => 'not checked', effect => "the copy benchmark ran no COPY on $fs on $server" } unless @here;
	my @clients = sort { $a <=> $b } distinct(map { $_->{clients} } @here);
	# the advice's sessions (4) where COPY ran with as many clients
	# (make bench names a filesystem's tablespace after it)
	my ($clients) = ((grep { $_ == 4 } @clients), $clients[-1]);
	my @ios = distinct(map { $_->{io_method} } @here);
	my ($io) = ((grep { $_ eq 'worker' } @ios), @ios);
	my %m = (server => $server, fs => $fs, clients => $clients, io_method => $io);
	my $r = judge(values_where($copy, 'seconds', %m, file_extend_method => $value),
		values_where($copy, 'seconds', %m, file_extend_method => $other),
		"concurrent COPY on $fs, $clients clients ($io): $value against $other", claimed_within($row));
	# extension's share of the sessions' time (extend_ms summed over them)
	my @shares = map {
		my $fem = $_;
		median(map { $_->{extend_ms} / 1000 / ($_->{seconds} * $clients) }
			grep { ($_->{extend_ms} // '') ne '' && $_->{seconds} > 0 } rows_where($copy, %m, file_extend_method => $fem))
	} $value, $other;
	return within_share($r, \@shares, 'extension');
}

# io_method decided by cold reads: the reads benchmark's cold scans on the
# storage of the tablespace the gain was measured on.
sub check_io_method_reads
{
	my ($dir, $row, $value, $other) = @_;
	my $server = $row->{server};
	my $own = own_check($dir, $row, $value, $other);
	return $own if $own;
	my $reads = ok_rows($dir, file_of(reads => 'runs'));
	my @here = grep { $_->{server} eq $server && $_->{workload} eq 'seqscan' } @$reads;
	return { verdict => 'not checked', effect => "the reads benchmark ran no cold scan on $server" } unless @here;
	my $space = $row->{measured_in};
	my $on = tablespace_storage($dir, $server, $space) // '';
	my ($st) = grep { $_ eq $on } distinct(map { $_->{storage} } @here);
	return { verdict => 'not checked',
		effect => "the read gain was measured on tablespace $space, a storage the reads benchmark did not measure" }
	  unless $st;
	# the first value of every other axis, the cache cold
	my %m = (server => $server, workload => 'seqscan', storage => $st, cache => 'cold',
		map { my $k = $_; ($k => (distinct(map { $_->{$k} } @here))[0] // '') } qw(read_ahead eic io_combine_limit direct));
	return judge(values_where($reads, 'seconds', %m, io_method => $value),
		values_where($reads, 'seconds', %m, io_method => $other),
		"cold sequential scans on $st: io_method $value against $other");
}

# io_method: cold reads where they decided it, else connection churn.
sub check_io_method
{
	my ($dir, $row) = @_;
	my ($value, $other) = advised_pair($row) or return { verdict => 'not checked', effect => 'no value advised' };
	return check_io_method_reads($dir, $row, $value, $other) if defined decided_by_reads($row);
	my $churn = ok_rows($dir, file_of(churn => 'runs'));
	my %m = (server => $row->{server}, max_connections => $row->{max_connections});
	return judge(values_where($churn, 'conn_ms', %m, io_method => $value),
		values_where($churn, 'conn_ms', %m, io_method => $other),
		"connection churn at max_connections $row->{max_connections}: io_method $value against $other");
}

# effective_io_concurrency (cold bitmap heap scans) or
# maintenance_io_concurrency (cold VACUUM) of a tablespace: the advise
# cluster's runs there under the advised value and the current one (a
# keep: the depth it was held to).
sub check_io_concurrency
{
	my ($dir, $row) = @_;
	my ($value, $other) = advised_pair($row)
	  or return { verdict => 'not checked', effect => "kept at $row->{current}: its curve gave no other depth to run against" };
	return own_check($dir, $row, $value, $other)
	  // { verdict => 'not checked', effect => "no workload of this run ran $row->{setting} at $value and $other" };
}

# A size setting's value in kB ('128kB', '1MB', 256).
sub kb_of
{
	my ($v) = @_;
	return $v =~ /^(\d+)\s*MB$/i ? $1 * 1024 : $v =~ /^(\d+)\s*(?:kB)?$/i ? $1 : undef;
}

# What the reads benchmark's runs of a read setting look like: the value
# a run had, the runs that bear on it (io_method, workloads by preference).
my %on_reads = (
	io_workers => {
		value => sub { $_[0]{io_method} =~ /^worker(?::(\d+))?$/ ? $1 // 3 : undef },
		io_method => qr/^worker/, workloads => [qw(concurrent bitmap seqscan)] },
	io_combine_limit => { value => sub { kb_of($_[0]{io_combine_limit}) }, workloads => [qw(seqscan)] },
	read_ahead_kb => { value => sub { $_[0]{read_ahead_kb} }, io_method => qr/^sync$/, workloads => [qw(seqscan)] },
);

# A read setting (io_workers, io_combine_limit, read_ahead_kb) checked on
# the reads benchmark's cold runs on the storage its measurement ran on
# (the tablespace the row was measured in): the runs with the advised
# value against those with the current one (a keep: another value the run
# measured), every other axis as in the former's runs.
sub check_on_reads
{
	my ($dir, $row) = @_;
	my $how = $on_reads{ $row->{setting} };
	my $server = $row->{server};
	my $space = $row->{measured_in} // '';
	my $st = tablespace_storage($dir, $server, $space)
	  or return { verdict => 'not checked', effect => "measured on tablespace $space, a storage the reads benchmark did not measure" };
	my $reads = ok_rows($dir, file_of(reads => 'runs'));
	my ($workload) = grep {
		my $w = $_;
		grep { $_->{server} eq $server && $_->{storage} eq $st && $_->{workload} eq $w } @$reads
	} @{ $how->{workloads} };
	return { verdict => 'not checked',
		effect => "the reads benchmark ran no " . join('/', @{ $how->{workloads} }) . " on $st on $server" }
	  unless $workload;
	my @here = grep {
		$_->{server} eq $server && $_->{storage} eq $st && $_->{workload} eq $workload && $_->{cache} eq 'cold'
		  && (!$how->{io_method} || $_->{io_method} =~ $how->{io_method}) && defined $how->{value}->($_)
	} @$reads;
	my ($want, $now) = map { $row->{setting} eq 'io_combine_limit' ? kb_of($_) : $_ } @$row{qw(value current)};
	my @measured = distinct(map { $how->{value}->($_) } @here);
	my $other = $row->{action} eq 'keep' ? (grep { $_ ne $want } @measured)[0] : $now;
	my $values = join(', ', sort { $a <=> $b } @measured) || 'none';
	return { verdict => 'not checked',
		effect => "the reads benchmark's $workload runs on $st had $row->{setting} $values: "
		  . (defined $other ? "not $want and $other" : "no other value to run $want against") }
	  unless defined $other && grep({ $_ eq $want } @measured) && grep({ $_ eq $other } @measured);
	# every other axis as in the advised value's first run (the value a
	# run varied from its first ones)
	my ($like) = grep { $how->{value}->($_) eq $want } @here;
	my @axes = grep { $_ ne 'io_combine_limit' || $row->{setting} ne 'io_combine_limit' }
	  grep { $_ ne 'read_ahead' || $row->{setting} ne 'read_ahead_kb' } qw(read_ahead eic io_combine_limit direct);
	push @axes, 'io_method' unless $how->{io_method} && $row->{setting} eq 'io_workers';
	my @same = grep { my $r = $_; !grep { $r->{$_} ne $like->{$_} } @axes } @here;
	my @of = map { my $v = $_; [ map { $_->{seconds} } grep { $how->{value}->($_) eq $v } @same ] } $want, $other;
	my $io = $row->{setting} eq 'io_workers' ? 'worker' : $like->{io_method};
	return judge(@of, "cold $workload runs on $st ($io): $row->{setting} $want against $other", claimed_within($row));
}

# A read setting: the advise cluster's own check where it ran one, else
# the reads benchmark's runs.
sub check_read_setting
{
	my ($dir, $row) = @_;
	return { verdict => 'not checked', effect => 'nothing to set: ' . ($row->{not_measured} || 'no value') }
	  if $row->{action} eq 'none';
	my ($value, $other) = advised_pair($row);
	return own_check($dir, $row, $value, $other) // check_on_reads($dir, $row) if defined $value;
	return check_on_reads($dir, $row);
}

# The ring layout: connection churn under io_uring on the server of each
# layout.
sub check_ring_layout
{
	my ($dir, $row, $rows) = @_;
	my $server = $row->{server};
	my $region = $row->{current} eq 'one region';
	# the server of the other layout, as its own advice row says
	my ($twin) = map { $_->{server} }
	  grep { $_->{server} ne $server && ($_->{current} eq 'one region') != $region } pg18_layout_rows($rows);
	return { verdict => 'not checked', effect => 'no server of the other layout measured in this run' } unless $twin;
	my ($with_region, $separate) = $region ? ($server, $twin) : ($twin, $server);
	my $churn = ok_rows($dir, file_of(churn => 'runs'));
	my %m = (io_method => 'io_uring', max_connections => $row->{max_connections});
	return judge(values_where($churn, 'conn_ms', %m, server => $region ? $server : $with_region),
		values_where($churn, 'conn_ms', %m, server => $region ? $separate : $server),
		"connection churn under io_uring at max_connections $row->{max_connections}: one region ($with_region) "
		  . "against separate mappings ($separate)");
}

# An io_method row claims no OLTP slowdown beyond this (its decision is
# the scans' or the connections'): OLTP's short cold runs spread by tens of
# percent here.
our $oltp_within = 0.10;

# io_method on OLTP: the oltp benchmark's runs on the row's server under
# the advised io_method against the other, one check per storage,
# workload and client count: the time per transaction (1 / tps), the
# p99's ratio beside. () where no such runs are in the run.
sub check_on_oltp
{
	my ($dir, $row) = @_;
	my ($value, $other) = advised_pair($row) or return ();
	my $oltp = ok_rows($dir, file_of(oltp => 'runs'));
	my @here = grep { $_->{server} eq $row->{server} && ($_->{tps} // '') ne '' && $_->{tps} > 0 } @$oltp;
	my @checks;
	for my $cell (distinct(map { join("\t", @$_{qw(storage workload clients)}) } @here))
	{
		my ($st, $w, $c) = split /\t/, $cell;
		my %of = map {
			my $m = $_;
			$m => [ grep { $_->{storage} eq $st && $_->{workload} eq $w && $_->{clients} eq $c && $_->{io_method} eq $m } @here ]
		} $value, $other;
		next unless @{ $of{$value} } && @{ $of{$other} };
		# (OLTP is not what the row was decided on: a slowdown there
		# contradicts it only with the whole interval beyond $oltp_within)
		my $within = claimed_within($row) // 0;
		$within = $oltp_within if $within < $oltp_within;
		my $r = judge([ map { 1 / $_->{tps} } @{ $of{$value} } ], [ map { 1 / $_->{tps} } @{ $of{$other} } ],
			"OLTP $w, $c clients on $st: io_method $value against $other", $within);
		my ($p99, $p99_other) = map { median(map { $_->{p99_ms} } @$_) } @of{ $value, $other };
		$r->{effect} =~ s/x the time/x the time per transaction/;
		$r->{effect} .= sprintf('; p99 %.2fx', $p99 / $p99_other) if $p99_other > 0;
		push @checks, { %$r, workload => "OLTP $w, $c clients on $st" };
	}
	return @checks;
}

# A row that changes a setting, on OLTP under the advised set: the oltp
# benchmark's runs on the row's server with the advise benchmark's changes
# applied together (io_method advised, its settings naming this row)
# against the settings the advice started from (worker, PostgreSQL 18's
# defaults), one check per storage, workload and client count, held to
# $oltp_within as check_on_oltp's. () where no advised set ran with it.
sub check_on_advised_set
{
	my ($dir, $row) = @_;
	return () unless $row->{action} =~ /^(?:set|raise|lower)$/ && ($row->{current} eq '' || $row->{io_method} eq 'worker');
	my $key = $row->{setting} . ($row->{scope_name} eq '' ? '' : ":$row->{scope_name}") . "=$row->{value}";
	my @here = grep { $_->{server} eq $row->{server} && ($_->{tps} // '') ne '' && $_->{tps} > 0 }
	  @{ ok_rows($dir, file_of(oltp => 'runs')) };
	my @checks;
	for my $cell (distinct(map { join("\t", @$_{qw(storage workload clients)}) }
			grep { $_->{io_method} eq 'advised' && grep { $_ eq $key } split /; /, $_->{settings} // '' } @here))
	{
		my ($st, $w, $c) = split /\t/, $cell;
		my %of = map {
			my $m = $_;
			$m => [ grep { $_->{storage} eq $st && $_->{workload} eq $w && $_->{clients} eq $c && $_->{io_method} eq $m } @here ]
		} qw(advised worker);
		next unless @{ $of{worker} };
		my $r = judge([ map { 1 / $_->{tps} } @{ $of{advised} } ], [ map { 1 / $_->{tps} } @{ $of{worker} } ],
			"OLTP $w, $c clients on $st: the advised set ($of{advised}[0]{settings}) against worker as started", $oltp_within);
		$r->{effect} =~ s/x the time/x the time per transaction/;
		push @checks, { %$r, workload => "OLTP $w, $c clients on $st, the advised set" };
	}
	return @checks;
}

# A row's checks taken together: its own, then those on other workloads
# (`also`); contradicted where any is, else held where any is, else not
# shown where any is.
sub combined
{
	my ($main, @also) = @_;
	return $main unless @also;
	my %any = map { $_->{verdict} => 1 } $main, @also;
	my ($verdict) = grep { $any{$_} } 'contradicted', 'held', 'not shown', 'not checked';
	return { %$main, verdict => $verdict, own => $main->{verdict}, also => \@also };
}

# One advice row (a hash of advise.tsv's columns) of a run in $dir:
# { verdict, effect }. $rows: every advice row of the run (for the other
# layout's server).
sub check_advice
{
	my ($dir, $row, $rows) = @_;
	my $own = own_verdict($dir, $row, $rows);
	my @set = check_on_advised_set($dir, $row);
	return $own unless @set;
	return combined($own, @set) unless $own->{also};
	return combined({ %$own, verdict => $own->{own} }, @{ $own->{also} }, @set);
}

# A row's checks but those of the advised set.
sub own_verdict
{
	my ($dir, $row, $rows) = @_;
	my $setting = $row->{setting};
	# kept for want of a measurement: no claim to check
	return { verdict => 'not checked', effect => "kept unmeasured: $row->{not_measured}" }
	  if $row->{action} eq 'keep' && ($row->{decided_by} // '') eq '' && ($row->{not_measured} // '') ne '';
	# before PostgreSQL 18 (its io_method row needs 18): claims for 18
	my $pre18 = { pre18_servers($rows) }->{ $row->{server} };
	return check_read_setting($dir, $row) if $on_reads{$setting};
	return { verdict => 'not checked', effect => "follows io_combine_limit's row (the limit it may be set to)" }
	  if $setting eq 'io_max_combine_limit';
	return check_starts_under_io_uring($dir, $row, $rows, $pre18) if $row->{scope} eq 'os';
	return { verdict => 'not checked', effect => "the call's own budget (it took $row->{seconds} s of $row->{budget} s)" }
	  if $setting eq 'budget';
	return { verdict => 'not checked', effect => 'nothing to set on this server' } if $row->{action} eq 'none';
	return pg18_claim($dir, $row, $rows) if $pre18 && $setting =~ /^(?:io_method|ring layout)$/;
	return check_extend_method($dir, $row, tablespace_storage($dir, $row->{server}, $row->{scope_name}) // $row->{scope_name})
	  if $setting eq 'file_extend_method';
	return combined(check_io_method($dir, $row), check_on_oltp($dir, $row)) if $setting eq 'io_method';
	return check_io_concurrency($dir, $row) if $setting =~ /^(?:effective|maintenance)_io_concurrency$/;
	return check_ring_layout($dir, $row, $rows) if $setting eq 'ring layout';
	return { verdict => 'not checked', effect => 'no workload is declared for this setting' };
}

1;
