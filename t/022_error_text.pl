# Errors keep their SQLSTATE whatever the text they carry: a message longer
# than the module keeps (1 KB) is cut at the end of a character of the
# database's encoding, so a client in another encoding gets the error
# itself (22023), not one about the text's bytes (22021, "invalid byte
# sequence"). Every server, a UTF8 database, a LATIN1 client.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

for my $server (servers())
{
	my ($node) = start_cluster(server => $server, name => "error_text_$server->{name}");
	$node->safe_psql('postgres', "CREATE DATABASE utf8 TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'");
	$node->safe_psql('utf8', 'CREATE EXTENSION uringprobe');
	# 600 e-acutes (1200 bytes in UTF8) in a value the error repeats, once
	# after an odd number of bytes, once after an even one: one of the two
	# cuts fall in a character unless the cut is made with the encoding
	for my $before ('', 'x')
	{
		my $call = "uringprobe_events('$before' || repeat(U&'\\00E9', 600))";
		my ($ret, $out, $err) = $node->psql('utf8', "SET client_encoding = 'LATIN1'; SELECT count(*) FROM $call",
			extra_params => ['--set=VERBOSITY=verbose']);
		like($err, qr/ERROR:  22023: uringprobe: loop must be one of /, "$server->{name}: $call: its own SQLSTATE")
		  or diag($err);
		unlike($err, qr/22021|invalid byte sequence/, "$server->{name}: $call: no encoding error");
	}
	$node->stop;
}

done_testing();
