/* kmod against the real kernel: cpu-clock on every CPU, system-wide, while
 * a known program (kop_spin, built next to this test) runs; its samples
 * must arrive under its pid with the cookie of its binary. Skips (77)
 * when not root, unless OPSAMPLER_REQUIRE_PERF=1 says it must run. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kop.h"
#include "op_proto.h"
#include "stream_walk.h"
#include "testutil.h"

static int skip_or_fail(const char *why)
{
	if (tu_require_perf()) {
		fprintf(stderr, "test_kop_real: FAIL: %s (OPSAMPLER_REQUIRE_PERF=1)\n", why);
		return 1;
	}
	fprintf(stderr, "test_kop_real: SKIP: %s\n", why);
	return 77;
}

static void log_stderr(void *ctx, enum op_log_level level, const char *msg)
{
	fprintf(stderr, "test_kop_real: %s\n", msg);
}

static int debug_others;	/* KOP_REAL_DEBUG, pid mode: print strays */
static char test_exe[PATH_MAX];	/* this program: the child before its exec */

struct tally {
	unsigned long nr_total, nr_child, nr_child_spin, nr_child_app;
	unsigned long nr_foreign;	/* app neither kop_spin nor this test */
	uint64_t spin_cookie;
	uint64_t last_app;
	bool last_app_ours;
};

struct decoding {
	struct kop_session *s;
	pid_t child;
	const char *spin;
	struct tally *t;
};

static void on_sample(void *ctx, const struct stream_state *st, uint64_t pc,
		      uint64_t event)
{
	struct decoding *d = ctx;
	struct tally *t = d->t;

	t->nr_total++;
	if (st->app != t->last_app) {
		struct kop_dcookie_info info = { 0 };

		kop_dcookie_lookup(d->s, st->app, &info);
		t->last_app = st->app;
		t->last_app_ours = !strcmp(info.path, d->spin) ||
				   !strcmp(info.path, test_exe);
	}
	/* between its exec and the mapping of its binary a task has no app
	 * cookie yet */
	if (!t->last_app_ours &&
	    !(st->app == OP_NO_COOKIE && st->tgid == (uint64_t)d->child)) {
		t->nr_foreign++;
		if (debug_others)
			fprintf(stderr, "foreign: tgid %llu kernel %d pc %#llx\n",
				(unsigned long long)st->tgid, st->kernel,
				(unsigned long long)pc);
	}
	if (st->tgid == (uint64_t)d->child) {
		struct kop_dcookie_info info;

		t->nr_child++;
		if (!st->kernel && st->cookie != OP_NO_COOKIE && !t->spin_cookie &&
		    !kop_dcookie_lookup(d->s, st->cookie, &info) &&
		    !strcmp(info.path, d->spin))
			t->spin_cookie = st->cookie;
		if (!st->kernel && t->spin_cookie && st->cookie == t->spin_cookie)
			t->nr_child_spin++;
		if (t->spin_cookie && st->app == t->spin_cookie)
			t->nr_child_app++;
	}
}

/* Tally words[0, nr), the whole stream so far. Returns 0, or -EINVAL
 * (with a message) when kmod wrote a stream that does not decode. */
static int decode(struct kop_session *s, const uint64_t *buf, size_t nr,
		  pid_t child, const char *spin, struct tally *t)
{
	struct decoding d = { s, child, spin, t };
	struct stream_state st = { 0 };
	size_t bad;

	memset(t, 0, sizeof(*t));
	t->last_app = UINT64_MAX;
	if (stream_walk(&st, buf, nr, on_sample, &d, &bad)) {
		fprintf(stderr, "test_kop_real: FAIL: bad stream at word %zu of %zu\n",
			bad, nr);
		return -EINVAL;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Both runs sample cpu-clock at 10 kHz, for pid (-1: system-wide). */
static void cpu_clock_config(struct perf_event_attr *ev, struct kop_config *cfg,
			     pid_t pid)
{
	memset(ev, 0, sizeof(*ev));
	ev->size = sizeof(*ev);
	ev->type = PERF_TYPE_SOFTWARE;
	ev->config = PERF_COUNT_SW_CPU_CLOCK;
	ev->sample_period = 100000;
	memset(cfg, 0, sizeof(*cfg));
	cfg->events = ev;
	cfg->nr_events = 1;
	cfg->pid = pid;
	cfg->proc_root = "/proc";
	cfg->log = (struct op_logger){ log_stderr, NULL, OP_LOG_WARN };
}

/* One process tree: events opened for the child (inherit) on every CPU
 * before it execs; every sample must be the child's, in its binary. */
static int pid_mode(const char *spin)
{
	struct perf_event_attr ev;
	struct kop_config cfg;
	struct kop_session *s = NULL;
	struct tally t;
	uint64_t *buf = NULL;
	size_t nr = 0, cap = 1 << 20;
	ssize_t n;
	int go[2], status, err = 1;
	bool reaped = false;
	pid_t child;
	char c = 'x';

	if (pipe(go))
		return 1;
	child = fork();
	if (child == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		execl(spin, "kop_spin", "300", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	if (child < 0) {
		fprintf(stderr, "test_kop_real: FAIL: fork: %s\n", strerror(errno));
		goto err_pipe;
	}
	cpu_clock_config(&ev, &cfg, child);
	cfg.cpu_buffer_size = 1 << 20;
	cfg.evbuf_words = cap;
	buf = malloc(cap * sizeof(*buf));
	if (!buf || kop_session_new(&cfg, &s))
		goto err_session;
	if (kop_session_start(s)) {
		fprintf(stderr, "test_kop_real: FAIL: cannot profile pid %d\n", (int)child);
		goto err_session;
	}
	if (write(go[1], &c, 1) != 1)
		goto err_session;
	close(go[1]);
	go[1] = -1;
	waitpid(child, &status, 0);
	reaped = true;
	if (kop_session_sync(s) || kop_session_stop(s))
		goto err_session;
	while ((n = kop_evbuf_read(s, buf + nr, cap - nr, 0)) > 0)
		nr += (size_t)n;
	debug_others = getenv("KOP_REAL_DEBUG") != NULL;
	err = decode(s, buf, nr, child, spin, &t) != 0;
	printf("test_kop_real: pid mode: %lu samples, %lu of pid %d, %lu in kop_spin, %lu outside its process tree\n",
	       t.nr_total, t.nr_child, (int)child, t.nr_child_spin,
	       t.nr_foreign);
	/* the tree is the child and what it starts (ASan's leak checker
	 * clones a task at exit): all of it runs this test or kop_spin */
	if (t.nr_foreign || t.nr_child_spin < 100) {
		fprintf(stderr, "test_kop_real: FAIL: pid mode: samples from outside the process tree or too few of the child\n");
		err = 1;
	}

err_session:
	kop_session_free(s);
	free(buf);
err_pipe:
	/* a child still waiting for the go reads end of file and exits */
	if (go[1] >= 0)
		close(go[1]);
	if (child > 0 && !reaped)
		waitpid(child, &status, 0);
	return err;
}

int main(void)
{
	struct perf_event_attr ev;
	struct kop_config cfg;
	struct kop_session *s = NULL;
	struct kop_stats st;
	char self[PATH_MAX], spin[PATH_MAX + 16], *slash;
	uint64_t *buf = NULL;
	size_t nr = 0, cap = 1 << 22;
	ssize_t n, len;
	pid_t child;
	int err = 1, status;
	struct tally t;
	double t0, waited;

	if (geteuid() != 0)
		return skip_or_fail("not root: cannot profile system-wide");
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 1;
	self[len] = '\0';
	snprintf(test_exe, sizeof(test_exe), "%s", self);
	slash = strrchr(self, '/');
	*slash = '\0';
	snprintf(spin, sizeof(spin), "%s/kop_spin", self);
	if (!realpath(spin, self)) {
		fprintf(stderr, "test_kop_real: FAIL: no %s\n", spin);
		return 1;
	}

	/* system-wide: not at the same time as the other tests that are */
	if (tu_lock_system_wide()) {
		fprintf(stderr, "test_kop_real: FAIL: cannot take the system-wide test lock\n");
		return 1;
	}
	cpu_clock_config(&ev, &cfg, -1);
	/* a ring that will not reach its watermark and a timer that will
	 * not fire: only the child's exit can wake the sync thread */
	cfg.cpu_buffer_size = 4 << 20;
	cfg.sync_interval_ms = 60000;
	cfg.evbuf_words = 1 << 22;
	/* from here on every way out goes through err_session */
	buf = malloc(cap * sizeof(*buf));
	if (!buf || kop_session_new(&cfg, &s))
		goto err_session;
	if (kop_session_start(s)) {
		err = skip_or_fail("perf_event_open failed");
		goto err_session;
	}
	child = fork();
	if (child == 0) {
		execl(self, "kop_spin", "400", (char *)NULL);
		_exit(127);
	}
	if (child < 0) {
		fprintf(stderr, "test_kop_real: FAIL: fork: %s\n", strerror(errno));
		goto err_session;
	}
	waitpid(child, &status, 0);
	/* the exit must bring the child's samples without a sync request */
	t0 = now_s();
	memset(&t, 0, sizeof(t));
	while (t.nr_child_spin < 200 && now_s() - t0 < 5) {
		n = kop_evbuf_read(s, buf + nr, cap - nr, 200);
		if (n > 0) {
			nr += (size_t)n;
			if (decode(s, buf, nr, child, self, &t))
				break;
		}
		if (getenv("KOP_REAL_DEBUG"))
			fprintf(stderr, "%.3f: read %zd, child %lu\n",
				now_s() - t0, n, t.nr_child_spin);
	}
	waited = now_s() - t0;
	if (kop_session_sync(s) || kop_session_stop(s)) {
		fprintf(stderr, "test_kop_real: FAIL: sync/stop\n");
		goto err_session;
	}
	while ((n = kop_evbuf_read(s, buf + nr, cap - nr, 0)) > 0)
		nr += (size_t)n;
	err = decode(s, buf, nr, child, self, &t) != 0;
	if (kop_stats_get(s, &st)) {
		fprintf(stderr, "test_kop_real: FAIL: no stats\n");
		err = 1;
		goto err_session;
	}
	printf("test_kop_real: %lu samples, %lu of pid %d, %lu in %s, %lu with it as app; synced %.3f s after its exit; stats: samples %llu lost_ring %llu lost_evbuf %llu no_mapping %llu bad %llu\n",
	       t.nr_total, t.nr_child, (int)child, t.nr_child_spin, self,
	       t.nr_child_app, waited, (unsigned long long)st.nr_samples,
	       (unsigned long long)st.nr_lost_ring,
	       (unsigned long long)st.nr_lost_evbuf,
	       (unsigned long long)st.nr_lost_no_task,
	       (unsigned long long)st.nr_bad_records);
	if (waited >= 5) {
		fprintf(stderr, "test_kop_real: FAIL: the child's exit did not wake the sync thread\n");
		err = 1;
	}
	if (t.nr_total != st.nr_samples) {
		fprintf(stderr, "test_kop_real: FAIL: stream has %lu samples, stats say %llu\n",
			t.nr_total, (unsigned long long)st.nr_samples);
		err = 1;
	}
	/* 400 ms at 10 kHz is ~4000 samples; ask for a twentieth (the
	 * machine is shared: the child may get a fraction of a CPU) */
	if (t.nr_child_spin < 200 || t.nr_child_app < 200) {
		fprintf(stderr, "test_kop_real: FAIL: too few samples attributed to kop_spin\n");
		err = 1;
	}
	if (st.nr_bad_records) {
		fprintf(stderr, "test_kop_real: FAIL: bad records from the kernel\n");
		err = 1;
	}
	kop_stats_release(&st);

err_session:
	kop_session_free(s);
	free(buf);
	return err ? err : pid_mode(self);
}
