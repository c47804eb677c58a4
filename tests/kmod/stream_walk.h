/* The event-buffer stream as the tests read it: one walker over the words
 * kmod writes (op_proto.h), keeping what the escapes said so far the way
 * the daemon's decoder keeps its transient. The unit, stress, fuzz and
 * real-kernel tests all read kmod's output through it, so a change to the
 * protocol changes one reader in the tests, not four.
 *
 * Unlike the daemon's decoder it does not resynchronise: kmod must write a
 * stream that decodes, and the first sequence that does not is the test's
 * failure.
 */
#ifndef STREAM_WALK_H
#define STREAM_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stream_state {
	/* what the escapes so far said (0 before they said it) */
	uint64_t cpu;		/* CPU_SWITCH */
	uint64_t tid, app;	/* CTX_SWITCH */
	uint64_t tgid;		/* CTX_TGID */
	uint64_t cookie;	/* COOKIE_SWITCH */
	bool kernel;		/* KERNEL_ENTER, until USER_ENTER */
	/* totals over every walk of this state */
	uint64_t nr_samples;	/* a SAMPLE_COUNT's sample n times */
	uint64_t nr_counted;	/* of them, in samples that came counted */
	uint64_t nr_dropped;	/* sum of the DROPPED arguments */
	uint64_t count;		/* a SAMPLE_COUNT's n for the next word */
};

/* Called for each sample, with the state it was written under; n times for
 * a sample that came with SAMPLE_COUNT n. */
typedef void (*stream_sample_fn)(void *ctx, const struct stream_state *st,
				 uint64_t pc, uint64_t event);

/* Walk words[0, nr), calling fn (may be NULL) per sample. st carries over
 * from one walk to the next, as kop_evbuf_read() hands out whole sequences
 * read by read; zero it before the first. Returns 0 when the words are
 * whole sequences of known codes, or -EINVAL at the first that is not (an
 * unknown code, a sequence cut off by nr, a SAMPLE_COUNT below 2 or not
 * followed at once by a sample), after walking what came
 * before it; *bad_at (may be NULL) is then that sequence's index. */
int stream_walk(struct stream_state *st, const uint64_t *words, size_t nr,
		stream_sample_fn fn, void *ctx, size_t *bad_at);

#endif /* STREAM_WALK_H */
