/* Where optop's samples come from: a profiler already running (opcontrol's
 * oprofiled, or an operf), found where opreport finds sessions and watched
 * without a word to it that would change the session; or, when none runs,
 * a system-wide profile taken in optop's own process, as operf
 * --system-wide takes it (opd_session.c), into a private directory removed
 * on exit.
 *
 * A watched profiler is asked nothing but, for oprofiled, its "status"
 * over the control socket (the counters, read from memory: nothing is
 * written), which gives the samples lost so far; an operf publishes its
 * counters only when it stops, so its losses are unknown meanwhile.
 *
 * A watched session is someone else's (root's daemon, another user's
 * operf), read as opreport reads one: through a held descriptor of its
 * directory (op_sessdir.h, no ownership check), so that a symbolic link
 * planted in it (at its lock, its control socket, samples, current, a
 * sample file) is refused and named, never followed out of it.
 */
#ifndef PP_LIVE_SOURCE_H
#define PP_LIVE_SOURCE_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "op_log.h"
#include "op_sessdir.h"

enum pp_live_kind {
	PP_LIVE_DAEMON,		/* opcontrol's oprofiled */
	PP_LIVE_OPERF,		/* an operf in progress */
	PP_LIVE_SELF,		/* optop's own, in process */
};

/* The default rate of optop's own profile: the cpu-clock every 250 us, 4
 * kHz a CPU, perf top's default rate. One busy CPU then gives 8000
 * samples in a 2 s interval, which puts a 10 % share within 0.34 points
 * (one standard error) in a single interval; the kernel's cost of a
 * cpu-clock sample, 1 to 2 us, is under 1 % of a CPU at that rate. */
#define PP_LIVE_SELF_EVENT "cpu-clock:250000"

/* What the profiler says at a refresh. */
struct pp_live_status {
	bool running;		/* the profiler is alive (and, oprofiled, sampling) */
	pid_t pid;
	bool restarted;		/* another pid than at the last poll */
	bool counts_known;	/* samples and lost below are meaningful */
	uint64_t samples;	/* received so far (cumulative) */
	uint64_t lost;		/* lost so far, each loss counted once */
};

struct pp_live_self;

struct pp_live_source {
	enum pp_live_kind kind;
	struct op_sessdir sd;		/* session_dir, read through (owned) */
	char session_dir[PATH_MAX];
	char current_dir[PATH_MAX];
	char lock_file[PATH_MAX];
	char ctl_socket[PATH_MAX];
	pid_t pid;			/* at the last poll */
	struct pp_live_self *self;	/* PP_LIVE_SELF */
	char events[256];		/* PP_LIVE_SELF: what it samples */
};

/* A running profiler's session: in given when given, else in
 * ./oprofile_data then the default session directory, as opreport looks.
 * 0 with src filled, or -ENOENT (none running: tried holds the
 * directories looked in, for the message), or another -errno with the
 * reason in tried (-ELOOP: the link refused, named). */
int pp_live_source_find(struct pp_live_source *src, const char *given,
			char *tried, size_t tried_len);

/* Profile the system in process with events (NULL: PP_LIVE_SELF_EVENT),
 * separated by CPU and by application (lib, kernel) as operf does, with
 * call chains when callgraph, into a new directory under $TMPDIR. lg must
 * be safe to call from any thread. 0, or -errno with the reason in err:
 * -EACCES/-EPERM when this process may not profile the system. */
int pp_live_source_self(struct pp_live_source *src, const char *events,
			unsigned int callgraph, const struct op_logger *lg,
			char *err, size_t errlen);

/* Ask how the profiler is. 0, or -errno when it could not be asked (the
 * status then says not running). */
int pp_live_source_poll(struct pp_live_source *src, struct pp_live_status *st);

/* Stop optop's own profile, and remove its directory; for a watched
 * profiler, let go of its directory. */
void pp_live_source_close(struct pp_live_source *src);

#endif /* PP_LIVE_SOURCE_H */
