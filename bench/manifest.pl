# The benchmarks' declarations (Uringprobe::Manifest) for the shell
# driver, tools/run-bench, and tools/check-results:
#
#   manifest.pl names                 the benchmarks run unless others are named
#   manifest.pl all                   every benchmark, those run on request too
#   manifest.pl script NAME           its script
#   manifest.pl args NAME             its result files, as the script takes them (results/...)
#   manifest.pl title NAME            its section's title
#   manifest.pl profiles              the profiles
#   manifest.pl profile NAME          NAME=value of every variable the profile sets
#   manifest.pl defaults              NAME=value of every variable's default
#   manifest.pl variables NAME        the benchmark's variables
#   manifest.pl outputs NAME DIR      what to show once it ran, one line each:
#                                     terminal|table<TAB>file<TAB>width<TAB>caption<TAB>columns
#                                     plot<TAB>name<TAB>gnuplot variables<TAB>gp
#   manifest.pl plots NAME...         the plots those benchmarks draw
#   manifest.pl heading KEY           a section of the report of its own:
#                                     advice, findings, repetitions
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tools/perl";
use Uringprobe::Manifest
  qw(benchmarks benchmark names profiles profile_settings variables caption_text plot_vars heading);

my ($what, @args) = @ARGV;
die "usage: manifest.pl names|all|script|args|title|profiles|profile|defaults|variables|outputs|plots|heading ...\n"
  unless $what;
my $b = sub { return benchmark($args[0] // die "manifest.pl $what: which benchmark?\n"); };

if ($what eq 'names') { print join(' ', names()), "\n"; }
elsif ($what eq 'all') { print join(' ', map { $_->{name} } benchmarks()), "\n"; }
elsif ($what eq 'script') { print $b->()->{script}, "\n"; }
elsif ($what eq 'args') { print join(' ', map { "results/$_->{file}" } @{ $b->()->{files} }), "\n"; }
elsif ($what eq 'title') { print $b->()->{title}, "\n"; }
elsif ($what eq 'profiles') { print join(' ', profiles()), "\n"; }
elsif ($what eq 'profile') { print "$_->[0]=$_->[1]\n" for profile_settings($args[0] // die "which profile?\n"); }
elsif ($what eq 'defaults') { print "$_->[0]=$_->[1]\n" for grep { $_->[1] ne '' } variables(); }
elsif ($what eq 'variables') { my $n = $b->()->{name}; print "$_->[0]\n" for grep { $_->[4] eq $n } variables(); }
elsif ($what eq 'outputs')
{
	my ($bench, $dir) = ($b->(), $args[1] // die "manifest.pl outputs: which results directory?\n");
	my %by_id = map { $_->{id} => $_ } @{ $bench->{files} };
	for my $f ($bench->{shown} ? map { $by_id{$_} } @{ $bench->{shown} } : @{ $bench->{files} })
	{
		for my $kind (qw(terminal table))
		{
			my $t = $f->{$kind} or next;
			print join("\t", $kind, $f->{file}, $t->{width} // 24, caption_text($t->{caption}, $dir),
				join(',', @{ $t->{columns} // [] })), "\n";
		}
	}
	print join("\t", 'plot', $_->{name}, plot_vars($_, $dir), $_->{gp} // $_->{name}), "\n" for @{ $bench->{plots} // [] };
}
elsif ($what eq 'heading') { print heading($args[0] // die "manifest.pl heading: which?\n"), "\n"; }
elsif ($what eq 'plots') { print join(' ', map { map { $_->{name} } @{ benchmark($_)->{plots} // [] } } @args), "\n"; }
else { die "manifest.pl: unknown request '$what'\n"; }
