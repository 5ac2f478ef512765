# pg18-noprior, PostgreSQL 18 built without commit 82a4edab: it says what it
# is, and it extends a relation as PostgreSQL 16 did before the fix. One
# session COPYs the same rows into a fresh table on pg18-noprior and on
# pg18-combined (the same source and build with the commit). Alone, a bulk
# insert sees no lock waiters: without the commit every extension is the
# pages one batch of rows needs; with it each is at least what the session
# extended before, so they grow to 64 blocks. pg_stat_io counts the
# extensions and their bytes.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Path ();
use IPC::Run;
use Uringprobe::Cluster;

my %server = map { $_->{name} => $_ } servers(on_request => 1);
my $noprior = $server{'pg18-noprior'} or die "no pg18-noprior server was set up\n";
my $combined = $server{'pg18-combined'} or die "no pg18-combined server was set up\n";

like(`$noprior->{pg_config} --version`, qr/^PostgreSQL 18\.\d+-noprior$/m,
	'pg18-noprior: pg_config names the flavour');
unlike(`$combined->{pg_config} --version`, qr/noprior/, 'pg18-combined: pg_config does not');

# 40000 rows of ~200 bytes: about 1000 heap pages.
my $rows = join('', map { "$_\t" . ('x' x 200) . "\n" } 1 .. 40000);

# Extensions and blocks per extension of one session's COPY.
sub copy_extensions
{
	my ($server) = @_;
	my ($node) = start_cluster(server => $server, name => "copy_$server->{name}");
	$node->safe_psql('postgres', 'CREATE TABLE t (id int, filler text)');
	my $version = $node->safe_psql('postgres', 'SELECT version()');
	$node->safe_psql('postgres', "SELECT pg_stat_reset_shared('io')");
	# psql reads the rows from its script, after the command
	my ($rc, $out, $err) = $node->psql('postgres', "COPY t FROM STDIN;\n$rows\\.\n");
	die "$server->{name}: COPY failed: $err\n" if $rc;
	# the counts of a backend are flushed when it exits, which it does
	# after psql has: once it is gone
	wait_for_clients_gone($node);
	my ($extends, $blocks, $size) = split /\|/, $node->safe_psql('postgres',
		"SELECT sum(extends), sum(extend_bytes) / current_setting('block_size')::int, "
		  . "pg_relation_size('t') / current_setting('block_size')::int "
		  . "FROM pg_stat_io WHERE object = 'relation' AND backend_type = 'client backend'");
	$node->stop;
	return { version => $version, extends => $extends, blocks => $blocks, size => $size };
}

my $without = copy_extensions($noprior);
my $with = copy_extensions($combined);
like($without->{version}, qr/^PostgreSQL 18\.\d+-noprior /, 'pg18-noprior: version() names the flavour');
note(sprintf('%s: %d extensions, %d blocks, table %d blocks', $_->[0], @{ $_->[1] }{qw(extends blocks size)}))
  for [ 'pg18-noprior', $without ], [ 'pg18-combined', $with ];
for ([ 'pg18-noprior', $without ], [ 'pg18-combined', $with ])
{
	my ($name, $r) = @$_;
	cmp_ok($r->{size}, '>=', 900, "$name: the rows fill the table");
	cmp_ok($r->{blocks}, '>=', $r->{size}, "$name: pg_stat_io counts every block of the table extended");
}
my ($mean_without, $mean_with) = map { $_->{blocks} / $_->{extends} } $without, $with;
cmp_ok($mean_without, '<=', 16,
	'pg18-noprior: extensions stay the size of one batch of rows (no prior extensions taken into account)');
cmp_ok($mean_with, '>=', 32, 'pg18-combined: extensions grow with what the session extended before');
cmp_ok($without->{extends}, '>=', 3 * $with->{extends},
	'pg18-noprior needs at least three times the extensions for the same rows');
# The patch, on copies of the file it changes: it applies to the source
# pg18-combined was built from, removes 82a4edab's line and nothing of the
# original is written; where it does not apply, one error naming it and
# nothing left behind.
my $hio = 'src/backend/access/heap/hio.c';
my $prior_line = 'extend_by_pages = Max(extend_by_pages, bistate->already_extended_by);';
my $tmp = PostgreSQL::Test::Utils::tempdir();
local $ENV{URINGPROBE_CACHE} = "$tmp/cache";
File::Path::make_path("$tmp/$_/src/backend/access/heap") for qw(released other);
my $released = slurp_file("$combined->{source}/$hio");
like($released, qr/\Q$prior_line\E/, "pg18-combined's source has 82a4edab's line");
append_to_file("$tmp/released/$hio", $released);
append_to_file("$tmp/other/$hio", "/* not hio.c */\n");
my ($ok, $out, $err) = run_patch_source("$tmp/released", "$tmp/patched");
ok($ok, 'the patch applies to the released source') or diag($err);
my $patched = slurp_file("$tmp/patched/$hio");
unlike($patched, qr/\Q$prior_line\E/, "the patched source lacks 82a4edab's line");
like($patched, qr/already_extended_by \+= extend_by_pages/, '... and keeps the rest of hio.c');
is(slurp_file("$tmp/released/$hio"), $released, 'the released source is not written');
($ok, $out, $err) = run_patch_source("$tmp/other", "$tmp/broken");
ok(!$ok, 'a source the patch does not apply to is refused');
like($err, qr/error: pg18-noprior-hio\.patch does not apply to \Q$tmp\E\/other/, '... naming the patch and the source');
ok(!-e "$tmp/broken" && !-e "$tmp/broken.tmp" && !-e "$tmp/broken.tmp.log", '... and leaves nothing behind');

sub run_patch_source
{
	my ($base, $dest) = @_;
	my ($stdout, $stderr) = ('', '');
	my $ok = IPC::Run::run([ 'tools/patch-source', $base, $dest, 'patches/pg18-noprior-hio.patch' ],
		'>', \$stdout, '2>', \$stderr);
	return ($ok, $stdout, $stderr);
}

done_testing();
