# The families of kernel functions that are each benchmark's report's
# evidence in its cells' kernel profiles (make bench PERF=1): an id, the
# title the tables and plots show, the functions (a pattern on their
# names), and the thread group whose samples the family is a share of
# (default all: every thread of the experiment). bench/perf-profile.pl
# counts them; the findings find a family by its id.
package Uringprobe::PerfFamilies;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT = qw(perf_families profiled_benchmarks);

# The kernel's CQ posting: filling a CQE and committing the CQ ring
# (report 2's io_commit_cqring and __io_cqring_fill_event; batched since 5.9).
my $cq_posting = qr/^(io_commit_cqring|__io_commit_cqring|__io_cqring_fill_event|io_fill_cqe|__io_fill_cqe|io_cqring_ev_posted|__io_cq_unlock_post|io_cq_unlock_post|__io_submit_flush_completions|io_req_cqe_overflow|io_post_aux_cqe|io_add_aux_cqe|io_cqe_cache_refill|io_cqring_wake|__io_post_aux)/;

my %families = (
	rings => [
		[ fork_page_tables => 'fork: page tables copied' => qr/^(copy_page_range|copy_pte_range|copy_p[mu4]d_range|dup_mmap|copy_present_p|__pte_alloc|pte_alloc_one)/ ],
		[ exit_unmap => 'exit: mappings torn down' => qr/^(zap_pte_range|zap_p[mu4]d_range|unmap_page_range|unmap_vmas|free_pgtables|free_pgd_range|exit_mmap|__tlb_remove|tlb_finish_mmu|release_pages|free_pages_and_swap_cache)/ ],
		[ ring_mappings => 'io_uring mappings' => qr/^(io_uring_mmap|io_uring_validate_mmap|io_region|io_create_region|io_free_region|io_uring_get_unmapped_area)/ ],
	],
	completions => [
		[ cq_posting => 'CQ posting' => $cq_posting ],
		[ cq_posting_sqpoll => 'CQ posting, in the SQPOLL thread' => $cq_posting, 'sqpoll' ],
		[ sqpoll_loop => 'SQPOLL loop and task work' => qr/^(io_sq_thread|io_sq_tw|io_sqd_handle_event|tctx_task_work_run|io_handle_tw_list|tctx_task_work)/ ],
		[ submission => 'submission' => qr/^(io_submit_sqes|io_issue_sqe|io_init_req|io_queue_sqe|__io_queue_sqe)/ ],
		[ receive_path => 'receive path' => qr/^(io_recv|udp_recvmsg|__skb_recv_udp|sock_recvmsg|skb_copy_datagram|_copy_to_iter|__check_object_size)/ ],
	],
	events => [
		[ poll_arm => 'io_uring poll arm' => qr/^(io_poll_add|__io_arm_poll_handler|io_arm_apoll|io_arm_poll_handler|__io_poll_execute|io_poll_can_finish|io_pollfree)/ ],
		[ poll_wake => 'io_uring poll wake' => qr/^(io_poll_wake|io_poll_task_func|io_poll_check_events|__io_poll_exec|io_req_task_work_add|__io_req_task_work_add|io_req_local_work_add|io_req_normal_work_add)/ ],
		[ epoll => 'epoll' => qr/^(ep_poll|ep_poll_callback|do_epoll_wait|ep_item_poll|ep_send_events|__ep_eventpoll_poll|ep_done_scan|ep_start_scan)/ ],
		[ wakeup => 'wake-up and switch' => qr/^(try_to_wake_up|__wake_up|__wake_up_common|schedule|__schedule|finish_task_switch|pick_next_task|ttwu_)/ ],
	],
	extend => [
		[ fallocate => 'fallocate' => qr/^(vfs_fallocate|xfs_file_fallocate|xfs_alloc_file_space|xfs_bmapi_write|xfs_bmap|ext4_fallocate|ext4_alloc_file_blocks|ext4_ext_map_blocks|ext4_mb_)/ ],
		[ buffered_write => 'buffered write' => qr/^(iomap_|generic_perform_write|filemap_|xfs_file_buffered_write|ext4_buffered_write|ext4_da_write|copy_folio_from_iter|__filemap_get_folio|folio_)/ ],
		[ xfs_other => 'XFS (other)' => qr/^xfs_/ ],
		[ ext4_other => 'ext4 (other)' => qr/^ext4_/ ],
	],
);
$families{churn} = $families{rings};
$families{copy} = $families{extend};

# A benchmark's families: { id, title, re, threads }.
sub perf_families
{
	my ($bench) = @_;
	return map { { id => $_->[0], title => $_->[1], re => $_->[2], threads => $_->[3] // 'all' } }
	  @{ $families{$bench} // [] };
}

# The benchmarks whose cells' kernel profiles have families, in the
# benchmarks' order (the list every reader takes).
sub profiled_benchmarks
{
	my ($names) = @_;
	return grep { $families{$_} } @$names;
}

1;
