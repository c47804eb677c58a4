/* The event-buffer protocol: the one language kmod/ writes and the daemon
 * reads. It is a stream of 64-bit words. A word equal to OP_ESCAPE_CODE starts
 * a context change: the next word is an op_code and its arguments follow.
 * Any other word starts a sample: the offset in the current image (or the
 * absolute pc after KERNEL_ENTER), then the event index. A sample counts
 * once, or n times when SAMPLE_COUNT n comes right before it.
 *
 * The codes are append-only: a code once given never changes meaning, so a
 * stream written by an older kmod decodes with a newer daemon. The table of
 * argument counts lives in op_proto.c so that both sides agree on it.
 */
#ifndef OP_PROTO_H
#define OP_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* No sample offset or kernel pc can be all ones. */
#define OP_ESCAPE_CODE UINT64_MAX

enum op_code {
	/* args: tid, app cookie (the cookie of the task's executable,
	 * OP_NO_COOKIE for a kernel thread). Always followed by CTX_TGID. */
	OP_CTX_SWITCH = 1,
	/* args: tgid */
	OP_CTX_TGID = 2,
	/* args: cookie of the image the following user samples fall in */
	OP_COOKIE_SWITCH = 3,
	/* args: cpu number */
	OP_CPU_SWITCH = 4,
	/* no args: following samples carry absolute kernel pcs */
	OP_KERNEL_ENTER = 5,
	/* no args: following samples are user (cookie, offset) pairs */
	OP_USER_ENTER = 6,
	/* no args: the module list changed; the daemon re-reads it */
	OP_MODULE_LOADED = 7,
	/* no args: a sample with its call chain follows: the sample, then
	 * its callers innermost first, each a sample of the same event
	 * (KERNEL_ENTER, USER_ENTER and COOKIE_SWITCH may come between them,
	 * and before the sample a SAMPLE_COUNT; nothing else), then
	 * TRACE_END */
	OP_TRACE_BEGIN = 8,
	/* no args: the chain is complete */
	OP_TRACE_END = 9,
	/* args: number of samples lost upstream (for accounting) */
	OP_DROPPED = 10,
	/* args: n, at least 2: the sample whose two words follow at once
	 * stands for n samples of the same context, pc and event (the sync
	 * thread's tally of a block's repeats). In a chain it comes after
	 * TRACE_BEGIN (and the sample's KERNEL_ENTER, USER_ENTER or
	 * COOKIE_SWITCH), right before the sample: the chain then stands
	 * for n, its callers counted n times each. Anywhere else in a chain
	 * it breaks the chain off */
	OP_SAMPLE_COUNT = 11,
	OP_NR_CODES
};

/* Cookie values that name no file. */
#define OP_NO_COOKIE 0ULL

/* Words after OP_ESCAPE_CODE and the code itself, i.e. the arguments a code
 * takes; -1 for a code this build does not know. */
int op_code_nr_args(uint64_t code);

/* Words of a code's whole sequence: ESCAPE, the code, its arguments. For
 * a code this build knows. */
static inline size_t op_seq_words(enum op_code code)
{
	return 2 + (size_t)op_code_nr_args(code);
}

/* Name of a code for logs ("CTX_SWITCH"), "unknown" for others. */
const char *op_code_name(uint64_t code);

/* Words in one sample: offset (or pc), event index. */
#define OP_SAMPLE_WORDS 2

#endif /* OP_PROTO_H */
