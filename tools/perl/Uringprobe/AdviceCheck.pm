# Advice is a claim about a workload: each row uringprobe_advise() gave in
# a make bench run, checked on the workload it is for in the same run's
# runs files — the advised setting against the current (or, for "keep",
# against the alternative):
#   file_extend_method (<fs>)  concurrent COPY on that filesystem (copy),
#                              at the advice's concurrency where it ran
#   io_method                  cold sequential scans on the storage whose
#                              tablespace the read gain was measured on
#                              (reads) where that gain decided it, else
#                              connection churn at its max_connections
#                              (churn)
#   ring layout                connection churn under io_uring on the
#                              servers of either layout (churn)
# Verdicts: held (the workload moved the way the advice said: the
# interval excludes no change; for "keep", the alternative slower), not shown
# (within the noise: the effect is given), contradicted (moved the other
# way by more than $contradiction_margin, the interval excluding no
# change: make bench fails), not checked (why). Pure: reads files only.
package Uringprobe::AdviceCheck;

use strict;
use warnings;
use Exporter 'import';
use Uringprobe::Stats;
use Uringprobe::TextTable qw(read_tsv);

our @EXPORT = qw(check_advice);

# A workload moved against the advice by less than this is noise, not a
# contradiction, whatever its interval (3 runs a side: their extremes).
our $contradiction_margin = 0.05;

sub runs
{
	my ($dir, $file) = @_;
	return [] unless -f "$dir/$file";
	my ($h, @rows) = read_tsv("$dir/$file");
	return [ grep { ($_->{status} // 'ok') eq 'ok' } map { my $r = $_; +{ map { $h->[$_] => $r->[$_] } 0 .. $#$h } } @rows ];
}
sub values_where
{
	my ($runs, $metric, %m) = @_;
	return [ grep { defined && $_ ne '' } map { $_->{$metric} }
		  grep { my $r = $_; !grep { ($r->{$_} // '') ne $m{$_} } keys %m } @$runs ];
}
sub distinct { my %s; return grep { defined && !$s{$_}++ } @_; }

# The verdict of a time (lower is better) under the advised value against
# the other (for a "keep", the alternative not taken).
sub judge
{
	my ($advised, $other, $what) = @_;
	return { verdict => 'not checked', effect => "$what: not measured in this run" } unless @$advised && @$other;
	my ($ci, $differs) = ratio_interval($advised, $other);
	my $ratio = median(@$advised) / median(@$other);
	my $effect = sprintf('%s: %.2fx the time (%s)', $what, $ratio,
		$ci eq '' ? $differs : "95% interval $ci over " . scalar(@$advised) . ' and ' . scalar(@$other) . ' runs');
	my $better = $differs eq 'differs' && $ratio < 1;
	my $worse = $differs eq 'differs' && $ratio > 1 + $contradiction_margin;
	# "keep" is held where the alternative is slower beyond the noise
	my $verdict = $worse ? 'contradicted' : $better ? 'held' : 'not shown';
	$verdict = 'not shown' if $ci eq '';
	return { verdict => $verdict, effect => $effect };
}

# One advice row (a hash of advise.tsv's columns) of a run in $dir:
# { verdict, effect }. $rows: every advice row of the run (for the other
# layout's server).
sub check_advice
{
	my ($dir, $row, $rows) = @_;
	my ($setting, $advice, $current, $server) = @$row{qw(setting advice current server)};
	return { verdict => 'not checked', effect => 'a limit, not a workload\'s setting' } if $setting =~ /^ulimit/;
	return { verdict => 'not checked', effect => 'the call\'s own budget' } if $setting eq 'budget';
	# before PostgreSQL 18 (its io_method row says there is none): claims for 18
	my $pre18 = grep { $_->{server} eq $server && $_->{setting} eq 'io_method' && $_->{current} =~ /^none / } @{ $rows // [] };
	return { verdict => 'not checked', effect => 'a claim for PostgreSQL 18 (this server has no asynchronous I/O)' }
	  if $pre18 || $advice =~ /^(?:on PostgreSQL 18|none)/;
	my $keep = $advice =~ /^keep /;
	if ($setting =~ /^file_extend_method \((\w+)\)$/)
	{
		my $fs = $1;
		my ($value) = $advice =~ /file_extend_method = (\w+)/ or return { verdict => 'not checked', effect => 'no value advised' };
		my $other = $keep ? ($value eq 'write_zeros' ? 'posix_fallocate' : 'write_zeros') : $current;
		my $copy = runs($dir, 'copy-runs.tsv');
		my @here = grep { $_->{server} eq $server && $_->{fs} eq $fs } @$copy;
		return { verdict => 'not checked', effect => "the copy benchmark ran no COPY on $fs on $server" } unless @here;
		my @clients = sort { $a <=> $b } distinct(map { $_->{clients} } @here);
		# the advice's sessions (4) where COPY ran with as many clients
		my ($clients) = ((grep { $_ == 4 } @clients), $clients[-1]);
		my @ios = distinct(map { $_->{io_method} } @here);
		my ($io) = ((grep { $_ eq 'worker' } @ios), @ios);
		my %m = (server => $server, fs => $fs, clients => $clients, io_method => $io);
		return judge(values_where($copy, 'seconds', %m, file_extend_method => $value),
			values_where($copy, 'seconds', %m, file_extend_method => $other),
			"concurrent COPY on $fs, $clients clients ($io): $value against $other");
	}
	if ($setting eq 'io_method')
	{
		my ($value) = $advice =~ /io_method = (\w+)/ or return { verdict => 'not checked', effect => 'no value advised' };
		$keep ||= $value eq $current;
		my $other = $value eq 'io_uring' ? $current eq 'io_uring' ? 'worker' : $current : 'io_uring';
		$other = 'worker' if $other eq $value;
		if ($row->{evidence} =~ /^cold reads on tablespace/ && $row->{evidence} !~ /connection cost decides|served from memory/)
		{
			my $reads = runs($dir, 'reads-runs.tsv');
			my @here = grep { $_->{server} eq $server && $_->{workload} eq 'seqscan' } @$reads;
			return { verdict => 'not checked', effect => "the reads benchmark ran no cold scan on $server" } unless @here;
			# the storage of the tablespace the read gain was measured on
			# (advise names a storage kind's tablespace after it: latency_1ms)
			my ($space) = $row->{evidence} =~ /^cold reads on tablespace (\S+) /;
			my ($st) = grep { s/[^a-z0-9]/_/gr eq $space } distinct(map { $_->{storage} } @here);
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
		my $churn = runs($dir, 'churn-runs.tsv');
		my %m = (server => $server, max_connections => $row->{max_connections});
		return judge(values_where($churn, 'conn_ms', %m, io_method => $value),
			values_where($churn, 'conn_ms', %m, io_method => $other),
			"connection churn at max_connections $row->{max_connections}: io_method $value against $other");
	}
	if ($setting eq 'ring layout')
	{
		my $region = $current =~ /^one region/;
		# the server of the other layout, as its own advice row says
		my ($twin) = map { $_->{server} }
		  grep { $_->{setting} eq 'ring layout' && $_->{server} ne $server && ($_->{current} =~ /^one region/) != $region
			  && $_->{current} !~ /^none/ && $_->{advice} !~ /^on PostgreSQL 18/ } @{ $rows // [] };
		return { verdict => 'not checked', effect => 'no server of the other layout measured in this run' } unless $twin;
		my ($with_region, $separate) = $region ? ($server, $twin) : ($twin, $server);
		my $churn = runs($dir, 'churn-runs.tsv');
		my %m = (io_method => 'io_uring', max_connections => $row->{max_connections});
		return judge(values_where($churn, 'conn_ms', %m, server => $region ? $server : $with_region),
			values_where($churn, 'conn_ms', %m, server => $region ? $separate : $server),
			"connection churn under io_uring at max_connections $row->{max_connections}: one region ($with_region) "
			  . "against separate mappings ($separate)");
	}
	return { verdict => 'not checked', effect => 'no workload is declared for this setting' };
}

1;
