# Scratch confinement through a backend, for a role with the documented
# grant (pg_write_server_files): symlinks planted inside the allowed scratch
# directory are never followed — one named like a dead session's scratch
# file is swept as a link, one at the session's own next scratch name makes
# the run fail with EEXIST — and while another process keeps replacing the
# scratch directory with a symlink to a directory outside, every run either
# works inside or is refused; nothing outside is ever touched. (Absolute
# paths, '..' and unlisted directories: sql/bad_input_extend.sql.)
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();
use Uringprobe::Cluster;

my $base = default_scratch_dir() . '/confinement';
my ($allowed, $victim) = ("$base/allowed", "$base/victim");
my $keep = "$victim/keep";
# The race's attempts: in batches, until both outcomes were seen (a run
# inside the directory, a refusal of the swapped one) or the cap.
my ($batch, $max_batches) = (100, 20);

# The victim directory as it must stay: its entries, the kept file's
# content, and the directory's mtime in ns (a file created and removed
# there would change it).
sub victim_state
{
	opendir my $d, $victim or die "$victim: $!";
	my @entries = sort grep { !/^\.\.?$/ } readdir $d;
	my $mtime = (Time::HiRes::stat($victim))[9];
	return join(',', @entries) . ' ' . slurp_file($keep) . " $mtime";
}

# The start time (clock ticks since boot) in /proc/<pid>/stat, as scratch
# file names carry it.
sub start_ticks
{
	my ($pid) = @_;
	my $stat = slurp_file("/proc/$pid/stat");
	$stat =~ s/^.*\) //s;
	return (split ' ', $stat)[19];
}

for my $server (servers())
{
	my $io_method = $server->{major} >= 18 ? 'io_uring' : 'sync';
	my $cell = "$server->{name}/$io_method";
	system('rm', '-rf', $base);
	mkdir $_ or die "$_: $!" for $base, $allowed, $victim;
	append_to_file($keep, 'keep');
	my $intact = victim_state();

	my ($node) = start_cluster(server => $server, io_method => $io_method,
		name => "confinement_$server->{name}", settings => ["uringprobe.scratch_dirs = '$allowed'"]);
	$node->safe_psql('postgres',
		'CREATE EXTENSION uringprobe; CREATE ROLE writer LOGIN IN ROLE pg_write_server_files');
	my $extend = "SELECT status FROM uringprobe_extend('$allowed', 'fallocate', 'sync', total_mb => 1)";

	# A link named like the scratch file of a session long gone.
	my $stale = "$allowed/uringprobe-999999999-1-0.scratch";
	symlink($keep, $stale) or die "symlink: $!";
	my $r = query_row($node, "SET ROLE writer; SELECT status, stale_removed FROM uringprobe_extend('$allowed', total_mb => 1)");
	is("$r->{status} $r->{stale_removed}", 'ok 1', "$cell: a planted link named like a stale file is swept");
	ok(!-l $stale, "$cell: ... the link is gone");
	is(victim_state(), $intact, "$cell: ... and what it pointed to is untouched");

	# Links at the names a fresh session will give its scratch files.
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	$bg->query_safe('SET ROLE writer');
	my $pid = $bg->query_safe('SELECT pg_backend_pid()');
	my $prefix = "$allowed/uringprobe-$pid-" . start_ticks($pid);
	my @planted = map { "$prefix-$_.scratch" } 0 .. 3;
	for my $link (@planted) { symlink($keep, $link) or die "symlink: $!" }
	$bg->query($extend);
	like($bg->{stderr}, qr/uringprobe: create \Q$prefix\E-\d+\.scratch: File exists/,
		"$cell: a link at the session's own scratch name: the run fails with EEXIST") or diag($bg->{stderr});
	like($bg->{stderr}, qr/HINT:  .*something else writes into the scratch directory/, "$cell: ... with a hint");
	is(scalar(grep { -l } @planted), 4, "$cell: ... the links are left to whoever planted them");
	is(victim_state(), $intact, "$cell: ... and nothing was written through them");
	unlink @planted;
	$bg->{stderr} = '';
	is($bg->query_safe($extend), 'ok', "$cell: without them the session runs");

	# The race: another process keeps swapping the allowed directory for a
	# symlink to the victim directory and back, leaving the real one in
	# place for a random while (up to 0.4 ms) each time: with it swapping
	# flat out, a 2-core machine can starve every run of a moment with the
	# real directory there.
	my $swapper = fork() // die "fork: $!";
	if ($swapper == 0)
	{
		my $aside = "$base/aside";
		while (1)
		{
			rename($allowed, $aside);
			symlink($victim, $allowed);
			unlink($allowed);
			rename($aside, $allowed);
			select(undef, undef, undef, rand(0.0004));
		}
	}
	$bg->query_safe('CREATE TEMP TABLE outcome (what text)');
	my ($outcomes, $attempts) = ('', 0);
	while ($attempts < $batch * $max_batches)
	{
		$bg->query_safe(qq{
			DO \$\$
			BEGIN
				FOR i IN 1..$batch LOOP
					BEGIN
						PERFORM * FROM uringprobe_extend('$allowed', 'fallocate', 'sync', total_mb => 1);
						INSERT INTO outcome VALUES ('created');
					EXCEPTION WHEN OTHERS THEN
						INSERT INTO outcome VALUES (SQLSTATE || ' ' || regexp_replace(SQLERRM, '/[^ :]+', 'PATH'));
					END;
				END LOOP;
			END \$\$;
		});
		$attempts += $batch;
		$outcomes = $bg->query_safe("SELECT what || '=' || count(*) FROM outcome GROUP BY what ORDER BY 1");
		last if $outcomes =~ /^created=/m && $outcomes =~ /^(?!created=)/m;
	}
	kill 'KILL', $swapper;
	waitpid($swapper, 0);
	# killed midway through a swap: the real directory back in its place
	unlink $allowed if -l $allowed;
	rename("$base/aside", $allowed) if -d "$base/aside";
	note("$cell: race outcomes: " . join(', ', split /\n/, $outcomes));
	my %count = map { split /=/ } split /\n/, $outcomes;
	my $total = 0;
	$total += $_ for values %count;
	is($total, $attempts, "$cell: race: every attempt has an outcome");
	ok(($count{created} // 0) > 0, "$cell: race: runs inside the allowed directory work");
	my @refusals = grep { $_ ne 'created' } keys %count;
	ok(@refusals > 0, "$cell: race: the swap was hit (the race was exercised)");
	my @unexpected =
	  grep { !/^42501 uringprobe: open PATH \(scratch directories .*not symlinks\): Too many levels of symbolic links\z|^58P01 uringprobe: open PATH: No such file or directory\z/ }
	  @refusals;
	is_deeply(\@unexpected, [], "$cell: race: every refusal is a symlink refused or a directory missing");
	is(victim_state(), $intact, "$cell: race: nothing outside was ever touched");
	is_deeply([ scratch_files($allowed) ], [], "$cell: no scratch file left");
	$bg->quit;
	$node->stop;
}
system('rm', '-rf', $base);

done_testing();
