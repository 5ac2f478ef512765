# What uringprobe_advise() tells a DBA on each server measured: a cluster
# per server at report 1's max_connections (URINGPROBE_ADVISE_CONNECTIONS)
# under PostgreSQL 18's default io_method, worker, as a DBA deciding whether
# to switch to io_uring has it (under io_uring the server's own rings would
# take the memlock the backend needs to measure as many), with a
# tablespace on each scratch filesystem of URINGPROBE_ADVISE_FS and on each
# storage kind tools/storage made for the reads benchmark (its 1 ms
# device: latency_1ms), all of them listed in uringprobe.advise_tablespaces, then one
# call with budget URINGPROBE_ADVISE_BUDGET seconds. Writes every row, with
# the server and how long the call took against its budget; the report
# opens with them, each linked to the benchmark cells of the same question.
#
# The rows are read by column (Uringprobe::AdviseCall), written with the
# server's name; which storage each tablespace is on goes to
# TABLESPACES.tsv for the checks.
#
# Then each row that advises a value is checked on its workload in the
# same cluster, the advised value against the other
# (Uringprobe::AdviceCheck's advised_pair), taking turns,
# URINGPROBE_ADVISE_CHECK_ROUNDS rounds (more where noisy):
#   file_extend_method (<space>)  concurrent COPY (bench/copy.sql) by
#       URINGPROBE_ADVISE_CONCURRENCY pgbench clients of
#       URINGPROBE_ADVISE_CHECK_COPY_MB MB of narrow rows in all into a new
#       table in that tablespace, switched by a reload; the share of the
#       sessions' time pg_stat_io counted as extension;
#   io_method, where cold reads decided it  a cold sequential scan of
#       a URINGPROBE_ADVISE_CHECK_TABLE_MB MB table in the tablespace the
#       reads were measured in, the server restarted into each io_method
#       and the table's pages dropped from the page cache first;
#   effective_io_concurrency (<space>)  a cold bitmap heap scan of 0.25%
#       of such a table's rows in that tablespace, under the advised and
#       the current value (ALTER TABLESPACE ... SET), the server restarted
#       for each;
#   maintenance_io_concurrency (<space>)  a cold VACUUM of that table
#       after a tenth of its rows were updated in place, the same way
#       (before 18, whose VACUUM does not read ahead by it, a cold ANALYZE
#       of a 300-row sample);
#   in the tablespace its reads were measured in:
#   io_workers  URINGPROBE_ADVISE_CONCURRENCY sessions at once, each a
#       cold bitmap heap scan of its own 0.25% of the rows (pgbench), under
#       each count, the sessions' own share of the bytes read beside;
#   io_combine_limit  a cold sequential scan with reads of each size
#       (io_max_combine_limit the larger);
#   read_ahead_kb, on a storage kind that makes reads wait  a cold
#       sequential scan under io_method sync with the device's readahead at
#       each value.
# A read setting kept runs against the point of its curve it was held to
# (compared_with) where URINGPROBE_ADVISE_CHECK_KEEPS is 1; raised or
# lowered, against the current value.
# (io_method decided by the connection cost and the ring layout are
# checked on the churn benchmark's runs; the other read settings, and
# these elsewhere, on the reads benchmark's.)
#
#   perl bench/advise.pl ADVICE.tsv CHECKS.tsv TABLESPACES.tsv
# Environment: URINGPROBE_ADVISE_BUDGET (20), URINGPROBE_ADVISE_CONNECTIONS
# (950), URINGPROBE_ADVISE_FS ("xfs ext4"), URINGPROBE_ADVISE_CONCURRENCY (4),
# URINGPROBE_ADVISE_CHECK_ROUNDS (3), URINGPROBE_ADVISE_CHECK_COPY_MB (64),
# URINGPROBE_ADVISE_CHECK_TABLE_MB (256), URINGPROBE_ADVISE_CHECK_KEEPS (1).
use strict;
use warnings;
use Cwd ();
use PostgreSQL::Test::Utils;
use Time::HiRes;
use Uringprobe::BenchScript;
use Uringprobe::AdviceCheck qw(advised_pair decided_by_reads);
use Uringprobe::AdviseCall;
use Uringprobe::Manifest qw(setting);
use Uringprobe::Cluster;
use Uringprobe::Reads;

my ($out_file, $checks_file, $spaces_file) = @ARGV;
die "usage: advise.pl ADVICE.tsv CHECKS.tsv TABLESPACES.tsv\n" unless $spaces_file;
my $budget = setting('URINGPROBE_ADVISE_BUDGET');
my $connections = setting('URINGPROBE_ADVISE_CONNECTIONS');
my $concurrency = setting('URINGPROBE_ADVISE_CONCURRENCY');
die "URINGPROBE_ADVISE_BUDGET must be a positive number of seconds, got '$budget'\n"
  unless $budget =~ /^\d+(\.\d+)?$/ && $budget > 0;
die "URINGPROBE_ADVISE_CONNECTIONS must be a positive integer, got '$connections'\n"
  unless $connections =~ /^[1-9]\d*$/;
my $check_rounds = setting('URINGPROBE_ADVISE_CHECK_ROUNDS');
my $copy_mb = setting('URINGPROBE_ADVISE_CHECK_COPY_MB');
my $table_mb = setting('URINGPROBE_ADVISE_CHECK_TABLE_MB');
my $check_keeps = setting('URINGPROBE_ADVISE_CHECK_KEEPS');
die "URINGPROBE_ADVISE_CHECK_KEEPS must be 0 or 1, got '$check_keeps'\n" unless $check_keeps =~ /^[01]$/;
for ([ URINGPROBE_ADVISE_CHECK_ROUNDS => $check_rounds, 1 ], [ URINGPROBE_ADVISE_CHECK_COPY_MB => $copy_mb, $concurrency ],
	[ URINGPROBE_ADVISE_CHECK_TABLE_MB => $table_mb, 1 ])
{
	my ($name, $v, $least) = @$_;
	die "$name must be a whole number, at least $least, got '$v'\n" unless $v =~ /^\d+$/ && $v >= $least;
}
# the COPY's data: one chunk per client (bench/copy-data.pl's narrow rows:
# extensions of 8 blocks or fewer unless sessions wait)
my $copy_chunk_mb = int($copy_mb / $concurrency);
my $copy_data = Cwd::abs_path($PostgreSQL::Test::Utils::tmp_check) . '/advise-copy-data.csv';
my ($fs) = bench_filesystems(setting('URINGPROBE_ADVISE_FS'));

my @servers = servers();
plan_cells(scalar @servers);
# advise.tsv: the server, then the function's columns (known once a
# server answers: the rows of one that did not start wait for them)
my @head = qw(server io_method max_connections);
my @tail = qw(seconds budget);
my ($tsv, @cols, @waiting);
sub advice_row
{
	my (%row) = @_;
	push @waiting, \%row;
	return flush_advice();
}
sub flush_advice
{
	return unless @cols;
	$tsv //= tsv_open($out_file, @head, @cols, @tail);
	for my $r (@waiting)
	{
		tsv_row($tsv, map { ($r->{$_} // '') =~ s/[\t\n]/ /gr } @head, @cols, @tail);
	}
	@waiting = ();
	return;
}
my $checks = runs_open($checks_file, qw(server setting scope_name workload value round seconds share));
my $spaces = tsv_open($spaces_file, qw(server tablespace storage));
system('perl', 'bench/copy-data.pl', $copy_data, $copy_chunk_mb, 'narrow') == 0 or die "could not generate $copy_data\n";
for my $server (@servers)
{
	my $io_method = $server->{major} >= 18 ? 'worker' : 'sync';
	cell("advise $server->{name}, $io_method, max_connections $connections",
		server => $server->{name}, io_method => $io_method, max_connections => $connections);
	my ($node, $started) = start_cluster(
		server => $server,
		io_method => $io_method,
		name => "bench_advise_$server->{name}",
		# (its own cluster: advise may write in every tablespace of it)
		# (track_io_timing: the COPY checks' extension time in pg_stat_io)
		settings => [ "max_connections = $connections", 'shared_buffers = 128MB', 'track_io_timing = on',
			"uringprobe.advise_tablespaces = '*'" ],
		fail_ok => 1);
	if (!$started)
	{
		my ($why) = slurp_file($node->logfile) =~ /(FATAL:[^\n]*|could not [^\n]*)/;
		advice_row(server => $server->{name}, io_method => $io_method, max_connections => $connections,
			topic => 'server', setting => 'start', action => 'none', advice => 'did not start: ' . ($why // 'see its log'),
			budget => $budget);
		next;
	}
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
	# a tablespace on each scratch filesystem, and on each storage kind
	# the reads benchmark measures (its cold reads weigh on io_method)
	# (read ahead as the reads benchmark's first runs have it, so that the
	# advice and the workload it is checked on see the same device)
	my @storage = grep { $_->{status} eq 'ok' && $_->{name} ne 'disk' } storage_kinds();
	my ($ra) = split ' ', setting('URINGPROBE_READS_READ_AHEAD');
	set_read_ahead($_, $ra) for @storage;
	# (a tablespace named after its filesystem or storage kind, in a name
	# SQL takes unquoted; which is which written down for the checks)
	my @spaces = ((map { [ $_->{name}, $_->{dir}, $_->{name} ] } @$fs),
		(map { [ $_->{name} =~ s/[^a-z0-9]/_/gr, $_->{dir}, $_->{name} ] } @storage));
	for my $space (@spaces)
	{
		my ($name, $where, $storage) = @$space;
		my $dir = "$where/advise_$server->{name}";
		mkdir $dir or die "mkdir $dir: $!\n" unless -d $dir;
		$node->safe_psql('postgres', "CREATE TABLESPACE $name LOCATION '$dir'");
		tsv_row($spaces, $server->{name}, $name, $storage);
	}
	# (pg_default on the machine's disk where the data directory is on the
	# same filesystem as the disk storage kind: the oltp benchmark applies
	# its advice there)
	my ($disk) = grep { $_->{status} eq 'ok' && $_->{name} eq 'disk' } storage_kinds();
	tsv_row($spaces, $server->{name}, 'pg_default', 'disk')
	  if $disk && (stat $disk->{dir})[0] == (stat $node->data_dir)[0];
	my $args = "budget => '$budget s', concurrency => $concurrency";
	ran(Uringprobe::BenchScript::shell_words('psql', '-d', 'postgres', '-c', "SELECT * FROM uringprobe_advise($args)"));
	@cols = advise_columns($node);
	my $t0 = Time::HiRes::time;
	my @rows = advise_rows($node, $args);
	my $took = sprintf('%.1f', Time::HiRes::time - $t0);
	for my $row (@rows)
	{
		$row->{server} = $server->{name};
		advice_row(%$row, io_method => $io_method, max_connections => $connections, seconds => $took, budget => $budget);
	}
	# (read settings checked where reads wait: the storage kinds'
	# tablespaces, each with its storage; left with read ahead at $ra)
	my %waits = map { ($_->{name} =~ s/[^a-z0-9]/_/gr) => $_ } @storage;
	check_rows($server, $node, $io_method, \%waits, @rows);
	set_read_ahead($_, $ra) for @storage;
	$node->safe_psql('postgres', "DROP TABLESPACE $_->[0]") for @spaces;
	$node->stop;
}
# (no server answered: the rows of those that did not start, as they are)
@cols = qw(topic setting action advice) unless @cols;
flush_advice();
close $tsv if $tsv;
close $checks;
close $spaces;

# Each row of @rows (one server's advice) that advises file_extend_method
# or io_method checked on its workload in $node, which runs under
# $io_method and is left so.
sub check_rows
{
	my ($server, $node, $io_method, $waits, @rows) = @_;
	my $has_fem = $node->safe_psql('postgres', "SELECT count(*) FROM pg_settings WHERE name = 'file_extend_method'");
	# the table the scans read, one per tablespace, made once
	my %tables;
	my $table_in = sub {
		my ($space) = @_;
		return $tables{$space} //= do
		{
			my $t = "advise_check_$space";
			create_read_table($node, $t, $space, $table_mb * $read_table_rows_per_mb);
			$t;
		};
	};
	for my $row (@rows)
	{
		my @pair = advised_pair($row) or next;
		if ($row->{setting} eq 'file_extend_method' && $row->{scope} eq 'tablespace' && $has_fem)
		{
			check_copy($server, $node, $row, @pair);
		}
		elsif (defined(my $space = decided_by_reads($row)))
		{
			check_cold_scan($server, $node, $row, $space, $table_in->($space), @pair);
			use_io_method($node, $io_method);
		}
		elsif ($row->{action} eq 'keep' && !$check_keeps)
		{
			next;
		}
		elsif ($row->{setting} eq 'effective_io_concurrency')
		{
			check_bitmap_scan($server, $node, $row, $table_in->($row->{scope_name}), @pair);
		}
		elsif ($row->{setting} eq 'maintenance_io_concurrency')
		{
			check_maintenance_reads($server, $node, $row, $table_in->($row->{scope_name}), @pair);
		}
		elsif ($row->{setting} eq 'io_workers' && $row->{measured_in} ne '')
		{
			check_concurrent_bitmap_scans($server, $node, $row, $table_in->($row->{measured_in}), @pair);
		}
		elsif ($row->{setting} eq 'io_combine_limit' && $row->{measured_in} ne '')
		{
			check_read_size($server, $node, $row, $table_in->($row->{measured_in}), @pair);
		}
		elsif ($row->{setting} eq 'read_ahead_kb' && (my $st = $waits->{ $row->{measured_in} }))
		{
			check_read_ahead($server, $node, $row, $st, $table_in->($row->{measured_in}), @pair);
			use_io_method($node, $io_method) if $server->{major} >= 18;
		}
	}
	$node->safe_psql('postgres', "DROP TABLE $_") for values %tables;
	return;
}

# An advice row's setting as one word, for a cell's key
# (file_extend_method of tablespace xfs: file_extend_method:xfs).
sub cell_word
{
	my ($row) = @_;
	return ($row->{setting} =~ s/\s+/_/gr) . ($row->{scope_name} eq '' ? '' : ":$row->{scope_name}");
}

# $row's values taking turns, $check_rounds rounds (more where noisy):
# $run->($value) readies the cluster for the value and returns the seconds
# of one run of $workload (and a share to record beside, if any); each run
# a row of CHECKS.tsv.
sub check_values
{
	my ($server, $row, $workload, $run, @values) = @_;
	my ($setting, $scope) = @$row{qw(setting scope_name)};
	repeat_rounds('advise-checks', [ map { "$server->{name}\t$setting\t$scope\t$_" } @values ], $check_rounds, sub {
		my ($id, $round, $label) = @_;
		my $value = (split /\t/, $id)[3];
		cell("advise check: $server->{name} " . row_key($row) . ", $value, $label",
			server => $server->{name}, setting => cell_word($row), value => $value);
		my ($seconds, $share) = $run->($value);
		run_row($checks, $server->{name}, $setting, $scope, $workload, $value, $round, sprintf('%.4f', $seconds),
			$share // '');
		return { seconds => $seconds };
	});
	return;
}

# One cold run of $query on table $t (the server restarted: nothing in
# shared buffers; the table's pages dropped from the page cache) after
# $setup: its seconds. $no_plan: a statement EXPLAIN cannot take (VACUUM).
sub cold_run
{
	my ($server, $node, $t, $setup, $query, $no_plan) = @_;
	$node->restart;
	$node->safe_psql('postgres', "SELECT uringprobe_reads(rel => '$t', passes => 0)");
	my $r = measured_run($node, $setup, $query, !$no_plan, $server->{major});
	ran("psql -d postgres <<'EOF'\n$r->{script}\nEOF");
	return $r->{seconds};
}

# The block device (major:minor) under tablespace $space of $node, ''
# where there is none (tmpfs, btrfs: no one device of its own).
sub tablespace_device
{
	my ($node, $space) = @_;
	my $dir = $node->safe_psql('postgres',
		"SELECT coalesce(nullif(pg_tablespace_location(oid), ''), current_setting('data_directory')) "
		  . "FROM pg_tablespace WHERE spcname = '$space'");
	my $dev = (stat $dir)[0] // return '';
	my $major = (($dev >> 8) & 0xfff) | (($dev >> 32) & ~0xfff);
	my $minor = ($dev & 0xff) | (($dev >> 12) & ~0xff);
	return -e "/sys/dev/block/$major:$minor/stat" ? "$major:$minor" : '';
}

# Bytes block device $device (major:minor) has read so far (its stat's
# sectors read), undef where it has none.
sub device_read_bytes
{
	my ($device) = @_;
	return undef unless $device =~ /^\d+:\d+$/;
	open my $fh, '<', "/sys/dev/block/$device/stat" or return undef;
	my @f = split ' ', scalar(<$fh> // '');
	return @f > 2 ? $f[2] * 512 : undef;
}

# Bytes the io workers of $node have had read from storage so far
# (/proc/<pid>/io's read_bytes: the cluster user's own processes).
sub io_worker_read_bytes
{
	my ($node) = @_;
	my $sum = 0;
	for my $pid (split /\n/, $node->safe_psql('postgres', "SELECT pid FROM pg_stat_activity WHERE backend_type = 'io worker'"))
	{
		open my $fh, '<', "/proc/$pid/io" or next;
		while (my $line = <$fh>) { $sum += $1 if $line =~ /^read_bytes:\s*(\d+)/; }
	}
	return $sum;
}

# io_workers raised or lowered: $concurrency sessions at once, each a cold
# bitmap heap scan of its own 0.25% of table $t's rows, under each count
# (the server restarted for each), the time until the last ends; beside
# it, where the tablespace has a block device, the share of the bytes the
# device read that the io workers did not: the sessions' own reads (a
# full queue's synchronous fallback, and their index pages), counted live.
sub check_concurrent_bitmap_scans
{
	my ($server, $node, $row, $t, @counts) = @_;
	my $space = $row->{measured_in};
	my $device = tablespace_device($node, $space);
	my $script = Cwd::abs_path($PostgreSQL::Test::Utils::tmp_check) . '/advise-concurrent-bitmap.sql';
	open my $fh, '>', $script or die "$script: $!\n";
	# (r is uniform over 0 .. 2^20 - 1: each client's 0.25% its own)
	print $fh "SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off;\n",
	  "\\set lo :client_id * 2621\n", "SELECT count(pad) FROM $t WHERE r >= :lo AND r < :lo + 2621;\n";
	close $fh;
	check_values($server, $row, "$concurrency concurrent cold bitmap heap scans of 0.25% each of $table_mb MB in tablespace $space",
		sub {
			my ($count) = @_;
			$node->safe_psql('postgres', "ALTER SYSTEM SET io_workers = $count");
			$node->restart;
			$node->safe_psql('postgres', "SELECT uringprobe_reads(rel => '$t', passes => 0)");
			my @cmd = ("$server->{bindir}/pgbench", '-n', '-c', $concurrency, '-j', $concurrency, '-t', 1, '-f', $script,
				'-h', $node->host, '-p', $node->port, 'postgres');
			settle_fs($node->data_dir);
			my ($before, $workers) = (device_read_bytes($device), io_worker_read_bytes($node));
			my ($out, $err, $seconds) = bench_command([@cmd]);
			die "$server->{name}: pgbench failed:\n$out\n$err\n" unless $out =~ /actually processed: $concurrency\/$concurrency/;
			return $seconds unless defined $before;
			my $read = device_read_bytes($device) - $before;
			my $by_workers = io_worker_read_bytes($node) - $workers;
			# (at least none: the device's count and the workers' are taken
			# at different layers)
			my $own = $read - $by_workers;
			return ($seconds, $read > 0 ? sprintf('%.3f', ($own > 0 ? $own : 0) / $read) : '');
		},
		@counts);
	$node->safe_psql('postgres', 'ALTER SYSTEM RESET io_workers');
	return;
}

# io_combine_limit raised or lowered: a cold sequential scan of table $t
# with reads of each size (io_max_combine_limit the larger of the two).
sub check_read_size
{
	my ($server, $node, $row, $t, @sizes) = @_;
	my ($max) = sort { $b <=> $a } map { /^(\d+)kB$/ ? $1 : die "io_combine_limit '$_' is not in kB\n" } @sizes;
	$node->safe_psql('postgres', "ALTER SYSTEM SET io_max_combine_limit = '${max}kB'");
	check_values($server, $row, "cold sequential scan of $table_mb MB in tablespace $row->{measured_in}",
		sub {
			my ($size) = @_;
			cold_run($server, $node, $t, "$seqscan_only SET max_parallel_workers_per_gather = 0; SET io_combine_limit = '$size';",
				"SELECT count(*) FROM $t");
		},
		@sizes);
	$node->safe_psql('postgres', 'ALTER SYSTEM RESET io_max_combine_limit');
	$node->restart;
	return;
}

# read_ahead_kb raised on the device of storage $st: a cold sequential
# scan of table $t there under io_method sync (the scans that lean on the
# kernel's readahead) with each readahead.
sub check_read_ahead
{
	my ($server, $node, $row, $st, $t, @kbs) = @_;
	use_io_method($node, 'sync') if $server->{major} >= 18;
	check_values($server, $row, "cold sequential scan of $table_mb MB in tablespace $row->{measured_in}, io_method sync",
		sub {
			my ($kb) = @_;
			set_read_ahead($st, $kb);
			cold_run($server, $node, $t, "$seqscan_only SET max_parallel_workers_per_gather = 0;", "SELECT count(*) FROM $t");
		},
		@kbs);
	return;
}

# $row's two file_extend_method values taking turns: concurrent COPY into
# a new table in its tablespace.
sub check_copy
{
	my ($server, $node, $row, @values) = @_;
	my ($setting, $space) = @$row{qw(setting scope_name)};
	my $workload = "concurrent COPY into tablespace $space ($concurrency clients)";
	my $copies = $concurrency;
	repeat_rounds('advise-checks', [ map { "$server->{name}\t$setting\t$space\t$_" } @values ], $check_rounds, sub {
		my ($id, $round, $label) = @_;
		my (undef, undef, undef, $fem) = split /\t/, $id;
		cell("advise check: $server->{name} " . row_key($row) . ", $fem, $label",
			server => $server->{name}, setting => cell_word($row), value => $fem);
		$node->safe_psql('postgres', "ALTER SYSTEM SET file_extend_method = '$fem'");
		$node->reload;
		poll_until($node, "SELECT current_setting('file_extend_method') = '$fem'")
		  or die "$server->{name}: file_extend_method did not become $fem\n";
		$node->safe_psql('postgres',
			"DROP TABLE IF EXISTS copy_target; CREATE TABLE copy_target (c int) TABLESPACE $space; CHECKPOINT; "
			  . "SELECT pg_stat_reset_shared('io')");
		settle_fs($node->data_dir);
		my @cmd = ("$server->{bindir}/pgbench", '-n', '-c', $concurrency, '-j', $concurrency, '-t', 1, '-f', 'bench/copy.sql',
			'-D', "datafile=$copy_data", '-h', $node->host, '-p', $node->port, 'postgres');
		my ($out, $err, $seconds) = bench_command([@cmd]);
		die "$server->{name}: pgbench failed:\n$out\n$err\n" unless $out =~ /actually processed: $copies\/$copies/;
		wait_for_clients_gone($node);
		my $extend_ms = $node->safe_psql('postgres', "SELECT coalesce(sum(extend_time), 0) FROM pg_stat_io WHERE object = 'relation'");
		# the share of the sessions' time: extend_time is summed over them
		run_row($checks, $server->{name}, $setting, $space, $workload, $fem, $round, sprintf('%.3f', $seconds),
			sprintf('%.3f', $extend_ms / 1000 / ($seconds * $concurrency)));
		return { seconds => $seconds };
	});
	$node->safe_psql('postgres', 'DROP TABLE copy_target; ALTER SYSTEM RESET file_extend_method');
	$node->reload;
	return;
}

# $node restarted under io_method $m (worker: its io_workers as set);
# where it runs under $m already, restarted only if $always.
sub use_io_method
{
	my ($node, $m, $always) = @_;
	if ($node->safe_psql('postgres', 'SHOW io_method') eq $m)
	{
		$node->restart if $always;
		return;
	}
	$node->append_conf('postgresql.conf', "io_method = $m\n");
	$node->restart;
	my $got = $node->safe_psql('postgres', 'SHOW io_method');
	die "io_method is '$got', expected '$m'\n" unless $got eq $m;
	return;
}

# $row's two maintenance_io_concurrency values of its tablespace taking
# turns (ALTER TABLESPACE ... SET, as advised): a cold VACUUM of table $t
# there after a tenth of its rows were updated in place (PostgreSQL 18's
# VACUUM reads the heap through a read stream that deep); before 18, whose
# VACUUM reads one block at a time, a cold ANALYZE (its sample's reads
# are prefetched that deep).
sub check_maintenance_reads
{
	my ($server, $node, $row, $t, @depths) = @_;
	my ($setting, $space) = @$row{qw(setting scope_name)};
	my $vacuum = $server->{major} >= 18;
	check_values($server, $row,
		$vacuum
		? "cold VACUUM of $table_mb MB in tablespace $space, a tenth of its rows updated"
		: "cold ANALYZE of $table_mb MB in tablespace $space, a sample of 300 rows",
		sub {
			my ($depth) = @_;
			$node->safe_psql('postgres', "ALTER TABLESPACE $space SET ($setting = $depth)");
			update_in_place($node, $t) if $vacuum;
			# (a sample of 300 rows: ANALYZE reads that many blocks of the
			# table's, in order, as it reads 30000 of a large table's)
			cold_run($server, $node, $t, $vacuum ? '' : 'SET default_statistics_target = 1;',
				($vacuum ? 'VACUUM' : 'ANALYZE') . " $t", 1);
		},
		@depths);
	$node->safe_psql('postgres', "ALTER TABLESPACE $space RESET ($setting)");
	return;
}

# $row's two effective_io_concurrency values of its tablespace taking
# turns (ALTER TABLESPACE ... SET, as advised): a cold bitmap heap scan of
# 0.25% of table $t's rows there, placed at random.
sub check_bitmap_scan
{
	my ($server, $node, $row, $t, @depths) = @_;
	my ($setting, $space) = @$row{qw(setting scope_name)};
	my $bitmap = 'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off;';
	check_values($server, $row, "cold bitmap heap scan of 0.25% of $table_mb MB in tablespace $space",
		sub {
			my ($depth) = @_;
			$node->safe_psql('postgres', "ALTER TABLESPACE $space SET ($setting = $depth)");
			# (r is uniform over 0 .. 2^20 - 1: 0.25% of the rows below 2621)
			cold_run($server, $node, $t, $bitmap, "SELECT count(pad) FROM $t WHERE r < 2621");
		},
		@depths);
	$node->safe_psql('postgres', "ALTER TABLESPACE $space RESET ($setting)");
	return;
}

# $row's two io_methods taking turns: a cold sequential scan of table $t
# in tablespace $space (the server restarted into the io_method).
sub check_cold_scan
{
	my ($server, $node, $row, $space, $t, @methods) = @_;
	check_values($server, $row, "cold sequential scan of $table_mb MB in tablespace $space",
		sub {
			my ($m) = @_;
			# (taken at cold_run's restart)
			$node->append_conf('postgresql.conf', "io_method = $m\n");
			my $seconds =
			  cold_run($server, $node, $t, "$seqscan_only SET max_parallel_workers_per_gather = 0;", "SELECT count(*) FROM $t");
			my $got = $node->safe_psql('postgres', 'SHOW io_method');
			die "io_method is '$got', expected '$m'\n" unless $got eq $m;
			return $seconds;
		},
		@methods);
	return;
}

