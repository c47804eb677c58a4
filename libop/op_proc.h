/* What /proc says about a process, for the programs that must tell a live
 * oprofiled from a dead one: opcontrol, before it talks to the daemon, and
 * the daemon's lock, before it takes over a stale one.
 */
#ifndef OP_PROC_H
#define OP_PROC_H

#include <stdbool.h>
#include <sys/types.h>

/* The state letter of /proc/PID/stat ('R', 'S', 'Z', ...). Returns it, 0
 * when the file was read but holds no state after "(COMM) ", or -errno
 * when it cannot be read (-ENOENT: no such process, or no /proc). */
int op_proc_state(pid_t pid);

/* A state of a process that has exited: a zombie ('Z', not yet reaped)
 * or dead ('X'). It holds nothing: no lock, no socket, no events. */
static inline bool op_proc_state_exited(int state)
{
	return state == 'Z' || state == 'X';
}

#endif /* OP_PROC_H */
