/* operf: OProfile 1.x's one-shot profiler. Profiles a command and its
 * children until it exits, a running process (--pid) or the whole system
 * (--system-wide) until SIGINT, into ./oprofile_data (--session-dir).
 *
 * It runs oprofiled's pipeline in its own process (opd_session.c: kmod,
 * decoder, sample files, stats), so a session written by operf is the
 * same session opcontrol's daemon writes, and opreport reads either.
 *
 * The command is forked first and waits on a pipe while the events are
 * opened on its pid (inherited by its children); it is told to exec only
 * once the profiler runs, so its first instruction is sampled. Its exit
 * status is operf's (128 + N for signal N, as a shell says it); operf's
 * own failures exit 1, bad options 2, a command that cannot run 126 or
 * 127 as a shell's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <popt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "op_config.h"
#include "op_log.h"
#include "op_perf.h"
#include "op_version.h"
#include "opd_lock.h"
#include "opd_session.h"

#define OPERF_EXIT_FAIL 1
#define OPERF_EXIT_USAGE 2
#define OPERF_EXIT_NOEXEC 126
#define OPERF_EXIT_NOTFOUND 127

/* The kernel's default bound on a call chain (kernel.perf_event_max_stack),
 * used when the sysctl cannot be read. */
#define OPERF_DEFAULT_MAX_STACK 127

struct operf_opts {
	char *pid;
	int system_wide;
	char *events;		/* every --events, comma-joined */
	int callgraph;
	char *unwind;		/* --unwind; NULL: frame pointers */
	unsigned int unwind_stack;	/* its stack copy, 0: frame pointers */
	int separate_thread;
	int separate_cpu;
	int separate_container;
	char *session_dir;
	char *vmlinux;
	int append;
	int lazy_conversion;	/* accepted: the conversion is in process */
	int verbose;
	int version;
	int help;
};

struct operf {
	struct operf_opts opt;
	const char **command;	/* NULL: --pid or --system-wide */
	pid_t target;		/* the command's or --pid's process; -1: all */
	struct op_paths paths;
	struct op_sessdir sd;	/* paths.session_dir: every path through it */
	char previous_dir[PATH_MAX];

	/* kmod's threads log too: log_lock guards log_file */
	pthread_mutex_t log_lock;
	FILE *log_file;
	struct op_logger log;
	bool locked;

	struct opd_session session;
};

static void operf_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void operf_err(const char *fmt, ...)
{
	va_list ap;

	fputs("operf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Everything to operf.log; errors (and with --verbose everything) to
 * stderr too, where the user is. */
static void log_fn(void *ctx, enum op_log_level level, const char *msg)
{
	struct operf *o = ctx;

	pthread_mutex_lock(&o->log_lock);
	if (o->log_file)
		op_log_to_file(o->log_file, level, msg);
	if (level <= OP_LOG_ERR || o->opt.verbose)
		op_log_to_stderr((void *)"operf", level, msg);
	pthread_mutex_unlock(&o->log_lock);
}

/* ---- options ---- */

static const char operf_epilog[] =
	"\nRun modes (one of them):\n"
	"  operf [options] COMMAND [ARGS]   profile COMMAND and its children until it exits\n"
	"  operf [options] --pid=PID        profile a running process until SIGINT (Ctrl-C)\n"
	"  operf [options] --system-wide    profile every process until SIGINT (root)\n"
	"Events are NAME:COUNT:UNITMASK:KERNEL:USER (ophelp lists them), as opcontrol's\n"
	"--event; the default is CPU_CLK_UNHALTED with a hardware PMU, else TIMER.\n"
	"Samples go to SESSION_DIR/samples/current (default ./" OP_OPERF_DIR "); the\n"
	"session before moves to samples/previous unless --append. opreport and\n"
	"the other tools find ./" OP_OPERF_DIR " by themselves.\n"
	"Exit status: COMMAND's (128 + N if signal N ended it); 1 profiler failure,\n"
	"2 usage error, 126/127 COMMAND not executable / not found.\n";

static int parse_options(struct operf *o, int argc, const char **argv)
{
	struct operf_opts *p = &o->opt;
	char *event = NULL;
	enum { OPT_EVENTS = 1 };
	struct poptOption table[] = {
		{ "pid", 'p', POPT_ARG_STRING, &p->pid, 0,
		  "profile this running process (and the children it starts) until SIGINT", "PID" },
		{ "system-wide", 's', POPT_ARG_NONE, &p->system_wide, 0,
		  "profile every process until SIGINT", NULL },
		{ "events", 'e', POPT_ARG_STRING, &event, OPT_EVENTS,
		  "events to sample, NAME:COUNT:UNITMASK:KERNEL:USER, comma-separated, repeatable", "SPEC[,SPEC...]" },
		{ "callgraph", 'g', POPT_ARG_NONE, &p->callgraph, 0,
		  "collect each sample's callers, for opreport -c", NULL },
		{ "unwind", 0, POPT_ARG_STRING, &p->unwind, 0,
		  "how call chains find their user part: fp, frame pointers (the "
		  "default), or dwarf, DWARF CFI over a copy of each sample's user "
		  "stack, STACK_BYTES of it (8192 unless given, at most 65528)",
		  "fp|dwarf[,STACK_BYTES]" },
		{ "separate-thread", 't', POPT_ARG_NONE, &p->separate_thread, 0,
		  "one sample file per thread", NULL },
		{ "separate-cpu", 'c', POPT_ARG_NONE, &p->separate_cpu, 0,
		  "one sample file per CPU", NULL },
		{ "separate-container", 0, POPT_ARG_NONE, &p->separate_container, 0,
		  "one sample file per process, reported by its container", NULL },
		{ "session-dir", 'd', POPT_ARG_STRING, &p->session_dir, 0,
		  "session directory (default ./" OP_OPERF_DIR ")", "DIR" },
		{ "vmlinux", 'k', POPT_ARG_STRING, &p->vmlinux, 0,
		  "uncompressed kernel image with symbols", "FILE" },
		{ "append", 'a', POPT_ARG_NONE, &p->append, 0,
		  "add to the current session instead of moving it to previous", NULL },
		{ "lazy-conversion", 'l', POPT_ARG_NONE, &p->lazy_conversion, 0,
		  "accepted for OProfile's sake: samples are always written as they come", NULL },
		{ "verbose", 'V', POPT_ARG_NONE, &p->verbose, 0,
		  "say what happens, on stderr as in operf.log", NULL },
		{ "version", 'v', POPT_ARG_NONE, &p->version, 0,
		  "show the version", NULL },
		{ "help", 'h', POPT_ARG_NONE, &p->help, 0, "show this help", NULL },
		POPT_TABLEEND
	};
	/* options end at the command: operf -g ls -l */
	poptContext pc = poptGetContext("operf", argc, argv, table,
					POPT_CONTEXT_POSIXMEHARDER);
	const char **rest;
	int rc, ret = 0;

	while ((rc = poptGetNextOpt(pc)) > 0) {
		if (rc == OPT_EVENTS) {
			char *joined;

			if (asprintf(&joined, "%s%s%s", p->events ? p->events : "",
				     p->events ? "," : "", event) < 0) {
				ret = -ENOMEM;
				goto out;
			}
			free(p->events);
			free(event);
			event = NULL;
			p->events = joined;
		}
	}
	if (rc < -1) {
		operf_err("%s: %s (operf --help lists the options)",
			  poptBadOption(pc, POPT_BADOPTION_NOALIAS), poptStrerror(rc));
		ret = -EINVAL;
		goto out;
	}
	if (p->help) {
		poptPrintHelp(pc, stdout, 0);
		fputs(operf_epilog, stdout);
		goto out;
	}
	if (p->version)
		goto out;
	rest = poptGetArgs(pc);
	if (rest && rest[0]) {
		size_t n = 0;

		while (rest[n])
			n++;
		/* the context owns rest: keep a copy past poptFreeContext */
		o->command = calloc(n + 1, sizeof(*o->command));
		if (!o->command) {
			ret = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			o->command[i] = strdup(rest[i]);
			if (!o->command[i]) {
				ret = -ENOMEM;
				goto out;
			}
		}
	}
	if (p->unwind) {
		char why[256];
		bool capped;

		if (op_unwind_parse(p->unwind, &p->unwind_stack, &capped, why,
				    sizeof(why))) {
			operf_err("%s", why);
			ret = -EINVAL;
			goto out;
		}
		if (capped)
			fprintf(stderr, "operf: --unwind: the kernel copies at most %u bytes of stack a sample; %u it is\n",
				OP_UNWIND_MAX_STACK, p->unwind_stack);
	}
	if ((o->command != NULL) + (p->pid != NULL) + (p->system_wide != 0) != 1) {
		operf_err("give one of: a command to run, --pid=PID, --system-wide "
			  "(operf --help shows the run modes)");
		ret = -EINVAL;
	}

out:
	free(event);
	poptFreeContext(pc);
	return ret;
}

/* ---- checks before anything is created ---- */

/* What execvp would run for name, or -errno: a shell's answer, given
 * before the session is touched. */
static int find_command(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	int first = -ENOENT;

	if (strchr(name, '/'))
		return access(name, X_OK) ? -errno : 0;
	if (!path || !*path)
		path = "/bin:/usr/bin";
	for (const char *p = path; ; ) {
		size_t len = strcspn(p, ":");
		struct stat st;

		if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, len ? p : ".",
			     "/", name) < (int)sizeof(buf) &&
		    !stat(buf, &st) && S_ISREG(st.st_mode)) {
			if (!access(buf, X_OK))
				return 0;
			first = -EACCES;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	return first;
}

static int check_target(struct operf *o)
{
	struct operf_opts *p = &o->opt;

	if (p->pid) {
		char *end;
		long v;

		errno = 0;
		v = strtol(p->pid, &end, 10);
		if (errno || end == p->pid || *end || v <= 0 || v > INT32_MAX) {
			operf_err("--pid=%s: not a process id", p->pid);
			return OPERF_EXIT_USAGE;
		}
		if (kill((pid_t)v, 0) && errno == ESRCH) {
			operf_err("--pid=%s: no such process", p->pid);
			return OPERF_EXIT_FAIL;
		}
		if ((pid_t)v == getpid()) {
			operf_err("--pid=%s: that is operf itself", p->pid);
			return OPERF_EXIT_USAGE;
		}
		o->target = (pid_t)v;
	} else if (p->system_wide) {
		int ret = op_perf_probe_system_wide();

		o->target = -1;
		if (ret == -EACCES || ret == -EPERM) {
			operf_err("--system-wide needs root, or kernel.perf_event_paranoid "
				  "at -1 (it is refused here: %s)", strerror(-ret));
			return OPERF_EXIT_FAIL;
		}
	} else {
		int ret = find_command(o->command[0]);

		if (ret) {
			operf_err("cannot run %s: %s", o->command[0],
				  ret == -ENOENT && !strchr(o->command[0], '/') ?
				  "not found in PATH" : strerror(-ret));
			return ret == -ENOENT ? OPERF_EXIT_NOTFOUND : OPERF_EXIT_NOEXEC;
		}
	}
	if (p->vmlinux) {
		struct stat st;

		if (stat(p->vmlinux, &st)) {
			operf_err("--vmlinux=%s: %s", p->vmlinux, strerror(errno));
			return OPERF_EXIT_USAGE;
		}
		if (!S_ISREG(st.st_mode)) {
			operf_err("--vmlinux=%s: not a regular file", p->vmlinux);
			return OPERF_EXIT_USAGE;
		}
	}
	return 0;
}

/* --callgraph: as deep as the kernel lets a chain be (the sample's pc
 * takes one of kernel.perf_event_max_stack's frames). */
static unsigned int callgraph_depth(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "re");
	int max = OPERF_DEFAULT_MAX_STACK;

	if (f) {
		if (fscanf(f, "%d", &max) != 1)
			max = OPERF_DEFAULT_MAX_STACK;
		fclose(f);
	}
	if (max < 2)
		max = 2;
	return (unsigned int)(max - 1) < KOP_MAX_CALLGRAPH_DEPTH ?
	       (unsigned int)(max - 1) : KOP_MAX_CALLGRAPH_DEPTH;
}

/* ---- the session directory ---- */

static int session_paths(struct operf *o)
{
	char cwd[PATH_MAX], dir[PATH_MAX];
	const char *given = o->opt.session_dir;
	int ret;

	if (!given || given[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd))) {
			operf_err("cannot find the current directory: %s", strerror(errno));
			return -errno;
		}
		if (snprintf(dir, sizeof(dir), "%s/%s", cwd,
			     given ? given : OP_OPERF_DIR) >= (int)sizeof(dir)) {
			operf_err("session directory path too long");
			return -ENAMETOOLONG;
		}
		given = dir;
	}
	ret = op_paths_init_operf(&o->paths, given);
	if (!ret && snprintf(o->previous_dir, sizeof(o->previous_dir), "%s/previous",
			     o->paths.samples_dir) >= (int)sizeof(o->previous_dir))
		ret = -ENAMETOOLONG;
	if (ret) {
		operf_err("bad session directory %s: %s", given, strerror(-ret));
		return ret;
	}
	return 0;
}

/* Lock the session, move current/ to previous/ (unless --append), open
 * the log. */
static int session_prepare(struct operf *o)
{
	char why[PATH_MAX + 256];
	pid_t owner;
	int ret;

	/* ./oprofile_data is wherever operf was started, /tmp included: the
	 * directory must be ours and closed to others, or another user could
	 * plant the links that choose where we write (op_sessdir.h) */
	ret = op_sessdir_open(&o->sd, o->paths.session_dir, OP_SD_WRITE | OP_SD_CREATE,
			      why, sizeof(why));
	if (ret) {
		operf_err("session directory refused: %s", why);
		return ret;
	}
	ret = op_sd_mkdirs(&o->sd, o->paths.samples_dir, 0755);
	if (ret) {
		operf_err("cannot create %s: %s", o->paths.samples_dir,
			  op_sd_explain(&o->sd, o->paths.samples_dir, ret, why, sizeof(why)));
		return ret;
	}
	ret = opd_lock_take(&o->sd, o->paths.lock_file, getpid(), &owner);
	if (ret == -EBUSY && owner) {
		operf_err("%s is in use by another profiler (pid %d)",
			  o->paths.session_dir, (int)owner);
		return ret;
	}
	if (ret) {
		operf_err("cannot take the lock %s: %s", o->paths.lock_file,
			  op_sd_explain(&o->sd, o->paths.lock_file, ret, why, sizeof(why)));
		return ret;
	}
	o->locked = true;
	if (!o->opt.append) {
		char refused[PATH_MAX];

		ret = op_sd_remove_tree(&o->sd, o->previous_dir, refused, sizeof(refused));
		if (ret == -ELOOP && *refused) {
			operf_err("cannot remove the old %s: %s/%s is a symbolic link: "
				  "refused, not followed nor removed", o->previous_dir,
				  o->sd.path, refused);
			return ret;
		}
		if (ret) {
			operf_err("cannot remove the old %s: %s", o->previous_dir,
				  op_sd_explain(&o->sd, o->previous_dir, ret, why, sizeof(why)));
			return ret;
		}
		ret = op_sd_rename(&o->sd, o->paths.current_dir, o->previous_dir, 0);
		if (ret && ret != -ENOENT) {
			operf_err("cannot move %s to %s: %s", o->paths.current_dir,
				  o->previous_dir,
				  op_sd_explain(&o->sd, o->paths.current_dir, ret, why,
						sizeof(why)));
			return ret;
		}
	}
	ret = op_sd_mkdirs(&o->sd, o->paths.current_dir, 0755);
	if (ret) {
		operf_err("cannot create %s: %s", o->paths.current_dir,
			  op_sd_explain(&o->sd, o->paths.current_dir, ret, why, sizeof(why)));
		return ret;
	}
	o->log_file = op_sd_fopen(&o->sd, o->paths.log_file, "ae");
	if (!o->log_file) {
		ret = -errno;
		operf_err("cannot open the log %s: %s", o->paths.log_file,
			  op_sd_explain(&o->sd, o->paths.log_file, ret, why, sizeof(why)));
		return ret;
	}
	return 0;
}

/* ---- the command ---- */

/* The child: wait for the go (a byte; EOF: the profiler failed, so go
 * quietly), then exec; an exec failure goes back through err_fd. */
static void __attribute__((noreturn)) run_child(const char **argv, int go_fd, int err_fd)
{
	sigset_t none;
	char c;
	int e;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (read(go_fd, &c, 1) != 1)
		_exit(OPERF_EXIT_FAIL);
	close(go_fd);
	execvp(argv[0], (char *const *)argv);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0) {
		/* operf is gone: nobody to tell */
	}
	_exit(e == ENOENT ? OPERF_EXIT_NOTFOUND : OPERF_EXIT_NOEXEC);
}

/* A shell's view of a wait status. */
static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return OPERF_EXIT_FAIL;
}

/* ---- collection ---- */

static int open_session(struct operf *o)
{
	struct opd_session_config cfg = {
		.sd = &o->sd,
		.current_dir = o->paths.current_dir,
		.keep_dir = o->paths.keep_dir,
		.keep_max_bytes = (uint64_t)OP_DEFAULT_KEEP_MB << 20,
		.events = o->opt.events,
		/* operf files every sample under its application */
		.separate = OP_SEP_LIB | OP_SEP_KERNEL |
			    (o->opt.separate_thread ? OP_SEP_THREAD : 0) |
			    (o->opt.separate_cpu ? OP_SEP_CPU : 0) |
			    (o->opt.separate_container ? OP_SEP_CONTAINER : 0),
		.vmlinux = o->opt.vmlinux,
		/* --unwind=dwarf is for call chains: it implies them */
		.callgraph = o->opt.callgraph || o->opt.unwind_stack ?
			     callgraph_depth() : 0,
		.unwind_stack = o->opt.unwind_stack,
		.pid = o->target,
		.log = o->log,
	};
	char err[512];
	int ret;

	ret = opd_session_init(&o->session, &cfg, err, sizeof(err));
	if (!ret)
		ret = opd_session_open(&o->session, err, sizeof(err));
	if (ret) {
		operf_err("%s", err);
		return ret;
	}
	op_log(&o->log, OP_LOG_INFO, "operf %s starting: pid %d session-dir %s events %s target %s%d callgraph %u unwind %s",
	       PACKAGE_VERSION, (int)getpid(), o->paths.session_dir,
	       o->session.events_text, o->command ? "command pid " :
	       o->target > 0 ? "pid " : "system-wide ", (int)o->target, cfg.callgraph,
	       o->opt.unwind ? o->opt.unwind : "fp");
	for (unsigned int i = 0; i < o->session.nr_events; i++) {
		if (o->session.events[i].timer) {
			op_log(&o->log, OP_LOG_INFO,
			       "timer mode: sampling with cpu-clock, period %lu ns",
			       o->session.events[i].spec.count);
			break;
		}
	}
	return 0;
}

/* SIGINT and SIGTERM become readable; SIGINT's disposition is reset first,
 * since a shell starts a background job with SIGINT ignored and an
 * ignored signal is dropped even while blocked. Before kmod's threads
 * start, so they inherit the mask. */
static int block_signals(sigset_t *mask)
{
	int fd;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(mask);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGTERM);
	if (sigprocmask(SIG_BLOCK, mask, NULL) < 0)
		return -errno;
	fd = signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

/* The signal that arrived, or 0. */
static int take_signal(int sig_fd)
{
	struct signalfd_siginfo si;
	int sig = 0;

	while (read(sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		sig = (int)si.ssi_signo;
	return sig;
}

static void pump(struct operf *o)
{
	ssize_t got = opd_session_pump(&o->session, OPD_READ_TIMEOUT_MS);

	if (got < 0 && got != -EPIPE && got != -EINTR)
		op_log(&o->log, OP_LOG_WARN, "reading the event buffer failed: %s",
		       strerror((int)-got));
}

/* Profile the command until it exits; returns its exit code. */
static int run_command(struct operf *o, int sig_fd, pid_t child, int go_fd, int err_fd)
{
	bool interrupted = false;
	int status = 0, e;
	ssize_t n;

	/* go: the events are on, the child execs */
	if (write(go_fd, "g", 1) != 1) {
		operf_err("cannot start %s: %s", o->command[0], strerror(errno));
		kill(child, SIGKILL);
	}
	close(go_fd);
	/* the exec's verdict: EOF when it succeeded (err_fd is close-on-exec) */
	n = read(err_fd, &e, sizeof(e));
	close(err_fd);
	if (n == (ssize_t)sizeof(e))
		operf_err("cannot run %s: %s", o->command[0], strerror(e));
	for (;;) {
		pid_t w = waitpid(child, &status, WNOHANG);
		int sig;

		if (w == child)
			break;
		if (w < 0 && errno != EINTR) {
			operf_err("waiting for %s: %s", o->command[0], strerror(errno));
			status = OPERF_EXIT_FAIL << 8;
			break;
		}
		sig = take_signal(sig_fd);
		if (sig && !interrupted) {
			/* Ctrl-C reached the command too (one process group);
			 * a kill of operf alone is passed on */
			op_log(&o->log, OP_LOG_INFO, "signal %d: stopping %s", sig, o->command[0]);
			kill(child, SIGINT);
			interrupted = true;
		}
		pump(o);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) && n != (ssize_t)sizeof(e))
		operf_err("%s exited with status %d", o->command[0], WEXITSTATUS(status));
	else if (WIFSIGNALED(status) && WTERMSIG(status) != SIGINT)
		operf_err("%s was killed by signal %d", o->command[0], WTERMSIG(status));
	return exit_code(status);
}

/* Profile --pid or the system until SIGINT or SIGTERM. */
static void run_until_signal(struct operf *o, int sig_fd)
{
	printf("operf: Press Ctl-c or 'kill -SIGINT %d' to stop profiling\n", (int)getpid());
	fflush(stdout);
	while (!take_signal(sig_fd))
		pump(o);
	op_log(&o->log, OP_LOG_INFO, "signal: stopping");
}

/* What OProfile's operf says of losses, after the session's last dump. */
static void report_losses(struct operf *o)
{
	struct opd_stats st;
	uint64_t lost = 0;

	opd_session_stats(&o->session, &st);
	lost = st.v[OPD_EVENT_LOST_OVERFLOW] + st.v[OPD_LOST_RECORDS_BY_KERNEL] +
	       st.v[OPD_LOST_SAMPLEFILE] + st.v[OPD_LOST_NO_MAPPING] +
	       st.v[OPD_LOST_NO_TASK];
	if (st.v[OPD_LOST_RECORDS_BY_KERNEL])
		fprintf(stderr, "\noperf: the kernel lost %llu samples; a lower sampling "
			"rate (a larger COUNT in --events) loses fewer\n",
			(unsigned long long)st.v[OPD_LOST_RECORDS_BY_KERNEL]);
	else if (st.throttled[0])
		fprintf(stderr, "\noperf: the kernel throttled %s: fewer samples than asked "
			"for, still a fair profile\n", st.throttled);
	/* OProfile's threshold: more than one sample in a thousand */
	if (lost * 1000 > st.v[OPD_TOTAL_SAMPLES] + lost)
		fprintf(stderr, "\nWARNING: Lost samples detected! See %s for details.\n",
			o->paths.log_file);
	opd_stats_release(&st);
}

static int run(struct operf *o)
{
	int go[2] = { -1, -1 }, err[2] = { -1, -1 };
	pid_t child = -1;
	sigset_t mask;
	int sig_fd, ret, code = 0;

	if (o->command) {
		if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
			operf_err("pipe: %s", strerror(errno));
			return OPERF_EXIT_FAIL;
		}
		fflush(NULL);
		child = fork();
		if (child < 0) {
			operf_err("fork: %s", strerror(errno));
			return OPERF_EXIT_FAIL;
		}
		if (child == 0) {
			close(go[1]);
			close(err[0]);
			run_child(o->command, go[0], err[1]);
		}
		close(go[0]);
		close(err[1]);
		o->target = child;
	}
	sig_fd = block_signals(&mask);
	if (sig_fd < 0) {
		operf_err("cannot take signals: %s", strerror(-sig_fd));
		code = OPERF_EXIT_FAIL;
		goto err_child;
	}
	ret = open_session(o);
	if (!ret) {
		ret = opd_session_start(&o->session);
		if (ret)
			operf_err("cannot start profiling: %s (see %s)", strerror(-ret),
				  o->paths.log_file);
	}
	if (ret) {
		code = OPERF_EXIT_FAIL;
		goto err_sigfd;
	}
	fprintf(stderr, "operf: Profiler started\n");
	if (o->command) {
		code = run_command(o, sig_fd, child, go[1], err[0]);
		go[1] = err[0] = -1;
		child = -1;
	} else {
		run_until_signal(o, sig_fd);
	}
	opd_session_finish(&o->session);
	report_losses(o);
	fprintf(stderr, "\nProfiling done.\n");
	close(sig_fd);
	return code;

err_sigfd:
	close(sig_fd);
err_child:
	if (child > 0) {
		/* EOF on its pipe: the child leaves without running anything */
		close(go[1]);
		close(err[0]);
		waitpid(child, NULL, 0);
	}
	return code;
}

int main(int argc, const char **argv)
{
	static struct operf state;
	struct operf *o = &state;
	int ret, code;

	pthread_mutex_init(&o->log_lock, NULL);
	o->target = -1;
	o->sd.fd = -1;
	o->log = (struct op_logger){ .fn = log_fn, .ctx = o, .max = OP_LOG_INFO };
	ret = parse_options(o, argc, argv);
	if (ret) {
		code = ret == -ENOMEM ? OPERF_EXIT_FAIL : OPERF_EXIT_USAGE;
		if (ret == -ENOMEM)
			operf_err("out of memory");
		goto out;
	}
	if (o->opt.help) {
		code = 0;
		goto out;
	}
	if (o->opt.version) {
		op_print_version(argv[0]);
		code = 0;
		goto out;
	}
	if (o->opt.verbose)
		o->log.max = OP_LOG_DEBUG;
	code = check_target(o);
	if (code)
		goto out;
	if (session_paths(o) || session_prepare(o)) {
		code = OPERF_EXIT_FAIL;
		goto out;
	}
	code = run(o);

out:
	opd_session_close(&o->session);
	if (o->locked)
		opd_lock_release(&o->sd, o->paths.lock_file, getpid());
	if (o->log_file)
		fclose(o->log_file);
	op_sessdir_close(&o->sd);
	if (o->command) {
		for (size_t i = 0; o->command[i]; i++)
			free((char *)o->command[i]);
		free(o->command);
	}
	free(o->opt.pid);
	free(o->opt.events);
	free(o->opt.session_dir);
	free(o->opt.vmlinux);
	free(o->opt.unwind);
	if (fflush(stdout) && !code)
		code = OPERF_EXIT_FAIL;
	return code;
}
