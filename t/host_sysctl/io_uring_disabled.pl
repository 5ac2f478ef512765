# io_uring refused by the host: kernel.io_uring_disabled = 2, set around
# this file by tools/with-sysctl (make test-sysctl, as root; never by make
# test) and put back however the run ends. What must hold is what holds
# under a seccomp filter (t/021), the cause named being the sysctl.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;
use Uringprobe::IoUringRefused;

BAIL_OUT('kernel.io_uring_disabled is not 2: run through make test-sysctl as root')
  unless slurp_file('/proc/sys/kernel/io_uring_disabled') =~ /^2/;

for my $server (servers())
{
	check_io_uring_refused(
		server => $server,
		label => 'kernel.io_uring_disabled = 2',
		cli => [],
		start => {},
		env => { 'kernel.io_uring_disabled' => qr/2\t/, 'process.seccomp' => qr/none\t/ },
		cause => qr/kernel\.io_uring_disabled is 2/,
		access => { decision => 'kernel.io_uring_disabled | set | 0 | 2', fix => qr/^kernel\.io_uring_disabled = 0$/m });
}

done_testing();
