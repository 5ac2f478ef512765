# A short soak in make test: bench/soak.pl (what make soak runs for three
# minutes) for 30 s with 8 concurrent pgbench sessions, each transaction a
# random experiment, while other sessions' long runs are cancelled and
# terminated midway. Afterwards the postmaster holds the fds, io_uring fds
# and mappings it held, its auxiliary processes are the same (no
# crash-restart), the terminated backends' children are gone, no scratch
# file is left and the server log has no crash line and no error.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::TextTable;

my $tsv = PostgreSQL::Test::Utils::tempdir() . '/soak.tsv';
my ($out, $err) = ('', '');
my $ok;
{
	local $ENV{URINGPROBE_SOAK_SECONDS} = 30;
	local $ENV{URINGPROBE_SOAK_CLIENTS} = 8;
	$ok = IPC::Run::run([ 'perl', 'bench/soak.pl', $tsv ], '>', \$out, '2>', \$err);
}
ok($ok, 'bench/soak.pl passes') or diag("$out\n$err");
my ($head, $row) = read_tsv($tsv);
my %r;
@r{@$head} = @$row;
note(join(', ', map { "$_ $r{$_}" } @$head));
is($r{verdict}, 'clean', 'the verdict is clean');
cmp_ok($r{transactions}, '>', 8, 'the sessions ran transactions');
is($r{failed}, 0, 'none failed');
is($r{pm_fds_after}, $r{pm_fds_before}, "the postmaster's fds are as before ($r{pm_fds_before})");
is($r{pm_io_uring_fds_after}, $r{pm_io_uring_fds_before},
	"its io_uring fds are as before ($r{pm_io_uring_fds_before})");
is($r{pm_mappings_after}, $r{pm_mappings_before}, "its io_uring mappings are as before ($r{pm_mappings_before})");
cmp_ok($r{aux_processes}, '>=', 3, "its auxiliary processes were found ($r{aux_processes})");
is($r{aux_processes_same}, 'yes', '... and are the same processes afterwards');
cmp_ok($r{cancelled}, '>', 0, "sessions were cancelled midway ($r{cancelled})");
cmp_ok($r{terminated}, '>', 0, "sessions were terminated midway ($r{terminated})");
is($r{children_left}, 0, "the terminated backends' children are gone");
is($r{scratch_files_left}, 0, 'no scratch file left');
is($r{log_crash_lines}, 0, 'no crash line in the server log');
is($r{log_errors}, 0, 'no error in the server log');

done_testing();
