# bench/hosts.yml, the playbook for many hosts, against an inventory of
# this machine (ansible_connection=local): two hosts, each with a tree of
# its own whose "benchmark" (uringprobe_bench) leaves a results directory
# as make bench does (the tiny bench's run, and a second host's run), a
# third in advise mode (tools/run-advise of a copy of the tree, with the
# first server's uringprobe-cli), run by ansible-playbook; each host's new
# directory is found, packed, fetched, unpacked here and loaded into one
# results database; a host whose command writes no results directory, and
# one of a mode not known, fail by name.
use strict;
use warnings;
use Cwd ();
use FindBin;
use IPC::Run ();
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;

my ($dir) = tiny_bench_run();
my $root = "$FindBin::RealBin/..";
my ($playbook_cmd) = grep { -x } map { "$_/ansible-playbook" } split /:/, $ENV{PATH} // '';
SKIP:
{
	skip 'no ansible-playbook: install Debian\'s ansible-core (make test does, as root)', 1 unless $playbook_cmd;
	# (absolute: ansible runs its modules elsewhere)
	my $tmp = Cwd::abs_path(PostgreSQL::Test::Utils::tempdir());
	# a run of host NAME started at TIME: the tiny bench's, renamed
	my $made = "$tmp/made";
	mkdir $made or die;
	for my $h ([ 'playbook-a', '2026-01-02 03:04 UTC', '20260102-030400' ], [ 'playbook-b', '2026-01-02 03:05 UTC', '20260102-030500' ])
	{
		my ($name, $time, $base) = @$h;
		system('cp', '-a', $dir, "$made/$base") == 0 or die "cannot copy $dir";
		my $text = slurp_file("$made/$base/run.tsv") =~ s/^host\t.*$/host\t$name/mr =~ s/^started\t.*$/started\t$time/mr;
		open my $fh, '>', "$made/$base/run.tsv" or die $!;
		print $fh $text;
		close $fh;
	}
	for my $name (qw(playbook-a playbook-b playbook-c playbook-d playbook-e))
	{
		mkdir "$tmp/tree-$name" or die;
		mkdir "$tmp/tree-$name/results" or die;
	}
	# advise mode's tree: the tools it runs
	system('cp', '-a', "$root/tools", "$root/bench", "$tmp/tree-playbook-d/") == 0 or die 'cannot copy the tree';
	mkdir "$tmp/space" or die;
	my $cli = (servers())[0]->{bindir} . '/uringprobe-cli';
	open my $inv, '>', "$tmp/inventory" or die $!;
	print $inv "[bench]\n"
	  . "host-a ansible_connection=local uringprobe_tree=$tmp/tree-playbook-a uringprobe_bench='cp -a $made/20260102-030400 results/'\n"
	  . "host-b ansible_connection=local uringprobe_tree=$tmp/tree-playbook-b uringprobe_bench='cp -a $made/20260102-030500 results/'\n"
	  . "host-c ansible_connection=local uringprobe_tree=$tmp/tree-playbook-c uringprobe_bench='true'\n"
	  . "host-d ansible_connection=local uringprobe_tree=$tmp/tree-playbook-d uringprobe_mode=advise uringprobe_cli=$cli "
	  . "uringprobe_advise='--name main --budget 1 --tablespace $tmp/space'\n"
	  . "host-e ansible_connection=local uringprobe_tree=$tmp/tree-playbook-e uringprobe_mode=nonsense\n"
	  . "[all:vars]\nansible_python_interpreter=/usr/bin/python3\n";
	close $inv;
	local $ENV{ANSIBLE_LOCAL_TEMP} = "$tmp/ansible-local";
	local $ENV{ANSIBLE_REMOTE_TEMP} = "$tmp/ansible-remote";
	local $ENV{ANSIBLE_NOCOLOR} = 1;
	my ($out, $err) = ('', '');
	IPC::Run::run([ $playbook_cmd, '-i', "$tmp/inventory", "$root/bench/hosts.yml",
		'-e', 'uringprobe_copy_tree=false', '-e', 'uringprobe_become=false', '-e', "uringprobe_store=$tmp/store" ],
		'>', \$out, '2>', \$err);
	my $rc = $? >> 8;
	isnt($rc, 0, 'the playbook fails, for host-c') or diag($out);
	like($out, qr/host-a\s+: ok=\d+\s+changed=\d+\s+unreachable=0\s+failed=0/, 'host-a: no task failed') or diag($out, $err);
	like($out, qr/host-b\s+: ok=\d+\s+changed=\d+\s+unreachable=0\s+failed=0/, 'host-b: no task failed');
	like($out, qr/host-c\s+: ok=\d+\s+changed=\d+\s+unreachable=0\s+failed=1/, 'host-c: one failed');
	like($out, qr/true in \S+tree-playbook-c wrote no new results directory/, '... saying its command wrote no results directory');
	like($out, qr/host-d\s+: ok=\d+\s+changed=\d+\s+unreachable=0\s+failed=0/, 'host-d, advise mode: no task failed');
	like($out, qr/host-e\s+: ok=\d+\s+changed=\d+\s+unreachable=0\s+failed=1/, 'host-e, of mode nonsense: failed');
	like($out, qr/uringprobe_mode is bench or advise, got 'nonsense'/, '... saying which modes there are');
	ok(-f "$tmp/store/host-a/20260102-030400/run.tsv", "host-a's run fetched and unpacked here");
	ok(-f "$tmp/store/host-b/20260102-030500/run.tsv", "host-b's too");
	ok(!-e "$tmp/tree-playbook-a/results/20260102-030400.tar.gz", '... the pack removed on the host');

	my $runs = '';
	IPC::Run::run([ "$root/bench/results-db", 'runs' ], '>', \$runs, '2>', \$err);
	like($runs, qr/^ playbook-a\s+\| 2026-01-02 03:04 \| tiny/m, "host-a's run loaded (host playbook-a)") or diag($runs, $err);
	like($runs, qr/^ playbook-b\s+\| 2026-01-02 03:05 \| tiny/m, "host-b's run into the same database");
	my ($advised) = glob("$tmp/store/host-d/2*[0-9]");
	ok($advised && -f "$advised/advise.tsv" && -f "$advised/advise-script.txt", "host-d's advice fetched and unpacked here");
	like($runs, qr/^ \S+\s+\| [-\d: ]+ \| advise\s+\|[^\n]*\|\s+0 \|\s+0 \|\s+[1-9]\d*\s*$/m,
		"host-d's advice loaded: a run of profile advise, rows of advice, no cells") or diag($runs);
	my $advice = '';
	IPC::Run::run([ "$root/bench/results-db", 'advice' ], '>', \$advice, '2>', \$err);
	like($advice, qr/^ \S+\s+\| advise\s+\| main\s+\| io_method\s+\|/m, "... its rows, of server main, in the advice query")
	  or diag($advice, $err);
}

done_testing();
