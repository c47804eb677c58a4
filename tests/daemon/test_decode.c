/* The daemon's decoder alone, without kmod, images or files: streams of
 * words go in, recorded samples come out. Table-driven streams, every
 * malformed case (unknown code, truncation at every position, sample
 * before any context, event out of range, cpu out of range),
 * resynchronisation, per-CPU context, random streams.
 * (test_decode_files.c: the same streams through images into files.)
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
#include "logcount.h"
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
	size_t nr_caller_counted;	/* each caller its chain's t->count times */
	size_t nr_complete, nr_broken;	/* chains ended */
	uint64_t nr_counted;	/* samples, each call's n summed */
};

static void sink_sample(void *ctx, const struct opd_transient *t, uint64_t pc,
			uint32_t n)
{
	struct sink *s = ctx;

	assert_true(n >= 1);
	assert_int_equal(t->count, n);
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
	s->nr_caller_counted += t->count;
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
	{ "a count right before a chain's sample is the chain's",
	  { CTX0, ESC, OP_TRACE_BEGIN, ESC, OP_SAMPLE_COUNT, 3, 0x1, 0, 0x2, 0,
	    ESC, OP_TRACE_END }, CTX0_N + 11, 1, 3, 0,
	  { 0x1, 0, 100, 100, 7, 9, false, 0 } },
	{ "a count breaks a chain off, then counts its sample",
	  { CTX0, ESC, OP_TRACE_BEGIN, 0x1, 0, ESC, OP_SAMPLE_COUNT, 3, 0x2, 0 },
	  CTX0_N + 9, 1, 4, 1, { 0x1, 0, 100, 100, 7, 9, false, 0 } },
	{ "a counted sample with a bad event counts none",
	  { CTX0, ESC, OP_SAMPLE_COUNT, 3, 0x10, 4, 0x20, 0 }, CTX0_N + 7, 1, 0, 1, { 0 } },
};

/* A stream decoded whole into a sink, its warnings counted: what the
 * cases below look at, all in the caller's storage. */
struct run {
	struct opd_decoder *dec;
	struct sink s;
	struct logcount lc;
	struct op_logger lg;
};

static void run_stream(struct run *r, const uint64_t *w, size_t n, uint32_t nr_events)
{
	memset(r, 0, sizeof(*r));
	r->lg = (struct op_logger){ count_log, &r->lc, OP_LOG_DEBUG };
	r->dec = malloc(sizeof(*r->dec));
	assert_non_null(r->dec);
	opd_decoder_init(r->dec, &sink_ops, &r->s, nr_events, &r->lg);
	opd_decode(r->dec, w, n);
}

static void run_decode_case(const struct decode_case *c)
{
	struct run run;
	struct opd_decoder *dec;
	struct sink s;
	struct logcount lc;

	run_stream(&run, c->w, c->n, c->nr_events);
	dec = run.dec;
	s = run.s;
	lc = run.lc;
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
	struct run r;
	struct opd_decoder *dec;
	struct sink s;

	(void)state;
	run_stream(&r, w, sizeof(w) / sizeof(w[0]), 1);
	dec = r.dec;
	s = r.s;
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

/* A tallied chain (SAMPLE_COUNT after TRACE_BEGIN and the sample's
 * position, right before it): the sample and each caller stand for n; the
 * next chain, uncounted, for one. */
static void test_decode_counted_chain(void **state)
{
	static const uint64_t w[] = {
		CTX0,
		ESC, OP_TRACE_BEGIN, ESC, OP_KERNEL_ENTER, ESC, OP_SAMPLE_COUNT, 4,
		KTEXT + 1, 0, ESC, OP_USER_ENTER, ESC, OP_COOKIE_SWITCH, 11, 0x30, 0,
		ESC, OP_COOKIE_SWITCH, 12, 0x40, 0, ESC, OP_TRACE_END,
		ESC, OP_TRACE_BEGIN, 0x50, 0, 0x60, 0, ESC, OP_TRACE_END,
	};
	struct run r;
	struct opd_decoder *dec;
	struct sink s;

	(void)state;
	run_stream(&r, w, sizeof(w) / sizeof(w[0]), 1);
	dec = r.dec;
	s = r.s;
	assert_int_equal(dec->nr_bad, 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.nr_counted, 5);
	assert_int_equal(s.nr_callers, 3);
	assert_int_equal(s.nr_caller_counted, 4 + 4 + 1);
	assert_int_equal(s.callers[1].pc, 0x40);
	assert_int_equal(s.callers[1].cookie, 12);
	assert_int_equal(s.nr_complete, 2);
	assert_int_equal(dec->nr_samples, 5);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_counted_chain),
		cmocka_unit_test(test_decode_table),
		cmocka_unit_test(test_decode_chains),
		cmocka_unit_test(test_decode_truncated_everywhere),
		cmocka_unit_test(test_decode_per_cpu_context),
		cmocka_unit_test(test_decode_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
