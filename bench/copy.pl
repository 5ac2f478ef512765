# Concurrent COPY into one table (report 3): a fixed total volume copied
# by 1, 2, 4, 8 ... pgbench clients (bench/copy.sql, data from
# bench/copy-data.pl) into one table on the filesystem under test, over
# server x io_method x file_extend_method x filesystem. The whole cluster
# lives on that filesystem (URINGPROBE_COPY_PLACEMENT=cluster, the default,
# as in the seed), or only the table's tablespace (=tablespace: WAL and
# catalogs elsewhere, the relation's extension alone on the filesystem).
# Per run: the wall time, and where the server has pg_stat_io (16+) the
# relation extensions, their bytes (18+) and time (track_io_timing).
# file_extend_method (PostgreSQL 18.2+) is switched by a reload, so its
# values take turns in one cluster; each run copies into a freshly created
# table.
#
# The servers: the last of each major version (pg18-combined, pg15), and
# the on-request servers named by URINGPROBE_COPY_ON_REQUEST that were set
# up (pg18-noprior: 18 without commit 82a4edab, report 3's regression, with
# its default file_extend_method and the first io_method alone) or make
# bench's SERVERS names; or
# URINGPROBE_COPY_SERVERS.
#
#   perl bench/copy.pl RUNS.tsv TABLE.tsv EXTENDS.tsv RATIOS.tsv
# TABLE.tsv has the report's shape: a row per filesystem and client count,
# per configuration (PostgreSQL 15 first, then the on-request servers,
# then the others) the median seconds and their min-max. EXTENDS.tsv: per
# configuration, filesystem and client count the median relation
# extensions, MB per extension (18+) and their time from pg_stat_io
# (blank before 16).
# Environment: URINGPROBE_COPY_MB (256, in total per run),
# URINGPROBE_COPY_CHUNK_MB (16, per COPY), URINGPROBE_COPY_CLIENTS
# ("1 2 4 8"), URINGPROBE_COPY_ROUNDS (3), URINGPROBE_COPY_FS ("xfs ext4"),
# URINGPROBE_COPY_IO_METHODS ("sync io_uring"), URINGPROBE_COPY_SERVERS,
# URINGPROBE_COPY_ON_REQUEST, URINGPROBE_COPY_SETTINGS, URINGPROBE_COPY_ROWS
# (narrow: one integer, the default; wide: 110-byte lines).
use strict;
use warnings;
use Cwd;
use File::Path ();
use PostgreSQL::Test::Utils;
use Uringprobe::BenchScript;
use Uringprobe::Manifest qw(setting);
use Uringprobe::Cluster;

my ($runs_file, $table_file, $extends_file, $ratios_file) = @ARGV;
die "usage: copy.pl RUNS.tsv TABLE.tsv EXTENDS.tsv RATIOS.tsv\n" unless $ratios_file;
my $total_mb = setting('URINGPROBE_COPY_MB');
my $chunk_mb = setting('URINGPROBE_COPY_CHUNK_MB');
my @clients = split ' ', setting('URINGPROBE_COPY_CLIENTS');
my $rounds = setting('URINGPROBE_COPY_ROUNDS');
my ($fs_ok, $fs_missing) = bench_filesystems(setting('URINGPROBE_COPY_FS'));
my @fs = @$fs_ok;
my @io_methods = split ' ', setting('URINGPROBE_COPY_IO_METHODS');
my $placement = setting('URINGPROBE_COPY_PLACEMENT');
# the rows' shape (bench/copy-data.pl): how many pages one batch fills.
# narrow by default: its batches need 8 pages or fewer, so mdzeroextend
# uses zeros or fallocate as the waiters come and go (wide rows need
# about 10, always fallocate)
my $rows = setting('URINGPROBE_COPY_ROWS');
die "URINGPROBE_COPY_ROWS must be wide or narrow, got '$rows'\n" unless $rows =~ /^(wide|narrow)$/;
# settings for every cluster, after the benchmark's own ("fsync = on;
# wal_level = replica": the test clusters run with fsync off and minimal WAL)
my @extra_settings = grep { /\S/ } split /;/, setting('URINGPROBE_COPY_SETTINGS');
for (@extra_settings)
{
	die "URINGPROBE_COPY_SETTINGS: '$_' is not 'name = value'\n" unless /^\s*[a-z_.]+\s*=\s*\S/;
}
die "URINGPROBE_COPY_PLACEMENT must be cluster or tablespace, got '$placement'\n"
  unless $placement =~ /^(cluster|tablespace)$/;

my $copies = int($total_mb / $chunk_mb);
die "URINGPROBE_COPY_MB ($total_mb) must be a multiple of URINGPROBE_COPY_CHUNK_MB ($chunk_mb)\n"
  unless $copies * $chunk_mb == $total_mb;
for my $c (@clients)
{
	die "$copies copies of $chunk_mb MB cannot be split evenly among $c clients\n" if $copies % $c;
}

my @servers = servers(on_request => 1);
if (my $names = setting('URINGPROBE_COPY_SERVERS'))
{
	my %want = map { $_ => 1 } split ' ', $names;
	@servers = grep { $want{ $_->{name} } } @servers;
	die "none of the servers '$names' is set up\n" unless @servers;
}
else
{
	my %asked = map { $_ => 1 } split ' ',
	  join(' ', setting('URINGPROBE_COPY_ON_REQUEST'), $ENV{URINGPROBE_BENCH_SERVERS} // '');
	my %last = map { $_->{major} => $_ } grep { !$_->{on_request} } @servers;
	@servers = grep { $_->{on_request} ? $asked{ $_->{name} } : $last{ $_->{major} } == $_ } @servers;
}
# The report's column order: PostgreSQL 15, the regression, the others.
sub rank { my ($s) = @_; return $s->{major} < 18 ? 0 : $s->{on_request} ? 1 : 2; }
@servers = sort { rank($a) <=> rank($b) } @servers;
my ($client) = sort { $b->{major} <=> $a->{major} } @servers;
my $pgbench = "$client->{bindir}/pgbench";
# An on-request server (the regression) runs with its default
# file_extend_method alone, and under the first io_method alone.
sub io_methods_of
{
	my ($server) = @_;
	return $server->{major} < 18 ? ('sync') : $server->{on_request} ? ($io_methods[0]) : @io_methods;
}
sub fems_of
{
	my ($server, $has_fem) = @_;
	return ('n/a') unless $has_fem;
	return $server->{on_request} ? ('posix_fallocate') : qw(posix_fallocate write_zeros);
}
# file_extend_method came with 18.2; run_cell() asks the server itself
plan_cells($rounds * @fs * @clients * scalar(map {
	my @fems = fems_of($_, $_->{major} > 18 || ($_->{major} == 18 && $_->{minor} >= 2));
	(io_methods_of($_)) x @fems
} @servers));

# absolute: the server reads it
my $datafile = Cwd::abs_path($PostgreSQL::Test::Utils::tmp_check) . "/copy-data.csv";
system('perl', 'bench/copy-data.pl', $datafile, $chunk_mb, $rows) == 0 or die "could not generate $datafile\n";
my $columns = $rows eq 'narrow' ? 'c int' : 'id bigint, n int, t text';

my $runs = runs_open($runs_file, qw(server io_method file_extend_method fs clients round seconds
	  relation_mb extends extend_mb extend_ms), @settle_cols);
my %seconds;    # config -> fs -> clients -> [seconds]
my %extends;    # config -> fs -> clients -> [[extends, extend_mb, extend_ms]]
my @configs;

# One cluster per server and io_method (placement tablespace: a tablespace
# per filesystem in it), or per server, io_method and filesystem (cluster).
for my $server (@servers)
{
	for my $io_method (io_methods_of($server))
	{
		my @groups = $placement eq 'cluster' ? (map { [$_] } @fs) : ([@fs]);
		run_cell($server, $io_method, @$_) for @groups;
	}
}

# A tablespace per filesystem of the cell (placement tablespace), else
# pg_default for each: by filesystem name.
sub cell_tablespaces
{
	my ($node, $server, $io_method, @cell_fs) = @_;
	my %tablespace = map { $_->{name} => 'pg_default' } @cell_fs;
	return %tablespace unless $placement eq 'tablespace';
	for my $fs (@cell_fs)
	{
		my $dir = "$fs->{dir}/ts-$server->{name}-$io_method";
		mkdir $dir or die "cannot create $dir: $!\n";
		$node->safe_psql('postgres', "CREATE TABLESPACE ts_$fs->{name} LOCATION '$dir'");
		$tablespace{ $fs->{name} } = "ts_$fs->{name}";
	}
	return %tablespace;
}

# One round of one cell ($id: server, io_method, filesystem,
# file_extend_method, clients): a new table, the COPYs by pgbench, what
# pg_stat_io saw. $ctx: the cluster's node, server, io_method, its
# tablespaces by filesystem, and the file_extend_method now set.
sub copy_round
{
	my ($ctx, $id, $round, $label) = @_;
	my ($node, $server, $io_method) = @$ctx{qw(node server io_method)};
	my (undef, undef, $fs_name, $fem, $c) = split /\t/, $id;
	my $fs = $ctx->{fs_named}{$fs_name};
	my $cell = "$server->{name}/$io_method";
	my $config = join('/', $server->{name}, $io_method, $fem eq 'n/a' ? () : $fem);
	if ($fem ne 'n/a' && $fem ne $ctx->{fem})
	{
		$node->safe_psql('postgres', "ALTER SYSTEM SET file_extend_method = '$fem'");
		$node->reload;
		poll_until($node, "SELECT current_setting('file_extend_method') = '$fem'")
		  or die "$cell: file_extend_method did not become $fem\n";
		$ctx->{fem} = $fem;
	}
	cell("copy $config on $fs->{name}, $c clients, $label",
		server => $server->{name}, io_method => $io_method, file_extend_method => $fem, fs => $fs->{name}, clients => $c);
	my $has_stat_io = $server->{major} >= 16;
	$node->safe_psql('postgres',
		"DROP TABLE IF EXISTS copy_target; "
		  . "CREATE TABLE copy_target ($columns) TABLESPACE $ctx->{tablespace}{$fs->{name}}; "
		  . 'CHECKPOINT'
		  . ($has_stat_io ? "; SELECT pg_stat_reset_shared('io')" : ''));
	my $start = settle_fs($fs->{dir});
	my ($out, $err, $seconds) = bench_command([
		$pgbench, '-n', '-c', $c, '-j', $c, '-t', $copies / $c, '-f', 'bench/copy.sql',
		'-D', "datafile=$datafile", '-h', $node->host, '-p', $node->port, 'postgres' ]);
	die "$cell: pgbench failed:\n$out\n$err\n" unless $out =~ /actually processed: $copies\/$copies/;
	wait_for_clients_gone($node);
	my ($rel_mb, $extends, $extend_mb, $extend_ms) = split /\|/, $node->safe_psql('postgres',
		"SELECT pg_relation_size('copy_target') / 1048576"
		  . ($has_stat_io
			? ", sum(extends), "
			  . ($server->{major} >= 18 ? "round(sum(extend_bytes) / 1048576.0, 1)" : 'NULL')
			  . ", round(sum(extend_time)::numeric, 1) FROM pg_stat_io WHERE object = 'relation'"
			: ", NULL, NULL, NULL"));
	run_row($runs, $server->{name}, $io_method, $fem, $fs->{name}, $c, $round,
		sprintf('%.3f', $seconds), $rel_mb, $extends, $extend_mb, $extend_ms, @$start{@settle_cols});
	push @{ $seconds{$config}{ $fs->{name} }{$c} }, $seconds;
	push @{ $extends{$config}{ $fs->{name} }{$c} }, [ $extends, $extend_mb, $extend_ms ];
	return { seconds => $seconds };
}

sub run_cell
{
	my ($server, $io_method, @cell_fs) = @_;
	my $cell = "$server->{name}/$io_method";
	my $name = "copy_$server->{name}_$io_method" . ($placement eq 'cluster' ? "_$cell_fs[0]{name}" : '');
	my ($node) = start_cluster(
		server => $server,
		io_method => $io_method,
		name => $name,
		data_on => $placement eq 'cluster' ? $cell_fs[0]{dir} : undef,
		settings => [
			'max_wal_size = 4GB', 'checkpoint_timeout = 30min', 'shared_buffers = 256MB',
			'track_io_timing = on', 'max_connections = ' . (20 + 2 * (sort { $b <=> $a } @clients)[0]),
			@extra_settings
		]);
	my $has_fem = $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_settings WHERE name = 'file_extend_method'");
	my @fems = fems_of($server, $has_fem);
	for my $fem (@fems)
	{
		my $config = join('/', $server->{name}, $io_method, $fem eq 'n/a' ? () : $fem);
		push @configs, $config unless grep { $_ eq $config } @configs;
	}
	my %ctx = (node => $node, server => $server, io_method => $io_method, fem => '',
		fs_named => { map { $_->{name} => $_ } @cell_fs },
		tablespace => { cell_tablespaces($node, $server, $io_method, @cell_fs) });
	my @cells = map {
		my $fs = $_;
		map { my $fem = $_; map { join("\t", $server->{name}, $io_method, $fs->{name}, $fem, $_) } @clients } @fems
	} @cell_fs;
	repeat_rounds('copy', \@cells, $rounds, sub { return copy_round(\%ctx, @_); });
	$node->stop;
	# The scratch filesystem must hold the next cluster: this one's data
	# (a COPY of narrow rows leaves more than 4 times its volume in table
	# and WAL) or tablespaces go now.
	my @gone = $placement eq 'cluster'
	  ? (readlink($node->data_dir) // die "$cell: the data directory is not on $cell_fs[0]{name}\n")
	  : (map { "$_->{dir}/ts-$server->{name}-$io_method" } @cell_fs);
	File::Path::rmtree($_) for @gone;
	-e $_ and die "$cell: could not remove $_\n" for @gone;
}
close $runs;

my $table = tsv_open($table_file, 'fs', 'clients', 'status', map { ($_, "$_ min-max") } @configs);
for my $fs (@fs)
{
	for my $c (@clients)
	{
		tsv_row($table, $fs->{name}, $c, 'ok',
			map { my $t = $seconds{$_}{ $fs->{name} }{$c}; (sprintf('%.3f', median(@$t)), spread(@$t)) } @configs);
	}
}
# a filesystem that could not be measured keeps its rows, empty, with why
for my $fs (@$fs_missing)
{
	tsv_row($table, $fs->{name}, $_, "not measured: $fs->{status}", ('') x (2 * @configs)) for @clients;
}
close $table;

# MB per extension: the median run's bytes over its extensions (18+).
my $ext = tsv_open($extends_file, qw(config fs clients extends mb_per_extend extend_ms));
for my $config (@configs)
{
	for my $fs (@fs)
	{
		for my $c (@clients)
		{
			my @r = @{ $extends{$config}{ $fs->{name} }{$c} };
			my @per = map { $_->[0] && $_->[1] ne '' ? $_->[1] / $_->[0] : () } @r;
			tsv_row($ext, $config, $fs->{name}, $c, median(map { $_->[0] } @r),
				@per ? sprintf('%.3f', median(@per)) : '', median(map { $_->[2] } @r));
		}
	}
}
close $ext;

# The table's comparisons, each with its 95% bootstrap interval over the
# runs: every configuration against the first (PostgreSQL 15 where it
# ran), and the regression against the fixed server where both ran.
my $ratios = tsv_open($ratios_file, qw(fs clients comparison ratio ratio_ci95 ratio_verdict));
my ($fixed) = grep { m{^pg18-combined/sync/posix_fallocate$} } @configs;
my ($regression) = grep { m{^pg18-noprior/} } @configs;
my @pairs = ((map { [ $_, $configs[0] ] } @configs[ 1 .. $#configs ]), ($fixed && $regression ? [ $regression, $fixed ] : ()));
for my $fs (@fs)
{
	for my $c (@clients)
	{
		for my $pair (@pairs)
		{
			my ($x, $y) = map { $seconds{$_}{ $fs->{name} }{$c} // [] } @$pair;
			tsv_row($ratios, $fs->{name}, $c, "$pair->[0] / $pair->[1]",
				@$x && @$y ? sprintf('%.2f', median(@$x) / median(@$y)) : '', ratio_interval($x, $y));
		}
	}
}
close $ratios;
