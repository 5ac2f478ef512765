# The kernel's own profile of each cell of one benchmark (make bench
# PERF=1): the samples of a system-wide `perf record -e cpu-clock -k
# CLOCK_MONOTONIC` taken while the benchmark ran, each given to the cell
# that was running at its time (bench/*.pl note when each cell starts, on
# the same clock), rounds of a cell merged. Counted are the experiment's
# threads: PostgreSQL's processes (the backend, its children: the sender,
# the forked children of rings), uringprobe-cli, pgbench, the reference
# loop, and io_uring's kernel threads — the SQPOLL thread (sqpoll) and
# io-wq workers (iowq); idle and the driver's own processes are left out.
#
#   perl bench/perf-profile.pl BENCH PERF.DATA CELLS.TSV PROFILE.TSV FAMILIES.TSV [WIDE.TSV]
#
# PROFILE.TSV (appended to; header when new): per cell and thread group
# (all, main, sqpoll, iowq) its top functions by self share: benchmark,
# cell, threads, rank, function, space (k: kernel, u: user), samples,
# share_pct, threads_samples, cell_key. FAMILIES.TSV (likewise): per cell, the share
# of its samples (of all its threads, or of the family's thread group:
# Uringprobe::PerfFamilies) in each family of functions that is the benchmark's
# report's evidence (the fork/exit path for rings and churn, CQ posting and
# the SQPOLL loop for completions, io_uring and epoll polling for events,
# the filesystems' allocation and write paths for extend and copy); WIDE.TSV
# (written) the same as a row per cell and a column per family, for the
# plot (bench/perf.gp). A cell is its key (its parameters, the same in
# every round); its label, the round left out, is only shown. FAMILIES.TSV
# names each family and cell by its id and key too (family_id, cell_key),
# for the findings.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tools/perl";
use Uringprobe::PerfFamilies;

my ($bench, $data, $cells_file, $profile_file, $families_file, $wide_file) = @ARGV;
die "usage: perf-profile.pl BENCH PERF.DATA CELLS.TSV PROFILE.TSV FAMILIES.TSV\n" unless $families_file;

my %top = (all => 10, main => 10, sqpoll => 6, iowq => 6);
my @families = perf_families($bench);


# When each cell started: "<monotonic seconds>\t<label>\t<key>" lines (the
# key: the cell's parameters, Uringprobe::BenchScript's cell_key), the last one
# the benchmark's end ("\t(end)"); "(setup)" where a cluster is set up
# between cells.
open my $cf, '<', $cells_file or die "cannot read $cells_file: $!\n";
my @cells;    # [start, key] (key undef: between cells)
my %label_of; # key -> the cell's label, its round left out (what is shown)
while (my $line = <$cf>)
{
	chomp $line;
	my ($t, $name, $key) = split /\t/, $line, 3;
	next unless defined $name;
	# a cell's rounds (runs), its extra rounds too, share its key
	if (defined $key && $key ne '')
	{
		($label_of{$key} //= $name) =~ s/,? (?:(?:extra )?round|run) \d+(?:\/\d+| \(at most \d+\))//;
	}
	elsif ($name !~ /^\(/)
	{
		die "$cells_file: cell '$name' has no key\n";
	}
	push @cells, [ $t, defined $key && $key ne '' ? $key : undef ];
}
close $cf;
die "$cells_file names no cell\n" unless @cells;

sub thread_group
{
	my ($comm) = @_;
	return 'sqpoll' if $comm =~ /^iou-sqp/;
	return 'iowq' if $comm =~ /^iou-wrk/;
	return 'main' if $comm =~ /^(postgres|postmaster|uringprobe-cli|pgbench|epoll-pingpong)$/;
	return;
}

my %count;    # group -> threads -> function -> samples
my %space;    # function -> k|u
my %total;    # group -> threads -> samples
my @order;    # groups in first-seen order
my %seen;
open my $ps, '-|', 'perf', 'script', '-i', $data, '-F', 'comm,time,ip,sym'
  or die "cannot run perf script: $!\n";
while (my $line = <$ps>)
{
	next unless $line =~ /^\s*(.+?)\s+(\d+\.\d+):\s+([0-9a-f]+)\s+(\S+)/;
	my ($comm, $t, $ip, $sym) = ($1, $2, $3, $4);
	my $threads = thread_group($comm) // next;
	next if $t < $cells[0][0] || $t >= $cells[-1][0];
	# the last cell started at or before $t (binary search)
	my ($lo, $hi) = (0, $#cells);
	while ($lo < $hi)
	{
		my $mid = int(($lo + $hi + 1) / 2);
		if ($cells[$mid][0] <= $t) { $lo = $mid; }
		else { $hi = $mid - 1; }
	}
	my $group = $cells[$lo][1] // next;    # (setup): a cluster set up; (end)
	push @order, $group unless $seen{$group}++;
	$space{$sym} //= length($ip) == 16 && $ip =~ /^ffff/ ? 'k' : 'u';
	for my $g ('all', $threads)
	{
		$count{$group}{$g}{$sym}++;
		$total{$group}{$g}++;
	}
}
close $ps or die "perf script failed on $data\n";

sub append_tsv
{
	my ($file, $header, $rows) = @_;
	my $new = !-s $file;
	open my $fh, '>>', $file or die "cannot write $file: $!\n";
	print $fh join("\t", @$header), "\n" if $new;
	print $fh join("\t", @$_), "\n" for @$rows;
	close $fh or die "cannot write $file: $!\n";
}

my (@profile, @family_rows);
for my $group (@order)
{
	for my $threads (qw(all main sqpoll iowq))
	{
		my $n = $total{$group}{$threads} or next;
		my $f = $count{$group}{$threads};
		my @funcs = (sort { $f->{$b} <=> $f->{$a} || $a cmp $b } keys %$f)[ 0 .. $top{$threads} - 1 ];
		my $rank = 0;
		for my $fn (grep { defined } @funcs)
		{
			push @profile, [ $bench, $label_of{$group}, $threads, ++$rank, $fn, $space{$fn}, $f->{$fn},
				sprintf('%.1f', 100 * $f->{$fn} / $n), $n, $group ];
		}
	}
	for my $family (@families)
	{
		my $in = $count{$group}{ $family->{threads} } // {};
		my $n = 0;
		$n += $in->{$_} for grep { $_ =~ $family->{re} } keys %$in;
		my $of = $total{$group}{ $family->{threads} } // 0;
		push @family_rows, [ $bench, $label_of{$group}, $family->{title}, $n, $of ? sprintf('%.1f', 100 * $n / $of) : '0.0', $of,
			$family->{id}, $group ];
	}
}
append_tsv($profile_file,
	[qw(benchmark cell threads rank function space samples share_pct threads_samples cell_key)], \@profile);
append_tsv($families_file, [qw(benchmark cell family samples share_pct of_samples family_id cell_key)], \@family_rows)
  if @family_rows;
if ($wide_file && @family_rows)
{
	open my $w, '>', $wide_file or die "cannot write $wide_file: $!\n";
	print $w join("\t", 'cell', map { $_->{title} } @families), "\n";
	my %share = map { ("$_->[7]\t$_->[6]" => $_->[4]) } @family_rows;
	for my $group (@order)
	{
		# the benchmark's name leads every cell's: left out here
		(my $cell = $label_of{$group}) =~ s/^\Q$bench\E //;
		print $w join("\t", $cell, map { $share{"$group\t$_->{id}"} // 0 } @families), "\n";
	}
	close $w or die "cannot write $wide_file: $!\n";
}
my $samples = 0;
$samples += $total{$_}{all} for @order;
printf "%s: %d cells profiled, %d samples of the experiment's threads\n", $bench, scalar(@order), $samples;
