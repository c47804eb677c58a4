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
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <popt.h>

#include "op_config.h"
#include "op_ctl.h"
#include "op_events.h"
#include "op_log.h"
#include "op_perf.h"
#include "op_proc.h"
#include "opd_lock.h"

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
	char *session_dir;
	/* settings */
	char *events[OP_MAX_EVENTS];
	unsigned int nr_events;
	bool too_many_events;
	char *separate;
	char *callgraph;
	char *image;
	char *vmlinux;
	int no_vmlinux;
	char *buffer_size;
	char *buffer_watershed;
	char *cpu_buffer_size;
};

/* One run's context: the session and the lock held on it. */
struct opc {
	struct op_paths paths;
	struct op_settings settings;
	struct op_logger log;
	int lock_fd;
	bool verbose;
};

static void opc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void opc_err(const char *fmt, ...)
{
	va_list ap;

	fputs("opcontrol: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static bool opc_setup_opts_given(const struct opc_opts *o)
{
	return o->nr_events || o->separate || o->callgraph || o->image ||
	       o->vmlinux || o->no_vmlinux || o->buffer_size ||
	       o->buffer_watershed || o->cpu_buffer_size || o->verbose;
}

static bool opc_actions_given(const struct opc_opts *o)
{
	return o->init || o->setup || o->status || o->start_daemon || o->start ||
	       o->dump || o->stop || o->shutdown || o->reset || o->deinit ||
	       o->save || opc_setup_opts_given(o);
}

/* A positive decimal (or 0x hex) number with nothing after it. */
static int opc_parse_ulong(const char *opt, const char *text, unsigned long min,
			   unsigned long max, unsigned long *out)
{
	unsigned long long v;
	char *end;

	if (!text || !*text || *text == '-' || *text == '+' || isspace((unsigned char)*text))
		goto err_bad;
	errno = 0;
	v = strtoull(text, &end, 0);
	if (errno || *end)
		goto err_bad;
	if (v < min || v > max) {
		if (max == ULONG_MAX)
			opc_err("--%s=%s must be at least %lu", opt, text, min);
		else
			opc_err("--%s=%s is out of range (%lu to %lu)", opt, text, min, max);
		return -ERANGE;
	}
	*out = (unsigned long)v;
	return 0;

err_bad:
	opc_err("--%s: \"%s\" is not a number", opt, text ? text : "");
	return -EINVAL;
}

/* Validate an event spec for this machine; the text to store goes to out.
 * "default" stays "default" so it is resolved where the daemon runs. */
static int opc_check_event(const char *text, char *out, size_t len)
{
	struct op_event_spec spec;
	struct op_event ev;
	const char *bad;
	char err[512];
	int ret;

	ret = op_event_spec_parse(text, &spec, &bad);
	if (ret) {
		opc_err("bad event specification \"%s\" at \"%s\" "
			"(expected NAME:COUNT:UNITMASK:KERNEL:USER)", text, bad);
		return ret;
	}
	ret = op_event_resolve(&spec, &ev, err, sizeof(err));
	if (ret) {
		opc_err("%s", err);
		return ret;
	}
	if (!strcmp(spec.name, "default") && !spec.count)
		snprintf(out, len, "default");
	else
		op_event_format(&ev, out, len);
	return 0;
}

/* Fold the command line's settings into s. Returns 0 or -errno (message
 * printed): every error here is a usage error. */
static int opc_apply_settings(const struct opc_opts *o, struct op_settings *s)
{
	char err[256];
	unsigned long v;
	int ret;

	if (o->too_many_events) {
		opc_err("at most %d events can be given", OP_MAX_EVENTS);
		return -EINVAL;
	}
	if (o->vmlinux && o->no_vmlinux) {
		opc_err("--vmlinux and --no-vmlinux cannot be used together");
		return -EINVAL;
	}
	if (o->nr_events) {
		char canon[OP_MAX_EVENTS][128];

		for (unsigned int i = 0; i < o->nr_events; i++) {
			ret = opc_check_event(o->events[i], canon[i], sizeof(canon[i]));
			if (ret)
				return ret;
			for (unsigned int j = 0; j < i; j++) {
				/* the same event twice would write the same files */
				size_t a = strcspn(canon[i], ":"), b = strcspn(canon[j], ":");

				if (a == b && !strncmp(canon[i], canon[j], a)) {
					opc_err("event %.*s is given twice", (int)a, canon[i]);
					return -EINVAL;
				}
			}
		}
		for (unsigned int i = 0; i < o->nr_events; i++)
			snprintf(s->events[i], sizeof(s->events[i]), "%s", canon[i]);
		s->nr_events = o->nr_events;
	}
	if (o->separate) {
		const char *bad = NULL;
		unsigned int flags;

		if (op_separate_parse(o->separate, &flags, &bad)) {
			opc_err("--separate: unknown value \"%s\" "
				"(none, lib, kernel, thread, cpu, all)", bad ? bad : o->separate);
			return -EINVAL;
		}
		s->separate = flags;
	}
	if (o->callgraph) {
		ret = opc_parse_ulong("callgraph", o->callgraph, 0, OPC_MAX_CALLGRAPH, &v);
		if (ret)
			return ret;
		s->callgraph_depth = (unsigned int)v;
	}
	/* a number here; its range in op_buffers_check() below */
	if (o->buffer_size) {
		ret = opc_parse_ulong("buffer-size", o->buffer_size, 1, ULONG_MAX, &v);
		if (ret)
			return ret;
		s->buffer_size = v;
	}
	if (o->buffer_watershed) {
		ret = opc_parse_ulong("buffer-watershed", o->buffer_watershed, 1, ULONG_MAX, &v);
		if (ret)
			return ret;
		s->buffer_watershed = v;
	}
	if (o->cpu_buffer_size) {
		ret = opc_parse_ulong("cpu-buffer-size", o->cpu_buffer_size, 1, ULONG_MAX, &v);
		if (ret)
			return ret;
		s->cpu_buffer_size = v;
	}
	ret = op_buffers_check(s->buffer_size, s->buffer_watershed,
			       s->cpu_buffer_size, err, sizeof(err));
	if (ret) {
		opc_err("%s", err);
		return ret;
	}
	if (o->vmlinux) {
		struct stat st;

		if (o->vmlinux[0] != '/' || strlen(o->vmlinux) >= sizeof(s->vmlinux)) {
			opc_err("--vmlinux needs an absolute path, got \"%s\"", o->vmlinux);
			return -EINVAL;
		}
		if (stat(o->vmlinux, &st)) {
			opc_err("--vmlinux=%s: %s", o->vmlinux, strerror(errno));
			return -EINVAL;
		}
		if (!S_ISREG(st.st_mode)) {
			opc_err("--vmlinux=%s: not a regular file", o->vmlinux);
			return -EINVAL;
		}
		snprintf(s->vmlinux, sizeof(s->vmlinux), "%s", o->vmlinux);
		s->no_vmlinux = false;
	}
	if (o->no_vmlinux) {
		s->vmlinux[0] = '\0';
		s->no_vmlinux = true;
	}
	if (o->image) {
		if (strlen(o->image) >= sizeof(s->image)) {
			opc_err("--image list is too long (%zu bytes at most)", sizeof(s->image) - 1);
			return -EINVAL;
		}
		snprintf(s->image, sizeof(s->image), "%s", strcmp(o->image, "all") ? o->image : "");
	}
	if (o->verbose)
		s->verbose = true;
	return 0;
}

/* Root, or a kernel that lets this user profile every CPU. The environment
 * variable lets the tests, which run as root, see the refusal. */
static int opc_paranoid(void)
{
	int paranoid = 2;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = 2;
		fclose(f);
	}
	return paranoid;
}

static int opc_check_privileges(bool collect)
{
	const char *fake = getenv("OPCONTROL_TEST_AS_USER");
	bool root = geteuid() == 0 && !(fake && *fake && strcmp(fake, "0"));
	int ret;

	if (!root) {
		opc_err("system-wide profiling needs root: run opcontrol as root "
			"(kernel.perf_event_paranoid is %d; without root, system-wide "
			"perf_event_open needs it at -1 and the session directory must be writable)",
			opc_paranoid());
		return -EPERM;
	}
	if (!collect)
		return 0;
	/* root can still be refused: a container without CAP_PERFMON or
	 * CAP_SYS_ADMIN, or a kernel without perf events */
	ret = op_perf_probe_system_wide();
	if (ret == -EACCES || ret == -EPERM) {
		opc_err("perf_event_open refuses system-wide profiling even as root "
			"(kernel.perf_event_paranoid is %d): it needs CAP_PERFMON or "
			"CAP_SYS_ADMIN (a container?)", opc_paranoid());
		return ret;
	}
	if (ret == -ENOSYS || ret == -ENOENT) {
		opc_err("this kernel has no usable perf_event_open (CONFIG_PERF_EVENTS): "
			"nothing can be sampled");
		return ret;
	}
	return 0;
}

static int opc_mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

static long opc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void opc_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Take $SESSION_DIR/opcontrol.lock, waiting up to OPC_LOCK_WAIT_MS (or
 * $OPCONTROL_LOCK_WAIT_MS). The fd is close-on-exec so oprofiled does not
 * inherit the lock. */
static int opc_lock(struct opc *c)
{
	char path[PATH_MAX + 32];
	const char *env = getenv("OPCONTROL_LOCK_WAIT_MS");
	long wait_ms = OPC_LOCK_WAIT_MS, deadline;
	bool said = false;

	if (env && *env)
		wait_ms = strtol(env, NULL, 10);
	snprintf(path, sizeof(path), "%s/opcontrol.lock", c->paths.session_dir);
	c->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (c->lock_fd < 0) {
		int err = errno;

		opc_err("cannot open %s: %s", path, strerror(err));
		return -err;
	}
	deadline = opc_now_ms() + wait_ms;
	while (flock(c->lock_fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int err = errno;

			opc_err("cannot lock %s: %s", path, strerror(err));
			return -err;
		}
		if (opc_now_ms() >= deadline) {
			opc_err("another opcontrol is working on %s; gave up after %ld ms",
				c->paths.session_dir, wait_ms);
			return -EBUSY;
		}
		if (!said && c->verbose)
			fprintf(stderr, "opcontrol: waiting for another opcontrol on %s\n",
				c->paths.session_dir);
		said = true;
		opc_sleep_ms(50);
	}
	return 0;
}

static bool opc_pid_alive(pid_t pid);

/* The pid in the daemon's lock file when that process is alive, else 0. */
static pid_t opc_daemon_pid(const struct opc *c)
{
	pid_t pid = opd_lock_read(c->paths.lock_file);

	/* a zombie is dead too: whoever inherited the daemon may reap late */
	if (!pid || (kill(pid, 0) && errno == ESRCH) || !opc_pid_alive(pid))
		return 0;
	return pid;
}

/* Send cmd; on success *reply holds the lines after "ok" (may be NULL when
 * the caller does not want them). Returns 0, -ENOTCONN when no daemon
 * answers, or -EIO after printing the daemon's error. */
static int opc_request(const struct opc *c, const char *cmd, char **reply)
{
	char *answer = NULL;
	int ret;

	ret = op_ctl_request(c->paths.ctl_socket, cmd, OPC_CTL_TIMEOUT_MS, &answer);
	if (ret == -ECONNREFUSED || ret == -ENOENT) {
		free(answer);
		return -ENOTCONN;
	}
	if (ret) {
		opc_err("oprofiled did not answer \"%s\" on %s: %s", cmd,
			c->paths.ctl_socket, strerror(-ret));
		free(answer);
		return -EIO;
	}
	if (!answer[0]) {
		pid_t pid = opc_daemon_pid(c);

		if (pid && opc_pid_alive(pid))
			opc_err("oprofiled (pid %d) closed the connection without answering \"%s\"; see %s",
				(int)pid, cmd, c->paths.log_file);
		else
			opc_err("oprofiled died while handling \"%s\"; see %s", cmd,
				c->paths.log_file);
		free(answer);
		return -EIO;
	}
	if (strncmp(answer, "ok", 2) || (answer[2] && answer[2] != '\n')) {
		const char *msg = answer;
		size_t len;

		if (!strncmp(msg, "error ", 6))
			msg += 6;
		len = strcspn(msg, "\n");
		opc_err("oprofiled: %s failed: %.*s", cmd, (int)len, msg);
		free(answer);
		return -EIO;
	}
	if (reply) {
		*reply = answer;
	} else {
		free(answer);
	}
	return 0;
}

/* Look up KEY in a status reply ("KEY VALUE" lines). */
static bool opc_status_value(const char *reply, const char *key, char *val, size_t len)
{
	size_t klen = strlen(key);

	for (const char *line = reply; line && *line; ) {
		const char *nl = strchr(line, '\n');
		size_t llen = nl ? (size_t)(nl - line) : strlen(line);

		if (llen > klen && !strncmp(line, key, klen) && line[klen] == ' ') {
			size_t vlen = llen - klen - 1;

			if (vlen >= len)
				vlen = len - 1;
			memcpy(val, line + klen + 1, vlen);
			val[vlen] = '\0';
			return true;
		}
		line = nl ? nl + 1 : NULL;
	}
	return false;
}

/* Where oprofiled is: $OPROFILED, next to this binary, or on PATH. */
static void opc_find_daemon(char *buf, size_t len)
{
	const char *env = getenv("OPROFILED");
	char self[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(buf, len, "%s/oprofiled", self);
			if (!access(buf, X_OK))
				return;
		}
	}
	snprintf(buf, len, "oprofiled");
}

/* Build oprofiled's command line from the settings (the contract in
 * daemon/oprofiled's --help). Strings are malloc'd into args. */
#define OPC_MAX_ARGS 24
static int opc_daemon_argv(const struct opc *c, const char *prog, char **argv)
{
	const struct op_settings *s = &c->settings;
	char events[OP_MAX_EVENTS * 130] = "";
	size_t used = 0;
	int n = 0;

	for (unsigned int i = 0; i < s->nr_events; i++)
		used += (size_t)snprintf(events + used, sizeof(events) - used, "%s%s",
					 i ? "," : "", s->events[i]);
	if (!s->nr_events)
		snprintf(events, sizeof(events), "default");

#define ARG(...) do { if (asprintf(&argv[n++], __VA_ARGS__) < 0) return -ENOMEM; } while (0)
	ARG("%s", prog);
	ARG("--session-dir=%s", c->paths.session_dir);
	ARG("--events=%s", events);
	ARG("--separate-lib=%d", !!(s->separate & OP_SEP_LIB));
	ARG("--separate-kernel=%d", !!(s->separate & OP_SEP_KERNEL));
	ARG("--separate-thread=%d", !!(s->separate & OP_SEP_THREAD));
	ARG("--separate-cpu=%d", !!(s->separate & OP_SEP_CPU));
	if (s->vmlinux[0])
		ARG("--vmlinux=%s", s->vmlinux);
	else
		ARG("--no-vmlinux");
	if (s->image[0])
		ARG("--image=%s", s->image);
	ARG("--buffer-size=%lu", s->buffer_size);
	ARG("--buffer-watershed=%lu", s->buffer_watershed);
	ARG("--cpu-buffer-size=%lu", s->cpu_buffer_size);
	ARG("--callgraph=%u", s->callgraph_depth);
	if (s->verbose)
		ARG("--verbose");
#undef ARG
	argv[n] = NULL;
	return n;
}

/* Start oprofiled unless it runs. It daemonizes itself and its parent exits
 * only once the daemon listens (0) or with the reason on stderr (1). That
 * stderr goes to a memfd, not a pipe: the daemon child may keep it open. */
static int opc_start_daemon(struct opc *c)
{
	char prog[PATH_MAX + 16];
	char *argv[OPC_MAX_ARGS] = { NULL };
	int status, errfd, ret, nr_args;
	long deadline, wait_ms;
	pid_t pid;

	pid = opc_daemon_pid(c);
	if (pid) {
		if (c->verbose)
			printf("oprofiled already running (pid %d)\n", (int)pid);
		return 0;
	}
	opc_find_daemon(prog, sizeof(prog));
	nr_args = opc_daemon_argv(c, prog, argv);
	if (nr_args < 0) {
		opc_err("out of memory");
		ret = -ENOMEM;
		goto err_args;
	}
	errfd = memfd_create("oprofiled-stderr", MFD_CLOEXEC);
	if (errfd < 0) {
		ret = -errno;
		opc_err("cannot create a buffer for oprofiled's messages: %s", strerror(-ret));
		goto err_args;
	}
	if (c->verbose) {
		printf("starting");
		for (int i = 0; argv[i]; i++)
			printf(" %s", argv[i]);
		printf("\n");
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		opc_err("cannot fork: %s", strerror(-ret));
		goto err_memfd;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		dup2(errfd, STDERR_FILENO);
		if (strchr(prog, '/'))
			execv(prog, argv);
		else
			execvp(prog, argv);
		fprintf(stderr, "cannot run %s: %s\n", prog, strerror(errno));
		_exit(127);
	}
	/* bounded: a daemon stuck before it is ready must not hang us */
	wait_ms = OPC_START_WAIT_MS;
	if (getenv("OPCONTROL_START_WAIT_MS") && *getenv("OPCONTROL_START_WAIT_MS"))
		wait_ms = strtol(getenv("OPCONTROL_START_WAIT_MS"), NULL, 10);
	deadline = opc_now_ms() + wait_ms;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			ret = -errno;
			opc_err("waitpid: %s", strerror(-ret));
			goto err_memfd;
		}
		if (opc_now_ms() >= deadline) {
			kill(pid, SIGTERM);
			waitpid(pid, &status, 0);
			opc_err("oprofiled was not ready within %ld ms and was stopped; see %s",
				wait_ms, c->paths.log_file);
			ret = -ETIMEDOUT;
			goto err_memfd;
		}
		opc_sleep_ms(10);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		char msg[4096];
		ssize_t n = pread(errfd, msg, sizeof(msg) - 1, 0);

		msg[n > 0 ? n : 0] = '\0';
		while (n > 0 && msg[n - 1] == '\n')
			msg[--n] = '\0';
		if (WIFEXITED(status))
			opc_err("oprofiled failed to start (exit %d)%s%s", WEXITSTATUS(status),
				n > 0 ? ": " : "", msg);
		else
			opc_err("oprofiled failed to start (signal %d)", WTERMSIG(status));
		ret = -EIO;
		goto err_memfd;
	}
	if (c->verbose)
		printf("oprofiled started (pid %d)\n", (int)opc_daemon_pid(c));
	ret = 0;

err_memfd:
	close(errfd);
err_args:
	for (int i = 0; argv[i]; i++)
		free(argv[i]);
	return ret;
}

static int opc_not_running(const struct opc *c)
{
	opc_err("oprofiled is not running on %s", c->paths.session_dir);
	return -ENOTCONN;
}

static int opc_start(struct opc *c)
{
	char *reply = NULL;
	char state[32];
	bool was_running = false;
	int ret;

	if (opc_daemon_pid(c)) {
		ret = opc_request(c, "status", &reply);
		if (ret == -ENOTCONN)
			return opc_not_running(c);
		if (ret)
			return ret;
		was_running = opc_status_value(reply, "state", state, sizeof(state)) &&
			      !strcmp(state, "running");
		free(reply);
		if (was_running) {
			printf("profiler already running (oprofiled pid %d)\n", (int)opc_daemon_pid(c));
			return 0;
		}
	} else {
		ret = opc_start_daemon(c);
		if (ret)
			return ret;
	}
	ret = opc_request(c, "start", NULL);
	if (ret == -ENOTCONN)
		return opc_not_running(c);
	if (ret)
		return ret;
	printf("profiler running\n");
	return 0;
}

static int opc_simple(struct opc *c, const char *cmd, const char *done)
{
	int ret;

	if (!opc_daemon_pid(c))
		return opc_not_running(c);
	ret = opc_request(c, cmd, NULL);
	if (ret == -ENOTCONN)
		return opc_not_running(c);
	if (!ret && done)
		printf("%s\n", done);
	return ret;
}

/* Alive, and not a zombie waiting for its parent to reap it; no
 * /proc/PID/stat at all is dead too. */
static bool opc_pid_alive(pid_t pid)
{
	int state = op_proc_state(pid);

	return state >= 0 && !op_proc_state_exited(state);
}

static int opc_shutdown(struct opc *c, bool quiet)
{
	pid_t pid = opc_daemon_pid(c);
	long deadline;
	int ret;

	if (!pid) {
		printf("oprofiled is not running\n");
		return 0;
	}
	ret = opc_request(c, "shutdown", NULL);
	if (ret && ret != -ENOTCONN)
		return ret;
	if (ret == -ENOTCONN) {
		/* alive but deaf: SIGTERM is the same shutdown */
		if (kill(pid, SIGTERM) && errno != ESRCH) {
			opc_err("cannot signal oprofiled (pid %d): %s", (int)pid, strerror(errno));
			return -EIO;
		}
	}
	deadline = opc_now_ms() + OPC_SHUTDOWN_WAIT_MS;
	/* the daemon removes its lock before its last breath: wait for both */
	while (opc_daemon_pid(c) == pid || opc_pid_alive(pid)) {
		if (opc_now_ms() >= deadline) {
			opc_err("oprofiled (pid %d) did not exit within %d s", (int)pid,
				OPC_SHUTDOWN_WAIT_MS / 1000);
			return -ETIMEDOUT;
		}
		opc_sleep_ms(20);
	}
	if (!quiet)
		printf("oprofiled (pid %d) shut down\n", (int)pid);
	return 0;
}

/* Moving or emptying current/ under a live daemon would leave it writing
 * into the sample files it keeps open, now in the saved session or
 * unlinked. So save and reset take the daemon down (its shutdown flushes
 * everything, like a dump) and bring it back in the state it was in;
 * samples in the few milliseconds between are lost, as in OProfile. */
struct opc_pause {
	bool had_daemon;
	bool was_running;
};

static int opc_daemon_pause(struct opc *c, struct opc_pause *p)
{
	char *reply = NULL;
	char state[32];
	int ret;

	memset(p, 0, sizeof(*p));
	if (!opc_daemon_pid(c))
		return 0;
	ret = opc_request(c, "status", &reply);
	if (ret && ret != -ENOTCONN)
		return ret;
	if (!ret) {
		p->was_running = opc_status_value(reply, "state", state, sizeof(state)) &&
				 !strcmp(state, "running");
		free(reply);
	}
	p->had_daemon = true;
	return opc_shutdown(c, true);
}

static int opc_daemon_resume(struct opc *c, const struct opc_pause *p)
{
	int ret;

	if (!p->had_daemon)
		return 0;
	ret = opc_start_daemon(c);
	if (ret)
		return ret;
	if (!p->was_running)
		return 0;
	ret = opc_request(c, "start", NULL);
	return ret == -ENOTCONN ? opc_not_running(c) : ret;
}

static int opc_rm_rf_at(int dirfd, const char *name);

static int opc_rm_dir_contents(int fd)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ret = opc_rm_rf_at(dirfd(d), de->d_name);
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

/* Remove name under dirfd, never following a symlink. */
static int opc_rm_rf_at(int dirfd, const char *name)
{
	struct stat st;
	int fd, ret;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0) && errno != ENOENT ? -errno : 0;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = opc_rm_dir_contents(fd);
	if (ret)
		return ret;
	return unlinkat(dirfd, name, AT_REMOVEDIR) && errno != ENOENT ? -errno : 0;
}

static int opc_reset(struct opc *c)
{
	struct opc_pause pause;
	int ret, fd;

	ret = opc_daemon_pause(c, &pause);
	if (ret)
		return ret;
	fd = open(c->paths.current_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT) {
			printf("nothing to reset: %s does not exist\n", c->paths.current_dir);
			return opc_daemon_resume(c, &pause);
		}
		ret = -errno;
		opc_err("cannot open %s: %s", c->paths.current_dir, strerror(-ret));
		goto err_resume;
	}
	ret = opc_rm_dir_contents(fd);
	if (ret) {
		opc_err("cannot clear %s: %s", c->paths.current_dir, strerror(-ret));
		goto err_resume;
	}
	printf("samples in %s cleared\n", c->paths.current_dir);
	return opc_daemon_resume(c, &pause);

err_resume:
	opc_daemon_resume(c, &pause);
	return ret;
}

static int opc_check_save_name(const char *name)
{
	if (!*name) {
		opc_err("--save needs a session name");
		return -EINVAL;
	}
	if (strchr(name, '/') || strstr(name, "..") || !strcmp(name, ".")) {
		opc_err("--save=%s: a session name cannot contain '/' or '..'", name);
		return -EINVAL;
	}
	if (!strcmp(name, "current")) {
		opc_err("--save=current: \"current\" is the live session");
		return -EINVAL;
	}
	if (strlen(name) > NAME_MAX) {
		opc_err("--save: the session name is longer than %d bytes", NAME_MAX);
		return -EINVAL;
	}
	for (const char *p = name; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			opc_err("--save: the session name contains a control character");
			return -EINVAL;
		}
	}
	return 0;
}

static int opc_save(struct opc *c, const char *name)
{
	struct opc_pause pause;
	char target[PATH_MAX];
	struct stat st;
	int ret;

	if ((size_t)snprintf(target, sizeof(target), "%s/%s", c->paths.samples_dir, name) >=
	    sizeof(target)) {
		opc_err("--save=%s: path too long", name);
		return -ENAMETOOLONG;
	}
	if (!lstat(target, &st)) {
		opc_err("--save=%s: session %s already exists", name, target);
		return -EEXIST;
	}
	if (lstat(c->paths.current_dir, &st) || !S_ISDIR(st.st_mode)) {
		opc_err("--save=%s: no current session in %s", name, c->paths.samples_dir);
		return -ENOENT;
	}
	ret = opc_daemon_pause(c, &pause);
	if (ret)
		return ret;
	if (renameat2(AT_FDCWD, c->paths.current_dir, AT_FDCWD, target, RENAME_NOREPLACE)) {
		ret = -errno;
		if (ret == -EEXIST)
			opc_err("--save=%s: session %s already exists", name, target);
		else
			opc_err("cannot move %s to %s: %s", c->paths.current_dir, target,
				strerror(-ret));
		goto err_resume;
	}
	if (mkdir(c->paths.current_dir, 0755) && errno != EEXIST) {
		ret = -errno;
		opc_err("cannot create %s: %s", c->paths.current_dir, strerror(-ret));
		goto err_resume;
	}
	printf("session saved as %s\n", target);
	return opc_daemon_resume(c, &pause);

err_resume:
	opc_daemon_resume(c, &pause);
	return ret;
}

/* Read a stats file of current/ (0 when absent). */
static unsigned long long opc_read_stat(const struct opc *c, const char *name)
{
	char path[PATH_MAX + 64];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stats/%s", c->paths.current_dir, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static void opc_print_events(const char *list)
{
	/* "TIMER:..." or a spec list; say timer mode where it is */
	printf("Events: %s", list);
	if (strstr(list, "TIMER") || strstr(list, "cpu-clock"))
		printf(" (timer mode: cpu-clock software event, count in ns)");
	else if (!strcmp(list, "default"))
		printf(" (%s)", op_event_have_pmu() ? "CPU_CLK_UNHALTED, cycles"
						     : "timer mode: cpu-clock software event");
	printf("\n");
}

/* Status keys that are not loss counters: shown on their own lines, or as
 * the activity breakdown. Every other numeric key is a loss counter. */
static const char *const opc_plain_keys[] = {
	"pid", "state", "events", "separate", "session_dir", "samples",
	"total_samples", "kernel_samples", "anon_samples", "samples_written",
	"throttled", "filtered_by_image", "callgraph", "callgraph_chains",
	"callgraph_arcs",
};

static bool opc_is_plain_key(const char *key, size_t len)
{
	for (size_t i = 0; i < sizeof(opc_plain_keys) / sizeof(opc_plain_keys[0]); i++) {
		if (strlen(opc_plain_keys[i]) == len && !strncmp(key, opc_plain_keys[i], len))
			return true;
	}
	return false;
}

static int opc_status(struct opc *c)
{
	char sep[64], val[OP_CTL_LINE_MAX];
	pid_t pid = opc_daemon_pid(c);
	char *reply = NULL;
	int ret;

	if (pid) {
		ret = opc_request(c, "status", &reply);
		if (ret && ret != -ENOTCONN)
			return ret;
		if (ret == -ENOTCONN) {
			opc_err("oprofiled (pid %d) holds %s but does not answer on %s",
				(int)pid, c->paths.lock_file, c->paths.ctl_socket);
			return -EIO;
		}
		printf("Daemon running: pid %d\n", (int)pid);
		printf("Profiling: %s\n",
		       opc_status_value(reply, "state", val, sizeof(val)) ? val : "unknown");
		if (opc_status_value(reply, "events", val, sizeof(val)))
			opc_print_events(val);
		printf("Separate: %s\n",
		       opc_status_value(reply, "separate", val, sizeof(val)) ? val : "unknown");
		printf("Session dir: %s\n",
		       opc_status_value(reply, "session_dir", val, sizeof(val))
		       ? val : c->paths.session_dir);
		printf("Samples received: %s\n",
		       opc_status_value(reply, "samples", val, sizeof(val)) ? val : "unknown");
		if (opc_status_value(reply, "samples_written", val, sizeof(val)))
			printf("Samples written: %s\n", val);
		if (opc_status_value(reply, "callgraph", val, sizeof(val)) &&
		    strcmp(val, "0")) {
			char arcs[64];

			printf("Call chains: depth %s", val);
			if (opc_status_value(reply, "callgraph_chains", val, sizeof(val)) &&
			    opc_status_value(reply, "callgraph_arcs", arcs, sizeof(arcs)))
				printf(", %s samples with their callers, %s arcs", val, arcs);
			printf("\n");
		}
		if (opc_status_value(reply, "kernel_samples", val, sizeof(val)))
			printf("Kernel samples: %s\n", val);
		if (opc_status_value(reply, "anon_samples", val, sizeof(val)))
			printf("Anonymous-memory samples: %s\n", val);
		if (opc_status_value(reply, "filtered_by_image", val, sizeof(val)) &&
		    strcmp(val, "0"))
			printf("Left out by --image: %s\n", val);
		if (opc_status_value(reply, "throttled", val, sizeof(val)) &&
		    strcmp(val, "none") && val[0])
			printf("Throttled by the kernel: %s\n", val);
		/* every other key is a loss counter: show those not zero */
		for (const char *line = strchr(reply, '\n'); line && *++line; ) {
			const char *nl = strchr(line, '\n');
			size_t llen = nl ? (size_t)(nl - line) : strlen(line);
			size_t klen = strcspn(line, " \n");

			if (klen < llen && !opc_is_plain_key(line, klen)) {
				const char *v = line + klen + 1;
				size_t vlen = llen - klen - 1;

				if (!(vlen == 1 && *v == '0'))
					printf("Lost: %.*s %.*s\n", (int)klen, line, (int)vlen, v);
			}
			line = nl;
		}
		free(reply);
		return 0;
	}

	printf("Daemon not running\n");
	{
		char list[OP_MAX_EVENTS * 130] = "";
		size_t used = 0;

		for (unsigned int i = 0; i < c->settings.nr_events; i++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
						 i ? "," : "", c->settings.events[i]);
		opc_print_events(c->settings.nr_events ? list : "default");
	}
	op_separate_format(c->settings.separate, sep, sizeof(sep));
	printf("Separate: %s\n", sep);
	printf("Session dir: %s\n", c->paths.session_dir);
	printf("Samples in current: %llu\n", opc_read_stat(c, "total_samples"));
	{
		static const char *const losses[] = {
			"event_lost_overflow", "lost_no_task", "lost_no_mapping",
			"lost_samplefile", "lost_records_by_kernel", "bad_escape",
		};

		for (size_t i = 0; i < sizeof(losses) / sizeof(losses[0]); i++) {
			unsigned long long v = opc_read_stat(c, losses[i]);

			if (v)
				printf("Lost: %s %llu\n", losses[i], v);
		}
	}
	return 0;
}

/* --list-events: ophelp next to this binary, or on PATH. */
static int opc_list_events(void)
{
	char self[PATH_MAX], prog[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	snprintf(prog, sizeof(prog), "ophelp");
	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(prog, sizeof(prog), "%s/ophelp", self);
			if (access(prog, X_OK))
				snprintf(prog, sizeof(prog), "ophelp");
		}
	}
	fflush(NULL);
	if (strchr(prog, '/'))
		execl(prog, "ophelp", (char *)NULL);
	else
		execlp(prog, "ophelp", (char *)NULL);
	opc_err("cannot run ophelp: %s", strerror(errno));
	return OPC_EXIT_FAIL;
}

static const char opc_epilog[] =
	"\nExamples:\n"
	"  opcontrol --setup --event=cpu-clock:1000000 --separate=cpu\n"
	"  opcontrol --start; (your work); opcontrol --dump; opreport\n"
	"  opcontrol --stop --save=run1; opcontrol --shutdown\n"
	"Events are NAME:COUNT:UNITMASK:KERNEL:USER (ophelp lists them); \"default\"\n"
	"is CPU_CLK_UNHALTED with a hardware PMU, else TIMER (cpu-clock, timer mode).\n"
	"Settings persist in SESSION_DIR/daemonrc (default " OP_DEFAULT_SESSION_DIR ").\n"
	"Exit status: 0 ok, 1 runtime failure (no daemon, daemon error, busy\n"
	"session, no privileges), 2 usage error (bad option or value).\n";

static int opc_run(struct opc *c, const struct opc_opts *o)
{
	int ret;

	if (o->init || o->setup || o->start || o->start_daemon || opc_setup_opts_given(o)) {
		ret = opc_mkdir_p(c->paths.samples_dir, 0755);
		if (ret) {
			opc_err("cannot create %s: %s", c->paths.samples_dir, strerror(-ret));
			return OPC_EXIT_FAIL;
		}
	}
	if (o->setup || opc_setup_opts_given(o)) {
		ret = op_settings_save(&c->settings, c->paths.daemonrc);
		if (ret) {
			opc_err("cannot write %s: %s", c->paths.daemonrc, strerror(-ret));
			return OPC_EXIT_FAIL;
		}
		if (c->verbose)
			printf("settings saved in %s\n", c->paths.daemonrc);
		if (opc_daemon_pid(c) && !o->shutdown && !o->deinit)
			printf("note: the running oprofiled keeps its settings until "
			       "opcontrol --shutdown and --start\n");
	}
	if (o->init && c->verbose)
		printf("session directory %s ready\n", c->paths.session_dir);
	if (o->reset && (ret = opc_reset(c)))
		return OPC_EXIT_FAIL;
	if (o->start_daemon && !o->start && (ret = opc_start_daemon(c)))
		return OPC_EXIT_FAIL;
	if (o->start && (ret = opc_start(c)))
		return OPC_EXIT_FAIL;
	if (o->dump && (ret = opc_simple(c, "dump", c->verbose ? "samples dumped" : NULL)))
		return OPC_EXIT_FAIL;
	if (o->stop && (ret = opc_simple(c, "stop", "profiler stopped")))
		return OPC_EXIT_FAIL;
	if (o->save && (ret = opc_save(c, o->save)))
		return OPC_EXIT_FAIL;
	if ((o->shutdown || o->deinit) && (ret = opc_shutdown(c, false)))
		return OPC_EXIT_FAIL;
	if (o->status && (ret = opc_status(c)))
		return OPC_EXIT_FAIL;
	return OPC_EXIT_OK;
}

int main(int argc, const char **argv)
{
	struct opc_opts o;
	struct opc c;
	char *event_arg = NULL;
	enum { OPT_EVENT = 1 };
	struct poptOption options[] = {
		{ "init", 0, POPT_ARG_NONE, &o.init, 0,
		  "create the session directory", NULL },
		{ "setup", 0, POPT_ARG_NONE, &o.setup, 0,
		  "store the given settings in daemonrc", NULL },
		{ "status", 0, POPT_ARG_NONE, &o.status, 0,
		  "show the daemon, its events, separation and sample and loss counts", NULL },
		{ "start-daemon", 0, POPT_ARG_NONE, &o.start_daemon, 0,
		  "start oprofiled without enabling collection", NULL },
		{ "start", 's', POPT_ARG_NONE, &o.start, 0,
		  "start the daemon if needed and enable collection", NULL },
		{ "dump", 'd', POPT_ARG_NONE, &o.dump, 0,
		  "write collected samples to disk; returns when they are there", NULL },
		{ "stop", 't', POPT_ARG_NONE, &o.stop, 0,
		  "stop collection (the daemon keeps running)", NULL },
		{ "shutdown", 'h', POPT_ARG_NONE, &o.shutdown, 0,
		  "stop collection and end the daemon", NULL },
		{ "reset", 0, POPT_ARG_NONE, &o.reset, 0,
		  "clear the current session's samples", NULL },
		{ "save", 0, POPT_ARG_STRING, &o.save, 0,
		  "move the current session to samples/NAME", "NAME" },
		{ "deinit", 0, POPT_ARG_NONE, &o.deinit, 0,
		  "end the daemon and everything it holds", NULL },
		{ "session-dir", 0, POPT_ARG_STRING, &o.session_dir, 0,
		  "session directory (default " OP_DEFAULT_SESSION_DIR ")", "DIR" },
		{ "event", 'e', POPT_ARG_STRING, &event_arg, OPT_EVENT,
		  "event to sample, repeatable, or \"default\"", "NAME:COUNT:UNITMASK:KERNEL:USER" },
		{ "separate", 'p', POPT_ARG_STRING, &o.separate, 0,
		  "separate samples by none,lib,kernel,thread,cpu,all (kernel implies lib)", "LIST" },
		{ "callgraph", 'c', POPT_ARG_STRING, &o.callgraph, 0,
		  "collect each sample's callers, up to DEPTH frames (frame pointers; "
		  "0 is off; files by application, as --separate=lib,kernel)", "DEPTH" },
		{ "image", 'i', POPT_ARG_STRING, &o.image, 0,
		  "profile only these binaries (comma list, or all)", "LIST" },
		{ "vmlinux", 0, POPT_ARG_STRING, &o.vmlinux, 0,
		  "uncompressed kernel image with symbols", "FILE" },
		{ "no-vmlinux", 0, POPT_ARG_NONE, &o.no_vmlinux, 0,
		  "no kernel image: kernel samples go to the kernel as a whole", NULL },
		{ "buffer-size", 0, POPT_ARG_STRING, &o.buffer_size, 0,
		  "event buffer size, in words", "WORDS" },
		{ "buffer-watershed", 0, POPT_ARG_STRING, &o.buffer_watershed, 0,
		  "the daemon reads the event buffer at this fill, in words", "WORDS" },
		{ "cpu-buffer-size", 0, POPT_ARG_STRING, &o.cpu_buffer_size, 0,
		  "per-CPU ring size, in bytes (a power of two pages)", "BYTES" },
		{ "verbose", 'V', POPT_ARG_NONE, &o.verbose, 0,
		  "say more, here and in the daemon's log", NULL },
		{ "list-events", 'l', POPT_ARG_NONE, &o.list_events, 0,
		  "list the events of this machine (ophelp)", NULL },
		{ "version", 'v', POPT_ARG_NONE, &o.version, 0,
		  "show the version", NULL },
		{ "help", '?', POPT_ARG_NONE, &o.help, 0, "show this help", NULL },
		POPT_TABLEEND
	};
	poptContext ctx;
	int rc, ret = OPC_EXIT_OK;

	memset(&o, 0, sizeof(o));
	memset(&c, 0, sizeof(c));
	c.lock_fd = -1;
	ctx = poptGetContext("opcontrol", argc, argv, options, 0);
	while ((rc = poptGetNextOpt(ctx)) > 0) {
		if (rc == OPT_EVENT) {
			if (o.nr_events == OP_MAX_EVENTS) {
				o.too_many_events = true;
				free(event_arg);
			} else {
				o.events[o.nr_events++] = event_arg;
			}
			event_arg = NULL;
		}
	}
	if (rc < -1) {
		opc_err("%s: %s (opcontrol --help lists the options)",
			poptBadOption(ctx, POPT_BADOPTION_NOALIAS), poptStrerror(rc));
		ret = OPC_EXIT_USAGE;
		goto out;
	}
	if (poptPeekArg(ctx)) {
		opc_err("unexpected argument \"%s\" (opcontrol --help lists the options)",
			poptPeekArg(ctx));
		ret = OPC_EXIT_USAGE;
		goto out;
	}
	if (o.help) {
		poptPrintHelp(ctx, stdout, 0);
		fputs(opc_epilog, stdout);
		goto out;
	}
	if (o.version) {
		printf("opcontrol (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
		goto out;
	}
	if (o.list_events) {
		if (opc_actions_given(&o)) {
			opc_err("--list-events cannot be combined with other actions");
			ret = OPC_EXIT_USAGE;
			goto out;
		}
		ret = opc_list_events();
		goto out;
	}
	if (!opc_actions_given(&o)) {
		poptPrintUsage(ctx, stderr, 0);
		opc_err("nothing to do (opcontrol --help lists the options)");
		ret = OPC_EXIT_USAGE;
		goto out;
	}
	if (o.save && opc_check_save_name(o.save)) {
		ret = OPC_EXIT_USAGE;
		goto out;
	}
	ret = op_paths_init(&c.paths, o.session_dir);
	if (ret) {
		if (ret == -EINVAL)
			opc_err("--session-dir must be an absolute path, got \"%s\"",
				o.session_dir ? o.session_dir : "");
		else
			opc_err("--session-dir \"%s\": %s", o.session_dir ? o.session_dir : "",
				ret == -ENAMETOOLONG ? "path too long for the control socket"
						     : strerror(-ret));
		ret = OPC_EXIT_USAGE;
		goto out;
	}
	c.verbose = o.verbose;
	c.log.fn = op_log_to_stderr;
	c.log.ctx = (void *)"opcontrol";
	c.log.max = o.verbose ? OP_LOG_DEBUG : OP_LOG_WARN;

	/* settings first: a bad value is a usage error before any action */
	op_settings_default(&c.settings);
	ret = op_settings_load(&c.settings, c.paths.daemonrc, &c.log);
	if (ret) {
		opc_err("cannot read %s: %s", c.paths.daemonrc, strerror(-ret));
		ret = OPC_EXIT_FAIL;
		goto out;
	}
	if (opc_apply_settings(&o, &c.settings)) {
		ret = OPC_EXIT_USAGE;
		goto out;
	}
	if (opc_check_privileges(o.start || o.start_daemon)) {
		ret = OPC_EXIT_FAIL;
		goto out;
	}
	ret = opc_mkdir_p(c.paths.session_dir, 0755);
	if (ret) {
		opc_err("cannot create %s: %s", c.paths.session_dir, strerror(-ret));
		ret = OPC_EXIT_FAIL;
		goto out;
	}
	if (opc_lock(&c)) {
		ret = OPC_EXIT_FAIL;
		goto out;
	}
	ret = opc_run(&c, &o);

out:
	if (c.lock_fd >= 0)
		close(c.lock_fd);
	for (unsigned int i = 0; i < o.nr_events; i++)
		free(o.events[i]);
	free(o.save);
	free(o.session_dir);
	free(o.separate);
	free(o.callgraph);
	free(o.image);
	free(o.vmlinux);
	free(o.buffer_size);
	free(o.buffer_watershed);
	free(o.cpu_buffer_size);
	poptFreeContext(ctx);
	if (fflush(stdout) && ret == OPC_EXIT_OK) {
		perror("opcontrol: stdout");
		ret = OPC_EXIT_FAIL;
	}
	return ret;
}
