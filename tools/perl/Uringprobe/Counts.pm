# A test suite's account, as tools/run-tests sums it: every skipped test
# with its reason (identical ones grouped, xN), the line
# "SUITE: N passed, N failed, N skipped", and the same appended to the
# counts file ("counts<TAB>SUITE<TAB>passed<TAB>failed<TAB>skipped" and
# "skip<TAB>SUITE<TAB>WHAT<TAB>REASON" lines, "fail<TAB>SUITE<TAB>WHAT<TAB>
# WHICH" for every failure given, and "test<TAB>SUITE<TAB>WHAT<TAB>ok|fail|
# skip<TAB>NAME" for every test given: what the fault table of
# tools/test-summary counts), if one is named.
package Uringprobe::Counts;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT = qw(report_counts);

# report_counts(SUITE, PASSED, FAILED, SKIPPED, [[WHAT, REASON], ...], COUNTS_FILE or undef,
#               [[WHAT, WHICH TEST], ...] or undef, [[WHAT, RESULT, NAME], ...] or undef)
sub report_counts
{
	my ($suite, $passed, $failed, $skipped, $skips, $counts_file, $failures, $tests) = @_;
	$failures //= [];
	$tests //= [];
	if (@$skips)
	{
		my (%times, @lines);
		for (map { "  $_->[0]: $_->[1]" } @$skips) { push @lines, $_ unless $times{$_}++; }
		print "\n$suite: skipped, with the reasons:\n";
		print $times{$_} > 1 ? "$_ (x$times{$_})\n" : "$_\n" for @lines;
	}
	print "$suite: $passed passed, $failed failed, $skipped skipped\n";
	return unless $counts_file;
	open my $fh, '>>', $counts_file or die "cannot write $counts_file: $!\n";
	print $fh join("\t", 'counts', $suite, $passed, $failed, $skipped), "\n";
	print $fh join("\t", 'skip', $suite, @$_), "\n" for @$skips;
	print $fh join("\t", 'fail', $suite, map { s/[\t\n]/ /gr } @$_), "\n" for @$failures;
	print $fh join("\t", 'test', $suite, map { s/[\t\n]/ /gr } @$_), "\n" for @$tests;
	close $fh or die "cannot write $counts_file: $!\n";
	return;
}

1;
