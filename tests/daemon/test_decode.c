/* The daemon's decoder, image naming and sample-file cache, without kmod:
 * streams of words go in, sample files (or recorded samples) come out.
 *
 * - decoder alone: table-driven streams, every malformed case (unknown
 *   code, truncation at every position, sample before any context, event
 *   out of range, cpu out of range), resynchronisation, per-CPU context;
 * - decoder + images + files: one stream under every --separate setting,
 *   checked file by file, offset by offset, with the totals, so an extra or
 *   a missing count fails;
 * - the file cache: LRU eviction and reopen keep counts, an unwritable
 *   directory is counted and logged once, --image.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "odb.h"
#include "op_config.h"
#include "op_names.h"
#include "op_proto.h"
#include "opd_decode.h"
#include "opd_image.h"
#include "opd_sample.h"
#include "opd_sfile.h"
#include "testutil.h"

#define ESC OP_ESCAPE_CODE
#define KTEXT 0xffffffff81000000ULL
#define KMOD 0xffffffffa0000000ULL

/* ---- a recording sink for the decoder alone ---- */

struct rec {
	uint64_t pc;
	int cpu, tid, tgid;
	uint64_t app, cookie;
	bool kernel;
	uint32_t event;
};

struct sink {
	struct rec r[64];
	size_t n;
	size_t nr_modules;
	struct rec callers[16];
	size_t nr_callers;
	size_t nr_complete, nr_broken;	/* chains ended */
	uint64_t nr_counted;	/* samples, each call's n summed */
};

static void sink_sample(void *ctx, const struct opd_transient *t, uint64_t pc,
			uint32_t n)
{
	struct sink *s = ctx;

	assert_true(n >= 1);
	assert_true(n == 1 || t->trace == OPD_TRACE_NONE);
	s->nr_counted += n;

	/* whatever the stream, a delivered sample has its context */
	assert_true(t->cpu >= 0 && t->cpu < OPD_MAX_CPUS);
	assert_true(t->have_ctx);
	assert_true(t->in_kernel || t->cookie != OP_NO_COOKIE);
	assert_true(pc != ESC);
	if (s->n < 64)
		s->r[s->n] = (struct rec){ pc, t->cpu, t->tid, t->tgid,
					   t->app_cookie, t->cookie, t->in_kernel,
					   t->event };
	s->n++;
}

static void sink_module(void *ctx)
{
	((struct sink *)ctx)->nr_modules++;
}

static void sink_caller(void *ctx, const struct opd_transient *t, uint64_t pc)
{
	struct sink *s = ctx;

	assert_int_equal(t->trace, OPD_TRACE_CALLERS);
	assert_true(t->in_kernel || t->cookie != OP_NO_COOKIE);
	if (s->nr_callers < 16)
		s->callers[s->nr_callers] = (struct rec){ pc, t->cpu, t->tid, t->tgid,
							  t->app_cookie, t->cookie,
							  t->in_kernel, t->event };
	s->nr_callers++;
}

static void sink_trace_end(void *ctx, const struct opd_transient *t, bool complete)
{
	struct sink *s = ctx;

	(void)t;
	if (complete)
		s->nr_complete++;
	else
		s->nr_broken++;
}

static const struct opd_decode_ops sink_ops = {
	.sample = sink_sample,
	.module_loaded = sink_module,
	.caller = sink_caller,
	.trace_end = sink_trace_end,
};

/* log lines are counted so "logged once" can be checked */
struct logcount {
	int nr_warn;
	char last[512];
};

static void count_log(void *ctx, enum op_log_level level, const char *msg)
{
	struct logcount *lc = ctx;

	if (level <= OP_LOG_WARN)
		lc->nr_warn++;
	snprintf(lc->last, sizeof(lc->last), "%s", msg);
}

struct decode_case {
	const char *name;
	uint64_t w[40];
	size_t n;
	uint32_t nr_events;
	size_t nr_samples;	/* a SAMPLE_COUNT's n times */
	uint64_t nr_bad;
	struct rec first;	/* checked when nr_samples > 0 */
};

/* a complete user context: cpu 0, task 100 of app cookie 7, in image 9 */
#define CTX0 ESC, OP_CPU_SWITCH, 0, ESC, OP_CTX_SWITCH, 100, 7, ESC, OP_CTX_TGID, 100, \
	ESC, OP_COOKIE_SWITCH, 9
#define CTX0_N 13

static const struct decode_case decode_cases[] = {
	{ "one user sample", { CTX0, 0x10, 0 }, CTX0_N + 2, 1, 1, 0,
	  { 0x10, 0, 100, 100, 7, 9, false, 0 } },
	{ "sample before any context", { 0x10, 0, CTX0, 0x20, 0 }, CTX0_N + 4, 1, 1, 1,
	  { 0x20, 0, 100, 100, 7, 9, false, 0 } },
	{ "sample with a cpu but no task",
	  { ESC, OP_CPU_SWITCH, 1, 0x10, 0, CTX0, 0x20, 0 }, CTX0_N + 7, 1, 1, 1,
	  { 0x20, 0, 100, 100, 7, 9, false, 0 } },
	{ "user sample with no image cookie",
	  { ESC, OP_CPU_SWITCH, 0, ESC, OP_CTX_SWITCH, 5, 7, 0x10, 0 }, 9, 1, 0, 1, { 0 } },
	{ "unknown code, its words skipped",
	  { ESC, 99, 5, 6, CTX0, 0x10, 0 }, CTX0_N + 6, 1, 1, 1,
	  { 0x10, 0, 100, 100, 7, 9, false, 0 } },
	{ "code zero is unknown", { ESC, 0, CTX0, 0x10, 0 }, CTX0_N + 4, 1, 1, 1,
	  { 0x10, 0, 100, 100, 7, 9, false, 0 } },
	{ "event index out of range", { CTX0, 0x10, 3, CTX0, 0x20, 1 }, 2 * CTX0_N + 4, 2, 1, 1,
	  { 0x20, 0, 100, 100, 7, 9, false, 1 } },
	{ "cpu out of range", { ESC, OP_CPU_SWITCH, OPD_MAX_CPUS, 0x10, 0, CTX0, 0x20, 0 },
	  CTX0_N + 7, 1, 1, 1, { 0x20, 0, 100, 100, 7, 9, false, 0 } },
	{ "tid out of range", { ESC, OP_CPU_SWITCH, 0, ESC, OP_CTX_SWITCH, 1ULL << 40, 7, 0x10, 0 },
	  9, 1, 0, 1, { 0 } },
	{ "kernel sample needs no cookie",
	  { ESC, OP_CPU_SWITCH, 2, ESC, OP_CTX_SWITCH, 0, OP_NO_COOKIE, ESC, OP_KERNEL_ENTER,
	    KTEXT + 5, 0 }, 11, 1, 1, 0, { KTEXT + 5, 2, 0, 0, 0, 0, true, 0 } },
	{ "user enter after kernel", { CTX0, ESC, OP_KERNEL_ENTER, ESC, OP_USER_ENTER, 0x30, 0 },
	  CTX0_N + 6, 1, 1, 0, { 0x30, 0, 100, 100, 7, 9, false, 0 } },
	{ "tgid differs from tid",
	  { ESC, OP_CPU_SWITCH, 0, ESC, OP_CTX_SWITCH, 101, 7, ESC, OP_CTX_TGID, 100,
	    ESC, OP_COOKIE_SWITCH, 9, 0x10, 0 }, 15, 1, 1, 0,
	  { 0x10, 0, 101, 100, 7, 9, false, 0 } },
	{ "a call chain's callers are not samples",
	  { CTX0, ESC, OP_TRACE_BEGIN, 0x1, 0, 0x2, 0, ESC, OP_TRACE_END, 0x40, 0 },
	  CTX0_N + 10, 1, 2, 0, { 0x1, 0, 100, 100, 7, 9, false, 0 } },
	{ "double escape", { ESC, ESC, OP_CPU_SWITCH, 0, ESC, OP_CTX_SWITCH, 100, 7,
			     ESC, OP_COOKIE_SWITCH, 9, 0x10, 0 }, 13, 1, 1, 1,
	  { 0x10, 0, 100, 100, 7, 9, false, 0 } },
	{ "escape as the last word", { CTX0, 0x10, 0, ESC }, CTX0_N + 3, 1, 1, 1,
	  { 0x10, 0, 100, 100, 7, 9, false, 0 } },
	{ "sample cut by the end", { CTX0, 0x10 }, CTX0_N + 1, 1, 0, 1, { 0 } },
	{ "sample cut by an escape", { CTX0, 0x10, ESC, OP_USER_ENTER, 0x20, 0 }, CTX0_N + 5, 1, 1, 1,
	  { 0x20, 0, 100, 100, 7, 9, false, 0 } },
	{ "empty stream", { 0 }, 0, 1, 0, 0, { 0 } },
	{ "a counted sample", { CTX0, ESC, OP_SAMPLE_COUNT, 5, 0x10, 0, 0x20, 0 },
	  CTX0_N + 7, 1, 6, 0, { 0x10, 0, 100, 100, 7, 9, false, 0 } },
	{ "a count of one is out of range",
	  { CTX0, ESC, OP_SAMPLE_COUNT, 1, 0x10, 0, ESC, OP_USER_ENTER, 0x20, 0 },
	  CTX0_N + 9, 1, 1, 1, { 0x20, 0, 100, 100, 7, 9, false, 0 } },
	{ "a count past 32 bits is out of range",
	  { CTX0, ESC, OP_SAMPLE_COUNT, 1ULL << 32, 0x10, 0 }, CTX0_N + 5, 1, 0, 1, { 0 } },
	{ "a count with an escape after it, not a sample",
	  { CTX0, ESC, OP_SAMPLE_COUNT, 5, ESC, OP_USER_ENTER, 0x20, 0 }, CTX0_N + 7, 1, 1, 1,
	  { 0x20, 0, 100, 100, 7, 9, false, 0 } },
	{ "a count as the last sequence", { CTX0, 0x10, 0, ESC, OP_SAMPLE_COUNT, 5 },
	  CTX0_N + 5, 1, 1, 1, { 0x10, 0, 100, 100, 7, 9, false, 0 } },
	{ "a count before a chain is not the chain's",
	  { CTX0, ESC, OP_SAMPLE_COUNT, 3, ESC, OP_TRACE_BEGIN, 0x1, 0, 0x2, 0,
	    ESC, OP_TRACE_END }, CTX0_N + 11, 1, 1, 1,
	  { 0x1, 0, 100, 100, 7, 9, false, 0 } },
	{ "a count breaks a chain off, then counts its sample",
	  { CTX0, ESC, OP_TRACE_BEGIN, 0x1, 0, ESC, OP_SAMPLE_COUNT, 3, 0x2, 0 },
	  CTX0_N + 9, 1, 4, 1, { 0x1, 0, 100, 100, 7, 9, false, 0 } },
	{ "a counted sample with a bad event counts none",
	  { CTX0, ESC, OP_SAMPLE_COUNT, 3, 0x10, 4, 0x20, 0 }, CTX0_N + 7, 1, 0, 1, { 0 } },
};

static void run_decode_case(const struct decode_case *c)
{
	struct opd_decoder *dec = malloc(sizeof(*dec));
	struct sink s = { 0 };
	struct logcount lc = { 0 };
	struct op_logger lg = { count_log, &lc, OP_LOG_DEBUG };

	assert_non_null(dec);
	opd_decoder_init(dec, &sink_ops, &s, c->nr_events, &lg);
	opd_decode(dec, c->w, c->n);
	if (s.nr_counted != c->nr_samples || dec->nr_bad != c->nr_bad)
		fail_msg("case '%s': %llu samples (want %zu), %llu bad (want %llu)",
			 c->name, (unsigned long long)s.nr_counted, c->nr_samples,
			 (unsigned long long)dec->nr_bad, (unsigned long long)c->nr_bad);
	assert_int_equal(dec->nr_samples, c->nr_samples);
	if (c->nr_samples) {
		const struct rec *r = &s.r[0], *e = &c->first;

		if (r->pc != e->pc || r->cpu != e->cpu || r->tid != e->tid ||
		    r->tgid != e->tgid || r->app != e->app || r->kernel != e->kernel ||
		    r->event != e->event || (!e->kernel && r->cookie != e->cookie))
			fail_msg("case '%s': sample pc 0x%llx cpu %d tid %d tgid %d app %llu cookie %llu kernel %d event %u",
				 c->name, (unsigned long long)r->pc, r->cpu, r->tid, r->tgid,
				 (unsigned long long)r->app, (unsigned long long)r->cookie,
				 r->kernel, r->event);
	}
	/* each kind of bad sequence is logged once at most */
	assert_true((uint64_t)lc.nr_warn <= dec->nr_bad);
	free(dec);
}

/* TRACE_BEGIN, the sample, callers (with mode and image changes between
 * them), TRACE_END; and chains the stream breaks off. */
static void test_decode_chains(void **state)
{
	static const uint64_t w[] = {
		CTX0, ESC, OP_TRACE_BEGIN, ESC, OP_KERNEL_ENTER, KTEXT + 1, 0,
		KTEXT + 2, 0, ESC, OP_USER_ENTER, ESC, OP_COOKIE_SWITCH, 11,
		0x30, 0, ESC, OP_COOKIE_SWITCH, 12, 0x40, 0, ESC, OP_TRACE_END,
		/* a plain sample after it, in the last caller's image */
		0x50, 0,
		/* broken off by a task switch: counted, the next decodes */
		ESC, OP_TRACE_BEGIN, 0x60, 0, 0x70, 0,
		ESC, OP_CTX_SWITCH, 200, 7, ESC, OP_CTX_TGID, 200, ESC, OP_COOKIE_SWITCH, 9,
		0x80, 0,
		/* TRACE_END with no sample ends nothing */
		ESC, OP_TRACE_BEGIN, ESC, OP_TRACE_END, 0x90, 0,
	};
	struct opd_decoder *dec = malloc(sizeof(*dec));
	struct sink s = { 0 };
	struct logcount lc = { 0 };
	struct op_logger lg = { count_log, &lc, OP_LOG_DEBUG };

	(void)state;
	assert_non_null(dec);
	opd_decoder_init(dec, &sink_ops, &s, 1, &lg);
	opd_decode(dec, w, sizeof(w) / sizeof(w[0]));
	assert_int_equal(s.n, 5);	/* KTEXT+1, 0x50, 0x60, 0x80, 0x90 */
	assert_int_equal(s.r[0].pc, KTEXT + 1);
	assert_true(s.r[0].kernel);
	assert_int_equal(s.r[1].pc, 0x50);
	assert_int_equal(s.r[1].cookie, 12);
	assert_int_equal(s.r[3].pc, 0x80);
	assert_int_equal(s.r[3].tid, 200);
	assert_int_equal(s.r[4].pc, 0x90);
	assert_int_equal(s.nr_callers, 4);
	assert_int_equal(s.callers[0].pc, KTEXT + 2);
	assert_true(s.callers[0].kernel);
	assert_int_equal(s.callers[1].pc, 0x30);
	assert_false(s.callers[1].kernel);
	assert_int_equal(s.callers[1].cookie, 11);
	assert_int_equal(s.callers[2].pc, 0x40);
	assert_int_equal(s.callers[2].cookie, 12);
	assert_int_equal(s.callers[3].pc, 0x70);
	assert_int_equal(s.nr_complete, 1);
	assert_int_equal(s.nr_broken, 1);
	assert_int_equal(dec->nr_bad, 1);
	assert_int_equal(dec->nr_bad_kind[OPD_BAD_TRUNCATED], 1);
	assert_int_equal(dec->nr_samples, 5);
	assert_int_equal(dec->nr_callers, 4);
	free(dec);
}

static void test_decode_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(decode_cases) / sizeof(decode_cases[0]); i++)
		run_decode_case(&decode_cases[i]);
}

/* Cut a valid stream at every position: what comes before the cut is
 * either complete sequences (no bad) or one truncated sequence (one bad),
 * and decoding resynchronises on the complete stream that follows. */
static void test_decode_truncated_everywhere(void **state)
{
	static const uint64_t s[] = { ESC, OP_CPU_SWITCH, 3, ESC, OP_CTX_SWITCH, 42, 7,
				      ESC, OP_CTX_TGID, 40, ESC, OP_COOKIE_SWITCH, 9,
				      ESC, OP_DROPPED, 4, 0x10, 0, 0x11, 0 };
	/* positions where a complete sequence ends */
	static const size_t bounds[] = { 0, 3, 7, 10, 13, 16, 18, 20 };
	const size_t n = sizeof(s) / sizeof(s[0]);
	struct opd_decoder *dec = malloc(sizeof(*dec));

	(void)state;
	assert_non_null(dec);
	for (size_t cut = 0; cut <= n; cut++) {
		uint64_t w[2 * sizeof(s) / sizeof(s[0])];
		struct sink sk = { 0 };
		bool boundary = false;
		size_t before = 0;

		for (size_t b = 0; b < sizeof(bounds) / sizeof(bounds[0]); b++)
			boundary |= bounds[b] == cut;
		/* samples complete within the prefix (words 16-17, 18-19) */
		before = (cut >= 18) + (cut >= 20);

		/* alone: a cut inside a sequence is one bad, nothing else */
		opd_decoder_init(dec, &sink_ops, &sk, 1, NULL);
		opd_decode(dec, s, cut);
		if (dec->nr_bad != (boundary ? 0 : 1) || sk.n != before)
			fail_msg("cut at %zu alone: %llu bad, %zu samples", cut,
				 (unsigned long long)dec->nr_bad, sk.n);

		/* followed by the whole stream: resynchronised */
		memcpy(w, s, cut * sizeof(w[0]));
		memcpy(w + cut, s, n * sizeof(w[0]));
		memset(&sk, 0, sizeof(sk));
		opd_decoder_init(dec, &sink_ops, &sk, 1, NULL);
		opd_decode(dec, w, cut + n);
		if (dec->nr_bad != (boundary ? 0 : 1) || sk.n != before + 2)
			fail_msg("cut at %zu then stream: %llu bad, %zu samples", cut,
				 (unsigned long long)dec->nr_bad, sk.n);
		assert_int_equal(sk.r[sk.n - 1].cpu, 3);
		assert_int_equal(sk.r[sk.n - 1].tid, 42);
		assert_int_equal(sk.r[sk.n - 1].tgid, 40);
		assert_int_equal(sk.r[sk.n - 1].pc, 0x11);
		assert_int_equal(dec->nr_dropped, 4 * (1 + (cut >= 16)));
	}
	free(dec);
}

/* Each CPU's stream continues where its previous batch left it. */
static void test_decode_per_cpu_context(void **state)
{
	static const uint64_t w[] = {
		ESC, OP_CPU_SWITCH, 0, ESC, OP_CTX_SWITCH, 100, 7, ESC, OP_COOKIE_SWITCH, 9, 0x10, 0,
		ESC, OP_CPU_SWITCH, 1, ESC, OP_CTX_SWITCH, 200, 8, ESC, OP_KERNEL_ENTER, KTEXT, 0,
		ESC, OP_CPU_SWITCH, 0, 0x20, 0,
		ESC, OP_CPU_SWITCH, 1, KTEXT + 1, 0,
		ESC, OP_MODULE_LOADED,
	};
	struct opd_decoder *dec = malloc(sizeof(*dec));
	struct sink s = { 0 };

	(void)state;
	assert_non_null(dec);
	opd_decoder_init(dec, &sink_ops, &s, 1, NULL);
	opd_decode(dec, w, sizeof(w) / sizeof(w[0]));
	assert_int_equal(dec->nr_bad, 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.r[2].tid, 100);
	assert_int_equal(s.r[2].cookie, 9);
	assert_false(s.r[2].kernel);
	assert_int_equal(s.r[3].tid, 200);
	assert_true(s.r[3].kernel);
	assert_int_equal(s.nr_modules, 1);
	assert_int_equal(dec->nr_samples_cpu[0], 2);
	assert_int_equal(dec->nr_samples_cpu[1], 2);
	free(dec);
}

/* Random words never crash the decoder nor reach the sink without a
 * context (the sink asserts it). */
static void test_decode_random(void **state)
{
	struct opd_decoder *dec = malloc(sizeof(*dec));
	struct sink s = { 0 };
	static uint64_t w[1 << 16];
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	(void)state;
	assert_non_null(dec);
	opd_decoder_init(dec, &sink_ops, &s, 2, NULL);
	for (int round = 0; round < 20; round++) {
		for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* runs of valid context and samples, cut by noise:
			 * mostly small words and escapes, so codes get hit */
			if ((x & 0xff) == 0 && i + 20 < sizeof(w) / sizeof(w[0])) {
				const uint64_t ok[] = { ESC, OP_CPU_SWITCH, (x >> 8) & 3,
							ESC, OP_CTX_SWITCH, 10, 1,
							ESC, OP_COOKIE_SWITCH, 2,
							0x10, 0, 0x20, 1 };

				memcpy(&w[i], ok, sizeof(ok));
				i += sizeof(ok) / sizeof(ok[0]) - 1;
				continue;
			}
			switch (x & 7) {
			case 0: case 1: w[i] = ESC; break;
			case 2: case 3: case 4: w[i] = (x >> 8) % 12; break;
			default: w[i] = x >> 3; break;
			}
		}
		opd_decode(dec, w, sizeof(w) / sizeof(w[0]));
	}
	assert_true(dec->nr_bad > 0);
	assert_true(dec->nr_samples > 0);
	free(dec);
}

/* ---- the whole path: stream -> sample files ---- */

struct fake_cookie {
	uint64_t cookie;
	enum kop_image_kind kind;
	const char *path;
	pid_t tgid;
	uint64_t start, end;
};

static const struct fake_cookie fake_cookies[] = {
	{ 1, KOP_IMAGE_FILE, "/usr/bin/app", 0, 0, 0 },
	{ 2, KOP_IMAGE_FILE, "/usr/lib/libc.so.6", 0, 0, 0 },
	{ 3, KOP_IMAGE_ANON, "anon", 100, 0x7f0000001000ULL, 0x7f0000003000ULL },
	{ 5, KOP_IMAGE_FILE, "/usr/bin/other", 0, 0, 0 },
};

static int fake_lookup(void *ctx, uint64_t cookie, struct kop_dcookie_info *info)
{
	int *nr_lookups = ctx;

	(*nr_lookups)++;
	for (size_t i = 0; i < sizeof(fake_cookies) / sizeof(fake_cookies[0]); i++) {
		const struct fake_cookie *f = &fake_cookies[i];

		if (f->cookie != cookie)
			continue;
		info->kind = f->kind;
		snprintf(info->path, sizeof(info->path), "%s", f->path);
		info->tgid = f->tgid;
		info->start = f->start;
		info->end = f->end;
		return 0;
	}
	return -ENOENT;
}

/* The stream every separation case decodes. cpu 0: task 100 (app 1)
 * samples app 0x10 twice (one sample counted 2), libc 0x20, kernel text
 * +0x30, module +0x40, anon 0x50; then an unknown cookie and a kernel pc
 * outside everything, twice (one sample counted 2) (all three lost, no
 * mapping). cpu 1: thread 101 of 100 samples app 0x10 and
 * the kernel +0x30; task 300 (app 5) samples libc 0x20. */
static const uint64_t chain_stream[] = {
	ESC, OP_CPU_SWITCH, 0, ESC, OP_CTX_SWITCH, 100, 1, ESC, OP_CTX_TGID, 100,
	ESC, OP_COOKIE_SWITCH, 1, ESC, OP_SAMPLE_COUNT, 2, 0x10, 0,
	ESC, OP_COOKIE_SWITCH, 2, 0x20, 0,
	ESC, OP_KERNEL_ENTER, KTEXT + 0x30, 0, KMOD + 0x40, 0, ESC, OP_USER_ENTER,
	ESC, OP_COOKIE_SWITCH, 3, 0x50, 0,
	ESC, OP_COOKIE_SWITCH, 4, 0x60, 0,
	ESC, OP_KERNEL_ENTER, ESC, OP_SAMPLE_COUNT, 2, 0x1000, 0, ESC, OP_USER_ENTER,
	ESC, OP_CPU_SWITCH, 1, ESC, OP_CTX_SWITCH, 101, 1, ESC, OP_CTX_TGID, 100,
	ESC, OP_COOKIE_SWITCH, 1, 0x10, 0,
	ESC, OP_KERNEL_ENTER, KTEXT + 0x30, 0, ESC, OP_USER_ENTER,
	ESC, OP_CTX_SWITCH, 300, 5, ESC, OP_CTX_TGID, 300,
	ESC, OP_COOKIE_SWITCH, 2, 0x20, 0,
};

#define KERN "/proc/kallsyms"
#define ALL OP_SF_ALL

struct expect {
	enum op_img_kind kind;
	const char *image, *dep;
	int tgid, tid, cpu;
	uint64_t offset;
	uint64_t count;
};

struct chain_case {
	const char *separate;
	struct expect e[12];	/* ends at image == NULL */
	size_t nr_files;
};

static const struct chain_case chain_cases[] = {
	{ "none", {
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", ALL, ALL, ALL, 0x10, 3 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/lib/libc.so.6", ALL, ALL, ALL, 0x20, 2 },
		{ OP_IMG_KERN, KERN, KERN, ALL, ALL, ALL, 0x30, 2 },
		{ OP_IMG_KERN, "ext4", "ext4", ALL, ALL, ALL, 0x40, 1 },
		{ OP_IMG_ANON, "anon", "/usr/bin/app", ALL, ALL, ALL, 0x50, 1 },
	  }, 5 },
	{ "lib", {
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", ALL, ALL, ALL, 0x10, 3 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/bin/app", ALL, ALL, ALL, 0x20, 1 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/bin/other", ALL, ALL, ALL, 0x20, 1 },
		{ OP_IMG_KERN, KERN, KERN, ALL, ALL, ALL, 0x30, 2 },
		{ OP_IMG_KERN, "ext4", "ext4", ALL, ALL, ALL, 0x40, 1 },
		{ OP_IMG_ANON, "anon", "/usr/bin/app", ALL, ALL, ALL, 0x50, 1 },
	  }, 6 },
	{ "kernel", {
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", ALL, ALL, ALL, 0x10, 3 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/lib/libc.so.6", ALL, ALL, ALL, 0x20, 2 },
		{ OP_IMG_KERN, KERN, "/usr/bin/app", ALL, ALL, ALL, 0x30, 2 },
		{ OP_IMG_KERN, "ext4", "/usr/bin/app", ALL, ALL, ALL, 0x40, 1 },
		{ OP_IMG_ANON, "anon", "/usr/bin/app", ALL, ALL, ALL, 0x50, 1 },
	  }, 5 },
	{ "thread", {
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", 100, 100, ALL, 0x10, 2 },
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", 100, 101, ALL, 0x10, 1 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/lib/libc.so.6", 100, 100, ALL, 0x20, 1 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/lib/libc.so.6", 300, 300, ALL, 0x20, 1 },
		{ OP_IMG_KERN, KERN, KERN, 100, 100, ALL, 0x30, 1 },
		{ OP_IMG_KERN, KERN, KERN, 100, 101, ALL, 0x30, 1 },
		{ OP_IMG_KERN, "ext4", "ext4", 100, 100, ALL, 0x40, 1 },
		{ OP_IMG_ANON, "anon", "/usr/bin/app", 100, 100, ALL, 0x50, 1 },
	  }, 8 },
	{ "cpu", {
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", ALL, ALL, 0, 0x10, 2 },
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", ALL, ALL, 1, 0x10, 1 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/lib/libc.so.6", ALL, ALL, 0, 0x20, 1 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/lib/libc.so.6", ALL, ALL, 1, 0x20, 1 },
		{ OP_IMG_KERN, KERN, KERN, ALL, ALL, 0, 0x30, 1 },
		{ OP_IMG_KERN, KERN, KERN, ALL, ALL, 1, 0x30, 1 },
		{ OP_IMG_KERN, "ext4", "ext4", ALL, ALL, 0, 0x40, 1 },
		{ OP_IMG_ANON, "anon", "/usr/bin/app", ALL, ALL, 0, 0x50, 1 },
	  }, 8 },
	{ "all", {
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", 100, 100, 0, 0x10, 2 },
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", 100, 101, 1, 0x10, 1 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/bin/app", 100, 100, 0, 0x20, 1 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/bin/other", 300, 300, 1, 0x20, 1 },
		{ OP_IMG_KERN, KERN, "/usr/bin/app", 100, 100, 0, 0x30, 1 },
		{ OP_IMG_KERN, KERN, "/usr/bin/app", 100, 101, 1, 0x30, 1 },
		{ OP_IMG_KERN, "ext4", "/usr/bin/app", 100, 100, 0, 0x40, 1 },
		{ OP_IMG_ANON, "anon", "/usr/bin/app", 100, 100, 0, 0x50, 1 },
	  }, 8 },
};

struct chain {
	char *dir;
	int nr_lookups;
	struct logcount lc;
	struct op_logger lg;
	struct opd_event_info ev[2];
	struct opd_images images;
	struct opd_sfiles sfiles;
	struct opd_sampler sampler;
	struct opd_decoder *dec;
};

static void chain_init(struct chain *c, const char *dir, unsigned int separate,
		       size_t max_open, const char *filter)
{
	memset(c, 0, sizeof(*c));
	c->lg = (struct op_logger){ count_log, &c->lc, OP_LOG_DEBUG };
	c->ev[0] = (struct opd_event_info){ "TIMER", 100000, 0, 0, ODB_CPU_TIMER_INT };
	c->ev[1] = (struct opd_event_info){ "CPU_CLK_UNHALTED", 100000, 0, 0x3c, 9 };
	assert_int_equal(opd_images_init(&c->images, fake_lookup, &c->nr_lookups,
					 NULL, filter, &c->lg), 0);
	/* a kernel layout without /proc: text and one module */
	c->images.km.text_start = KTEXT;
	c->images.km.text_end = KTEXT + 0x1000000;
	c->images.km.modules = calloc(1, sizeof(struct op_kmodule));
	assert_non_null(c->images.km.modules);
	snprintf(c->images.km.modules[0].name, sizeof(c->images.km.modules[0].name), "ext4");
	c->images.km.modules[0].start = KMOD;
	c->images.km.modules[0].end = KMOD + 0x10000;
	c->images.km.nr_modules = 1;
	c->images.have_km = true;
	assert_int_equal(opd_sfiles_init(&c->sfiles, NULL, dir, c->ev, 2, 2400.5, max_open,
					 &c->lg), 0);
	opd_sampler_init(&c->sampler, &c->images, &c->sfiles, separate, "/nonexistent");
	c->dec = malloc(sizeof(*c->dec));
	assert_non_null(c->dec);
	opd_decoder_init(c->dec, &opd_sampler_ops, &c->sampler, 2, &c->lg);
}

static void chain_release(struct chain *c)
{
	opd_sfiles_release(&c->sfiles);
	opd_images_release(&c->images);
	free(c->dec);
}

/* Sum of every count in every regular file under dir; number of files. */
static void walk(const char *dir, uint64_t *total, size_t *nr_files)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	assert_non_null(d);
	while ((de = readdir(d))) {
		char *p;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = tu_path(dir, de->d_name);
		assert_int_equal(lstat(p, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			walk(p, total, nr_files);
		} else {
			odb_t db;

			assert_int_equal(odb_open(&db, NULL, p, ODB_RDONLY), 0);
			for (uint32_t i = 1; i < db.descr->current_size; i++)
				*total += db.nodes[i].value;
			odb_close(&db);
			(*nr_files)++;
		}
		free(p);
	}
	closedir(d);
}

static void check_expect(const char *dir, const struct expect *e, const char *label)
{
	struct op_sfname n = {
		.image = { .kind = e->kind, .path = (char *)e->image },
		.dep = { .kind = e->kind, .path = (char *)e->dep },
		.event = (char *)"TIMER",
		.count = 100000,
		.unit_mask = 0,
		.tgid = e->tgid, .tid = e->tid, .cpu = e->cpu,
	};
	char *rel, *path;
	odb_t db;
	int ret;

	if (e->kind == OP_IMG_ANON) {
		n.image.anon_tgid = 100;
		n.image.anon_start = 0x7f0000001000ULL;
		/* [0x7f0000001000, 0x7f0000003000) named by its last byte */
		n.image.anon_end = 0x7f0000002fffULL;
	}
	if (strcmp(e->dep, e->image)) {
		n.dep.kind = OP_IMG_FILE;
	} else {
		n.dep = n.image;
	}
	rel = op_sfname_build(&n);
	assert_non_null(rel);
	path = tu_path(dir, rel);
	ret = odb_open(&db, NULL, path, ODB_RDONLY);
	if (ret)
		fail_msg("%s: %s: %s", label, rel, odb_strerror(ret));
	if (odb_get(&db, e->offset) != e->count)
		fail_msg("%s: %s: offset 0x%llx has %llu, want %llu", label, rel,
			 (unsigned long long)e->offset,
			 (unsigned long long)odb_get(&db, e->offset),
			 (unsigned long long)e->count);
	assert_int_equal(db.header->cpu_type, ODB_CPU_TIMER_INT);
	assert_int_equal(db.header->ctr_count, 100000);
	assert_int_equal(db.header->is_kernel, e->kind == OP_IMG_KERN);
	assert_true(db.header->cpu_speed > 2400 && db.header->cpu_speed < 2401);
	if (e->kind == OP_IMG_ANON)
		assert_int_equal(db.header->anon_start, 0x7f0000001000ULL);
	odb_close(&db);
	free(path);
	free(rel);
}

static unsigned int sep_flags(const char *name)
{
	if (!strcmp(name, "lib"))
		return OP_SEP_LIB;
	if (!strcmp(name, "kernel"))
		return OP_SEP_KERNEL;
	if (!strcmp(name, "thread"))
		return OP_SEP_THREAD;
	if (!strcmp(name, "cpu"))
		return OP_SEP_CPU;
	if (!strcmp(name, "all"))
		return OP_SEP_ALL;
	return 0;
}

static void test_chain_separations(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(chain_cases) / sizeof(chain_cases[0]); i++) {
		const struct chain_case *cc = &chain_cases[i];
		char *dir = tu_mkdtemp();
		struct chain c;
		unsigned int sep = sep_flags(cc->separate);
		uint64_t want = 0, total = 0;
		size_t nr_files = 0;

		assert_non_null(dir);
		chain_init(&c, dir, sep, 0, NULL);
		opd_decode(c.dec, chain_stream, sizeof(chain_stream) / sizeof(chain_stream[0]));
		assert_int_equal(c.dec->nr_bad, 0);
		assert_int_equal(c.dec->nr_samples, 12);
		assert_int_equal(c.sampler.nr_lost_no_mapping, 3);
		assert_int_equal(c.sampler.nr_kernel, 5);
		assert_int_equal(c.sampler.nr_anon, 1);
		assert_int_equal(c.sampler.nr_written, 9);
		assert_int_equal(opd_sfiles_sync(&c.sfiles), 0);
		for (const struct expect *e = cc->e; e->image; e++) {
			check_expect(dir, e, cc->separate);
			want += e->count;
		}
		walk(dir, &total, &nr_files);
		if (total != want || nr_files != cc->nr_files)
			fail_msg("separate=%s: %llu counts in %zu files, want %llu in %zu",
				 cc->separate, (unsigned long long)total, nr_files,
				 (unsigned long long)want, cc->nr_files);
		/* one lookup per cookie, the unknown one included */
		assert_int_equal(c.nr_lookups, 5);
		chain_release(&c);
		tu_rm_rf(dir);
		free(dir);
	}
}

/* Two files open at most: alternating three keys evicts, and every reopen
 * continues the counts. */
static void test_cache_eviction(void **state)
{
	char *dir = tu_mkdtemp();
	struct chain c;
	uint64_t total = 0;
	size_t nr_files = 0;
	static uint64_t w[3 * 1000 * 8 + 16];
	size_t n = 0;

	(void)state;
	assert_non_null(dir);
	chain_init(&c, dir, 0, 2, NULL);
	w[n++] = ESC; w[n++] = OP_CPU_SWITCH; w[n++] = 0;
	w[n++] = ESC; w[n++] = OP_CTX_SWITCH; w[n++] = 100; w[n++] = 1;
	for (int i = 0; i < 1000; i++) {
		for (uint64_t ck = 1; ck <= 3; ck += 1) {
			uint64_t cookie = ck == 3 ? 5 : ck;

			w[n++] = ESC; w[n++] = OP_COOKIE_SWITCH; w[n++] = cookie;
			w[n++] = 0x100 + (uint64_t)i % 7; w[n++] = 0;
		}
	}
	opd_decode(c.dec, w, n);
	assert_int_equal(c.dec->nr_bad, 0);
	assert_int_equal(c.sampler.nr_written, 3000);
	assert_true(c.sfiles.nr_evictions >= 2990);
	assert_true(c.sfiles.nr_cached <= 2);
	opd_sfiles_close_all(&c.sfiles);
	opd_sampler_invalidate(&c.sampler);
	walk(dir, &total, &nr_files);
	assert_int_equal(total, 3000);
	assert_int_equal(nr_files, 3);
	/* and after a full close, more samples land in the same files */
	opd_decode(c.dec, w + 7, n - 7);
	opd_sfiles_close_all(&c.sfiles);
	total = 0;
	nr_files = 0;
	walk(dir, &total, &nr_files);
	assert_int_equal(total, 6000);
	assert_int_equal(nr_files, 3);
	chain_release(&c);
	tu_rm_rf(dir);
	free(dir);
}

/* A directory that cannot hold files: every sample counted lost, one log
 * line for the file, and the decoder goes on; once the way is clear, the
 * files open at their next try. */
static void test_cache_unwritable(void **state)
{
	char *dir = tu_mkdtemp();
	char *blocker;
	struct chain c;

	(void)state;
	assert_non_null(dir);
	blocker = tu_path(dir, "file");
	assert_int_equal(tu_write_file(blocker, "x", 1), 0);
	chain_init(&c, blocker, 0, 0, NULL);	/* samples/current is a regular file */
	for (int i = 0; i < 100; i++)
		opd_decode(c.dec, chain_stream, sizeof(chain_stream) / sizeof(chain_stream[0]));
	assert_int_equal(c.sampler.nr_written, 0);
	assert_int_equal(c.sfiles.nr_lost, 900);
	assert_int_equal(c.sfiles.nr_open_failures, 5);
	/* one line per failed file, plus the two no-mapping warnings */
	assert_int_equal(c.lc.nr_warn, 5 + 2);
	/* the way cleared: a second later each file opens at its next
	 * sample and nothing more is lost */
	assert_int_equal(unlink(blocker), 0);
	assert_int_equal(mkdir(blocker, 0755), 0);
	opd_decode(c.dec, chain_stream, sizeof(chain_stream) / sizeof(chain_stream[0]));
	assert_int_equal(c.sampler.nr_written, 0);	/* not yet */
	usleep(1100 * 1000);
	opd_decode(c.dec, chain_stream, sizeof(chain_stream) / sizeof(chain_stream[0]));
	assert_int_equal(c.sampler.nr_written, 9);
	assert_int_equal(c.sfiles.nr_lost, 909);
	assert_int_equal(c.sfiles.nr_open_failures, 5);
	assert_int_equal(c.lc.nr_warn, 5 + 2);
	opd_sfiles_close_all(&c.sfiles);
	{
		uint64_t total = 0;
		size_t nr_files = 0;

		walk(blocker, &total, &nr_files);
		assert_int_equal(total, 9);
		assert_int_equal(nr_files, 5);
	}
	chain_release(&c);
	free(blocker);
	tu_rm_rf(dir);
	free(dir);
}

/* --image: only samples in the named binaries (or of the named
 * application) are kept. */
static void test_image_filter(void **state)
{
	char *dir = tu_mkdtemp();
	struct chain c;
	uint64_t total = 0;
	size_t nr_files = 0;

	(void)state;
	assert_non_null(dir);
	chain_init(&c, dir, 0, 0, "/usr/bin/other,nonexistent");
	opd_decode(c.dec, chain_stream, sizeof(chain_stream) / sizeof(chain_stream[0]));
	/* only task 300 (app /usr/bin/other) sampling libc 0x20 */
	assert_int_equal(c.sampler.nr_written, 1);
	assert_int_equal(c.sampler.nr_filtered, 8);
	opd_sfiles_close_all(&c.sfiles);
	walk(dir, &total, &nr_files);
	assert_int_equal(total, 1);
	assert_int_equal(nr_files, 1);
	chain_release(&c);
	tu_rm_rf(dir);
	free(dir);
}

/* An anonymous region of a process whose executable is unknown (app cookie
 * OP_NO_COOKIE) is filed under "/unknown", never at the top of the session,
 * whatever --separate says: OProfile's readers skip a top-level {anon:}. */
static void test_anon_unknown_app(void **state)
{
	static const uint64_t stream[] = {
		ESC, OP_CPU_SWITCH, 0, ESC, OP_CTX_SWITCH, 100, OP_NO_COOKIE,
		ESC, OP_CTX_TGID, 100, ESC, OP_COOKIE_SWITCH, 3, 0x50, 0, 0x50, 0,
	};
	static const char *const seps[] = { "none", "lib", "thread" };

	(void)state;
	for (size_t i = 0; i < sizeof(seps) / sizeof(seps[0]); i++) {
		unsigned int sep = sep_flags(seps[i]);
		int id = sep & OP_SEP_THREAD ? 100 : ALL;
		const struct expect e = {
			OP_IMG_ANON, "anon", "/unknown", id, id, ALL, 0x50, 2,
		};
		char *dir = tu_mkdtemp();
		uint64_t total = 0;
		size_t nr_files = 0;
		struct chain c;

		assert_non_null(dir);
		chain_init(&c, dir, sep, 0, NULL);
		opd_decode(c.dec, stream, sizeof(stream) / sizeof(stream[0]));
		assert_int_equal(c.sampler.nr_written, 2);
		assert_int_equal(opd_sfiles_sync(&c.sfiles), 0);
		check_expect(dir, &e, seps[i]);
		opd_sfiles_close_all(&c.sfiles);
		walk(dir, &total, &nr_files);
		assert_int_equal(total, 2);
		assert_int_equal(nr_files, 1);
		chain_release(&c);
		tu_rm_rf(dir);
		free(dir);
	}
}

/* The arcs of a sample's chain, each in its caller's {cg} file for the
 * callee's image, keyed caller offset << 32 | callee offset, the header
 * describing both ends; a caller in no image ends the chain. */
static void test_chain_arcs(void **state)
{
	static const uint64_t stream[] = {
		ESC, OP_CPU_SWITCH, 0, ESC, OP_CTX_SWITCH, 100, 1, ESC, OP_CTX_TGID, 100,
		/* a kernel sample called from libc, called from the app */
		ESC, OP_TRACE_BEGIN, ESC, OP_KERNEL_ENTER, KTEXT + 0x30, 0,
		ESC, OP_USER_ENTER, ESC, OP_COOKIE_SWITCH, 2, 0x20, 0,
		ESC, OP_COOKIE_SWITCH, 1, 0x10, 0, ESC, OP_TRACE_END,
		/* again, then a caller in an unknown image: the chain ends */
		ESC, OP_TRACE_BEGIN, ESC, OP_KERNEL_ENTER, KTEXT + 0x30, 0,
		ESC, OP_USER_ENTER, ESC, OP_COOKIE_SWITCH, 2, 0x20, 0,
		ESC, OP_COOKIE_SWITCH, 99, 0x99, 0, ESC, OP_COOKIE_SWITCH, 1, 0x10, 0,
		ESC, OP_TRACE_END,
	};
	static const struct {
		const char *caller, *callee;
		bool callee_kernel;
		uint64_t key, count;
	} want[] = {
		{ "/usr/lib/libc.so.6", KERN, true, 0x20ULL << 32 | 0x30, 2 },
		{ "/usr/bin/app", "/usr/lib/libc.so.6", false, 0x10ULL << 32 | 0x20, 1 },
	};
	char *dir = tu_mkdtemp();
	uint64_t total = 0;
	size_t nr_files = 0;
	struct opd_chains store;
	struct chain c;

	(void)state;
	assert_non_null(dir);
	chain_init(&c, dir, OP_SEP_LIB | OP_SEP_KERNEL, 0, NULL);
	assert_int_equal(opd_chains_init(&store, NULL, dir, NULL), 0);
	c.sampler.chains = &store;
	opd_decode(c.dec, stream, sizeof(stream) / sizeof(stream[0]));
	assert_int_equal(c.dec->nr_bad, 0);
	assert_int_equal(c.sampler.nr_written, 2);
	assert_int_equal(c.sampler.nr_arcs, 3);
	/* whole chains: the first complete, the second up to its cut */
	assert_int_equal(store.nr_chains, 2);
	assert_int_equal(store.nr_added, 2);
	assert_int_equal(store.nr_lost, 0);
	{
		const uint32_t *w = &store.words[store.seen[0].start];

		assert_int_equal(w[0], 3);	/* frames */
		assert_int_equal(w[4], 0x30);	/* the kernel pc's offset, low word */
		w = &store.words[store.seen[1].start];
		assert_int_equal(w[0], 2);
	}
	opd_chains_release(&store);
	opd_sampler_release(&c.sampler);
	assert_int_equal(c.sampler.nr_bt_lost_no_mapping, 1);
	assert_int_equal(opd_sfiles_sync(&c.sfiles), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct op_sfname n = {
			.image = { .kind = OP_IMG_FILE, .path = (char *)want[i].caller },
			.dep = { .kind = OP_IMG_FILE, .path = (char *)"/usr/bin/app" },
			.cg = { .kind = want[i].callee_kernel ? OP_IMG_KERN : OP_IMG_FILE,
				.path = (char *)want[i].callee },
			.event = (char *)"TIMER", .count = 100000,
			.tgid = ALL, .tid = ALL, .cpu = ALL,
		};
		char *rel = op_sfname_build(&n), *path;
		odb_t db;

		assert_non_null(rel);
		path = tu_path(dir, rel);
		if (odb_open(&db, NULL, path, ODB_RDONLY))
			fail_msg("no arc file %s", rel);
		assert_int_equal(odb_nr_nodes(&db), 1);
		assert_int_equal(odb_get(&db, want[i].key), want[i].count);
		assert_int_equal(db.header->is_kernel, 0);
		assert_int_equal(db.header->cg_to_is_kernel, want[i].callee_kernel);
		odb_close(&db);
		free(path);
		free(rel);
	}
	/* one sample file and the two arc files, besides the chain store */
	opd_sfiles_close_all(&c.sfiles);
	{
		char *store_dir = tu_path(dir, OP_CHAINS_DIR);

		assert_int_equal(tu_rm_rf(store_dir), 0);
		free(store_dir);
	}
	walk(dir, &total, &nr_files);
	assert_int_equal(nr_files, 3);
	assert_int_equal(total, 2 + 3);
	chain_release(&c);
	tu_rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anon_unknown_app),
		cmocka_unit_test(test_chain_arcs),
		cmocka_unit_test(test_decode_table),
		cmocka_unit_test(test_decode_chains),
		cmocka_unit_test(test_decode_truncated_everywhere),
		cmocka_unit_test(test_decode_per_cpu_context),
		cmocka_unit_test(test_decode_random),
		cmocka_unit_test(test_chain_separations),
		cmocka_unit_test(test_cache_eviction),
		cmocka_unit_test(test_cache_unwritable),
		cmocka_unit_test(test_image_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
