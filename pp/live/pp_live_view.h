/* optop's view of a live session: what the scan's deltas (pp_live.h) add
 * up to, by symbol, for the last interval and since optop started.
 *
 * Each sample file is looked at once for its image, its process (the
 * application it was separated under) and its CPU; each key once for its
 * symbol, through the report code's symbol tables (pp_symview_load_tab(),
 * libdw, kallsyms, JIT maps), loaded on an image's first sample and kept.
 * Both answers are cached in the file's and the key's tags, so a refresh
 * looks nothing up for a key it has seen before.
 *
 * The counts are kept as cells (symbol, process, CPU) -> samples, one
 * table for the interval (emptied by pp_live_view_next()) and one for the
 * running totals; a call-graph session's arcs as (callee, caller) ->
 * samples, likewise. pp_live_rows() folds the cells into rows under the
 * display's choices (kernel or user hidden, a filter on image or process,
 * per-CPU columns, an order), so toggling a choice needs no re-read.
 */
#ifndef PP_LIVE_VIEW_H
#define PP_LIVE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "op_log.h"
#include "pp_live.h"
#include "pp_options.h"
#include "pp_symbols.h"

struct pp_live_image {
	struct op_img img;
	char *name;		/* as opreport prints it: basename */
	bool kernel;		/* the kernel or a module */
	bool loaded;		/* table looked for (status says how it went) */
	int status;
	struct pp_symtab st;
	uint32_t *sym_ids;	/* per symbol of st: its id, or PP_LIVE_NO_TAG */
	uint32_t outside_id;	/* samples in no symbol: one row per image */
};

struct pp_live_sym {
	uint32_t image;
	char *name;
};

/* What a sample file stands for (the file's tag indexes these). */
struct pp_live_finfo {
	uint32_t image, app;	/* app: index into apps */
	uint32_t cg_image;	/* arc files: the callee's image */
	int cpu;		/* OP_SF_ALL when not separated by CPU */
};

struct pp_live_cell {
	uint32_t a, b;		/* sym, app; for arcs callee, caller */
	int cpu;		/* arcs: OP_SF_ALL */
	uint64_t n;
};

struct pp_live_cells {
	struct pp_live_cell *v;	/* open addressing; n == 0: free */
	size_t nr_slots, nr;
};

struct pp_live_view {
	struct pp_report_opts ropts;	/* where binaries and kernel symbols are */
	struct op_logger lg;
	struct pp_live_image *images;
	size_t nr_images, alloc_images;
	struct pp_live_sym *syms;
	size_t nr_syms, alloc_syms;
	char **apps;
	size_t nr_apps, alloc_apps;
	struct pp_live_finfo *finfo;
	size_t nr_finfo, alloc_finfo;
	uint32_t (*arc_keys)[2];	/* an arc key's tag: {caller, callee} syms */
	size_t nr_arc_keys, alloc_arc_keys;
	struct pp_live_cells interval, total;
	struct pp_live_cells arcs_interval, arcs_total;
	uint64_t interval_samples, total_samples;
	int max_cpu;			/* highest CPU of a separated file, -1: none */
	bool has_arcs;			/* a call-graph session */
	bool oom;			/* a delta was dropped for want of memory */
};

/* opts: the symbol options (image_path, root, vmlinux, kallsyms,
 * debug_dirs, jit_dir, demangle), copied; its strings must outlive v. */
void pp_live_view_init(struct pp_live_view *v, const struct pp_report_opts *opts,
		       const struct op_logger *lg);

/* The scan's callback (ctx: the view). */
void pp_live_view_delta(void *ctx, struct pp_live_file *f,
			struct pp_live_key *k, uint64_t delta);

/* Start the next interval: the interval's cells are emptied. */
void pp_live_view_next(struct pp_live_view *v);

void pp_live_view_release(struct pp_live_view *v);

/* ---- rows ---- */

enum pp_live_sort { PP_LIVE_BY_SAMPLES, PP_LIVE_BY_NAME };

struct pp_live_show {
	bool totals;		/* running totals, not the last interval */
	bool per_cpu;		/* one column per CPU */
	bool hide_kernel, hide_user;
	const char *filter;	/* substring of the image or process; NULL: all */
	enum pp_live_sort sort;
};

struct pp_live_row {
	uint32_t sym;
	uint64_t n;
	uint64_t *cpu;		/* [nr_cpus] when per_cpu, else NULL */
};

struct pp_live_rows {
	struct pp_live_row *v;
	size_t nr;
	size_t nr_cpus;		/* columns when per_cpu (0: not separated) */
	uint64_t *cpu_store;
	uint64_t shown;		/* samples in the rows */
	uint64_t all;		/* samples of the interval (or totals): the
				 * base of the shares */
};

/* Fold v's cells into rows under show. 0 or -ENOMEM. */
int pp_live_rows_build(const struct pp_live_view *v,
		       const struct pp_live_show *show, struct pp_live_rows *r);
void pp_live_rows_release(struct pp_live_rows *r);

/* The callers of sym by samples (from the running totals when
 * totals, else the interval), largest first, into rows (no CPUs).
 * 0 or -ENOMEM. */
int pp_live_callers(const struct pp_live_view *v, uint32_t sym, bool totals,
		    struct pp_live_rows *r);


/* Most callers batch mode prints under a row; the rest are summed up on
 * one line. */
#define PP_LIVE_MAX_CALLERS 10

/* How batch mode prints a table (pp_live_rows_print()). */
struct pp_live_print {
	size_t max_rows;	/* rows printed at most, 0: all */
	bool callers;		/* callers under the first callers_of rows */
	size_t callers_of;	/* 0: under every row printed */
	bool totals;		/* the callers of the running totals */
};

/* The table as batch mode prints it: a header line, then the rows:
 * samples, share of r->all, per-CPU columns, image, symbol. With
 * p->callers, under a row its callers (the call-graph arcs into its
 * symbol, pp_live_callers()), largest first, at most PP_LIVE_MAX_CALLERS:
 * "<-", samples, share of the arcs into the symbol, image, symbol.
 * 0 or -ENOMEM (the table is then cut short). */
int pp_live_rows_print(FILE *out, const struct pp_live_view *v,
		       const struct pp_live_rows *r, const struct pp_live_print *p);

#endif /* PP_LIVE_VIEW_H */
