/* What the symbol tables' rooms share: pp_symbols.c (ELF, the array every
 * table ends in, lookups) and pp_symbols_text.c (kallsyms, JIT maps).
 * Readers go through pp_symbols.h. */
#ifndef PP_SYMBOLS_ROOMS_H
#define PP_SYMBOLS_ROOMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_symbols.h"

struct sym_in {
	struct pp_sym s;
	int rank;		/* between aliases: lower wins, */
	uint64_t seq;		/* then lower here */
	uint64_t limit;		/* a size of 0 reaches no further than this */
	bool end;		/* only ends the symbol before it (OP_KSYM_END) */
};

struct name_block;

/* Symbols being collected, before pp_symtab_finish() sorts them into a
 * table. Names are owned one by one, or in blocks (use_blocks). */
struct sym_vec {
	struct sym_in *v;
	size_t n, alloc;
	bool use_blocks;
	struct name_block *blocks;
};

/* Add a symbol (name copied: its first len bytes). 0 or -ENOMEM. */
int pp_symvec_add_len(struct sym_vec *sv, uint64_t start, uint64_t size,
		      const char *name, size_t len, int rank);
int pp_symvec_add(struct sym_vec *sv, uint64_t start, uint64_t size,
		  const char *name, int rank);
/* Forget the name of an entry being dropped. */
void pp_symvec_drop_name(struct sym_vec *sv, size_t i);
void pp_symvec_free(struct sym_vec *sv);

/* Sort, drop aliases at one address, give zero-sized symbols the room up
 * to the next one or their own limit (limit bounds the last), drop the
 * end markers, and hand the array to st (sv is emptied). 0 or -ENOMEM. */
int pp_symtab_finish(struct pp_symtab *st, struct sym_vec *sv,
		     uint64_t limit);

#endif /* PP_SYMBOLS_ROOMS_H */
