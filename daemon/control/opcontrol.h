/* opcontrol: the user's controls for a profiling session, with OProfile
 * 0.9's options.
 *
 * opcontrol keeps no state of its own: the settings live in
 * $SESSION_DIR/daemonrc, the daemon's liveness in $SESSION_DIR/lock, and
 * everything else is asked of oprofiled over its control socket. Every
 * invocation that touches a session holds an flock on
 * $SESSION_DIR/opcontrol.lock for its whole run, so two opcontrol at once
 * cannot interleave a save with a dump or start two daemons: the second
 * waits (bounded) and then refuses.
 *
 * Exit status: 0 ok, 1 runtime failure, 2 usage error.
 *
 * Rooms:
 *   opcontrol.c    the command line, and the order the actions run in
 *   opc_options.c  options checked and folded into the settings
 *   opc_daemon.c   oprofiled: starting it, asking it, stopping it
 *   opc_session.c  the session directory: its lock, --reset, --save,
 *                  --status
 *   opc_util.c     what every room uses: messages, the clock
 * opcontrol.c calls the rooms; the rooms call opc_util.c and the one
 * before them in this list, never back.
 */
#ifndef OPCONTROL_H
#define OPCONTROL_H

#include <stdbool.h>
#include <sys/types.h>

#include "op_config.h"
#include "op_log.h"

#define OPC_EXIT_OK 0
#define OPC_EXIT_FAIL 1
#define OPC_EXIT_USAGE 2

#define OPC_LOCK_WAIT_MS 10000		/* how long a second opcontrol waits */
#define OPC_CTL_TIMEOUT_MS 60000	/* dump and stop flush everything */
#define OPC_SHUTDOWN_WAIT_MS 30000	/* for the daemon to exit after shutdown */
#define OPC_START_WAIT_MS 120000	/* for oprofiled to say it is ready */
#define OPC_MAX_CALLGRAPH 1024

/* What the command line asked for. */
struct opc_opts {
	/* actions */
	int init, setup, status, start_daemon, start, dump, stop, shutdown;
	int reset, deinit, list_events, version, help, verbose;
	char *save;
	char *snapshot;		/* --snapshot[=NAME]: "" for the default name */
	int snapshot_given;
	char *session_dir;
	/* settings */
	char *events[OP_MAX_EVENTS];
	unsigned int nr_events;
	bool too_many_events;
	char *separate;
	char *callgraph;
	char *unwind;		/* --unwind=fp|dwarf[,BYTES] */
	char *image;
	char *vmlinux;
	int no_vmlinux;
	char *buffer_size;
	char *buffer_watershed;
	char *cpu_buffer_size;
	char *pid;
	char *cpus;
	char *flight;		/* --flight-recorder=SECONDS */
	char *keep_max;		/* --keep-max=MIB */
};

/* One run's context: the session and the lock held on it. */
struct opc {
	struct op_paths paths;
	/* paths.session_dir, every path below it reached through this
	 * (op_sessdir.h); fd -1 while there is no session directory */
	struct op_sessdir sd;
	struct op_settings settings;
	struct op_logger log;
	int lock_fd;
	bool verbose;
};

/* ---- opc_util.c: what every room uses ---- */

/* "opcontrol: " and the message on stderr. */
void opc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "opcontrol: WHAT PATH: " and why err (op_sd_explain()) on stderr. */
void opc_sd_err(const struct opc *c, const char *what, const char *path, int err);
/* The monotonic clock in ms, and a sleep on it. */
long opc_now_ms(void);
void opc_sleep_ms(long ms);

/* ---- opc_options.c: each returns 0 or -errno, the message printed ---- */

/* Any setting given, so daemonrc is to be written. */
bool opc_setup_opts_given(const struct opc_opts *o);
/* Anything to do besides --help, --version and --list-events. */
bool opc_actions_given(const struct opc_opts *o);
/* Only --status, --dump, --stop or --shutdown: actions that look at a
 * session or end its daemon, and need not create it. */
bool opc_observes_only(const struct opc_opts *o);
/* Fold the command line's settings into s; every error is a usage error. */
int opc_apply_settings(const struct opc_opts *o, struct op_settings *s);
/* A name --save or --snapshot (opt) can give a session under samples/. */
int opc_check_save_name(const char *opt, const char *name);

/* ---- opc_daemon.c ---------------------------------------------------- */

/* Root, and a kernel that lets root profile every CPU (collect: the
 * action will start collection). */
int opc_check_privileges(bool collect);
/* The pid in the daemon's lock file when that process is alive, else 0. */
pid_t opc_daemon_pid(const struct opc *c);
/* Send cmd; on success *reply holds the lines after "ok" (reply may be
 * NULL). 0, -ENOTCONN when no daemon answers, or -EIO after printing the
 * daemon's error. */
int opc_request(const struct opc *c, const char *cmd, char **reply);
/* Look up KEY in a status reply ("KEY VALUE" lines). */
bool opc_status_value(const char *reply, const char *key, char *val, size_t len);
/* --start-daemon: start oprofiled unless it runs. */
int opc_start_daemon(struct opc *c);
/* --start: the daemon if needed, then collection. */
int opc_start(struct opc *c);
/* --dump, --stop: cmd to a running daemon, done printed on success. */
int opc_simple(struct opc *c, const char *cmd, const char *done);
/* --snapshot=NAME: a flight recorder's last window as session NAME;
 * returns when it is on disk. */
int opc_snapshot(struct opc *c, const char *name);
/* --shutdown: ask, or signal, and wait for the daemon to exit. */
int opc_shutdown(struct opc *c, bool quiet);

/* Take the daemon down around a change to current/ and bring it back as
 * it was (opc_daemon.c). */
struct opc_pause {
	bool had_daemon;
	bool was_running;
};
int opc_daemon_pause(struct opc *c, struct opc_pause *p);
int opc_daemon_resume(struct opc *c, const struct opc_pause *p);

/* ---- opc_session.c -------------------------------------------------- */

/* Take $SESSION_DIR/opcontrol.lock, waiting a bounded time. */
int opc_lock(struct opc *c);
int opc_reset(struct opc *c);
int opc_save(struct opc *c, const char *name);
int opc_status(struct opc *c);

#endif /* OPCONTROL_H */
