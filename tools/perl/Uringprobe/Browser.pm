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
# answer within $timeout seconds (30).
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

sub render_page
{
	my ($html_file, $png_file, $timeout) = @_;
	$timeout //= 30;
	my $browser = chromium() or die "no Chromium: apt-get install chromium (or set URINGPROBE_CHROMIUM)\n";
	-f $html_file or die "$html_file does not exist\n";
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

	my $buffer = '';
	my $next_id = 0;
	my @events;
	my $deadline = Time::HiRes::time + $timeout;
	my $select = IO::Select->new($evt_r);
	# The browser and its helper processes gone: after Browser.close it
	# exits by itself; whatever is left of its group is killed.
	my $stop = sub {
		my $until = Time::HiRes::time + 5;
		Time::HiRes::sleep(0.05) while waitpid($pid, POSIX::WNOHANG) == 0 && Time::HiRes::time < $until;
		kill 'KILL', -$pid;
		waitpid $pid, 0;
	};
	# The next message from the browser, or death at the deadline.
	my $receive = sub {
		while (1)
		{
			if ((my $i = index($buffer, "\0")) >= 0)
			{
				my $msg = substr($buffer, 0, $i);
				substr($buffer, 0, $i + 1) = '';
				return decode_json($msg);
			}
			my $left = $deadline - Time::HiRes::time;
			if ($left <= 0 || !$select->can_read($left))
			{
				$stop->();
				die "Chromium did not answer within $timeout s (log: " . (eval { slurp($log) } // '') . ")\n";
			}
			my $n = sysread($evt_r, $buffer, 65536, length $buffer);
			if (!$n)
			{
				$stop->();
				die "Chromium exited (log: " . (eval { slurp($log) } // '') . ")\n";
			}
		}
	};
	# Send a command and wait for its answer; events on the way are kept.
	my $call = sub {
		my ($method, $params, $session) = @_;
		my $id = ++$next_id;
		my %msg = (id => $id, method => $method, params => $params // {});
		$msg{sessionId} = $session if $session;
		print $cmd_w encode_json(\%msg), "\0";
		while (1)
		{
			my $m = $receive->();
			if (defined $m->{id} && $m->{id} == $id)
			{
				die "Chromium: $method failed: $m->{error}{message}\n" if $m->{error};
				return $m->{result};
			}
			push @events, $m if $m->{method};
		}
	};
	my $wait_for = sub {
		my ($method) = @_;
		for my $i (0 .. $#events)
		{
			return splice(@events, $i, 1) if $events[$i]{method} eq $method;
		}
		while (1)
		{
			my $m = $receive->();
			return $m if ($m->{method} // '') eq $method;
			push @events, $m if $m->{method};
		}
	};

	my $result = eval {
		my $target = $call->('Target.createTarget', { url => 'about:blank' })->{targetId};
		my $session = $call->('Target.attachToTarget', { targetId => $target, flatten => JSON::PP::true })->{sessionId};
		$call->($_, {}, $session) for qw(Page.enable Runtime.enable Log.enable);
		my $url = 'file://' . Cwd::abs_path($html_file);
		$call->('Page.navigate', { url => $url }, $session);
		$wait_for->('Page.loadEventFired');
		my $seen = $call->(
			'Runtime.evaluate',
			{
				returnByValue => JSON::PP::true,
				expression => <<'JS' }, $session)->{result}{value};
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
		# the whole page, not only the window
		$call->('Emulation.setDeviceMetricsOverride',
			{ width => 1280, height => $seen->{height} + 0, deviceScaleFactor => 1, mobile => JSON::PP::false },
			$session);
		my $shot = $call->('Page.captureScreenshot', { format => 'png', captureBeyondViewport => JSON::PP::true },
			$session);
		open my $fh, '>:raw', $png_file or die "cannot write $png_file: $!\n";
		print $fh MIME::Base64::decode_base64($shot->{data});
		close $fh or die "cannot write $png_file: $!\n";
		# what the page logged, load to screenshot
		my @problems;
		for my $e (@events)
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
		$seen->{problems} = \@problems;
		eval { $call->('Browser.close') };
		$seen;
	};
	my $err = $@;
	$stop->();
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
