# What the benchmark scripts share: medians, rows parsed from psql or CLI
# output, TSV files with a header, and the scratch filesystems to measure on.
package Uringprobe::Bench;

use strict;
use warnings;
use Exporter 'import';
use PostgreSQL::Test::Utils ();
use Uringprobe::Cluster;

our @EXPORT = qw(median least spread parse_rows tsv_open tsv_row bench_filesystems
  cli_row);

# Median of the defined, non-empty values; '' when there are none.
sub median
{
	my @v = sort { $a <=> $b } grep { defined && $_ ne '' } @_;
	return '' unless @v;
	return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
}

sub least { my @v = sort { $a <=> $b } @_; return $v[0]; }

# "min-max" of the values, to two decimals.
sub spread { my @v = sort { $a <=> $b } @_; return sprintf('%.2f-%.2f', $v[0], $v[-1]); }


# The first row of `uringprobe-cli @args --format tsv`, as a hash.
sub cli_row
{
	my ($cli, @args) = @_;
	my ($out, $err) = PostgreSQL::Test::Utils::run_command([ $cli, @args, '--format', 'tsv' ]);
	die "uringprobe-cli @args failed: $err\n" unless $out =~ /\n/;
	return (parse_rows($out, '\t'))[0];
}

# Rows of $text (a header line, then data; columns split by $sep) as hashes.
sub parse_rows
{
	my ($text, $sep) = @_;
	my @lines = grep { length } split /\n/, $text;
	my @hdr = split /$sep/, shift @lines;
	return map { my %r; @r{@hdr} = split /$sep/, $_, -1; \%r } @lines;
}

# A TSV file with header @cols.
sub tsv_open
{
	my ($file, @cols) = @_;
	open my $fh, '>', $file or die "cannot write $file: $!\n";
	$fh->autoflush(1);
	print $fh join("\t", @cols), "\n";
	return $fh;
}

sub tsv_row
{
	my ($fh, @values) = @_;
	print $fh join("\t", map { $_ // '' } @values), "\n";
}

# The scratch filesystems named in $names (space-separated) that are
# mounted; dies naming the ones that are not, unless none were asked for.
sub bench_filesystems
{
	my ($names) = @_;
	my %fs = map { $_->{name} => $_ } scratch_filesystems();
	my @picked;
	for my $name (split ' ', $names)
	{
		my $fs = $fs{$name} or die "no scratch filesystem '$name' (have: @{[ sort keys %fs ]})\n";
		if ($fs->{status} ne 'ok')
		{
			warn "skipping filesystem $name: $fs->{status}\n";
			next;
		}
		push @picked, $fs;
	}
	die "none of the filesystems '$names' is available\n" unless @picked;
	return @picked;
}

1;
