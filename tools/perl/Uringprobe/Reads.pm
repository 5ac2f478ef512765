# What the reads benchmark and its tests share: a relation made cold, and
# the AIO handles of one backend sampled from another session while it
# reads (pg_aios, PostgreSQL 18).
package Uringprobe::Reads;

use strict;
use warnings;
use Exporter 'import';
use IPC::Run ();
use JSON::PP ();
use Time::HiRes ();
use Uringprobe::BenchScript::Settle;

our @EXPORT = qw(make_cold start_aios_sampler finish_aios_sampler measured_run set_read_ahead create_read_table
  update_in_place $read_table_rows_per_mb $measured_app $seqscan_only $indexscan_only);

# The settings that leave a sequential scan the only plan for count(*) (an
# all-visible table would be read through an index instead).
our $seqscan_only = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';
# And an index scan (no bitmap heap scan, no index-only scan).
our $indexscan_only = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;';

# The application_name of the session whose reads are sampled; its
# statement must hold "measured run" (a comment will do).
our $measured_app = 'uringprobe_reads_measured';

# The reads benchmark's table $t in tablespace $ts: $rows rows (id in
# order, r uniform over 0 .. 2^20 - 1, 200 bytes of pad), indexes on r
# and id, analyzed and all visible. Each page keeps 15% free (fillfactor
# 85) so that update_in_place() finds room on it.
sub create_read_table
{
	my ($node, $t, $ts, $rows) = @_;
	$node->safe_psql('postgres',
		"CREATE TABLE $t (id int, r int, pad text) WITH (fillfactor = 85) TABLESPACE $ts;
		 INSERT INTO $t SELECT g, hashint4(g) & 1048575, repeat('x', 200) FROM generate_series(1, $rows) g;
		 CREATE INDEX ${t}_r ON $t (r) TABLESPACE $ts; CREATE INDEX ${t}_id ON $t (id) TABLESPACE $ts;
		 VACUUM ANALYZE $t; CHECKPOINT;");
	return;
}
# Rows to a MB of such a table: 28 rows of 244 bytes (header, line
# pointer) in the 85% of a page filled
our $read_table_rows_per_mb = 3400;

# A tenth of $t's rows (id % 10 = 0) updated where they are, for VACUUM to
# clean up: heap-only updates (no indexed column changes and their page has
# room), so every row stays on its page and the index keeps its entries.
# The other workloads then read the same pages however many VACUUM runs
# came before; updates that moved rows to new pages made the table grow
# and the index scan's reads alternate between two layouts. Dies where an
# update left its page (the transaction's own counts say so).
sub update_in_place
{
	my ($node, $t) = @_;
	my $out = $node->safe_psql('postgres',
		"BEGIN; UPDATE $t SET pad = pad WHERE id % 10 = 0;
		 SELECT pg_stat_get_xact_tuples_updated('$t'::regclass), pg_stat_get_xact_tuples_hot_updated('$t'::regclass);
		 COMMIT; CHECKPOINT;");
	my ($updated, $hot) = $out =~ /^(\d+)\|(\d+)$/m or die "update_in_place($t): no counts in '$out'\n";
	die "update_in_place($t): $hot of $updated updates stayed on their page: the table's layout changed\n"
	  unless $updated > 0 && $hot == $updated;
	return $updated;
}

# Relation $t (and @others: its indexes) evicted from shared buffers
# (pg_buffercache_evict_relation, PostgreSQL 18; before it, the caller
# restarts the server) and $t's pages dropped from the page cache
# (uringprobe_reads(passes => 0)). Returns the pages still resident.
sub make_cold
{
	my ($node, $major, $t, @others) = @_;
	if ($major >= 18)
	{
		$node->safe_psql('postgres',
			'SELECT ' . join(', ', map { "pg_buffercache_evict_relation('$_')" } $t, @others));
	}
	my ($resident) = split /\|/,
	  $node->safe_psql('postgres', "SELECT resident_before FROM uringprobe_reads(rel => '$t', passes => 0)");
	return $resident;
}

# A session of $node's sampling every 2 ms, while the session named
# $measured_app runs a statement holding "measured run": how many AIO
# handles that backend has in pg_aios, and its wait event. Gives up after
# 120 s without seeing it. Start it before the measured statement.
sub start_aios_sampler
{
	my ($node) = @_;
	my $do = qq{DO \$\$
DECLARE mpid int; st text; w text; n int; s bigint := 0; c int := 0; mx int := 0; seen bool := false;
        waits jsonb := '{}'; t0 timestamptz := clock_timestamp();
BEGIN
  LOOP
    PERFORM pg_stat_clear_snapshot();
    SELECT pid, state, coalesce(wait_event_type || ':' || wait_event, 'CPU') INTO mpid, st, w
      FROM pg_stat_activity WHERE application_name = '$measured_app' AND query LIKE '%measured run%';
    IF st = 'active' THEN
      seen := true;
      SELECT count(*) INTO n FROM pg_aios WHERE pid = mpid;
      s := s + n; c := c + 1; mx := greatest(mx, n);
      waits := jsonb_set(waits, ARRAY[w], to_jsonb(coalesce((waits->>w)::int, 0) + 1));
    ELSIF seen OR clock_timestamp() - t0 > interval '120 s' THEN
      EXIT;
    END IF;
    PERFORM pg_sleep(0.002);
  END LOOP;
  RAISE NOTICE 'aios:%:%:%:%', c, CASE WHEN c > 0 THEN round(s::numeric / c, 2) END, mx, waits;
END \$\$;};
	my $s = { out => '', err => '' };
	# on the command line: IPC::Run feeds standard input only when pumped
	$s->{h} = IPC::Run::start([ $node->installed_command('psql'), '-X', '-q', '-d', $node->connstr('postgres'), '-c', $do ],
		'<', \undef, '>', \$s->{out}, '2>', \$s->{err});
	Time::HiRes::sleep(0.1);
	return $s;
}

# What the sampler saw: { samples, mean, max, wait } (wait: the commonest
# wait event); samples 0 when it never saw the statement.
sub finish_aios_sampler
{
	my ($s) = @_;
	$s->{h}->finish;
	my ($n, $mean, $max, $waits) = $s->{err} =~ /aios:(\d+):([\d.]*):(\d+):(\{.*\})/;
	my $w = eval { JSON::PP::decode_json($waits // '{}') } // {};
	my ($wait) = sort { $w->{$b} <=> $w->{$a} || $a cmp $b } keys %$w;
	return { samples => $n // 0, mean => $mean // '', max => $max // '', wait => $wait // '' };
}

# The session's own relation reads so far from pg_stat_io (PostgreSQL
# 18: pg_stat_get_backend_io; its pending counts flushed first, which
# takes a statement of its own): a line "io|reads|bytes|ms".
my $io_so_far = "SELECT pg_stat_force_next_flush();\n"
  . "SELECT 'io', coalesce(sum(reads), 0), coalesce(sum(read_bytes), 0), round(coalesce(sum(read_time), 0)::numeric, 3) "
  . "FROM pg_stat_get_backend_io(pg_backend_pid()) WHERE object = 'relation';\n";

# $statement run in a session of its own named $measured_app, after
# $setup (SET commands), timed by EXPLAIN ANALYZE (TIMING OFF, BUFFERS)
# where $explain is true, else by psql: { seconds, read, hit (shared
# blocks, '' without EXPLAIN), backend_cpu_ms (its user and system time,
# from /proc: 10 ms ticks), io_reads, io_read_bytes, io_read_ms (what
# pg_stat_io counted for the session's relation reads during the
# statement, PostgreSQL 18 where $major says so, else ''), script }. Dies
# with psql's error. The run starts settled (settle_fs): the test clusters
# run with fsync off, so what the runs before wrote (WAL, other tables)
# would otherwise be written back while this one reads.
sub measured_run
{
	my ($node, $setup, $statement, $explain, $major) = @_;
	settle_fs($node->data_dir);
	my $measured = $explain ? "EXPLAIN (ANALYZE, TIMING OFF, BUFFERS, FORMAT JSON) $statement" : $statement;
	my $io = ($major // 0) >= 18 ? $io_so_far : '';
	my $script = "SET application_name = '$measured_app'; $setup\n$io"
	  . "SELECT 'cpu', pg_read_file('/proc/self/stat');\n"
	  . "\\timing on\n/* measured run */ $measured;\n\\timing off\n"
	  . "SELECT 'cpu', pg_read_file('/proc/self/stat');\n$io";
	my ($out, $err) = ('', '');
	IPC::Run::run([ $node->installed_command('psql'), '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d',
			$node->connstr('postgres') ], '<', \$script, '>', \$out, '2>', \$err)
	  or die "$err\n";
	# utime and stime, fields 14 and 15 of /proc/PID/stat, in 10 ms ticks
	my @cpu = map { my @f = split ' ', s/^.*\) //sr; ($f[11] + $f[12]) * 10 } $out =~ /^cpu\|(.*)$/mg;
	my ($ms) = $out =~ /^Time: ([\d.]+) ms/m;
	my ($read, $hit) = ('', '');
	if ($explain)
	{
		my ($json) = $out =~ /(\[\s*\{.*\}\s*\])/s;
		my $plan = eval { JSON::PP::decode_json($json)->[0] } // {};
		$ms = $plan->{'Execution Time'} // $ms;
		($read, $hit) = ($plan->{Plan}{'Shared Read Blocks'} // '', $plan->{Plan}{'Shared Hit Blocks'} // '');
	}
	die "no time in psql's output: $out\n" unless defined $ms;
	my @io = map { [ split /\|/ ] } $out =~ /^io\|(.*)$/mg;
	my %io = @io == 2
	  ? (io_reads => $io[1][0] - $io[0][0], io_read_bytes => $io[1][1] - $io[0][1],
		io_read_ms => sprintf('%.1f', $io[1][2] - $io[0][2]))
	  : (io_reads => '', io_read_bytes => '', io_read_ms => '');
	return { seconds => $ms / 1000, read => $read, hit => $hit,
		backend_cpu_ms => @cpu == 2 ? $cpu[1] - $cpu[0] : '', %io, script => $script };
}

# Storage $st's read_ahead_kb set to $ra (a number, or default: what its
# device had when tools/storage made it), where the cluster user may (a
# loop device tools/storage made); elsewhere it stays as it is, and the
# rows say what it was.
sub set_read_ahead
{
	my ($st, $ra) = @_;
	my $v = $ra eq 'default' ? $st->{read_ahead_kb} : $ra;
	my $file = ($st->{device} // '') =~ /^(\d+):(\d+)$/ ? "/sys/dev/block/$st->{device}/queue/read_ahead_kb" : '';
	return unless $file && -w $file && $v =~ /^\d+$/;
	open my $fh, '>', $file or return;
	print $fh "$v\n";
	close $fh;
	return;
}

1;
