/* Loading: the classified sample files of a selection read into per-image
 * histograms, the part of every report that turns a session directory into
 * numbers (the files selected in pp_fileset.c, classified in
 * pp_classify.c). Everything after this works on distinct addresses
 * only. */
#include "config.h"
#include "pp_profile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "odb.h"
#include "op_grow.h"

bool pp_img_equal(const struct op_img *a, const struct op_img *b)
{
	if (a->kind != b->kind || strcmp(a->path, b->path))
		return false;
	if (a->kind == OP_IMG_ANON)
		return a->anon_tgid == b->anon_tgid &&
		       a->anon_start == b->anon_start &&
		       a->anon_end == b->anon_end;
	return true;
}

/* Raw (offset, class, count) triples gathered per image before sorting. */
struct raw {
	uint64_t off;
	uint64_t count;
	uint32_t cls;
};

struct loading {
	struct raw *v;
	size_t n, alloc;
};

struct add_ctx {
	struct loading *ld;		/* NULL: totals only */
	uint32_t cls;
	uint64_t sum;
	int err;
};

static int add_one(uint64_t key, uint64_t count, void *vctx)
{
	struct add_ctx *ctx = vctx;
	struct loading *ld = ctx->ld;

	if (!ld) {
		ctx->sum += count;
		return 0;
	}
	if (ld->n == ld->alloc) {
		struct raw *v = op_grow(ld->v, ld->n + 1, &ld->alloc, 256,
				sizeof(*v));

		if (!v) {
			ctx->err = -ENOMEM;
			return 1;
		}
		ld->v = v;
	}
	ld->v[ld->n].off = key;
	ld->v[ld->n].count = count;
	ld->v[ld->n].cls = ctx->cls;
	ld->n++;
	ctx->sum += count;
	return 0;
}

static int raw_cmp(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

static int find_image(struct pp_profile *p, struct loading **lds,
		      const struct op_img *app, const struct op_img *img,
		      size_t *idx)
{
	size_t nc = p->fs.nr_classes;
	struct pp_image *v;
	struct loading *l;

	for (size_t i = 0; i < p->nr_images; i++)
		if (pp_img_equal(&p->images[i].img, img) &&
		    pp_img_equal(&p->images[i].app, app)) {
			*idx = i;
			return 0;
		}
	if (p->nr_images == p->alloc_images) {
		/* images and their loading state side by side, of one
		 * capacity, updated once both have grown */
		size_t cap = p->alloc_images, cap_lds = p->alloc_images;

		v = op_grow(p->images, p->nr_images + 1, &cap, 16, sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->images = v;
		l = op_grow(*lds, p->nr_images + 1, &cap_lds, 16, sizeof(*l));
		if (!l)
			return -ENOMEM;
		*lds = l;
		p->alloc_images = cap;
	}
	l = *lds;
	memset(&l[p->nr_images], 0, sizeof(*l));
	v = &p->images[p->nr_images];
	memset(v, 0, sizeof(*v));
	v->app = *app;
	v->img = *img;
	v->first_cls = UINT_MAX;
	v->total = calloc(nc, sizeof(*v->total));
	if (!v->total)
		return -ENOMEM;
	*idx = p->nr_images++;
	return 0;
}

/* The application of f (with lib: its image) as OProfile's opreport names
 * it, from the sample file's name: the path between {root}/ or {kern}/ and
 * /{dep}/, "/" first; an anonymous image "NAME (tgid:T range:S-E)" from
 * {anon:NAME}/T.S.E. A name without those parts (a test's) falls back to
 * the image's long name. Malloc'd, NULL on ENOMEM. */
static char *sfile_app_key(const struct pp_sfile *f, bool lib)
{
	const char *rel = f->path + f->rel;
	const char *dep = strstr(rel, "/{dep}/");
	const char *s, *end, *close, *dot1, *dot2;
	char *key;

	if (!dep || (strncmp(rel, "{root}/", 7) && strncmp(rel, "{kern}/", 7)))
		return op_img_display(lib ? &f->name.image : &f->name.dep, true);
	if (!lib)
		return strndup(rel + 6, (size_t)(dep - (rel + 6)));
	s = dep + 7;
	/* the event's part is last: call-graph files are never selected */
	end = strrchr(s, '/');
	if (!strncmp(s, "{root}/", 7) || !strncmp(s, "{kern}/", 7))
		return strndup(s + 6, (size_t)(end - (s + 6)));
	close = strstr(s, "}/");
	dot1 = close ? memchr(close + 2, '.', (size_t)(end - (close + 2))) : NULL;
	dot2 = dot1 ? memchr(dot1 + 1, '.', (size_t)(end - (dot1 + 1))) : NULL;
	if (strncmp(s, "{anon:", 6) || !dot2)
		return op_img_display(&f->name.image, true);
	if (asprintf(&key, "%.*s (tgid:%.*s range:%.*s-%.*s)",
		     (int)(close - (s + 6)), s + 6,
		     (int)(dot1 - (close + 2)), close + 2,
		     (int)(dot2 - (dot1 + 1)), dot1 + 1,
		     (int)(end - (dot2 + 1)), dot2 + 1) < 0)
		return NULL;
	return key;
}

/* Sort one image's triples and fold them into offs[] and counts[][]. */
static int image_finish(struct pp_image *im, struct loading *ld, size_t nc)
{
	size_t n = 0;

	bool sorted = true;

	/* odb_for_each hands keys over in order: one file per image arrives
	 * sorted already */
	for (size_t i = 1; i < ld->n && sorted; i++)
		if (ld->v[i].off < ld->v[i - 1].off)
			sorted = false;
	if (!sorted)
		qsort(ld->v, ld->n, sizeof(*ld->v), raw_cmp);
	for (size_t i = 0; i < ld->n; i++)
		if (!i || ld->v[i].off != ld->v[i - 1].off)
			n++;
	im->offs = malloc((n ? n : 1) * sizeof(*im->offs));
	im->counts = calloc((n ? n : 1) * nc, sizeof(*im->counts));
	if (!im->offs || !im->counts)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < ld->n; i++) {
		if (!i || ld->v[i].off != ld->v[i - 1].off)
			im->offs[n++] = ld->v[i].off;
		im->counts[(n - 1) * nc + ld->v[i].cls] += ld->v[i].count;
	}
	im->nr_addrs = n;
	free(ld->v);
	memset(ld, 0, sizeof(*ld));
	return 0;
}

int pp_profile_load(struct pp_profile *p, struct pp_fileset *fs,
		    const struct pp_merge *merge, bool exclude_dependent,
		    bool want_addrs, const struct op_logger *lg)
{
	struct loading *lds = NULL;
	size_t nc;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	p->fs = *fs;
	memset(fs, 0, sizeof(*fs));
	nc = p->fs.nr_classes ? p->fs.nr_classes : 1;
	p->total = calloc(nc, sizeof(*p->total));
	if (!p->total)
		return -ENOMEM;
	for (size_t i = 0; i < p->fs.nr_files; i++) {
		struct pp_sfile *f = &p->fs.files[i];
		const struct op_img *app = merge->lib ? &f->name.image : &f->name.dep;
		struct add_ctx ctx = { .cls = f->cls };
		struct pp_image *im;
		odb_t db;
		size_t idx;
		int err;

		if (exclude_dependent && (!pp_img_equal(&f->name.image, &f->name.dep) ||
					  (f->name.cg.path &&
					   !pp_img_equal(&f->name.cg, &f->name.image))))
			continue;
		err = pp_sfile_open(f, &db);
		if (err) {
			op_log(lg, OP_LOG_ERR, "cannot read sample file %s: %s",
			       f->path, pp_sfile_strerror(err));
			p->nr_bad_files++;
			pp_sfile_first_bad(f);
			continue;
		}
		/* OProfile's operf names the kernel by a path, under {root}:
		 * "/proc/kallsyms" or the --vmlinux file; only the header
		 * tells it from a binary. Its offsets are the kernel's, so it
		 * is read as the kernel, by the name it was given. */
		op_img_mark_kernel(&f->name.image, db.header->is_kernel);
		if (f->name.cg.path) {
			/* an arc file counts no sample: its two images are
			 * listed (no sample either) so that their symbols
			 * are loaded with the others' */
			op_img_mark_kernel(&f->name.cg, db.header->cg_to_is_kernel);
			odb_close(&db);
			ret = find_image(p, &lds, app, &f->name.image, &idx);
			if (!ret)
				ret = find_image(p, &lds, app, &f->name.cg, &idx);
			if (ret)
				goto err_load;
			continue;
		}
		ret = find_image(p, &lds, app, &f->name.image, &idx);
		if (ret) {
			odb_close(&db);
			goto err_load;
		}
		im = &p->images[idx];
		if (!im->app_key) {
			im->app_key = sfile_app_key(f, merge->lib);
			if (!im->app_key) {
				odb_close(&db);
				ret = -ENOMEM;
				goto err_load;
			}
		}
		/* files come sorted: a class's first file is its first met */
		if (f->cls < im->first_cls) {
			im->first_cls = f->cls;
			im->first_file = i;
		}
		if (!im->have_header) {
			im->have_header = true;
			im->mtime = db.header->mtime;
		}
		if (!p->hdr.valid) {
			p->hdr.valid = true;
			p->hdr.cpu_type = db.header->cpu_type;
			p->hdr.cpu_speed = db.header->cpu_speed;
		}
		if (want_addrs) {
			ctx.ld = &lds[idx];
			odb_for_each(&db, add_one, &ctx);
		} else {
			/* totals only: every node counts, keys do not matter */
			uint32_t n = odb_nr_nodes(&db);

			for (uint32_t k = 1; k <= n; k++)
				ctx.sum += db.nodes[k].value;
		}
		odb_close(&db);
		if (ctx.err) {
			ret = ctx.err;
			goto err_load;
		}
		im->total[f->cls] += ctx.sum;
		p->total[f->cls] += ctx.sum;
	}
	for (size_t i = 0; i < p->nr_images; i++) {
		ret = image_finish(&p->images[i], &lds[i], nc);
		if (ret)
			goto err_load;
	}
	free(lds);
	return 0;

err_load:
	for (size_t i = 0; i < p->nr_images; i++)
		free(lds[i].v);
	free(lds);
	return ret;
}

void pp_profile_release(struct pp_profile *p)
{
	for (size_t i = 0; i < p->nr_images; i++) {
		free(p->images[i].total);
		free(p->images[i].app_key);
		free(p->images[i].offs);
		free(p->images[i].counts);
	}
	free(p->images);
	free(p->total);
	pp_fileset_release(&p->fs);
	memset(p, 0, sizeof(*p));
}
