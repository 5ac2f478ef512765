# sysctl_hold (tools/lib.sh, through tools/with-sysctl), the only way the
# tests set a host's sysctl (make test-sysctl), tried on plain files: the
# value is put back after a run, after a failed one, and after the runner
# is killed (-9); a second run waits for the first and finds the value it
# had before; a value a run could not put back (its guard killed too) is
# put back by the next run before anything else.
use strict;
use warnings;
use File::Path qw(make_path);
use IPC::Run ();
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use Uringprobe::Cluster qw(within);

my $dir = PostgreSQL::Test::Utils::tempdir();
make_path("$dir/kernel", "$dir/lock");
my $file = "$dir/kernel/io_uring_disabled";
local $ENV{URINGPROBE_SYSCTL_DIR} = $dir;
local $ENV{URINGPROBE_SYSCTL_LOCK_DIR} = "$dir/lock";
my @hold = ('tools/with-sysctl', 'kernel.io_uring_disabled', '2');

sub value { my $v = slurp_file($file); chomp $v; return $v }
sub set_value { open my $fh, '>', $file or die; print $fh "$_[0]\n"; close $fh; return }

set_value(0);
my ($out, $err) = ('', '');
IPC::Run::run([ @hold, 'cat', $file ], '>', \$out, '2>', \$err);
is($out, "2\n", 'the command sees the value');
is(value(), '0', 'put back after the run');

ok(!IPC::Run::run([ @hold, 'false' ], '2>', \$err), 'a failed command fails the run');
is(value(), '0', '... and the value is put back');

# The runner killed (-9) mid-run: its guard puts the value back.
my $run = IPC::Run::start([ @hold, 'sleep', '60' ], '2>', \$err);
ok(within(10, sub { value() eq '2' }), 'held while the command runs');
# a second run meanwhile waits for the first
my $second_out = '';
my $second = IPC::Run::start([ 'tools/with-sysctl', 'kernel.io_uring_disabled', '1', 'cat', $file ],
	'>', \$second_out, '2>', \my $second_err);
usleep(500_000);
$second->pump_nb;
is($second_out, '', 'a second run waits for the first');
kill 'KILL', $run->{KIDS}[0]{PID};
ok(within(10, sub { value() eq '0' }), 'the runner killed (-9): the value is put back')
  or diag("value: " . value());
$second->finish;
is($second_out, "1\n", 'the second run then runs');
like($second_err, qr/was 0\)/, '... finding the value the first had found');
is(value(), '0', '... and puts it back');
$run->kill_kill;

# A saved value nothing put back: the next run puts it back first.
set_value(2);
open my $fh, '>', "$dir/lock/uringprobe-kernel.io_uring_disabled.saved" or die;
print $fh "0\n";
close $fh;
IPC::Run::run([ @hold, 'true' ], '2>', \$err);
like($err, qr/putting back 0, left by a run that could not/, 'a value left behind is put back first');
is(value(), '0', '... and stays once the run is over');

done_testing();
