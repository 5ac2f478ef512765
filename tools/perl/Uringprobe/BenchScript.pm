# What the benchmark scripts share: medians, rows parsed from psql or CLI
# output, TSV files with a header, runs files, and the scratch filesystems
# to measure on; with the progress of cells (Uringprobe::BenchScript::Progress),
# the weather of runs (::Weather), a file run's settled start (::Settle)
# and adaptive repetitions (::Rounds), all exported from here.
package Uringprobe::BenchScript;

use strict;
use warnings;
use Exporter 'import';
use IPC::Run ();
use Time::HiRes ();
use Uringprobe::BenchScript::Progress;
use Uringprobe::BenchScript::Rounds;
use Uringprobe::BenchScript::Settle;
use Uringprobe::BenchScript::Weather;
use Uringprobe::Cluster;
use Uringprobe::Stats;

our @EXPORT = (@Uringprobe::Stats::EXPORT, @Uringprobe::BenchScript::Progress::EXPORT, @Uringprobe::BenchScript::Settle::EXPORT,
	qw(parse_rows tsv_open tsv_row bench_filesystems cli_row bench_query bench_command
	  ran runs_open run_row @weather_cols repeat_rounds));

# A runs file: its columns, then @weather_cols; run_row() writes a run's
# values (padded to the columns) and its weather since the cell began.
my %runs_columns;
sub runs_open
{
	my ($file, @cols) = @_;
	my $fh = tsv_open($file, @cols, @weather_cols);
	$runs_columns{ fileno($fh) } = scalar(@cols);
	return $fh;
}
sub run_row
{
	my ($fh, @values) = @_;
	my $n = $runs_columns{ fileno($fh) } // scalar(@values);
	push @values, '' while @values < $n;
	my @weather = $Uringprobe::BenchScript::Weather::weather->();
	note_disturbed("steal $weather[0]%, foreign $weather[1]%") if disturbed(@weather[ 0, 1 ]);
	return tsv_row($fh, @values, @weather);
}

# What each cell ran, to rerun one by hand: "cell<TAB>command" lines added
# to the file named by URINGPROBE_CELL_COMMANDS (make bench: cells.tsv).
sub ran
{
	my ($command) = @_;
	my $file = $ENV{URINGPROBE_CELL_COMMANDS} or return;
	open my $fh, '>>', $file or die "cannot write $file: $!\n";
	print $fh Uringprobe::BenchScript::Progress::current_cell() . "\t$command\n";
	close $fh or die "cannot write $file: $!\n";
	return;
}

sub shell_words
{
	return join ' ', map { m{^[\w./=:,+-]+$} ? $_ : "'" . s/'/'\\''/gr . "'" } @_;
}

# query_row() and PostgreSQL::Test::Utils::run_command(), recorded by ran()
# first; bench_command() also returns the seconds the command alone took,
# so that a benchmark timing it does not time the record.
sub bench_query
{
	my ($node, $sql) = @_;
	ran(shell_words('psql', '-d', 'postgres', '-c', $sql));
	return query_row($node, $sql);
}

sub bench_command
{
	my ($command) = @_;
	ran(shell_words(@$command));
	my $start = Time::HiRes::time;
	my ($out, $err) = PostgreSQL::Test::Utils::run_command($command);
	return ($out, $err, Time::HiRes::time - $start);
}

# The first row of `uringprobe-cli @args --format tsv`, as a hash.
sub cli_row
{
	my ($cli, @args) = @_;
	my ($out, $err) = bench_command([ $cli, @args, '--format', 'tsv' ]);
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

# The scratch filesystems named in $names (space-separated): a list of
# those mounted, and a list of the others, each with its status (why it is
# unavailable), so that a table can keep their cells and say why they are
# empty. Dies on an unknown name, or when none is mounted.
sub bench_filesystems
{
	my ($names) = @_;
	my %fs = map { $_->{name} => $_ } scratch_filesystems();
	my (@picked, @missing);
	for my $name (split ' ', $names)
	{
		my $fs = $fs{$name} or die "no scratch filesystem '$name' (have: @{[ sort keys %fs ]})\n";
		if ($fs->{status} eq 'ok') { push @picked, $fs; }
		else
		{
			warn "filesystem $name is unavailable: $fs->{status}\n";
			push @missing, $fs;
		}
	}
	die "none of the filesystems '$names' is available: "
	  . join('; ', map { "$_->{name}: $_->{status}" } @missing) . "\n" unless @picked;
	return (\@picked, \@missing);
}

1;
