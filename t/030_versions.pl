# The extension's versions and upgrade path, as contrib keeps them: the
# scripts it ships are those `uringprobe-cli sql --scripts` makes (every
# version's install script, each upgrade), listed alike by the Makefile and
# meson.build, the newest version the control file's, META.json's and
# debian/changelog's. On every server: version 0.1 created as it was, then
# ALTER EXTENSION ... UPDATE, leaves the catalog a fresh CREATE EXTENSION
# makes (every member object, each function's arguments, result, symbol
# and grants); the upgrade's function answers; 0.1 has none of it.
use strict;
use warnings;
use FindBin;
use JSON::PP ();
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;
use Uringprobe::PgxnMeta qw(semver_of);

my $root = "$FindBin::RealBin/..";
my @servers = servers();
my $cli = "$servers[0]{bindir}/uringprobe-cli";
my @scripts = split /\n/, `$cli sql --scripts`;
is($?, 0, 'uringprobe-cli sql --scripts');
ok(scalar(grep { /^uringprobe--[\d.]+--[\d.]+\.sql$/ } @scripts), 'an upgrade script among them: ' . join(' ', @scripts));

my ($data_built) = slurp_file("$root/Makefile") =~ /^DATA_built = (.*)$/m;
is_deeply([ sort split ' ', $data_built ], [ sort @scripts ], "the Makefile's DATA_built are those scripts");
my ($meson_list) = slurp_file("$root/meson.build") =~ /^foreach script : \[(.*)\]$/m;
is_deeply([ sort $meson_list =~ /'([^']+)'/g ], [ sort @scripts ], "meson.build's scripts are those");

my ($newest) = $scripts[-1] =~ /^uringprobe--([\d.]+)\.sql$/;
my ($default_version) = slurp_file("$root/uringprobe.control") =~ /^default_version\s*=\s*'([^']*)'/m;
is($newest, $default_version, "the newest script's version is the control file's default_version ($default_version)");
my $meta = JSON::PP->new->decode(slurp_file("$root/META.json"));
is($meta->{version}, semver_of($default_version), "... META.json's");
my ($changelog) = slurp_file("$root/debian/changelog") =~ /^uringprobe \(([^)]*)\)/;
is($changelog, $default_version, "... and debian/changelog's newest entry's");

# The extension's catalog in a database, a line per member object: its
# description, and for a function its arguments, result, symbol and
# grants; for a type its columns.
my $catalog_sql = q{
SELECT string_agg(line, E'\n' ORDER BY line) FROM (
  SELECT pg_describe_object(d.classid, d.objid, 0) || coalesce(
           (SELECT ' (' || pg_get_function_arguments(p.oid) || ') -> ' || pg_get_function_result(p.oid)
                   || ' ' || p.prosrc || ' ' || p.provolatile::text || p.proparallel::text || ' ' || coalesce(p.proacl::text, '')
            FROM pg_proc p WHERE d.classid = 'pg_proc'::regclass AND p.oid = d.objid),
           (SELECT ' (' || string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attnum) || ')'
            FROM pg_type t JOIN pg_attribute a ON a.attrelid = t.typrelid
            WHERE d.classid = 'pg_type'::regclass AND t.oid = d.objid AND a.attnum > 0),
           '') AS line
  FROM pg_depend d
  WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
    AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'uringprobe')) members};

for my $server (@servers)
{
	my ($node) = start_cluster(server => $server, name => "versions_$server->{name}");
	my $name = $server->{name};
	$node->safe_psql('postgres', 'CREATE DATABASE fresh; CREATE DATABASE upgraded');
	$node->safe_psql('fresh', 'CREATE EXTENSION uringprobe');
	$node->safe_psql('upgraded', "CREATE EXTENSION uringprobe VERSION '0.1'");
	is($node->safe_psql('upgraded', "SELECT extversion FROM pg_extension WHERE extname = 'uringprobe'"),
		'0.1', "$name: version 0.1 created");
	is($node->safe_psql('upgraded', "SELECT count(*) FROM pg_proc WHERE proname = 'uringprobe_monitor'"),
		'0', "$name: 0.1 has no uringprobe_monitor()");
	my $before = $node->safe_psql('upgraded', $catalog_sql);
	$node->safe_psql('upgraded', 'ALTER EXTENSION uringprobe UPDATE');
	is($node->safe_psql('upgraded', "SELECT extversion FROM pg_extension WHERE extname = 'uringprobe'"),
		$default_version, "$name: ALTER EXTENSION UPDATE brings it to $default_version");
	my $fresh = $node->safe_psql('fresh', $catalog_sql);
	my $upgraded = $node->safe_psql('upgraded', $catalog_sql);
	is($upgraded, $fresh, "$name: the upgraded catalog is a fresh install's");
	isnt($before, $fresh, "$name: ... which 0.1's was not");
	like($fresh, qr/^function uringprobe_monitor\(\) .* \{.*pg_monitor=X/m,
		"$name: uringprobe_monitor() among it, executable by pg_monitor");
	is($node->safe_psql('upgraded', 'SELECT count(*) FROM uringprobe_monitor()'),
		'1', "$name: the upgraded uringprobe_monitor() answers, one row");
	$node->stop;
}

done_testing();
