/* The session lock: $SESSION_DIR/lock holds the running daemon's pid, so
 * two daemons never write one session. The file is created complete (a
 * temporary file linked into place), so a reader never sees a half-written
 * pid. operf takes it too. A lock whose pid is dead, or belongs to a
 * process that is neither oprofiled nor operf (a pid reused after a
 * crash), is stale and taken over.
 *
 * path is reached through sd (op_sessdir.h): a link at the lock's name, or
 * at its temporary's, is refused (-ELOOP), never written through.
 */
#ifndef OPD_LOCK_H
#define OPD_LOCK_H

#include <stdbool.h>
#include <sys/types.h>

#include "op_sessdir.h"

/* Take the lock at path for pid. Returns 0, -EBUSY with *owner set when a
 * live daemon holds it, or -errno. */
int opd_lock_take(const struct op_sessdir *sd, const char *path, pid_t pid,
		  pid_t *owner);

/* Remove the lock if it still names pid. */
void opd_lock_release(const struct op_sessdir *sd, const char *path, pid_t pid);

/* The pid in the lock file ("PID\n"), 0 if none, unreadable or junk. */
pid_t opd_lock_read(const struct op_sessdir *sd, const char *path);

/* Whether pid is a live oprofiled or operf, that is, whether a lock
 * naming it holds (optop asks it of the session it watches). */
bool opd_lock_holder_alive(pid_t pid);

#endif /* OPD_LOCK_H */
