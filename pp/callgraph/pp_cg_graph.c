/* The call graph's storage: nodes (one per symbol of an application's
 * image) and arcs (per pair of nodes, counts per class), found again by
 * small hash maps, and the string numbering OProfile's order rests on.
 * Apart from the passes that fill it (pp_cg_order.c) because storage
 * changes for other reasons than OProfile's order does. */
#include "config.h"
#include "pp_cg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "op_grow.h"
#include "op_names.h"
#include "pp_klines.h"

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

bool pp_cg_map_get(const struct u64map *m, uint64_t key, size_t *val)
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

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

int pp_cg_intern(struct interner *in, const char *s)
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
uint32_t pp_cg_interned_id(const struct interner *in, const char *s)
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

static bool name_in(char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

bool pp_cg_name_selected(const struct pp_report_opts *o, const char *name)
{
	if (o->include_symbols && !name_in(o->include_symbols, name))
		return false;
	return !name_in(o->exclude_symbols, name);
}

/* Whether a row of the flat view is among OProfile's symbols with samples,
 * which its call graph counts and takes self counts from: -i/-e leave
 * rows out, but for the kernel read from kallsyms, whose reader takes no
 * filter. */
bool pp_cg_in_flat(const struct cg_ctx *c, size_t image, const char *name)
{
	const struct op_img *img = &c->p->images[image].img;

	if (img->kind == OP_IMG_KERN && op_img_is_kernel(img) && !c->o->vmlinux)
		return true;
	return pp_cg_name_selected(c->o, name);
}

/* -x leaves out a file of a dependent image, and an arc file unless
 * caller, callee and application are one image (OProfile's is_dependent). */
bool pp_cg_excluded(const struct cg_ctx *c, const struct pp_sfile *f)
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
size_t pp_cg_node_get(struct cg_ctx *c, size_t image, const struct pp_sym *sym)
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
	if (c->nr_nodes == c->alloc_nodes) {
		n = op_grow(c->nodes, c->nr_nodes + 1, &c->alloc_nodes, 256, sizeof(*n));
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
	if (pp_cg_map_get(&c->entry_of, key, &e) &&
	    pp_cg_in_flat(c, image, c->v->entries[e].name)) {
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

int pp_cg_arc_add(struct cg_ctx *c, size_t from, size_t to, size_t cls,
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
		if (c->nr_arcs == c->alloc_arcs) {
			a = op_grow(c->arcs, c->nr_arcs + 1, &c->alloc_arcs, 256, sizeof(*a));
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

void pp_cg_ctx_release(struct cg_ctx *c)
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
	pp_klines_free(c->klines);
	free(c->zero);
	free(c->total);
	interner_release(&c->names);
	interner_release(&c->images);
	u64map_release(&c->node_of);
	u64map_release(&c->arc_of);
	u64map_release(&c->entry_of);
}

int pp_cg_ctx_init(struct cg_ctx *c)
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
		if (!pp_cg_in_flat(c, e->image, e->name))
			continue;
		for (size_t x = 0; x < c->nc; x++)
			c->total[x] += e->counts[x];
	}
	return 0;
}
