# uringprobe_advise() forced into each of its advices by the cluster it runs
# in, and held to the evidence it prints:
#  - ulimit -n too small for io_uring at the cluster's max_connections: the
#    advice names the exact figure (rings + max_files_per_process), and a
#    server started under exactly that limit with io_method=io_uring starts;
#  - the separate flavour at max_connections 950: the ring layout advice is
#    one region, both layouts' fork cost measured side by side at the
#    server's ring count;
#  - the combined flavour: one region kept;
#  - a tablespace on XFS, 4 sessions: a file_extend_method advice of the
#    rule's, quoting the evidence's ratio, and both sizings' switches
#    counted;
#  - a budget too small, a tablespace directory the server cannot read, a
#    caller without pg_write_server_files: rows that say what was not
#    measured and why, confidence low, never a figure;
#  - statement_timeout shorter than the budget, a cancel: answered in time
#    (rounds begun in half of it, one running at 80% of it stopped), or
#    stopped with nothing left in the temporary-file directories;
#  - where it writes: nothing into the data directory until a superuser
#    lists the tablespace in uringprobe.advise_tablespaces, a directory of
#    uringprobe.scratch_dirs on the tablespace's filesystem otherwise, and
#    else no file, the row naming both settings.
# Assertions are about what the advice says given its figures, never about
# the figures themselves, and never about a decision taken from a live
# timing: each rule is tested on made-up figures in
# test/engine/advise_rules_test.cpp. The calls whose rows must be measured
# get the largest budget (60 s): a round that fits a small budget on a
# quiet machine may not on a busy one, and the rounds end anyway once each
# measurement has the rounds it wants; the budget with no room is
# advise_test.cpp's, on a clock the test moves.
use strict;
use warnings;
use Cwd ();
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();
use Uringprobe::AdviseCall;
use Uringprobe::Cluster;

my %hard = (nofile => hard_limit('nofile'), memlock => hard_limit('memlock'));

# Rows of uringprobe_advise($args) in $node: [hash per row], and by row_key
# (setting, and its tablespace: "file_extend_method (pg_default)").
# $set: SET statements run first.
sub advise
{
	my ($node, $args, $role, $set) = @_;
	my @rows = advise_rows($node, $args, ($set // '') . ($role ? "SET ROLE $role; " : ''));
	return (\@rows, { map { row_key($_) => $_ } @rows });
}

# Every row graded and decided as data (an action of the five, a value
# where it sets or keeps one); a row whose figures were not measured says
# what in not_measured, and is low.
sub rows_are_honest
{
	my ($rows, $cell) = @_;
	my @bad = grep { $_->{confidence} !~ /^(high|medium|low)$/ } @$rows;
	is(scalar @bad, 0, "$cell: every row has a confidence");
	is(join(', ', map { row_key($_) } grep { $_->{action} !~ /^(?:set|keep|raise|lower|none)$/
		  || ($_->{action} ne 'none' && $_->{value} eq '') } @$rows), '', "$cell: every row an action, with its value");
	is(join(', ', map { row_key($_) } grep { $_->{decided_by} eq '' && $_->{not_measured} eq '' && $_->{action} ne 'none' } @$rows),
		'', "$cell: every row decided by a measurement or a count, or says what was not measured");
	my @guess = grep { $_->{evidence} =~ /^not measured: / || $_->{cost} =~ /^not measured/ } @$rows;
	is(join(', ', map { row_key($_) . ": $_->{confidence}" } grep { $_->{confidence} ne 'low' } @guess),
		'', "$cell: rows whose figures were not measured are low");
}

# The io_method advice is one of its two values, with the layout's cost
# measured per connection ("..., 83% of a bare fork (one region)").
sub io_method_measured
{
	my ($row, $cell) = @_;
	like($row->{value}, qr/^(?:worker|io_uring)$/, "$cell: io_method is worker or io_uring");
	like($row->{cost}, qr/ per connection, -?\d+% of a bare fork \((?:one region|separate mappings per ring)\)$/,
		"$cell: io_method's cost is measured per connection ($row->{cost})");
}

my @servers = servers();
my ($xfs) = grep { $_->{name} eq 'xfs' && $_->{status} eq 'ok' } scratch_filesystems();

for my $server (@servers)
{
	my $on18 = $server->{major} >= 18 ? '' : 'on PostgreSQL 18: ';

	# ulimit -n too small for io_uring: the exact figure, and it suffices.
	{
		my $cell = "$server->{name}, ulimit -n 512, max_connections 600";
		set_soft_limits(nofile => 512, memlock => $hard{memlock});
		my ($node) = start_cluster(server => $server, io_method => 'worker',
			name => "advise_nofile_$server->{name}",
			settings => [ 'max_connections = 600', 'shared_buffers = 16MB' ]);
		set_soft_limits(%hard);
		$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
		# PostgreSQL 18's ring count from this server's settings (the
		# formula t/003 holds against real postmasters; 16 autovacuum
		# worker slots where the server has no such setting), and a
		# descriptor per ring beside max_files_per_process.
		my %set = map { split /\|/ } split /\n/, $node->safe_psql('postgres',
			"SELECT name, setting FROM pg_settings WHERE name IN ('max_connections', 'autovacuum_worker_slots', "
			  . "'max_worker_processes', 'max_wal_senders', 'max_files_per_process')");
		my $need = $set{max_connections} + ($set{autovacuum_worker_slots} // 16) + $set{max_worker_processes}
		  + $set{max_wal_senders} + 8 + $set{max_files_per_process};
		# counted, not measured: no round is needed
		my ($rows, $by) = advise($node, "budget => '10 ms'");
		rows_are_honest($rows, $cell);
		is($by->{'io_method'}{advice}, ($on18 || 'keep ') . "io_method = worker until ulimit -n is at least $need",
			"$cell: io_uring would not start: worker until ulimit -n $need");
		is(join(' ', @{ $by->{'io_method'} }{qw(value decided_by)}), 'worker ring limits', "$cell: ... as data");
		is($by->{'io_method'}{confidence}, 'high', "$cell: counted, not guessed: high");
		like($by->{'io_method'}{evidence}, qr/EMFILE/, "$cell: the evidence names EMFILE");
		is($by->{'ulimit -n'}{current}, 512, "$cell: the server's own limit is read");
		like($by->{'ulimit -n'}{advice}, qr/^\Q$on18\Eulimit -n $need \(now short by \d+\) before io_method = io_uring$/,
			"$cell: the limit to set, exactly");
		is(join(' ', @{ $by->{'ulimit -n'} }{qw(action value scope)}), "raise $need os", "$cell: ... as data");
		$node->stop;

		next unless $server->{major} >= 18;
		set_soft_limits(nofile => $need, memlock => $hard{memlock});
		my ($io_uring, $started) = start_cluster(server => $server, io_method => 'io_uring',
			name => "advise_nofile_ok_$server->{name}",
			settings => [ 'max_connections = 600', 'shared_buffers = 16MB' ], fail_ok => 1);
		set_soft_limits(%hard);
		ok($started, "$cell: under ulimit -n $need io_method=io_uring starts");
		$io_uring->stop if $started;
	}
	next unless $server->{major} >= 18;

	# max_connections 950 under worker, deciding whether to switch: the
	# layout's measured fork cost. (Under io_uring the server's own rings
	# take the 8 MiB of RLIMIT_MEMLOCK a machine may give the cluster user,
	# and the backend could not create as many again to measure them.)
	my $combined = $server->{name} =~ /combined/;
	my $cell = "$server->{name}, worker, max_connections 950";
	my ($node) = start_cluster(server => $server, io_method => 'worker',
		name => "advise_$server->{name}",
		# (restart_after_crash: a backend is killed below)
		settings => [ 'max_connections = 950', 'shared_buffers = 16MB', 'restart_after_crash = on' ]);
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
	my $rings = environment($node)->{'pg18.io_uring.rings'}[0];

	# Nothing allowed: nothing written into the data directory (not even
	# base/pgsql_tmp made), and the row says what would allow it.
	my $temp_dir = $node->data_dir . '/base/pgsql_tmp';
	die "$temp_dir exists before advise ran\n" if -e $temp_dir;
	my ($rows, $by) = advise($node, "budget => '10 ms'");
	is($by->{'file_extend_method (pg_default)'}{evidence},
		"not measured: 'pg_default' is not in uringprobe.advise_tablespaces (none), "
		  . 'and no directory of uringprobe.scratch_dirs (none) is on its filesystem',
		"$cell: nothing listed: pg_default not measured, both settings named");
	ok(!-e $temp_dir, "$cell: nothing listed: no $temp_dir made");

	# A scratch directory on the data directory's filesystem stands for it.
	my $scratch = $node->basedir . '/advise_scratch';
	mkdir $scratch or die "mkdir $scratch: $!\n";
	$scratch = Cwd::abs_path($scratch);
	($rows, $by) = advise($node, "budget => '60 s', concurrency => 4", undef,
		"SET uringprobe.scratch_dirs = '/nonexistent, $scratch'; ");
	rows_are_honest($rows, $cell);
	like(join(' | ', map { row_key($_) } @$rows),
		qr/^io_method \| ring layout \| io_uring \| file_extend_method \(pg_default\) \| effective_io_concurrency \(pg_default\) \| maintenance_io_concurrency \(pg_default\) \| io_workers \| io_combine_limit \| io_max_combine_limit \| read_ahead_kb(?: \([\w-]+\))? \| ulimit -n \| ulimit -l \| budget$/,
		"$cell: a row per setting");
	# io_workers from the sessions' reads through the workers, as data
	my $w = $by->{io_workers};
	is(join(' ', @$w{qw(scope decided_by measured_in current)}), 'server reads through workers pg_default 3',
		"$cell: io_workers, now 3, decided by reads through workers on pg_default");
	like("$w->{action} $w->{value}", qr/^(?:keep 3|raise \d+|lower \d+)$/, "$cell: io_workers: a count");
	like($w->{evidence},
		qr/^cold random 8 kB reads of \d+ MB on tablespace pg_default \(\S+\) by 4 sessions each keeping \d+ in flight through a queue of 63, by workers, medians of \d+ rounds: 1: [\d.]+ MB\/s p99 \d+ us, \d+% by the sessions, [\d.]+ ms CPU\/MB, 2: .*; io_uring at depth \d+: \d+ MB\/s/,
		"$cell: io_workers: the curve of each count, its synchronous share and CPU, io_uring beside ($w->{evidence})");
	# io_combine_limit from reads of each size, io_max_combine_limit with it
	my $c = $by->{io_combine_limit};
	is(join(' ', @$c{qw(decided_by current)}), 'sequential reads 128kB', "$cell: io_combine_limit, now 128kB, decided by sequential reads");
	like("$c->{action} $c->{value}", qr/^(?:keep 128kB|raise \d+kB|lower \d+kB)$/, "$cell: io_combine_limit: a size");
	like($c->{evidence}, qr/: 32 kB x \d+: \d+ MB\/s, 64 kB x \d+: .* 1024 kB x \d+: \d+ MB\/s$/, "$cell: io_combine_limit: each size's reads");
	is($by->{io_max_combine_limit}{action}, (($c->{value} =~ /^(\d+)/)[0] > 128 ? 'raise' : 'keep'),
		"$cell: io_max_combine_limit raised only for a size beyond it");
	# read_ahead_kb of the device under the data directory, or none and why
	my ($ra) = grep { $_->{setting} eq 'read_ahead_kb' } @$rows;
	if ($ra->{scope_name} eq '')
	{
		is($ra->{action}, 'none', "$cell: read_ahead_kb: no block device, nothing advised");
		like($ra->{not_measured}, qr/no block device|no queue/, "$cell: read_ahead_kb: why");
	}
	else
	{
		is(join(' ', @$ra{qw(scope decided_by)}), 'os sequential reads', "$cell: read_ahead_kb of $ra->{scope_name}");
		like("$ra->{action} $ra->{value}", qr/^(?:keep $ra->{current}|raise \d+)$/, "$cell: read_ahead_kb: kept, or doubled");
	}
	# each read depth setting from the device's depth curve, as data
	for my $s (qw(effective_io_concurrency maintenance_io_concurrency))
	{
		my $d = $by->{"$s (pg_default)"};
		# (a change on the current io_method's curve waits where the
		# io_method row changes the method: kept, saying so)
		if ($d->{decided_by} eq '' && $d->{not_measured} =~ /^read depths under io_method = \w+: these were read as /)
		{
			is("$d->{action} $d->{value} $d->{confidence}", "keep $d->{current} low", "$cell: $s: waits for the new io_method");
			next;
		}
		is(join(' ', @$d{qw(scope decided_by current)}), 'tablespace read depths 16',
			"$cell: $s of pg_default, now the server's 16, decided by the read depths");
		like("$d->{action} $d->{value}", qr/^(?:keep|raise|lower) \d+$/, "$cell: $s: a depth");
		like($d->{advice},
			$d->{action} eq 'keep' ? qr/^keep \Q$s\E = 16 \(/ : qr/^ALTER TABLESPACE pg_default SET \(\Q$s\E = \Q$d->{value}\E\) \(/,
			"$cell: $s: the statement to run, or kept ($d->{advice})");
		like($d->{evidence}, qr/^cold random 8 kB reads of \d+ MB on tablespace pg_default \(\S+, (?:direct|buffered)[^)]*\) by depth, medians of \d+ rounds: 1: [\d.]+ MB\/s p99 \d+ us, 2: /,
			"$cell: $s: the curve it was decided on");
	}
	is($by->{'io_method'}{current}, 'worker', "$cell: the current io_method");
	io_method_measured($by->{'io_method'}, $cell);
	my ($measured) = $by->{'io_method'}{evidence} =~ /fork \+ exit of this process with (\d+) rings/;
	like($by->{'io_method'}{evidence},
		qr/^cold reads on tablespace pg_default \(\w+, sync [\d.]+ MB\/s\), MB\/s: io_uring \((\d+) in flight: effective_io_concurrency \d+; a backend may pin shared_buffers \d+ \/ \d+ processes = \d+ buffers, reads of io_combine_limit \d+ blocks; \d+ kB reads\) [\d.]+x worker \(3 threads\), 95% interval [\d.]+-[\d.]+, .*; starts: $rings rings/,
		"$cell: cold reads measured (io_uring as deep as the server's read streams may go, worker at io_workers), then $rings rings, and they would start");
	like($by->{'io_method'}{cost}, qr/^cold reads [\d.]+x worker's speed under io_uring on tablespace pg_default; [+-]?\d+ us /,
		"$cell: the cost quotes the read gain next to each connection's cost");
	# decided by the reads (the ratio the evidence quotes) or, where they
	# showed no gain, by them too; by the rings' cost where not measured
	# (where the data directory is in memory, the rings' cost)
	my ($gain) = $by->{'io_method'}{evidence} =~ /\) ([\d.]+)x worker \(/;
	if ($by->{'io_method'}{evidence} =~ /served from memory/)
	{
		is($by->{'io_method'}{decided_by}, 'fork cost', "$cell: reads from memory: io_method decided by the rings' cost");
		is(sprintf('%.2f', $by->{'io_method'}{ratio_lo} <= $by->{'io_method'}{ratio} ? 1 : 0), '1.00', "$cell: ... its ratio in its interval");
	}
	else
	{
		is($by->{'io_method'}{decided_by}, 'cold reads', "$cell: io_method decided by the cold reads");
		is(sprintf('%.2f', $by->{'io_method'}{ratio}), $gain, "$cell: ... their ratio, as the evidence says");
	}
	ok(defined $measured
		  && ($measured == $rings || $by->{'io_method'}{evidence} =~ /scaled to the server's $rings rings \(/),
		"$cell: the fork cost measured with as many rings, or scaled saying why ("
		  . ($measured // 'none') . ')');
	my $layout = $by->{'ring layout'};
	if ($combined)
	{
		is($layout->{current}, 'one region', "$cell: the rings are in one region");
		is($layout->{advice}, 'keep one region', "$cell: which is kept");
		is("$layout->{action} $layout->{value}", 'keep one region', "$cell: ... as data");
	}
	else
	{
		is($layout->{current}, 'separate', "$cell: separate mappings");
		like($layout->{evidence}, qr/^separate: \d+ mappings per ring/, "$cell: ... how many");
		is("$layout->{action} $layout->{value}", 'set one region', "$cell: one region to set");
		like($layout->{advice}, qr/^one region(: build PostgreSQL 18 against liburing 2\.7| needs a kernel)/,
			"$cell: the advice is one region");
		like($layout->{cost}, qr/per connection, -?\d+% of a bare fork, against .* in one region$/,
			"$cell: what each layout costs per connection, measured side by side");
	}
	like($by->{'file_extend_method (pg_default)'}{evidence}, qr/^\S+ at \Q$scratch\E, 4 sessions growing one \d+ MB file/,
		"$cell: the data directory's filesystem measured in the scratch directory on it");
	ok(!-e $temp_dir, "$cell: still no $temp_dir made");
	is(join(' ', scratch_files($scratch)), '', "$cell: no scratch file left in $scratch");

	# The caps the experiments' own functions are held to hold advise's
	# runs too, and the evidence names the cap that limited a run.
	($rows, $by) = advise($node, "budget => '60 s', concurrency => 4", undef,
		"SET uringprobe.scratch_dirs = '$scratch'; SET uringprobe.max_forks = 10; ");
	like($by->{'io_method'}{evidence}, qr/p50 of 10 forks a round \(limited by uringprobe\.max_forks 10\)/,
		"$cell: uringprobe.max_forks 10: 10 forks a round, said");
	($rows, $by) = advise($node, "budget => '60 s', concurrency => 4", undef,
		"SET uringprobe.scratch_dirs = '$scratch'; SET uringprobe.max_memory_mb = 1; ");
	like($by->{'file_extend_method (pg_default)'}{evidence},
		qr/^not measured: with write_data, sessions x 64 x block_size .* = 2 MiB exceeds uringprobe\.max_memory_mb \(1 MB\)/,
		"$cell: uringprobe.max_memory_mb 1: 4 sessions' pages (2 MiB) not held, the extension not measured, the cap named");
	like($by->{'io_method'}{evidence}, qr/uringprobe\.max_memory_mb 1 MB allows \d+ of the server's \d+ rings/,
		"$cell: ... nor the rings beyond it, the cap named");
	is(join(' ', scratch_files($scratch)), '', "$cell: no scratch file left in $scratch");

	if ($combined)
	{
		# Listed tablespaces measured in their temporary-file directories
		# from here on.
		$node->append_conf('postgresql.conf', "uringprobe.advise_tablespaces = 'pg_default, ts_xfs, ts_locked'");
		$node->reload;
		poll_until($node, "SELECT current_setting('uringprobe.advise_tablespaces', true) LIKE 'pg_default%'")
		  or die "the setting was not loaded\n";

		# file_extend_method on XFS at 4 sessions, a tablespace the server
		# cannot read, one not listed, a caller without pg_write_server_files.
	  SKIP:
		{
			skip 'no XFS scratch filesystem' . ($xfs ? ": $xfs->{status}" : ''), 10 unless $xfs;
			my $ts = "$xfs->{dir}/advise_ts";
			my $locked = "$xfs->{dir}/advise_locked";
			my $unlisted = "$xfs->{dir}/advise_unlisted";
			mkdir $_ or die "mkdir $_: $!\n" for ($ts, $locked, $unlisted);
			$node->safe_psql('postgres', "CREATE TABLESPACE ts_xfs LOCATION '$ts'");
			$node->safe_psql('postgres', "CREATE TABLESPACE ts_locked LOCATION '$locked'");
			$node->safe_psql('postgres', "CREATE TABLESPACE ts_unlisted LOCATION '$unlisted'");
			chmod 0, $locked;
			my ($rows, $by) = advise($node, "budget => '60 s', concurrency => 4");
			chmod 0700, $locked;
			rows_are_honest($rows, "$cell, XFS");
			my $x = $by->{'file_extend_method (ts_xfs)'};
			like($x->{evidence}, qr/^xfs at \S+advise_ts\S*, 4 sessions/, "$cell: the XFS tablespace, 4 sessions");
			my ($r, $lo, $hi) = map { sprintf('%.2f', $_) } @$x{qw(ratio ratio_lo ratio_hi)};
			like($x->{evidence}, qr{posix_fallocate / write_zeros \Q$r\E \(\Q$lo-$hi\E},
				"$cell: the ratio decided on, as the evidence quotes it");
			is($x->{decided_by}, 'extension runs', "$cell: decided by the extension runs");
			like($x->{value}, qr/^(?:write_zeros|posix_fallocate)$/, "$cell: a value of the two");
			# Which of its forms the rule takes from a ratio is
			# advise_rules_test.cpp's, on made-up figures; here the advice
			# is one of them, and a kept value quotes the same figures.
			like($x->{advice},
				qr/^(?:file_extend_method = (?:write_zeros|posix_fallocate)|keep file_extend_method = posix_fallocate \((?:the two within 5% of each other: \Q$r\E|no difference beyond 5% shown: \Q$r\E|write_zeros \Q$r\Ex as fast in extension runs), interval \Q$lo-$hi\E\b.*\))$/,
				"$cell: the advice is one of the rule's, with the evidence's figures ($x->{advice})");
			# both sizings' switches counted in the same runs (which alternates
			# more is test/engine/extend_sizing_test.cpp's, with waiters held)
			like($x->{evidence}, qr/\d+ fallocate<->zeros switches a run/, "$cell: the switches counted");
			like($x->{evidence}, qr/alternates: .*?, \d+ switches a run/, "$cell: ... and sized by waiters alone");
			my $l = $by->{'file_extend_method (ts_locked)'};
			like($l->{evidence}, qr/^not measured: .*Permission denied/, "$cell: an unreadable tablespace: why");
			is($l->{confidence}, 'low', "$cell: and low");
			like($by->{'file_extend_method (ts_unlisted)'}{evidence},
				qr/^not measured: 'ts_unlisted' is not in uringprobe.advise_tablespaces \(pg_default, ts_xfs, ts_locked\), and no directory of uringprobe.scratch_dirs \(none\) is on its filesystem$/,
				"$cell: a tablespace not listed, no scratch directory on its filesystem: not measured");
			ok(!-e (glob("$unlisted/PG_*"))[0] . '/pgsql_tmp', "$cell: nothing made in it");
			$node->safe_psql('postgres', 'DROP TABLESPACE ts_xfs; DROP TABLESPACE ts_locked; DROP TABLESPACE ts_unlisted');
		}

		$node->safe_psql('postgres', 'CREATE ROLE advise_program IN ROLE pg_execute_server_program');
		($rows, $by) = advise($node, "budget => '60 s'", 'advise_program');
		like($by->{'file_extend_method (pg_default)'}{evidence},
			qr/^not measured: the caller lacks pg_write_server_files/, "$cell: no file written without the role");
		unlike($by->{'io_method'}{cost}, qr/not measured/, "$cell: the rings still measured");

		# A budget with no room for a round: nothing measured, all said.
		($rows, $by) = advise($node, "budget => '10 ms'");
		rows_are_honest($rows, "$cell, 10 ms");
		is($by->{'io_method'}{confidence}, 'low', "$cell, 10 ms: io_method unmeasured: low");
		is($by->{'io_method'}{advice}, 'keep io_method = worker', "$cell, 10 ms: ... and the current value kept");
		like($by->{'io_method'}{cost}, qr/^not measured/, "$cell, 10 ms: no figure for its cost");
		like($by->{'file_extend_method (pg_default)'}{evidence}, qr/^not measured: the budget had no room/,
			"$cell, 10 ms: the extension says why it was not measured");
		like($by->{budget}{advice}, qr/^budget => '\d+ s' for 5 rounds of each$/,
			"$cell, 10 ms: the budget that would do");

		# statement_timeout shorter than the budget: answered in time, the
		# rounds begun in half of it, one still running at 80% stopped
		# (a round stopped at the deadline is advise_test.cpp's, on a clock
		# the test moves).
		my $got = $node->safe_psql('postgres',
			"SET statement_timeout = '3s'; SELECT evidence FROM uringprobe_advise(budget => '60 s') "
			  . "WHERE topic = 'budget'");
		like($got, qr/\(lowered from 60\.0 s to 1\.50 s, half of statement_timeout; a round still running at 2\.40 s is stopped\)/,
			"$cell: statement_timeout 3 s: the rounds end in time");

		# A cancel: stopped, nothing left in the temporary-file directory.
		my $bg = $node->background_psql('postgres', on_error_stop => 0);
		my $pid = $bg->query_safe('SELECT pg_backend_pid()');
		start_long_run($node, $bg, $pid, "uringprobe_advise(budget => '120 s')", 1);
		$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
		$bg->query('SELECT 1');
		like($bg->{stderr}, qr/canceling statement due to user request/, "$cell: advise cancelled");
		$bg->quit;
		my $scratch_in_tmp = sub {
			opendir my $dh, $temp_dir or die "$temp_dir: $!\n";
			return join(' ', grep { /uringprobe-/ } readdir $dh);
		};
		is($scratch_in_tmp->(), '', "$cell: no scratch file left in $temp_dir");

		# Killed (-9) mid-run, the module not preloaded: its scratch file
		# is named as PostgreSQL's temporary files are, so the server's own
		# clean-up as it restarts after the crash removes it
		# (remove_temp_files_after_crash, on by default).
		$bg = $node->background_psql('postgres', on_error_stop => 0);
		$pid = $bg->query_safe('SELECT pg_backend_pid()');
		start_long_run($node, $bg, $pid, "uringprobe_advise(budget => '120 s')", 0.1);
		for (1 .. 300) { last if $scratch_in_tmp->() ne ''; Time::HiRes::usleep(20_000); }
		like($scratch_in_tmp->(), qr/^pgsql_tmp\.uringprobe-/, "$cell: advise writes a pgsql_tmp-named file");
		kill 'KILL', $pid;
		eval { $bg->quit };
		# (PostgreSQL removes its temporary files as it restarts after the crash)
		for (1 .. 1500) { last if $scratch_in_tmp->() eq ''; Time::HiRes::usleep(20_000); }
		is($scratch_in_tmp->(), '', "$cell: killed mid-run, its file removed by the server's crash clean-up");
		poll_until($node, 'SELECT true') or die "the server did not recover\n";
	}
	$node->stop;
}

done_testing();
