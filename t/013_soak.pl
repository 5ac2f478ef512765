# A short soak in make test on every server under every io_method it has:
# bench/soak.pl (what make soak runs for three minutes) for 3 s a cell with
# 8 concurrent pgbench sessions, each transaction a random experiment,
# while other sessions' long runs are cancelled and terminated midway.
# Afterwards the postmaster holds the fds, io_uring fds and mappings it
# held, its auxiliary processes are the same (no crash-restart), the
# terminated backends' children are gone, no scratch file is left, the
# server log has no crash line and no error beside the cancels and
# terminations (counted by SQLSTATE), and a witness session's backend
# kept its RSS through two rounds of every experiment.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;
use Uringprobe::TextTable;

my $dir = PostgreSQL::Test::Utils::tempdir();
for my $server (servers())
{
	for my $io_method (io_methods($server))
	{
		my $cell = "$server->{name}/$io_method";
		my $tsv = "$dir/soak-$server->{name}-$io_method.tsv";
		my ($out, $err) = ('', '');
		my $ok;
		{
			local $ENV{URINGPROBE_SOAK_SECONDS} = 3;
			local $ENV{URINGPROBE_SOAK_CLIENTS} = 8;
			local $ENV{URINGPROBE_SOAK_SERVER} = $server->{name};
			local $ENV{URINGPROBE_SOAK_IO_METHOD} = $io_method;
			local $ENV{URINGPROBE_SOAK_WITNESS_ROUNDS} = 2;
			$ok = IPC::Run::run([ 'perl', 'bench/soak.pl', $tsv ], '>', \$out, '2>', \$err);
		}
		ok($ok, "$cell: bench/soak.pl passes") or diag("$out\n$err");
		my ($head, $row) = read_tsv($tsv);
		my %r;
		@r{@$head} = @$row;
		note(join(', ', map { "$_ $r{$_}" } @$head));
		is("$r{server} $r{io_method}", "$server->{name} $io_method", "$cell: the soak ran on it");
		is($r{verdict}, 'clean', "$cell: the verdict is clean");
		cmp_ok($r{transactions}, '>', 8, "$cell: the sessions ran transactions");
		is($r{failed}, 0, "$cell: none failed");
		is($r{pm_fds_after}, $r{pm_fds_before}, "$cell: the postmaster's fds are as before ($r{pm_fds_before})");
		is($r{pm_io_uring_fds_after}, $r{pm_io_uring_fds_before},
			"$cell: its io_uring fds are as before ($r{pm_io_uring_fds_before})");
		is($r{pm_mappings_after}, $r{pm_mappings_before},
			"$cell: its io_uring mappings are as before ($r{pm_mappings_before})");
		cmp_ok($r{aux_processes}, '>=', 3, "$cell: its auxiliary processes were found ($r{aux_processes})");
		is($r{aux_processes_same}, 'yes', "$cell: ... and are the same processes afterwards");
		cmp_ok($r{cancelled}, '>', 0, "$cell: sessions were cancelled midway ($r{cancelled})");
		cmp_ok($r{terminated}, '>', 0, "$cell: sessions were terminated midway ($r{terminated})");
		is($r{children_left}, 0, "$cell: the terminated backends' children are gone");
		is($r{scratch_files_left}, 0, "$cell: no scratch file left");
		is($r{log_crash_lines}, 0, "$cell: no crash line in the server log");
		is($r{log_errors}, 0, "$cell: no error in the server log");
		cmp_ok($r{witness_rss_kb_after} - $r{witness_rss_kb_before}, '<=', 1024,
			"$cell: the witness backend's RSS grew by at most 1 MB ($r{witness_rss_kb_before} -> $r{witness_rss_kb_after} kB)");
		like($r{errors_by_sqlstate}, qr/\bERROR 57014 x\d+/, "$cell: the cancels counted by their SQLSTATE ($r{errors_by_sqlstate})");
		like($r{errors_by_sqlstate}, qr/\bFATAL 57P01 x\d+/, "$cell: the terminations counted by theirs");
	}
}

done_testing();
