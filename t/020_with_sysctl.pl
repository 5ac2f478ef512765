# sysctl_hold (tools/lib.sh, through tools/with-sysctl), the only way the
# tests set a host's sysctl (make test-sysctl), tried on plain files: the
# value is put back after a run, after a failed one, and after the runner
# is killed (-9); a second run waits for the first and finds the value it
# had before; a value a run could not put back (its guard killed too) is
# put back by the next run before anything else. The saved value and the
# lock are kept where only this user (root, in make test-sysctl) can write:
# a directory another user can write, a link on the way there or a saved
# value that is not a number is refused before anything is read or
# written, naming why.
use strict;
use warnings;
use Cwd ();
use File::Path qw(make_path);
use IPC::Run ();
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use Uringprobe::Cluster qw(within);

# absolute: the links planted below point at files in it
my $dir = Cwd::abs_path(PostgreSQL::Test::Utils::tempdir());
make_path("$dir/kernel", "$dir/lock");
chmod 0700, "$dir/lock" or die;
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

# refused(LOCK_DIR, NAME, PATTERN): with-sysctl with its state in
# LOCK_DIR refuses to run, saying why (PATTERN), the value (2) and the
# canary untouched, the command not run.
my $canary = "$dir/canary";
sub refused
{
	my ($lock_dir, $name, $why) = @_;
	set_value(2);
	open my $c, '>', $canary or die;
	print $c "root's canary\n";
	close $c;
	local $ENV{URINGPROBE_SYSCTL_LOCK_DIR} = $lock_dir;
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ @hold, 'echo', 'ran' ], '>', \$out, '2>', \$err);
	ok(!$ok && $out eq '', "$name: refused, the command not run") or diag("out: $out\nerr: $err");
	like($err, $why, "$name: ... saying why");
	is(value(), '2', "$name: ... the value as it was");
	is(slurp_file($canary), "root's canary\n", "$name: ... the canary untouched");
	return;
}

# A directory others can write (as /run/lock): a saved 0 and a lock
# linked to the canary, planted there, are not obeyed.
my $shared = "$dir/shared";
mkdir $shared or die;
chmod 01777, $shared or die;
open my $planted, '>', "$shared/uringprobe-kernel.io_uring_disabled.saved" or die;
print $planted "0\n";
close $planted;
symlink $canary, "$shared/uringprobe-kernel.io_uring_disabled.lock" or die;
refused($shared, 'state in a directory others can write', qr/\Q$shared\E: writable by others: refused/);

# the directory itself a link to a private one, and a private one inside
# a directory others can write (it could be renamed away)
my $private = "$dir/private";
mkdir $private, 0700 or die;
symlink $private, "$dir/link" or die;
refused("$dir/link", 'state directory a link to a private one', qr/\Q$dir\E\/link: a symbolic link: refused/);
mkdir "$dir/open" or die;
chmod 0777, "$dir/open" or die;
mkdir "$dir/open/lock", 0700 or die;
refused("$dir/open/lock", 'state directory in one others can write',
	qr/\Q$dir\E\/open: writable by others: refused/);

# a saved value that is not a number is never written to the sysctl
open my $odd, '>', "$private/uringprobe-kernel.io_uring_disabled.saved" or die;
print $odd "0; touch $dir/pwned\n";
close $odd;
refused($private, 'state: a saved value that is not a number', qr/\.saved does not hold a number/);
ok(!-e "$dir/pwned", 'state: ... nothing of it run');

# a directory that is not there yet is made, for this user alone
my $new = "$dir/new/state";
mkdir "$dir/new", 0755 or die;
set_value(0);
{
	local $ENV{URINGPROBE_SYSCTL_LOCK_DIR} = $new;
	($out, $err) = ('', '');
	IPC::Run::run([ @hold, 'cat', $file ], '>', \$out, '2>', \$err);
}
is($out, "2\n", 'state directory not there yet: the run runs') or diag($err);
is((stat $new)[2] & 07777, 0700, 'state directory not there yet: ... made, 0700');

done_testing();
