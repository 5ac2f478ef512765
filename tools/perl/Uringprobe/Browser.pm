# A page opened as a person opens it: headless Chromium (Debian's
# chromium), driven over the DevTools protocol on a pipe
# (--remote-debugging-pipe: commands on the browser's fd 3, answers and
# events on its fd 4, each a JSON message ended by a NUL byte), so no
# network port and no library beyond perl's own.
#
#   my $page = Uringprobe::Browser::render_page($html_file, $png_file);
#
# loads the file, waits for its load event, takes a screenshot of the
# whole page into $png_file and returns what the page showed:
#   { title, svgs => [ { width, height, visible } ], images => [ { width,
#     height, natural_width, complete } ], problems => [ messages ], width,
#     height }
# where problems are the console errors, uncaught exceptions and failed
# loads the page logged. Dies if the browser cannot be started or does not
# answer within $timeout seconds (300: a deadline for a hung browser, not
# a measure; a first start on a fresh, loaded machine, which builds the
# font cache, took over 30).
package Uringprobe::Browser;

use strict;
use warnings;
use Cwd ();
use File::Temp ();
use IO::Select;
use JSON::PP;
use MIME::Base64 ();
use POSIX ();
use Time::HiRes ();

# The browser binary: URINGPROBE_CHROMIUM or Debian's.
sub chromium
{
	for my $c ($ENV{URINGPROBE_CHROMIUM} // (), '/usr/bin/chromium')
	{
		return $c if -x $c;
	}
	return undef;
}

# The browser started on the pipes, in its own process group: an object
# holding its pid, the pipes' ends, the bytes read but not yet taken, the
# events that came between answers and the deadline.
sub start
{
	my ($timeout) = @_;
	my $browser = chromium() or die "no Chromium: apt-get install chromium (or set URINGPROBE_CHROMIUM)\n";
	my $profile = File::Temp::tempdir(CLEANUP => 1);
	my $log = "$profile/chromium.log";
	pipe(my $cmd_r, my $cmd_w) or die "pipe: $!\n";
	pipe(my $evt_r, my $evt_w) or die "pipe: $!\n";
	my $pid = fork // die "fork: $!\n";
	if (!$pid)
	{
		# its own process group: the browser's helpers go with it
		POSIX::setpgid(0, 0);
		# fds 3 and 4, without close-on-exec (dup2 clears it): through
		# high numbers first, in case a pipe end already is 3 or 4
		POSIX::dup2(fileno($cmd_r), 20);
		POSIX::dup2(fileno($evt_w), 21);
		POSIX::dup2(20, 3);
		POSIX::dup2(21, 4);
		POSIX::close($_) for 20, 21;
		open STDIN, '<', '/dev/null';
		open STDOUT, '>', $log;
		open STDERR, '>&', \*STDOUT;
		{ exec $browser, '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
		  '--disable-background-networking', '--disable-component-update', '--disable-sync',
		  '--disable-extensions', '--hide-scrollbars', "--user-data-dir=$profile/profile",
		  '--remote-debugging-pipe', '--window-size=1280,900', 'about:blank'; }
		POSIX::_exit(127);
	}
	close $cmd_r;
	close $evt_w;
	$cmd_w->autoflush(1);
	return bless {
		pid => $pid, cmd => $cmd_w, evt => $evt_r, select => IO::Select->new($evt_r), log => $log,
		profile => $profile, buffer => '', next_id => 0, events => [], timeout => $timeout,
		deadline => Time::HiRes::time + $timeout }, __PACKAGE__;
}

# The browser and its helper processes gone: after Browser.close it exits
# by itself; whatever is left of its group is killed.
sub stop
{
	my ($b) = @_;
	my $until = Time::HiRes::time + 5;
	Time::HiRes::sleep(0.05) while waitpid($b->{pid}, POSIX::WNOHANG) == 0 && Time::HiRes::time < $until;
	kill 'KILL', -$b->{pid};
	waitpid $b->{pid}, 0;
}

# The next message from the browser, or death at the deadline.
sub receive
{
	my ($b) = @_;
	while (1)
	{
		if ((my $i = index($b->{buffer}, "\0")) >= 0)
		{
			my $msg = substr($b->{buffer}, 0, $i);
			substr($b->{buffer}, 0, $i + 1) = '';
			return decode_json($msg);
		}
		my $left = $b->{deadline} - Time::HiRes::time;
		my $why = $left <= 0 || !$b->{select}->can_read($left) ? "did not answer within $b->{timeout} s"
		  : !sysread($b->{evt}, $b->{buffer}, 65536, length $b->{buffer}) ? 'exited'
		  :                                                                  next;
		$b->stop;
		die "Chromium $why (log: " . (eval { slurp($b->{log}) } // '') . ")\n";
	}
}

# Send a command and wait for its answer; events on the way are kept.
sub call
{
	my ($b, $method, $params, $session) = @_;
	my $id = ++$b->{next_id};
	my %msg = (id => $id, method => $method, params => $params // {});
	$msg{sessionId} = $session if $session;
	print { $b->{cmd} } encode_json(\%msg), "\0";
	while (1)
	{
		my $m = $b->receive;
		if (defined $m->{id} && $m->{id} == $id)
		{
			die "Chromium: $method failed: $m->{error}{message}\n" if $m->{error};
			return $m->{result};
		}
		push @{ $b->{events} }, $m if $m->{method};
	}
}

# The first event $method, kept or to come.
sub wait_for
{
	my ($b, $method) = @_;
	my $events = $b->{events};
	for my $i (0 .. $#$events)
	{
		return splice(@$events, $i, 1) if $events->[$i]{method} eq $method;
	}
	while (1)
	{
		my $m = $b->receive;
		return $m if ($m->{method} // '') eq $method;
		push @$events, $m if $m->{method};
	}
}

# What the page shows: its title and size, its SVGs and images.
my $what_the_page_shows = <<'JS';
(() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.width, r.height]; };
  const visible = (e) => { const s = getComputedStyle(e); return s.display !== 'none' && s.visibility !== 'hidden'; };
  return {
    title: document.title,
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
    svgs: [...document.querySelectorAll('svg')].filter((s) => !s.parentElement.closest('svg')).map((s) => {
      const [w, h] = box(s); return { width: w, height: h, visible: visible(s) }; }),
    images: [...document.images].map((i) => {
      const [w, h] = box(i); return { width: w, height: h, natural_width: i.naturalWidth, complete: i.complete }; }),
  };
})()
JS

# What the page logged, load to screenshot: exceptions, console errors,
# failed loads.
sub problems
{
	my ($b) = @_;
	my @problems;
	for my $e (@{ $b->{events} })
	{
		my $p = $e->{params};
		if ($e->{method} eq 'Runtime.exceptionThrown')
		{
			push @problems, 'exception: ' . ($p->{exceptionDetails}{exception}{description} // $p->{exceptionDetails}{text});
		}
		elsif ($e->{method} eq 'Runtime.consoleAPICalled' && $p->{type} =~ /^(error|assert)$/)
		{
			push @problems, "console.$p->{type}: " . join(' ', map { $_->{value} // $_->{description} // '' } @{ $p->{args} });
		}
		elsif ($e->{method} eq 'Log.entryAdded' && $p->{entry}{level} eq 'error')
		{
			push @problems, "$p->{entry}{source}: $p->{entry}{text}" . ($p->{entry}{url} ? " ($p->{entry}{url})" : '');
		}
	}
	return \@problems;
}

# Opens the page in a new tab, waits for its load event, reads what it
# shows and takes the whole page's screenshot into $png_file.
sub open_page
{
	my ($b, $html_file, $png_file) = @_;
	my $target = $b->call('Target.createTarget', { url => 'about:blank' })->{targetId};
	my $session = $b->call('Target.attachToTarget', { targetId => $target, flatten => JSON::PP::true })->{sessionId};
	$b->call($_, {}, $session) for qw(Page.enable Runtime.enable Log.enable);
	$b->call('Page.navigate', { url => 'file://' . Cwd::abs_path($html_file) }, $session);
	$b->wait_for('Page.loadEventFired');
	my $seen = $b->call('Runtime.evaluate', { returnByValue => JSON::PP::true, expression => $what_the_page_shows },
		$session)->{result}{value};
	# the whole page, not only the window
	$b->call('Emulation.setDeviceMetricsOverride',
		{ width => 1280, height => $seen->{height} + 0, deviceScaleFactor => 1, mobile => JSON::PP::false }, $session);
	my $shot = $b->call('Page.captureScreenshot', { format => 'png', captureBeyondViewport => JSON::PP::true }, $session);
	open my $fh, '>:raw', $png_file or die "cannot write $png_file: $!\n";
	print $fh MIME::Base64::decode_base64($shot->{data});
	close $fh or die "cannot write $png_file: $!\n";
	$seen->{problems} = $b->problems;
	return $seen;
}

sub render_page
{
	my ($html_file, $png_file, $timeout) = @_;
	-f $html_file or die "$html_file does not exist\n";
	my $b = start($timeout // 300);
	my $result = eval {
		my $seen = $b->open_page($html_file, $png_file);
		eval { $b->call('Browser.close') };
		$seen;
	};
	my $err = $@;
	$b->stop;
	die $err unless $result;
	return $result;
}

sub slurp
{
	my ($f) = @_;
	open my $fh, '<', $f or die;
	local $/;
	return <$fh>;
}

1;
