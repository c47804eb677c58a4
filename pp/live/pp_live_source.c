/* optop's sources (pp_live_source.h): a profiler found running, asked
 * only for its status; or a profile of optop's own, oprofiled's pipeline
 * (opd_session.c) run on a thread of this process into a private
 * directory, as operf --system-wide runs it. */
#include "config.h"
#include "pp_live_source.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_config.h"
#include "op_ctl.h"
#include "op_perf.h"
#include "op_stats.h"
#include "op_sessdir.h"
#include "opd_lock.h"
#include "opd_session.h"

static const char *const loss_names[] = { OP_STATS_SAMPLE_LOSSES };
#define NR_LOSSES (sizeof(loss_names) / sizeof(loss_names[0]))

/* ---- a running profiler ---- */

/* The profiler holding the session's lock, or 0. */
static pid_t holder(const struct pp_live_source *src)
{
	pid_t pid = opd_lock_read(&src->sd, src->lock_file);

	return pid > 0 && opd_lock_holder_alive(pid) ? pid : 0;
}

/* oprofiled listens on its socket (a socket, never a link to one); operf
 * has none */
static bool listens(const struct pp_live_source *src)
{
	struct stat st;

	return src->ctl_socket[0] && !op_sd_stat(&src->sd, src->ctl_socket, &st) &&
	       S_ISSOCK(st.st_mode);
}

/* A link where the session keeps path: -ELOOP, named in why. */
static int refuse_link(const struct pp_live_source *src, const char *path,
		       char *why, size_t whylen)
{
	struct stat st;

	if (!path[0] || op_sd_stat(&src->sd, path, &st) || !S_ISLNK(st.st_mode))
		return 0;
	op_sd_explain(&src->sd, path, -ELOOP, why, whylen);
	return -ELOOP;
}

static int source_at(struct pp_live_source *src, const char *dir, char *why,
		     size_t whylen)
{
	char abs[PATH_MAX];
	struct op_paths p;
	int ret;

	memset(src, 0, sizeof(*src));
	src->sd.fd = -1;
	/* a relative --session-dir, as opreport takes it */
	if (dir[0] != '/') {
		if (!realpath(dir, abs))
			return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -errno;
		dir = abs;
	}
	ret = op_paths_init(&p, dir);

	/* a socket path too long for sun_path: then it is an operf's */
	if (ret == -ENAMETOOLONG)
		ret = op_paths_init_operf(&p, dir);
	if (ret)
		return ret;
	snprintf(src->session_dir, sizeof(src->session_dir), "%s", p.session_dir);
	snprintf(src->current_dir, sizeof(src->current_dir), "%s", p.current_dir);
	snprintf(src->lock_file, sizeof(src->lock_file), "%s", p.lock_file);
	snprintf(src->ctl_socket, sizeof(src->ctl_socket), "%s", p.ctl_socket);
	/* a reader's: whoever owns the session, nothing followed out of it */
	ret = op_sessdir_open(&src->sd, src->session_dir, OP_SD_READ, why, whylen);
	if (ret)
		return ret == -ENOTDIR ? -ENOENT : ret;
	ret = refuse_link(src, src->lock_file, why, whylen);
	if (!ret)
		ret = refuse_link(src, src->ctl_socket, why, whylen);
	if (!ret) {
		src->pid = holder(src);
		if (!src->pid)
			ret = -ENOENT;
	}
	if (ret) {
		op_sessdir_close(&src->sd);
		return ret;
	}
	src->kind = listens(src) ? PP_LIVE_DAEMON : PP_LIVE_OPERF;
	return 0;
}

int pp_live_source_find(struct pp_live_source *src, const char *given,
			char *tried, size_t tried_len)
{
	char operf_dir[PATH_MAX], why[PATH_MAX + 128];
	int ret;

	if (given) {
		ret = source_at(src, given, why, sizeof(why));
		snprintf(tried, tried_len, "%s", ret && ret != -ENOENT ? why : given);
		return ret;
	}
	if (getcwd(operf_dir, sizeof(operf_dir)) &&
	    strlen(operf_dir) + sizeof(OP_OPERF_DIR) + 1 < sizeof(operf_dir)) {
		strcat(operf_dir, "/" OP_OPERF_DIR);
		ret = source_at(src, operf_dir, why, sizeof(why));
		if (ret != -ENOENT) {
			if (ret)
				snprintf(tried, tried_len, "%s", why);
			return ret;
		}
	}
	ret = source_at(src, OP_DEFAULT_SESSION_DIR, why, sizeof(why));
	if (ret && ret != -ENOENT)
		snprintf(tried, tried_len, "%s", why);
	else
		snprintf(tried, tried_len, "./%s and %s", OP_OPERF_DIR,
			 OP_DEFAULT_SESSION_DIR);
	return ret;
}

/* oprofiled's status reply: "KEY VALUE" lines. */
static void parse_status(const char *reply, struct pp_live_status *st)
{
	const char *line = reply;

	st->counts_known = true;
	while (line && *line) {
		char key[64];
		unsigned long long v;
		char state[16];

		if (sscanf(line, "state %15s", state) == 1)
			st->running = !strcmp(state, "running");
		else if (sscanf(line, "%63s %llu", key, &v) == 2) {
			/* "samples" in the reply's head, total_samples
			 * among the counters */
			if (!strcmp(key, "samples") || !strcmp(key, OP_STAT_TOTAL_SAMPLES))
				st->samples = v;
			for (size_t i = 0; i < NR_LOSSES; i++)
				if (!strcmp(key, loss_names[i]))
					st->lost += v;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
}

/* ---- optop's own profile ---- */

struct pp_live_self {
	char dir[PATH_MAX];		/* the private session directory */
	struct opd_session session;
	bool opened, started;
	pthread_t thread;
	bool thread_started;
	atomic_bool stop;		/* set by the main thread */
	pthread_mutex_t lock;		/* guards the three below */
	uint64_t samples, lost;
	int error;			/* the stream's end: -EPIPE, or a failure */
};

/* Counters of the session, through the pump thread: printed as
 * oprofiled's status reply prints them, and read as that reply is. */
static void self_counts(struct pp_live_self *s)
{
	struct pp_live_status st = { 0 };
	struct opd_stats stats;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	opd_session_stats(&s->session, &stats);
	opd_stats_print(&stats, f);
	opd_stats_release(&stats);
	if (fclose(f)) {
		free(text);
		return;
	}
	parse_status(text, &st);
	free(text);
	pthread_mutex_lock(&s->lock);
	s->samples = st.samples;
	s->lost = st.lost;
	pthread_mutex_unlock(&s->lock);
}

/* The pump: the session's only user while it runs (the main thread
 * handed it over at pthread_create and takes it back at the join). */
static void *self_pump(void *arg)
{
	struct pp_live_self *s = arg;
	unsigned int n = 0;

	while (!atomic_load(&s->stop)) {
		ssize_t got = opd_session_pump(&s->session, OPD_READ_TIMEOUT_MS);

		if (got < 0 && got != -EINTR) {
			pthread_mutex_lock(&s->lock);
			s->error = (int)got;
			pthread_mutex_unlock(&s->lock);
			break;
		}
		if (++n % 3 == 0)
			self_counts(s);
	}
	return NULL;
}

static void self_free(struct pp_live_self *s)
{
	if (!s)
		return;
	if (s->thread_started) {
		atomic_store(&s->stop, true);
		pthread_join(s->thread, NULL);
	}
	if (s->started)
		opd_session_finish(&s->session);
	opd_session_close(&s->session);
	if (s->dir[0])
		op_sd_remove_tree(NULL, s->dir, NULL, 0);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int pp_live_source_self(struct pp_live_source *src, const char *events,
			unsigned int callgraph, const struct op_logger *lg,
			char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	struct opd_session_config cfg = { 0 };
	struct pp_live_self *s;
	sigset_t block, old;
	int ret;

	memset(src, 0, sizeof(*src));
	src->sd.fd = -1;
	src->kind = PP_LIVE_SELF;
	ret = op_perf_probe_system_wide();
	if (ret == -EACCES || ret == -EPERM) {
		snprintf(err, errlen, "profiling the system needs root, or "
			 "kernel.perf_event_paranoid at -1 (refused here: %s)",
			 strerror(-ret));
		return ret;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&s->lock, NULL);
	snprintf(s->dir, sizeof(s->dir), "%s/optop.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->dir)) {
		ret = -errno;
		snprintf(err, errlen, "cannot create a directory for the profile "
			 "in %s: %s", tmp && *tmp ? tmp : "/tmp", strerror(errno));
		s->dir[0] = '\0';
		goto err_self;
	}
	snprintf(src->session_dir, sizeof(src->session_dir), "%s", s->dir);
	if (snprintf(src->current_dir, sizeof(src->current_dir), "%s/samples/current",
		     s->dir) >= (int)sizeof(src->current_dir)) {
		ret = -ENAMETOOLONG;
		snprintf(err, errlen, "%s: path too long", s->dir);
		goto err_self;
	}
	ret = op_sd_mkdirs(NULL, src->current_dir, 0755);
	if (ret) {
		snprintf(err, errlen, "cannot create %s: %s", src->current_dir,
			 strerror(-ret));
		goto err_self;
	}
	/* read back as a watched session is */
	ret = op_sessdir_open(&src->sd, src->session_dir, OP_SD_READ, err, errlen);
	if (ret)
		goto err_self;
	cfg.current_dir = src->current_dir;
	cfg.events = events ? events : PP_LIVE_SELF_EVENT;
	/* as operf: every sample under its application; by CPU for 'c' */
	cfg.separate = OP_SEP_LIB | OP_SEP_KERNEL | OP_SEP_CPU;
	cfg.callgraph = callgraph;
	cfg.pid = -1;
	cfg.log = *lg;
	/* kmod's threads and the pump take no signal: the main thread's */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	ret = opd_session_init(&s->session, &cfg, err, errlen);
	if (!ret)
		ret = opd_session_open(&s->session, err, errlen);
	if (!ret) {
		ret = opd_session_start(&s->session);
		if (ret)
			snprintf(err, errlen, "cannot start profiling: %s", strerror(-ret));
		else
			s->started = true;
	}
	if (!ret) {
		ret = -pthread_create(&s->thread, NULL, self_pump, s);
		if (ret)
			snprintf(err, errlen, "cannot start a thread: %s", strerror(-ret));
		else
			s->thread_started = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		goto err_self;
	src->self = s;
	src->pid = getpid();
	snprintf(src->events, sizeof(src->events), "%.255s", s->session.events_text);
	return 0;

err_self:
	op_sessdir_close(&src->sd);
	self_free(s);
	return ret;
}

int pp_live_source_poll(struct pp_live_source *src, struct pp_live_status *st)
{
	pid_t pid;
	char *reply = NULL;
	int ret;

	memset(st, 0, sizeof(*st));
	if (src->kind == PP_LIVE_SELF) {
		struct pp_live_self *s = src->self;

		pthread_mutex_lock(&s->lock);
		st->running = !s->error;
		st->samples = s->samples;
		st->lost = s->lost;
		pthread_mutex_unlock(&s->lock);
		st->counts_known = true;
		st->pid = src->pid;
		return 0;
	}
	pid = holder(src);
	st->pid = pid;
	st->restarted = pid && src->pid && pid != src->pid;
	if (pid)
		src->pid = pid;
	if (!pid)
		return 0;
	st->running = true;
	if (src->kind != PP_LIVE_DAEMON) {
		/* an operf that started after the watched one stopped: it is
		 * a daemon now if it listens */
		if (listens(src))
			src->kind = PP_LIVE_DAEMON;
		else
			return 0;
	}
	ret = op_ctl_request(&src->sd, src->ctl_socket, "status", 1000, &reply);
	if (ret)
		return ret;
	if (!strncmp(reply, "ok\n", 3))
		parse_status(reply + 3, st);
	free(reply);
	return 0;
}

void pp_live_source_close(struct pp_live_source *src)
{
	self_free(src->self);
	src->self = NULL;
	op_sessdir_close(&src->sd);
}
