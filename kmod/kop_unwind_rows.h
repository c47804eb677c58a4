/* kop_unwind_rows.c: the unwinder's fast path. libdw's walk costs about
 * half a microsecond a frame, most of it spent finding and interpreting
 * the same few hundred FDEs again at every sample (a CFI program run, two
 * allocations and 17 register rules a frame). A pc's unwind rules do not
 * change: they are the file's, whichever process maps it. So the rules
 * libdw gives for a (file, pc) are kept here, in a fixed table shared by
 * every process, in a form a loop applies in a few dozen nanoseconds; a
 * short-lived process whose libraries were seen before pays no libdw at
 * all.
 *
 * Only rows whose rules are the plain ones x86_64 code uses are kept:
 * CFA a register plus an offset, each register undefined, unchanged,
 * saved at CFA + N, CFA + N itself, or another register plus N. A row
 * with anything else (a DWARF expression, a signal frame's CIE) is kept
 * as "not simple", and the caller hands such a sample to libdw's walk,
 * which stays the reference: the two give the same pcs, and the same end,
 * for every sample the fast path takes (test_unwind checks it).
 *
 * Owner: the sync thread (inside struct kop_unwind). */
#ifndef KOP_UNWIND_ROWS_H
#define KOP_UNWIND_ROWS_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "kop_unwind.h"

/* A register's rule in a row (per DWARF register, 0 to 16). */
enum kop_uw_rule {
	KOP_UW_UNDEF,	/* not recoverable in the caller */
	KOP_UW_SAME,	/* unchanged */
	KOP_UW_AT_CFA,	/* saved at CFA + off */
	KOP_UW_CFA,	/* is CFA + off */
	KOP_UW_REG,	/* is register reg + off */
};

struct kop_uw_reg {
	uint8_t rule;	/* enum kop_uw_rule */
	uint8_t reg;	/* KOP_UW_REG's register */
	int32_t off;
};

/* One pc's row: how to find its caller's registers. */
struct kop_uw_row {
	uint8_t simple;		/* 0: not one the fast path applies */
	uint8_t cfa_reg;
	int32_t cfa_off;
	struct kop_uw_reg regs[KOP_UNWIND_NR_REGS];	/* DWARF numbering */
};

struct kop_uw_rows;

struct kop_uw_rows *kop_uw_rows_new(void);
void kop_uw_rows_free(struct kop_uw_rows *t);

/* The row of file-relative pc rel in the file cookie names, taken from
 * cfi (its .eh_frame) at the first ask and kept. NULL when cfi has no
 * FDE for rel; a row with simple 0 when its rules are not plain. */
const struct kop_uw_row *kop_uw_rows_get(struct kop_uw_rows *t,
					 uint64_t cookie, Dwarf_CFI *cfi,
					 uint64_t rel);

/* What applying a row did. */
enum kop_uw_step {
	KOP_UW_NEXT,	/* regs now the caller's: its pc in regs[16] */
	KOP_UW_END,	/* the outermost frame (no return address) */
	KOP_UW_SLOW,	/* a read outside the stack copy: libdw's to do */
};

/* The registers of a frame (regs, *set: a bit per register known) to its
 * caller's by row, reading saved ones from the stack copy (stack, from
 * address sp, size bytes). As libdw's handle_cfi does: a rule whose
 * inputs are unknown leaves its register unknown. */
enum kop_uw_step kop_uw_row_apply(const struct kop_uw_row *row,
				  uint64_t *regs, uint32_t *set,
				  const unsigned char *stack, uint64_t sp,
				  uint64_t size);

#endif /* KOP_UNWIND_ROWS_H */
