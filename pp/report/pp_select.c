/* Which symbol rows a report prints and in what order: OProfile's sort
 * keys, -i/-e and the threshold (text and XML alike). */
#include "config.h"
#include "pp_report_rooms.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

bool pp_below_threshold(const uint64_t *counts, const uint64_t *totals,
			size_t nc, double threshold)
{
	if (threshold <= 0)
		return false;
	for (size_t c = 0; c < nc; c++)
		if (pp_percent(counts[c], totals[c]) >= threshold)
			return false;
	return true;
}

/* The source file of a -g entry as OProfile compares it: by basename
 * unless -f, "" without one. */
static const char *debug_key(const struct pp_entry *e, bool long_names)
{
	const char *slash;

	if (!e->src)
		return "";
	slash = long_names ? NULL : strrchr(e->src, '/');
	return slash ? slash + 1 : e->src;
}

int pp_entry_key_cmp(const struct sym_sort_ctx *ctx, enum pp_sort_key k,
			 const struct pp_entry *x, const struct pp_entry *y)
{
	int c;

	switch (k) {
	case PP_SORT_SAMPLE:	/* the first column alone, descending */
		return (x->counts[0] < y->counts[0]) - (x->counts[0] > y->counts[0]);
	case PP_SORT_IMAGE:
		return strcmp(ctx->v->img_names[x->image], ctx->v->img_names[y->image]);
	case PP_SORT_APP:
		return strcmp(ctx->v->app_names[x->image], ctx->v->app_names[y->image]);
	case PP_SORT_SYMBOL:
		return strcmp(x->name, y->name);
	case PP_SORT_DEBUG:
		c = strcmp(debug_key(x, ctx->o->long_filenames),
			   debug_key(y, ctx->o->long_filenames));
		return c ? c : (x->line > y->line) - (x->line < y->line);
	case PP_SORT_VMA:
		return (x->vma > y->vma) - (x->vma < y->vma);
	}
	return 0;
}

/* OProfile's order of symbol rows (libpp/symbol_sort.cpp): the --sort keys,
 * then the others in the order sample, image, app-name, symbol, debug, vma,
 * every one reversed by -r; rows equal in all keep the order they were
 * built in (OProfile's sort is stable). */
static int entry_cmp(const void *a, const void *b, void *vctx)
{
	static const enum pp_sort_key all[] = {
		PP_SORT_SAMPLE, PP_SORT_IMAGE, PP_SORT_APP, PP_SORT_SYMBOL,
		PP_SORT_DEBUG, PP_SORT_VMA,
	};
	const struct sym_sort_ctx *ctx = vctx;
	const struct pp_entry *x = *(const struct pp_entry *const *)a;
	const struct pp_entry *y = *(const struct pp_entry *const *)b;
	int c = 0;

	for (size_t k = 0; k < ctx->o->nr_sort && !c; k++)
		c = pp_entry_key_cmp(ctx, ctx->o->sort[k], x, y);
	for (size_t k = 0; k < sizeof(all) / sizeof(all[0]) && !c; k++) {
		bool given = false;

		for (size_t u = 0; u < ctx->o->nr_sort; u++)
			given |= ctx->o->sort[u] == all[k];
		if (!given)
			c = pp_entry_key_cmp(ctx, all[k], x, y);
	}
	if (ctx->o->reverse)
		c = -c;
	return c ? c : (x > y) - (x < y);
}

static bool name_in(char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

/* The entries to print, sorted, filtered by -i/-e and the threshold. */
const struct pp_entry **pp_selected_entries(const struct pp_profile *p,
						const struct pp_symview *v,
						const struct pp_report_opts *o,
						size_t *nr)
{
	const struct pp_entry **sel = malloc((v->nr_entries ? v->nr_entries : 1) *
					     sizeof(*sel));
	struct sym_sort_ctx ctx = { v, o };
	size_t n = 0;

	if (!sel)
		return NULL;
	for (size_t i = 0; i < v->nr_entries; i++) {
		const struct pp_entry *e = &v->entries[i];

		if (o->include_symbols && !name_in(o->include_symbols, e->name))
			continue;
		if (name_in(o->exclude_symbols, e->name))
			continue;
		if (pp_below_threshold(e->counts, v->total, v->nc, o->threshold))
			continue;
		sel[n++] = e;
	}
	if (n)
		qsort_r(sel, n, sizeof(*sel), entry_cmp, &ctx);
	*nr = n;
	return sel;
}
