/* Stress: one producer thread per fake CPU writes samples into its ring
 * as fast as it can while the sync thread runs every millisecond and a
 * reader drains the event buffer. When a ring is full the producer does
 * what the kernel does: counts the loss and writes a PERF_RECORD_LOST as
 * soon as there is room. At the end, every sample written is either read
 * from the stream or counted lost (ring or event buffer), exactly.
 * Built and run under ThreadSanitizer too (TSAN_TESTS). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "fake_ring.h"
#include "kop.h"
#include "stream_walk.h"
#include "testutil.h"

#define NR_CPUS 3
#define PER_CPU 200000

struct producer {
	struct fake_ring *ring;
	int cpu;
	uint64_t nr_written;	/* samples attempted */
};

static void *produce(void *arg)
{
	struct producer *p = arg;
	unsigned char rec[128];
	uint64_t pending_lost = 0, time = 1;
	size_t n;

	for (uint64_t i = 0; i < PER_CPU; i++) {
		if (pending_lost) {
			n = fake_lost(rec, pending_lost, time);
			if (fake_write(p->ring, rec, n))
				pending_lost = 0;
		}
		/* user samples of pid 10 (one mapping) and kernel ones */
		n = fake_sample(rec, i % 3 == 0, 10, 10 + (uint32_t)(i % 2), time++,
				i % 3 == 0 ? 0xffffffff81000100ULL : 0x400000 + i % 4096);
		p->nr_written++;
		if (!fake_write(p->ring, rec, n))
			pending_lost++;
	}
	while (pending_lost) {
		n = fake_lost(rec, pending_lost, time);
		if (fake_write(p->ring, rec, n))
			pending_lost = 0;
	}
	return NULL;
}

struct reader {
	struct kop_session *s;
	struct stream_state st;	/* samples, and DROPPED words seen */
	int bad;
};

static void *consume(void *arg)
{
	struct reader *r = arg;
	uint64_t buf[8192];
	ssize_t n;

	while ((n = kop_evbuf_read(r->s, buf, 8192, 50)) >= 0)
		if (stream_walk(&r->st, buf, (size_t)n, NULL, NULL, NULL))
			r->bad++;
	if (n != -EPIPE)
		r->bad++;
	return NULL;
}

static void test_stress(void **state)
{
	char *dir = tu_mkdtemp();
	char *maps_dir, *maps;
	static const char map_line[] = "00400000-00401000 r-xp 00000000 08:01 3 /bin/stress\n";
	static const char ksyms[] = "ffffffff81000000 T _text\nffffffff82000000 T _etext\n";
	struct fake_src src = { .nr_cpus = NR_CPUS };
	struct perf_event_attr ev = { .size = sizeof(ev), .type = PERF_TYPE_SOFTWARE,
				      .config = PERF_COUNT_SW_CPU_CLOCK,
				      .sample_period = 100000 };
	struct kop_config cfg = {
		.events = &ev, .nr_events = 1, .pid = -1,
		.cpu_buffer_size = 64 * 1024, .evbuf_words = 16384,
		.evbuf_watershed = 4096, .sync_interval_ms = 1,
		.ops = &fake_ops, .ops_ctx = &src,
	};
	struct kop_session *s;
	struct producer prod[NR_CPUS];
	pthread_t pt[NR_CPUS], rt;
	struct reader rd = { 0 };
	struct kop_stats st;
	uint64_t written = 0;

	assert_non_null(dir);
	cfg.proc_root = dir;
	maps_dir = tu_path(dir, "10");
	maps = tu_path(dir, "10/maps");
	assert_int_equal(mkdir(maps_dir, 0755), 0);
	assert_int_equal(tu_write_file(maps, map_line, strlen(map_line)), 0);
	free(maps);
	maps = tu_path(dir, "kallsyms");
	assert_int_equal(tu_write_file(maps, ksyms, strlen(ksyms)), 0);

	assert_int_equal(kop_session_new(&cfg, &s), 0);
	assert_int_equal(kop_session_start(s), 0);
	rd.s = s;
	assert_int_equal(pthread_create(&rt, NULL, consume, &rd), 0);
	for (int c = 0; c < NR_CPUS; c++) {
		prod[c] = (struct producer){ fake_find(&src, c, 0), c, 0 };
		assert_non_null(prod[c].ring);
		assert_int_equal(pthread_create(&pt[c], NULL, produce, &prod[c]), 0);
	}
	for (int c = 0; c < NR_CPUS; c++) {
		assert_int_equal(pthread_join(pt[c], NULL), 0);
		written += prod[c].nr_written;
	}
	assert_int_equal(kop_session_sync(s), 0);
	assert_int_equal(kop_session_stop(s), 0);
	assert_int_equal(pthread_join(rt, NULL), 0);
	assert_int_equal(kop_stats_get(s, &st), 0);
	print_message("stress: written %llu read %llu lost_ring %llu lost_evbuf %llu\n",
		      (unsigned long long)written, (unsigned long long)rd.st.nr_samples,
		      (unsigned long long)st.nr_lost_ring,
		      (unsigned long long)st.nr_lost_evbuf);
	assert_int_equal(rd.bad, 0);
	assert_int_equal(rd.st.nr_samples, st.nr_samples);
	assert_int_equal(rd.st.nr_samples + st.nr_lost_ring + st.nr_lost_evbuf, written);
	assert_int_equal(st.nr_lost_no_task, 0);
	assert_int_equal(st.nr_bad_records, 0);
	/* DROPPED in the stream carries the ring losses that reached it */
	assert_true(rd.st.nr_dropped <= st.nr_lost_ring);
	kop_stats_release(&st);
	kop_session_free(s);
	tu_rm_rf(dir);
	free(maps);
	free(maps_dir);
	free(dir);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
