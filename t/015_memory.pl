# A backend's memory does not grow with calls: in one session, each
# experiment is called 100 times to warm up and then 1000 times more, in
# small sizes; across the 1000 calls the backend's resident set
# (uringprobe_backend().vmrss_kb) may grow by at most 512 kB (half a
# kilobyte a call) and the total of pg_backend_memory_contexts by at most
# 16 kB (16 bytes a call): a leak of C++ memory, a ring, a mapping, a
# WaitEventSet or a palloc in a long-lived context shows up as steady
# growth far beyond either. Every experiment runs on the newest server;
# the WaitEventSet, whose owner differs between PostgreSQL versions
# (resource owner on 17+, memory context before), on every server.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

my $rss_bound_kb = 512;
my $contexts_bound = 16 * 1024;
my $scratch = default_scratch_dir();
my @calls = (
	[ rings => "uringprobe_rings(rings => 2, depth => 8, forks => 1)" ],
	[ 'extend, 2 sessions on io_uring' =>
		  "uringprobe_extend('$scratch', 'mdzeroextend', 'io_uring', max_blocks => 16, total_mb => 1, sessions => 2, write_data => true)" ],
	[ 'completions of nops' => "uringprobe_completions('nop', 8, completions => 64)" ],
	[ 'completions of recvs' => "uringprobe_completions('recv', 8, completions => 64)" ],
	[ 'events, multishot polls' => "uringprobe_events('uring_multishot', 2, 20)" ],
	[ 'events, WaitEventSet' => "uringprobe_events('pg_waiteventset', 2, 20)" ],
	[ 'the environment report' => "uringprobe_environment()" ]);

my ($newest) = sort { $b->{major} <=> $a->{major} } servers();
for my $server (servers())
{
	my ($node) = start_cluster(server => $server, name => "memory_$server->{name}",
		settings => [ "uringprobe.scratch_dirs = '$scratch'" ]);
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
	for my $call (@calls)
	{
		my ($what, $sql) = @$call;
		next unless $server->{name} eq $newest->{name} || $sql =~ /pg_waiteventset/;
		my $out = $node->safe_psql('postgres', <<"SQL");
CREATE FUNCTION pg_temp.calls(n int) RETURNS void LANGUAGE plpgsql AS \$\$
BEGIN
    FOR i IN 1 .. n LOOP
        PERFORM count(*) FROM $sql;
    END LOOP;
END \$\$;
CREATE FUNCTION pg_temp.memory() RETURNS text LANGUAGE sql AS \$\$
    SELECT (SELECT vmrss_kb FROM uringprobe_backend()) || ' ' ||
           (SELECT sum(total_bytes) FROM pg_backend_memory_contexts)
\$\$;
SELECT pg_temp.calls(100);
SELECT pg_temp.memory();
SELECT pg_temp.calls(1000);
SELECT pg_temp.memory();
SQL
		my @lines = grep { /^\d+ \d+$/ } split /\n/, $out;
		is(scalar @lines, 2, "$server->{name}, $what: measured before and after") or next;
		my ($rss0, $ctx0) = split ' ', $lines[0];
		my ($rss1, $ctx1) = split ' ', $lines[1];
		note("$server->{name}, $what: 1000 calls: RSS $rss0 -> $rss1 kB, memory contexts $ctx0 -> $ctx1 bytes");
		cmp_ok($rss1 - $rss0, '<=', $rss_bound_kb,
			"$server->{name}, $what: 1000 calls grow the backend's RSS by at most $rss_bound_kb kB ($rss0 -> $rss1)");
		cmp_ok($ctx1 - $ctx0, '<=', $contexts_bound,
			"$server->{name}, $what: ... and its memory contexts by at most $contexts_bound bytes ($ctx0 -> $ctx1)");
	}
	$node->stop;
}

done_testing();
