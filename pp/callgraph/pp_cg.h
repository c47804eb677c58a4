/* The call graph's rooms share this: the graph (pp_cg_graph.c), built in
 * OProfile's order (pp_cg_order.c), cut into blocks (pp_cg_blocks.c) and
 * printed as text (pp_callgraph.c) or XML (pp_callgraph_xml.c). Internal to
 * pp/: the report's interface is pp_callgraph.h.
 *
 * One cg_ctx lives for one report; it owns its nodes, arcs and maps, and
 * borrows the profile, the view and the options, which outlive it. */
#ifndef PP_CG_H
#define PP_CG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "op_log.h"
#include "pp_profile.h"
#include "pp_options.h"
#include "pp_symbols.h"
#include "pp_symview.h"

struct klines;

/* u64 -> size_t, open addressing; key UINT64_MAX is never used. */
struct u64map {
	uint64_t *keys;
	size_t *vals;
	size_t cap, n;
};

/* Strings numbered in the order they were first seen, as OProfile's name
 * storage numbers them. The strings are not copied: they live in the
 * symbol tables and the view, which outlive the report. */
struct interner {
	const char **keys;
	uint32_t *ids;
	size_t cap, n;
};

/* One symbol of one (application, image) pair. */
struct cg_node {
	size_t image;			/* index into p->images */
	const struct pp_sym *sym;	/* NULL: the image's symbol-less row */
	const char *raw;		/* name as stored (mangled) */
	char *shown;			/* name as printed (owned) */
	uint64_t vma, size;
	const uint64_t *self;		/* [nc]: its own samples */
	const char *src;		/* -g */
	int line;
	uint32_t img_id, app_id, name_id;	/* order, see pp_cg_order.c */
};

struct cg_arc {
	size_t from, to;		/* nodes */
	uint64_t *counts;		/* [nc] */
};

/* A caller or callee line of a block. */
struct cg_child {
	size_t node;
	const uint64_t *counts;
	bool self;
};

struct cg_ctx {
	const struct pp_profile *p;
	const struct pp_symview *v;
	const struct pp_report_opts *o;
	const struct pp_merge *merge;
	const struct op_logger *lg;
	size_t nc;
	uint64_t *zero;			/* [nc] */
	uint64_t *total;		/* [nc]: samples of the symbols */
	const struct pp_symtab **tab;	/* per image: symbols read, or NULL */
	bool *tab_seen;			/* per table: all names interned */
	char **pseudo;			/* per image: symbol-less row's name */
	struct interner names, images;
	struct u64map node_of, arc_of, entry_of;
	struct cg_node *nodes;
	size_t nr_nodes, alloc_nodes;
	struct cg_arc *arcs;
	size_t nr_arcs, alloc_arcs;
	size_t nr_bad;
	struct klines *klines;		/* the kernel's lines, read on first use */
};

/* One symbol's block: its callers, fewest calls first, and its callees
 * with its own "[self]" line, most first, as the report lists them. */
struct cg_block {
	size_t node;
	struct cg_child *callers, *callees;
	size_t nr_callers, nr_callees;
	uint64_t *caller_total, *callee_total;	/* [nc] */
};


/* ---- pp_cg_graph.c ---- */

/* The value of key in m; false when absent. */
bool pp_cg_map_get(const struct u64map *m, uint64_t key, size_t *val);

/* Number s if it was never seen (the string is not copied). 0 or
 * -ENOMEM. */
int pp_cg_intern(struct interner *in, const char *s);

/* The number of s, or UINT32_MAX when it was never seen. */
uint32_t pp_cg_interned_id(const struct interner *in, const char *s);

/* -i/-e keep the symbol name (as shown). */
bool pp_cg_name_selected(const struct pp_report_opts *o, const char *name);

/* The flat view's row (image, name) is among OProfile's symbols with
 * samples, which the call graph counts. */
bool pp_cg_in_flat(const struct cg_ctx *c, size_t image, const char *name);

/* -x leaves f out. */
bool pp_cg_excluded(const struct cg_ctx *c, const struct pp_sfile *f);

/* The node of (image, sym), made on first use; SIZE_MAX on ENOMEM. */
size_t pp_cg_node_get(struct cg_ctx *c, size_t image, const struct pp_sym *sym);

/* Add count calls of class cls from node from to node to. 0 or -ENOMEM. */
int pp_cg_arc_add(struct cg_ctx *c, size_t from, size_t to, size_t cls,
		  uint64_t count);

/* Set up c, whose p, v, o, merge and lg are set. 0 or -ENOMEM; either
 * way pp_cg_ctx_release() frees what it holds. */
int pp_cg_ctx_init(struct cg_ctx *c);
void pp_cg_ctx_release(struct cg_ctx *c);

/* ---- pp_cg_order.c ---- */

/* Every node and arc, named and numbered in OProfile's order. 0 or
 * -ENOMEM (arc files that cannot be read are counted in c->nr_bad). */
int pp_cg_build_graph(struct cg_ctx *c);

/* ---- pp_cg_blocks.c ---- */

/* The blocks to print, in OProfile's order, cut by -t and -i/-e. *out is
 * set even on error, for pp_cg_blocks_free(). 0 or -ENOMEM. */
int pp_cg_make_blocks(struct cg_ctx *c, struct cg_block **out, size_t *nr);
void pp_cg_blocks_free(struct cg_block *b, size_t nr);

static inline double pp_cg_ratio(uint64_t n, uint64_t total)
{
	return total ? (double)n / (double)total : 0.0;
}

/* ---- pp_callgraph_xml.c ---- */

/* The blocks as OProfile's call-graph XML. 0, -ENOMEM, or -EOPNOTSUPP
 * (nothing written) when the columns are threads or processes. */
int pp_cg_print_xml(FILE *out, const struct cg_ctx *c,
		    const struct cg_block *blocks, size_t nr);

#endif /* PP_CG_H */
