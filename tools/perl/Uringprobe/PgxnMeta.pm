# PGXN's META.json, version 1.0 of its specification: what a file breaks
# of it (meta_problems), and a control file's version as the semantic
# version PGXN wants (semver_of: '0.1' is 0.1.0).
package Uringprobe::PgxnMeta;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT_OK = qw(meta_problems semver_of);

my $semver = qr/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
# a term: two characters or more, no slash, backslash, space or control
my $term = qr{^[^\s/\\[:cntrl:]]{2,}$};
my %licenses = map { $_ => 1 } qw(agpl_3 apache_1_1 apache_2_0 artistic_1 artistic_2 bsd freebsd gfdl_1_2
  gfdl_1_3 gpl_1 gpl_2 gpl_3 lgpl_2_1 lgpl_3_0 mit mozilla_1_0 mozilla_1_1 openssl perl_5 postgresql qpl_1_0
  ssleay sun zlib open_source restricted unrestricted unknown);
my %top = map { $_ => 1 } qw(name version abstract maintainer license provides meta-spec description
  generated_by tags no_index prereqs release_status resources);
my %phases = map { $_ => 1 } qw(configure build test runtime develop);
my %relations = map { $_ => 1 } qw(requires recommends suggests conflicts);

sub semver_of
{
	my ($version) = @_;
	return $version =~ /^\d+\.\d+$/ ? "$version.0" : $version;
}

# A version range: 0, a version (at least it), or operators and versions
# joined by commas.
sub range_ok
{
	my ($range) = @_;
	return 1 if defined $range && $range eq '0';
	return 0 unless defined $range && !ref $range;
	for my $part (split /\s*,\s*/, $range)
	{
		my ($op, $v) = $part =~ /^\s*(==|!=|<=|>=|<|>)?\s*(\S+)$/ or return 0;
		return 0 unless $v =~ $semver;
	}
	return 1;
}

# What META ($meta, decoded) breaks of the specification, one line each;
# none where it keeps it.
sub meta_problems
{
	my ($meta) = @_;
	my @p;
	return ('not a JSON object') unless ref $meta eq 'HASH';
	for my $key (qw(name version abstract maintainer license provides meta-spec))
	{
		push @p, "$key is missing" unless exists $meta->{$key};
	}
	push @p, "$_ is not a key of the specification (custom keys begin with x_)"
	  for grep { !$top{$_} && !/^[xX]_/ } sort keys %$meta;
	push @p, 'name is not a term' if defined $meta->{name} && $meta->{name} !~ $term;
	push @p, 'version is not a semantic version' if defined $meta->{version} && $meta->{version} !~ $semver;
	push @p, 'abstract is empty' if exists $meta->{abstract} && !length($meta->{abstract} // '');
	my $m = $meta->{maintainer};
	push @p, 'maintainer is neither a string nor a list of strings'
	  if exists $meta->{maintainer} && !(defined $m && !ref $m || ref $m eq 'ARRAY' && @$m && !grep { ref } @$m);
	my $l = $meta->{license};
	push @p, 'license is not a license of the specification'
	  if exists $meta->{license} && !(defined $l && !ref $l && $licenses{$l}
		|| ref $l eq 'ARRAY' && @$l && !grep { ref || !$licenses{$_} } @$l || ref $l eq 'HASH' && %$l);
	my $ms = $meta->{'meta-spec'};
	push @p, 'meta-spec version is not 1.0.x'
	  if exists $meta->{'meta-spec'} && !(ref $ms eq 'HASH' && ($ms->{version} // '') =~ /^1\.0\.\d+$/);
	push @p, provides_problems($meta->{provides}) if exists $meta->{provides};
	push @p, prereqs_problems($meta->{prereqs}) if exists $meta->{prereqs};
	push @p, 'release_status is not stable, testing or unstable'
	  if exists $meta->{release_status} && ($meta->{release_status} // '') !~ /^(stable|testing|unstable)$/;
	return @p;
}

sub provides_problems
{
	my ($provides) = @_;
	return ('provides names no extension') unless ref $provides eq 'HASH' && %$provides;
	my @p;
	for my $ext (sort keys %$provides)
	{
		my $e = $provides->{$ext};
		push @p, "provides $ext is not an object" and next unless ref $e eq 'HASH';
		push @p, "provides $ext has no file" unless length($e->{file} // '');
		push @p, "provides $ext: version is not a semantic version" unless ($e->{version} // '') =~ $semver;
	}
	return @p;
}

sub prereqs_problems
{
	my ($prereqs) = @_;
	return ('prereqs is not an object') unless ref $prereqs eq 'HASH';
	my @p;
	for my $phase (sort keys %$prereqs)
	{
		push @p, "prereqs: $phase is not a phase" and next unless $phases{$phase};
		for my $rel (sort keys %{ $prereqs->{$phase} })
		{
			push @p, "prereqs $phase: $rel is not a relation" and next unless $relations{$rel};
			my $reqs = $prereqs->{$phase}{$rel};
			push @p, "prereqs $phase $rel: $_ has no version range" for grep { !range_ok($reqs->{$_}) } sort keys %$reqs;
		}
	}
	return @p;
}

1;
