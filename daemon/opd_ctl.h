/* The daemon's side of the control socket (op_ctl.h has the protocol and
 * the client). The socket is created owner-only: commands stop and start
 * system-wide profiling, which only the session's owner may do.
 *
 * A client that connects and sends nothing, or never reads, cannot stall
 * the daemon: reads and writes on a connection time out.
 */
#ifndef OPD_CTL_H
#define OPD_CTL_H

#include <stddef.h>

#include "op_sessdir.h"

/* Create and listen on path, reached through sd (op_sessdir.h: bound
 * through the directory's descriptor, op_sd_bind()), mode 0600. A stale
 * socket file is replaced; a link at its name is refused (-ELOOP).
 * Returns the listening fd (non-blocking, close-on-exec) or -errno. */
int opd_ctl_listen(const struct op_sessdir *sd, const char *path);

/* Accept one connection and read its command line (without the newline)
 * into line. Returns the connection fd, -EAGAIN when none is waiting, or
 * -errno (-EPROTO for a line too long or cut; the connection is then closed
 * by this function after an error reply). */
int opd_ctl_accept(int listen_fd, char *line, size_t len);

/* Write reply (lines ending in '\n') and close the connection. */
void opd_ctl_reply(int conn, const char *reply);

#endif /* OPD_CTL_H */
