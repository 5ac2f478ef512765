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
# share_pct, threads_samples. FAMILIES.TSV (likewise): per cell, the share
# of all its samples in each family of functions that is the benchmark's
# report's evidence (the fork/exit path for rings and churn, CQ posting and
# the SQPOLL loop for completions, io_uring and epoll polling for events,
# the filesystems' allocation and write paths for extend and copy); WIDE.TSV
# (written) the same as a row per cell and a column per family, for the
# plot (bench/perf.gp).
use strict;
use warnings;

my ($bench, $data, $cells_file, $profile_file, $families_file, $wide_file) = @ARGV;
die "usage: perf-profile.pl BENCH PERF.DATA CELLS.TSV PROFILE.TSV FAMILIES.TSV\n" unless $families_file;

my %top = (all => 10, main => 10, sqpoll => 6, iowq => 6);
# The kernel's CQ posting: filling a CQE and committing the CQ ring (the
# report 2's io_commit_cqring and __io_cqring_fill_event; batched since 5.9).
my $cq_posting = qr/^(io_commit_cqring|__io_commit_cqring|__io_cqring_fill_event|io_fill_cqe|__io_fill_cqe|io_cqring_ev_posted|__io_cq_unlock_post|io_cq_unlock_post|__io_submit_flush_completions|io_req_cqe_overflow|io_post_aux_cqe|io_add_aux_cqe|io_cqe_cache_refill|io_cqring_wake|__io_post_aux)/;
# Each family: name, functions, and the thread group whose samples it is a
# share of (default: all the experiment's threads).
my %families = (
	rings => [
		[ 'fork: page tables copied' => qr/^(copy_page_range|copy_pte_range|copy_p[mu4]d_range|dup_mmap|copy_present_p|__pte_alloc|pte_alloc_one)/ ],
		[ 'exit: mappings torn down' => qr/^(zap_pte_range|zap_p[mu4]d_range|unmap_page_range|unmap_vmas|free_pgtables|free_pgd_range|exit_mmap|__tlb_remove|tlb_finish_mmu|release_pages|free_pages_and_swap_cache)/ ],
		[ 'io_uring mappings' => qr/^(io_uring_mmap|io_uring_validate_mmap|io_region|io_create_region|io_free_region|io_uring_get_unmapped_area)/ ],
	],
	completions => [
		[ 'CQ posting' => $cq_posting ],
		[ 'CQ posting, in the SQPOLL thread' => $cq_posting, 'sqpoll' ],
		[ 'SQPOLL loop and task work' => qr/^(io_sq_thread|io_sq_tw|io_sqd_handle_event|tctx_task_work_run|io_handle_tw_list|tctx_task_work)/ ],
		[ 'submission' => qr/^(io_submit_sqes|io_issue_sqe|io_init_req|io_queue_sqe|__io_queue_sqe)/ ],
		[ 'receive path' => qr/^(io_recv|udp_recvmsg|__skb_recv_udp|sock_recvmsg|skb_copy_datagram|_copy_to_iter|__check_object_size)/ ],
	],
	events => [
		[ 'io_uring poll arm' => qr/^(io_poll_add|__io_arm_poll_handler|io_arm_apoll|io_arm_poll_handler|__io_poll_execute|io_poll_can_finish|io_pollfree)/ ],
		[ 'io_uring poll wake' => qr/^(io_poll_wake|io_poll_task_func|io_poll_check_events|__io_poll_exec|io_req_task_work_add|__io_req_task_work_add|io_req_local_work_add|io_req_normal_work_add)/ ],
		[ 'epoll' => qr/^(ep_poll|ep_poll_callback|do_epoll_wait|ep_item_poll|ep_send_events|__ep_eventpoll_poll|ep_done_scan|ep_start_scan)/ ],
		[ 'wake-up and switch' => qr/^(try_to_wake_up|__wake_up|__wake_up_common|schedule|__schedule|finish_task_switch|pick_next_task|ttwu_)/ ],
	],
	extend => [
		[ 'fallocate' => qr/^(vfs_fallocate|xfs_file_fallocate|xfs_alloc_file_space|xfs_bmapi_write|xfs_bmap|ext4_fallocate|ext4_alloc_file_blocks|ext4_ext_map_blocks|ext4_mb_)/ ],
		[ 'buffered write' => qr/^(iomap_|generic_perform_write|filemap_|xfs_file_buffered_write|ext4_buffered_write|ext4_da_write|copy_folio_from_iter|__filemap_get_folio|folio_)/ ],
		[ 'XFS (other)' => qr/^xfs_/ ],
		[ 'ext4 (other)' => qr/^ext4_/ ],
	],
);
$families{churn} = $families{rings};
$families{copy} = $families{extend};
my @families = @{ $families{$bench} // [] };

# When each cell started: "<monotonic seconds>\t<cell>" lines, the last
# one the benchmark's end ("\t(end)"); "(setup)" where a cluster is set up
# between cells.
open my $cf, '<', $cells_file or die "cannot read $cells_file: $!\n";
my @cells;    # [start, group]
while (my $line = <$cf>)
{
	chomp $line;
	my ($t, $name) = split /\t/, $line, 2;
	next unless defined $name;
	# a cell's rounds (runs), its extra rounds too, are one group
	(my $group = $name) =~ s/,? (?:(?:extra )?round|run) \d+(?:\/\d+| \(at most \d+\))//;
	push @cells, [ $t, $group ];
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
	my $group = $cells[$lo][1];
	next if $group =~ /^\(/;    # (setup): a cluster set up; (end)
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
			push @profile, [ $bench, $group, $threads, ++$rank, $fn, $space{$fn}, $f->{$fn},
				sprintf('%.1f', 100 * $f->{$fn} / $n), $n ];
		}
	}
	for my $family (@families)
	{
		my ($name, $re, $threads) = @$family;
		$threads //= 'all';
		my $in = $count{$group}{$threads} // {};
		my $n = 0;
		$n += $in->{$_} for grep { $_ =~ $re } keys %$in;
		my $of = $total{$group}{$threads} // 0;
		push @family_rows, [ $bench, $group, $name, $n, $of ? sprintf('%.1f', 100 * $n / $of) : '0.0', $of ];
	}
}
append_tsv($profile_file,
	[qw(benchmark cell threads rank function space samples share_pct threads_samples)], \@profile);
append_tsv($families_file, [qw(benchmark cell family samples share_pct of_samples)], \@family_rows)
  if @family_rows;
if ($wide_file && @family_rows)
{
	open my $w, '>', $wide_file or die "cannot write $wide_file: $!\n";
	print $w join("\t", 'cell', map { $_->[0] } @families), "\n";
	my %share = map { ("$_->[1]\t$_->[2]" => $_->[4]) } @family_rows;
	for my $group (@order)
	{
		# the benchmark's name leads every cell's: left out here
		(my $cell = $group) =~ s/^\Q$bench\E //;
		print $w join("\t", $cell, map { $share{"$group\t$_->[0]"} // 0 } @families), "\n";
	}
	close $w or die "cannot write $wide_file: $!\n";
}
my $samples = 0;
$samples += $total{$_}{all} for @order;
printf "%s: %d cells profiled, %d samples of the experiment's threads\n", $bench, scalar(@order), $samples;
