/* The unwinder's rows, kept per (file, pc) across processes, and applied
 * without libdw (see kop_unwind_rows.h). */
#include "config.h"
#include "kop_unwind_rows.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* Rows kept: the pcs of a busy system's chains (return addresses and
 * sampled pcs) number a few thousand; a collision costs one libdw lookup. */
#define NR_ROWS 4096

struct entry {
	uint64_t cookie;
	uint64_t rel;		/* + 1; 0: empty */
	bool found;		/* an FDE holds rel */
	struct kop_uw_row row;
};

struct kop_uw_rows {
	struct entry v[NR_ROWS];
};

struct kop_uw_rows *kop_uw_rows_new(void)
{
	return calloc(1, sizeof(struct kop_uw_rows));
}

void kop_uw_rows_free(struct kop_uw_rows *t)
{
	free(t);
}

/* An operation naming a register plus an offset: DW_OP_bregN, bregx,
 * regN, regx. false for any other. */
static bool op_reg(const Dwarf_Op *op, unsigned int *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
	} else if (op->atom == DW_OP_bregx) {
		*reg = (unsigned int)op->number;
		*off = (int64_t)op->number2;
		if (op->number >= KOP_UNWIND_NR_REGS)
			return false;
	} else if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31) {
		*reg = op->atom - DW_OP_reg0;
		*off = 0;
	} else if (op->atom == DW_OP_regx) {
		*reg = (unsigned int)op->number;
		*off = 0;
		if (op->number >= KOP_UNWIND_NR_REGS)
			return false;
	} else {
		return false;
	}
	return *reg < KOP_UNWIND_NR_REGS;
}

static bool fits(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* A register's rule from what dwarf_frame_register() gave: the
 * expressions libdw synthesises for the plain rules, evaluated as its
 * frame_unwind.c does (DW_OP_call_frame_cfa makes a location, a final
 * DW_OP_stack_value a value). false for anything else. */
static bool reg_rule(Dwarf_Op *ops, size_t nops, const Dwarf_Op *mem,
		     struct kop_uw_reg *r)
{
	unsigned int reg = 0;
	int64_t off = 0;
	bool cfa, loc;
	size_t i = 1;

	if (!nops) {
		if (ops == mem) {
			r->rule = KOP_UW_UNDEF;
			return true;
		}
		if (!ops) {
			r->rule = KOP_UW_SAME;
			return true;
		}
		return false;
	}
	cfa = ops[0].atom == DW_OP_call_frame_cfa;
	if (!cfa && !op_reg(&ops[0], &reg, &off))
		return false;
	loc = cfa;
	if (i < nops && ops[i].atom == DW_OP_plus_uconst)
		off += (int64_t)ops[i++].number;
	if (i < nops && ops[i].atom == DW_OP_stack_value) {
		loc = false;
		i++;
	}
	if (i != nops || !fits(off) || (!cfa && loc))
		return false;
	r->rule = cfa ? (loc ? KOP_UW_AT_CFA : KOP_UW_CFA) : KOP_UW_REG;
	r->reg = (uint8_t)reg;
	r->off = (int32_t)off;
	return true;
}

static void fill(struct kop_uw_row *row, Dwarf_Frame *fr)
{
	Dwarf_Addr start, end;
	bool signal;
	Dwarf_Op *ops;
	size_t nops;
	unsigned int reg;
	int64_t off;

	row->simple = 0;
	if (dwarf_frame_info(fr, &start, &end, &signal) != 16 || signal)
		return;
	if (dwarf_frame_cfa(fr, &ops, &nops) || nops != 1 ||
	    ops[0].atom < DW_OP_breg0 || (ops[0].atom > DW_OP_breg31 &&
					  ops[0].atom != DW_OP_bregx) ||
	    !op_reg(&ops[0], &reg, &off) || !fits(off))
		return;
	row->cfa_reg = (uint8_t)reg;
	row->cfa_off = (int32_t)off;
	for (int i = 0; i < KOP_UNWIND_NR_REGS; i++) {
		Dwarf_Op mem[3];

		if (dwarf_frame_register(fr, i, mem, &ops, &nops) ||
		    !reg_rule(ops, nops, mem, &row->regs[i]))
			return;
	}
	row->simple = 1;
}

const struct kop_uw_row *kop_uw_rows_get(struct kop_uw_rows *t,
					 uint64_t cookie, Dwarf_CFI *cfi,
					 uint64_t rel)
{
	uint64_t h = (rel ^ cookie * 0x9e3779b97f4a7c15ULL) * 0xff51afd7ed558ccdULL;
	struct entry *e = &t->v[(h >> 40) % NR_ROWS];
	Dwarf_Frame *fr;

	if (e->rel != rel + 1 || e->cookie != cookie) {
		e->cookie = cookie;
		e->rel = rel + 1;
		e->found = cfi && dwarf_cfi_addrframe(cfi, rel, &fr) == 0;
		if (e->found) {
			fill(&e->row, fr);
			free(fr);
		}
	}
	return e->found ? &e->row : NULL;
}

/* A word of the stack copy, under the condition kop_unwind.c's
 * memory_read() reads it there. */
static bool read_stack(const unsigned char *stack, uint64_t sp,
		       uint64_t size, uint64_t addr, uint64_t *v)
{
	if (addr < sp || addr - sp > size || size - (addr - sp) < 8)
		return false;
	memcpy(v, stack + (addr - sp), 8);
	return true;
}

enum kop_uw_step kop_uw_row_apply(const struct kop_uw_row *row,
				  uint64_t *regs, uint32_t *set,
				  const unsigned char *stack, uint64_t sp,
				  uint64_t size)
{
	uint64_t out[KOP_UNWIND_NR_REGS] = { 0 };
	uint32_t in = *set, now = 0;
	bool have_cfa = in & (1u << row->cfa_reg);
	uint64_t cfa = regs[row->cfa_reg] + (uint64_t)(int64_t)row->cfa_off;

	for (int i = 0; i < KOP_UNWIND_NR_REGS; i++) {
		const struct kop_uw_reg *r = &row->regs[i];
		uint64_t off = (uint64_t)(int64_t)r->off;

		switch (r->rule) {
		case KOP_UW_UNDEF:
			if (i == 16)
				return KOP_UW_END;
			continue;
		case KOP_UW_SAME:
			if (!(in & (1u << i)))
				continue;
			out[i] = regs[i];
			break;
		case KOP_UW_AT_CFA:
			if (!have_cfa)
				continue;
			if (!read_stack(stack, sp, size, cfa + off, &out[i]))
				return KOP_UW_SLOW;
			break;
		case KOP_UW_CFA:
			if (!have_cfa)
				continue;
			out[i] = cfa + off;
			break;
		case KOP_UW_REG:
			if (!(in & (1u << r->reg)))
				continue;
			out[i] = regs[r->reg] + off;
			break;
		}
		now |= 1u << i;
	}
	if (!(now & (1u << 16)) || !out[16])
		return KOP_UW_END;
	memcpy(regs, out, sizeof(out));
	*set = now;
	return KOP_UW_NEXT;
}
