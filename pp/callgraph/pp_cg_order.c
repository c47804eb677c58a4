/* The call graph built in OProfile's order. Where counts do not decide,
 * OProfile's report falls back on the order in which it first met image,
 * application and symbol names while reading the session; this file reads
 * the sample and arc files in that same order, numbering the same names,
 * so that ties come out as they do in OProfile's report. */
#include "config.h"
#include "pp_cg.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "odb.h"
#include "op_grow.h"
#include "op_kernel.h"
#include "op_names.h"
#include "pp_klines.h"

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

		if (e->image != i || !e->counts[cls] || !pp_cg_in_flat(c, i, e->name))
			continue;
		if (pp_cg_intern(&c->names, e->sym ? e->sym->name : c->pseudo[i]) ||
		    pp_cg_intern(&c->images, c->v->img_long[i]) ||
		    pp_cg_intern(&c->images, c->v->app_long[i]))
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
		uint64_t *v = op_grow(r->v, r->n + 1, &r->alloc, 256,
				sizeof(*v));

		if (!v) {
			r->err = -ENOMEM;
			return 1;
		}
		r->v = v;
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

	if (pp_sfile_open(f, &db))
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
		if (!pp_cg_map_get(&c->entry_of, (uint64_t)i << 32 | syms[k], &e) ||
		    !pp_cg_in_flat(c, i, c->v->entries[e].name))
			continue;
		if (pp_cg_intern(&c->names, syms[k] ? st->syms[syms[k] - 1].name : c->pseudo[i]) ||
		    pp_cg_intern(&c->images, c->v->img_long[i]) ||
		    pp_cg_intern(&c->images, c->v->app_long[i]))
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
		struct raw_arc *v = op_grow(r->v, r->n + 1, &r->alloc, 64,
				sizeof(*v));

		if (!v) {
			r->err = -ENOMEM;
			return 1;
		}
		r->v = v;
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

/* Every name of every table, by op_kname_hash(): the names the walk of a
 * saved order can meet that matter (a name in no table numbers nothing
 * that is printed). Open addressing; a hash two names share keeps the
 * first. */
struct name_map {
	uint64_t *hash;		/* 0 empty; else hash | 1 << 63 */
	const char **name;
	size_t mask;
};

static int name_map_put(struct name_map *m, const char *name)
{
	uint64_t h = op_kname_hash(name, strlen(name)) | 1ull << 63;

	for (size_t i = h & m->mask;; i = (i + 1) & m->mask) {
		if (!m->hash[i]) {
			m->hash[i] = h;
			m->name[i] = name;
			return 0;
		}
		if (m->hash[i] == h)
			return 0;
	}
}

static const char *name_map_get(const struct name_map *m, uint64_t hash)
{
	uint64_t h = hash | 1ull << 63;

	for (size_t i = h & m->mask; m->hash[i]; i = (i + 1) & m->mask)
		if (m->hash[i] == h)
			return m->name[i];
	return NULL;
}

/* The kernel's lines from the session's saved order (c->v->korder), named
 * from the tables. NULL and c->klines->err on ENOMEM. */
static struct klines *lines_of_order(struct cg_ctx *c)
{
	const struct op_korder *ko = c->v->korder;
	struct name_map m = { 0 };
	size_t nr = 0, cap = 1;

	for (size_t i = 0; i < c->p->nr_images; i++)
		if (c->tab[i])
			nr += c->tab[i]->nr_syms;
	while (cap < 2 * nr + 2)
		cap *= 2;
	m.mask = cap - 1;
	m.hash = calloc(cap, sizeof(*m.hash));
	m.name = malloc(cap * sizeof(*m.name));
	c->klines->borrowed = true;
	if (!m.hash || !m.name)
		goto err_nomem;
	for (size_t i = 0; i < c->p->nr_images; i++)
		for (size_t s = 0; c->tab[i] && s < c->tab[i]->nr_syms; s++)
			name_map_put(&m, c->tab[i]->syms[s].name);
	for (size_t i = 0; i < ko->n; i++)
		if (pp_klines_push(c->klines, ko->off[i], name_map_get(&m, ko->hash[i])))
			goto err_nomem;
	free(m.hash);
	free(m.name);
	return c->klines;

err_nomem:
	free(m.hash);
	free(m.name);
	c->klines->err = -ENOMEM;
	return NULL;
}

/* The kernel's lines, or NULL when the file cannot be read (the walk then
 * meets the table's symbols alone). */
static struct klines *kernel_lines(struct cg_ctx *c)
{
	const char *path = c->o->kallsyms ? c->o->kallsyms : "/proc/kallsyms";

	if (c->v->klines)	/* read with the kernel's table */
		return c->v->klines->err || !c->v->klines->walk.in ? NULL : c->v->klines;
	if (c->klines)
		return c->klines->err ? NULL : c->klines;
	c->klines = calloc(1, sizeof(*c->klines));
	if (!c->klines)
		return NULL;
	if (c->v->korder)	/* the session's saved order */
		return lines_of_order(c);
	if (op_kallsyms_each(NULL, path, pp_klines_add, c->klines, NULL) < 0 && !c->klines->err)
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
		if (pp_cg_intern(&c->names, esym ? esym->name : c->pseudo[w->ei]))
			return -ENOMEM;
		if (from == SIZE_MAX)
			from = pp_cg_node_get(c, w->ci, &cst->syms[s]);
		to = pp_cg_node_get(c, w->ei, esym);
		if (from == SIZE_MAX || to == SIZE_MAX ||
		    pp_cg_arc_add(c, from, to, w->f->cls, sum))
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
		return pp_cg_intern(&c->names, c->pseudo[w->ci]);
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
			if (pp_cg_intern(&c->names, cst->syms[s].name) || walk_caller(w, s))
				return -ENOMEM;
	} else {
		for (size_t j = 0; j < kl->n; j++) {
			if (!kl->v[j].name)
				continue;
			if (pp_cg_intern(&c->names, kl->v[j].name))
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
			if (pp_cg_intern(&c->names, cst->syms[s].name) || walk_caller(w, s))
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

	if (pp_cg_intern(&c->images, c->v->img_long[ci]) ||
	    pp_cg_intern(&c->images, c->v->img_long[ei]) ||
	    pp_cg_intern(&c->images, c->v->app_long[ci]))
		return -ENOMEM;
	err = pp_sfile_open(f, &db);
	if (err) {
		/* said and counted once, by whichever reader met it first */
		if (pp_sfile_first_bad(f)) {
			op_log(c->lg, OP_LOG_ERR, "cannot read arc file %s: %s",
			       f->path, pp_sfile_strerror(err));
			c->nr_bad++;
		}
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
int pp_cg_build_graph(struct cg_ctx *c)
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

		if (!f->name.cg.path || pp_cg_excluded(c, f))
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

		if (!f->name.cg.path && !pp_cg_excluded(c, f))
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

		if (!pp_cg_in_flat(c, e->image, e->name))
			continue;
		if (pp_cg_node_get(c, e->image, e->sym) == SIZE_MAX)
			goto out;
	}
	for (size_t i = 0; i < c->nr_nodes; i++) {
		struct cg_node *nd = &c->nodes[i];

		nd->img_id = pp_cg_interned_id(&c->images, v->img_long[nd->image]);
		nd->app_id = pp_cg_interned_id(&c->images, v->app_long[nd->image]);
		nd->name_id = pp_cg_interned_id(&c->names, nd->raw);
	}
	ret = 0;
out:
	free(order);
	free(ent);
	free(cf);
	free(flat);
	return ret;
}
