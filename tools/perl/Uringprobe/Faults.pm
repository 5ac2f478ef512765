# The faults the tests inject, each with how, what must hold and where it
# is tested, and which of make test's assertions count for it: the table in
# docs/testing.md (t/014 holds the two to each other) and the one
# tools/test-summary prints at the end of make test, counted from the
# "test" lines of its counts file (Uringprobe::Counts).
#
# A fault's `count` is a list of [suite, file, name] patterns; an assertion
# counts for it when all three match (suite and file anchored, the name
# searched). `cases`: the fault's cases are the error rows of expected/.
package Uringprobe::Faults;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT_OK = qw(faults count_faults bad_input_cases);

my $tap = qr/tap(?:-lane[23])?|module-sanitizers/;

my @faults = (
	# every SQL function's own regression file calls it with bad input
	# (the files that are no function's: error_of, permissions,
	# result_columns)
	{
		fault => 'bad input: every SQL function',
		injected => "its sql/<name>.sql, through regress_error_of(): NULLs, zero, negatives, values past each cap, wrong names, types and combinations",
		holds => 'one error with its SQLSTATE and a message naming the argument and the allowed values; the session goes on',
		tests => 't/001 (pg_regress, every server and io_method)',
		count => [ [ $tap, qr{t/001_regress\.pl}, qr/: pg_regress (?!(?:error_of|permissions|result_columns)$)\w+$/ ] ],
		cases => 1,
	},
	{
		fault => 'bad input: uringprobe-cli',
		injected => 'each command with options out of range, unknown or missing',
		holds => 'a usage error (exit 2) saying why, with the usage, and no result printed',
		tests => 't/004',
		count => [ [ $tap, qr{t/004_cli\.pl}, qr/: '[^']*' (?:is a usage error|says why|prints no result|shows the usage)/ ] ],
	},
	# every experiment's long runs (its entry in src/engine/registry)
	{
		fault => 'cancel and terminate: every experiment',
		injected => 'pg_cancel_backend() and pg_terminate_backend() in the middle of each long run',
		holds => 'cancelled: 57014, the backend holds what it held (fds, rings, mappings, threads, children), no scratch file, the next call runs; terminated: the backend and its children gone, the server goes on',
		tests => 't/009 (also under the sanitizers)',
		count => [ [ $tap, qr{t/009_cancel_terminate\.pl},
			qr/^[^:]+: [^:]+: (?:cancelled$|fds, io_uring fds and mappings|no scratch file (?:of it )?left$|the next call runs$|terminated, the backend|the server goes on$)/ ] ],
	},
	{
		fault => 'statement_timeout mid-call',
		injected => 'a statement_timeout shorter than the call',
		holds => '57014 in time, the backend as it was; advise shortens its budget to half of it, stops a round still running at 80% of it and says so',
		tests => 't/005-t/007, t/016, sql/advise.sql',
		count => [ [ $tap, qr{t/0\d\d_\w+\.pl}, qr/statement_timeout/ ] ],
	},
	{
		fault => 'postmaster killed (-9)',
		injected => 'kill -9 of the postmaster during each experiment',
		holds => 'the backend and its children exit within seconds, no scratch file left, the server starts again',
		tests => 't/019',
		count => [ [ $tap, qr{t/019_postgresql_stops\.pl},
			qr/: [^:]+: (?:postmaster killed|\.\.\. the server starts again|\.\.\. no scratch file of it left)/ ] ],
	},
	{
		fault => 'backend killed (-9) mid-experiment',
		injected => 'kill -9 of the backend during each experiment, the server restarting after the crash',
		holds => 'its children exit with it, the crash restart removes its scratch file (preloaded; else the next call or PostgreSQL\'s own pgsql_tmp clean-up), the next call runs',
		tests => 't/023, t/006, t/016',
		count => [
			[ $tap, qr{t/023_backend_killed\.pl}, qr/./ ],
			[ $tap, qr{t/006_extend\.pl}, qr/crash restart|a server start \(preloaded\)|a stale file/ ],
			[ $tap, qr{t/016_advise\.pl}, qr/killed mid-run|advise writes a pgsql_tmp-named file/ ] ],
	},
	{
		fault => 'PostgreSQL\'s other interrupts',
		injected => 'transaction_timeout (17+), the client killed with client_connection_check_interval, a recovery conflict on a standby, DROP DATABASE\'s barrier, pg_log_backend_memory_contexts()',
		holds => 'the call ends with the server\'s own SQLSTATE (25P04, 40001) or the backend exits; a barrier and a memory-context log are served while the call goes on',
		tests => 't/019',
		count => [ [ $tap, qr{t/019_postgresql_stops\.pl},
			qr/transaction_timeout|client killed|standby|conflict|DROP DATABASE|memory contexts|\.\.\. and the call goes on|\.\.\. until cancelled|\.\.\. with \d+P\d+|\.\.\. and the server goes on/ ] ],
	},
	{
		fault => 'every operation completes at once',
		injected => 'a stop while no operation ever waits: reads of a warm page cache (io_uring, workers, sync), extensions of a tmpfs file, no-ops, cached reads, self-written events, forks',
		holds => 'the stop rule is still asked every 2 ms: a call of minutes ends within 5 s of statement_timeout (its latency noted), the backend as it was, no scratch file',
		tests => 't/027, engine (Reads, Completions)',
		count => [
			[ $tap, qr{t/027_stop_latency\.pl}, qr/./ ],
			[ qr/engine/, qr{test/engine}, qr/^(?:Reads\.WarmReadsThatCompleteAtOnceStillStop|Completions\.StopsWithinASecond)$/ ] ],
	},
	{
		fault => 'a recovery conflict after a served interrupt',
		injected => 'on a standby (max_standby_streaming_delay = 1s), a call that served a client check (client_connection_check_interval = 1s) reads a table the primary drops',
		holds => 'the lock conflict ends the call with 40001 (an interrupt the served flags do not explain always stops the run)',
		tests => 't/019',
		count => [ [ $tap, qr{t/019_postgresql_stops\.pl}, qr/a lock conflict after a served client check|: \.\.\. with 40001/ ] ],
	},
	{
		fault => 'a device that does not complete, a stop rule that fails',
		injected => 'an operation the kernel never gives back, a write into a pipe nobody reads (as to a hung device), io-wq workers that stay, the stop rule throwing mid-run',
		holds => 'a ring waits 100 ms at a time and cancels on a stop; what is not reaped within 500 ms keeps its buffer for the life of the process (counted); a stop does not wait for io-wq workers; a failing stop rule stops the sessions before its error returns',
		tests => 'engine (Owners, Extend, Completions)',
		count => [ [ qr/engine/, qr{test/engine},
			qr/^(?:Owners\.RingKeepsLentMemoryUntilReaped|Extend\.AWriteThatNeverCompletesStillStops|Extend\.AStopRuleThatFailsStopsTheSessions|Completions\.StopsWithinASecond)$/ ] ],
	},
	{
		fault => 'peer process killed or stopped',
		injected => 'kill -9 or SIGSTOP of the process an experiment waits for (events, completions)',
		holds => 'killed: one error saying the peer exited, the backend as it was; stopped: cancel still served within the bounded wait',
		tests => 't/009, engine (Events, Completions)',
		count => [
			[ $tap, qr{t/009_cancel_terminate\.pl}, qr/its peer (?:killed|stopped)|: \.\.\. (?:the backend as it was|and the next call runs)|with a peer process: one child/ ],
			[ qr/engine/, qr{test/engine}, qr/^(?:Events\.APeerThat|Completions\.ASenderThat)/ ] ],
	},
	{
		fault => 'ENOSPC',
		injected => 'a full filesystem under uringprobe_extend() (fallocate and written zeros)',
		holds => '53100 with a hint naming the filesystem, the session goes on, no file left',
		tests => 't/006, engine',
		count => [ [ $tap, qr{t/006_extend\.pl}, qr/ENOSPC/ ], [ qr/engine/, qr{test/engine}, qr/Enospc/ ] ],
	},
	{
		fault => 'EMFILE (RLIMIT_NOFILE)',
		injected => 'a server started under a low ulimit -n; more rings, files or pipes than descriptors',
		holds => 'one error whose hint names RLIMIT_NOFILE, the backend as it was; the environment report and advise give the exact limit io_uring needs, and a server started at it starts',
		tests => 't/010, t/003, t/016',
		count => [ [ $tap, qr{t/0(?:10_limits|03_environment_limits|16_advise)\.pl}, qr/ulimit -n|RLIMIT_NOFILE|EMFILE/ ] ],
	},
	{
		fault => 'ENOMEM: RLIMIT_MEMLOCK and the memory caps',
		injected => 'a server under a low ulimit -l; rings, depths and data beyond uringprobe.max_memory_mb',
		holds => 'one error whose hint names RLIMIT_MEMLOCK only where ring memory is charged to it, or the setting and the bytes; the backend as it was',
		tests => 't/010, t/005, engine',
		count => [
			[ $tap, qr{t/0(?:10_limits|05_rings)\.pl}, qr/ulimit -l|RLIMIT_MEMLOCK|max_memory_mb/ ],
			[ qr/engine/, qr{test/engine}, qr/Memlock|Enomem|RingMemoryIsCapped/ ] ],
	},
	{
		fault => 'io_uring refused (seccomp)',
		injected => 'a seccomp filter answering EPERM or ENOSYS to the io_uring calls (test/refuse-io-uring.c), as container runtimes do',
		holds => 'the environment report names the filter; every io_uring experiment 42501 with a hint naming the cause; advise says worker, naming it; the host unchanged',
		tests => 't/021, engine (Refusal)',
		count => [ [ $tap, qr{t/021_io_uring_refused\.pl}, qr/./ ], [ qr/engine/, qr{test/engine}, qr/^Refusal\.(?!Memlock)/ ] ],
	},
	{
		fault => 'io_uring refused (kernel.io_uring_disabled)',
		injected => 'kernel.io_uring_disabled = 2 on the host, held by sysctl_hold (only make test-sysctl)',
		holds => 'the same as under seccomp, the cause named being the sysctl; the value put back however the run ends',
		tests => 't/host_sysctl (make test-sysctl), t/020',
		count => [ [ qr/host-sysctl/, qr{t/host_sysctl/.*}, qr/./ ], [ $tap, qr{t/020_with_sysctl\.pl}, qr/^(?!state[ :])/ ] ],
	},
	{
		fault => 'symlinks planted and swapped',
		injected => 'links in and above the scratch directory, at a scratch file\'s own name, and a directory swapped for a link while sessions run',
		holds => 'never followed: refused with a hint (42501/EEXIST), nothing outside touched, planted links left to their owner',
		tests => 't/012, engine (ScratchDir)',
		count => [ [ $tap, qr{t/012_confinement\.pl}, qr/./ ],
			[ qr/engine/, qr{test/engine}, qr/^ScratchDir\.(?:Symlinked|Swapping|Planted)/ ] ],
	},
	{
		fault => 'the cluster user hostile to root',
		injected => 'make bench as root with a benchmark script of the cluster user\'s that plants links to a root-owned canary, regular files under the names of root\'s own files (a report.list naming a root-only secret by a path out of the directory, a commands.sh), a storage.parts in its scratch directory telling root to write the canary and end a process of root\'s, a fifo and a gnuplot program in a TSV',
		holds => 'the canary and the process untouched, the secret in no report, the commands root\'s own, the program never run, the run fails naming each refused file',
		tests => 'root-safety (tools/check-root-safety)',
		count => [ [ qr/root-safety/, qr{tools/check-root-safety}, qr/canary|decoy|secret|commands|gnuplot|^the run / ] ],
	},
	{
		fault => 'what root imports, steered',
		injected => 'tools/import-results given a link on the way (tmp_check/ to a root-only directory, as above PostgreSQL 15\'s log/), a hard link to a root-only file, sparse files past its byte cap and more files than its file cap',
		holds => 'nothing through the link, not the hard link, no more bytes or files than the caps, each refused by name (exit 3)',
		tests => 'root-safety (tools/check-root-safety)',
		count => [ [ qr/root-safety/, qr{tools/check-root-safety}, qr/^import-results: / ] ],
	},
	{
		fault => 'a mount left inside the scratch directory',
		injected => 'a tmpfs mounted four levels down in tools/scratch-fs\'s directory, removed by root and by the cluster user (who cannot unmount it)',
		holds => 'root unmounts it first; the cluster user\'s call fails naming it and removes nothing: never rm through a mount',
		tests => 'root-safety (tools/check-root-safety)',
		count => [ [ qr/root-safety/, qr{tools/check-root-safety}, qr/scratch-fs|^\.\.\. / ] ],
	},
	{
		fault => 'storage that makes you wait, interrupted while made',
		injected => 'tools/storage up (nbdkit, nbdfuse, loop devices, XFS, a cgroup) stopped by SIGINT once each part existed; taken down directly and through scratch-fs down; a process of someone else\'s named like its nbdfuse',
		holds => 'down leaves no mount, loop device, nbdkit or nbdfuse process or cgroup, and puts read_ahead_kb back as it was; it ends only the processes it started, by the pid and start time it recorded',
		tests => 'storage (tools/check-storage, as root)',
		count => [ [ qr/^storage$/, qr{tools/check-storage}, qr/^(?!scratch-fs down, a file there|\.\.\. )/ ] ],
	},
	{
		fault => 'the cluster user\'s storage directory cannot be removed',
		injected => 'a file in the storage kind disk\'s directory (the cluster user\'s) that root cannot remove (made immutable: a user writing into it as root removes it does the same to one pass of rm)',
		holds => 'scratch-fs down still takes every mount down, keeps the directory and exits non-zero naming what is left; the next down removes it',
		tests => 'storage (tools/check-storage, as root)',
		count => [ [ qr/^storage$/, qr{tools/check-storage}, qr/^scratch-fs down, a file there|^\.\.\. / ] ],
	},
	{
		fault => 'two runs started in the same second',
		injected => 'the results names of the coming seconds already reserved by other runs',
		holds => 'the run takes the next free name (its time with -2), never another run\'s directory',
		tests => 't/018',
		count => [ [ $tap, qr{t/018_bench_baseline_refusals\.pl}, qr/reserved by another run|other runs reserved/ ] ],
	},
	{
		fault => 'Ctrl-C of make bench',
		injected => 'TERM to the run\'s process group while setting up, in the first benchmark, in a later one, while the report is written; a broken part of the driver',
		holds => 'exit 130; what was measured kept in a results directory named ...-failed with the reason (nothing before the first cell); no process, stage or reserved name left',
		tests => 't/018',
		count => [ [ $tap, qr{t/018_bench_baseline_refusals\.pl}, qr/interrupted|broken driver|a driver that breaks/ ] ],
	},
	{
		fault => 'Ctrl-C of uringprobe-cli',
		injected => 'SIGINT to the CLI in the middle of a run',
		holds => 'exit 130, its table says stopped, no child or scratch file left',
		tests => 't/004',
		count => [ [ $tap, qr{t/004_cli\.pl}, qr/interrupted/ ] ],
	},
	{
		fault => 'error text cut mid-character',
		injected => 'an argument of 600 two-byte characters after an even and an odd prefix, a LATIN1 client of a UTF8 database',
		holds => 'the error keeps its SQLSTATE (22023), its text cut at a character\'s end',
		tests => 't/022',
		count => [ [ $tap, qr{t/022_error_text\.pl}, qr/./ ] ],
	},
	{
		fault => 'load: every experiment at once, sessions stopped',
		injected => 'make soak for 3 s on every server and io_method: 8 pgbench clients, sessions cancelled and terminated midway',
		holds => 'the postmaster\'s fds, rings, mappings and processes as before, no error but the stops (by SQLSTATE), a witness backend\'s RSS flat',
		tests => 't/013',
		count => [ [ $tap, qr{t/013_soak\.pl}, qr/./ ] ],
	},
	{
		fault => 'sysctl_hold\'s state planted by another user',
		injected => 'a saved 0 and a lock linked to a canary in a directory others can write (as /run/lock), the state directory a link or inside a directory others can write, a saved value that is not a number',
		holds => 'refused before anything is read or written, saying why: the sysctl and the canary untouched, the command not run; the state kept in a directory of root\'s alone (/run/uringprobe, made 0700), values read back only as numbers',
		tests => 't/020',
		count => [ [ $tap, qr{t/020_with_sysctl\.pl}, qr/^state[ :]/ ] ],
	},
	{
		fault => 'the cluster user hostile to make test',
		injected => 'make test\'s own steps as root (tools/test-lanes.sh): links to root-owned canaries where the tiny bench\'s log and results once were in the cluster user\'s suite, bench.log linked to a secret while the bench runs, a suite whose test forges another suite\'s counts and rewrites root\'s, sanitizer reports that are a link to the secret, a fifo and a name that splits into a glob',
		holds => 'the canaries untouched, nothing of the secret printed; root\'s log, results and counts in directories only root writes, the cluster user reading them; a suite\'s counts taken for that suite alone; every planted report named, the link and the fifo not taken',
		tests => 'root-lanes (tools/check-test-lanes)',
		count => [ [ qr/root-lanes/, qr{tools/check-test-lanes}, qr/./ ] ],
	},
	{
		fault => 'a cap or a check that one path skipped',
		injected => 'uringprobe.max_memory_mb = 1 against completions\' and events\' buffers and rings and extend\'s pages a byte over; a 16 GiB file read in 4 KiB pieces; advise under max_forks and max_memory_mb; EXECUTE on uringprobe_extend() granted to a role without pg_write_server_files; uringprobe_environment() as pg_monitor',
		holds => 'every call held to every cap, counted to the byte, the refusal naming the setting; no list of pieces held; advise\'s evidence names the cap that limited or stopped a run; extend refused (42501); a monitoring role\'s reading makes no ring, its rows saying not probed and why, and leaves the backend\'s io_uring fds, mappings and threads as they were',
		tests => 't/001 (bad input, permissions), t/016, engine',
		count => [
			[ $tap, qr{t/016_advise\.pl}, qr/uringprobe\.max_(?:forks|memory_mb)/ ],
			[ qr/engine/, qr{test/engine},
				qr/WithinMaxMemory|CountedExactlyAgainstMaxMemory|MemoryIsCheckedToTheByte|HoldsNoListOfItsPieces|ReadsWithinTheCapsAndSaySo|WithoutTheProbeMakesNoRing/ ] ],
	},
	{
		fault => 'no ring to probe; inputs taken that say nothing',
		injected => 'io_uring refused by a seccomp filter on each PostgreSQL 18 flavour; advice rules fed 2 rounds; flags \'sqpoll,sqpoll\' and \',\'; dir with op nop; --depth 0x10, --budget 0x10; an infinite budget',
		holds => 'the ring layout the build would use, said as expected, with why no ring could be made, the kernel\'s setup flags unknown, not refused; confidence low under 3 rounds; each refused naming the parameter (uringprobe: prefix); one number rule for every CLI option',
		tests => 't/021, t/004, t/001 (completions, advise), engine',
		count => [
			[ $tap, qr{t/021_io_uring_refused\.pl}, qr/layout is the build's|why no ring could be made|setup flags are unknown/ ],
			[ $tap, qr{t/004_cli\.pl}, qr/0x10|1e1|'inf'|named twice|empty item|dir applies/ ],
			[ qr/engine/, qr{test/engine},
				qr/^(?:AdviseRules\.(?:IoMethodFromFewerThanThreeRoundsIsLow|NoRingTheLayoutIsTheBuildsAndTheFlagsUnknown)|Completions\.(?:SetupFlagsRefuseRepeatsAndEmptyItems|DirOnlyWithRead))$/ ] ],
	},
);

sub faults { return @faults; }

# The error rows of the expected files in $dir (expected/): one per case.
sub bad_input_cases
{
	my ($dir) = @_;
	my $n = 0;
	for my $file (glob "$dir/*.out")
	{
		open my $fh, '<', $file or next;
		$n += grep { /(?:^ |\| )[0-9A-Z]{5}: / || /^ERROR:/ } <$fh>;
	}
	return $n;
}

# count_faults(COUNTS_FILE): for each fault, {passed, failed, skipped}.
sub count_faults
{
	my ($counts_file) = @_;
	my @n = map { { passed => 0, failed => 0, skipped => 0 } } @faults;
	open my $fh, '<', $counts_file or die "cannot read $counts_file: $!\n";
	while (my $line = <$fh>)
	{
		chomp $line;
		my ($kind, $suite, $file, $result, $name) = split /\t/, $line, 5;
		next unless $kind eq 'test' && defined $name;
		for my $i (0 .. $#faults)
		{
			next unless grep {
				$suite =~ /^(?:$_->[0])$/ && $file =~ /^(?:$_->[1])$/ && $name =~ $_->[2]
			} @{ $faults[$i]{count} };
			$n[$i]{ $result eq 'ok' ? 'passed' : $result eq 'skip' ? 'skipped' : 'failed' }++;
		}
	}
	return @n;
}

1;
