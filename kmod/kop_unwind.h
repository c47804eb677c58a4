/* kop_unwind.c: call chains through code without frame pointers
 * (--unwind=dwarf). The kernel hands each sample the user registers and a
 * copy of the top of the user stack (PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER); this module walks that copy with libdw's CFI
 * interpreter (.eh_frame, then .debug_frame) against the process's
 * mappings as our task table has them at the sample's time, and gives back
 * the pcs, innermost first. The sync thread resolves them as it resolves
 * frame-pointer callers, so the stream cannot tell the two apart.
 *
 * Each process's libdw state (a Dwfl: its modules, their ELF files and
 * unwind tables) is built from the task table once and cached, keyed by
 * the table's generation (kop_task.gen), which changes with every mapping,
 * exec and fork: a sample is always unwound against the mappings of its
 * own time, and a process that maps nothing new pays once. Most walks
 * need no Dwfl at all: the rows libdw finds for a (file, pc) are kept
 * across processes and applied by kop_unwind_rows.c, and libdw's walk
 * takes only the samples they do not serve (signal frames, frames with
 * no .eh_frame entry, a copy cut short). Files are read
 * locally (build-id directories for .debug_frame); nothing goes to the
 * network.
 *
 * Owner: the sync thread. Nothing here locks, except kop_dcookies (a
 * path, at a cache miss).
 */
#ifndef KOP_UNWIND_H
#define KOP_UNWIND_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kop_dcookie.h"
#include "kop_task.h"
#include "op_log.h"
#include "op_sessdir.h"

/* The user registers asked for (perf's x86_64 numbering: AX BX CX DX SI DI
 * BP SP IP, R8 to R15): what a DWARF x86_64 frame can name, no more. */
#define KOP_UNWIND_REGS_MASK 0xff01ffULL
#define KOP_UNWIND_NR_REGS 17

/* The user part of a sample record (PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER), pointing into the record. */
struct kop_user_regs {
	uint64_t abi;			/* PERF_SAMPLE_REGS_ABI_*; NONE: no
					 * user context (a kernel thread) */
	const unsigned char *regs;	/* KOP_UNWIND_NR_REGS u64, mask order;
					 * unaligned in a copied record */
	const unsigned char *stack;	/* the copy, from the user sp up */
	uint64_t stack_size;		/* bytes of it the kernel filled */
};

/* Find the user part of a sample record whose type is KOP_SAMPLE_TYPE |
 * PERF_SAMPLE_CALLCHAIN | REGS_USER | STACK_USER. false when the sizes do
 * not add up to the record's (the caller counts it; never reads past h). */
bool kop_unwind_parse(const struct perf_event_header *h, size_t fixed,
		      struct kop_user_regs *u);

/* Why a walk ended. */
enum kop_unwind_end {
	KOP_UNWIND_DONE,	/* the outermost frame (its return address
				 * undefined: _start, clone) */
	KOP_UNWIND_DEPTH,	/* max pcs found */
	KOP_UNWIND_NO_CFI,	/* a frame in an ELF module with no unwind
				 * table for its pc */
	KOP_UNWIND_NO_MODULE,	/* a pc in no module we could report (no
				 * mapping, JIT or anonymous code, a file
				 * gone): the caller tells which */
	KOP_UNWIND_SHORT_STACK,	/* a frame's data lies past the stack copy */
	KOP_UNWIND_BAD_FRAME,	/* the table gave an impossible frame, or
				 * the registers were unusable */
};

struct kop_unwind_stats {
	uint64_t nr_walks;	/* samples unwound */
	uint64_t nr_fast;	/* of which by the kept rows alone */
	uint64_t nr_pcs;	/* pcs they gave, the sampled ones included */
	uint64_t nr_builds;	/* Dwfl built (cache misses) */
	uint64_t nr_build_fail;	/* modules that could not be reported */
	uint64_t walk_ns;	/* time in walks, builds included */
	uint64_t build_ns;	/* of which building */
};

struct kop_unwind;

/* dc: where a mapping's cookie names its file. NULL and errno on failure. */
struct kop_unwind *kop_unwind_new(struct kop_dcookies *dc,
				  const struct op_logger *lg);
void kop_unwind_free(struct kop_unwind *u);
/* sd: the session directory; a file named under it (a copy in its kept/
 * store) is opened beneath it, never through a link (op_sessdir.h).
 * NULL, the default: every file by its path. sd must outlive u. */
void kop_unwind_set_session(struct kop_unwind *u, const struct op_sessdir *sd);

/* Unwind the sample of thread tid of task k with user state *ur into pcs
 * (at most max, max >= 1): pcs[0] is the user pc the registers hold (the
 * sampled pc, or where the task entered the kernel), then each caller's
 * return address. Returns the number found and why the walk ended in
 * *end; *nr_fp: how many of them libdw found by following the frame
 * pointer from a frame with no unwind table (its fallback: right for code
 * built with frame pointers, a guess for the rest). 0 when the registers
 * are missing or not 64-bit (*end KOP_UNWIND_BAD_FRAME). */
size_t kop_unwind_walk(struct kop_unwind *u, struct kop_task *k, pid_t tid,
		       const struct kop_user_regs *ur, uint64_t *pcs,
		       size_t max, enum kop_unwind_end *end,
		       unsigned int *nr_fp);

/* Whether walks may take the fast path (kop_unwind_rows.h): on by
 * default; off, every walk is libdw's (tests compare the two). */
void kop_unwind_set_fast(struct kop_unwind *u, bool on);

void kop_unwind_get_stats(const struct kop_unwind *u,
			  struct kop_unwind_stats *st);

#endif /* KOP_UNWIND_H */
