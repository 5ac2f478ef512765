# What root reads from a directory another user (the cluster user) can
# write, opened the one way that user cannot steer: from a base directory
# only root can write, every component below it opened through its
# parent's descriptor without following a link (O_NOFOLLOW), directories
# as directories, the last one as a regular file with one name (a hard
# link could be any file of the host's). Nothing is read by path twice:
# what is checked is the open descriptor that is then read.
#
#   my ($dir, $rel) = split_trusted($path);      # the part only root can write, the rest
#   my $base = open_base($dir);                  # dies unless only root can write it
#   my ($fh, $why) = open_below($base, 'suite/results/x.tsv');
#   my ($dh, $why) = open_below($base, 'suite/log', dir => 1);
#   entries($dh)                                 # the names in an open directory
#   read_user_file($path, $max)                  # tools/lib.sh's: prints it, returns 0 or 3
#   private_dir($path)                           # '' or why it is not one of ours alone
#
# "Only root can write" means, run as another user (the tests run as the
# cluster user), only root or that user.
#
# $why is undef on success, else why not ("a symbolic link", "not a
# regular file", "2 names (a hard link)", ...). A component that is
# missing gives "missing" (a file not written yet is not an attack).
package Uringprobe::UserFiles;

use strict;
use warnings;
use Exporter 'import';
use Fcntl qw(O_RDONLY O_NOFOLLOW O_NONBLOCK O_DIRECTORY S_ISREG S_ISDIR S_IWGRP S_IWOTH S_ISVTX);
use Errno qw(ENOENT ELOOP ENOTDIR);

our @EXPORT_OK = qw(split_trusted open_base open_below entries plain_name root_only_dir read_user_file private_dir);

# Whether uid $uid is root or the user this runs as.
sub ours { return $_[0] == 0 || $_[0] == $>; }

# A name root accepts from another user: plain characters, not hidden,
# no path.
sub plain_name
{
	my ($name) = @_;
	return defined $name && $name =~ /\A[A-Za-z0-9_+-][A-Za-z0-9._+-]*\z/;
}

# Why the directory of open handle $dh is not one only root can write
# (owned by root, no group or other write bit); undef if it is.
sub root_only_dir
{
	my ($dh) = @_;
	my @st = stat $dh or return "cannot stat it ($!)";
	return 'not a directory' unless S_ISDIR($st[2]);
	return "owned by uid $st[4], not root" unless ours($st[4]);
	return 'writable by other users' if $st[2] & (S_IWGRP | S_IWOTH);
	return undef;
}

# The base directory, open: one only root can write, reached by a path
# root chose (links on the way to it are root's own). Dies otherwise.
sub open_base
{
	my ($dir) = @_;
	sysopen(my $dh, $dir, O_RDONLY | O_DIRECTORY) or die "$dir: cannot open it as a directory ($!)\n";
	my $why = root_only_dir($dh);
	die "$dir: $why: not a base root may read another user's files from\n" if $why;
	return $dh;
}

# An absolute path split where another user could first steer it: the
# deepest ancestor directory only root can write (every directory on the
# way root's and no link, a world-writable one only if sticky, as /tmp: its
# root-owned entries stay root's), and the rest, to open below it.
sub split_trusted
{
	my ($path) = @_;
	die "$path: not an absolute path\n" unless $path =~ m{\A/};
	my @parts = grep { $_ ne '' } split m{/}, $path;
	die "$path: a path with . or ..\n" if grep { $_ eq '.' || $_ eq '..' } @parts;
	my ($dir, $base, $i) = ('', undef, 0);
	for (; $i < $#parts; $i++)
	{
		my @st = lstat($dir eq '' ? '/' : $dir) or last;
		last unless S_ISDIR($st[2]) && ours($st[4]);
		my $writable = $st[2] & (S_IWGRP | S_IWOTH);
		last if $writable && !($st[2] & S_ISVTX);
		$base = [ $dir eq '' ? '/' : $dir, $i ] unless $writable;
		$dir .= "/$parts[$i]";
	}
	# the directory the walk stopped at, checked like the others
	my @st = lstat $dir;
	$base = [ $dir, $i ] if @st && S_ISDIR($st[2]) && ours($st[4]) && !($st[2] & (S_IWGRP | S_IWOTH));
	die "$path: no directory on its way only root can write\n" unless $base;
	return ($base->[0], join('/', @parts[ $base->[1] .. $#parts ]));
}

sub fd_path { return '/proc/self/fd/' . fileno($_[0]) . ($_[1] // ''); }

# One component $name below open directory $dh, not followed if a link.
sub open_component
{
	my ($dh, $name, $dir) = @_;
	return (undef, 'a component that is not a plain name') if $name eq '' || $name eq '.' || $name eq '..';
	my $flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | ($dir ? O_DIRECTORY : 0);
	if (sysopen(my $fh, fd_path($dh, "/$name"), $flags))
	{
		my @st = stat $fh;
		return ($fh, undef) if $dir && S_ISDIR($st[2]);
		return (undef, 'not a directory') if $dir;
		return (undef, 'not a regular file') unless S_ISREG($st[2]);
		return (undef, "$st[3] names (a hard link)") if $st[3] != 1;
		return ($fh, undef);
	}
	return (undef, 'missing') if $!{ENOENT};
	# ELOOP: a link (O_NOFOLLOW); ENOTDIR (a directory's open): a link or a
	# file, told apart for the message only
	return (undef, 'a symbolic link') if $!{ELOOP} || ($!{ENOTDIR} && -l fd_path($dh, "/$name"));
	return (undef, $!{ENOTDIR} ? 'not a directory' : "cannot open it ($!)");
}

# open_below BASE_HANDLE REL [dir => 1]: (handle, undef) or (undef, why).
sub open_below
{
	my ($base, $rel, %opt) = @_;
	my @parts = split m{/}, $rel, -1;
	my $dh = $base;
	for my $i (0 .. $#parts)
	{
		my $last = $i == $#parts;
		my ($h, $why) = open_component($dh, $parts[$i], $last ? $opt{dir} : 1);
		return (undef, $last || $why eq 'missing' ? $why : "$parts[$i]/: $why") unless $h;
		$dh = $h;
	}
	return ($dh, undef);
}

# The names in open directory $dh, but . and ..
sub entries
{
	my ($dh) = @_;
	opendir(my $list, fd_path($dh)) or return ();
	my @names = grep { $_ ne '.' && $_ ne '..' } readdir $list;
	closedir $list;
	return sort @names;
}

# read_user_file PATH [MAX]: prints the file at PATH as root may read it
# from a directory another user can write (split_trusted, open_below), at
# most MAX bytes (default 1 MB; a longer one cut, said on stderr). None
# there: nothing. Refused: a line on stderr naming why. Returns the exit
# status: 0, or 3 when refused.
sub read_user_file
{
	my ($path, $max) = @_;
	$max ||= 1 << 20;
	my ($fh, $why) = eval { my ($dir, $rel) = split_trusted($path); open_below(open_base($dir), $rel) };
	($fh, $why) = (undef, $@ =~ s/\n\z//r) if $@;
	return 0 if !$fh && $why eq 'missing';
	if (!$fh) { print STDERR "read_user_file: $path: $why: not taken\n"; return 3; }
	my $text = '';
	1 while length($text) <= $max && sysread($fh, $text, $max + 1 - length($text), length($text));
	if (length($text) > $max)
	{
		substr($text, $max) = '';
		print STDERR "read_user_file: $path: longer than $max bytes: the first $max taken\n";
	}
	binmode STDOUT;
	print $text;
	return 0;
}

# private_dir PATH: '' if PATH is a directory of this user's that no one
# else can write, reached through directories of root's or this user's
# that no one else can write (a sticky one allowed, as /tmp), no link on
# the way; made 0700 when not there. Else why not, naming where.
sub private_dir
{
	my ($path) = @_;
	return "$path: not an absolute path" unless $path =~ m{\A/};
	my @parts = grep { $_ ne '' } split m{/}, $path;
	return "$path: a path with . or .." if grep { $_ eq '.' || $_ eq '..' } @parts;
	my $at = '';
	for my $i (0 .. $#parts)
	{
		my @up = lstat($at eq '' ? '/' : $at) or return "$at: $!";
		my $writable = $up[2] & (S_IWGRP | S_IWOTH);
		return ($at || '/') . ': writable by others' if $writable && !($up[2] & S_ISVTX);
		return ($at || '/') . " is uid $up[4]'s" unless ours($up[4]);
		$at .= "/$parts[$i]";
		if (!lstat $at)
		{
			return "$at: $!" unless $!{ENOENT} && $i == $#parts;
			mkdir $at, 0700 or return "$at: cannot make it: $!";
		}
		my @st = lstat $at or return "$at: $!";
		return "$at: a symbolic link" if -l _;
		return "$at: not a directory" unless S_ISDIR($st[2]);
	}
	my @st = lstat $at;
	return "$at is uid $st[4]'s, not uid $>'s" unless $st[4] == $>;
	return "$at: writable by others" if $st[2] & (S_IWGRP | S_IWOTH);
	return '';
}

1;
