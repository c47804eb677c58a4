/* Images by cookie and by kernel pc. Cookies are resolved once: kmod keeps
 * them stable for the session, so the daemon asks kmod for a path only on
 * the first sample of each image. */
#include "config.h"
#include "opd_image.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "op_grow.h"
#include "op_proto.h"

#define OPD_DEFAULT_KERNEL_NAME OP_KALLSYMS_IMAGE

static size_t cookie_hash(uint64_t cookie, size_t nr_buckets)
{
	cookie ^= cookie >> 33;
	cookie *= 0xff51afd7ed558ccdULL;
	cookie ^= cookie >> 33;
	return (size_t)cookie & (nr_buckets - 1);
}

static int parse_filter(struct opd_images *ims, const char *filter)
{
	const char *p = filter;

	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len && ims->nr_filter == ims->alloc_filter) {
			char **nf = op_grow(ims->filter, ims->nr_filter + 1,
					    &ims->alloc_filter, 8, sizeof(*nf));

			if (!nf)
				return -ENOMEM;
			ims->filter = nf;
		}
		if (len) {
			ims->filter[ims->nr_filter] = strndup(p, len);
			if (!ims->filter[ims->nr_filter])
				return -ENOMEM;
			ims->nr_filter++;
		}
		if (!end)
			break;
		p = end + 1;
	}
	return 0;
}

int opd_images_init(struct opd_images *ims, opd_lookup_fn lookup, void *ctx,
		    const char *kernel_name, const char *filter,
		    const struct op_logger *log)
{
	int ret;

	memset(ims, 0, sizeof(*ims));
	ims->lookup = lookup;
	ims->lookup_ctx = ctx;
	ims->log = log;
	ims->nr_buckets = 256;
	ims->buckets = calloc(ims->nr_buckets, sizeof(*ims->buckets));
	ims->info = malloc(sizeof(*ims->info));
	ims->kernel_name = strdup(kernel_name && *kernel_name ?
				  kernel_name : OPD_DEFAULT_KERNEL_NAME);
	if (!ims->buckets || !ims->info || !ims->kernel_name) {
		ret = -ENOMEM;
		goto err_release;
	}
	if (filter && *filter) {
		ret = parse_filter(ims, filter);
		if (ret)
			goto err_release;
	}
	return 0;

err_release:
	opd_images_release(ims);
	return ret;
}

static void image_free(struct opd_image *im)
{
	if (!im)
		return;
	free(im->img.path);
	free(im);
}

void opd_images_release(struct opd_images *ims)
{
	if (ims->buckets) {
		for (size_t b = 0; b < ims->nr_buckets; b++) {
			struct opd_image *im = ims->buckets[b];

			while (im) {
				struct opd_image *next = im->next;

				image_free(im);
				im = next;
			}
		}
	}
	while (ims->modules) {
		struct opd_image *next = ims->modules->next;

		image_free(ims->modules);
		ims->modules = next;
	}
	image_free(ims->kernel);
	image_free(ims->unknown_app);
	for (size_t i = 0; i < ims->nr_filter; i++)
		free(ims->filter[i]);
	free(ims->filter);
	free(ims->buckets);
	free(ims->info);
	free(ims->kernel_name);
	if (ims->have_km)
		op_kernel_map_release(&ims->km);
	memset(ims, 0, sizeof(*ims));
}

/* --image matches a full path, or a basename for names given without a
 * slash (OProfile accepts both). */
static bool filter_match(const struct opd_images *ims, const char *path)
{
	const char *base = strrchr(path, '/');

	if (!ims->nr_filter)
		return true;
	base = base ? base + 1 : path;
	for (size_t i = 0; i < ims->nr_filter; i++) {
		const char *f = ims->filter[i];

		if (!strcmp(f, path) || (!strchr(f, '/') && !strcmp(f, base)))
			return true;
	}
	return false;
}

static struct opd_image *image_new(struct opd_images *ims, enum op_img_kind kind,
				   const char *path)
{
	struct opd_image *im = calloc(1, sizeof(*im));

	if (!im)
		return NULL;
	im->img.kind = kind;
	im->img.path = strdup(path);
	if (!im->img.path) {
		free(im);
		return NULL;
	}
	im->selected = filter_match(ims, path);
	return im;
}

static int grow(struct opd_images *ims)
{
	size_t nr = ims->nr_buckets * 2;
	struct opd_image **nb = calloc(nr, sizeof(*nb));

	if (!nb)
		return -ENOMEM;
	for (size_t b = 0; b < ims->nr_buckets; b++) {
		struct opd_image *im = ims->buckets[b];

		while (im) {
			struct opd_image *next = im->next;
			size_t h = cookie_hash(im->cookie, nr);

			im->next = nb[h];
			nb[h] = im;
			im = next;
		}
	}
	free(ims->buckets);
	ims->buckets = nb;
	ims->nr_buckets = nr;
	return 0;
}

/* A cookie the lookup does not know is remembered as an image with a NULL
 * path so it is looked up (and logged) once. */
struct opd_image *opd_image_from_cookie(struct opd_images *ims, uint64_t cookie)
{
	size_t h = cookie_hash(cookie, ims->nr_buckets);
	struct kop_dcookie_info *info = ims->info;
	struct opd_image *im;
	int ret;

	for (im = ims->buckets[h]; im; im = im->next) {
		if (im->cookie == cookie)
			return im->img.path ? im : NULL;
	}
	if (cookie == OP_NO_COOKIE)
		return NULL;

	memset(info, 0, sizeof(*info));
	ret = ims->lookup(ims->lookup_ctx, cookie, info);
	info->path[sizeof(info->path) - 1] = '\0';
	if (ret == 0 && info->kind == KOP_IMAGE_FILE && info->path[0] != '/') {
		op_log(ims->log, OP_LOG_WARN,
		       "images: cookie 0x%llx names a relative path '%s'; its samples are lost",
		       (unsigned long long)cookie, info->path);
		ret = -EINVAL;
	}
	if (ret == 0) {
		enum op_img_kind kind = info->kind == KOP_IMAGE_ANON ?
					OP_IMG_ANON : OP_IMG_FILE;

		im = image_new(ims, kind, info->path[0] ? info->path : "anon");
		if (!im)
			return NULL;	/* out of memory: retried next time */
		if (kind == OP_IMG_ANON) {
			im->img.anon_tgid = info->tgid;
			im->img.anon_start = info->start;
			/* named with the last byte, as OProfile names them */
			im->img.anon_end = info->end > info->start ? info->end - 1 : info->end;
		} else {
			struct stat st;

			/* a copy kept from another root may not be written
			 * yet: kmod knows the original's */
			if (info->mtime)
				im->mtime = info->mtime;
			else if (stat(info->path, &st) == 0)
				im->mtime = (uint64_t)st.st_mtime;
		}
	} else {
		if (ret == -ENOENT)
			op_log(ims->log, OP_LOG_WARN,
			       "images: unknown cookie 0x%llx; its samples are counted as lost (no mapping)",
			       (unsigned long long)cookie);
		im = calloc(1, sizeof(*im));
		if (!im)
			return NULL;
		ims->nr_unknown_cookies++;
	}
	im->cookie = cookie;
	im->next = ims->buckets[h];
	ims->buckets[h] = im;
	if (++ims->nr_images > ims->nr_buckets)
		grow(ims);	/* on failure the chains just get longer */
	return im->img.path ? im : NULL;
}

int opd_images_read_kernel(struct opd_images *ims, const char *proc_root)
{
	int ret;

	if (ims->have_km) {
		op_kernel_map_release(&ims->km);
		ims->have_km = false;
	}
	ret = op_kernel_map_read(&ims->km, proc_root, ims->log);
	if (ret) {
		op_log(ims->log, OP_LOG_WARN,
		       "images: cannot read the kernel layout from %s/kallsyms: %s; kernel samples will be counted as no mapping",
		       proc_root, strerror(-ret));
		return ret;
	}
	ims->have_km = true;
	op_log(ims->log, OP_LOG_INFO,
	       "images: kernel text 0x%llx-0x%llx, %zu modules",
	       (unsigned long long)ims->km.text_start,
	       (unsigned long long)ims->km.text_end, ims->km.nr_modules);
	return 0;
}

void opd_images_reread_modules(struct opd_images *ims, const char *proc_root)
{
	int ret;

	if (!ims->have_km)
		return;
	ret = op_kernel_map_reread_modules(&ims->km, proc_root, ims->log);
	if (ret < 0)
		op_log(ims->log, OP_LOG_WARN,
		       "images: cannot re-read the modules: %s", strerror(-ret));
}

static struct opd_image *kernel_image(struct opd_images *ims, bool module,
				      const char *name)
{
	struct opd_image *im;

	if (!module) {
		if (!ims->kernel) {
			ims->kernel = image_new(ims, OP_IMG_KERN, name);
			if (ims->kernel)
				ims->kernel->is_kernel = true;
		}
		return ims->kernel;
	}
	for (im = ims->modules; im; im = im->next) {
		if (!strcmp(im->img.path, name))
			return im;
	}
	im = image_new(ims, OP_IMG_KERN, name);
	if (!im)
		return NULL;
	im->is_kernel = true;
	im->next = ims->modules;
	ims->modules = im;
	return im;
}

struct opd_image *opd_image_from_kernel_pc(struct opd_images *ims, uint64_t pc,
					   uint64_t *offset)
{
	const struct op_kmodule *mod;

	if (!ims->have_km)
		return NULL;
	if (pc >= ims->km.text_start && pc < ims->km.text_end) {
		*offset = pc - ims->km.text_start;
		return kernel_image(ims, false, ims->kernel_name);
	}
	mod = op_kernel_map_find_module(&ims->km, pc);
	if (!mod)
		return NULL;
	*offset = pc - mod->start;
	return kernel_image(ims, true, mod->name);
}

struct opd_image *opd_image_unknown_app(struct opd_images *ims)
{
	if (!ims->unknown_app)
		ims->unknown_app = image_new(ims, OP_IMG_FILE, "/unknown");
	return ims->unknown_app;
}
