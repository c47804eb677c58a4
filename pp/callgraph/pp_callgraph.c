/* opreport -c as text: the blocks of pp_cg_blocks.c, one line per caller,
 * symbol and callee, in OProfile's columns. The graph is built and
 * ordered elsewhere (pp_cg.h says where); this file only prints. */
#include "config.h"
#include "pp_callgraph.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pp_cg.h"
#include "pp_format.h"
#include "pp_session.h"

struct cg_layout {
	bool image_col, app_col, vma64;
};

/* A left-aligned field and its padding (at least one space). */
static void put_col(FILE *out, const char *s, int width)
{
	int len = (int)strlen(s);

	fputs(s, out);
	fprintf(out, "%*s", len < width ? width - len : 1, "");
}

static void print_titles(FILE *out, const struct cg_ctx *c,
			 const struct cg_layout *l)
{
	if (c->o->show_address)
		put_col(out, "vma", 9);
	for (size_t x = 0; x < c->nc; x++) {
		put_col(out, "samples", 9);
		if (c->o->accumulated)
			put_col(out, "cum. samples", 14);
		put_col(out, "%", 9);
		if (c->o->accumulated)
			put_col(out, "cum. %", 11);
	}
	if (c->o->debug_info)
		put_col(out, "linenr info", 28);
	if (l->image_col)
		put_col(out, "image name", 25);
	if (l->app_col)
		put_col(out, "app name", 25);
	fputs("symbol name\n", out);
}

/* One line: cum[] is the running sum of its group (-a). */
static void print_line(FILE *out, const struct cg_ctx *c,
		       const struct cg_layout *l, const struct cg_node *n,
		       const uint64_t *counts, const uint64_t *totals,
		       uint64_t *cum, bool self)
{
	char buf[64], pct[32];

	if (c->o->show_address) {
		snprintf(buf, sizeof(buf), "%0*" PRIx64, l->vma64 ? 16 : 8, n->vma);
		put_col(out, buf, 9);
	}
	for (size_t x = 0; x < c->nc; x++) {
		snprintf(buf, sizeof(buf), "%" PRIu64, counts[x]);
		put_col(out, buf, 9);
		if (c->o->accumulated) {
			cum[x] += counts[x];
			snprintf(buf, sizeof(buf), "%" PRIu64, cum[x]);
			put_col(out, buf, 14);
		}
		pp_format_percent(pct, sizeof(pct), pp_cg_ratio(counts[x], totals[x]) * 100);
		fprintf(out, "%7s  ", pct);
		if (c->o->accumulated) {
			pp_format_percent(pct, sizeof(pct), pp_cg_ratio(cum[x], totals[x]) * 100);
			fprintf(out, "%7s    ", pct);
		}
	}
	if (c->o->debug_info) {
		const char *src = n->src;

		if (src) {
			const char *base = c->o->long_filenames ? NULL : strrchr(src, '/');

			snprintf(buf, sizeof(buf), "%s:%d", base ? base + 1 : src, n->line);
		} else {
			snprintf(buf, sizeof(buf), "(no location information)");
		}
		put_col(out, buf, 28);
	}
	if (l->image_col)
		put_col(out, c->v->img_names[n->image], 25);
	if (l->app_col)
		put_col(out, c->v->app_names[n->image], 25);
	fprintf(out, "%s%s\n", n->shown, self ? " [self]" : "");
}

/* OProfile's "app name" column: some class holds files (sample or arc) of
 * two applications. */
static bool several_apps(const struct cg_ctx *c)
{
	const struct pp_profile *p = c->p;

	for (size_t x = 0; x < c->nc; x++) {
		const struct op_img *first = NULL;

		for (size_t i = 0; i < p->fs.nr_files; i++) {
			const struct pp_sfile *f = &p->fs.files[i];
			const struct op_img *app = c->merge->lib ? &f->name.image :
							 &f->name.dep;

			if (f->cls != x || pp_cg_excluded(c, f))
				continue;
			if (!first)
				first = app;
			else if (!pp_img_equal(first, app))
				return true;
		}
	}
	return false;
}

static void print_blocks(FILE *out, const struct cg_ctx *c,
			 const struct cg_block *blocks, size_t nr)
{
	struct cg_layout l = { .app_col = several_apps(c) };
	const uint64_t *totals;
	uint64_t *cum = calloc(c->nc, sizeof(*cum));
	uint64_t *ccum = calloc(c->nc, sizeof(*ccum));
	static const char dashes[] =
		"-------------------------------------------------------------------------------";

	if (!cum || !ccum)
		goto out;
	for (size_t i = 0; i < nr; i++) {
		const struct cg_node *n = &c->nodes[blocks[i].node];

		if (strcmp(c->v->img_long[n->image], c->v->app_long[n->image]))
			l.image_col = true;
		if (n->vma > 0xffffffffULL)
			l.vma64 = true;
	}
	if (!c->o->no_header)
		print_titles(out, c, &l);
	fprintf(out, "%s\n", dashes);
	for (size_t i = 0; i < nr; i++) {
		const struct cg_block *b = &blocks[i];
		const struct cg_node *n = &c->nodes[b->node];

		memset(ccum, 0, c->nc * sizeof(*ccum));
		totals = c->o->global_percent ? c->total : b->caller_total;
		for (size_t k = 0; k < b->nr_callers; k++) {
			fputs("  ", out);
			print_line(out, c, &l, &c->nodes[b->callers[k].node],
				   b->callers[k].counts, totals, ccum, false);
		}
		print_line(out, c, &l, n, n->self, c->total, cum, false);
		memset(ccum, 0, c->nc * sizeof(*ccum));
		totals = c->o->global_percent ? c->total : b->callee_total;
		for (size_t k = 0; k < b->nr_callees; k++) {
			fputs("  ", out);
			print_line(out, c, &l, &c->nodes[b->callees[k].node],
				   b->callees[k].counts, totals, ccum,
				   b->callees[k].self);
		}
		fprintf(out, "%s\n", dashes);
	}
out:
	free(cum);
	free(ccum);
}

int pp_callgraph_print(FILE *out, const struct pp_profile *p,
		       const struct pp_symview *v,
		       const struct pp_report_opts *o,
		       const struct pp_merge *merge,
		       const struct op_logger *lg, size_t *nr_bad)
{
	struct cg_ctx c = { .p = p, .v = v, .o = o, .merge = merge, .lg = lg };
	struct cg_block *blocks = NULL;
	size_t nb = 0;
	int ret;

	ret = pp_cg_ctx_init(&c);
	if (!ret)
		ret = pp_cg_build_graph(&c);
	if (!ret)
		ret = pp_cg_make_blocks(&c, &blocks, &nb);
	if (!ret && o->xml) {
		ret = pp_cg_print_xml(out, &c, blocks, nb);
	} else if (!ret) {
		if (!o->no_header)
			pp_report_header(out, p, o);
		print_blocks(out, &c, blocks, nb);
	}
	if (nr_bad)
		*nr_bad = c.nr_bad;
	pp_cg_blocks_free(blocks, nb);
	pp_cg_ctx_release(&c);
	return ret;
}
