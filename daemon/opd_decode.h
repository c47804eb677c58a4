/* The event-buffer decoder: turns the op_proto.h word stream into samples
 * with their full context.
 *
 * All decoding state lives in one struct opd_transient, as in OProfile's
 * daemon: the stream only says what changed, so the current cpu, task,
 * images and mode are carried from one call to the next. The decoder knows
 * nothing about files or kmod: each complete sample goes to ops->sample()
 * with the transient (and each of its callers to ops->caller()), which is
 * what lets the tests drive it with plain arrays of words.
 *
 * The stream is outside data. An unknown code, a truncated sequence (an
 * argument or the event word that is itself an escape, or the end of the
 * buffer inside a sequence), an out-of-range event index or a sample with no
 * context is counted in nr_bad, logged once per kind, and decoding skips to
 * the next escape. A SAMPLE_COUNT not followed at once by a sample counts as
 * truncated and is forgotten. A chain broken off by anything but a mode or image
 * change (or, before its sample, the SAMPLE_COUNT that makes the chain
 * stand for n samples) ends there (trace_end, not complete) and counts as
 * truncated.
 * Nothing in the stream can make the decoder fail.
 *
 * Ownership: a decoder is used by one thread (the daemon's main loop).
 */
#ifndef OPD_DECODE_H
#define OPD_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_log.h"

/* CPU numbers the decoder accepts: [0, OPD_MAX_CPUS); a larger one is a bad
 * argument. */
#define OPD_MAX_CPUS 1024

/* A sample with its call chain: TRACE_BEGIN, the sample, its callers,
 * TRACE_END (op_proto.h). */
enum opd_trace {
	OPD_TRACE_NONE,		/* a plain sample comes next */
	OPD_TRACE_SAMPLE,	/* after TRACE_BEGIN: the sample comes next */
	OPD_TRACE_CALLERS,	/* after the sample: its callers, innermost first */
};

struct opd_transient {
	int cpu;		/* -1 until CPU_SWITCH */
	int tgid;		/* -1 until CTX_TGID */
	int tid;		/* -1 until CTX_SWITCH */
	bool have_ctx;		/* a CTX_SWITCH was seen */
	uint64_t app_cookie;	/* the task's executable, OP_NO_COOKIE for kernel threads */
	uint64_t cookie;	/* image of the following user samples */
	bool in_kernel;		/* after KERNEL_ENTER: samples are absolute pcs */
	enum opd_trace trace;	/* where in a call chain the stream is */
	uint32_t event;		/* event index of the sample being delivered */
	uint32_t count;		/* how many samples it stands for (SAMPLE_COUNT);
				 * a chain's callers count as many */
};

/* Kinds of bad sequence, each logged once. */
enum opd_bad_kind {
	OPD_BAD_UNKNOWN_CODE,
	OPD_BAD_TRUNCATED,
	OPD_BAD_NO_CONTEXT,
	OPD_BAD_EVENT,
	OPD_BAD_ARG,		/* an argument out of range (cpu, tid) */
	OPD_NR_BAD_KINDS
};

struct opd_decode_ops {
	/* A complete sample, n of them at once (SAMPLE_COUNT): pc is the
	 * offset in t->cookie's image (user) or the absolute kernel pc
	 * (t->in_kernel); t->event and t->count (n) are set; the callers
	 * of a sample with a chain stand for n each. */
	void (*sample)(void *ctx, const struct opd_transient *t, uint64_t pc,
		       uint32_t n);
	/* MODULE_LOADED seen; may be NULL */
	void (*module_loaded)(void *ctx);
	/* A caller in the chain of the last sample (t->trace is
	 * OPD_TRACE_CALLERS): pc as for a sample, in t's image and mode;
	 * it counts t->count times, as its sample did.
	 * May be NULL (callers are then counted only). */
	void (*caller)(void *ctx, const struct opd_transient *t, uint64_t pc);
	/* The chain of the last sample ends: complete at TRACE_END, not
	 * when the stream broke it off (counted bad). May be NULL. */
	void (*trace_end)(void *ctx, const struct opd_transient *t, bool complete);
};

struct opd_decoder {
	struct opd_transient t;
	struct opd_transient saved[OPD_MAX_CPUS];	/* per-CPU context; .cpu -1: none yet */
	const struct opd_decode_ops *ops;
	void *ctx;
	uint32_t nr_events;		/* valid event indices: [0, nr_events) */
	const struct op_logger *log;
	uint32_t next_count;		/* SAMPLE_COUNT's n for the next
					 * sample; 0: none */

	uint64_t nr_samples;		/* samples delivered to ops->sample,
					 * each counted n times */
	uint64_t nr_bad;		/* bad sequences (stats: bad_escape) */
	uint64_t nr_bad_kind[OPD_NR_BAD_KINDS];
	uint64_t nr_dropped;		/* DROPPED counts, summed */
	uint64_t nr_callers;		/* callers delivered (or counted) */
	uint64_t nr_module_loads;
	uint64_t nr_samples_cpu[OPD_MAX_CPUS];
	uint64_t nr_dropped_cpu[OPD_MAX_CPUS];
	bool logged[OPD_NR_BAD_KINDS];
};

/* Initialise dec; the transient starts with no context. */
void opd_decoder_init(struct opd_decoder *dec, const struct opd_decode_ops *ops,
		      void *ctx, uint32_t nr_events, const struct op_logger *log);

/* Decode n words. kmod never splits a sequence across reads, so a sequence
 * cut by the end of the buffer is counted as truncated. */
void opd_decode(struct opd_decoder *dec, const uint64_t *w, size_t n);

#endif /* OPD_DECODE_H */
