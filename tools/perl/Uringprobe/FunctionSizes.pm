# The functions a reader cannot hold: long_functions($limit, $name =>
# $text, ...) lists those over $limit lines, as "NAME:LINE N lines", of
# C++ (.cpp, .hpp: a brace block at file or namespace level that follows a
# parameter list, comments and literals aside) and Perl (a sub from its
# `sub` line to the closing brace at the start of a line).
package Uringprobe::FunctionSizes;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT_OK = qw(long_functions);

sub long_functions
{
	my ($limit, %texts) = @_;
	my @long;
	for my $name (sort keys %texts)
	{
		my @sizes = $name =~ /\.(cpp|hpp)$/ ? cpp_functions($texts{$name}) : perl_functions($texts{$name});
		push @long, map { "$name:$_->[0] $_->[1] lines" } grep { $_->[1] > $limit } @sizes;
	}
	return @long;
}

# [first line, lines] of each Perl sub.
sub perl_functions
{
	my @lines = split /\n/, $_[0], -1;
	my @out;
	for my $i (0 .. $#lines)
	{
		next unless $lines[$i] =~ /^sub \w+/;
		# a sub of one line, or a declaration
		next if $lines[$i] =~ /[};]\s*(#.*)?$/;
		my ($end) = grep { $lines[$_] =~ /^\}/ } $i + 1 .. $#lines;
		push @out, [ $i + 1, $end - $i + 1 ] if defined $end;
	}
	return @out;
}

# [first line, lines] of each C++ function body: a block opened outside
# any function whose text before it (back to the last ; { or }) has a
# parameter list and is no namespace, extern, class, struct, enum or
# union, nor an initializer (=).
sub cpp_functions
{
	my ($text) = @_;
	# comments and literals out, their newlines kept
	$text =~ s{/\*(.*?)\*/}{"\n" x ($1 =~ tr/\n//)}gse;
	$text =~ s{//[^\n]*}{}g;
	$text =~ s{"(?:\\.|[^"\\\n])*"}{""}g;
	$text =~ s{'(?:\\.|[^'\\\n])'}{''}g;
	my (@stack, @out);
	my ($line, $since) = (1, '');
	for my $ch (split //, $text)
	{
		if ($ch eq "\n") { $line++; $since .= ' '; next; }
		if ($ch eq '{')
		{
			my $in_function = grep { $_->[0] eq 'fn' } @stack;
			my $kind = $in_function ? 'block'
			  : $since =~ /\b(namespace|extern|class|struct|enum|union)\b/ || $since =~ /=\s*$/ ? 'scope'
			  : $since =~ /\)/ ? 'fn'
			  :                  'scope';
			push @stack, [ $kind, $line ];
			$since = '';
			next;
		}
		if ($ch eq '}')
		{
			my $open = pop @stack;
			push @out, [ $open->[1], $line - $open->[1] + 1 ] if $open && $open->[0] eq 'fn';
			$since = '';
			next;
		}
		$since = $ch eq ';' ? '' : $since . $ch;
	}
	return @out;
}

1;
