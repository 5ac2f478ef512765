# A file run's starting state, the same for every run (settle_fs).
package Uringprobe::BenchScript::Settle;

use strict;
use warnings;
use Exporter 'import';
use IPC::Run ();
use Time::HiRes ();
use Uringprobe::BenchScript::Weather;

our @EXPORT = qw(settle_fs @settle_cols);

# A file run's starting state, the same for every run: before its clock
# starts, the scratch filesystem holding DIR is synced (syncfs, as `sync
# -f`) and the machine's dirty and writeback pages (/proc/meminfo) brought
# back to their baseline — what a full `sync` left when the benchmark's
# first run began — within 8 MiB or 10%: if they are above it, everything
# is synced (`sync`), and then they are waited for, at most
# $settle_timeout seconds (each sync at most $sync_timeout). So no run
# pays for the writeback of the one before, and every run starts with the
# page cache warm and clean. Returns the columns @settle_cols: start_state
# ("settled", or why not: the sync failed or did not return, or how far
# above the baseline the dirty pages stayed), settle_ms, and Dirty and
# Writeback in kB as the run starts.
our @settle_cols = qw(start_state settle_ms dirty_kb writeback_kb);
my $settle_timeout = 20;
my $dirty_baseline_kb;
# sync(1) with @args; '' or why it failed. A sync that has not returned
# within $sync_timeout seconds (a device that stopped answering) is left
# to finish on its own — a process waiting on writeback cannot be killed —
# and the run goes on, marked not settled.
my $sync_timeout = 120;
sub sync_failure
{
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start([ 'sync', @_ ], '<', \undef, '>', \$out, '2>', \$err);
	my $t0 = Time::HiRes::time;
	while ($h->pumpable && Time::HiRes::time - $t0 < $sync_timeout)
	{
		$h->pump_nb;
		Time::HiRes::sleep(0.01);
	}
	return "sync @_ did not return within $sync_timeout s" if $h->pumpable;
	$h->finish;
	return '' if $h->result == 0;
	$err =~ s/\s+/ /g;
	return "sync @_ failed: $err";
}
sub settle_fs
{
	my ($dir) = @_;
	my $t0 = Time::HiRes::time;
	$dirty_baseline_kb //= do { sync_failure(); my ($d, $w) = dirty_kb(); $d + $w };
	my $limit = $dirty_baseline_kb + ($dirty_baseline_kb / 10 > 8192 ? $dirty_baseline_kb / 10 : 8192);
	my $failed = sync_failure('-f', $dir);
	my ($dirty, $writeback) = dirty_kb();
	if ($dirty + $writeback > $limit)
	{
		$failed ||= sync_failure();
		($dirty, $writeback) = dirty_kb();
	}
	while ($dirty + $writeback > $limit && Time::HiRes::time - $t0 < $settle_timeout)
	{
		Time::HiRes::sleep(0.05);
		($dirty, $writeback) = dirty_kb();
	}
	my $state = $failed
	  || ($dirty + $writeback > $limit
		? sprintf('not settled: %d kB dirty and under writeback after %d s (baseline %d kB)',
			$dirty + $writeback, $settle_timeout, $dirty_baseline_kb)
		: 'settled');
	# the run's weather from here, settled
	weather_start();
	return { start_state => $state, settle_ms => sprintf('%.0f', 1000 * (Time::HiRes::time - $t0)),
		dirty_kb => $dirty, writeback_kb => $writeback };
}
1;
