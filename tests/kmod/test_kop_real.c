/* kmod against the real kernel: cpu-clock on every CPU, system-wide, while
 * a known program (kop_spin, built next to this test) runs; its samples
 * must arrive under its pid with the cookie of its binary. Skips (77)
 * when not root, unless OPSAMPLER_REQUIRE_PERF=1 says it must run. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kop.h"
#include "op_proto.h"
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

int main(void)
{
	struct perf_event_attr ev = { 0 };
	struct kop_config cfg = { 0 };
	struct kop_session *s;
	struct kop_stats st;
	char self[PATH_MAX], spin[PATH_MAX + 16], *slash;
	uint64_t *buf;
	size_t nr = 0, cap = 1 << 22;
	ssize_t n, len;
	pid_t child;
	int err, status;
	/* decoder state */
	uint64_t tgid = 0, cookie = 0, app = 0, spin_cookie = 0;
	int kernel = 0;
	unsigned long nr_child = 0, nr_child_spin = 0, nr_child_app = 0,
		      nr_total = 0;

	if (geteuid() != 0)
		return skip_or_fail("not root: cannot profile system-wide");
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 1;
	self[len] = '\0';
	slash = strrchr(self, '/');
	*slash = '\0';
	snprintf(spin, sizeof(spin), "%s/kop_spin", self);
	if (!realpath(spin, self)) {
		fprintf(stderr, "test_kop_real: FAIL: no %s\n", spin);
		return 1;
	}

	ev.size = sizeof(ev);
	ev.type = PERF_TYPE_SOFTWARE;
	ev.config = PERF_COUNT_SW_CPU_CLOCK;
	ev.sample_period = 100000;	/* 10 kHz */
	cfg.events = &ev;
	cfg.nr_events = 1;
	cfg.pid = -1;
	cfg.cpu_buffer_size = 1 << 20;
	cfg.evbuf_words = 1 << 22;
	cfg.proc_root = "/proc";
	cfg.log = (struct op_logger){ log_stderr, NULL, OP_LOG_WARN };
	if (kop_session_new(&cfg, &s))
		return 1;
	err = kop_session_start(s);
	if (err) {
		kop_session_free(s);
		return skip_or_fail("perf_event_open failed");
	}
	child = fork();
	if (child == 0) {
		execl(self, "kop_spin", "400", (char *)NULL);
		_exit(127);
	}
	waitpid(child, &status, 0);
	if (kop_session_sync(s) || kop_session_stop(s)) {
		fprintf(stderr, "test_kop_real: FAIL: sync/stop\n");
		return 1;
	}
	buf = malloc(cap * sizeof(*buf));
	while (buf && (n = kop_evbuf_read(s, buf + nr, cap - nr, 0)) > 0)
		nr += (size_t)n;
	/* decode: the stream contract of kop_sync.c */
	for (size_t i = 0; buf && i < nr;) {
		if (buf[i] == OP_ESCAPE_CODE) {
			uint64_t code = buf[i + 1];

			if (code == OP_CTX_SWITCH) {
				app = buf[i + 3];
			} else if (code == OP_CTX_TGID) {
				tgid = buf[i + 2];
			} else if (code == OP_COOKIE_SWITCH) {
				cookie = buf[i + 2];
			} else if (code == OP_KERNEL_ENTER) {
				kernel = 1;
			} else if (code == OP_USER_ENTER) {
				kernel = 0;
			}
			i += 2 + (size_t)op_code_nr_args(code);
			continue;
		}
		nr_total++;
		if (tgid == (uint64_t)child) {
			struct kop_dcookie_info info;

			nr_child++;
			if (!kernel && cookie != OP_NO_COOKIE && !spin_cookie &&
			    !kop_dcookie_lookup(s, cookie, &info) &&
			    !strcmp(info.path, self))
				spin_cookie = cookie;
			if (!kernel && cookie == spin_cookie && spin_cookie)
				nr_child_spin++;
			if (spin_cookie && app == spin_cookie)
				nr_child_app++;
		}
		i += OP_SAMPLE_WORDS;
	}
	kop_stats_get(s, &st);
	printf("test_kop_real: %lu samples, %lu of pid %d, %lu in %s, %lu with it as app; stats: samples %llu lost_ring %llu lost_evbuf %llu no_mapping %llu bad %llu\n",
	       nr_total, nr_child, (int)child, nr_child_spin, self,
	       nr_child_app, (unsigned long long)st.nr_samples,
	       (unsigned long long)st.nr_lost_ring,
	       (unsigned long long)st.nr_lost_evbuf,
	       (unsigned long long)st.nr_lost_no_mapping,
	       (unsigned long long)st.nr_bad_records);
	err = 0;
	if (nr_total != st.nr_samples) {
		fprintf(stderr, "test_kop_real: FAIL: stream has %lu samples, stats say %llu\n",
			nr_total, (unsigned long long)st.nr_samples);
		err = 1;
	}
	/* 400 ms at 10 kHz is ~4000 samples; ask for a tenth */
	if (nr_child_spin < 400 || nr_child_app < 400) {
		fprintf(stderr, "test_kop_real: FAIL: too few samples attributed to kop_spin\n");
		err = 1;
	}
	if (st.nr_bad_records) {
		fprintf(stderr, "test_kop_real: FAIL: bad records from the kernel\n");
		err = 1;
	}
	kop_stats_release(&st);
	free(buf);
	kop_session_free(s);
	return err;
}
