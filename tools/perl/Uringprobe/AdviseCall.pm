# uringprobe_advise() called in a cluster: each row a hash of the
# function's columns (NULL: undef), and the columns in the function's
# order as its catalog entry declares them. The benchmark and the tests
# read the rows by column, never from the prose.
#   my @rows = advise_rows($node, "budget => '20 s'", $before);
#   my @cols = advise_columns($node);
#   row_key($row)   # "io_method", "file_extend_method (xfs)"
package Uringprobe::AdviseCall;

use strict;
use warnings;
use Exporter 'import';
use JSON::PP ();

our @EXPORT = qw(advise_rows advise_columns advise_sql row_key);

# The statement giving one row of uringprobe_advise($args) per line, as
# JSON; $before (SET ..., SET ROLE ...) runs first.
sub advise_sql
{
	my ($args, $before) = @_;
	return ($before // '') . "SELECT row_to_json(a) FROM uringprobe_advise($args) a";
}

sub advise_rows
{
	my ($node, $args, $before) = @_;
	my $json = JSON::PP->new;
	return map { $json->decode($_) } split /\n/, $node->safe_psql('postgres', advise_sql($args, $before));
}

sub advise_columns
{
	my ($node) = @_;
	my @cols = split /,/, $node->safe_psql('postgres',
		"SELECT string_agg(u.n, ',' ORDER BY u.o) FROM pg_catalog.pg_proc p, "
		  . 'unnest(p.proargnames, p.proargmodes) WITH ORDINALITY AS u(n, m, o) '
		  . "WHERE p.proname = 'uringprobe_advise' AND u.m IN ('o', 't')");
	die "uringprobe_advise() declares no output columns\n" unless @cols;
	return @cols;
}

# A row's name among its server's: its setting, and where it has one, the
# tablespace (or other object) it is for.
sub row_key
{
	my ($row) = @_;
	return $row->{setting} . (($row->{scope_name} // '') eq '' ? '' : " ($row->{scope_name})");
}

1;
