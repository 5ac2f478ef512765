# uringprobe-cli: the same engines in a bare process; its usage errors.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Cwd qw(getcwd);
use IPC::Run ();
use Time::HiRes ();
use Uringprobe::Cluster;

my $scratch = PostgreSQL::Test::Utils::tempdir;

# The row of `uringprobe-cli ... --format tsv`, as a hash.
sub row_of
{
	my ($out) = run_command([ @_, '--format', 'tsv' ]);
	my ($head, $line) = split /\n/, $out;
	my %r;
	@r{ split /\t/, $head // '' } = split /\t/, $line // '', -1;
	return %r;
}

for my $server (servers())
{
	my $cli = "$server->{bindir}/uringprobe-cli";
	my ($out, $err);

	($out, $err) = run_command([ $cli, 'environment', '--format', 'tsv' ]);
	like($out, qr/^process\tbare process\t/m, "$server->{name}: bare-process report");
	like($out, qr/^server\tnone\t/m, "$server->{name}: no server without settings");
	like($out, qr/^pg18\.io_uring\.verdict\tnot applicable\t/m,
		"$server->{name}: no ring verdict without a server");

	($out, $err) = run_command([ $cli, 'environment', '--format', 'tsv', '--max-connections', '50' ]);
	like($out, qr/^server\.max_connections\t50\t/m, "$server->{name}: settings predict PostgreSQL 18");
	like($out, qr/^pg18\.io_uring\.rings\t92\t/m,
		"$server->{name}: rings = 50 + 16 + 8 + 10 + 2 + 6 with the other defaults");

	my %r = row_of($cli, 'extend', '--dir', $scratch, '--interface', 'io_uring', '--total-mb', '2',
		'--sessions', '2', '--write-data', '--verify');
	is($r{status}, 'ok', "$server->{name}: extend in a bare process");
	is($r{verified}, 'ok', "$server->{name}: extend's file reads back as written");
	is($r{file_bytes}, 2 * 1048576, "$server->{name}: extend grew 2 MiB");
	is(scalar(scratch_files($scratch)), 0, "$server->{name}: extend left no file");

	my %c = row_of($cli, 'completions', '--op', 'recv', '--depth', '8', '--resubmit', 'batch', '--reaping', 'each',
		'--completions', '500');
	is("$c{status} $c{ops} $c{errors}", 'ok 500 0', "$server->{name}: completions in a bare process");
	%c = row_of($cli, 'completions', '--op', 'read', '--dir', $scratch, '--completions', '500');
	is("$c{status} $c{ops} $c{errors}", 'ok 500 0', "$server->{name}: completions of reads in a bare process");
	for my $method (qw(sync io_uring workers))
	{
		%c = row_of($cli, 'reads', '--method', $method, '--dir', $scratch, '--file-mb', '2', '--block-kb', '64');
		is("$c{status} $c{ops} $c{resident_before}", 'ok 31 0', "$server->{name}: reads ($method) in a bare process, cold");
	}
	my $given = "$scratch/given";
	PostgreSQL::Test::Utils::append_to_file($given, 'x' x 65536);
	chmod 0400, $given;
	%c = row_of($cli, 'reads', '--method', 'io_uring', '--file', $given, '--file', $given, '--block-kb', '4');
	is("$c{status} $c{ops} $c{source}", "ok 32 $given,$given", "$server->{name}: reads of given files, read-only");
	unlink $given;
	is(scalar(scratch_files($scratch)), 0, "$server->{name}: reads left no file");
	%c = row_of($cli, 'events', '--loop', 'uring_oneshot', '--pipes', '3', '--events', '300');
	is("$c{status} $c{ops} $c{rounds}", 'ok 300 100', "$server->{name}: events in a bare process");
	%c = row_of($cli, 'events', '--loop', 'uring_oneshot', '--peer', 'process', '--events', '300');
	is("$c{status} $c{ops} $c{peer} $c{armed_ready}", 'ok 300 process 0',
		"$server->{name}: events with a peer process in a bare process, every poll waited");

	# advise for a server not yet started: a directory to become the data
	# directory, settings from the options; a budget with room for one
	# round at least.
	($out, $err) = run_command([ $cli, 'advise', '--format', 'tsv', '--budget', '3', '--max-connections', '100',
		'--data-directory', $scratch, '--concurrency', '2' ]);
	my ($ahead, @arows) = split /\n/, $out;
	my @acols = split /\t/, $ahead;
	# each row by its columns
	my $rows_of = sub { my %at = map { $acols[$_] => $_ } 0 .. $#acols;
		return map { my @f = split /\t/, $_, -1; +{ map { $_ => $f[ $at{$_} ] } @acols } } @_ };
	is(join(' ', @acols[ 0 .. 8 ]), 'topic setting scope scope_name action value current needs_version confidence',
		"$server->{name}: advise's columns, the decision first");
	my @adv = $rows_of->(@arows);
	like(join(' | ', map { $_->{setting} . ($_->{scope_name} eq '' ? '' : " ($_->{scope_name})") } @adv),
		qr/^io_method \| ring layout \| io_uring \| file_extend_method \(data directory\) \| effective_io_concurrency \(data directory\) \| maintenance_io_concurrency \(data directory\) \| io_workers \| io_combine_limit \| io_max_combine_limit \| read_ahead_kb(?: \([\w-]+\))? \| ulimit -n \| ulimit -l \| budget$/,
		"$server->{name}: advise: a row per setting, the data directory measured (a PostgreSQL 18 server's)");
	like((grep { $_->{setting} eq 'file_extend_method' } @adv)[0]{evidence},
		qr/^\S+ at \S*\Q$scratch\E, 2 sessions growing one \d+ MB file|not measured: the budget/,
		"$server->{name}: advise measures in the directory given");
	is(scalar(scratch_files($scratch)), 0, "$server->{name}: advise left no file");
	# --tablespace is repeatable, each given a row of its own, a relative
	# one made absolute, a missing one named; so is --scratch-dir.
	($out, $err) = run_command([ $cli, 'advise', '--format', 'tsv', '--budget', '0.01', '--tablespace', $scratch,
		'--tablespace', 'no-such-tablespace' ]);
	my (undef, @trows) = split /\n/, $out;
	my @settings = map { $_->{scope_name} } grep { $_->{setting} eq 'file_extend_method' } $rows_of->(@trows);
	my $abs = $scratch =~ m{^/} ? $scratch : getcwd() . "/$scratch";
	is_deeply(\@settings, [ $abs, getcwd() . '/no-such-tablespace' ],
		"$server->{name}: advise: a row for each --tablespace, in order, absolute");
	like($out, qr/not measured: \Q@{[getcwd()]}\E\/no-such-tablespace: No such file or directory/,
		"$server->{name}: advise: a missing tablespace says why");
	($out, $err) = run_command([ $cli, 'environment', '--format', 'tsv', '--scratch-dir', $scratch, '--scratch-dir', '/no-such-dir' ]);
	is(join(' | ', map { (split /\t/)[2] } grep { /^fs\.scratch\t/ } split /\n/, $out), "$scratch | /no-such-dir",
		"$server->{name}: environment: a row for each --scratch-dir");

	for my $bad (
		[ [ 'advise', '--budget', '0' ], qr/budget must be positive, got 0\.000 s/ ],
		[ [ 'advise', '--budget', '3601' ], qr/budget 3601 s exceeds the most uringprobe-cli allows \(3600 s\)/ ],
		[ [ 'advise', '--budget', 'soon' ], qr/--budget must be a decimal number of seconds, got 'soon'/ ],
		[ [ 'advise', '--concurrency', '0' ], qr/concurrency must be between 1 and 64, got 0/ ],
		[ [ 'advise', '--server-version', '14' ], qr/server_version must be between 15 and 99, got 14/ ],
		[ [ 'advise', '--file-extend-method', 'zeros' ], qr/file_extend_method must be posix_fallocate or write_zeros, got 'zeros'/ ],
		[ [ 'environment', '--max-connections', '0' ], qr/max_connections must be between 1 and 262143, got 0/ ],
		[ [ 'environment', '--io-max-concurrency', 'x' ], qr/--io-max-concurrency must be a decimal integer, got 'x'/ ],
		[ [ 'environment', '--io-method', 'aio' ], qr/io_method must be sync, worker or io_uring, got 'aio'/ ],
		[ [ 'env' ], qr/unknown command 'env'/ ],
		[ [ 'environment', '--bogus' ], qr/unknown option '--bogus'/ ],
		[ ['extend'], qr/extend needs --dir DIR/ ],
		[ [ 'completions', '--op', 'write' ], qr/op must be one of nop, read, recv, got 'write'/ ],
		[ [ 'completions', '--op', 'read' ], qr/completions --op read needs --dir DIR/ ],
		[ [ 'completions', '--flags', 'iopoll' ], qr/flags must be one of sqpoll, single_issuer/ ],
		[ [ 'completions', '--resubmit', 'never' ], qr/resubmit must be one of each, batch, got 'never'/ ],
		[ [ 'completions', '--flags', 'defer_taskrun' ], qr/defer_taskrun requires single_issuer/ ],
		[ ['reads'], qr/reads needs --dir DIR or --file FILE/ ],
		[ [ 'reads', '--dir', $scratch, '--method', 'aio' ], qr/method must be one of sync, sync_fadvise, sync_sequential, io_uring, workers, got 'aio'/ ],
		[ [ 'reads', '--dir', $scratch, '--block-kb', '12' ], qr/block_kb must be a power of two between 4 and 1024, got 12/ ],
		[ [ 'reads', '--dir', $scratch, '--in-flight', '0' ], qr/in_flight must be between 1 and 256/ ],
		[ [ 'reads', '--dir', $scratch, '--direct', '--cache', 'warm' ], qr/cache 'warm' does not apply to direct reads/ ],
		[ [ 'reads', '--rel', 'pg_class' ], qr/--rel is SQL's .*name its files with --file/ ],
		[ [ 'events', '--peer', 'thread' ], qr/peer must be one of self, process, got 'thread'/ ],
		[ [ 'events', '--loop', 'pg_waiteventset' ], qr/only uringprobe_events\(\) in a backend has it/ ],
		[ [ 'events', '--pipes', '0' ], qr/pipes must be between 1 and 1000, got 0/ ],
		[ [ 'extend', '--dir', $scratch, '--strategy', 'zero' ], qr/strategy must be one of fallocate, write_zeros, mdzeroextend, write, got 'zero'/ ],
		[ [ 'extend', '--dir', $scratch, '--interface', 'aio' ], qr/interface must be one of sync, io_uring, io_uring_async/ ],
		[ [ 'extend', '--dir', $scratch, '--blocks', '0' ], qr/min_blocks must be between 1 and 4096, got 0/ ],
		[ [ 'extend', '--dir', $scratch, '--total-mb', '0' ], qr/total_mb must be between 1 and 1024 \(uringprobe.max_scratch_mb\), got 0/ ],
		[ [ 'extend', '--dir', "$scratch/.." ], qr/dir must not contain '.' or '..' components/ ],
		[ ['frobnicate'], qr/unknown command 'frobnicate'/ ],
		# missing values, negatives, huge and non-numeric numbers, every command
		[ [], qr/usage: uringprobe-cli environment/ ],
		[ [ 'rings', '--rings' ], qr/--rings needs a value/ ],
		[ [ 'rings', '--rings', '-1' ], qr/rings must be between 1 and 4096.*got -1/ ],
		[ [ 'rings', '--rings', '99999999999' ], qr/--rings must be a decimal integer, got '99999999999'/ ],
		[ [ 'rings', '--depth', '0' ], qr/depth must be between 1 and 32768, got 0/ ],
		[ [ 'rings', '--forks', '' ], qr/--forks must be a decimal integer, got ''/ ],
		[ [ 'rings', '--mode', 'mmapp' ], qr/mode must be 'mmap', 'no_mmap' or 'both', got 'mmapp'/ ],
		[ [ 'extend', '--dir', $scratch, '--sessions', '-4' ], qr/sessions must be between 1 and 64, got -4/ ],
		[ [ 'extend', '--dir', $scratch, '--block-size', '1000' ], qr/block_size must be a power of two/ ],
		[ [ 'extend', '--dir', $scratch, '--total-mb', '1e3' ], qr/--total-mb must be a decimal integer, got '1e3'/ ],
		[ [ 'completions', '--completions', '0' ], qr/completions must be between 1 and 100000000, got 0/ ],
		[ [ 'completions', '--depth', '4097' ], qr/depth must be between 1 and 4096, got 4097/ ],
		[ [ 'completions', '--reaping', 'some' ], qr/reaping must be one of each, batch, got 'some'/ ],
		[ [ 'events', '--events', '-1' ], qr/events must be between 1 and 100000000, got -1/ ],
		[ [ 'events', '--loop', 'kqueue' ], qr/loop must be one of epoll, poll/ ],
		[ [ 'events', '--backend', 'epoll' ], qr/unknown option '--backend'/ ],
		[ [ 'events', '--pipes', 'x' ], qr/--pipes must be a decimal integer, got 'x'/ ],
		[ [ 'environment', '--format', 'json' ], qr/--format must be table or tsv, got 'json'/ ],
		[ [ 'events', 'extra' ], qr/unknown option 'extra'/ ],
		# one rule for every number: decimal digits (seconds: a decimal
		# fraction too), nothing else
		[ [ 'completions', '--depth', '0x10' ], qr/--depth must be a decimal integer, got '0x10'/ ],
		[ [ 'advise', '--budget', '0x10' ], qr/--budget must be a decimal number of seconds, got '0x10'/ ],
		[ [ 'advise', '--budget', '1e1' ], qr/--budget must be a decimal number of seconds, got '1e1'/ ],
		[ [ 'advise', '--budget', 'inf' ], qr/--budget must be a decimal number of seconds, got 'inf'/ ],
		[ [ 'advise', '--budget', ' 5' ], qr/--budget must be a decimal number of seconds, got ' 5'/ ],
		[ [ 'rings', '--rings', ' 5' ], qr/--rings must be a decimal integer, got ' 5'/ ],
		[ [ 'environment', '--max-connections', '010x' ], qr/--max-connections must be a decimal integer, got '010x'/ ],
		# flags: each once, no empty item
		[ [ 'completions', '--flags', 'sqpoll,sqpoll' ], qr/flags: sqpoll is named twice in 'sqpoll,sqpoll'/ ],
		[ [ 'completions', '--flags', ',' ], qr/flags: an empty item in ','/ ],
		# dir is op read's
		[ [ 'completions', '--op', 'nop', '--dir', $scratch ], qr/dir applies only to op 'read'/ ])
	{
		my ($args, $msg) = @$bad;
		my $ok = IPC::Run::run([ $cli, @$args ], '>', \$out, '2>', \$err);
		ok(!$ok && $? >> 8 == 2, "$server->{name}: '@$args' is a usage error (exit 2)");
		like($err, $msg, "$server->{name}: '@$args' says why");
		like($err, qr/^usage: uringprobe-cli /m, "$server->{name}: '@$args' shows the usage");
		is($out, '', "$server->{name}: '@$args' prints no result");
	}

	# Ctrl-C mid-run: the run stops and cleans up as a cancelled backend's
	# does, prints what ran ("stopped"), and the command exits 130; no
	# scratch file or child is left.
	for my $run ([ 'extend', '--dir', $scratch, '--total-mb', 1024, '--blocks', 1, '--write-data', '--sessions', 2 ],
		[ 'events', '--loop', 'epoll', '--events', 100000000 ],
		[ 'events', '--loop', 'uring_multishot', '--events', 100000000, '--peer', 'process' ],
		[ 'completions', '--op', 'recv', '--completions', 100000000 ],
		[ 'reads', '--method', 'workers', '--dir', $scratch, '--file-mb', 8, '--passes', 100000 ])
	{
		my ($o, $e) = ('', '');
		my $h = IPC::Run::start([ $cli, @$run, '--format', 'tsv' ], '<', \undef, '>', \$o, '2>', \$e);
		# a run in the scratch directory is interrupted once its file exists:
		# extending 1 GB took 0.41 s on a quiet machine, less than a fixed wait
		if (grep { $_ eq '--dir' } @$run)
		{
			within(10, sub { scalar(scratch_files($scratch)) > 0 });
			Time::HiRes::sleep(0.02);
		}
		else
		{
			# the others once their ring or epoll instance exists
			my $kid = $h->{KIDS}[0]{PID};
			within(10, sub { waits_on_events($kid) });
		}
		my $pid = $h->{KIDS}[0]{PID};
		my @kids = children_of($pid);
		kill 'INT', $pid;
		$h->finish;
		my $rc = $h->result(0);
		is($rc, 130, "$server->{name}: '@$run' interrupted: exit 130") or diag($e);
		like($o, qr/\tstopped\t/, "$server->{name}: '@$run' interrupted: its table says stopped");
		is_deeply([ grep { /^uringprobe-/ } map { s{.*/}{}r } glob("$scratch/*") ], [],
			"$server->{name}: '@$run' interrupted: no scratch file left");
		ok(!grep({ -e "/proc/$_" } @kids), "$server->{name}: '@$run' interrupted: no child left");
	}
}

done_testing();
