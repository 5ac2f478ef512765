# io_uring refused as a container refuses it: a seccomp filter that makes
# io_uring_setup, io_uring_enter and io_uring_register fail with EPERM
# (Docker's and containerd's default profiles since 2023), installed by a
# launcher (test/refuse-io-uring.c) around the CLI and the server alone;
# nothing on the host changes. Every server: the environment report sees
# the filter and names it as the cause; io_method=io_uring does not start;
# every experiment needing io_uring fails with one error whose hint names
# the filter, leaving the backend as it was; the advice is worker, naming
# the filter. A filter answering ENOSYS is named too.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;
use Uringprobe::IoUringRefused;

for my $server (servers())
{
	check_io_uring_refused(
		server => $server,
		label => 'seccomp',
		cli => [ refuse_io_uring_command('EPERM') ],
		start => { refuse_io_uring => 'EPERM' },
		env => { 'process.seccomp' => qr/filter\t/ },
		cause => qr/a seccomp filter \(Seccomp: filter, \d+ installed\) refuses io_uring/,
		access => {
			decision => 'seccomp | set | allows io_uring | refuses io_uring',
			fix => qr/^jq '\.syscalls \+= \[\{"names": \["io_uring_setup", "io_uring_enter", "io_uring_register"\], "action": "SCMP_ACT_ALLOW"\}\]' /m
		});

	my ($out) = run_command(
		[ refuse_io_uring_command('ENOSYS'), "$server->{bindir}/uringprobe-cli", 'environment', '--format', 'tsv' ]);
	like($out, qr/^io_uring\.ring_setup\tfailed: ENOSYS [^\t]*\ta seccomp filter .*refuses io_uring with ENOSYS/m,
		"$server->{name}: a filter answering ENOSYS is named too");
}

done_testing();
