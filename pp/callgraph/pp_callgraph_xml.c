/* opreport -c -X: the blocks of pp_cg_blocks.c as OProfile's XML writes a
 * call graph, so that a script reading OProfile's reads ours. The shape is
 * the flat XML's (report/pp_xml.c, which also writes what comes before the
 * body), with each <symbol> holding its <callers> and <callees>; it is a
 * room of its own because the flat XML walks the view's rows and this one
 * walks blocks, with rules of its own:
 *   - every block is listed, even one without samples of its own;
 *   - a symbol is numbered (idref) the first time its image and name are
 *     written, callers and callees included, and a callee "[self]" points
 *     at its block's symbol with self="true";
 *   - <binary> and <module> elements are cut from the blocks' order (by
 *     application, then image) exactly as OProfile's xml_utils cuts them;
 *   - <symboltable> lists each number once, in the order of the blocks,
 *     each block's symbol before its callers and callees. */
#include "config.h"
#include "pp_callgraph.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pp_cg.h"
#include "pp_report.h"

struct cg_xml {
	FILE *out;
	const struct cg_ctx *c;
	const struct cg_block *blocks;
	size_t nr;
	struct pp_xml_head head;
	bool vma64;
	/* per node: the node whose number it shares (the first with its
	 * image and name), and per such node its number or SIZE_MAX */
	size_t *rep;
	size_t *id_of;
	bool *written;			/* per node (a rep): in <symboltable> */
	size_t next_id;
};

static const char *node_img(const struct cg_xml *x, size_t node)
{
	return x->c->v->img_long[x->c->nodes[node].image];
}

static const char *node_app(const struct cg_xml *x, size_t node)
{
	return x->c->v->app_long[x->c->nodes[node].image];
}

/* The counts of classes [lo, hi] that are not zero. */
static void xml_counts(const struct cg_xml *x, const uint64_t *counts,
		       size_t lo, size_t hi)
{
	for (size_t k = lo; k <= hi; k++) {
		if (!counts[k])
			continue;
		if (x->head.subclasses)
			fprintf(x->out, "<count  class=\"c%zu\">\n", x->head.sub[k]);
		else
			fputs("<count>\n", x->out);
		fprintf(x->out, "%" PRIu64 "</count>\n", counts[k]);
	}
}

static size_t node_id(struct cg_xml *x, size_t node)
{
	size_t r = x->rep[node];

	if (x->id_of[r] == SIZE_MAX)
		x->id_of[r] = x->next_id++;
	return x->id_of[r];
}

/* Callers or callees: with is_module (the block is in a <module>), each
 * in a <module> of its own image. */
static void xml_children(struct cg_xml *x, const struct cg_block *b,
			 const struct cg_child *ch, size_t n, bool is_module)
{
	for (size_t k = 0; k < n; k++) {
		if (is_module) {
			fputs("<module ", x->out);
			pp_xml_attr(x->out, "name", node_img(x, ch[k].node));
			fputs(">\n", x->out);
		}
		fprintf(x->out, "<symbol  idref=\"%zu\"%s>\n",
			node_id(x, ch[k].self ? b->node : ch[k].node),
			ch[k].self ? " self=\"true\"" : "");
		xml_counts(x, ch[k].counts, 0, x->c->nc - 1);
		fputs("</symbol>\n", x->out);
		if (is_module)
			fputs("</module>\n", x->out);
	}
}

static void xml_symbol(struct cg_xml *x, const struct cg_block *b,
		       bool is_module)
{
	const struct cg_node *n = &x->c->nodes[b->node];

	fprintf(x->out, "<symbol  idref=\"%zu\">\n", node_id(x, b->node));
	fputs("<callers>\n", x->out);
	xml_children(x, b, b->callers, b->nr_callers, is_module);
	fputs("</callers>\n<callees>\n", x->out);
	xml_children(x, b, b->callees, b->nr_callees, is_module);
	fputs("</callees>\n", x->out);
	xml_counts(x, n->self, 0, x->c->nc - 1);
	fputs("</symbol>\n", x->out);
}

/* A run of blocks [begin, end) and its summary. */
struct xml_run {
	const char *name;
	size_t begin, end;		/* SIZE_MAX: not set yet */
	uint64_t *sum;			/* [nc] */
};

static void run_add(const struct cg_xml *x, struct xml_run *r, size_t i)
{
	const uint64_t *self = x->c->nodes[x->blocks[i].node].self;

	for (size_t k = 0; k < x->c->nc; k++)
		r->sum[k] += self[k];
}

static void run_end(struct xml_run *r, size_t i)
{
	if (r->end == SIZE_MAX)
		r->end = i;
}

static void xml_run(struct cg_xml *x, const struct xml_run *r, bool is_module)
{
	for (size_t i = r->begin; r->begin != SIZE_MAX && i < r->end; i++)
		xml_symbol(x, &x->blocks[i], is_module);
}

/* One <binary>: blocks [from, to) share its application. As OProfile's
 * xml_utils: the application's own symbols from the first of them to the
 * first module that follows, and a <module> per run of another image,
 * each from its first block to where the next run (or the application's
 * own symbols) starts; the binary's summary is its own symbols'. */
static int xml_binary(struct cg_xml *x, size_t from, size_t to)
{
	size_t nc = x->c->nc, nr_mods = 0;
	struct xml_run bin = { node_app(x, x->blocks[from].node), SIZE_MAX, SIZE_MAX, NULL };
	struct xml_run *mods = calloc(to - from, sizeof(*mods));
	uint64_t *sums = calloc((to - from + 1) * nc, sizeof(*sums));

	if (!mods || !sums) {
		free(mods);
		free(sums);
		return -ENOMEM;
	}
	bin.sum = sums;
	for (size_t i = from; i < to; i++) {
		const char *img = node_img(x, x->blocks[i].node);
		struct xml_run *m = nr_mods ? &mods[nr_mods - 1] : NULL;

		if (!strcmp(img, bin.name)) {
			if (bin.begin == SIZE_MAX)
				bin.begin = i;
			if (m)
				run_end(m, i);
			run_add(x, &bin, i);
			continue;
		}
		if (!m || strcmp(img, m->name)) {
			if (m)
				run_end(m, i);
			if (bin.begin != SIZE_MAX)
				run_end(&bin, i);
			m = &mods[nr_mods++];
			*m = (struct xml_run){ img, i, SIZE_MAX, sums + nr_mods * nc };
		}
		run_add(x, m, i);
	}
	run_end(&bin, to);
	if (nr_mods)
		run_end(&mods[nr_mods - 1], to);

	fputs("<binary ", x->out);
	pp_xml_attr(x->out, "name", bin.name);
	fputs(">\n", x->out);
	xml_counts(x, bin.sum, 0, nc - 1);
	xml_run(x, &bin, false);
	for (size_t k = 0; k < nr_mods; k++) {
		fputs("<module ", x->out);
		pp_xml_attr(x->out, "name", mods[k].name);
		fputs(">\n", x->out);
		xml_counts(x, mods[k].sum, 0, nc - 1);
		xml_run(x, &mods[k], true);
		fputs("</module>\n", x->out);
	}
	fputs("</binary>\n", x->out);
	free(mods);
	free(sums);
	return 0;
}

static void xml_symboldata(struct cg_xml *x, size_t node)
{
	const struct cg_node *n = &x->c->nodes[node];
	size_t r = x->rep[node];

	if (x->id_of[r] == SIZE_MAX || x->written[r])
		return;
	x->written[r] = true;
	fprintf(x->out, "<symboldata  id=\"%zu\"  name=\"", x->id_of[r]);
	pp_xml_escape(x->out, n->shown);
	fputc('"', x->out);
	if (x->c->o->debug_info && n->src) {
		pp_xml_attr(x->out, "file", n->src);
		fprintf(x->out, " line=\"%d\"", n->line);
	}
	fprintf(x->out, "  startingaddr=\"%0*" PRIx64 "\"/>\n", x->vma64 ? 16 : 8,
		n->vma);
}

static void xml_symboltable(struct cg_xml *x)
{
	fputs("<symboltable>\n", x->out);
	for (size_t i = 0; i < x->nr; i++) {
		const struct cg_block *b = &x->blocks[i];

		xml_symboldata(x, b->node);
		for (size_t k = 0; k < b->nr_callers; k++)
			xml_symboldata(x, b->callers[k].node);
		/* a "[self]" is named by its own image and "NAME [self]",
		 * which no symbol is: OProfile's table skips it */
		for (size_t k = 0; k < b->nr_callees; k++)
			if (!b->callees[k].self)
				xml_symboldata(x, b->callees[k].node);
	}
	fputs("</symboltable>\n", x->out);
}

static int rep_cmp(const void *a, const void *b, void *vctx)
{
	const struct cg_xml *x = vctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int r = strcmp(node_img(x, i), node_img(x, j));

	if (!r)
		r = strcmp(x->c->nodes[i].raw, x->c->nodes[j].raw);
	return r ? r : (i > j) - (i < j);
}

/* OProfile numbers symbols by "image:name": a library's symbol called
 * under two applications is one number. */
static int share_ids(struct cg_xml *x)
{
	size_t nn = x->c->nr_nodes;
	size_t *ord = malloc((nn ? nn : 1) * sizeof(*ord));

	if (!ord)
		return -ENOMEM;
	for (size_t i = 0; i < nn; i++)
		ord[i] = i;
	if (nn)
		qsort_r(ord, nn, sizeof(*ord), rep_cmp, x);
	for (size_t k = 0, first = 0; k < nn; k++) {
		if (strcmp(node_img(x, ord[k]), node_img(x, ord[first])) ||
		    strcmp(x->c->nodes[ord[k]].raw, x->c->nodes[ord[first]].raw))
			first = k;
		x->rep[ord[k]] = ord[first];
		x->id_of[ord[k]] = SIZE_MAX;
	}
	free(ord);
	return 0;
}

int pp_cg_print_xml(FILE *out, const struct cg_ctx *c,
		    const struct cg_block *blocks, size_t nr)
{
	struct cg_xml x = { .out = out, .c = c, .blocks = blocks, .nr = nr };
	size_t nn = c->nr_nodes ? c->nr_nodes : 1;
	char *head = NULL;
	size_t head_len = 0;
	FILE *hf;
	int ret;

	/* the head apart first: a report OProfile would write as
	 * processes and threads is refused before a line is written */
	hf = open_memstream(&head, &head_len);
	if (!hf)
		return -ENOMEM;
	ret = pp_xml_prologue(hf, c->p, c->v, c->o, &x.head);
	if (fclose(hf) && !ret)
		ret = -ENOMEM;
	/* OProfile writes <process>/<thread> elements whenever the first
	 * column's tid is not "all", --merge=tid (tgid, all) included */
	if (!ret && (x.head.by_thread || c->merge->tid))
		ret = -EOPNOTSUPP;
	if (ret)
		goto out;
	x.rep = malloc(nn * sizeof(*x.rep));
	x.id_of = malloc(nn * sizeof(*x.id_of));
	x.written = calloc(nn, sizeof(*x.written));
	if (!x.rep || !x.id_of || !x.written) {
		ret = -ENOMEM;
		goto out;
	}
	ret = share_ids(&x);
	if (ret)
		goto out;
	for (size_t i = 0; i < nr; i++)
		if (c->nodes[blocks[i].node].vma > 0xffffffffULL)
			x.vma64 = true;
	fwrite(head, 1, head_len, out);
	for (size_t i = 0, j; i < nr && !ret; i = j) {
		const char *app = node_app(&x, blocks[i].node);

		for (j = i; j < nr && !strcmp(node_app(&x, blocks[j].node), app); j++)
			;
		ret = xml_binary(&x, i, j);
	}
	if (!ret) {
		xml_symboltable(&x);
		fputs("</profile>\n", out);
	}
out:
	free(head);
	pp_xml_head_release(&x.head);
	free(x.rep);
	free(x.id_of);
	free(x.written);
	return ret;
}
