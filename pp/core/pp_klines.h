/* The kernel's kallsyms lines in file order, as OProfile's kallsyms reader
 * keeps them (op_kwalk_line()): aliases included. An alias reaches nothing
 * and names no sample, but OProfile meets its name when it walks the
 * kernel's symbols, which numbers it (callgraph/pp_cg_order.c, "order").
 *
 * The symbol view gathers them in the same read of kallsyms as the
 * kernel's table when a report asks for the call graph (the kernel formats
 * /proc/kallsyms anew for each read); the call graph walks them. */
#ifndef PP_KLINES_H
#define PP_KLINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_kernel.h"

struct kline {
	uint64_t off;		/* from _text */
	const char *name;	/* NULL: a name no table holds (from a
				 * saved order: it numbers nothing we use) */
};

struct klines {
	struct kline *v;
	size_t n, alloc;
	struct op_kwalk walk;
	bool borrowed;		/* names point into the tables, else owned */
	int err;		/* the first -errno of a fill */
};

/* An empty set of lines, or NULL on ENOMEM. */
struct klines *pp_klines_new(void);
void pp_klines_free(struct klines *k);

/* Append a line (the name owned or borrowed as k->borrowed says). 0 or
 * -ENOMEM. */
int pp_klines_push(struct klines *k, uint64_t off, const char *name);

/* The op_ksym_fn that fills arg (a struct klines) with the lines from
 * _text to _etext; an error is kept in k->err and stops the read. */
int pp_klines_add(const struct op_ksym_line *l, void *arg);

#endif /* PP_KLINES_H */
