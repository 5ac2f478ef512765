# Soak: every experiment from URINGPROBE_SOAK_CLIENTS (8) concurrent
# pgbench sessions for URINGPROBE_SOAK_SECONDS (180), each transaction a
# random experiment in a small size (bench/soak.sql), on the server named
# by URINGPROBE_SOAK_SERVER (default: the newest) under the io_method
# URINGPROBE_SOAK_IO_METHOD names (default: io_uring where the server has
# it), with the scratch directory on the default scratch filesystem. Meanwhile one more session after another starts a
# long run of a random experiment and is stopped midway, by
# pg_cancel_backend() or pg_terminate_backend() in turn. Before and after:
# the postmaster's fds, io_uring fds and io_uring mappings, the server's
# processes and RSS, the scratch directory; afterwards the children the
# terminated backends had must be gone and the server log is searched for
# crashes, assertion failures, PANICs and errors other than the cancels,
# and every error and FATAL is counted by SQLSTATE. A witness session runs
# every experiment of the soak twice before it and
# URINGPROBE_SOAK_WITNESS_ROUNDS (10) times after: its backend's RSS may
# grow by at most 1 MB between the two. Writes a row of
# figures and a verdict, and fails when something leaked or crashed.
#
#   perl bench/soak.pl SOAK.tsv
use strict;
use warnings;
use POSIX ();
use PostgreSQL::Test::Utils;
use Time::HiRes ();
use Uringprobe::BenchScript;
use Uringprobe::Manifest qw(setting);
use Uringprobe::Cluster;

my ($out_file) = @ARGV;
die "usage: soak.pl SOAK.tsv\n" unless $out_file;
my $seconds = setting('URINGPROBE_SOAK_SECONDS');
my $clients = setting('URINGPROBE_SOAK_CLIENTS');
plan_cells(1);

my ($server) = sort { $b->{major} <=> $a->{major} } servers();
if (my $name = setting('URINGPROBE_SOAK_SERVER'))
{
	($server) = grep { $_->{name} eq $name } servers()
	  or die "URINGPROBE_SOAK_SERVER: no server '$name' (set up: @{[ map { $_->{name} } servers() ]})\n";
}
my $io_method = setting('URINGPROBE_SOAK_IO_METHOD') || ($server->{major} >= 18 ? 'io_uring' : 'sync');
grep { $_ eq $io_method } io_methods($server)
  or die "URINGPROBE_SOAK_IO_METHOD: $server->{name} has no io_method '$io_method'\n";
my $scratch = default_scratch_dir();
my ($node) = start_cluster(server => $server, io_method => $io_method,
	name => "soak_$server->{name}_$io_method",
	# (%e: every log line says its SQLSTATE)
	settings => [ "uringprobe.scratch_dirs = '$scratch'", 'max_connections = 40',
		"log_line_prefix = '%m [%p] %e %q%a '" ]);
$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');

# The experiments of a soak transaction (bench/soak.sql), each as its own
# statement for the witness session.
my $witness_bound_kb = 1024;
my $witness_rounds = setting('URINGPROBE_SOAK_WITNESS_ROUNDS');
die "URINGPROBE_SOAK_WITNESS_ROUNDS must be a positive integer, got '$witness_rounds'\n"
  unless $witness_rounds =~ /^[1-9]\d*$/;
my ($case) = slurp_file('bench/soak.sql') =~ /^(SELECT CASE :pick.*?^END;)/ms
  or die "bench/soak.sql: no SELECT CASE :pick ... END;\n";
my ($picks) = slurp_file('bench/soak.sql') =~ /^\\set pick random\(1, (\d+)\)/m
  or die "bench/soak.sql: no \\set pick random(1, N)\n";
my @soak_calls = map { $case =~ s/:pick/$_/r =~ s/:dir/$scratch/gr =~ s/:client_id/0/gr } 1 .. $picks;
my $witness = $node->background_psql('postgres', on_error_stop => 0);
# (it lives longer than the test library's timeout: per query, not per session)
$witness->set_query_timer_restart;
my $witness_pid = $witness->query_safe('SELECT pg_backend_pid()');
my ($witness_refusals, @witness_errors) = (0);
my $witness_rss = sub {
	my ($rounds) = @_;
	for my $sql (map { @soak_calls } 1 .. $rounds)
	{
		$witness->query($sql);
		next if $witness->{stderr} eq '';
		# (a ring refused for locked memory: counted, as for the clients)
		if ($witness->{stderr} =~ /Cannot allocate memory/ && $witness->{stderr} =~ /RLIMIT_MEMLOCK/) { $witness_refusals++; }
		else { push @witness_errors, $witness->{stderr} =~ s/\s+/ /gr; }
	}
	return $witness->query_safe('SELECT vmrss_kb FROM uringprobe_backend()');
};
sub rss_kb
{
	my ($pid) = @_;
	my ($kb) = (eval { slurp_file("/proc/$pid/status") } // '') =~ /^VmRSS:\s+(\d+) kB/m;
	return $kb // '';
}

# What the server holds: the postmaster's fds, io_uring fds and mappings,
# and its auxiliary processes ("pid name": a crash restarts them all under
# new pids; client backends and autovacuum workers come and go).
sub server_state
{
	my $pm = postmaster_pid($node);
	opendir my $d, "/proc/$pm/fd" or die "/proc/$pm/fd: $!";
	my $fds = grep { !/^\./ } readdir $d;
	my @aux;
	for my $kid (children_of($pm))
	{
		# the process title: "postgres: <cluster name>: checkpointer" and so on
		my $cmd = eval { slurp_file("/proc/$kid/cmdline") } // next;
		push @aux, "$kid $1"
		  if $cmd =~ /: (checkpointer|background writer|walwriter|autovacuum launcher|logical replication launcher|io worker \d+)\b/;
	}
	return { fds => $fds, io_uring_fds => io_uring_fds($pm), mappings => io_uring_mappings($pm),
		processes => join(', ', sort @aux), rss_kb => rss_kb($pm) };
}

# Until $deadline, and past it until a session has been both cancelled
# and terminated (a loaded machine may fit only one stop into a short
# soak; at most a minute more): a session starts a long run of a random
# experiment and is stopped a moment later, cancelled and terminated in
# turn. Runs in a child process; writes to $file what it did: "cancelled
# N", "terminated N", "unexpected N", "error TEXT" (the first unexpected
# outcome) and "children PIDS" (those the terminated backends had).
sub stop_sessions
{
	my ($deadline, $file) = @_;
	my %n = (cancelled => 0, terminated => 0, unexpected => 0);
	my (@kids, $error);
	my @runs = long_runs($scratch);
	while (Time::HiRes::time() < $deadline
		|| (!($n{cancelled} && $n{terminated}) && !$n{unexpected} && Time::HiRes::time() < $deadline + 60))
	{
		my ($what, $sql) = @{ $runs[ rand @runs ] };
		my $terminate = ($n{cancelled} + $n{terminated}) % 2;
		eval {
			my $bg = $node->background_psql('postgres', on_error_stop => 0);
			my $pid = $bg->query_safe('SELECT pg_backend_pid()');
			start_long_run($node, $bg, $pid, $sql, 0.1 + rand(0.4));
			if ($terminate)
			{
				push @kids, children_of($pid);
				$node->safe_psql('postgres', "SELECT pg_terminate_backend($pid)");
				eval { $bg->quit };
				$n{terminated}++;
			}
			else
			{
				$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
				$bg->query('SELECT 1');
				die "$what: not cancelled: $bg->{stderr}\n"
				  unless $bg->{stderr} =~ /canceling statement due to user request/;
				$bg->quit;
				$n{cancelled}++;
			}
			1;
		} or do { $n{unexpected}++; $error //= "$what: $@" };
	}
	open my $fh, '>', $file or die "cannot write $file: $!\n";
	print $fh "$_\t$n{$_}\n" for sort keys %n;
	print $fh "error\t", ($error // '') =~ s/\s+/ /gr, "\n";
	print $fh "children\t@kids\n";
	close $fh;
	return;
}

my $log_start = -s $node->logfile;
# The launchers start once the server accepts connections, a moment after
# pg_ctl returns (seconds on a loaded machine): the state before is read
# when both are there (at most 30 s; then as it is, and the comparison
# says what came later).
my $before = server_state();
for (my $waited = 0; $waited < 300 && ($before->{processes} !~ /autovacuum launcher/ || $before->{processes} !~ /logical replication launcher/); $waited++)
{
	Time::HiRes::usleep(100_000);
	$before = server_state();
}
# (two rounds to warm up: the first two grow it by about 1 MB, the next
# ones by nothing, measured by hand on pg18-combined, 12 rounds)
my $witness_before = $witness_rss->(2);
cell("soak on $server->{name} under io_method=$io_method: $clients clients for $seconds s, every experiment, sessions stopped midway",
	server => $server->{name}, io_method => $io_method);
my $stops_file = PostgreSQL::Test::Utils::tempdir() . '/stops';
my $stopper = fork() // die "fork: $!\n";
if ($stopper == 0)
{
	# _exit: the child must not run the END blocks that stop the cluster
	my $ok = eval { stop_sessions(Time::HiRes::time() + $seconds, $stops_file); 1 };
	print STDERR "stopping sessions failed: $@" unless $ok;
	POSIX::_exit($ok ? 0 : 1);
}
my ($out, $err) = bench_command([
	"$server->{bindir}/pgbench", '-n', '-c', $clients, '-j', $clients, '-T', $seconds,
	'-f', 'bench/soak.sql', '-D', "dir=$scratch", '-h', $node->host, '-p', $node->port, 'postgres' ]);
waitpid($stopper, 0);
my $stopper_rc = $? >> 8;
my %stops = map { chomp; split /\t/, $_, 2 } -e $stops_file ? split(/^/, slurp_file($stops_file)) : ();
my @kids_left = grep { -e "/proc/$_" } split ' ', $stops{children} // '';
my ($tx) = $out =~ /number of transactions actually processed: (\d+)/;
my ($failed) = $out =~ /number of failed transactions: (\d+)/;
# the clients' backends exit before the server's state is read again
poll_until($node,
	"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> $witness_pid")
  or die "pgbench's backends did not exit\n";
my $after = server_state();
# a leak stays; an fd the postmaster holds for a moment (a connection being
# handed to its backend) goes: read again while it differs, up to 2 s
for (1 .. 20)
{
	last if $after->{fds} eq $before->{fds};
	Time::HiRes::sleep(0.1);
	$after = server_state();
}
my $witness_after = $witness_rss->($witness_rounds);
$witness->quit;
my @left = scratch_files($scratch);
# The server log line by line: a match against the whole log, held as one
# string, copies it once COW's share count runs out (a 46 MB log of the
# default 180 s took minutes).
my @log = split /\n/, substr(slurp_file($node->logfile), $log_start);
my @bad = grep { /PANIC|TRAP|terminated by signal|was terminated|server process .* exited with exit code [^0]/ } @log;
# A ring refused for lack of locked memory, with the hint that says so, is
# no finding: the soak runs more rings at once than an 8 MiB
# RLIMIT_MEMLOCK may hold (ring memory torn down is given back to it
# asynchronously); it is counted, and so are the clients pgbench aborted
# for it. Every error and FATAL is counted by SQLSTATE, the cancels and
# terminations among them.
my $refusal = qr/Cannot allocate memory/;
my (@refusals, @errors, %by_state);
for my $i (0 .. $#log)
{
	$by_state{"$2 $1"}++ if $log[$i] =~ /\[\d+\] ([0-9A-Z]{5}) .*?\b(ERROR|FATAL|PANIC):/;
	next unless $log[$i] =~ /ERROR:/;
	if ($log[$i] =~ $refusal && ($log[ $i + 1 ] // '') =~ /HINT:.*RLIMIT_MEMLOCK/) { push @refusals, $log[$i]; }
	elsif ($log[$i] !~ /canceling statement due to user request/) { push @errors, $log[$i]; }
}
my $errors_by_sqlstate = join(', ', map { "$_ x$by_state{$_}" } sort keys %by_state) || 'none';
my @pgbench = split /\n/, "$out\n$err";
my @client_aborts = grep { /\bclient \d+ .*aborted/ } @pgbench;
my @aborted = grep { !/$refusal/ } @client_aborts;
# pgbench's own "Run was aborted" stands where no client's abort explains it
push @aborted, grep { /aborted/i && !/\bclient \d+ / } @pgbench unless @client_aborts;
$node->stop;

my @problems;
push @problems, 'no auxiliary process of the postmaster found' unless $before->{processes};
push @problems, "pgbench did not run: $err" unless defined $tx;
push @problems, "$failed transactions failed" if $failed;
push @problems, "aborted clients: $aborted[0]" if @aborted;
for my $k (qw(fds io_uring_fds mappings processes))
{
	push @problems, "postmaster $k $before->{$k} -> $after->{$k}" if $before->{$k} ne $after->{$k};
}
push @problems, "stopping sessions failed (exit $stopper_rc)" if $stopper_rc;
push @problems, "$stops{unexpected} sessions not stopped as expected: $stops{error}" if $stops{unexpected};
push @problems, 'no session was both cancelled and terminated'
  unless ($stops{cancelled} // 0) && ($stops{terminated} // 0);
push @problems, scalar(@kids_left) . " children of terminated backends left: @kids_left" if @kids_left;
push @problems, scalar(@left) . " scratch files left" if @left;
push @problems, scalar(@bad) . " crash lines in the server log: $bad[0]" if @bad;
push @problems, scalar(@errors) . " errors in the server log: $errors[0]" if @errors;
push @problems, "the witness backend's RSS grew from $witness_before to $witness_after kB"
  if $witness_after - $witness_before > $witness_bound_kb;
push @problems, scalar(@witness_errors) . " errors in the witness session: $witness_errors[0]" if @witness_errors;

my $tsv = tsv_open($out_file, qw(server io_method clients seconds transactions tps failed
  pm_fds_before pm_fds_after pm_io_uring_fds_before pm_io_uring_fds_after pm_mappings_before
  pm_mappings_after pm_rss_kb_before pm_rss_kb_after aux_processes aux_processes_same cancelled terminated
  children_left scratch_files_left witness_calls witness_rss_kb_before witness_rss_kb_after
  log_crash_lines log_errors errors_by_sqlstate memlock_refusals verdict));
my ($tps) = $out =~ /tps = ([\d.]+)/;
tsv_row($tsv, $server->{name}, $io_method, $clients, $seconds, $tx // '',
	$tps // '', $failed // 0, $before->{fds}, $after->{fds}, $before->{io_uring_fds}, $after->{io_uring_fds},
	$before->{mappings}, $after->{mappings}, $before->{rss_kb}, $after->{rss_kb},
	scalar(split /, /, $before->{processes}),
	$before->{processes} eq $after->{processes} ? 'yes' : 'no', $stops{cancelled} // 0,
	$stops{terminated} // 0, scalar(@kids_left), scalar(@left), (2 + $witness_rounds) * scalar(@soak_calls),
	$witness_before, $witness_after, scalar(@bad), scalar(@errors), $errors_by_sqlstate,
	scalar(@refusals) + $witness_refusals, @problems ? join('; ', @problems) : 'clean');
close $tsv;
die "soak: @{[ join('; ', @problems) ]}\n" if @problems;
