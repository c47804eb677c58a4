/* kmod unit tests, the event stream's side: the event buffer's read
 * contract (a read never splits a sample, cuts at sync marks, a blocked
 * reader wakes at a sync's end), the tests' own stream walker, and
 * garbage in the rings that the sync must count, skip and survive. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "kop_evbuf.h"
#include "kop_fixture.h"
#include "kop_task.h"
#include "op_kernel.h"
#include "stream_walk.h"
#include "testutil.h"

/* ---- the event buffer's read contract ---- */

static void test_read_never_splits(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr ev = cpu_clock();
	unsigned char rec[4096];
	uint64_t buf[64];
	ssize_t n;

	fx_start(fx, &ev, 1, 0, 0);
	put_ring(fx, 0, SIDEBAND_RING, rec, fake_mmap2(rec, 42, 0x1000, 0x1000, 0, 8, 1, 9, "/bin/z", 1));
	put(fx, 0, rec, fake_sample(rec, false, 42, 42, 2, 0x1008));
	put(fx, 0, rec, fake_sample(rec, false, 42, 42, 3, 0x1008));
	assert_int_equal(kop_session_sync(fx->s), 0);
	/* CPU(0) is 3 words, CTX 4 + TGID 3: max 5 takes only CPU_SWITCH */
	assert_int_equal(kop_evbuf_read(fx->s, buf, KOP_EVBUF_MIN_READ - 1, 0), -EINVAL);
	n = kop_evbuf_read(fx->s, buf, 5, 0);
	assert_int_equal(n, 3);
	assert_int_equal(buf[1], OP_CPU_SWITCH);
	n = kop_evbuf_read(fx->s, buf, 6, 0);
	assert_int_equal(n, 4);		/* CTX_SWITCH, not half of TGID */
	assert_int_equal(buf[1], OP_CTX_SWITCH);
	n = kop_evbuf_read(fx->s, buf, 6, 0);
	assert_int_equal(n, 3 + 2);	/* CTX_TGID, USER_ENTER */
	/* COOKIE_SWITCH 3, then SAMPLE_COUNT 2 (3) and its sample (2): a
	 * read of 7 stops after the cookie, not between count and sample */
	n = kop_evbuf_read(fx->s, buf, 7, 0);
	assert_int_equal(n, 3);
	assert_int_equal(buf[1], OP_COOKIE_SWITCH);
	n = kop_evbuf_read(fx->s, buf, KOP_EVBUF_MIN_READ, 0);
	assert_int_equal(n, 3 + 2);
	assert_int_equal(buf[1], OP_SAMPLE_COUNT);
	assert_int_equal(buf[2], 2);
	assert_int_equal(buf[3], 8);
	/* nothing left: a timed read times out with 0 */
	assert_int_equal(kop_evbuf_read(fx->s, buf, 64, 20), 0);
	assert_int_equal(kop_session_stop(fx->s), 0);
	assert_int_equal(kop_evbuf_read(fx->s, buf, 64, -1), -EPIPE);
}

/* A read of less than all stops at a mark the writer set at the end of a
 * whole sample, not after a walk over the words; compaction keeps the
 * marks on the same words. */
static void test_read_cuts_at_marks(void **state)
{
	struct kop_evbuf b;
	uint64_t *got = malloc(40000 * sizeof(*got)), buf[5000];
	size_t nr_got = 0, w = 0;
	ssize_t n;

	(void)state;
	assert_non_null(got);
	assert_int_equal(kop_evbuf_init(&b, 30000, 1), 0);
	pthread_mutex_lock(&b.lock);
	for (; w < 12000; w++) {	/* samples: offset, event 0 */
		assert_true(kop_evbuf_room(&b, 2));
		kop_evbuf_put(&b, w);
		kop_evbuf_put(&b, 0);
		kop_evbuf_mark(&b);
	}
	pthread_mutex_unlock(&b.lock);
	assert_true(b.nr_marks > 8);
	for (int i = 0; i < 3; i++) {
		n = kop_evbuf_read_words(&b, buf, 5000, 0);
		/* marks at 2048, 4096...: the last that fits, not 5000 */
		assert_int_equal(n, 2 * KOP_EVBUF_MARK_STEP);
		assert_int_equal(n % 2, 0);
		memcpy(got + nr_got, buf, (size_t)n * sizeof(*buf));
		nr_got += (size_t)n;
	}
	/* more than the room at the end: the writer compacts */
	pthread_mutex_lock(&b.lock);
	for (; w < 18000; w++) {
		assert_true(kop_evbuf_room(&b, 2));
		kop_evbuf_put(&b, w);
		kop_evbuf_put(&b, 0);
		kop_evbuf_mark(&b);
	}
	pthread_mutex_unlock(&b.lock);
	while ((n = kop_evbuf_read_words(&b, buf, 5000, 0)) > 0) {
		assert_int_equal(n % 2, 0);
		memcpy(got + nr_got, buf, (size_t)n * sizeof(*buf));
		nr_got += (size_t)n;
	}
	assert_int_equal(nr_got, 2 * w);
	for (size_t i = 0; i < w; i++) {
		assert_int_equal(got[2 * i], i);
		assert_int_equal(got[2 * i + 1], 0);
	}
	assert_int_equal(b.nr_marks, 0);
	kop_evbuf_release(&b);
	free(got);
}

struct reader_arg {
	struct kop_session *s;
	ssize_t n;
	uint64_t buf[64];
};

static void *blocking_reader(void *p)
{
	struct reader_arg *a = p;

	a->n = kop_evbuf_read(a->s, a->buf, 64, -1);
	return NULL;
}

static void test_blocking_read_wakes_at_sync_end(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr ev = cpu_clock();
	unsigned char rec[4096];
	struct reader_arg a = { 0 };
	pthread_t t;

	fx_start(fx, &ev, 1, 0, 0);
	a.s = fx->s;
	assert_int_equal(pthread_create(&t, NULL, blocking_reader, &a), 0);
	put(fx, 1, rec, fake_sample(rec, true, 0, 0, 2, KTEXT + 4));
	assert_int_equal(kop_session_sync(fx->s), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(a.n, 3 + 7 + 2 + 2);
	assert_int_equal(a.buf[2], 1);
	assert_int_equal(a.buf[a.n - 2], KTEXT + 4);
}

/* The tests' stream walker must refuse what the decoder would count as
 * bad, or the checks built on it prove nothing. */
static void test_stream_walk(void **state)
{
	static const uint64_t good[] = { CPU(1), CTX(7, 3, 6), USER, COOKIE(4),
					  0x10, 0, DROPPED(5), KERN, KTEXT, 1 };
	static const uint64_t unknown[] = { CPU(0), 0x10, 0, ESC, OP_NR_CODES, 0x10, 0 };
	static const uint64_t cut_escape[] = { 0x10, 0, ESC, OP_CTX_SWITCH, 7 };
	static const uint64_t cut_sample[] = { CPU(0), 0x10 };
	struct stream_state st = { 0 };
	size_t bad = 0;

	assert_int_equal(stream_walk(&st, good, sizeof(good) / sizeof(good[0]),
				     NULL, NULL, &bad), 0);
	assert_int_equal(st.cpu, 1);
	assert_int_equal(st.tid, 7);
	assert_int_equal(st.app, 3);
	assert_int_equal(st.tgid, 6);
	assert_int_equal(st.cookie, 4);
	assert_true(st.kernel);
	assert_int_equal(st.nr_samples, 2);
	assert_int_equal(st.nr_dropped, 5);

	memset(&st, 0, sizeof(st));
	assert_int_equal(stream_walk(&st, unknown, sizeof(unknown) / sizeof(unknown[0]),
				     NULL, NULL, &bad), -EINVAL);
	assert_int_equal(bad, 5);
	assert_int_equal(st.nr_samples, 1);
	assert_int_equal(stream_walk(&st, cut_escape, sizeof(cut_escape) / sizeof(cut_escape[0]),
				     NULL, NULL, &bad), -EINVAL);
	assert_int_equal(bad, 2);
	assert_int_equal(stream_walk(&st, cut_sample, sizeof(cut_sample) / sizeof(cut_sample[0]),
				     NULL, NULL, &bad), -EINVAL);
	assert_int_equal(bad, 3);
	(void)state;
}

/* ---- garbage in the rings ---- */

/* Records of every type and random bodies, sizes and misc bits, as a
 * confused or hostile ring could hold: the sync must count, skip, keep
 * going, and write a stream that decodes. */
static void test_garbage_records(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr ev = cpu_clock();
	unsigned char rec[4096];
	uint32_t x = 2463534242u;
	uint64_t buf[4096];
	ssize_t n;
	struct kop_stats st;
	struct stream_state walk = { 0 };
	unsigned long nr_written = 0;

	fx_start(fx, &ev, 1, 0, 0);
	for (int round = 0; round < 20; round++) {
		for (unsigned int ring = 0; ring < 2; ring++) {
			struct fake_ring *r = fake_find(&fx->src, round & 1, ring);

			for (;;) {
				struct perf_event_header h;
				size_t size;

				x ^= x << 13, x ^= x >> 17, x ^= x << 5;
				size = 8 + 8 * (x % 40);
				for (size_t i = 0; i < size; i++) {
					x ^= x << 13, x ^= x >> 17, x ^= x << 5;
					rec[i] = (unsigned char)x;
				}
				h.type = x % 24;
				h.misc = (uint16_t)(x >> 8);
				h.size = (uint16_t)size;
				memcpy(rec, &h, sizeof(h));
				if (!fake_write(r, rec, size))
					break;
				nr_written++;
			}
		}
		assert_int_equal(kop_session_sync(fx->s), 0);
		while ((n = kop_evbuf_read(fx->s, buf, 4096, 0)) > 0)
			assert_int_equal(stream_walk(&walk, buf, (size_t)n,
						     NULL, NULL, NULL), 0);
	}
	assert_int_equal(kop_stats_get(fx->s, &st), 0);
	assert_true(nr_written > 1000);
	assert_true(st.nr_bad_records > 0);
	kop_stats_release(&st);
	/* and it still works */
	put(fx, 0, rec, fake_sample(rec, true, 0, 0, UINT64_MAX - 1, KTEXT));
	assert_int_equal(kop_session_stop(fx->s), 0);
	assert_int_equal(kop_stats_get(fx->s, &st), 0);
	assert_true(st.nr_kernel_samples > 0);
	kop_stats_release(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_never_splits, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_blocking_read_wakes_at_sync_end, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_garbage_records, fx_setup, fx_teardown),
		cmocka_unit_test(test_stream_walk),
		cmocka_unit_test(test_read_cuts_at_marks),
	};

	return _cmocka_run_group_tests("kmod evbuf", tests, sizeof(tests) / sizeof(tests[0]),
				       NULL, NULL);
}
