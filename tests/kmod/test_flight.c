/* The flight recorder in kmod: reading backward rings (kop_ring.c) over
 * in-memory rings of the kernel's layout, and snapshots of a session over
 * the fake source: the window cut by time, processes that exited inside
 * it resolved against their retired tables, and tables retired before it
 * freed. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_ring.h"
#include "kop.h"
#include "kop_ring.h"
#include "kop_session.h"
#include "op_proto.h"
#include "stream_walk.h"
#include "testutil.h"

/* ---- backward rings ---------------------------------------------------- */

struct ring_fx {
	struct fake_src src;
	struct kop_ring r;
	int h;
};

/* One backward ring of data bytes. */
static void ring_open(struct ring_fx *fx, size_t data)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *base;

	memset(fx, 0, sizeof(*fx));
	fx->src.nr_cpus = 1;
	fx->h = fake_ops.open(&fx->src, &a, -1, 0);
	assert_true(fx->h >= 0);
	base = fake_ops.map(&fx->src, fx->h, page + data, false);
	assert_non_null(base);
	assert_int_equal(kop_ring_init(&fx->r, base, page + data), 0);
}

static void ring_close(struct ring_fx *fx)
{
	kop_ring_release(&fx->r);
	free(fx->src.rings[fx->h].mem);
}

/* A record of size bytes (a multiple of 8, >= 32) whose time is t. */
static void put_rec(struct ring_fx *fx, size_t size, uint64_t t)
{
	unsigned char buf[4096];

	assert_true(size <= sizeof(buf));
	assert_int_equal(fake_raw(buf, PERF_RECORD_SAMPLE, size, t), size);
	/* fake_raw stamps the trailer; a sample's time is at offset 24 */
	memcpy(buf + 24, &t, sizeof(t));
	assert_true(fake_write_backward(&fx->src.rings[fx->h], buf, size));
}

/* Walk the ring; the records' times into t (newest first). */
static size_t walk(struct ring_fx *fx, uint64_t *t, size_t max, bool *bad_out)
{
	const struct perf_event_header *h;
	struct kop_bwd it;
	size_t n = 0;
	uint64_t pos;
	bool bad = false;

	kop_ring_bwd_begin(&it, &fx->r);
	while ((h = kop_ring_bwd_next(&it, &pos, &bad))) {
		assert_true(n < max);
		memcpy(&t[n], (const unsigned char *)h + 24, sizeof(t[n]));
		/* the same record again by its position */
		assert_memory_equal(kop_ring_bwd_at(&fx->r, pos), h, h->size);
		n++;
	}
	if (bad_out)
		*bad_out = bad;
	return n;
}

static void test_bwd_partly_filled(void **state)
{
	struct ring_fx fx;
	uint64_t t[16];
	bool bad;

	(void)state;
	ring_open(&fx, 4096);
	assert_int_equal(walk(&fx, t, 16, &bad), 0);	/* empty */
	assert_int_equal(kop_ring_bwd_used(&fx.r), 0);
	for (uint64_t i = 1; i <= 3; i++)
		put_rec(&fx, 32, 100 * i);
	assert_int_equal(walk(&fx, t, 16, &bad), 3);
	assert_false(bad);
	assert_int_equal(t[0], 300);
	assert_int_equal(t[1], 200);
	assert_int_equal(t[2], 100);
	assert_int_equal(kop_ring_bwd_used(&fx.r), 96);
	ring_close(&fx);
}

static void test_bwd_wrapped(void **state)
{
	struct ring_fx fx;
	uint64_t t[256];
	size_t n;

	(void)state;
	ring_open(&fx, 4096);
	for (uint64_t i = 1; i <= 200; i++)
		put_rec(&fx, 32, i);
	/* exactly a ring of the newest: 4096 / 32 */
	n = walk(&fx, t, 256, NULL);
	assert_int_equal(n, 128);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(t[i], 200 - i);
	assert_int_equal(kop_ring_bwd_used(&fx.r), 4096);
	ring_close(&fx);
}

/* 48-byte records do not divide the ring: the oldest one left is partly
 * overwritten by the newest and is not returned; records that straddle
 * the data area's end come back whole. */
static void test_bwd_cut_at_boundary(void **state)
{
	struct ring_fx fx;
	uint64_t t[256];
	size_t n;

	(void)state;
	ring_open(&fx, 4096);
	for (uint64_t i = 1; i <= 300; i++)
		put_rec(&fx, 48, i);
	n = walk(&fx, t, 256, NULL);
	assert_int_equal(n, 4096 / 48);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(t[i], 300 - i);
	ring_close(&fx);
}

static void test_bwd_bad_header(void **state)
{
	struct ring_fx fx;
	uint64_t t[16];
	unsigned char junk[32];
	bool bad;

	(void)state;
	ring_open(&fx, 4096);
	put_rec(&fx, 32, 1);
	memset(junk, 0, sizeof(junk));
	junk[6] = 12;		/* size 12: not a multiple of 8 */
	assert_true(fake_write_backward(&fx.src.rings[fx.h], junk, sizeof(junk)));
	put_rec(&fx, 32, 3);
	assert_int_equal(walk(&fx, t, 16, &bad), 1);
	assert_true(bad);
	assert_int_equal(t[0], 3);
	ring_close(&fx);
}

/* ---- snapshots of a session ------------------------------------------ */

#define S 1000000000ULL
#define WINDOW (1 * S)

struct fixture {
	char *dir;
	struct fake_src src;
	struct kop_session *s;
	uint64_t t0;
};

static void capture(void *ctx, enum op_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	(void)msg;
}

static int fx_setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct perf_event_attr a = { .size = sizeof(a) };
	struct kop_config cfg = {
		.events = &a, .nr_events = 1, .pid = -1,
		.cpu_buffer_size = 16384, .sync_interval_ms = 600000,
		.flight_window_ns = WINDOW,
		.ops = &fake_ops,
		.log = { capture, NULL, OP_LOG_DEBUG },
	};

	assert_non_null(fx);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;
	fx->dir = tu_mkdtemp();
	assert_non_null(fx->dir);
	fx->src.nr_cpus = 2;
	cfg.proc_root = fx->dir;
	cfg.ops_ctx = &fx->src;
	assert_int_equal(kop_session_new(&cfg, &fx->s), 0);
	assert_int_equal(kop_session_start(fx->s), 0);
	/* every record is stamped before now, as the kernel's are */
	fx->t0 = kop_now_ns();
	*state = fx;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fixture *fx = *state;

	kop_session_free(fx->s);
	for (int i = 0; i < fx->src.nr_rings; i++)
		assert_null(fx->src.rings[i].mem);
	tu_rm_rf(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

/* each CPU's rings: the event's (backward), then the side-band one */
static void side(struct fixture *fx, int cpu, const void *rec, size_t size)
{
	struct fake_ring *r = fake_find(&fx->src, cpu, 1);

	assert_non_null(r);
	assert_false(r->backward);
	assert_true(fake_write(r, rec, size));
}

static void sample(struct fixture *fx, int cpu, uint32_t pid, uint64_t ago,
		   uint64_t ip)
{
	struct fake_ring *r = fake_find(&fx->src, cpu, 0);
	unsigned char buf[4096];
	size_t n = fake_sample(buf, false, pid, pid, fx->t0 - ago, ip);

	assert_non_null(r);
	assert_true(r->backward);
	assert_true(fake_write_backward(r, buf, n));
}

struct seen {
	struct kop_session *s;
	unsigned int nr;
	uint64_t tgid[16], pc[16];
	char path[16][64];
};

static void on_sample(void *ctx, const struct stream_state *st, uint64_t pc,
		      uint64_t event)
{
	struct seen *v = ctx;
	struct kop_dcookie_info info;

	(void)event;
	assert_true(v->nr < 16);
	v->tgid[v->nr] = st->tgid;
	v->pc[v->nr] = pc;
	if (!kop_dcookie_lookup(v->s, st->cookie, &info))
		snprintf(v->path[v->nr], sizeof(v->path[0]), "%s", info.path);
	v->nr++;
}

/* Take a snapshot and walk what it wrote. */
static void snap_walk(struct fixture *fx, struct seen *v, struct kop_snapshot *snap)
{
	struct stream_state st = { 0 };
	uint64_t words[4096];
	ssize_t n;

	memset(v, 0, sizeof(*v));
	v->s = fx->s;
	assert_int_equal(kop_session_snapshot(fx->s, snap), 0);
	while ((n = kop_evbuf_read(fx->s, words, 4096, 0)) > 0)
		assert_int_equal(stream_walk(&st, words, (size_t)n, on_sample, v, NULL), 0);
}

static size_t map(void *buf, uint32_t pid, uint64_t ago, struct fixture *fx)
{
	return fake_mmap2(buf, pid, 0x400000, 0x1000, 0, 8, 1, 11, "/bin/prog",
			  fx->t0 - ago);
}

/* A process exec'd long ago samples before and inside the window; its
 * child forks, samples and exits inside the window: the snapshot holds
 * the samples of the window alone, the exited child's in /bin/prog. */
static void test_snapshot_window(void **state)
{
	struct fixture *fx = *state;
	struct kop_snapshot snap;
	unsigned char buf[4096];
	struct seen v;

	side(fx, 0, buf, fake_comm(buf, true, 800, "prog", fx->t0 - 5 * S));
	side(fx, 0, buf, map(buf, 800, 5 * S - 1, fx));
	sample(fx, 0, 800, 3 * S, 0x400010);			/* before the window */
	side(fx, 1, buf, fake_task(buf, false, 900, 800, fx->t0 - S / 2));
	sample(fx, 1, 900, S / 4, 0x400020);
	side(fx, 1, buf, fake_task(buf, true, 900, 800, fx->t0 - S / 5));
	sample(fx, 0, 800, S / 10, 0x400030);

	snap_walk(fx, &v, &snap);
	assert_int_equal(snap.nr_samples, 2);
	assert_int_equal(snap.to_ns - snap.from_ns, WINDOW);
	assert_true(snap.to_ns >= fx->t0);
	assert_int_equal(v.nr, 2);
	/* CPU by CPU: cpu 0's sample of 800, then the child's on cpu 1 */
	assert_int_equal(v.tgid[0], 800);
	assert_int_equal(v.pc[0], 0x30);
	assert_string_equal(v.path[0], "/bin/prog");
	assert_int_equal(v.tgid[1], 900);
	assert_int_equal(v.pc[1], 0x20);
	assert_string_equal(v.path[1], "/bin/prog");

	/* recording went on: a second snapshot is its own last window, the
	 * same samples and a new one */
	fx->t0 = kop_now_ns();
	sample(fx, 1, 800, 0, 0x400040);
	snap_walk(fx, &v, &snap);
	assert_int_equal(v.nr, 3);
	assert_int_equal(snap.nr_samples, 3);
}

/* The rings are read one after the other: a kernel sample of a process
 * after its exit, on cpu 0, comes before its user samples on cpu 1. It
 * goes to the application the process exited as, and the user samples
 * still find the table it exited with. */
static void test_after_exit_first(void **state)
{
	struct fixture *fx = *state;
	struct kop_snapshot snap;
	unsigned char buf[4096];
	struct fake_ring *r = fake_find(&fx->src, 0, 0);
	struct seen v;

	side(fx, 0, buf, fake_comm(buf, true, 800, "prog", fx->t0 - 5 * S));
	side(fx, 0, buf, map(buf, 800, 5 * S - 1, fx));
	side(fx, 1, buf, fake_task(buf, false, 950, 800, fx->t0 - S / 2));
	sample(fx, 1, 950, S / 3, 0x400050);
	side(fx, 1, buf, fake_task(buf, true, 950, 800, fx->t0 - S / 4));
	assert_true(fake_write_backward(r, buf, fake_sample(buf, true, 950, 950,
							     fx->t0 - S / 5,
							     0xffffffff81000100ULL)));
	snap_walk(fx, &v, &snap);
	assert_int_equal(v.nr, 2);
	assert_int_equal(v.tgid[0], 950);	/* the kernel sample, cpu 0 */
	assert_int_equal(v.tgid[1], 950);
	assert_int_equal(v.pc[1], 0x50);
	assert_string_equal(v.path[1], "/bin/prog");
}

/* Tables retired by exit stay for a window after the exit and no
 * longer: a sync frees those retired before now minus the window. */
static void test_retired_by_window(void **state)
{
	struct fixture *fx = *state;
	unsigned char buf[4096];

	side(fx, 0, buf, fake_comm(buf, true, 800, "prog", fx->t0 - 5 * S));
	side(fx, 0, buf, map(buf, 800, 5 * S - 1, fx));
	side(fx, 0, buf, fake_task(buf, false, 901, 800, fx->t0 - 4 * S));
	side(fx, 0, buf, fake_task(buf, true, 901, 800, fx->t0 - 3 * S));	/* long gone */
	side(fx, 0, buf, fake_task(buf, false, 902, 800, fx->t0 - S / 2));
	side(fx, 0, buf, fake_task(buf, true, 902, 800, fx->t0 - S / 4));	/* in the window */
	assert_int_equal(kop_session_sync(fx->s), 0);
	/* the sync thread has stopped touching the table until woken */
	assert_int_equal(fx->s->sync.tasks.nr_retired, 1);
	assert_non_null(kop_task_retired_at(&fx->s->sync.tasks, 902, fx->t0 - S / 3));
	assert_null(kop_task_retired_at(&fx->s->sync.tasks, 901, fx->t0 - 7 * S / 2));
}

/* What a snapshot's pause loses comes after its window: not its loss, but
 * that of every later window that holds the pause, until one starts after
 * it. Pauses beyond KOP_PAUSE_LOG within one window forget the oldest. */
static void test_pause_loss_in_later_window(void **state)
{
	struct fixture *fx = *state;
	struct kop_snapshot a, b, c, d;
	struct seen v;

	fx->src.lost_on_pause = 3;
	snap_walk(fx, &v, &a);
	assert_int_equal(a.nr_lost_paused, 3 * fx->src.nr_cpus);
	assert_int_equal(a.nr_lost_in_window, 0);
	snap_walk(fx, &v, &b);
	assert_int_equal(b.nr_lost_paused, 3 * fx->src.nr_cpus);
	assert_int_equal(b.nr_lost_in_window, a.nr_lost_paused);
	fx->src.lost_on_pause = 0;
	snap_walk(fx, &v, &c);
	assert_int_equal(c.nr_lost_paused, 0);
	assert_int_equal(c.nr_lost_in_window, a.nr_lost_paused + b.nr_lost_paused);
	/* both pauses a window and more ago: no later window holds them */
	for (size_t i = 0; i < fx->s->nr_pause_log; i++)
		fx->s->pause_log[i].at_ns -= 2 * WINDOW;
	snap_walk(fx, &v, &d);
	assert_int_equal(d.nr_lost_in_window, 0);
	assert_int_equal(fx->s->nr_pause_log, 0);
	/* more pauses than it keeps: the newest KOP_PAUSE_LOG count */
	fx->src.lost_on_pause = 1;
	for (int i = 0; i < KOP_PAUSE_LOG + 6; i++)
		snap_walk(fx, &v, &d);
	assert_int_equal(fx->s->nr_pause_log, KOP_PAUSE_LOG);
	fx->src.lost_on_pause = 0;
	snap_walk(fx, &v, &d);
	assert_int_equal(d.nr_lost_in_window,
			 (uint64_t)KOP_PAUSE_LOG * fx->src.nr_cpus);
}

/* Snapshots of a session that is not a flight recorder are refused. */
static void test_not_flight(void **state)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	struct fake_src src = { .nr_cpus = 1 };
	struct kop_config cfg = {
		.events = &a, .nr_events = 1, .pid = -1,
		.sync_interval_ms = 600000, .ops = &fake_ops, .ops_ctx = &src,
		.log = { capture, NULL, OP_LOG_DEBUG },
	};
	struct kop_session *s;
	struct kop_snapshot snap;
	char *dir = tu_mkdtemp();
	uint64_t fill[2], size;

	(void)state;
	cfg.proc_root = dir;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;
	assert_int_equal(kop_session_new(&cfg, &s), 0);
	assert_int_equal(kop_session_start(s), 0);
	assert_int_equal(kop_session_snapshot(s, &snap), -EINVAL);
	assert_int_equal(kop_session_flight_fill(s, fill, 2, &size), -EINVAL);
	assert_false(src.rings[0].backward);
	kop_session_free(s);
	tu_rm_rf(dir);
	free(dir);
}

/* How full each CPU's ring is, for --status. */
static void test_fill(void **state)
{
	struct fixture *fx = *state;
	uint64_t fill[4], size;

	sample(fx, 1, 800, 0, 0x400000);
	sample(fx, 1, 800, 0, 0x400000);
	assert_int_equal(kop_session_flight_fill(fx->s, fill, 4, &size), 2);
	assert_int_equal(size, 16384);
	assert_int_equal(fill[0], 0);
	assert_int_equal(fill[1], 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bwd_partly_filled),
		cmocka_unit_test(test_bwd_wrapped),
		cmocka_unit_test(test_bwd_cut_at_boundary),
		cmocka_unit_test(test_bwd_bad_header),
		cmocka_unit_test_setup_teardown(test_snapshot_window, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_after_exit_first, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_retired_by_window, fx_setup, fx_teardown),
		cmocka_unit_test(test_not_flight),
		cmocka_unit_test_setup_teardown(test_fill, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_pause_loss_in_later_window,
						fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
