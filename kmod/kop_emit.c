/* The stream writer: the sync thread's second half. kop_sync.c resolves
 * each CPU's samples into a list (struct kop_cpu_out); this writes a list
 * as one block of the word stream, under evbuf->lock.
 *
 * Stream contract, per CPU block: ESCAPE CPU_SWITCH cpu; ESCAPE DROPPED n
 * when the ring lost n samples since the last block; then samples. Before a
 * sample: ESCAPE CTX_SWITCH tid app_cookie, ESCAPE CTX_TGID tgid when the
 * thread or its executable (exec) differs from the previous sample's in
 * the block (always for the first); KERNEL_ENTER / USER_ENTER after a CTX_SWITCH or on a mode change;
 * COOKIE_SWITCH before a user sample after a CTX_SWITCH, a USER_ENTER, or
 * when the image changes; MODULE_LOADED before the first kernel sample
 * after a module-set change; SAMPLE_COUNT n when the sample stands for n
 * (kop_sync.c's tally). Then the offset and the event index.
 *
 * One writer per protocol code, as buffer_sync.c has its add_* helpers:
 * each writes ESCAPE, its code and its arguments. The room a sequence takes
 * comes from the protocol table (op_seq_words()), so no length is spelled
 * twice. A sample is written whole or not at all: its room, context changes
 * and callers included, is checked first. evbuf->lock is held throughout. */
#include "config.h"
#include "kop_sync.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_proto.h"

static inline void put_code(struct kop_evbuf *b, enum op_code code)
{
	kop_evbuf_put(b, OP_ESCAPE_CODE);
	kop_evbuf_put(b, code);
}

static void put_cpu_switch(struct kop_evbuf *b, int cpu)
{
	put_code(b, OP_CPU_SWITCH);
	kop_evbuf_put(b, (uint64_t)cpu);
}

static void put_dropped(struct kop_evbuf *b, uint64_t n)
{
	put_code(b, OP_DROPPED);
	kop_evbuf_put(b, n);
}

/* CTX_SWITCH is always followed by CTX_TGID: one writer for both */
static void put_ctx(struct kop_evbuf *b, int32_t tid, uint64_t app, int32_t tgid)
{
	put_code(b, OP_CTX_SWITCH);
	kop_evbuf_put(b, (uint64_t)(uint32_t)tid);
	kop_evbuf_put(b, app);
	put_code(b, OP_CTX_TGID);
	kop_evbuf_put(b, (uint64_t)(uint32_t)tgid);
}

static void put_mode(struct kop_evbuf *b, bool kernel)
{
	put_code(b, kernel ? OP_KERNEL_ENTER : OP_USER_ENTER);
}

static void put_cookie(struct kop_evbuf *b, uint64_t cookie)
{
	put_code(b, OP_COOKIE_SWITCH);
	kop_evbuf_put(b, cookie);
}

static inline void put_sample(struct kop_evbuf *b, uint64_t offset, uint32_t event)
{
	kop_evbuf_put(b, offset);
	kop_evbuf_put(b, event);
}

/* Words of a sample without callers, its count included. */
static inline size_t sample_words(const struct kop_resolved *e)
{
	return OP_SAMPLE_WORDS +
	       (e->count > 1 ? op_seq_words(OP_SAMPLE_COUNT) : 0);
}

static inline void put_counted(struct kop_evbuf *b, const struct kop_resolved *e)
{
	if (e->count > 1) {
		put_code(b, OP_SAMPLE_COUNT);
		kop_evbuf_put(b, e->count);
	}
	put_sample(b, e->offset, e->event);
}

/* What the stream has last said in this CPU's block. */
struct emit_state {
	int32_t tid, tgid;
	uint64_t app;
	int kernel;		/* -1: nothing said yet */
	uint64_t cookie;
	bool pending_module;	/* a MODULE_LOADED still to say */
};

/* Room for what a sample at (kernel, cookie) needs said before it: its
 * mode and image (all of it after a context switch). */
static size_t pos_words(const struct emit_state *st, bool kernel,
			uint64_t cookie, bool ctx)
{
	bool mode = ctx || (int)kernel != st->kernel;
	size_t n = 0;

	if (mode)
		n += op_seq_words(OP_KERNEL_ENTER);
	if (!kernel && (mode || cookie != st->cookie))
		n += op_seq_words(OP_COOKIE_SWITCH);
	return n;
}

static void put_pos(struct kop_evbuf *b, struct emit_state *st, bool kernel,
		    uint64_t cookie, bool ctx)
{
	bool mode = ctx || (int)kernel != st->kernel;

	if (mode) {
		put_mode(b, kernel);
		st->kernel = kernel;
	}
	if (!kernel && (mode || cookie != st->cookie)) {
		put_cookie(b, cookie);
		st->cookie = cookie;
	}
}

/* Write one sample that needs more than its two words: a context change,
 * a MODULE_LOADED, or callers. False when the buffer has no room for it. */
static bool put_full_sample(struct kop_evbuf *b, struct emit_state *st,
			    const struct kop_resolved *e,
			    const struct kop_frame *frames)
{
	bool ctx = e->tid != st->tid || e->tgid != st->tgid || e->app_cookie != st->app;
	bool module = e->module_loaded || st->pending_module;
	size_t need = pos_words(st, e->kernel, e->cookie, ctx) + sample_words(e);

	if (module)
		need += op_seq_words(OP_MODULE_LOADED);
	if (ctx)
		need += op_seq_words(OP_CTX_SWITCH) + op_seq_words(OP_CTX_TGID);
	if (e->nr_frames)
		/* each caller at most: a mode, an image, its words */
		need += op_seq_words(OP_TRACE_BEGIN) + op_seq_words(OP_TRACE_END) +
			e->nr_frames * (op_seq_words(OP_KERNEL_ENTER) +
					op_seq_words(OP_COOKIE_SWITCH) + OP_SAMPLE_WORDS);
	if (!kop_evbuf_room(b, need)) {
		st->pending_module = module;
		return false;
	}
	if (module) {
		put_code(b, OP_MODULE_LOADED);
		st->pending_module = false;
	}
	if (ctx) {
		put_ctx(b, e->tid, e->app_cookie, e->tgid);
		st->tid = e->tid;
		st->tgid = e->tgid;
		st->app = e->app_cookie;
	}
	if (e->nr_frames)
		put_code(b, OP_TRACE_BEGIN);
	put_pos(b, st, e->kernel, e->cookie, ctx);
	put_counted(b, e);
	if (!e->nr_frames)
		return true;
	for (uint32_t i = 0; i < e->nr_frames; i++) {
		const struct kop_frame *f = &frames[e->first_frame + i];

		put_pos(b, st, f->kernel, f->cookie, false);
		put_sample(b, f->offset, e->event);
	}
	put_code(b, OP_TRACE_END);
	return true;
}

void kop_emit_cpu(struct kop_sync *s, int cpu)
{
	struct kop_evbuf *b = s->evbuf;
	struct kop_cpu_out *o = &s->out[cpu];
	struct emit_state st = {
		.tid = -1, .tgid = -1, .app = OP_NO_COOKIE, .kernel = -1,
		.cookie = OP_NO_COOKIE,
	};
	size_t nr_written = 0, nr_kernel = 0, nr_anon = 0, nr_chains = 0;
	size_t nr_lost = 0;

	if (!o->nr && !o->nr_lost)
		return;
	if (!kop_evbuf_room(b, op_seq_words(OP_CPU_SWITCH) +
			       (o->nr_lost ? op_seq_words(OP_DROPPED) : 0))) {
		for (size_t i = 0; i < o->nr; i++)
			s->counts.nr_lost_evbuf += o->v[i].count;
		goto out_full;
	}
	put_cpu_switch(b, cpu);
	if (o->nr_lost) {
		put_dropped(b, o->nr_lost);
		o->nr_lost = 0;
	}
	for (size_t i = 0; i < o->nr; i++) {
		const struct kop_resolved *e = &o->v[i];

		/* the common case: same thread, mode and image as before */
		if (e->tid == st.tid && e->tgid == st.tgid &&
		    e->app_cookie == st.app && e->kernel == st.kernel &&
		    !e->module_loaded && !st.pending_module && !e->nr_frames &&
		    (e->kernel || e->cookie == st.cookie) &&
		    b->size - b->wr >= sample_words(e)) {
			put_counted(b, e);
		} else if (!put_full_sample(b, &st, e, o->frames)) {
			nr_lost += e->count;
			continue;
		}
		kop_evbuf_mark(b);
		nr_written += e->count;
		nr_kernel += e->kernel ? e->count : 0;
		nr_anon += e->anon ? e->count : 0;
		nr_chains += e->nr_frames ? e->count : 0;
	}
	s->counts.nr_samples += nr_written;
	s->counts.nr_kernel_samples += nr_kernel;
	s->counts.nr_user_samples += nr_written - nr_kernel;
	s->counts.nr_anon_samples += nr_anon;
	s->counts.nr_chains += nr_chains;
	s->samples_cpu[cpu] += nr_written;
	s->counts.nr_lost_evbuf += nr_lost;
	if (!nr_lost)
		goto out;
out_full:
	if (kop_sync_log_once(s, KOP_LOG_EVBUF_FULL))
		op_log(&s->cfg->log, OP_LOG_WARN,
		       "kmod: event buffer full, samples dropped and counted in nr_lost_evbuf (reader too slow or buffer too small)");
out:
	kop_tally_clear(o);
	o->nr = 0;
	o->nr_frames = 0;
	kop_evbuf_check_watershed(b);
}
