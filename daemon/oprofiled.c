/* oprofiled: runs kmod's collection pipeline for one session directory and
 * turns its event buffer into sample files, until told to stop.
 *
 * One thread does everything the daemon itself does (control commands,
 * signals through a signalfd, reading and decoding the event buffer), so
 * the decoder, the image table and the sample files need no lock; kmod's
 * own threads fill the event buffer behind kop_evbuf_read(). A command
 * waits at most one read timeout (OPD_READ_TIMEOUT_MS) to be served.
 *
 * Start-up order is the contract with opcontrol: lock, events, samples/
 * current/, log, control socket; only then does the parent of a
 * daemonised oprofiled exit 0 (the child tells it through a pipe, or sends
 * the error message it must print before exiting 1).
 *
 * The command line, the start-up and the loop are the one thread's, and
 * read in the order they run; the process's own matters (what it
 * inherits, daemonising) are opd_proc.c's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <popt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "kop.h"
#include "op_config.h"
#include "op_ctl.h"
#include "op_events.h"
#include "op_log.h"
#include "op_version.h"
#include "opd_ctl.h"
#include "opd_lock.h"
#include "opd_proc.h"
#include "opd_session.h"

struct opd_options {
	char *session_dir;
	char *events;
	int separate_lib, separate_kernel, separate_thread, separate_cpu;
	int separate_container;
	char *vmlinux;
	int no_vmlinux;
	char *image;
	long buffer_size;
	long buffer_watershed;
	long cpu_buffer_size;
	int callgraph;
	char *unwind;		/* --unwind; NULL: frame pointers */
	int pid;		/* 0: every process */
	char *cpus;		/* NULL: every CPU */
	int flight;		/* flight recorder's window, s; 0: off */
	int keep_max;		/* kept/'s bound, MiB; -1: the default */
	char *keep_fd;		/* --keep-fd: descriptors not closed at start */
	int keep_fds[OPD_KEEP_FDS_MAX];
	int nr_keep_fds;
	int verbose;
	int foreground;
	int version;
};

struct opd_daemon {
	struct opd_options opt;
	struct op_paths paths;
	struct op_sessdir sd;	/* paths.session_dir: every path through it */
	unsigned int separate;
	unsigned int unwind_stack;	/* --unwind: 0, frame pointers */
	cpu_set_t cpus;		/* when opt.cpus */
	pid_t pid;

	/* kmod's threads log too: log_lock guards log_file and last_error
	 * against them and against a SIGHUP reopen in the main loop */
	pthread_mutex_t log_lock;
	FILE *log_file;
	struct op_logger log;
	char last_error[512];	/* the last warning or error logged, for replies */
	int ready_fd;		/* pipe to the waiting parent, -1 once ready */

	int listen_fd;
	int sig_fd;
	bool quit;

	struct opd_session session;	/* the pipeline and the sample files */
};

/* ---- messages before and after the log exists ---- */

/* Report a start-up failure: to the waiting parent (which prints it and
 * exits 1), or on stderr in the foreground; also in the log if open. */
static void startup_error(struct opd_daemon *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void startup_error(struct opd_daemon *d, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(msg, sizeof(msg) - 1, fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	if (len > (int)sizeof(msg) - 2)
		len = (int)sizeof(msg) - 2;
	if (d->log_file)
		op_log(&d->log, OP_LOG_ERR, "%s", msg);
	msg[len++] = '\n';
	if (d->ready_fd >= 0) {
		if (write(d->ready_fd, msg, (size_t)len) < 0) {
			/* the parent is gone: nobody to tell */
		}
	} else {
		fputs("oprofiled: ", stderr);
		fwrite(msg, 1, (size_t)len, stderr);
	}
}

static void log_fn(void *ctx, enum op_log_level level, const char *msg)
{
	struct opd_daemon *d = ctx;

	pthread_mutex_lock(&d->log_lock);
	if (level <= OP_LOG_WARN)
		snprintf(d->last_error, sizeof(d->last_error), "%s", msg);
	if (d->log_file)
		op_log_to_file(d->log_file, level, msg);
	else if (d->opt.foreground)
		op_log_to_stderr((void *)"oprofiled", level, msg);
	pthread_mutex_unlock(&d->log_lock);
}

static void clear_last_error(struct opd_daemon *d)
{
	pthread_mutex_lock(&d->log_lock);
	d->last_error[0] = '\0';
	pthread_mutex_unlock(&d->log_lock);
}

static int open_log(struct opd_daemon *d)
{
	FILE *f = op_sd_fopen(&d->sd, d->paths.log_file, "ae");

	if (!f)
		return -errno;
	pthread_mutex_lock(&d->log_lock);
	if (d->log_file)
		fclose(d->log_file);
	d->log_file = f;
	pthread_mutex_unlock(&d->log_lock);
	return 0;
}

/* ---- options ---- */

static int parse_options(struct opd_daemon *d, int argc, const char **argv)
{
	struct opd_options *o = &d->opt;
	struct poptOption table[] = {
		{ "session-dir", 0, POPT_ARG_STRING, &o->session_dir, 0,
		  "session directory (default " OP_DEFAULT_SESSION_DIR ")", "DIR" },
		{ "events", 0, POPT_ARG_STRING, &o->events, 0,
		  "events to sample, NAME:COUNT:UNITMASK:KERNEL:USER or default, comma-separated", "SPEC[,SPEC...]" },
		{ "separate-lib", 0, POPT_ARG_INT, &o->separate_lib, 0,
		  "file library samples under their application", "0|1" },
		{ "separate-kernel", 0, POPT_ARG_INT, &o->separate_kernel, 0,
		  "file kernel samples under their application", "0|1" },
		{ "separate-thread", 0, POPT_ARG_INT, &o->separate_thread, 0,
		  "one sample file per thread", "0|1" },
		{ "separate-cpu", 0, POPT_ARG_INT, &o->separate_cpu, 0,
		  "one sample file per CPU", "0|1" },
		{ "separate-container", 0, POPT_ARG_INT, &o->separate_container, 0,
		  "one sample file per process, reported by container", "0|1" },
		{ "vmlinux", 0, POPT_ARG_STRING, &o->vmlinux, 0,
		  "kernel image with symbols; names the kernel's sample files", "FILE" },
		{ "no-vmlinux", 0, POPT_ARG_NONE, &o->no_vmlinux, 0,
		  "no kernel image: kernel samples are named after /proc/kallsyms", NULL },
		{ "image", 0, POPT_ARG_STRING, &o->image, 0,
		  "only profile these binaries", "PATH[,PATH...]" },
		{ "buffer-size", 0, POPT_ARG_LONG, &o->buffer_size, 0,
		  "event buffer size", "WORDS" },
		{ "buffer-watershed", 0, POPT_ARG_LONG, &o->buffer_watershed, 0,
		  "wake the daemon at this many words", "WORDS" },
		{ "cpu-buffer-size", 0, POPT_ARG_LONG, &o->cpu_buffer_size, 0,
		  "per-CPU ring size", "BYTES" },
		{ "callgraph", 0, POPT_ARG_INT, &o->callgraph, 0,
		  "call-chain depth (0: none)", "DEPTH" },
		{ "unwind", 0, POPT_ARG_STRING, &o->unwind, 0,
		  "how user call chains are found: frame pointers, or DWARF CFI "
		  "over a copy of each sample's user stack (8192 bytes unless "
		  "given)", "fp|dwarf[,STACK_BYTES]" },
		{ "pid", 0, POPT_ARG_INT, &o->pid, 0,
		  "only this process and its children (0: every process)", "PID" },
		{ "cpus", 0, POPT_ARG_STRING, &o->cpus, 0,
		  "only these CPUs", "LIST" },
		{ "flight-recorder", 0, POPT_ARG_INT, &o->flight, 0,
		  "keep only the last SECONDS of samples in the rings, written out "
		  "by the snapshot command or SIGUSR2 (0: off)", "SECONDS" },
		{ "keep-max", 0, POPT_ARG_INT, &o->keep_max, 0,
		  "bound the binaries kept from containers in kept/ (0: keep none)",
		  "MIB" },
		{ "keep-fd", 0, POPT_ARG_STRING, &o->keep_fd, 0,
		  "descriptors to keep open; every other one from 3 up that "
		  "the daemon inherits is closed at start", "FD[,FD...]" },
		{ "verbose", 0, POPT_ARG_NONE, &o->verbose, 0,
		  "log debugging detail", NULL },
		{ "foreground", 0, POPT_ARG_NONE, &o->foreground, 0,
		  "do not daemonise", NULL },
		{ "version", 'v', POPT_ARG_NONE, &o->version, 0,
		  "show the version", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	poptContext pc = poptGetContext("oprofiled", argc, argv, table, 0);
	char err[256];
	int rc;

	o->keep_max = -1;	/* not given: OP_DEFAULT_KEEP_MB */
	while ((rc = poptGetNextOpt(pc)) > 0)
		;
	if (rc < -1) {
		fprintf(stderr, "oprofiled: %s: %s\n",
			poptBadOption(pc, POPT_BADOPTION_NOALIAS), poptStrerror(rc));
		poptFreeContext(pc);
		return -EINVAL;
	}
	if (poptPeekArg(pc)) {
		fprintf(stderr, "oprofiled: unexpected argument '%s'\n", poptPeekArg(pc));
		poptFreeContext(pc);
		return -EINVAL;
	}
	poptFreeContext(pc);

	const struct { const char *name; int value; } flags[] = {
		{ "separate-lib", o->separate_lib },
		{ "separate-kernel", o->separate_kernel },
		{ "separate-thread", o->separate_thread },
		{ "separate-cpu", o->separate_cpu },
		{ "separate-container", o->separate_container },
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		if (flags[i].value != 0 && flags[i].value != 1) {
			fprintf(stderr, "oprofiled: --%s takes 0 or 1, not %d\n",
				flags[i].name, flags[i].value);
			return -EINVAL;
		}
	}
	d->separate = (o->separate_lib ? OP_SEP_LIB : 0) |
		      (o->separate_kernel ? OP_SEP_KERNEL : 0) |
		      (o->separate_thread ? OP_SEP_THREAD : 0) |
		      (o->separate_cpu ? OP_SEP_CPU : 0) |
		      (o->separate_container ? OP_SEP_CONTAINER : 0);
	/* Call chains are filed under the process's application, as operf
	 * files every sample: a chain through libc and the kernel then reads
	 * as one program's, and its arcs sit beside its samples. Without
	 * this, arcs out of a library would be filed under the library as
	 * an application of its own, apart from the callee's samples. */
	if (o->callgraph > 0)
		d->separate |= OP_SEP_LIB | OP_SEP_KERNEL;
	if (o->buffer_size < 0 || o->buffer_watershed < 0 || o->cpu_buffer_size < 0 ||
	    o->callgraph < 0) {
		fprintf(stderr, "oprofiled: buffer sizes and --callgraph must not be negative\n");
		return -EINVAL;
	}
	/* 0: not given, the default */
	if (op_buffers_check((unsigned long)o->buffer_size,
			     (unsigned long)o->buffer_watershed,
			     (unsigned long)o->cpu_buffer_size, err, sizeof(err))) {
		fprintf(stderr, "oprofiled: %s\n", err);
		return -EINVAL;
	}
	if (o->unwind) {
		bool capped;

		if (op_unwind_parse(o->unwind, &d->unwind_stack, &capped, err,
				    sizeof(err))) {
			fprintf(stderr, "oprofiled: %s\n", err);
			return -EINVAL;
		}
	}
	if (o->vmlinux && o->no_vmlinux) {
		fprintf(stderr, "oprofiled: --vmlinux and --no-vmlinux exclude each other\n");
		return -EINVAL;
	}
	if (o->pid < 0) {
		fprintf(stderr, "oprofiled: --pid=%d is not a process id\n", o->pid);
		return -EINVAL;
	}
	if (o->flight < 0 || o->flight > (int)OP_FLIGHT_MAX_SECONDS) {
		fprintf(stderr, "oprofiled: --flight-recorder=%d: the window is 1 to %u seconds (0: off)\n",
			o->flight, OP_FLIGHT_MAX_SECONDS);
		return -EINVAL;
	}
	if (o->keep_max < -1 || o->keep_max > (int)OP_MAX_KEEP_MB) {
		fprintf(stderr, "oprofiled: --keep-max=%d: the bound is 0 to %u MiB\n",
			o->keep_max, OP_MAX_KEEP_MB);
		return -EINVAL;
	}
	if (o->keep_fd) {
		o->nr_keep_fds = opd_keep_fds_parse(o->keep_fd, o->keep_fds);
		if (o->nr_keep_fds < 0) {
			fprintf(stderr, "oprofiled: --keep-fd=%s: not a list of at most %d descriptors from 3 up\n",
				o->keep_fd, OPD_KEEP_FDS_MAX);
			return -EINVAL;
		}
	}
	if (o->cpus) {
		const char *bad;

		if (op_cpu_list_parse(o->cpus, &d->cpus, &bad)) {
			fprintf(stderr, "oprofiled: --cpus=%s: not a CPU list at '%s' (e.g. 0,2-3)\n",
				o->cpus, bad);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- start-up ---- */

static void log_start(struct opd_daemon *d)
{
	struct opd_session *s = &d->session;
	char sep[64];

	op_separate_format(d->separate, sep, sizeof(sep));
	op_log(&d->log, OP_LOG_INFO,
	       "oprofiled %s starting: pid %d session-dir %s events %s separate %s",
	       PACKAGE_VERSION, (int)d->pid, d->paths.session_dir,
	       s->events_text, sep);
	op_log(&d->log, OP_LOG_INFO,
	       "options: vmlinux %s image %s buffer-size %ld buffer-watershed %ld cpu-buffer-size %ld callgraph %d unwind %s pid %d cpus %s",
	       d->opt.vmlinux ? d->opt.vmlinux : (d->opt.no_vmlinux ? "none" : "(kallsyms)"),
	       d->opt.image && *d->opt.image ? d->opt.image : "(all)",
	       d->opt.buffer_size, d->opt.buffer_watershed,
	       d->opt.cpu_buffer_size, d->opt.callgraph,
	       d->opt.unwind ? d->opt.unwind : "fp", d->opt.pid,
	       d->opt.cpus ? d->opt.cpus : "(all)");
	if (d->opt.flight)
		op_log(&d->log, OP_LOG_INFO,
		       "flight recorder: the last %d s, rings of %zu KiB per CPU and event, event buffer %zu words",
		       d->opt.flight, s->flight_ring_bytes >> 10, s->flight_evbuf_words);
	for (unsigned int i = 0; i < s->nr_events; i++) {
		if (s->events[i].timer) {
			op_log(&d->log, OP_LOG_INFO,
			       "timer mode: sampling with cpu-clock, period %lu ns",
			       s->events[i].spec.count);
			break;
		}
	}
}

/* Everything up to the point where the parent may exit. On failure the
 * error has been reported through startup_error(). */
static int startup(struct opd_daemon *d)
{
	struct opd_session_config cfg = {
		.events = d->opt.events,
		.separate = d->separate,
		.vmlinux = d->opt.vmlinux,
		.image = d->opt.image,
		/* 0, an option not given: the default */
		.buffer_size = (unsigned long)d->opt.buffer_size,
		.buffer_watershed = (unsigned long)d->opt.buffer_watershed,
		.cpu_buffer_size = (unsigned long)d->opt.cpu_buffer_size,
		.callgraph = (unsigned int)d->opt.callgraph,
		.unwind_stack = d->unwind_stack,
		.pid = d->opt.pid ? d->opt.pid : -1,
		.cpus = d->opt.cpus ? &d->cpus : NULL,
		.flight_seconds = (unsigned int)d->opt.flight,
		.keep_max_bytes = (uint64_t)(d->opt.keep_max < 0 ? OP_DEFAULT_KEEP_MB :
					     (unsigned int)d->opt.keep_max) << 20,
		.log = d->log,
	};
	char err[512];
	sigset_t mask;
	pid_t owner;
	int ret;

	ret = op_paths_init(&d->paths, d->opt.session_dir);
	if (ret) {
		startup_error(d, "bad session directory '%s': %s",
			      d->opt.session_dir ? d->opt.session_dir : OP_DEFAULT_SESSION_DIR,
			      strerror(-ret));
		return ret;
	}
	/* root's session: root's directory, no other user can write in it
	 * or in its parents (op_sessdir.h) */
	ret = op_sessdir_open(&d->sd, d->paths.session_dir, OP_SD_WRITE | OP_SD_CREATE,
			      err, sizeof(err));
	if (ret) {
		startup_error(d, "session directory refused: %s", err);
		return ret;
	}
	ret = opd_lock_take(&d->sd, d->paths.lock_file, d->pid, &owner);
	if (ret == -EBUSY && owner) {
		startup_error(d, "already running on %s (pid %d)", d->paths.session_dir, (int)owner);
		return ret;
	}
	if (ret) {
		startup_error(d, "cannot take the lock %s: %s", d->paths.lock_file,
			      op_sd_explain(&d->sd, d->paths.lock_file, ret, err, sizeof(err)));
		return ret;
	}

	cfg.sd = &d->sd;
	cfg.current_dir = d->paths.current_dir;
	cfg.keep_dir = d->paths.keep_dir;
	ret = opd_session_init(&d->session, &cfg, err, sizeof(err));
	if (ret) {
		startup_error(d, "%s", err);
		return ret;
	}

	ret = op_sd_mkdirs(&d->sd, d->paths.current_dir, 0755);
	if (ret) {
		startup_error(d, "cannot create %s: %s", d->paths.current_dir,
			      op_sd_explain(&d->sd, d->paths.current_dir, ret, err, sizeof(err)));
		return ret;
	}
	ret = open_log(d);
	if (ret) {
		startup_error(d, "cannot open the log %s: %s", d->paths.log_file,
			      op_sd_explain(&d->sd, d->paths.log_file, ret, err, sizeof(err)));
		return ret;
	}

	/* signals become readable events; blocked before kmod starts threads
	 * so that they inherit the mask and never take them */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
		ret = -errno;
		startup_error(d, "cannot block signals: %s", strerror(errno));
		return ret;
	}
	signal(SIGPIPE, SIG_IGN);
	d->sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (d->sig_fd < 0) {
		ret = -errno;
		startup_error(d, "cannot create a signalfd: %s", strerror(errno));
		return ret;
	}

	ret = opd_session_open(&d->session, err, sizeof(err));
	if (ret) {
		startup_error(d, "%s%s%s", err, d->last_error[0] ? ": " : "", d->last_error);
		return ret;
	}
	log_start(d);

	d->listen_fd = opd_ctl_listen(&d->sd, d->paths.ctl_socket);
	if (d->listen_fd < 0) {
		ret = d->listen_fd;
		startup_error(d, "cannot listen on %s: %s", d->paths.ctl_socket,
			      op_sd_explain(&d->sd, d->paths.ctl_socket, ret, err, sizeof(err)));
		return ret;
	}
	op_log(&d->log, OP_LOG_INFO, "ready: listening on %s", d->paths.ctl_socket);
	return 0;
}

/* ---- the session ---- */

static int cmd_start(struct opd_daemon *d)
{
	int ret;

	if (d->session.running)
		return 0;
	if (!d->session.kop_started)
		clear_last_error(d);
	ret = opd_session_start(&d->session);
	if (!ret)
		op_log(&d->log, OP_LOG_INFO, "profiling started");
	return ret;
}

/* A flight recorder's snapshot as session name; NULL: the default name,
 * made unique with -2, -3... if two come within a second. The reason of
 * a failure is logged (and so in the reply). */
static int cmd_snapshot(struct opd_daemon *d, const char *name)
{
	char err[PATH_MAX + 256], def[96];
	int ret;

	if (name && op_session_name_check(name, err, sizeof(err)) &&
	    strcmp(name, "current")) {
		op_log(&d->log, OP_LOG_ERR, "snapshot: %s", err);
		return -EINVAL;
	}
	if (name)
		ret = opd_session_snapshot(&d->session, d->paths.samples_dir,
					   name, NULL, err, sizeof(err));
	else {
		char base[64];

		op_snapshot_default_name(time(NULL), base, sizeof(base));
		snprintf(def, sizeof(def), "%s", base);
		ret = -EEXIST;
		for (int i = 2; ret == -EEXIST && i < 100; i++) {
			ret = opd_session_snapshot(&d->session, d->paths.samples_dir,
						   def, NULL, err, sizeof(err));
			snprintf(def, sizeof(def), "%s-%d", base, i);
		}
	}
	if (ret)
		op_log(&d->log, OP_LOG_ERR, "snapshot: %s", err);
	return ret;
}

static int cmd_stop(struct opd_daemon *d)
{
	bool was_running = d->session.running;
	int ret = opd_session_pause(&d->session), r;

	if (was_running)
		op_log(&d->log, OP_LOG_INFO, "profiling stopped");
	/* a flight recorder's profile is its last window, up to the stop */
	if (d->opt.flight)
		r = d->session.kop_started ? cmd_snapshot(d, "current") : 0;
	else
		r = opd_session_dump(&d->session, "stop", true);
	return r ? r : ret;
}

/* The end: a running flight recorder leaves its last window in current,
 * as a normal session leaves everything. */
static void finish(struct opd_daemon *d)
{
	if (d->opt.flight && d->session.running)
		cmd_snapshot(d, "current");
	opd_session_finish(&d->session);
}

static char *status_reply(struct opd_daemon *d)
{
	struct opd_session *s = &d->session;
	struct opd_stats st;
	char *text = NULL;
	size_t len = 0;
	char sep[64], unwind[32];
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	op_separate_format(d->separate, sep, sizeof(sep));
	opd_session_stats(s, &st);
	op_unwind_format(d->unwind_stack, unwind, sizeof(unwind));
	fprintf(f, "ok\npid %d\nstate %s\nevents %s\nseparate %s\ncallgraph %d\nunwind %s\nsession_dir %s\nprofile_pid %d\nprofile_cpus %s\nsamples %llu\n",
		(int)d->pid, s->running ? "running" : "stopped", s->events_text, sep,
		d->opt.callgraph, unwind, d->paths.session_dir, d->opt.pid,
		d->opt.cpus ? d->opt.cpus : "all",
		(unsigned long long)st.v[OPD_TOTAL_SAMPLES]);
	if (d->opt.flight) {
		uint64_t fill[OPD_MAX_CPUS], size = 0;
		int n = s->kop ? kop_session_flight_fill(s->kop, fill, OPD_MAX_CPUS, &size) : -EINVAL;

		/* flight_fill: cpu:percent of each ring written, comma list */
		fprintf(f, "flight_seconds %d\nflight_ring_bytes %zu\nflight_fill ",
			d->opt.flight, s->flight_ring_bytes);
		for (int c = 0; c < n; c++)
			fprintf(f, "%s%d:%.0f%%", c ? "," : "", c,
				size ? 100.0 * (double)fill[c] / (double)size : 0.0);
		fprintf(f, "%s\n", n > 0 ? "" : "-");
	}
	opd_stats_print(&st, f);
	opd_stats_release(&st);
	fclose(f);
	return text;
}

static void reply_result(int conn, struct opd_daemon *d, int ret)
{
	char msg[OP_CTL_LINE_MAX];

	if (!ret) {
		opd_ctl_reply(conn, "ok\n");
		return;
	}
	pthread_mutex_lock(&d->log_lock);
	snprintf(msg, sizeof(msg), "error %s%s%s\n", strerror(-ret),
		 d->last_error[0] ? ": " : "", d->last_error);
	pthread_mutex_unlock(&d->log_lock);
	opd_ctl_reply(conn, msg);
}

static void handle_command(struct opd_daemon *d, int conn, const char *cmd)
{
	op_log(&d->log, OP_LOG_DEBUG, "control: %s", cmd);
	clear_last_error(d);
	if (!strcmp(cmd, "start")) {
		reply_result(conn, d, cmd_start(d));
	} else if (!strcmp(cmd, "stop")) {
		reply_result(conn, d, cmd_stop(d));
	} else if (!strcmp(cmd, "dump")) {
		/* a flight recorder's dump is its last window, into current */
		reply_result(conn, d, d->opt.flight ? cmd_snapshot(d, "current") :
				      opd_session_dump(&d->session, "dump", false));
	} else if (!strcmp(cmd, "snapshot") || !strncmp(cmd, "snapshot ", 9)) {
		reply_result(conn, d, cmd_snapshot(d, cmd[8] ? cmd + 9 : NULL));
	} else if (!strcmp(cmd, "status")) {
		char *text = status_reply(d);

		opd_ctl_reply(conn, text ? text : "error out of memory\n");
		free(text);
	} else if (!strcmp(cmd, "shutdown")) {
		op_log(&d->log, OP_LOG_INFO, "shutdown requested");
		finish(d);
		d->quit = true;
		opd_ctl_reply(conn, "ok\n");
	} else {
		char msg[256];

		snprintf(msg, sizeof(msg), "error unknown command '%.64s'\n", cmd);
		opd_ctl_reply(conn, msg);
	}
}

static void handle_signals(struct opd_daemon *d)
{
	struct signalfd_siginfo si;

	while (read(d->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			int ret = open_log(d);

			if (ret)
				op_log(&d->log, OP_LOG_WARN, "cannot reopen the log: %s",
				       strerror(-ret));
			else
				op_log(&d->log, OP_LOG_INFO, "log reopened (SIGHUP)");
		} else if (si.ssi_signo == SIGUSR2) {
			if (d->opt.flight)
				cmd_snapshot(d, NULL);
			else
				op_log(&d->log, OP_LOG_WARN,
				       "SIGUSR2 takes a flight recorder's snapshot, and this daemon is not one");
		} else if (!d->quit) {
			op_log(&d->log, OP_LOG_INFO, "signal %u: shutting down", si.ssi_signo);
			finish(d);
			d->quit = true;
		}
	}
}

static void main_loop(struct opd_daemon *d)
{
	char line[OP_CTL_LINE_MAX];

	while (!d->quit) {
		struct pollfd pfd[2] = {
			{ .fd = d->listen_fd, .events = POLLIN },
			{ .fd = d->sig_fd, .events = POLLIN },
		};
		/* a flight recorder reads nothing while recording: its
		 * samples stay in the rings until a snapshot */
		bool pump = d->session.running && !d->opt.flight;
		int n = poll(pfd, 2, pump ? 0 : -1);

		if (n < 0 && errno != EINTR) {
			op_log(&d->log, OP_LOG_ERR, "poll failed: %s", strerror(errno));
			break;
		}
		if (n > 0 && (pfd[1].revents & POLLIN))
			handle_signals(d);
		if (!d->quit && n > 0 && (pfd[0].revents & POLLIN)) {
			int conn;

			while (!d->quit && (conn = opd_ctl_accept(d->listen_fd, line, sizeof(line))) != -EAGAIN) {
				if (conn >= 0)
					handle_command(d, conn, line);
				else if (conn != -EPROTO)
					break;
			}
		}
		if (!d->quit && pump) {
			ssize_t got = opd_session_pump(&d->session, OPD_READ_TIMEOUT_MS);

			if (got < 0 && got != -EPIPE && got != -EINTR)
				op_log(&d->log, OP_LOG_WARN, "reading the event buffer failed: %s",
				       strerror((int)-got));
		}
	}
}

static void cleanup(struct opd_daemon *d)
{
	if (d->listen_fd >= 0) {
		close(d->listen_fd);
		op_sd_unlink(&d->sd, d->paths.ctl_socket);
	}
	opd_session_close(&d->session);
	if (d->sig_fd >= 0)
		close(d->sig_fd);
	if (d->paths.lock_file[0])
		opd_lock_release(&d->sd, d->paths.lock_file, d->pid);
	if (d->log_file) {
		op_log(&d->log, OP_LOG_INFO, "oprofiled exiting");
		fclose(d->log_file);
		d->log_file = NULL;
	}
	op_sessdir_close(&d->sd);
	free(d->opt.session_dir);
	free(d->opt.events);
	free(d->opt.vmlinux);
	free(d->opt.image);
	free(d->opt.cpus);
	free(d->opt.unwind);
	free(d->opt.keep_fd);
}

int main(int argc, char **argv)
{
	static struct opd_daemon daemon_state;
	struct opd_daemon *d = &daemon_state;
	int ret;

	pthread_mutex_init(&d->log_lock, NULL);
	d->ready_fd = -1;
	d->listen_fd = -1;
	d->sig_fd = -1;
	d->sd.fd = -1;
	d->log = (struct op_logger){ .fn = log_fn, .ctx = d, .max = OP_LOG_INFO };
	if (parse_options(d, argc, (const char **)argv))
		return 1;
	/* before anything of ours is open: what we inherit is not ours
	 * (opd_proc.h) */
	ret = opd_close_inherited(d->opt.keep_fds, (size_t)d->opt.nr_keep_fds, 0);
	if (ret)
		fprintf(stderr, "oprofiled: cannot close the descriptors it inherited: %s\n",
			strerror(-ret));
	if (d->opt.version) {
		op_print_version(argv[0]);
		return 0;
	}
	if (d->opt.verbose)
		d->log.max = OP_LOG_DEBUG;
	if (!d->opt.foreground)
		d->ready_fd = opd_daemonise();
	d->pid = getpid();

	ret = startup(d);
	if (ret) {
		cleanup(d);
		return 1;
	}
	if (d->ready_fd >= 0) {
		int log;

		if (chdir("/") < 0) {
			/* nothing relative is used after start-up */
		}
		log = op_sd_open(&d->sd, d->paths.log_file, O_WRONLY | O_APPEND | O_CREAT,
				 0644);
		opd_detach_stdio(log);
		if (log >= 0)
			close(log);
		if (write(d->ready_fd, "ok\n", 3) < 0) {
			/* the parent is gone; keep running */
		}
		close(d->ready_fd);
		d->ready_fd = -1;
	}
	main_loop(d);
	cleanup(d);
	return 0;
}
