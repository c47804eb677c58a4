/* opcontrol and oprofiled: whether this user may profile, starting the
 * daemon with the session's settings, asking it over the control socket,
 * and shutting it down (also around a --save or --reset). */
#include "config.h"
#include "opcontrol.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "op_ctl.h"
#include "op_perf.h"
#include "op_proc.h"
#include "opd_lock.h"

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

int opc_check_privileges(bool collect)
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

/* Alive, and not a zombie waiting for its parent to reap it; no
 * /proc/PID/stat at all is dead too. */
static bool opc_pid_alive(pid_t pid)
{
	int state = op_proc_state(pid);

	return state >= 0 && !op_proc_state_exited(state);
}

pid_t opc_daemon_pid(const struct opc *c)
{
	pid_t pid = opd_lock_read(&c->sd, c->paths.lock_file);

	/* a zombie is dead too: whoever inherited the daemon may reap late */
	if (!pid || (kill(pid, 0) && errno == ESRCH) || !opc_pid_alive(pid))
		return 0;
	return pid;
}

int opc_request(const struct opc *c, const char *cmd, char **reply)
{
	char *answer = NULL;
	int ret;

	ret = op_ctl_request(&c->sd, c->paths.ctl_socket, cmd, OPC_CTL_TIMEOUT_MS, &answer);
	if (ret == -ECONNREFUSED || ret == -ENOENT) {
		free(answer);
		return -ENOTCONN;
	}
	if (ret == -ELOOP || ret == -ENOTSOCK) {
		opc_sd_err(c, "cannot reach oprofiled", c->paths.ctl_socket, ret);
		free(answer);
		return -EIO;
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

bool opc_status_value(const char *reply, const char *key, char *val, size_t len)
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
	ARG("--separate-container=%d", !!(s->separate & OP_SEP_CONTAINER));
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
	if (s->unwind_stack)
		ARG("--unwind=dwarf,%u", s->unwind_stack);
	if (s->pid)
		ARG("--pid=%d", (int)s->pid);
	if (s->cpus[0])
		ARG("--cpus=%s", s->cpus);
	if (s->flight_seconds)
		ARG("--flight-recorder=%u", s->flight_seconds);
	ARG("--keep-max=%u", s->keep_mb);
	if (s->verbose)
		ARG("--verbose");
#undef ARG
	argv[n] = NULL;
	return n;
}

/* Start oprofiled unless it runs. It daemonizes itself and its parent exits
 * only once the daemon listens (0) or with the reason on stderr (1). That
 * stderr goes to a memfd, not a pipe: the daemon child may keep it open. */
int opc_start_daemon(struct opc *c)
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
			if (null > STDERR_FILENO)
				close(null);
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

int opc_start(struct opc *c)
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

int opc_simple(struct opc *c, const char *cmd, const char *done)
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

int opc_snapshot(struct opc *c, const char *name)
{
	char cmd[PATH_MAX + 16], *reply = NULL, val[64];
	int ret;

	if (!opc_daemon_pid(c))
		return opc_not_running(c);
	/* refused before the request when the daemon says it is no flight
	 * recorder: the daemon's own words would name its option */
	ret = opc_request(c, "status", &reply);
	if (ret == -ENOTCONN)
		return opc_not_running(c);
	if (ret)
		return ret;
	if (!opc_status_value(reply, "flight_seconds", val, sizeof(val))) {
		free(reply);
		opc_err("--snapshot: oprofiled on %s is not a flight recorder "
			"(opcontrol --setup --flight-recorder=SECONDS, then --shutdown and --start); "
			"--dump writes its samples", c->paths.session_dir);
		return -EINVAL;
	}
	free(reply);
	snprintf(cmd, sizeof(cmd), "snapshot %s", name);
	ret = opc_request(c, cmd, NULL);
	if (ret == -ENOTCONN)
		return opc_not_running(c);
	if (!ret)
		printf("snapshot of the last %s s saved as %s/%s\n", val,
		       c->paths.samples_dir, name);
	return ret;
}

int opc_shutdown(struct opc *c, bool quiet)
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
int opc_daemon_pause(struct opc *c, struct opc_pause *p)
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

int opc_daemon_resume(struct opc *c, const struct opc_pause *p)
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
