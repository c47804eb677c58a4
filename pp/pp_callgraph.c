/* opreport -c. The arcs of every selected {cg} file are named by symbols and
 * summed per pair of symbols, then printed as OProfile's opreport prints a
 * call graph. Most of this file is about order: OProfile's is a product of
 * its containers, not of a rule, and a report that is to read the same must
 * rebuild the same containers' order (see "order" below). */
#include "config.h"
#include "pp_callgraph.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "odb.h"
#include "op_kernel.h"
#include "op_names.h"
#include "pp_symbols.h"
#include "pp_symview.h"

/* ---- small maps ---- */

/* u64 -> size_t, open addressing; key UINT64_MAX is never used. */
struct u64map {
	uint64_t *keys;
	size_t *vals;
	size_t cap, n;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static int u64map_grow(struct u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	uint64_t *keys = malloc(cap * sizeof(*keys));
	size_t *vals = malloc(cap * sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	memset(keys, 0xff, cap * sizeof(*keys));
	for (size_t i = 0; i < m->cap; i++) {
		size_t h;

		if (m->keys[i] == UINT64_MAX)
			continue;
		for (h = mix64(m->keys[i]) & (cap - 1); keys[h] != UINT64_MAX;
		     h = (h + 1) & (cap - 1))
			;
		keys[h] = m->keys[i];
		vals[h] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

/* The slot of key: *found tells whether it holds key already. NULL on
 * ENOMEM. The slot is valid until the next insertion. */
static size_t *u64map_slot(struct u64map *m, uint64_t key, bool *found)
{
	size_t h;

	if ((m->n + 1) * 2 > m->cap && u64map_grow(m))
		return NULL;
	for (h = mix64(key) & (m->cap - 1); m->keys[h] != UINT64_MAX;
	     h = (h + 1) & (m->cap - 1)) {
		if (m->keys[h] == key) {
			*found = true;
			return &m->vals[h];
		}
	}
	*found = false;
	m->keys[h] = key;
	m->n++;
	return &m->vals[h];
}

static bool u64map_get(const struct u64map *m, uint64_t key, size_t *val)
{
	if (!m->cap)
		return false;
	for (size_t h = mix64(key) & (m->cap - 1); m->keys[h] != UINT64_MAX;
	     h = (h + 1) & (m->cap - 1)) {
		if (m->keys[h] == key) {
			*val = m->vals[h];
			return true;
		}
	}
	return false;
}

static void u64map_release(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* Strings numbered in the order they were first seen, as OProfile's name
 * storage numbers them. The strings are not copied: they live in the
 * symbol tables and the view, which outlive the report. */
struct interner {
	const char **keys;
	uint32_t *ids;
	size_t cap, n;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int intern(struct interner *in, const char *s)
{
	size_t h;

	if ((in->n + 1) * 2 > in->cap) {
		size_t cap = in->cap ? in->cap * 2 : 1024;
		const char **keys = calloc(cap, sizeof(*keys));
		uint32_t *ids = malloc(cap * sizeof(*ids));

		if (!keys || !ids) {
			free(keys);
			free(ids);
			return -ENOMEM;
		}
		for (size_t i = 0; i < in->cap; i++) {
			if (!in->keys[i])
				continue;
			for (h = str_hash(in->keys[i]) & (cap - 1); keys[h];
			     h = (h + 1) & (cap - 1))
				;
			keys[h] = in->keys[i];
			ids[h] = in->ids[i];
		}
		free(in->keys);
		free(in->ids);
		in->keys = keys;
		in->ids = ids;
		in->cap = cap;
	}
	for (h = str_hash(s) & (in->cap - 1); in->keys[h]; h = (h + 1) & (in->cap - 1))
		if (!strcmp(in->keys[h], s))
			return 0;
	in->keys[h] = s;
	in->ids[h] = (uint32_t)++in->n;
	return 0;
}

/* The number of s, or UINT32_MAX when it was never seen. */
static uint32_t interned_id(const struct interner *in, const char *s)
{
	if (!in->cap)
		return UINT32_MAX;
	for (size_t h = str_hash(s) & (in->cap - 1); in->keys[h];
	     h = (h + 1) & (in->cap - 1))
		if (!strcmp(in->keys[h], s))
			return in->ids[h];
	return UINT32_MAX;
}

static void interner_release(struct interner *in)
{
	free(in->keys);
	free(in->ids);
	memset(in, 0, sizeof(*in));
}

/* ---- the graph ---- */

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
	uint32_t img_id, app_id, name_id;	/* order, see node_less() */
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
	size_t nr_nodes;
	struct cg_arc *arcs;
	size_t nr_arcs;
	size_t nr_bad;
	struct klines *klines;		/* the kernel's lines, read on first use */
};

static bool name_in(char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

static bool name_selected(const struct pp_report_opts *o, const char *name)
{
	if (o->include_symbols && !name_in(o->include_symbols, name))
		return false;
	return !name_in(o->exclude_symbols, name);
}

/* Whether a row of the flat view is among OProfile's symbols with samples,
 * which its call graph counts and takes self counts from: -i/-e leave
 * rows out, but for the kernel read from kallsyms, whose reader takes no
 * filter. */
static bool in_flat(const struct cg_ctx *c, size_t image, const char *name)
{
	const struct op_img *img = &c->p->images[image].img;

	if (img->kind == OP_IMG_KERN && op_img_is_kernel(img) && !c->o->vmlinux)
		return true;
	return name_selected(c->o, name);
}

/* -x leaves out a file of a dependent image, and an arc file unless
 * caller, callee and application are one image (OProfile's is_dependent). */
static bool excluded(const struct cg_ctx *c, const struct pp_sfile *f)
{
	if (!c->o->exclude_dependent)
		return false;
	return !pp_img_equal(&f->name.image, &f->name.dep) ||
	       (f->name.cg.path && !pp_img_equal(&f->name.cg, &f->name.image));
}

/* The symbols OProfile reads for an image, as the flat view decides them:
 * none when the table failed, is empty, or is .dynsym alone without
 * --dynamic-symbols. */
static const struct pp_symtab *image_tab(const struct cg_ctx *c, size_t i)
{
	const struct pp_symview *v = c->v;
	const struct pp_symtab *st;

	if (v->img_tab[i] == SIZE_MAX || v->tabs[v->img_tab[i]].status)
		return NULL;
	st = &v->tabs[v->img_tab[i]].st;
	if (!st->nr_syms || (st->dynsym_only && !c->o->dynamic_symbols))
		return NULL;
	return st;
}

/* The name OProfile gives the one symbol of an image without symbols: its
 * file name (a module's "/NAME"), as the flat view names that row. */
static char *pseudo_name(const struct op_img *img)
{
	char *name;

	if (img->kind == OP_IMG_KERN && img->path[0] != '/') {
		if (asprintf(&name, "/%s", img->path) < 0)
			return NULL;
		return name;
	}
	name = op_img_display(img, 1);
	return name ? name : strdup(img->path ? img->path : "?");
}

static uint64_t node_key(size_t image, const struct pp_symtab *st,
			 const struct pp_sym *sym)
{
	uint64_t slot = sym ? (uint64_t)(sym - st->syms) + 1 : 0;

	return (uint64_t)image << 32 | slot;
}

/* The node of (image, sym), made on first use. SIZE_MAX on ENOMEM. */
static size_t node_get(struct cg_ctx *c, size_t image, const struct pp_sym *sym)
{
	const struct pp_symtab *st = c->tab[image];
	uint64_t key = node_key(image, st, sym);
	struct cg_node *n;
	size_t *slot, e;
	bool found;

	slot = u64map_slot(&c->node_of, key, &found);
	if (!slot)
		return SIZE_MAX;
	if (found)
		return *slot;
	*slot = c->nr_nodes;
	if (c->nr_nodes % 256 == 0) {
		n = realloc(c->nodes, (c->nr_nodes + 256) * sizeof(*n));
		if (!n)
			return SIZE_MAX;
		c->nodes = n;
	}
	n = &c->nodes[c->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->image = image;
	n->sym = sym;
	n->raw = sym ? sym->name : c->pseudo[image];
	n->vma = sym ? sym->start : 0;
	n->size = sym ? sym->size : 0;
	n->self = c->zero;
	/* its own samples, unless -i/-e left its row out */
	if (u64map_get(&c->entry_of, key, &e) &&
	    in_flat(c, image, c->v->entries[e].name)) {
		const struct pp_entry *fe = &c->v->entries[e];

		n->self = fe->counts;
		n->src = fe->src;
		n->line = fe->line;
		n->shown = strdup(fe->name);
	} else {
		if (sym && c->o->demangle)
			n->shown = pp_demangle(sym->name);
		if (!n->shown)
			n->shown = strdup(n->raw);
		if (c->o->debug_info && st)
			pp_symtab_line(st, n->vma, &n->src, &n->line);
	}
	if (!n->shown)
		return SIZE_MAX;
	return c->nr_nodes++;
}

static int arc_add(struct cg_ctx *c, size_t from, size_t to, size_t cls,
		   uint64_t count)
{
	size_t *slot;
	bool found;

	slot = u64map_slot(&c->arc_of, (uint64_t)from << 32 | to, &found);
	if (!slot)
		return -ENOMEM;
	if (!found) {
		struct cg_arc *a;

		*slot = c->nr_arcs;
		if (c->nr_arcs % 256 == 0) {
			a = realloc(c->arcs, (c->nr_arcs + 256) * sizeof(*a));
			if (!a)
				return -ENOMEM;
			c->arcs = a;
		}
		a = &c->arcs[c->nr_arcs];
		a->from = from;
		a->to = to;
		a->counts = calloc(c->nc, sizeof(*a->counts));
		if (!a->counts)
			return -ENOMEM;
		c->nr_arcs++;
	}
	c->arcs[*slot].counts[cls] += count;
	return 0;
}

/* ---- order ----
 *
 * OProfile numbers image, application and symbol names as it first meets
 * them and orders symbols by those numbers (then address and size): the
 * order of the blocks where the sort keys tie, and of callers and callees
 * before they are sorted by count. It meets them in two passes:
 *   1. the flat profile: images in name order, then per class the
 *      applications, and each symbol with samples there in address order;
 *   2. the arc files of each (image, class, application) in that order,
 *      those of one event, cpu, tid... together, in path order: both
 *      images and the application, then every symbol of the caller's
 *      image in address order, each followed by the callees of its arcs.
 * The passes below go the same way and number the same strings. */

static int by_img_then_app(const void *a, const void *b, void *vctx)
{
	const struct cg_ctx *c = vctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int r = strcmp(c->v->img_long[x], c->v->img_long[y]);

	return r ? r : strcmp(c->v->app_long[x], c->v->app_long[y]);
}

static int entry_vma_cmp(const void *a, const void *b, void *vctx)
{
	const struct pp_symview *v = vctx;
	const struct pp_entry *x = &v->entries[*(const size_t *)a];
	const struct pp_entry *y = &v->entries[*(const size_t *)b];

	return (x->vma > y->vma) - (x->vma < y->vma);
}

/* Pass 1 for image i (one application's samples in one image), class cls. */
static int pass_flat(struct cg_ctx *c, size_t i, size_t cls,
		     const size_t *ent, size_t nr_ent)
{
	for (size_t k = 0; k < nr_ent; k++) {
		const struct pp_entry *e = &c->v->entries[ent[k]];

		if (e->image != i || !e->counts[cls] || !in_flat(c, i, e->name))
			continue;
		if (intern(&c->names, e->sym ? e->sym->name : c->pseudo[i]) ||
		    intern(&c->images, c->v->img_long[i]) ||
		    intern(&c->images, c->v->app_long[i]))
			return -ENOMEM;
	}
	return 0;
}

/* One sample file's offsets, for pass_flat_file(). */
struct off_read {
	uint64_t *v;
	size_t n, alloc;
	int err;
};

static int read_off(uint64_t key, uint64_t count, void *vctx)
{
	struct off_read *r = vctx;

	if (!count)
		return 0;
	if (r->n == r->alloc) {
		size_t na = r->alloc ? r->alloc * 2 : 256;
		uint64_t *v = realloc(r->v, na * sizeof(*v));

		if (!v) {
			r->err = -ENOMEM;
			return 1;
		}
		r->v = v;
		r->alloc = na;
	}
	r->v[r->n++] = key;
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Pass 1 with --merge=lib, where OProfile reads each sample file on its
 * own: the symbols with samples in file f of image i, in address order. */
static int pass_flat_file(struct cg_ctx *c, const struct pp_sfile *f, size_t i)
{
	const struct pp_symtab *st = c->tab[i];
	struct off_read r = { 0 };
	uint64_t *syms;
	size_t n = 0;
	odb_t db;
	int ret = 0;

	if (odb_open(&db, f->path, ODB_RDONLY))
		return 0;	/* logged by pp_profile_load() */
	odb_for_each(&db, read_off, &r);
	odb_close(&db);
	if (r.err) {
		free(r.v);
		return r.err;
	}
	/* symbols by table index (address order); 0: outside every one */
	syms = malloc((r.n ? r.n : 1) * sizeof(*syms));
	if (!syms) {
		free(r.v);
		return -ENOMEM;
	}
	for (size_t k = 0; k < r.n; k++) {
		const struct pp_sym *sym = NULL;

		if (st)
			sym = pp_symtab_lookup(st, pp_symtab_off_to_vma(st, r.v[k]));
		if (st && !sym && !st->partial)
			continue;
		syms[n++] = sym ? (uint64_t)(sym - st->syms) + 1 : 0;
	}
	qsort(syms, n, sizeof(*syms), u64_cmp);
	for (size_t k = 0; k < n && !ret; k++) {
		size_t e;

		if (k && syms[k] == syms[k - 1])
			continue;
		if (!u64map_get(&c->entry_of, (uint64_t)i << 32 | syms[k], &e) ||
		    !in_flat(c, i, c->v->entries[e].name))
			continue;
		if (intern(&c->names, syms[k] ? st->syms[syms[k] - 1].name : c->pseudo[i]) ||
		    intern(&c->images, c->v->img_long[i]) ||
		    intern(&c->images, c->v->app_long[i]))
			ret = -ENOMEM;
	}
	free(syms);
	free(r.v);
	return ret;
}

struct raw_arc {
	uint64_t caller, callee;	/* offsets */
	uint64_t count;
	size_t caller_sym;		/* index in the caller's table */
	const struct pp_sym *callee_sym;
};

struct arc_read {
	struct raw_arc *v;
	size_t n, alloc;
	int err;
};

static int read_arc(uint64_t key, uint64_t count, void *vctx)
{
	struct arc_read *r = vctx;

	if (r->n == r->alloc) {
		size_t na = r->alloc ? r->alloc * 2 : 64;
		struct raw_arc *v = realloc(r->v, na * sizeof(*v));

		if (!v) {
			r->err = -ENOMEM;
			return 1;
		}
		r->v = v;
		r->alloc = na;
	}
	r->v[r->n].caller = key >> 32;
	r->v[r->n].callee = key & 0xffffffffu;
	r->v[r->n].count = count;
	r->n++;
	return 0;
}

static int raw_arc_cmp(const void *a, const void *b)
{
	const struct raw_arc *x = a, *y = b;

	if (x->caller_sym != y->caller_sym)
		return x->caller_sym < y->caller_sym ? -1 : 1;
	return (x->callee > y->callee) - (x->callee < y->callee);
}

/* The symbol a callee offset falls in, as OProfile finds it: the last
 * symbol starting at or below it (the first one below every symbol), if
 * the offset is inside it. Images without symbols have one, covering all. */
static bool callee_lookup(const struct pp_symtab *st, uint64_t off,
			  const struct pp_sym **sym)
{
	uint64_t vma;

	*sym = NULL;
	if (!st)
		return true;
	vma = pp_symtab_off_to_vma(st, off);
	*sym = pp_symtab_lookup(st, vma);
	if (!*sym && vma < st->syms[0].start)
		*sym = &st->syms[0];
	/* outside a partial table: the flat view's symbol-less row */
	return *sym || st->partial;
}

/* The kernel's kallsyms lines as OProfile's kallsyms reader keeps them:
 * every line from _text up to _etext, aliases included. An alias reaches
 * nothing and names no sample, but OProfile meets its name when it walks
 * the kernel's symbols, which numbers it (see "order"). */
struct kline {
	uint64_t off;		/* from _text */
	char *name;
};

struct klines {
	struct kline *v;
	size_t n, alloc;
	bool in, done;
	uint64_t text;
	int err;
};

/* OProfile's test for _text and _etext: the line's name is a prefix. */
static bool name_prefix_of(const struct op_ksym_line *l, const char *s)
{
	return l->name_len && l->name_len <= strlen(s) &&
	       !strncmp(l->name, s, l->name_len);
}

static int kline_add(const struct op_ksym_line *l, void *arg)
{
	struct klines *k = arg;

	if (!k->in) {
		if (!name_prefix_of(l, "_text") || !l->addr)
			return 0;
		k->in = true;
		k->text = l->addr;
	} else if (name_prefix_of(l, "_etext")) {
		k->done = true;
		return 1;
	}
	if (k->n == k->alloc) {
		size_t na = k->alloc ? k->alloc * 2 : 4096;
		struct kline *v = realloc(k->v, na * sizeof(*v));

		if (!v)
			goto err_nomem;
		k->v = v;
		k->alloc = na;
	}
	k->v[k->n].off = l->addr - k->text;
	k->v[k->n].name = strndup(l->name, l->name_len);
	if (!k->v[k->n].name)
		goto err_nomem;
	k->n++;
	return 0;

err_nomem:
	k->err = -ENOMEM;
	return 1;
}

static void klines_free(struct klines *k)
{
	for (size_t i = 0; k && i < k->n; i++)
		free(k->v[i].name);
	if (k)
		free(k->v);
	free(k);
}

/* The kernel's lines, or NULL when the file cannot be read (the walk then
 * meets the table's symbols alone). */
static struct klines *kernel_lines(struct cg_ctx *c)
{
	const char *path = c->o->kallsyms ? c->o->kallsyms : "/proc/kallsyms";

	if (c->klines)
		return c->klines->err ? NULL : c->klines;
	c->klines = calloc(1, sizeof(*c->klines));
	if (!c->klines)
		return NULL;
	if (op_kallsyms_each(path, kline_add, c->klines, NULL) < 0 && !c->klines->err)
		c->klines->err = -EIO;
	return c->klines->err ? NULL : c->klines;
}

/* The arcs of one arc file, by caller symbol. */
struct arc_walk {
	struct cg_ctx *c;
	const struct pp_sfile *f;
	size_t ci, ei;
	struct raw_arc *v;
	size_t n;
	bool *done;		/* per caller symbol: arcs added */
};

/* Add the arcs from caller symbol s (of a table; images without symbols
 * call nothing): consecutive callee offsets in one callee symbol make one
 * arc, as OProfile sums them. */
static int walk_caller(struct arc_walk *w, size_t s)
{
	struct cg_ctx *c = w->c;
	const struct pp_symtab *cst = c->tab[w->ci], *est = c->tab[w->ei];
	size_t lo = 0, hi = w->n, k, from = SIZE_MAX;

	if (w->done[s])
		return 0;
	w->done[s] = true;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->v[mid].caller_sym < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < w->n && w->v[k].caller_sym == s; ) {
		const struct pp_sym *esym;
		uint64_t sum = 0;
		size_t to;

		if (!callee_lookup(est, w->v[k].callee, &esym)) {
			op_log(c->lg, OP_LOG_DEBUG, "arc to offset 0x%" PRIx64
			       " outside every symbol of %s left out",
			       w->v[k].callee, c->v->img_long[w->ei]);
			k++;
			continue;
		}
		for (; k < w->n && w->v[k].caller_sym == s; k++) {
			const struct pp_sym *o2;

			if (!callee_lookup(est, w->v[k].callee, &o2) || o2 != esym)
				break;
			sum += w->v[k].count;
		}
		if (intern(&c->names, esym ? esym->name : c->pseudo[w->ei]))
			return -ENOMEM;
		if (from == SIZE_MAX)
			from = node_get(c, w->ci, &cst->syms[s]);
		to = node_get(c, w->ei, esym);
		if (from == SIZE_MAX || to == SIZE_MAX ||
		    arc_add(c, from, to, w->f->cls, sum))
			return -ENOMEM;
	}
	return 0;
}

/* True when ci's symbols are the kernel's from a kallsyms file. */
static bool kallsyms_kernel(const struct cg_ctx *c, size_t ci)
{
	const struct op_img *img = &c->p->images[ci].img;

	return c->tab[ci] && img->kind == OP_IMG_KERN && op_img_is_kernel(img) &&
	       !c->o->vmlinux;
}

/* Meet the caller's symbol names in OProfile's order, adding each one's
 * arcs after its name. */
static int walk_callers(struct arc_walk *w)
{
	struct cg_ctx *c = w->c;
	const struct pp_symtab *cst = c->tab[w->ci];
	size_t tab = c->v->img_tab[w->ci];
	struct klines *kl = NULL;
	size_t s = 0;

	if (!cst)	/* one made-up symbol, which calls nothing */
		return intern(&c->names, c->pseudo[w->ci]);
	if (c->tab_seen[tab]) {
		for (s = 0; s < cst->nr_syms; s++)
			if (walk_caller(w, s))
				return -ENOMEM;
		return 0;
	}
	if (kallsyms_kernel(c, w->ci))
		kl = kernel_lines(c);
	if (!kl) {
		for (s = 0; s < cst->nr_syms; s++)
			if (intern(&c->names, cst->syms[s].name) || walk_caller(w, s))
				return -ENOMEM;
	} else {
		for (size_t j = 0; j < kl->n; j++) {
			if (intern(&c->names, kl->v[j].name))
				return -ENOMEM;
			while (s < cst->nr_syms && cst->syms[s].start < kl->v[j].off)
				s++;
			if (s < cst->nr_syms && cst->syms[s].start == kl->v[j].off &&
			    !strcmp(cst->syms[s].name, kl->v[j].name) &&
			    walk_caller(w, s))
				return -ENOMEM;
		}
		/* symbols the lines did not show (a changed file) */
		for (s = 0; s < cst->nr_syms; s++)
			if (intern(&c->names, cst->syms[s].name) || walk_caller(w, s))
				return -ENOMEM;
	}
	c->tab_seen[tab] = true;
	return 0;
}

/* Pass 2 for one arc file: caller image ci, callee image ei. */
static int pass_arcs(struct cg_ctx *c, const struct pp_sfile *f, size_t ci,
		     size_t ei)
{
	const struct pp_symtab *cst = c->tab[ci];
	struct arc_read r = { 0 };
	struct arc_walk w = { .c = c, .f = f, .ci = ci, .ei = ei };
	odb_t db;
	int err;

	if (intern(&c->images, c->v->img_long[ci]) ||
	    intern(&c->images, c->v->img_long[ei]) ||
	    intern(&c->images, c->v->app_long[ci]))
		return -ENOMEM;
	err = odb_open(&db, f->path, ODB_RDONLY);
	if (err) {
		op_log(c->lg, OP_LOG_ERR, "cannot read arc file %s: %s", f->path,
		       odb_strerror(err));
		c->nr_bad++;
		return 0;
	}
	odb_for_each(&db, read_arc, &r);
	odb_close(&db);
	if (r.err) {
		free(r.v);
		return r.err;
	}
	/* an arc counts when its caller offset is inside a caller symbol,
	 * and never from an image without symbols or a symbol at offset 0
	 * (OProfile's range check) */
	for (size_t j = 0; j < r.n; j++) {
		const struct pp_sym *s = NULL;

		if (cst)
			s = pp_symtab_lookup(cst, pp_symtab_off_to_vma(cst, r.v[j].caller));
		if (s && !cst->is_elf && !s->start)
			s = NULL;
		r.v[j].caller_sym = s ? (size_t)(s - cst->syms) : SIZE_MAX;
	}
	qsort(r.v, r.n, sizeof(*r.v), raw_arc_cmp);
	w.v = r.v;
	w.n = r.n;
	w.done = calloc(cst ? cst->nr_syms : 1, sizeof(*w.done));
	err = w.done ? walk_callers(&w) : -ENOMEM;
	free(w.done);
	free(r.v);
	return err;
}

/* The image of (app, img), or SIZE_MAX. */
static size_t find_image(const struct pp_profile *p, const struct op_img *app,
			 const struct op_img *img)
{
	for (size_t i = 0; i < p->nr_images; i++)
		if (pp_img_equal(&p->images[i].img, img) &&
		    pp_img_equal(&p->images[i].app, app))
			return i;
	return SIZE_MAX;
}

/* An arc file with its place in pass 2. */
struct cg_file {
	const struct pp_sfile *f;
	size_t ci, ei;			/* caller's and callee's images */
	size_t group;			/* its event, cpu... among the pair's */
};

static const char *spec_part(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The groups of OProfile's arrangement: the files of one (application,
 * image) with the same event, cpu, tid... go together, in the order their
 * first file comes in path order (sample files before arc files). */
static void number_groups(const struct pp_profile *p, struct cg_file *cf,
			  size_t n)
{
	for (size_t a = 0; a < n; a++) {
		const char *spec = spec_part(cf[a].f->path);
		size_t flat_before = 0, nr_flat = 0;
		bool has_flat = false;

		for (size_t i = 0; i < p->fs.nr_files; i++) {
			const struct pp_sfile *g = &p->fs.files[i];

			if (g->name.cg.path ||
			    !pp_img_equal(&g->name.image, &cf[a].f->name.image) ||
			    !pp_img_equal(&g->name.dep, &cf[a].f->name.dep))
				continue;
			nr_flat++;
			if (!strcmp(spec_part(g->path), spec))
				has_flat = true;
			else if (strcmp(spec_part(g->path), spec) < 0)
				flat_before++;
		}
		if (has_flat) {
			cf[a].group = flat_before;
			continue;
		}
		/* no sample file: after them, by its first arc file */
		cf[a].group = nr_flat + n;
		for (size_t b = 0; b < n; b++)
			if (cf[b].ci == cf[a].ci &&
			    !strcmp(spec_part(cf[b].f->path), spec) &&
			    strcmp(cf[b].f->path, cf[a].f->path) <= 0 &&
			    nr_flat + b < cf[a].group)
				cf[a].group = nr_flat + b;
	}
}

static int cg_file_cmp(const void *a, const void *b)
{
	const struct cg_file *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return strcmp(x->f->path, y->f->path);
}

static int sfile_path_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct pp_sfile *const *)a)->path,
		      (*(const struct pp_sfile *const *)b)->path);
}

/* Pass 1 of image i, class cls with --merge=lib: its sample files one by
 * one in path order (flat[] is sorted). */
static int pass1_files(struct cg_ctx *c, size_t i, size_t cls,
		       const struct pp_sfile *const *flat, size_t nflat)
{
	for (size_t k = 0; k < nflat; k++) {
		const struct pp_sfile *f = flat[k];
		int ret;

		if (f->cls != cls || find_image(c->p, &f->name.image, &f->name.image) != i)
			continue;
		ret = pass_flat_file(c, f, i);
		if (ret)
			return ret;
	}
	return 0;
}

/* Both passes, in OProfile's order. */
static int build_graph(struct cg_ctx *c)
{
	const struct pp_profile *p = c->p;
	const struct pp_symview *v = c->v;
	size_t n = p->nr_images, nf = 0;
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	size_t *ent = malloc((v->nr_entries ? v->nr_entries : 1) * sizeof(*ent));
	struct cg_file *cf = calloc(p->fs.nr_files ? p->fs.nr_files : 1, sizeof(*cf));
	const struct pp_sfile **flat = calloc(p->fs.nr_files ? p->fs.nr_files : 1,
					      sizeof(*flat));
	size_t nflat = 0;
	int ret = -ENOMEM;

	if (!order || !ent || !cf || !flat)
		goto out;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	if (n)
		qsort_r(order, n, sizeof(*order), by_img_then_app, c);
	for (size_t i = 0; i < v->nr_entries; i++)
		ent[i] = i;
	if (v->nr_entries)
		qsort_r(ent, v->nr_entries, sizeof(*ent), entry_vma_cmp, (void *)v);
	for (size_t i = 0; i < p->fs.nr_files; i++) {
		const struct pp_sfile *f = &p->fs.files[i];
		const struct op_img *app = c->merge->lib ? &f->name.image : &f->name.dep;

		if (!f->name.cg.path || excluded(c, f))
			continue;
		cf[nf].f = f;
		cf[nf].ci = find_image(p, app, &f->name.image);
		cf[nf].ei = find_image(p, app, &f->name.cg);
		if (cf[nf].ci == SIZE_MAX || cf[nf].ei == SIZE_MAX)
			continue;
		nf++;
	}
	/* with --merge=lib every file is on its own, in path order */
	if (!c->merge->lib)
		number_groups(p, cf, nf);
	for (size_t i = 0; i < p->fs.nr_files; i++) {
		const struct pp_sfile *f = &p->fs.files[i];

		if (!f->name.cg.path && !excluded(c, f))
			flat[nflat++] = f;
	}
	if (nflat)
		qsort(flat, nflat, sizeof(*flat), sfile_path_cmp);
	if (nf)
		qsort(cf, nf, sizeof(*cf), cg_file_cmp);
	/* images by name, then by class, then applications */
	for (size_t pass = 1; pass <= 2; pass++) {
		for (size_t a = 0; a < n; ) {
			size_t b = a;

			while (b < n && !strcmp(v->img_long[order[a]], v->img_long[order[b]]))
				b++;
			for (size_t cls = 0; cls < c->nc; cls++) {
				for (size_t k = a; k < b; k++) {
					size_t i = order[k];

					if (pass == 1 && c->merge->lib) {
						ret = pass1_files(c, i, cls, flat, nflat);
						if (ret)
							goto out;
						continue;
					}
					if (pass == 1) {
						ret = pass_flat(c, i, cls, ent, v->nr_entries);
						if (ret)
							goto out;
						continue;
					}
					for (size_t j = 0; j < nf; j++) {
						if (cf[j].ci != i || cf[j].f->cls != cls)
							continue;
						ret = pass_arcs(c, cf[j].f, i, cf[j].ei);
						if (ret)
							goto out;
					}
				}
			}
			a = b;
		}
	}
	/* the symbols with samples, whether or not an arc names them */
	for (size_t i = 0; i < v->nr_entries; i++) {
		const struct pp_entry *e = &v->entries[i];

		if (!in_flat(c, e->image, e->name))
			continue;
		if (node_get(c, e->image, e->sym) == SIZE_MAX)
			goto out;
	}
	for (size_t i = 0; i < c->nr_nodes; i++) {
		struct cg_node *nd = &c->nodes[i];

		nd->img_id = interned_id(&c->images, v->img_long[nd->image]);
		nd->app_id = interned_id(&c->images, v->app_long[nd->image]);
		nd->name_id = interned_id(&c->names, nd->raw);
	}
	ret = 0;
out:
	free(order);
	free(ent);
	free(cf);
	free(flat);
	return ret;
}

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

struct cg_block {
	size_t node;
	struct cg_child *callers, *callees;
	size_t nr_callers, nr_callees;
	uint64_t *caller_total, *callee_total;	/* [nc] */
};

static double ratio(uint64_t n, uint64_t total)
{
	return total ? (double)n / (double)total : 0.0;
}

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
	     ratio(b->callers[k].counts[0], b->caller_total[0]) < threshold; k++)
		;
	if (k < b->nr_callers) {
		memmove(b->callers, b->callers + k, (b->nr_callers - k) * sizeof(*b->callers));
		b->nr_callers -= k;
	}
	for (k = 0; k < b->nr_callees &&
	     ratio(b->callees[k].counts[0], b->callee_total[0]) >= threshold; k++)
		;
	b->nr_callees = k;
	return 0;
}

/* ---- printing ---- */

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
 * OProfile's symbol order. */
static int block_cmp(const void *a, const void *b, void *vctx)
{
	static const enum pp_sort_key all[] = {
		PP_SORT_SAMPLE, PP_SORT_IMAGE, PP_SORT_APP, PP_SORT_SYMBOL,
		PP_SORT_DEBUG, PP_SORT_VMA,
	};
	const struct cg_ctx *c = vctx;
	const struct cg_block *bx = a, *by = b;
	const struct cg_node *x = &c->nodes[bx->node], *y = &c->nodes[by->node];
	int r = 0;

	for (size_t k = 0; k < c->o->nr_sort && !r; k++)
		r = key_cmp(c, c->o->sort[k], x, y);
	for (size_t k = 0; k < sizeof(all) / sizeof(all[0]) && !r; k++) {
		bool given = false;

		for (size_t u = 0; u < c->o->nr_sort; u++)
			given |= c->o->sort[u] == all[k];
		if (!given)
			r = key_cmp(c, all[k], x, y);
	}
	if (c->o->reverse)
		r = -r;
	return r ? r : node_cmp(x, y);
}

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
		pp_format_percent(pct, sizeof(pct), ratio(counts[x], totals[x]) * 100);
		fprintf(out, "%7s  ", pct);
		if (c->o->accumulated) {
			pp_format_percent(pct, sizeof(pct), ratio(cum[x], totals[x]) * 100);
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

			if (f->cls != x || excluded(c, f))
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
static int make_blocks(struct cg_ctx *c, struct cg_block **out, size_t *nr)
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

		if (ratio(n->self[0], c->total[0]) < threshold)
			continue;
		if (!name_selected(c->o, n->shown))
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

static void blocks_free(struct cg_block *b, size_t nr)
{
	for (size_t i = 0; b && i < nr; i++) {
		free(b[i].callers);
		free(b[i].callees);
		free(b[i].caller_total);
		free(b[i].callee_total);
	}
	free(b);
}

static void ctx_release(struct cg_ctx *c)
{
	for (size_t i = 0; i < c->nr_nodes; i++)
		free(c->nodes[i].shown);
	free(c->nodes);
	for (size_t i = 0; i < c->nr_arcs; i++)
		free(c->arcs[i].counts);
	free(c->arcs);
	for (size_t i = 0; c->pseudo && i < c->p->nr_images; i++)
		free(c->pseudo[i]);
	free(c->pseudo);
	free(c->tab);
	free(c->tab_seen);
	klines_free(c->klines);
	free(c->zero);
	free(c->total);
	interner_release(&c->names);
	interner_release(&c->images);
	u64map_release(&c->node_of);
	u64map_release(&c->arc_of);
	u64map_release(&c->entry_of);
}

static int ctx_init(struct cg_ctx *c)
{
	const struct pp_profile *p = c->p;
	const struct pp_symview *v = c->v;
	size_t n = p->nr_images ? p->nr_images : 1;

	c->nc = v->nc;
	c->zero = calloc(c->nc, sizeof(*c->zero));
	c->total = calloc(c->nc, sizeof(*c->total));
	c->tab = calloc(n, sizeof(*c->tab));
	c->tab_seen = calloc(v->nr_tabs ? v->nr_tabs : 1, sizeof(*c->tab_seen));
	c->pseudo = calloc(n, sizeof(*c->pseudo));
	if (!c->zero || !c->total || !c->tab || !c->tab_seen || !c->pseudo)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_images; i++) {
		c->tab[i] = image_tab(c, i);
		c->pseudo[i] = pseudo_name(&p->images[i].img);
		if (!c->pseudo[i])
			return -ENOMEM;
	}
	/* the flat view's rows by (image, symbol); the total is of those
	 * -i/-e keep, as OProfile's is of the symbols it read */
	for (size_t i = 0; i < v->nr_entries; i++) {
		const struct pp_entry *e = &v->entries[i];
		const struct pp_symtab *st = c->tab[e->image];
		size_t *slot;
		bool found;

		slot = u64map_slot(&c->entry_of, node_key(e->image, st, st ? e->sym : NULL),
				   &found);
		if (!slot)
			return -ENOMEM;
		*slot = i;
		if (!in_flat(c, e->image, e->name))
			continue;
		for (size_t x = 0; x < c->nc; x++)
			c->total[x] += e->counts[x];
	}
	return 0;
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

	ret = ctx_init(&c);
	if (!ret)
		ret = build_graph(&c);
	if (!ret)
		ret = make_blocks(&c, &blocks, &nb);
	if (!ret) {
		if (!o->no_header)
			pp_report_header(out, p, o);
		print_blocks(out, &c, blocks, nb);
	}
	if (nr_bad)
		*nr_bad = c.nr_bad;
	blocks_free(blocks, nb);
	ctx_release(&c);
	return ret;
}
