/* oprofiled as a process: what it inherits from whoever started it, and
 * how it leaves them.
 *
 * A daemon outlives the shell, script or test harness that started it, so
 * every descriptor it inherits stays open as long as it runs: a lock file
 * someone flock'd stays locked by a process that never meant to hold it
 * (a test harness's machine-wide lock, held by an orphaned daemon, once
 * stopped every later test), a pipe stays open and its reader never sees
 * the end. So the daemon closes, at start, every descriptor but 0, 1, 2
 * and those it is told to keep (--keep-fd).
 */
#ifndef OPD_PROC_H
#define OPD_PROC_H

#include <stddef.h>

/* opd_close_inherited() flags */
enum {
	/* do not use close_range(2): the fallback's walk of /proc/self/fd
	 * (for tests) */
	OPD_CLOSE_NO_RANGE = 1 << 0,
};

/* At most this many descriptors kept */
#define OPD_KEEP_FDS_MAX 16

/* Close every descriptor from 3 up but the nr_keep (at most
 * OPD_KEEP_FDS_MAX) in keep (any order; those under 3 are ignored): close_range(2) between the kept ones, or,
 * on kernels without it, each descriptor listed in /proc/self/fd, or,
 * without /proc, each up to the descriptor limit. 0, or -errno when
 * something could not be closed (-E2BIG: too many to keep). */
int opd_close_inherited(const int *keep, size_t nr_keep, unsigned int flags);

/* Parse a --keep-fd list ("5" or "5,9") into fds (OPD_KEEP_FDS_MAX of
 * them), each 3 or more. The number found, or -EINVAL. */
int opd_keep_fds_parse(const char *list, int *fds);

/* Fork into the background (a new session). The parent waits for the
 * child's word on a pipe: "ok\n" and it exits 0, anything else is the
 * child's error, printed before it exits 1. Returns in the child only:
 * the pipe's write end, for opd_ready() or the error. */
int opd_daemonise(void);

/* stdin and stdout to /dev/null, stderr to log_fd (or /dev/null when
 * log_fd < 0), so that what the runtime says when it kills the daemon (a
 * sanitizer report, glibc's abort message) lands in its log. */
void opd_detach_stdio(int log_fd);

#endif /* OPD_PROC_H */
