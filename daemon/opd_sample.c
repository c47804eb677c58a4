/* The per-sample path: a few compares when the sample lands in the same
 * file as the one before (the common case: a CPU runs one task for many
 * samples), a cache lookup otherwise. */
#include "config.h"
#include "opd_sample.h"

#include <string.h>

#include "op_config.h"
#include "op_names.h"
#include "op_proto.h"

void opd_sampler_init(struct opd_sampler *sp, struct opd_images *images,
		      struct opd_sfiles *sfiles, unsigned int separate,
		      const char *proc_root)
{
	memset(sp, 0, sizeof(*sp));
	sp->images = images;
	sp->sfiles = sfiles;
	sp->separate = separate;
	sp->proc_root = proc_root;
	opd_sampler_invalidate(sp);
}

void opd_sampler_invalidate(struct opd_sampler *sp)
{
	sp->last_file = NULL;
	sp->last_cookie = OP_NO_COOKIE;
	sp->last_image = NULL;
	sp->last_app_cookie = OP_NO_COOKIE;
	sp->last_app = NULL;
}

static struct opd_image *image_of(struct opd_sampler *sp, uint64_t cookie)
{
	if (cookie != sp->last_cookie || !sp->last_image) {
		sp->last_image = opd_image_from_cookie(sp->images, cookie);
		sp->last_cookie = cookie;
	}
	return sp->last_image;
}

static struct opd_image *app_of(struct opd_sampler *sp, uint64_t cookie)
{
	if (cookie == OP_NO_COOKIE)
		return NULL;
	if (cookie != sp->last_app_cookie || !sp->last_app) {
		sp->last_app = opd_image_from_cookie(sp->images, cookie);
		sp->last_app_cookie = cookie;
	}
	return sp->last_app;
}

static void sample(void *ctx, const struct opd_transient *t, uint64_t pc)
{
	struct opd_sampler *sp = ctx;
	const struct opd_image *dep;
	struct opd_image *image, *app;
	int tgid, tid, cpu;
	uint64_t offset;

	if (t->in_kernel) {
		sp->nr_kernel++;
		image = opd_image_from_kernel_pc(sp->images, pc, &offset);
		if (!image) {
			sp->nr_lost_no_mapping++;
			if (!sp->logged_kernel_no_mapping) {
				sp->logged_kernel_no_mapping = true;
				op_log(sp->images->log, OP_LOG_WARN,
				       "sample: kernel pc 0x%llx is in neither the kernel text nor a module; such samples are counted as no mapping",
				       (unsigned long long)pc);
			}
			return;
		}
	} else {
		image = image_of(sp, t->cookie);
		if (!image) {
			sp->nr_lost_no_mapping++;
			return;
		}
		offset = pc;
		if (image->img.kind == OP_IMG_ANON)
			sp->nr_anon++;
	}
	app = app_of(sp, t->app_cookie);

	if (!image->selected && !(app && app->selected)) {
		sp->nr_filtered++;
		return;
	}

	/* The key's fields stay in registers until they differ from the
	 * last file's: a key built in memory and compared at once is read
	 * with wider loads than it was written with, which stalls. */
	dep = image;
	if (image->img.kind == OP_IMG_ANON) {
		/* a region of one process is filed under its application
		 * whatever --separate says, as operf files it: OProfile's
		 * readers skip {anon:...} at the top */
		dep = app ? app : opd_image_unknown_app(sp->images);
		if (!dep) {
			sp->nr_lost_no_mapping++;
			return;
		}
	} else if (app && ((!t->in_kernel && (sp->separate & OP_SEP_LIB)) ||
			   (t->in_kernel && (sp->separate & OP_SEP_KERNEL)))) {
		dep = app;
	}
	tgid = tid = cpu = OP_SF_ALL;
	if (sp->separate & OP_SEP_THREAD) {
		tgid = t->tgid;
		tid = t->tid;
	}
	if (sp->separate & OP_SEP_CPU)
		cpu = t->cpu;

	if (!sp->last_file || sp->last_key.image != image ||
	    sp->last_key.dep != dep || sp->last_key.event != t->event ||
	    sp->last_key.tgid != tgid || sp->last_key.tid != tid ||
	    sp->last_key.cpu != cpu) {
		struct opd_sfile_key key = {
			.image = image, .dep = dep, .event = t->event,
			.tgid = tgid, .tid = tid, .cpu = cpu,
		};

		sp->last_file = opd_sfile_get(sp->sfiles, &key);
		sp->last_key = key;
		if (!sp->last_file)
			return;		/* counted by the cache */
	}
	if (opd_sfile_add(sp->sfiles, sp->last_file, offset))
		sp->nr_written++;
}

static void module_loaded(void *ctx)
{
	struct opd_sampler *sp = ctx;

	opd_images_reread_modules(sp->images, sp->proc_root);
}

const struct opd_decode_ops opd_sampler_ops = {
	.sample = sample,
	.module_loaded = module_loaded,
};
