/* optop's cells: the scan's deltas named (image, process, CPU, symbol,
 * each looked up once and cached in the tags) and added up for the
 * interval and since the start; then folded into rows as the display
 * asks (pp_live_view.h). */
#include "config.h"
#include "pp_live_view.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "op_grow.h"
#include "pp_profile.h"
#include "pp_symview.h"

void pp_live_view_init(struct pp_live_view *v, const struct pp_report_opts *opts,
		       const struct op_logger *lg)
{
	memset(v, 0, sizeof(*v));
	v->ropts = *opts;
	/* a live view names what it can: .dynsym too (Debian's libc has no
	 * .symtab), each symbol within its own size */
	v->ropts.dynamic_symbols = true;
	if (lg)
		v->lg = *lg;
	v->max_cpu = -1;
}

/* ---- names, each made once ---- */

static uint32_t new_sym(struct pp_live_view *v, uint32_t image, const char *name)
{
	struct pp_live_sym *s;
	char *copy = NULL;

	if (v->nr_syms == v->alloc_syms) {
		s = op_grow(v->syms, v->nr_syms + 1, &v->alloc_syms, 256, sizeof(*s));
		if (!s)
			return PP_LIVE_NO_TAG;
		v->syms = s;
	}
	if (v->ropts.demangle)
		copy = pp_demangle(name);
	if (!copy)
		copy = strdup(name);
	if (!copy)
		return PP_LIVE_NO_TAG;
	v->syms[v->nr_syms] = (struct pp_live_sym){ .image = image, .name = copy };
	return (uint32_t)v->nr_syms++;
}

static uint32_t intern_image(struct pp_live_view *v, const struct op_img *img)
{
	struct pp_live_image *im;

	for (size_t i = 0; i < v->nr_images; i++)
		if (pp_img_equal(&v->images[i].img, img))
			return (uint32_t)i;
	if (v->nr_images == v->alloc_images) {
		im = op_grow(v->images, v->nr_images + 1, &v->alloc_images, 16,
			     sizeof(*im));
		if (!im)
			return PP_LIVE_NO_TAG;
		v->images = im;
	}
	im = &v->images[v->nr_images];
	memset(im, 0, sizeof(*im));
	im->img = *img;
	im->img.path = strdup(img->path ? img->path : "?");
	im->name = op_img_display(img, 0);
	if (!im->img.path || !im->name) {
		free(im->img.path);
		free(im->name);
		return PP_LIVE_NO_TAG;
	}
	im->kernel = img->kind == OP_IMG_KERN;
	im->outside_id = PP_LIVE_NO_TAG;
	return (uint32_t)v->nr_images++;
}

static uint32_t intern_app(struct pp_live_view *v, const struct op_img *img)
{
	char *name = op_img_display(img, 0), **a;

	if (!name)
		return PP_LIVE_NO_TAG;
	for (size_t i = 0; i < v->nr_apps; i++) {
		if (!strcmp(v->apps[i], name)) {
			free(name);
			return (uint32_t)i;
		}
	}
	if (v->nr_apps == v->alloc_apps) {
		a = op_grow(v->apps, v->nr_apps + 1, &v->alloc_apps, 16, sizeof(*a));
		if (!a) {
			free(name);
			return PP_LIVE_NO_TAG;
		}
		v->apps = a;
	}
	v->apps[v->nr_apps] = name;
	return (uint32_t)v->nr_apps++;
}

/* The symbol of an offset of image i: its table loaded on first use. */
static uint32_t sym_of(struct pp_live_view *v, uint32_t i, uint64_t off)
{
	struct pp_live_image *im = &v->images[i];
	const struct pp_sym *s = NULL;

	if (!im->loaded) {
		im->loaded = true;
		im->status = pp_symview_load_tab(&im->st, &im->img, &v->ropts, &v->lg);
		if (!im->status && im->st.nr_syms) {
			im->sym_ids = malloc(im->st.nr_syms * sizeof(*im->sym_ids));
			if (!im->sym_ids)
				im->status = -ENOMEM;
			else
				memset(im->sym_ids, 0xff,
				       im->st.nr_syms * sizeof(*im->sym_ids));
		}
	}
	if (im->sym_ids)
		s = pp_symtab_lookup(&im->st, pp_symtab_off_to_vma(&im->st, off));
	if (s) {
		uint32_t *id = &im->sym_ids[s - im->st.syms];

		if (*id == PP_LIVE_NO_TAG)
			*id = new_sym(v, i, s->name);
		return *id;
	}
	/* no table, or outside every symbol of it: one row for the image */
	if (im->outside_id == PP_LIVE_NO_TAG)
		im->outside_id = new_sym(v, i, NO_SYMBOLS);
	return im->outside_id;
}

static uint32_t file_info(struct pp_live_view *v, const struct pp_live_file *f)
{
	struct pp_live_finfo fi = { .cg_image = PP_LIVE_NO_TAG, .cpu = f->name.cpu };
	struct pp_live_finfo *a;

	fi.image = intern_image(v, &f->name.image);
	fi.app = intern_app(v, &f->name.dep);
	if (f->is_arc)
		fi.cg_image = intern_image(v, &f->name.cg);
	if (fi.image == PP_LIVE_NO_TAG || fi.app == PP_LIVE_NO_TAG ||
	    (f->is_arc && fi.cg_image == PP_LIVE_NO_TAG))
		return PP_LIVE_NO_TAG;
	if (v->nr_finfo == v->alloc_finfo) {
		a = op_grow(v->finfo, v->nr_finfo + 1, &v->alloc_finfo, 64,
			    sizeof(*a));
		if (!a)
			return PP_LIVE_NO_TAG;
		v->finfo = a;
	}
	v->finfo[v->nr_finfo] = fi;
	if (f->is_arc)
		v->has_arcs = true;
	else if (fi.cpu > v->max_cpu)
		v->max_cpu = fi.cpu;
	return (uint32_t)v->nr_finfo++;
}

/* ---- cells ---- */

static size_t cell_hash(uint32_t a, uint32_t b, int cpu)
{
	uint64_t h = ((uint64_t)a << 32 | b) ^ ((uint64_t)(uint32_t)cpu * 0x9e3779b97f4a7c15ULL);

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 29;
	return (size_t)h;
}

static int cells_grow(struct pp_live_cells *c)
{
	size_t n = c->nr_slots ? c->nr_slots * 2 : 512;
	struct pp_live_cell *v = calloc(n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < c->nr_slots; i++) {
		const struct pp_live_cell *x = &c->v[i];
		size_t j;

		if (!x->n)
			continue;
		for (j = cell_hash(x->a, x->b, x->cpu) & (n - 1); v[j].n; j = (j + 1) & (n - 1))
			;
		v[j] = *x;
	}
	free(c->v);
	c->v = v;
	c->nr_slots = n;
	return 0;
}

static int cells_add(struct pp_live_cells *c, uint32_t a, uint32_t b, int cpu,
		     uint64_t n)
{
	size_t j;

	if ((c->nr + 1) * 2 > c->nr_slots && cells_grow(c))
		return -ENOMEM;
	for (j = cell_hash(a, b, cpu) & (c->nr_slots - 1); c->v[j].n;
	     j = (j + 1) & (c->nr_slots - 1)) {
		if (c->v[j].a == a && c->v[j].b == b && c->v[j].cpu == cpu) {
			c->v[j].n += n;
			return 0;
		}
	}
	c->v[j] = (struct pp_live_cell){ .a = a, .b = b, .cpu = cpu, .n = n };
	c->nr++;
	return 0;
}

static void cells_clear(struct pp_live_cells *c)
{
	if (c->v)
		memset(c->v, 0, c->nr_slots * sizeof(*c->v));
	c->nr = 0;
}

static uint32_t arc_key(struct pp_live_view *v, const struct pp_live_finfo *fi,
			uint64_t key)
{
	uint32_t caller = sym_of(v, fi->image, key >> 32);
	uint32_t callee = sym_of(v, fi->cg_image, key & 0xffffffffu);
	uint32_t (*a)[2];

	if (caller == PP_LIVE_NO_TAG || callee == PP_LIVE_NO_TAG)
		return PP_LIVE_NO_TAG;
	if (v->nr_arc_keys == v->alloc_arc_keys) {
		a = op_grow(v->arc_keys, v->nr_arc_keys + 1, &v->alloc_arc_keys, 256,
			    sizeof(*a));
		if (!a)
			return PP_LIVE_NO_TAG;
		v->arc_keys = a;
	}
	v->arc_keys[v->nr_arc_keys][0] = caller;
	v->arc_keys[v->nr_arc_keys][1] = callee;
	return (uint32_t)v->nr_arc_keys++;
}

void pp_live_view_delta(void *ctx, struct pp_live_file *f,
			struct pp_live_key *k, uint64_t delta)
{
	struct pp_live_view *v = ctx;
	const struct pp_live_finfo *fi;

	if (f->tag == PP_LIVE_NO_TAG)
		f->tag = file_info(v, f);
	if (f->tag == PP_LIVE_NO_TAG)
		goto err_nomem;
	fi = &v->finfo[f->tag];
	if (k->tag == PP_LIVE_NO_TAG)
		k->tag = f->is_arc ? arc_key(v, fi, k->key) :
			 sym_of(v, fi->image, k->key);
	if (k->tag == PP_LIVE_NO_TAG)
		goto err_nomem;
	if (f->is_arc) {
		const uint32_t *ck = v->arc_keys[k->tag];

		if (cells_add(&v->arcs_interval, ck[1], ck[0], OP_SF_ALL, delta) ||
		    cells_add(&v->arcs_total, ck[1], ck[0], OP_SF_ALL, delta))
			goto err_nomem;
		return;
	}
	if (cells_add(&v->interval, k->tag, fi->app, fi->cpu, delta) ||
	    cells_add(&v->total, k->tag, fi->app, fi->cpu, delta))
		goto err_nomem;
	v->interval_samples += delta;
	v->total_samples += delta;
	return;

err_nomem:
	v->oom = true;
}

void pp_live_view_next(struct pp_live_view *v)
{
	cells_clear(&v->interval);
	cells_clear(&v->arcs_interval);
	v->interval_samples = 0;
}

void pp_live_view_release(struct pp_live_view *v)
{
	for (size_t i = 0; i < v->nr_images; i++) {
		free(v->images[i].img.path);
		free(v->images[i].name);
		free(v->images[i].sym_ids);
		pp_symtab_release(&v->images[i].st);
	}
	for (size_t i = 0; i < v->nr_syms; i++)
		free(v->syms[i].name);
	for (size_t i = 0; i < v->nr_apps; i++)
		free(v->apps[i]);
	free(v->images);
	free(v->syms);
	free(v->apps);
	free(v->finfo);
	free(v->arc_keys);
	free(v->interval.v);
	free(v->total.v);
	free(v->arcs_interval.v);
	free(v->arcs_total.v);
	memset(v, 0, sizeof(*v));
}

/* ---- rows ---- */

/* Whether a symbol's row passes show's kernel, user and filter choices. */
static bool pp_live_sym_shown(const struct pp_live_view *v, uint32_t sym,
			      uint32_t app, const struct pp_live_show *show)
{
	const struct pp_live_image *im = &v->images[v->syms[sym].image];

	if (im->kernel ? show->hide_kernel : show->hide_user)
		return false;
	if (!show->filter || !*show->filter)
		return true;
	return strstr(im->name, show->filter) || strstr(im->img.path, show->filter) ||
	       (app < v->nr_apps && strstr(v->apps[app], show->filter));
}

static int cmp_samples(const void *a, const void *b, void *arg)
{
	const struct pp_live_row *x = a, *y = b;
	const struct pp_live_view *v = arg;
	int c;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	c = strcmp(v->syms[x->sym].name, v->syms[y->sym].name);
	return c ? c : (x->sym > y->sym) - (x->sym < y->sym);
}

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct pp_live_row *x = a, *y = b;
	const struct pp_live_view *v = arg;
	int c = strcmp(v->syms[x->sym].name, v->syms[y->sym].name);

	if (c)
		return c;
	c = strcmp(v->images[v->syms[x->sym].image].name,
		   v->images[v->syms[y->sym].image].name);
	if (c)
		return c;
	return x->n != y->n ? (x->n < y->n ? 1 : -1) : (x->sym > y->sym) - (x->sym < y->sym);
}

int pp_live_rows_build(const struct pp_live_view *v,
		       const struct pp_live_show *show, struct pp_live_rows *r)
{
	const struct pp_live_cells *c = show->totals ? &v->total : &v->interval;
	uint32_t *row_of = NULL;

	memset(r, 0, sizeof(*r));
	r->all = show->totals ? v->total_samples : v->interval_samples;
	r->nr_cpus = show->per_cpu && v->max_cpu >= 0 ? (size_t)v->max_cpu + 1 : 0;
	if (!c->nr)
		return 0;
	row_of = malloc(v->nr_syms * sizeof(*row_of));
	r->v = calloc(c->nr, sizeof(*r->v));
	if (!row_of || !r->v)
		goto err_nomem;
	memset(row_of, 0xff, v->nr_syms * sizeof(*row_of));
	for (size_t i = 0; i < c->nr_slots; i++) {
		const struct pp_live_cell *x = &c->v[i];

		if (!x->n || !pp_live_sym_shown(v, x->a, x->b, show))
			continue;
		if (row_of[x->a] == PP_LIVE_NO_TAG) {
			row_of[x->a] = (uint32_t)r->nr;
			r->v[r->nr++].sym = x->a;
		}
		r->v[row_of[x->a]].n += x->n;
		r->shown += x->n;
	}
	if (r->nr_cpus && r->nr) {
		r->cpu_store = calloc(r->nr * r->nr_cpus, sizeof(*r->cpu_store));
		if (!r->cpu_store)
			goto err_nomem;
		for (size_t i = 0; i < r->nr; i++)
			r->v[i].cpu = r->cpu_store + i * r->nr_cpus;
		for (size_t i = 0; i < c->nr_slots; i++) {
			const struct pp_live_cell *x = &c->v[i];

			if (x->n && x->cpu >= 0 && (size_t)x->cpu < r->nr_cpus &&
			    row_of[x->a] != PP_LIVE_NO_TAG)
				r->v[row_of[x->a]].cpu[x->cpu] += x->n;
		}
	}
	/* the cpu pointers move with their rows: they point into cpu_store */
	qsort_r(r->v, r->nr, sizeof(*r->v),
		show->sort == PP_LIVE_BY_NAME ? cmp_name : cmp_samples, (void *)v);
	free(row_of);
	return 0;

err_nomem:
	free(row_of);
	pp_live_rows_release(r);
	return -ENOMEM;
}

void pp_live_rows_release(struct pp_live_rows *r)
{
	free(r->v);
	free(r->cpu_store);
	memset(r, 0, sizeof(*r));
}

int pp_live_callers(const struct pp_live_view *v, uint32_t sym, bool totals,
		    struct pp_live_rows *r)
{
	const struct pp_live_cells *c = totals ? &v->arcs_total : &v->arcs_interval;

	memset(r, 0, sizeof(*r));
	if (!c->nr)
		return 0;
	r->v = calloc(c->nr, sizeof(*r->v));
	if (!r->v)
		return -ENOMEM;
	for (size_t i = 0; i < c->nr_slots; i++) {
		const struct pp_live_cell *x = &c->v[i];

		if (!x->n || x->a != sym)
			continue;
		/* (callee, caller) cells are unique: one row each */
		r->v[r->nr].sym = x->b;
		r->v[r->nr++].n = x->n;
		r->all += x->n;
	}
	r->shown = r->all;
	qsort_r(r->v, r->nr, sizeof(*r->v), cmp_samples, (void *)v);
	return 0;
}

/* Under a row: its callers, the first PP_LIVE_MAX_CALLERS of them. */
static int callers_print(FILE *out, const struct pp_live_view *v, uint32_t sym,
			 bool totals)
{
	struct pp_live_rows c;
	uint64_t rest = 0;

	if (pp_live_callers(v, sym, totals, &c))
		return -ENOMEM;
	for (size_t i = 0; i < c.nr; i++) {
		const struct pp_live_sym *s = &v->syms[c.v[i].sym];

		if (i >= PP_LIVE_MAX_CALLERS) {
			rest += c.v[i].n;
			continue;
		}
		fprintf(out, "%13s %10" PRIu64 " %7.3f  %-24s %s\n", "<-", c.v[i].n,
			100.0 * (double)c.v[i].n / (double)c.all,
			v->images[s->image].name, s->name);
	}
	if (c.nr > PP_LIVE_MAX_CALLERS)
		fprintf(out, "%13s (%zu more callers: %" PRIu64 " samples)\n", "",
			c.nr - PP_LIVE_MAX_CALLERS, rest);
	pp_live_rows_release(&c);
	return 0;
}

int pp_live_rows_print(FILE *out, const struct pp_live_view *v,
		       const struct pp_live_rows *r, const struct pp_live_print *p)
{
	fprintf(out, "%10s %7s", "samples", "%");
	for (size_t c = 0; c < r->nr_cpus; c++) {
		char name[32];

		snprintf(name, sizeof(name), "cpu%zu", c);
		fprintf(out, " %9s", name);
	}
	fprintf(out, "  %-24s %s\n", "image", "symbol");
	for (size_t i = 0; i < r->nr && (!p->max_rows || i < p->max_rows); i++) {
		const struct pp_live_row *row = &r->v[i];
		const struct pp_live_sym *s = &v->syms[row->sym];

		fprintf(out, "%10" PRIu64 " %7.3f", row->n,
			r->all ? 100.0 * (double)row->n / (double)r->all : 0.0);
		for (size_t c = 0; c < r->nr_cpus; c++)
			fprintf(out, " %9" PRIu64, row->cpu[c]);
		fprintf(out, "  %-24s %s\n", v->images[s->image].name, s->name);
		if (p->callers && (!p->callers_of || i < p->callers_of) &&
		    callers_print(out, v, row->sym, p->totals))
			return -ENOMEM;
	}
	return 0;
}
