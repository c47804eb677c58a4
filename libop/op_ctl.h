/* The control protocol between opcontrol and oprofiled, over the UNIX
 * stream socket $SESSION_DIR/opd_ctl (mode 0600).
 *
 * One request per connection. The client writes one line, the command:
 *   start | stop | dump | status | shutdown
 * The daemon answers with lines and closes the connection:
 *   "ok" then, for status, "KEY VALUE" lines (see below), or
 *   "error MESSAGE"
 * A command is answered only when it is done: "dump" answers after every
 * CPU buffer is synced, the event buffer drained, every sample file msynced
 * and the stats written.
 *
 * status keys: pid, state (running|stopped), events (comma list of specs),
 * separate, session_dir, samples (received so far), and one key per loss
 * counter, named as the stats files (lost_records_by_kernel, ...).
 */
#ifndef OP_CTL_H
#define OP_CTL_H

#include <stddef.h>

#include "op_sessdir.h"

/* Longest request or reply line. */
#define OP_CTL_LINE_MAX 4096

/* Send cmd, wait up to timeout_ms for the whole reply (which is stored
 * malloc'd and NUL-terminated in *reply). Returns 0, -ECONNREFUSED/-ENOENT
 * when no daemon listens, -ETIMEDOUT, -EPROTO for a reply too long,
 * -ELOOP when a link stands at the socket's name (op_sd_connect(): the
 * socket is reached through sd and connected only when it is one). */
int op_ctl_request(const struct op_sessdir *sd, const char *socket_path,
		   const char *cmd, int timeout_ms,
		   char **reply);

#endif /* OP_CTL_H */
