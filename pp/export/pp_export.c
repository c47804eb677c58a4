/* opexport's model (pp_export.h): distinct locations and stacks, interned
 * through two open-addressing tables so that a session of a million chains
 * is read in one pass, and folded into name stacks for the text and SVG
 * writers. Loading from a session and naming are in pp_export_load.c. */
#include "config.h"
#include "pp_export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_grow.h"

void pp_export_init(struct pp_export *x)
{
	memset(x, 0, sizeof(*x));
}

void pp_export_release(struct pp_export *x)
{
	op_cgroups_release(&x->cgroups);
	for (size_t i = 0; i < x->nr_images; i++) {
		free(x->images[i].img.path);
		free(x->images[i].name);
		free(x->images[i].build_id);
	}
	for (size_t i = 0; i < x->nr_funcs; i++) {
		free(x->funcs[i].name);
		free(x->funcs[i].system_name);
		free(x->funcs[i].file);
	}
	for (size_t i = 0; i < x->nr_events; i++)
		free(x->events[i].name);
	for (size_t i = 0; i < x->nr_sessions; i++)
		free(x->sessions[i]);
	free(x->sessions);
	free(x->images);
	free(x->locs);
	free(x->funcs);
	free(x->frames);
	free(x->stacks);
	free(x->events);
	free(x->keys);
	free(x->loc_slots);
	free(x->stack_slots);
	memset(x, 0, sizeof(*x));
}

/* Grow *v (of *alloc elements of size) to hold n + 1. */
static int grow(void *vp, size_t *alloc, size_t n, size_t size)
{
	void **v = vp;
	void *nv;

	if (n < *alloc)
		return 0;
	nv = op_grow(*v, n + 1, alloc, 64, size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	return 0;
}

static bool img_equal(const struct op_img *a, const struct op_img *b)
{
	return pp_img_equal(a, b);
}

uint32_t pp_export_image(struct pp_export *x, const struct op_img *img)
{
	struct pp_ximage *im;
	size_t alloc = x->nr_images;

	for (size_t i = 0; i < x->nr_images; i++)
		if (img_equal(&x->images[i].img, img))
			return (uint32_t)i;
	/* images are few: grow one at a time */
	if (grow(&x->images, &alloc, x->nr_images, sizeof(*x->images)))
		return PP_XNONE;
	im = &x->images[x->nr_images];
	memset(im, 0, sizeof(*im));
	im->img = *img;
	im->img.path = strdup(img->path ? img->path : "");
	im->name = op_img_display(img, 1);
	if (!im->img.path || !im->name) {
		free(im->img.path);
		free(im->name);
		return PP_XNONE;
	}
	return (uint32_t)x->nr_images++;
}

uint32_t pp_export_event(struct pp_export *x, const char *name,
			 unsigned long count, unsigned int unit_mask)
{
	struct pp_xevent *e;
	size_t alloc = x->nr_events;

	for (size_t i = 0; i < x->nr_events; i++)
		if (!strcmp(x->events[i].name, name) && x->events[i].count == count &&
		    x->events[i].unit_mask == unit_mask)
			return (uint32_t)i;
	if (grow(&x->events, &alloc, x->nr_events, sizeof(*x->events)))
		return PP_XNONE;
	e = &x->events[x->nr_events];
	e->name = strdup(name);
	if (!e->name)
		return PP_XNONE;
	e->count = count;
	e->unit_mask = unit_mask;
	return (uint32_t)x->nr_events++;
}

uint32_t pp_export_key(struct pp_export *x, uint32_t event, int cpu,
		       int tgid, int tid)
{
	struct pp_xkey *k;
	size_t alloc = x->nr_keys;

	for (size_t i = 0; i < x->nr_keys; i++) {
		k = &x->keys[i];
		if (k->event == event && k->cpu == cpu && k->tgid == tgid &&
		    k->tid == tid)
			return (uint32_t)i;
	}
	if (grow(&x->keys, &alloc, x->nr_keys, sizeof(*x->keys)))
		return PP_XNONE;
	x->keys[x->nr_keys] = (struct pp_xkey){ event, cpu, tgid, tid };
	x->sep_cpu |= cpu != OP_SF_ALL;
	x->sep_tgid |= tgid != OP_SF_ALL;
	x->sep_tid |= tid != OP_SF_ALL;
	return (uint32_t)x->nr_keys++;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

static uint64_t loc_hash(uint32_t image, uint64_t off)
{
	return mix(mix(0, image), off);
}

static uint64_t stack_hash(uint32_t key, uint32_t app, const uint32_t *locs,
			   uint32_t nr)
{
	uint64_t h = mix(mix(0, key), app);

	for (uint32_t i = 0; i < nr; i++)
		h = mix(h, locs[i]);
	return h;
}

/* Rebuild a table of cap slots from n entries hashed by hash_of(i). */
static int rehash(uint32_t **slots, size_t *cap, size_t n,
		  uint64_t (*hash_of)(const struct pp_export *, size_t),
		  const struct pp_export *x)
{
	size_t nc = *cap ? *cap * 2 : 1024;
	uint32_t *s = calloc(nc, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t j = hash_of(x, i) & (nc - 1);

		while (s[j])
			j = (j + 1) & (nc - 1);
		s[j] = (uint32_t)(i + 1);
	}
	free(*slots);
	*slots = s;
	*cap = nc;
	return 0;
}

static uint64_t loc_hash_of(const struct pp_export *x, size_t i)
{
	return loc_hash(x->locs[i].image, x->locs[i].off);
}

static uint64_t stack_hash_of(const struct pp_export *x, size_t i)
{
	const struct pp_xstack *s = &x->stacks[i];

	return stack_hash(s->key, s->app, x->frames + s->first, s->nr);
}

uint32_t pp_export_loc(struct pp_export *x, uint32_t image, uint64_t off)
{
	size_t j;

	/* at most half full */
	if ((x->nr_locs + 1) * 2 > x->loc_cap &&
	    rehash(&x->loc_slots, &x->loc_cap, x->nr_locs, loc_hash_of, x))
		return PP_XNONE;
	for (j = loc_hash(image, off) & (x->loc_cap - 1); x->loc_slots[j];
	     j = (j + 1) & (x->loc_cap - 1)) {
		const struct pp_xloc *l = &x->locs[x->loc_slots[j] - 1];

		if (l->image == image && l->off == off)
			return x->loc_slots[j] - 1;
	}
	if (x->nr_locs >= PP_XNONE - 1 ||
	    grow(&x->locs, &x->alloc_locs, x->nr_locs, sizeof(*x->locs)))
		return PP_XNONE;
	x->locs[x->nr_locs] = (struct pp_xloc){ .image = image, .off = off,
						.vma = off, .func = PP_XNONE };
	if (off > x->images[image].max_off)
		x->images[image].max_off = off;
	x->loc_slots[j] = (uint32_t)++x->nr_locs;
	return (uint32_t)(x->nr_locs - 1);
}

int pp_export_add_stack(struct pp_export *x, uint32_t key, uint32_t app,
			const uint32_t *locs, uint32_t nr, uint64_t count)
{
	struct pp_xstack *s;
	size_t j;

	if ((x->nr_stacks + 1) * 2 > x->stack_cap &&
	    rehash(&x->stack_slots, &x->stack_cap, x->nr_stacks, stack_hash_of, x))
		return -ENOMEM;
	for (j = stack_hash(key, app, locs, nr) & (x->stack_cap - 1);
	     x->stack_slots[j]; j = (j + 1) & (x->stack_cap - 1)) {
		s = &x->stacks[x->stack_slots[j] - 1];
		if (s->key == key && s->app == app && s->nr == nr &&
		    !memcmp(x->frames + s->first, locs, nr * sizeof(*locs))) {
			s->count += count;
			return 0;
		}
	}
	if (x->nr_stacks >= PP_XNONE - 1 ||
	    grow(&x->stacks, &x->alloc_stacks, x->nr_stacks, sizeof(*x->stacks)))
		return -ENOMEM;
	if (x->nr_frames + nr > x->alloc_frames) {
		uint32_t *f = op_grow(x->frames, x->nr_frames + nr, &x->alloc_frames,
				      1024, sizeof(*f));

		if (!f)
			return -ENOMEM;
		x->frames = f;
	}
	memcpy(x->frames + x->nr_frames, locs, nr * sizeof(*locs));
	x->stacks[x->nr_stacks] = (struct pp_xstack){
		.key = key, .app = app, .nr = nr, .first = x->nr_frames,
		.count = count,
	};
	x->nr_frames += nr;
	x->stack_slots[j] = (uint32_t)++x->nr_stacks;
	return 0;
}

uint32_t pp_export_func(struct pp_export *x, uint32_t image, const char *name,
			const char *system_name, const char *file,
			int start_line)
{
	struct pp_xfunc *f;

	if (x->nr_funcs >= PP_XNONE - 1 ||
	    grow(&x->funcs, &x->alloc_funcs, x->nr_funcs, sizeof(*x->funcs)))
		return PP_XNONE;
	f = &x->funcs[x->nr_funcs];
	memset(f, 0, sizeof(*f));
	f->image = image;
	f->name = strdup(name);
	f->system_name = strdup(system_name ? system_name : name);
	f->file = file ? strdup(file) : NULL;
	f->start_line = start_line;
	if (!f->name || !f->system_name || (file && !f->file)) {
		free(f->name);
		free(f->system_name);
		free(f->file);
		return PP_XNONE;
	}
	return (uint32_t)x->nr_funcs++;
}

enum pp_xkind pp_export_kind(const struct pp_export *x, uint32_t image,
			     uint32_t app)
{
	const struct op_img *img = &x->images[image].img;

	if (img->kind == OP_IMG_KERN)
		return PP_XKIND_KERNEL;
	if (app != PP_XNONE && (app == image ||
				img_equal(&x->images[app].img, img)))
		return PP_XKIND_USER;
	return PP_XKIND_LIB;
}

/* A frame's name in folded stacks and flame graphs: its function, or
 * "[IMAGE]" (basename) when no symbol names it. */
static const char *pp_export_frame_name(const struct pp_export *x, uint32_t loc)
{
	const struct pp_xloc *l = &x->locs[loc];

	if (l->func != PP_XNONE)
		return x->funcs[l->func].name;
	/* not symbolized: the image's entry (see pp_export_symbolize) */
	return x->images[l->image].name;
}

/* ---- folding ---- */

static int line_cmp(const void *a, const void *b, void *vctx)
{
	const struct pp_fold *f = vctx;
	const struct pp_fold_line *x = a, *y = b;

	for (uint32_t i = 0; i < x->nr && i < y->nr; i++) {
		int c = strcmp(f->names[x->first + i], f->names[y->first + i]);

		if (c)
			return c;
		c = (int)f->kinds[x->first + i] - (int)f->kinds[y->first + i];
		if (c)
			return c;
	}
	return (x->nr > y->nr) - (x->nr < y->nr);
}

/* The root frame of a stack under key k: its container's, or NULL. */
static const char *fold_root(struct pp_fold *f, const struct pp_export *x,
			     const struct pp_xkey *k)
{
	const struct op_cgroup *c;
	char *name, **v;

	if (k->tgid == OP_SF_ALL)
		return NULL;
	c = op_cgroups_find(&x->cgroups, k->tgid);
	/* by thread: containers' processes; by container: every one */
	if (!c || (k->tid != OP_SF_ALL && !c->other_root))
		return NULL;
	if (asprintf(&name, "container:%s", *c->name ? c->name : "/") < 0)
		return NULL;
	for (size_t i = 0; i < f->nr_roots; i++)
		if (!strcmp(f->roots[i], name)) {
			free(name);
			return f->roots[i];
		}
	v = realloc(f->roots, (f->nr_roots + 1) * sizeof(*v));
	if (!v) {
		free(name);
		return NULL;
	}
	f->roots = v;
	return f->roots[f->nr_roots++] = name;
}

int pp_export_fold(const struct pp_export *x, struct pp_fold *f)
{
	size_t n = 0, slots = x->nr_frames + x->nr_stacks;

	memset(f, 0, sizeof(*f));
	/* each stack's frames, and room for its root before them */
	f->names = malloc((slots ? slots : 1) * sizeof(*f->names));
	f->kinds = malloc(slots ? slots : 1);
	f->lines = malloc((x->nr_stacks ? x->nr_stacks : 1) * sizeof(*f->lines));
	if (!f->names || !f->kinds || !f->lines) {
		pp_fold_release(f);
		return -ENOMEM;
	}
	for (size_t i = 0; i < x->nr_stacks; i++) {
		const struct pp_xstack *s = &x->stacks[i];
		struct pp_fold_line *l = &f->lines[i];
		const char *root = fold_root(f, x, &x->keys[s->key]);
		size_t at = s->first + i;

		l->first = at;
		l->nr = s->nr;
		l->count = s->count;
		f->total += s->count;
		if (root) {
			f->names[at] = root;
			f->kinds[at++] = PP_XKIND_USER;
			l->nr++;
		}
		/* root first: the chain's outermost frame leads */
		for (uint32_t k = 0; k < s->nr; k++) {
			uint32_t loc = x->frames[s->first + s->nr - 1 - k];

			f->names[at + k] = pp_export_frame_name(x, loc);
			f->kinds[at + k] =
				(uint8_t)pp_export_kind(x, x->locs[loc].image, s->app);
		}
	}
	qsort_r(f->lines, x->nr_stacks, sizeof(*f->lines), line_cmp, f);
	/* stacks that differ only in addresses within the same functions,
	 * or in their key, are one line */
	for (size_t i = 0; i < x->nr_stacks; i++) {
		if (n && !line_cmp(&f->lines[n - 1], &f->lines[i], f))
			f->lines[n - 1].count += f->lines[i].count;
		else
			f->lines[n++] = f->lines[i];
	}
	f->nr_lines = n;
	return 0;
}

void pp_fold_release(struct pp_fold *f)
{
	for (size_t i = 0; i < f->nr_roots; i++)
		free(f->roots[i]);
	free(f->roots);
	free(f->names);
	free(f->kinds);
	free(f->lines);
	memset(f, 0, sizeof(*f));
}
