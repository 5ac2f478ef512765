# uringprobe_extend() on real filesystems (tools/scratch-fs: XFS, ext4,
# btrfs, tmpfs on loop devices when root; a plain directory always): every
# strategy and interface on every filesystem, a shared file grown by many
# sessions comes out exactly right, ENOSPC, symlinks, cancellation and a
# killed backend leave nothing behind.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(sleep);
use Uringprobe::Cluster;

my @fs = scratch_filesystems();
BAIL_OUT('no scratch filesystems: run through make test') unless @fs;
my @usable = grep { $_->{status} eq 'ok' } @fs;
my %dir_of = map { $_->{name} => $_->{dir} } @usable;
my $dirs = join(',', map { $_->{dir} } @usable);
# The type each filesystem must report: its name, or for the plain
# directory what statfs says as stat(1) names it (ext2/3/4 share a magic).
my %fs_type = map { $_->{name} => $_->{name} } @usable;
$fs_type{tiny} = 'ext4';
if ($dir_of{default})
{
	chomp(my $t = `stat -f -c %T '$dir_of{default}'`);
	$fs_type{default} = $t eq 'ext2/ext3' ? 'ext4' : $t;
}


sub files_left
{
	return map { scratch_files($_->{dir}) } @usable;
}

my @servers = servers();
for my $server (@servers)
{
	my $io_method = $server->{major} >= 18 ? 'io_uring' : 'sync';
	my $cell = "$server->{name}/$io_method";
	# The first server gets the whole matrix; the others one run per filesystem.
	my $full = $server == $servers[0];
	my ($node) = start_cluster(server => $server, io_method => $io_method,
		name => "extend_$server->{name}",
		settings => [
			"uringprobe.scratch_dirs = '$dirs'", "shared_preload_libraries = 'uringprobe'",
			'restart_after_crash = on'    # the crash test below
		]);
	$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');

	for my $fs (@fs)
	{
		if ($fs->{status} ne 'ok')
		{
		  SKIP: { skip "$cell: $fs->{name}: $fs->{status}", 1; }
			next;
		}
		next if $fs->{name} eq 'tiny';
		my @strategies = $full ? qw(fallocate write_zeros mdzeroextend write) : qw(mdzeroextend);
		my @interfaces = $full ? qw(sync io_uring io_uring_async) : qw(sync io_uring);
		for my $strategy (@strategies)
		{
			for my $interface (@interfaces)
			{
				my $what = "$cell: $fs->{name} $strategy/$interface";
				my $r = query_row($node,
					"SELECT * FROM uringprobe_extend('$fs->{dir}', '$strategy', '$interface', "
					  . "min_blocks => 1, max_blocks => 32, total_mb => 2, write_data => true, "
					  . "sessions => 2, verify => true)");
				is($r->{status}, 'ok', "$what: completed");
				is($r->{verified}, 'ok', "$what: the file reads back as written");
				is($r->{file_bytes}, 2 * 1048576, "$what: exactly 2 MiB");
				is($r->{filesystem}, $fs_type{ $fs->{name} }, "$what: on $fs_type{ $fs->{name} }");
			}
		}
		is(scalar(scratch_files($fs->{dir})), 0, "$cell: $fs->{name}: no scratch file left");
	}

	# Many sessions on one shared file, random sizes: exact size and content.
	my $big = $dir_of{xfs} // $dir_of{default};
	for my $interface (qw(sync io_uring))
	{
		my $r = query_row($node,
			"SELECT * FROM uringprobe_extend('$big', 'mdzeroextend', '$interface', min_blocks => 1, "
			  . "max_blocks => 64, total_mb => 16, write_data => true, sessions => 8, verify => true)");
		is($r->{verified}, 'ok', "$cell: 8 sessions, one shared file ($interface): content exact");
		is($r->{file_bytes}, 16 * 1048576, "$cell: 8 sessions, one shared file ($interface): size exact");
		cmp_ok($r->{fallocates}, '>', 0, "$cell: mdzeroextend used fallocate for large extensions");
		cmp_ok($r->{zero_writes}, '>', 0, "$cell: ... and zeros for small ones");
	}

	# ENOSPC: a clear error, the file removed, the same session goes on.
  SKIP:
	{
		skip "$cell: no tiny filesystem to fill: " . join('', map { $_->{status} } grep { $_->{name} eq 'tiny' } @fs), 4
		  unless $dir_of{tiny};
		for my $strategy (qw(fallocate write_zeros))
		{
			my ($ret, $out, $err) = $node->psql('postgres',
				"SELECT * FROM uringprobe_extend('$dir_of{tiny}', '$strategy', total_mb => 64); SELECT 'alive'",
				extra_params => [ '--set=VERBOSITY=verbose' ], on_error_stop => 0);
			like($err, qr/ERROR:  53100: uringprobe: .*No space left on device.*\n(?:.*\n)*?HINT:  the filesystem is full/,
				"$cell: $strategy on a full filesystem: ENOSPC as disk_full (53100) with a hint");
			like($out, qr/alive/, "$cell: $strategy: the session goes on after ENOSPC");
		}
		is(scalar(scratch_files($dir_of{tiny})), 0, "$cell: nothing left on the full filesystem");
	}

	# A symlink where a scratch directory should be is refused.
	my $link = "$dir_of{default}/link";
	unlink $link;
	symlink($big, $link) or die "symlink: $!";
	my (undef, undef, $err) = $node->psql('postgres',
		"SET uringprobe.scratch_dirs = '$link'; SELECT * FROM uringprobe_extend(total_mb => 1)");
	like($err, qr/must be real directories, not symlinks/, "$cell: a symlinked scratch directory is refused");
	unlink $link;

	# Cancelled by statement_timeout: stops, removes its file, and leaves the
	# session as it was (fds, io_uring fds, threads) to go on.
	for my $interface (qw(sync io_uring io_uring_async))
	{
		cancel_leaves_backend_as_was($node,
			"uringprobe_extend('$big', 'write', '$interface', total_mb => 1024, write_data => true, sessions => 2)",
			'300ms', "$cell: a $interface run");
		is(scalar(files_left()), 0, "$cell: the cancelled $interface run left no scratch file");
	}

	crash_cleanup($server, $node, $big, $cell) if $full;
	$node->stop;
}

# A backend killed mid-run leaves its file: the server's restart after the
# crash (preloaded) removes it; one left all the same (planted here) is
# removed by the next run in the directory, or by the next server start.
sub crash_cleanup
{
	my ($server, $node, $big, $cell) = @_;
	my $killed = sub {
		my ($o, $e) = ('', '');
		my $h = IPC::Run::start(
			[
				"$server->{bindir}/psql", '-X', '-h', $node->host, '-p', $node->port, '-d', 'postgres',
				'-c', "SELECT * FROM uringprobe_extend('$big', 'write', 'sync', total_mb => 1024, write_data => true)"
			],
			'>', \$o, '2>', \$e);
		my $backend;
		for (1 .. 200)
		{
			$backend = $node->safe_psql('postgres',
				"SELECT pid FROM pg_stat_activity WHERE query LIKE '%uringprobe_extend(%' AND pid <> pg_backend_pid()");
			last if $backend && scratch_files($big);
			sleep 0.05;
		}
		die "the long run did not start\n" unless $backend && scratch_files($big);
		kill 'KILL', $backend;
		$h->finish;
		poll_until($node, 'SELECT true') or die "the server did not recover\n";
		return $backend;
	};
	my $stale = "$big/uringprobe-999999999-1-0.scratch";
	my $plant = sub { open my $fh, '>', $stale or die "cannot write $stale: $!\n"; print $fh 'x' x 4096; close $fh };
	my $offset = -s $node->logfile;
	$killed->();
	is(scalar(scratch_files($big)), 0, "$cell: the crash restart (preloaded) removes a killed backend's file");
	like(slurp_file($node->logfile, $offset), qr/uringprobe: removed 1 stale scratch files/, "$cell: ... and logs it");
	$plant->();
	my $r = query_row($node, "SELECT * FROM uringprobe_extend('$big', total_mb => 1)");
	is($r->{stale_removed}, 1, "$cell: a stale file: the next run in that directory removes it");
	is(scalar(scratch_files($big)), 0, "$cell: ... and leaves none of its own");

	$plant->();
	$offset = -s $node->logfile;
	$node->restart;
	is(scalar(scratch_files($big)), 0, "$cell: a server start (preloaded) removes a stale file");
	like(slurp_file($node->logfile, $offset), qr/uringprobe: removed 1 stale scratch files/, "$cell: ... and logs it");
}

done_testing();
