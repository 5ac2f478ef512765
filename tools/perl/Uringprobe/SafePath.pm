# Paths root reaches through directories another user can write, walked one
# component at a time from / (tools/lib.sh's read_user_file and
# sysctl_hold). Nothing here trusts a directory that user could change: a
# link is followed only where it lies in a directory no one but root and
# this user can write, and a directory entered must be the one looked at.
# Perl's core modules of perl-base only: a minimal Debian runs this too.
package Uringprobe::SafePath;

use strict;
use warnings;
use Cwd ();
use Exporter 'import';
use Fcntl qw(O_RDONLY O_NOFOLLOW O_NONBLOCK S_ISREG S_ISDIR S_ISLNK);

our @EXPORT_OK = qw(enter_dir private_dir read_user_file);

# ours(STAT, STICKY_OK): whether the directory of STAT can be changed by no
# one but root and this user: owned by one of them, writable by no one else
# (STICKY_OK: or sticky, where others may add names but not rename or
# remove ours).
sub ours
{
	my ($st, $sticky_ok) = @_;
	return 0 unless $st->[4] == 0 || $st->[4] == $>;
	return !($st->[2] & 022) || ($sticky_ok && ($st->[2] & 01000));
}

# enter_dir(PATH, STRICT): chdir to directory PATH one component at a time
# (from /, or from the working directory for a relative PATH). A link is
# followed only in a directory that is ours (above, without the sticky
# exception); a directory entered must be the one lstat saw. STRICT: every
# directory looked in is ours (sticky allowed), PATH itself is no link and
# is this user's, writable by no one else. Returns '' or why not, naming
# where it stopped ("...: not there" for a name that does not exist).
sub enter_dir
{
	my ($path, $strict) = @_;
	$path = Cwd::getcwd() . "/$path" unless $path =~ m{^/};
	chdir '/' or return "/: $!";
	my @todo = grep { length && $_ ne '.' } split m{/+}, $path;
	my ($at, $links) = ('', 0);
	while (@todo)
	{
		my $name = shift @todo;
		my @here = stat '.' or return ($at || '/') . ": $!";
		return ($at || '/') . ': writable by others' if $strict && !ours(\@here, 1);
		if ($name eq '..')
		{
			chdir '..' or return "$at/..: $!";
			$at =~ s{/[^/]*$}{};
			next;
		}
		my @l = lstat $name or return "$at/$name: " . ($!{ENOENT} ? 'not there' : "$!");
		if (S_ISLNK($l[2]))
		{
			return "$at/$name: a symbolic link" if !ours(\@here, 0) || ($strict && !@todo);
			return "$at/$name: too many links" if ++$links > 40;
			my $target = readlink $name // return "$at/$name: $!";
			unshift @todo, grep { length && $_ ne '.' } split m{/+}, $target;
			next unless $target =~ m{^/};
			chdir '/' or return "/: $!";
			$at = '';
			next;
		}
		return "$at/$name: not a directory" unless S_ISDIR($l[2]);
		chdir $name or return "$at/$name: $!";
		my @in = stat '.' or return "$at/$name: $!";
		return "$at/$name: replaced while entered" unless $in[0] == $l[0] && $in[1] == $l[1];
		$at .= "/$name";
	}
	return '' unless $strict;
	my @st = stat '.' or return ($at || '/') . ": $!";
	return ($at || '/') . ' is ' . (getpwuid($st[4]) // $st[4]) . "'s, not " . (getpwuid($>) // $>) . "'s"
	  unless $st[4] == $>;
	return ($at || '/') . ': writable by others' if $st[2] & 022;
	return '';
}

# private_dir(PATH): directory PATH of this user's, writable by no one
# else, reached only through directories that are ours (enter_dir STRICT);
# made 0700 when not there. Returns '' or why not.
sub private_dir
{
	my ($path) = @_;
	my $why = enter_dir($path, 1);
	return $why unless $why =~ /: not there$/;
	my ($parent, $name) = $path =~ m{^(.*?)/*([^/]+)/*$} or return "$path: not a directory name";
	$why = enter_dir($parent eq '' ? ($path =~ m{^/} ? '/' : '.') : $parent, 1);
	return $why if $why;
	mkdir $name, 0700 or return "$path: cannot make it: $!";
	return enter_dir($path, 1);
}

# read_user_file(PATH, MAX): prints file PATH as root may read it from where
# another user can write: its directory entered by enter_dir, the file
# itself a regular one opened without following a link, at most MAX bytes
# (default 1 MB; a longer one cut, saying so on stderr). None there: no
# output. Anything else (a link, a fifo, a link on the way): no output, a
# line on stderr naming it. Returns the exit status: 0, or 3 when refused.
sub read_user_file
{
	my ($path, $max) = @_;
	$max ||= 1 << 20;
	my ($dir, $name) = $path =~ m{^(.*?)([^/]+)$} or return refuse($path, 'not a file name');
	my $why = enter_dir($dir eq '' ? '.' : $dir, 0);
	return 0 if $why =~ /: not there$/;
	return refuse($path, $why) if $why;
	return 0 unless lstat $name;
	my $f;
	$why =
	    sysopen($f, $name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) ? (S_ISREG((stat $f)[2]) ? '' : 'not a regular file')
	  : $!{ELOOP} ? 'a symbolic link'
	  :             "cannot open it ($!)";
	return refuse($path, $why) if $why;
	my $text = '';
	1 while length($text) <= $max && sysread($f, $text, $max + 1 - length($text), length($text));
	if (length($text) > $max)
	{
		substr($text, $max) = '';
		print STDERR "read_user_file: $path: longer than $max bytes: the first $max taken\n";
	}
	binmode STDOUT;
	print $text;
	return 0;
}

sub refuse
{
	my ($path, $why) = @_;
	print STDERR "read_user_file: $path: $why: not taken\n";
	return 3;
}

1;
