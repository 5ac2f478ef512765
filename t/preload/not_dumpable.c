/*
 * Preloaded into a server (LD_PRELOAD) by t/011_postmaster_view.pl: makes
 * the postmaster, and every process it forks, not dumpable, as file
 * capabilities on the postgres binary (setcap) or a wrapper calling
 * prctl(PR_SET_DUMPABLE, 0) would. Its /proc/<pid>/maps and fd/ then need
 * ptrace access, which its own backends do not have.
 */
#include <sys/prctl.h>

__attribute__((constructor)) static void
not_dumpable(void)
{
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}
