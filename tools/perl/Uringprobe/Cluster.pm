# Throwaway clusters for the TAP tests and the benchmark driver: one place
# that knows the server flavours, starts a cluster for (server, io_method,
# settings), asserts that the io_method really took effect, and inspects the
# postmaster's io_uring file descriptors and mappings.
package Uringprobe::Cluster;

use strict;
use warnings;
use Exporter 'import';
use File::Basename qw(dirname);
use File::Path ();
use IPC::Run ();
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More ();
use Time::HiRes ();

# Ctrl-C or a TERM: die, so that END blocks run and PostgreSQL::Test::Cluster
# stops every cluster it started (perl's default would skip them).
$SIG{INT} = $SIG{TERM} = sub { die "interrupted by SIG$_[0]\n" };

our @EXPORT =
  qw(servers io_methods start_cluster postmaster_pid io_uring_fds waits_on_events io_uring_mappings environment
  scratch_filesystems storage_kinds scratch_files query_row default_scratch_dir backend_state_sql hard_limit
  set_soft_limits long_runs regress_list start_long_run children_of exited kill_postmaster start_after_kill cancel_leaves_backend_as_was tiny_bench_run
  poll_until wait_for_clients_gone refuse_io_uring_command within stop_matrix
  start_checked_client storage_asked servers_named);

# What pg_config $pg_config answers to $option, run without a shell (its
# path may hold any character).
sub pg_config_says
{
	my ($pg_config, $option) = @_;
	open my $fh, '-|', $pg_config, $option or die "cannot run $pg_config: $!\n";
	my $out = do { local $/; <$fh> };
	close $fh or die "$pg_config $option failed\n";
	chomp $out;
	return $out;
}

# The servers set up by tools/setup-servers, from the file named by
# URINGPROBE_SERVERS ("name<TAB>pg_config<TAB>source<TAB>use" per line).
# A server set up on request (pg18-noprior) is left out unless make bench
# names it (SERVERS=...) or the caller asks for it: servers(on_request => 1).
sub servers
{
	my %opt = @_;
	my $file = $ENV{URINGPROBE_SERVERS}
	  or die "URINGPROBE_SERVERS is not set: run through 'make test' or 'make bench'\n";
	open my $fh, '<', $file or die "cannot read $file: $!\n";
	my @servers;
	while (my $line = <$fh>)
	{
		chomp $line;
		next if $line eq '';
		my ($name, $pg_config, $source, $use) = split /\t/, $line;
		my $bindir = pg_config_says($pg_config, '--bindir');
		my $version = pg_config_says($pg_config, '--version');
		my ($major, $minor) = $version =~ /PostgreSQL (\d+)(?:\.(\d+))?/
		  or die "cannot read the version of $pg_config: '$version'\n";
		my $pgxs = pg_config_says($pg_config, '--pgxs');
		push @servers,
		  {
			name => $name,
			pg_config => $pg_config,
			bindir => $bindir,
			install_path => dirname($bindir),
			major => $major,
			minor => $minor // 0,
			pg_regress => dirname(dirname($pgxs)) . '/test/regress/pg_regress',
			source => $source // '',
			on_request => ($use // '') eq 'on-request',
		  };
	}
	# make bench SERVERS=...: only those, each of which must exist.
	if (my $only = $ENV{URINGPROBE_BENCH_SERVERS})
	{
		my %have = map { $_->{name} => $_ } @servers;
		for my $name (split ' ', $only)
		{
			die "unknown server '$name' (set up: @{[ map { $_->{name} } @servers ]})\n" unless $have{$name};
		}
		my %want = map { $_ => 1 } split ' ', $only;
		@servers = grep { $want{ $_->{name} } } @servers;
	}
	elsif (!$opt{on_request})
	{
		@servers = grep { !$_->{on_request} } @servers;
	}
	return @servers;
}

# The first row of $sql in $node as a hash (column => value); dies when
# the query fails.
sub query_row
{
	my ($node, $sql) = @_;
	my $out = $node->safe_psql('postgres', $sql,
		extra_params => [ '--pset=tuples_only=off', '--pset=footer=off' ]);
	my ($head, $line) = split /\n/, $out;
	my %r;
	@r{ split /\|/, $head } = split /\|/, $line // '', -1;
	return \%r;
}

# The filesystems tools/scratch-fs set up, from the file named by
# URINGPROBE_SCRATCH_FS_LIST: { name, dir, status, device } each, status
# "ok" or why it is unavailable, device how a loop-mounted one reaches its
# image ("loop, direct I/O" or "loop, buffered: why"). Without the list,
# none.
sub scratch_filesystems
{
	my $file = $ENV{URINGPROBE_SCRATCH_FS_LIST} or return ();
	open my $fh, '<', $file or die "cannot read $file: $!\n";
	my @fs;
	while (my $line = <$fh>)
	{
		chomp $line;
		my ($name, $dir, $status, $device) = split /\t/, $line, 4;
		push @fs, { name => $name, dir => $dir, status => $status, device => $device // '' } if $name;
	}
	return @fs;
}

# The storage kinds tools/storage made for the tests (its storage.list,
# URINGPROBE_STORAGE_LIST): name, dir, status ("ok" or why not), how it
# was made, device (major:minor), read_ahead_kb and cgroup each.
sub storage_kinds
{
	my $file = $ENV{URINGPROBE_STORAGE_LIST} or return ();
	open my $fh, '<', $file or return ();
	my @kinds;
	while (my $line = <$fh>)
	{
		chomp $line;
		my %k;
		@k{qw(name dir status how device read_ahead_kb cgroup)} = split /\t/, $line, -1;
		push @kinds, \%k if $k{name};
	}
	return @kinds;
}

# The storage kinds asked for (tools/storage's KIND: disk, latency:<ms>,
# capped:<iops>) as it named and listed them; one it did not make is there
# with a status saying so.
sub storage_asked
{
	my (@kinds) = @_;
	my %listed = map { $_->{name} => $_ } storage_kinds();
	return map {
		my $name = /^latency:(.+)$/ ? "latency-$1ms" : /^capped:(\d+)$/ ? "capped-$1iops" : $_;
		$listed{$name} // { name => $name, status => 'unavailable: not made (tools/storage up lists it: run through make bench)' }
	} @kinds;
}

# The servers named in $names (space-separated) that are set up; where none
# is (make test against one server), the newest there is. Dies where there
# is no server at all.
sub servers_named
{
	my ($names) = @_;
	my %want = map { $_ => 1 } split ' ', $names;
	my @servers = grep { $want{ $_->{name} } } servers();
	@servers = ((sort { $b->{major} <=> $a->{major} } grep { !$_->{on_request} } servers())[0] // ()) unless @servers;
	die "no server to measure\n" unless @servers;
	return @servers;
}

# The hard limit of this process for prlimit's $resource (nofile, memlock).
sub hard_limit
{
	my ($resource) = @_;
	my $v = `prlimit --pid $$ --output HARD --noheadings --$resource`;
	$v =~ s/\s+//g;
	return $v;
}

# Soft limits of this process (resource => value), which pg_ctl and the
# postmaster started next inherit.
sub set_soft_limits
{
	my (%l) = @_;
	my @args = map { "--$_=$l{$_}:" } sort keys %l;
	system('prlimit', '--pid', $$, @args) == 0 or die "prlimit @args failed\n";
}

# The plain scratch directory tools/scratch-fs sets up; dies without it.
sub default_scratch_dir
{
	my ($fs) = grep { $_->{name} eq 'default' && $_->{status} eq 'ok' } scratch_filesystems();
	die "no scratch directory: run through make test\n" unless $fs;
	return $fs->{dir};
}

# A query a backend runs to say what it holds, as one string: open fds,
# io_uring fds, io_uring mappings, threads (io-wq workers left out, see
# uringprobe_backend()), and the length of its children list (0: none).
# It aggregates (count(*)) as the statements stopped in between do: the
# files of pg_aggregate, which PostgreSQL opens for that and keeps open,
# are then open before the first reading, not counted against the run.
sub backend_state_sql
{
	return "SELECT open_fds || ',' || io_uring_fds || ',' || io_uring_mappings || ',' || threads || ',' "
	  . "|| length(pg_read_file('/proc/' || pg_backend_pid() || '/task/' || pg_backend_pid() || '/children')) "
	  . "FROM uringprobe_backend(), (SELECT count(*) FROM (VALUES (1)) v) opens_pg_aggregate";
}

# Cancel $call (a set-returning function call) with statement_timeout
# $timeout mid-run, in one psql session: the test passes when the statement
# was cancelled and the backend holds afterwards what it held before (fds,
# io_uring fds and mappings, threads, children: backend_state_sql). Two
# tests, named "$name: ...". Returns the seconds the statements took.
sub cancel_leaves_backend_as_was
{
	my ($node, $call, $timeout, $name) = @_;
	my $state = backend_state_sql();
	my $t0 = Time::HiRes::time();
	my (undef, $out, $err) = $node->psql('postgres',
		"$state; SET statement_timeout = '$timeout'; SELECT * FROM $call; RESET statement_timeout; $state;",
		on_error_stop => 0);
	my $took = Time::HiRes::time() - $t0;
	Test::More::like($err, qr/canceling statement due to statement timeout/, "$name: statement_timeout cancels it");
	my ($before, $after) = split /\n/, $out;
	Test::More::ok(defined $after && $before eq $after,
		"$name: the backend holds the fds, rings, mappings, threads and children it held before ("
		  . ($before // 'nothing') . ' -> ' . ($after // 'nothing') . ')');
	return $took;
}

# The results directory and the output of the tiny bench tools/run-tests
# ran before the TAP tests (URINGPROBE_BENCH_RESULTS, URINGPROBE_BENCH_LOG);
# bails out without them. One test: that it left one directory.
sub tiny_bench_run
{
	my $root = $ENV{URINGPROBE_BENCH_RESULTS}
	  or Test::More::BAIL_OUT('URINGPROBE_BENCH_RESULTS is not set: run through make test, which runs the tiny bench first');
	my @runs = grep { -d } glob("$root/*");
	Test::More::is(scalar(@runs), 1, 'the tiny bench left one results directory') or Test::More::BAIL_OUT("in $root: @runs");
	return ($runs[0], PostgreSQL::Test::Utils::slurp_file($ENV{URINGPROBE_BENCH_LOG}), $root);
}

# The uringprobe scratch files in directory $dir.
sub scratch_files
{
	my ($dir) = @_;
	opendir my $dh, $dir or die "cannot list $dir: $!\n";
	my @files = grep { /^uringprobe-.*\.scratch$/ } readdir $dh;
	closedir $dh;
	return @files;
}

# The io_methods a server has: before PostgreSQL 18, synchronous I/O only.
sub io_methods
{
	my ($server) = @_;
	my @methods = $server->{major} >= 18 ? qw(sync worker io_uring) : qw(sync);
	# make bench IO_METHODS=...: only those
	if (my $only = $ENV{URINGPROBE_BENCH_IO_METHODS})
	{
		my %want = map { $_ => 1 } split ' ', $only;
		@methods = grep { $want{$_} } @methods;
	}
	return @methods;
}

# Start a cluster of $p{server} with $p{io_method} and extra settings
# ($p{settings}, postgresql.conf lines). With data_on => DIR the data
# directory (WAL included) lives in DIR, e.g. on a scratch filesystem. With fail_ok => 1 a refused start
# returns the node unstarted instead of bailing out. Every started cell
# checks SHOW io_method itself: TEMP_CONFIG could have overridden it.
sub start_cluster
{
	my (%p) = @_;
	# make bench PERF=1: setting a cluster up is no cell's work
	Uringprobe::BenchScript::Progress::note_cell_time('(setup)') if defined &Uringprobe::BenchScript::Progress::note_cell_time;
	my $server = $p{server};
	my $io_method = $p{io_method} // 'sync';
	my $name = $p{name} // "$server->{name}_$io_method";
	$name =~ s/[^A-Za-z0-9_]/_/g;
	local $ENV{PG_REGRESS} = $server->{pg_regress};
	local $ENV{INITDB_TEMPLATE} = initdb_template($server) if copies_initdb_template();
	my $node = PostgreSQL::Test::Cluster->new($name,
		install_path => $server->{install_path});
	$node->init(allows_streaming => $p{streaming} // 0);
	place_data_directory($node, "$p{data_on}/$name") if $p{data_on};
	my $conf = '';
	$conf .= "io_method = $io_method\n" if $server->{major} >= 18;
	$conf .= "$_\n" for @{ $p{settings} // [] };
	$node->append_conf('postgresql.conf', $conf);
	my $started =
	    $p{refuse_io_uring}
	  ? start_refusing_io_uring($node, $p{refuse_io_uring})
	  : $node->start(fail_ok => $p{fail_ok} // 0);
	return ($node, 0) unless $started;

	if ($server->{major} >= 18)
	{
		my $got = $node->safe_psql('postgres', 'SHOW io_method');
		die "io_method is '$got' in cluster $name, expected '$io_method'\n"
		  unless $got eq $io_method;
	}
	else
	{
		my $got = $node->safe_psql('postgres',
			"SELECT coalesce(current_setting('io_method', true), 'absent')");
		die "PostgreSQL $server->{major} unexpectedly has io_method = $got\n"
		  unless $got eq 'absent';
	}
	return ($node, 1);
}

# Whether this PostgreSQL::Test::Cluster copies INITDB_TEMPLATE (16 and
# later do; 15's runs initdb whatever it says).
my $copies_template;
sub copies_initdb_template
{
	if (!defined $copies_template)
	{
		open my $fh, '<', $INC{'PostgreSQL/Test/Cluster.pm'} or die "cannot read PostgreSQL::Test::Cluster: $!\n";
		local $/;
		$copies_template = (<$fh> =~ /\bINITDB_TEMPLATE\b/) ? 1 : 0;
	}
	return $copies_template;
}

# A data directory initdb made for $server, once per test file: each
# cluster of the server starts as a copy of it (PostgreSQL::Test::Cluster
# copies INITDB_TEMPLATE rather than run initdb; the same files, a second
# rather than initdb's several).
sub initdb_template
{
	my ($server) = @_;
	(my $name = $server->{name}) =~ s/[^A-Za-z0-9_-]/_/g;
	my $dir = "$PostgreSQL::Test::Utils::tmp_check/initdb-template-$name";
	return $dir if -f "$dir/PG_VERSION";
	File::Path::rmtree("$dir.partial");
	PostgreSQL::Test::Utils::system_or_bail("$server->{bindir}/initdb", '--no-sync',
		'--pgdata', "$dir.partial", '--auth', 'trust');
	rename("$dir.partial", $dir) or die "cannot rename $dir.partial: $!\n";
	return $dir;
}

# The command that runs a command with io_uring refused to it and to every
# process it starts, as a container's seccomp profile refuses it
# (test/refuse-io-uring.c, built once per test file): io_uring_setup,
# io_uring_enter and io_uring_register fail with $errno (EPERM, ENOSYS);
# nothing on the host changes.
sub refuse_io_uring_command
{
	my ($errno) = @_;
	my $bin = "$PostgreSQL::Test::Utils::tmp_check/refuse-io-uring";
	system('cc', '-O2', '-Wall', '-o', $bin, 'test/refuse-io-uring.c') == 0
	  or die "cannot build test/refuse-io-uring.c\n"
	  unless -x $bin;
	return ($bin, '--errno', $errno);
}

# Start $node's server under refuse_io_uring_command($errno): the filter
# passes from pg_ctl to the postmaster and every process it starts. True
# if it started (PostgreSQL 18 with io_method=io_uring does not).
sub start_refusing_io_uring
{
	my ($node, $errno) = @_;
	local %ENV = $node->_get_env(PGAPPNAME => undef);
	my $started = PostgreSQL::Test::Utils::system_log(refuse_io_uring_command($errno),
		'pg_ctl', '--wait', '--pgdata' => $node->data_dir, '--log' => $node->logfile,
		'--options' => '--cluster-name=' . $node->name, 'start') == 0;
	$node->_update_pid($started ? 1 : -1);
	return $started;
}

# Move a freshly initialised data directory to $target (another filesystem)
# and leave a symlink where the node expects it.
sub place_data_directory
{
	my ($node, $target) = @_;
	my $pgdata = $node->data_dir;
	die "$target exists already\n" if -e $target;
	system('cp', '-a', $pgdata, $target) == 0 or die "cannot copy $pgdata to $target\n";
	system('rm', '-rf', $pgdata) == 0 or die "cannot remove $pgdata\n";
	symlink($target, $pgdata) or die "cannot link $pgdata to $target: $!\n";
}

sub postmaster_pid
{
	my ($node) = @_;
	my $file = $node->data_dir . '/postmaster.pid';
	open my $fh, '<', $file or die "cannot read $file: $!\n";
	my $pid = <$fh>;
	chomp $pid;
	return $pid;
}

# How many of process $pid's open files are instances of kind $kind
# (io_uring, eventpoll): 'anon_inode:[kind]' in /proc/pid/fd.
sub anon_inode_fds
{
	my ($pid, $kind) = @_;
	opendir my $dh, "/proc/$pid/fd" or die "cannot list /proc/$pid/fd: $!\n";
	my $n = 0;
	for my $fd (readdir $dh)
	{
		next if $fd =~ /^\./;
		my $target = readlink "/proc/$pid/fd/$fd";
		$n++ if defined $target && $target eq "anon_inode:[$kind]";
	}
	closedir $dh;
	return $n;
}

# How many io_uring instances process $pid holds open.
sub io_uring_fds { return anon_inode_fds($_[0], 'io_uring'); }

# True once process $pid holds an io_uring or epoll instance: a run that
# waits for events has begun.
sub waits_on_events
{
	my ($pid) = @_;
	return anon_inode_fds($pid, 'io_uring') + anon_inode_fds($pid, 'eventpoll') > 0;
}

# How many io_uring ring mappings process $pid has in its address space.
sub io_uring_mappings
{
	my ($pid) = @_;
	open my $fh, '<', "/proc/$pid/maps" or die "cannot read /proc/$pid/maps: $!\n";
	my $n = grep { /anon_inode:\[io_uring\]/ } <$fh>;
	close $fh;
	return $n;
}

# uringprobe_environment() of a node as a hash name => [value, detail].
sub environment
{
	my ($node, $args) = @_;
	$args //= '';
	my $out = $node->safe_psql('postgres',
		"SELECT name, value, detail FROM uringprobe_environment($args)");
	my %env;
	for my $line (split /\n/, $out)
	{
		my ($name, $value, $detail) = split /\|/, $line, 3;
		# fs.scratch may repeat: keep each
		push @{ $env{$name} }, [ $value, $detail ];
	}
	return { map { $_ => $env{$_}[0] } keys %env };
}

# Every experiment in a run that takes far longer than anyone waits for it
# (to be stopped midway), as the SQL functions' entries declare them
# (`uringprobe-cli sql --long-runs`, the CLI installed beside the first
# server): [name, call, warm-up call] each (the warm-up, where there is
# one, opens what the backend keeps open anyway); $scratch an allowed
# directory.
sub long_runs
{
	my ($scratch) = @_;
	my $cli = (servers())[0]->{bindir} . '/uringprobe-cli';
	my $tsv = `'$cli' sql --long-runs`;
	die "$cli sql --long-runs failed\n" if $? != 0 || $tsv eq '';
	return map {
		my ($label, $call, $warm_up) = split /\t/, $_, -1;
		[ $label, $call =~ s/\{scratch\}/$scratch/gr, $warm_up eq '' ? () : $warm_up ]
	} split /\n/, $tsv;
}

# The regression test files, as the Makefile's REGRESS lists them (make
# installcheck runs them in that order): `make regress-list` in $dir.
sub regress_list
{
	my ($dir) = @_;
	my $list = `make -s -C '$dir' regress-list`;
	die "make regress-list failed in $dir\n" if $? != 0 || $list !~ /\S/;
	return $list;
}

# Whether t/027 runs its whole matrix of stops (URINGPROBE_STOP_MATRIX=1:
# every long call x every way PostgreSQL ends one, on every server)
# rather than make test's part of it.
sub stop_matrix
{
	return ($ENV{URINGPROBE_STOP_MATRIX} // '') eq '1';
}

# Until $query returns $expected ('t' unless given) on $node: true, or
# false after PostgreSQL::Test::Utils' timeout. As the server's own
# poll_query_until, but the query goes on psql's command line: that one
# writes it to psql's standard input, and a psql that exits at once (the
# server still recovering from a crash) makes that write fail with EPIPE,
# which ends the test.
sub poll_until
{
	my ($node, $query, $expected) = @_;
	$expected //= 't';
	local %ENV = $node->_get_env();
	my @psql = ($node->installed_command('psql'), '-X', '-A', '-t', '-d', $node->connstr('postgres'));
	for (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		my ($out, $err) = ('', '');
		IPC::Run::run([ @psql, '-c', $query ], '<', \undef, '>', \$out, '2>', \$err);
		chomp $out;
		return 1 if $out eq $expected && $err eq '';
		Time::HiRes::usleep(100_000);
	}
	return 0;
}

# The client backends of a run (pgbench's) have exited, and so flushed
# their I/O statistics, once only the asking session is left.
sub wait_for_clients_gone
{
	my ($node) = @_;
	poll_until($node, "SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'client backend'")
	  or die "the clients' backends did not exit\n";
	return;
}

# Start call $sql in background session $bg (a BackgroundPsql of $node,
# backend $pid) and return once it is running, plus $settle seconds (0.3).
sub start_long_run
{
	my ($node, $bg, $pid, $sql, $settle) = @_;
	$bg->query_until(qr/started/, "\\echo started\nSELECT count(*) FROM $sql;\n");
	poll_until($node,
		"SELECT state = 'active' AND query LIKE '%uringprobe_%' FROM pg_stat_activity WHERE pid = $pid")
	  or die "the run did not start: $sql\n";
	Time::HiRes::sleep($settle // 0.3);
	return;
}

# A psql of its own running "SELECT count(*) FROM $sql" on $node with
# client_connection_check_interval = 100ms, so that its backend sees the
# client gone: the psql (IPC::Run) and its backend's pid once the call runs.
sub start_checked_client
{
	my ($node, $sql) = @_;
	local $ENV{PGOPTIONS} = '-c client_connection_check_interval=100ms';
	my ($out, $err);
	my $psql = IPC::Run::start(
		[ $node->installed_command('psql'), '-X', '-d', $node->connstr('postgres'), '-c',
			"SELECT count(*) FROM $sql" ],
		'<', \undef, '>', \$out, '2>', \$err);
	my $pid;
	within(30, sub {
		$pid = $node->safe_psql('postgres',
			"SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%uringprobe_%' "
			  . 'AND pid <> pg_backend_pid()');
		return $pid ne '';
	}) or die "the call did not start: $sql\n";
	return ($psql, $pid);
}

# Until $check returns true, at most $seconds (polled every 20 ms): true
# if it did.
sub within
{
	my ($seconds, $check) = @_;
	for (1 .. $seconds * 50)
	{
		return 1 if $check->();
		Time::HiRes::usleep(20_000);
	}
	return 0;
}

# True when every one of @pids has exited: gone, or a zombie (its memory,
# files, mappings and threads released; only its parent's reaping is
# left). A backend whose postmaster was killed, or a child of a backend
# killed with -9, is init's to reap, and some inits reap only about once
# a second. A backend that exits on its own reaps its children: a child
# of it must be gone, not a zombie.
sub exited
{
	my (@pids) = @_;
	for my $pid (@pids)
	{
		my $stat = eval { slurp_file("/proc/$pid/stat") } // next;
		return 0 unless $stat =~ /^\d+ \(.*\) [ZX] /s;
	}
	return 1;
}

# The postmaster of $node killed (-9): its pid, for start_after_kill.
sub kill_postmaster
{
	my ($node) = @_;
	my $pid = postmaster_pid($node);
	$node->kill9;
	return $pid;
}

# $node started again once its killed postmaster $pid is gone (reaped:
# a zombie's pid still holds postmaster.pid's claim): true if it started.
sub start_after_kill
{
	my ($node, $pid) = @_;
	within(30, sub { !-e "/proc/$pid" }) or return 0;
	return $node->start(fail_ok => 1);
}

# The child processes of every thread of $pid.
sub children_of
{
	my ($pid) = @_;
	my @kids;
	for my $f (glob("/proc/$pid/task/*/children"))
	{
		push @kids, split ' ', (eval { slurp_file($f) } // '');
	}
	return @kids;
}

1;
