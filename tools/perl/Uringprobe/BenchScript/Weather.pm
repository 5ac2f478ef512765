# The weather of a benchmark's runs: what else the machine did while one
# ran (the hypervisor's steal, other processes' CPU, dirty pages), which
# make bench records beside every run and repeat_rounds weighs.
package Uringprobe::BenchScript::Weather;

use strict;
use warnings;
use Exporter 'import';
use List::Util ();
use Time::HiRes ();

our @EXPORT = qw(@weather_cols weather_start dirty_kb);

# The weather of a run: what else the machine did while it ran. From the
# start of the cell (or the end of settle_fs) to its row: the CPU stolen by
# the hypervisor (/proc/stat) and the CPU of the other processes — every
# process that is neither a kernel thread nor the benchmark's (PostgreSQL's
# processes, uringprobe-cli, pgbench, the reference loop, psql, fio, the
# storage that makes you wait: nbdkit and nbdfuse, and the driver: perl,
# bash, make, sync, setpriv, perf, gnuplot) — as a percentage
# of the CPU time there was, with the busiest of them; and the dirty and
# writeback pages before and after. Other processes are counted when alive
# at both ends: a lower bound.
our @weather_cols = qw(steal_pct foreign_cpu_pct foreign_top dirty_kb_before writeback_kb_before
  dirty_kb_after writeback_kb_after);
my %ours = map { $_ => 1 }
  qw(postgres postmaster uringprobe-cli pgbench epoll-pingpong psql perl bash sh make sync setpriv
  perf gnuplot env pg_ctl initdb fio nbdkit nbdfuse);
my %weather_start;
# The weather run_row records (the tests put their own in, so that what
# they assert follows from made-up weather, never from the machine's).
our $weather = \&weather_now;
sub cpu_totals
{
	open my $fh, '<', '/proc/stat' or return (0, 0);
	my $line = <$fh>;
	my @f = split ' ', $line;
	shift @f;
	my $total = 0;
	$total += $_ for @f[ 0 .. 7 ];
	return ($total, $f[7] // 0);    # all ticks, steal ticks
}
sub foreign_cpu
{
	my %cpu;
	for my $stat (glob('/proc/[0-9]*/stat'))
	{
		open my $fh, '<', $stat or next;
		my $line = <$fh> // next;
		my ($pid, $comm, $rest) = $line =~ /^(\d+) \((.*)\) (.*)$/ or next;
		my @f = split ' ', $rest;
		# f[1]: ppid; f[6]: flags (PF_KTHREAD 0x00200000); f[11], f[12]: utime, stime
		next if $pid == 2 || $f[1] == 2 || ($f[6] & 0x00200000) || $ours{$comm};
		$cpu{$pid} = [ $comm, $f[11] + $f[12] ];
	}
	return \%cpu;
}
sub weather_start
{
	my ($total, $steal) = cpu_totals();
	my ($dirty, $writeback) = dirty_kb();
	%weather_start = (time => Time::HiRes::time, total => $total, steal => $steal, foreign => foreign_cpu(),
		dirty => $dirty, writeback => $writeback);
	return;
}
sub weather_now
{
	return map { '' } @weather_cols unless %weather_start;
	my ($total, $steal) = cpu_totals();
	my ($dirty, $writeback) = dirty_kb();
	my $ticks = $total - $weather_start{total};
	my $now = foreign_cpu();
	my (%by_comm, $foreign);
	for my $pid (keys %$now)
	{
		my $before = $weather_start{foreign}{$pid} or next;
		my $used = $now->{$pid}[1] - $before->[1];
		next unless $used > 0;
		$foreign += $used;
		$by_comm{ $now->{$pid}[0] } += $used;
	}
	my ($top) = sort { $by_comm{$b} <=> $by_comm{$a} } keys %by_comm;
	# (processes' ticks and the machine's are counted apart: over a run of
	# a few ticks the processes' may come out above the machine's, which
	# they cannot be; a run shorter than a tick, 10 ms, saw no tick of
	# either: 0.0)
	my $pct = sub { $ticks > 0 ? sprintf('%.1f', List::Util::min(100, 100 * $_[0] / $ticks)) : '0.0' };
	return ($pct->($steal - $weather_start{steal}), $pct->($foreign // 0),
		$top ? "$top " . $pct->($by_comm{$top}) . '%' : '',
		$weather_start{dirty}, $weather_start{writeback}, $dirty, $writeback);
}

# The machine's dirty and writeback pages, in kB (/proc/meminfo).
sub dirty_kb
{
	open my $fh, '<', '/proc/meminfo' or return (0, 0);
	my %m = map { /^(\w+):\s+(\d+)/ ? ($1 => $2) : () } <$fh>;
	return ($m{Dirty} // 0, $m{Writeback} // 0);
}

1;
