# The distribution's META.json (PGXN, specification 1.0) kept true: it
# keeps the specification (Uringprobe::PgxnMeta, shown to find each kind
# of break in a made-up copy), and says what the extension is: its name,
# abstract and version those of uringprobe.control and meson.build, the
# files it names present, the oldest PostgreSQL the one the headers
# accept, the oldest liburing Debian 12's (which pg18-separate is built
# against), and every server's installed control file and install script
# of that version.
use strict;
use warnings;
use FindBin;
use JSON::PP ();
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;
use Uringprobe::PgxnMeta qw(meta_problems semver_of);

my $root = "$FindBin::RealBin/..";
my $meta = JSON::PP->new->decode(slurp_file("$root/META.json"));
is_deeply([ meta_problems($meta) ], [], 'META.json keeps the specification');

# each kind of break, found in a copy
my %broken = (
	'name is missing' => sub { delete $_[0]{name} },
	'version is not a semantic version' => sub { $_[0]{version} = '0.1' },
	'license is not a license of the specification' => sub { $_[0]{license} = 'gpl' },
	'meta-spec version is not 1.0.x' => sub { $_[0]{'meta-spec'}{version} = '2.0.0' },
	'provides uringprobe: version is not a semantic version' => sub { $_[0]{provides}{uringprobe}{version} = '0.1' },
	'provides uringprobe has no file' => sub { delete $_[0]{provides}{uringprobe}{file} },
	'prereqs runtime requires: PostgreSQL has no version range' => sub { $_[0]{prereqs}{runtime}{requires}{PostgreSQL} = '15' },
	'prereqs: running is not a phase' => sub { $_[0]{prereqs}{running} = {} },
	'system_requires is not a key of the specification (custom keys begin with x_)' =>
	  sub { $_[0]{system_requires} = {} },
	'release_status is not stable, testing or unstable' => sub { $_[0]{release_status} = 'beta' },
);
for my $problem (sort keys %broken)
{
	my $copy = JSON::PP->new->decode(JSON::PP->new->encode($meta));
	$broken{$problem}->($copy);
	ok((grep { $_ eq $problem } meta_problems($copy)), "a copy broken so: '$problem' found");
}

# what the extension is
# control_says(FILE, KEY): KEY's quoted value in control file FILE
sub control_says
{
	my ($file, $key) = @_;
	my ($value) = slurp_file($file) =~ /^\Q$key\E\s*=\s*'([^']*)'/m;
	return $value;
}
my $comment = control_says("$root/uringprobe.control", 'comment');
my $default_version = control_says("$root/uringprobe.control", 'default_version');
my ($meson_version) = slurp_file("$root/meson.build") =~ /^\s*version:\s*'([^']*)'/m;
my $ext = $meta->{provides}{uringprobe};
is($meta->{name}, 'uringprobe', 'the distribution is named as the extension');
is_deeply([ sort keys %{ $meta->{provides} } ], ['uringprobe'], 'it provides the one extension');
is($ext->{abstract}, $comment, "the extension's abstract is the control file's comment");
is($meta->{abstract}, $comment, "the distribution's abstract too");
is($ext->{version}, semver_of($default_version), "its version is the control file's default_version ($default_version)");
is($meta->{version}, $ext->{version}, "the distribution's version is the extension's");
is(semver_of($meson_version), $ext->{version}, "meson.build's project version too ($meson_version)");
ok(-f "$root/$ext->{file}", "its file ($ext->{file}) is there");
ok(-f "$root/$ext->{docfile}", "its docfile ($ext->{docfile}) is there");

my ($oldest_pg) = slurp_file("$root/src/pg/postgres_headers.hpp") =~ /PG_VERSION_NUM < (\d+)0000/;
is($meta->{prereqs}{runtime}{requires}{PostgreSQL}, "$oldest_pg.0.0",
	"the oldest PostgreSQL required is the one the headers accept ($oldest_pg)");
my $liburing = `dpkg-query -W -f '\${Version}' liburing-dev 2>/dev/null`;
SKIP:
{
	skip 'no Debian liburing-dev installed to compare with', 1 unless $liburing =~ /^(\d+)\.(\d+)/;
	is($meta->{x_system_requires}{liburing}, "$1.$2.0",
		"the oldest liburing required is Debian's, which pg18-separate is built against ($liburing)");
}

# every server's installed control file and install script
for my $server (servers())
{
	my $share = Uringprobe::Cluster::pg_config_says($server->{pg_config}, '--sharedir');
	my $installed = control_says("$share/extension/uringprobe.control", 'default_version');
	is($installed, $default_version, "$server->{name}: the installed control file's default_version");
	ok(-f "$share/extension/uringprobe--$default_version.sql",
		"$server->{name}: the install script of version $default_version is installed");
}

done_testing();
