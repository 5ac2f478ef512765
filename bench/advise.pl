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
#   perl bench/advise.pl ADVICE.tsv
# Environment: URINGPROBE_ADVISE_BUDGET (20), URINGPROBE_ADVISE_CONNECTIONS
# (950), URINGPROBE_ADVISE_FS ("xfs ext4"), URINGPROBE_ADVISE_CONCURRENCY (4).
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Time::HiRes;
use Uringprobe::Bench;
use Uringprobe::Benchmarks qw(setting);
use Uringprobe::Cluster;
use Uringprobe::Reads;

my ($out_file) = @ARGV or die "usage: advise.pl ADVICE.tsv\n";
my $budget = setting('URINGPROBE_ADVISE_BUDGET');
my $connections = setting('URINGPROBE_ADVISE_CONNECTIONS');
my $concurrency = setting('URINGPROBE_ADVISE_CONCURRENCY');
die "URINGPROBE_ADVISE_BUDGET must be a positive number of seconds, got '$budget'\n"
  unless $budget =~ /^\d+(\.\d+)?$/ && $budget > 0;
die "URINGPROBE_ADVISE_CONNECTIONS must be a positive integer, got '$connections'\n"
  unless $connections =~ /^[1-9]\d*$/;
my ($fs) = bench_filesystems(setting('URINGPROBE_ADVISE_FS'));

my @servers = servers();
plan_cells(scalar @servers);
my @cols = qw(server io_method max_connections topic setting current advice confidence evidence cost
  seconds budget);
my $tsv = tsv_open($out_file, @cols);
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
		settings => [ "max_connections = $connections", 'shared_buffers = 128MB',
			"uringprobe.advise_tablespaces = '*'" ],
		fail_ok => 1);
	if (!$started)
	{
		my ($why) = slurp_file($node->logfile) =~ /(FATAL:[^\n]*|could not [^\n]*)/;
		tsv_row($tsv, $server->{name}, $io_method, $connections, 'server', 'start', '',
			'did not start: ' . ($why // 'see its log'), '', '', '', '', $budget);
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
	my @spaces = ((map { [ $_->{name}, $_->{dir} ] } @$fs), (map { [ $_->{name} =~ s/[^a-z0-9]/_/gr, $_->{dir} ] } @storage));
	for my $space (@spaces)
	{
		my ($name, $where) = @$space;
		my $dir = "$where/advise_$server->{name}";
		mkdir $dir or die "mkdir $dir: $!\n" unless -d $dir;
		$node->safe_psql('postgres', "CREATE TABLESPACE $name LOCATION '$dir'");
	}
	my $sql = "SELECT concat_ws(E'\\x1f', topic, setting, current, advice, confidence, evidence, cost) "
	  . "FROM uringprobe_advise(budget => '$budget s', concurrency => $concurrency)";
	ran(Uringprobe::Bench::shell_words('psql', '-d', 'postgres', '-c', $sql));
	my $t0 = Time::HiRes::time;
	my $out = $node->safe_psql('postgres', $sql);
	my $took = sprintf('%.1f', Time::HiRes::time - $t0);
	for my $line (split /\n/, $out)
	{
		my @c = split /\x1f/, $line, 7;
		tsv_row($tsv, $server->{name}, $io_method, $connections, (map { s/[\t\n]/ /gr } @c), $took, $budget);
	}
	$node->safe_psql('postgres', "DROP TABLESPACE $_->[0]") for @spaces;
	$node->stop;
}
close $tsv;
