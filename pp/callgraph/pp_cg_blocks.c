/* The call graph cut into blocks, one per symbol, and put in order:
 * callers and callees by count with libstdc++'s std::sort, whose moves
 * among equal counts OProfile's output shows, and the blocks as -l
 * sorts its rows. Apart from the printers, which only walk the blocks,
 * text or XML. */
#include "config.h"
#include "pp_cg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* OProfile's symbol order (its less_symbol). */
static int node_cmp(const struct cg_node *x, const struct cg_node *y)
{
	if (x->img_id != y->img_id)
		return x->img_id < y->img_id ? -1 : 1;
	if (x->app_id != y->app_id)
		return x->app_id < y->app_id ? -1 : 1;
	if (x->name_id != y->name_id)
		return x->name_id < y->name_id ? -1 : 1;
	if (x->vma != y->vma)
		return x->vma < y->vma ? -1 : 1;
	return (x->size > y->size) - (x->size < y->size);
}

static int node_qcmp(const void *a, const void *b, void *vctx)
{
	const struct cg_ctx *c = vctx;

	return node_cmp(&c->nodes[*(const size_t *)a], &c->nodes[*(const size_t *)b]);
}

/* ---- std::sort ----
 *
 * Callers and callees are ordered by count with libstdc++'s std::sort,
 * whose treatment of equal counts is part of OProfile's output: insertion
 * sort up to 16 elements (equal ones keep their order), above that
 * median-of-three quicksort down to 16-element runs (equal ones move), a
 * heap sort past a depth of 2 log2(n), and a final insertion sort. The
 * same steps, on the same input, give the same order. */

struct child_sort {
	bool descending;
};

static bool child_less(const struct child_sort *s, const struct cg_child *a,
		       const struct cg_child *b)
{
	return s->descending ? b->counts[0] < a->counts[0] :
			       a->counts[0] < b->counts[0];
}

static void swap_child(struct cg_child *a, struct cg_child *b)
{
	struct cg_child t = *a;

	*a = *b;
	*b = t;
}

static void unguarded_linear_insert(const struct child_sort *s, struct cg_child *last)
{
	struct cg_child val = *last;
	struct cg_child *next = last - 1;

	while (child_less(s, &val, next)) {
		*last = *next;
		last = next;
		next--;
	}
	*last = val;
}

static void insertion_sort(const struct child_sort *s, struct cg_child *first,
			   struct cg_child *last)
{
	if (first == last)
		return;
	for (struct cg_child *i = first + 1; i != last; i++) {
		if (child_less(s, i, first)) {
			struct cg_child val = *i;

			memmove(first + 1, first, (size_t)(i - first) * sizeof(*i));
			*first = val;
		} else {
			unguarded_linear_insert(s, i);
		}
	}
}

static void adjust_heap(const struct child_sort *s, struct cg_child *first,
			ptrdiff_t hole, ptrdiff_t len, struct cg_child val)
{
	ptrdiff_t top = hole, second = hole, parent;

	while (second < (len - 1) / 2) {
		second = 2 * (second + 1);
		if (child_less(s, &first[second], &first[second - 1]))
			second--;
		first[hole] = first[second];
		hole = second;
	}
	if ((len & 1) == 0 && second == (len - 2) / 2) {
		second = 2 * (second + 1);
		first[hole] = first[second - 1];
		hole = second - 1;
	}
	parent = (hole - 1) / 2;
	while (hole > top && child_less(s, &first[parent], &val)) {
		first[hole] = first[parent];
		hole = parent;
		parent = (hole - 1) / 2;
	}
	first[hole] = val;
}

static void heap_sort(const struct child_sort *s, struct cg_child *first,
		      struct cg_child *last)
{
	ptrdiff_t len = last - first;

	if (len >= 2)
		for (ptrdiff_t parent = (len - 2) / 2; ; parent--) {
			adjust_heap(s, first, parent, len, first[parent]);
			if (!parent)
				break;
		}
	while (last - first > 1) {
		struct cg_child val;

		last--;
		val = *last;
		*last = *first;
		adjust_heap(s, first, 0, last - first, val);
	}
}

static void median_to_first(const struct child_sort *s, struct cg_child *result,
			    struct cg_child *a, struct cg_child *b,
			    struct cg_child *c)
{
	if (child_less(s, a, b)) {
		if (child_less(s, b, c))
			swap_child(result, b);
		else if (child_less(s, a, c))
			swap_child(result, c);
		else
			swap_child(result, a);
	} else if (child_less(s, a, c)) {
		swap_child(result, a);
	} else if (child_less(s, b, c)) {
		swap_child(result, c);
	} else {
		swap_child(result, b);
	}
}

static struct cg_child *unguarded_partition(const struct child_sort *s,
					    struct cg_child *first,
					    struct cg_child *last,
					    struct cg_child *pivot)
{
	for (;;) {
		while (child_less(s, first, pivot))
			first++;
		last--;
		while (child_less(s, pivot, last))
			last--;
		if (!(first < last))
			return first;
		swap_child(first, last);
		first++;
	}
}

static void introsort_loop(const struct child_sort *s, struct cg_child *first,
			   struct cg_child *last, int depth)
{
	while (last - first > 16) {
		struct cg_child *mid, *cut;

		if (!depth) {
			heap_sort(s, first, last);
			return;
		}
		depth--;
		mid = first + (last - first) / 2;
		median_to_first(s, first, first + 1, mid, last - 1);
		cut = unguarded_partition(s, first + 1, last, first);
		introsort_loop(s, cut, last, depth);
		last = cut;
	}
}

static void std_sort(struct cg_child *v, size_t n, bool descending)
{
	struct child_sort s = { descending };
	int lg = 0;

	if (n < 2)
		return;
	for (size_t k = n; k > 1; k >>= 1)
		lg++;
	introsort_loop(&s, v, v + n, 2 * lg);
	if (n > 16) {
		insertion_sort(&s, v, v + 16);
		for (struct cg_child *i = v + 16; i != v + n; i++)
			unguarded_linear_insert(&s, i);
	} else {
		insertion_sort(&s, v, v + n);
	}
}

/* ---- blocks ---- */

static int child_node_cmp(const void *a, const void *b, void *vctx)
{
	const struct cg_ctx *c = vctx;

	return node_cmp(&c->nodes[((const struct cg_child *)a)->node],
			&c->nodes[((const struct cg_child *)b)->node]);
}

/* Fill b for node: its arcs in symbol order, self last among the callees,
 * sorted by count and cut by the threshold as OProfile cuts them. */
static int block_fill(const struct cg_ctx *c, struct cg_block *b,
		      const size_t *in, size_t nr_in, const size_t *out_,
		      size_t nr_out, double threshold)
{
	size_t k;

	b->callers = calloc(nr_in ? nr_in : 1, sizeof(*b->callers));
	b->callees = calloc(nr_out + 1, sizeof(*b->callees));
	b->caller_total = calloc(c->nc, sizeof(uint64_t));
	b->callee_total = calloc(c->nc, sizeof(uint64_t));
	if (!b->callers || !b->callees || !b->caller_total || !b->callee_total)
		return -ENOMEM;
	for (k = 0; k < nr_in; k++) {
		const struct cg_arc *a = &c->arcs[in[k]];

		b->callers[k] = (struct cg_child){ a->from, a->counts, false };
		for (size_t x = 0; x < c->nc; x++)
			b->caller_total[x] += a->counts[x];
	}
	b->nr_callers = nr_in;
	for (k = 0; k < nr_out; k++) {
		const struct cg_arc *a = &c->arcs[out_[k]];

		b->callees[k] = (struct cg_child){ a->to, a->counts, false };
		for (size_t x = 0; x < c->nc; x++)
			b->callee_total[x] += a->counts[x];
	}
	qsort_r(b->callers, nr_in, sizeof(*b->callers), child_node_cmp, (void *)c);
	qsort_r(b->callees, nr_out, sizeof(*b->callees), child_node_cmp, (void *)c);
	b->callees[nr_out] = (struct cg_child){ b->node, c->nodes[b->node].self, true };
	for (size_t x = 0; x < c->nc; x++)
		b->callee_total[x] += c->nodes[b->node].self[x];
	b->nr_callees = nr_out + 1;
	std_sort(b->callers, b->nr_callers, false);
	std_sort(b->callees, b->nr_callees, true);
	/* callers come fewest first: the ones under the threshold lead */
	for (k = 0; k < b->nr_callers &&
	     pp_cg_ratio(b->callers[k].counts[0], b->caller_total[0]) < threshold; k++)
		;
	if (k < b->nr_callers) {
		memmove(b->callers, b->callers + k, (b->nr_callers - k) * sizeof(*b->callers));
		b->nr_callers -= k;
	}
	for (k = 0; k < b->nr_callees &&
	     pp_cg_ratio(b->callees[k].counts[0], b->callee_total[0]) >= threshold; k++)
		;
	b->nr_callees = k;
	return 0;
}

static const char *debug_key(const char *src, bool long_names)
{
	const char *slash;

	if (!src)
		return "";
	slash = long_names ? NULL : strrchr(src, '/');
	return slash ? slash + 1 : src;
}

static int key_cmp(const struct cg_ctx *c, enum pp_sort_key k,
		   const struct cg_node *x, const struct cg_node *y)
{
	int r;

	switch (k) {
	case PP_SORT_SAMPLE:
		return (x->self[0] < y->self[0]) - (x->self[0] > y->self[0]);
	case PP_SORT_IMAGE:
		return strcmp(c->v->img_names[x->image], c->v->img_names[y->image]);
	case PP_SORT_APP:
		return strcmp(c->v->app_names[x->image], c->v->app_names[y->image]);
	case PP_SORT_SYMBOL:
		return strcmp(x->shown, y->shown);
	case PP_SORT_DEBUG:
		r = strcmp(debug_key(x->src, c->o->long_filenames),
			   debug_key(y->src, c->o->long_filenames));
		return r ? r : (x->line > y->line) - (x->line < y->line);
	case PP_SORT_VMA:
		return (x->vma > y->vma) - (x->vma < y->vma);
	}
	return 0;
}

/* The blocks' order: -l's (the --sort keys, then the others), stable over
 * OProfile's symbol order. XML takes no --sort: its keys are application
 * and image, so that each application's blocks come together. */
static int block_cmp(const void *a, const void *b, void *vctx)
{
	static const enum pp_sort_key all[] = {
		PP_SORT_SAMPLE, PP_SORT_IMAGE, PP_SORT_APP, PP_SORT_SYMBOL,
		PP_SORT_DEBUG, PP_SORT_VMA,
	};
	static const enum pp_sort_key xml[] = { PP_SORT_APP, PP_SORT_IMAGE };
	const struct cg_ctx *c = vctx;
	const struct cg_block *bx = a, *by = b;
	const struct cg_node *x = &c->nodes[bx->node], *y = &c->nodes[by->node];
	const enum pp_sort_key *sort = c->o->xml ? xml : c->o->sort;
	size_t nr_sort = c->o->xml ? 2 : c->o->nr_sort;
	int r = 0;

	for (size_t k = 0; k < nr_sort && !r; k++)
		r = key_cmp(c, sort[k], x, y);
	for (size_t k = 0; k < sizeof(all) / sizeof(all[0]) && !r; k++) {
		bool given = false;

		for (size_t u = 0; u < nr_sort; u++)
			given |= sort[u] == all[k];
		if (!given)
			r = key_cmp(c, all[k], x, y);
	}
	if (c->o->reverse)
		r = -r;
	return r ? r : node_cmp(x, y);
}

static int arc_to_cmp(const void *a, const void *b, void *vctx)
{
	const struct cg_ctx *c = vctx;
	const struct cg_arc *x = &c->arcs[*(const size_t *)a];
	const struct cg_arc *y = &c->arcs[*(const size_t *)b];

	return (x->to > y->to) - (x->to < y->to);
}

static int arc_from_cmp(const void *a, const void *b, void *vctx)
{
	const struct cg_ctx *c = vctx;
	const struct cg_arc *x = &c->arcs[*(const size_t *)a];
	const struct cg_arc *y = &c->arcs[*(const size_t *)b];

	return (x->from > y->from) - (x->from < y->from);
}

/* The blocks to print, in OProfile's order. */
int pp_cg_make_blocks(struct cg_ctx *c, struct cg_block **out, size_t *nr)
{
	size_t nn = c->nr_nodes, na = c->nr_arcs, nb = 0;
	size_t *order = malloc((nn ? nn : 1) * sizeof(*order));
	size_t *by_to = malloc((na ? na : 1) * sizeof(*by_to));
	size_t *by_from = malloc((na ? na : 1) * sizeof(*by_from));
	size_t *to_first = calloc(nn + 1, sizeof(*to_first));
	size_t *from_first = calloc(nn + 1, sizeof(*from_first));
	struct cg_block *blocks = calloc(nn ? nn : 1, sizeof(*blocks));
	double threshold = c->o->threshold / 100.0;
	int ret = -ENOMEM;

	if (!order || !by_to || !by_from || !to_first || !from_first || !blocks)
		goto out;
	for (size_t i = 0; i < na; i++)
		by_to[i] = by_from[i] = i;
	if (na) {
		qsort_r(by_to, na, sizeof(*by_to), arc_to_cmp, c);
		qsort_r(by_from, na, sizeof(*by_from), arc_from_cmp, c);
	}
	for (size_t i = 0; i < na; i++) {
		to_first[c->arcs[i].to + 1]++;
		from_first[c->arcs[i].from + 1]++;
	}
	for (size_t i = 0; i < nn; i++) {
		to_first[i + 1] += to_first[i];
		from_first[i + 1] += from_first[i];
	}
	for (size_t i = 0; i < nn; i++)
		order[i] = i;
	if (nn)
		qsort_r(order, nn, sizeof(*order), node_qcmp, c);
	for (size_t k = 0; k < nn; k++) {
		size_t i = order[k];
		const struct cg_node *n = &c->nodes[i];

		if (pp_cg_ratio(n->self[0], c->total[0]) < threshold)
			continue;
		if (!pp_cg_name_selected(c->o, n->shown))
			continue;
		blocks[nb].node = i;
		ret = block_fill(c, &blocks[nb], by_to + to_first[i],
				 to_first[i + 1] - to_first[i],
				 by_from + from_first[i],
				 from_first[i + 1] - from_first[i], threshold);
		nb++;
		if (ret)
			goto out;
	}
	/* stable: ties keep the symbol order (block_cmp ends on it) */
	if (nb)
		qsort_r(blocks, nb, sizeof(*blocks), block_cmp, c);
	ret = 0;
out:
	free(order);
	free(by_to);
	free(by_from);
	free(to_first);
	free(from_first);
	*out = blocks;
	*nr = nb;
	return ret;
}

void pp_cg_blocks_free(struct cg_block *b, size_t nr)
{
	for (size_t i = 0; b && i < nr; i++) {
		free(b[i].callers);
		free(b[i].callees);
		free(b[i].caller_total);
		free(b[i].callee_total);
	}
	free(b);
}
