/* The per-sample path: a few compares when the sample lands in the same
 * file as the one before (the common case: a CPU runs one task for many
 * samples), a cache lookup otherwise. */
#include "config.h"
#include "opd_sample.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_config.h"
#include "op_grow.h"
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

void opd_sampler_release(struct opd_sampler *sp)
{
	free(sp->chain.frames);
	sp->chain.frames = NULL;
	sp->chain.nr_frames = sp->chain.cap_frames = 0;
}

void opd_sampler_invalidate(struct opd_sampler *sp)
{
	sp->last_file = NULL;
	sp->last_cookie = OP_NO_COOKIE;
	sp->last_image = NULL;
	sp->last_app_cookie = OP_NO_COOKIE;
	sp->last_app = NULL;
	sp->chain.on = false;
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

/* Where a pc of t's lands: its image, and the offset in it in *offset;
 * NULL when in no image we know. */
static struct opd_image *locate(struct opd_sampler *sp,
				const struct opd_transient *t, uint64_t pc,
				uint64_t *offset)
{
	if (t->in_kernel)
		return opd_image_from_kernel_pc(sp->images, pc, offset);
	*offset = pc;
	return image_of(sp, t->cookie);
}

/* The image a sample in image is filed under (the {dep} part): its
 * application when --separate says so, and always for an anonymous
 * region, which is one process's and is filed under its application
 * whatever --separate says, as operf files it (OProfile's readers skip a
 * top-level {anon:...}); "/unknown" when the executable was never seen.
 * NULL when out of memory. */
static const struct opd_image *dep_of(struct opd_sampler *sp,
				      const struct opd_transient *t,
				      const struct opd_image *image,
				      const struct opd_image *app)
{
	if (image->img.kind == OP_IMG_ANON)
		return app ? app : opd_image_unknown_app(sp->images);
	if (app && ((!t->in_kernel && (sp->separate & OP_SEP_LIB)) ||
		    (t->in_kernel && (sp->separate & OP_SEP_KERNEL))))
		return app;
	return image;
}

/* Add a frame to the whole chain kept for the chain store; false when the
 * chain cannot be kept (it is then not stored, its arcs still are). */
static bool push_frame(struct opd_sampler *sp, struct opd_image *image,
		       uint64_t offset)
{
	struct opd_chain_state *c = &sp->chain;
	struct op_chain_frame *f;

	if (!sp->chains)
		return true;
	if (!image->chain_id)
		image->chain_id = opd_chains_image(sp->chains, &image->img,
						   image->is_kernel);
	if (!image->chain_id)
		return false;
	if (c->nr_frames == c->cap_frames) {
		f = op_grow(c->frames, c->nr_frames + 1, &c->cap_frames, 64,
				sizeof(*f));
		if (!f)
			return false;
		c->frames = f;
	}
	c->frames[c->nr_frames++] = (struct op_chain_frame){
		.image = image->chain_id, .offset = offset,
	};
	return true;
}

static void sample(void *ctx, const struct opd_transient *t, uint64_t pc,
		   uint32_t n)
{
	struct opd_sampler *sp = ctx;
	const struct opd_image *dep;
	struct opd_image *image, *app;
	int tgid, tid, cpu;
	uint64_t offset;

	if (t->in_kernel)
		sp->nr_kernel += n;
	image = locate(sp, t, pc, &offset);
	if (!image) {
		sp->nr_lost_no_mapping += n;
		sp->chain.on = false;
		if (t->in_kernel && !sp->logged_kernel_no_mapping) {
			sp->logged_kernel_no_mapping = true;
			op_log(sp->images->log, OP_LOG_WARN,
			       "sample: kernel pc 0x%llx is in neither the kernel text nor a module; such samples are counted as no mapping",
			       (unsigned long long)pc);
		}
		return;
	}
	if (!t->in_kernel && image->img.kind == OP_IMG_ANON)
		sp->nr_anon += n;
	app = app_of(sp, t->app_cookie);

	if (!image->selected && !(app && app->selected)) {
		sp->nr_filtered += n;
		sp->chain.on = false;
		return;
	}

	/* The key's fields stay in registers until they differ from the
	 * last file's: a key built in memory and compared at once is read
	 * with wider loads than it was written with, which stalls. */
	dep = dep_of(sp, t, image, app);
	if (!dep) {
		sp->nr_lost_no_mapping += n;
		sp->chain.on = false;
		return;
	}
	tgid = tid = cpu = OP_SF_ALL;
	if (sp->separate & OP_SEP_THREAD) {
		tgid = t->tgid;
		tid = t->tid;
	} else if (sp->separate & OP_SEP_CONTAINER) {
		tgid = t->tgid;	/* the reports find its container */
	}
	if (sp->separate & OP_SEP_CPU)
		cpu = t->cpu;
	if (t->trace == OPD_TRACE_SAMPLE) {
		/* its callers follow: each arc into the frame before */
		struct opd_chain_state *c = &sp->chain;

		c->on = true;
		c->cut = false;
		c->callee = image;
		c->callee_offset = offset;
		c->app = app;
		c->event = t->event;
		c->tgid = tgid;
		c->tid = tid;
		c->cpu = cpu;
		c->nr_frames = 0;
		if (!push_frame(sp, image, offset))
			c->nr_frames = SIZE_MAX;	/* not storable */
	}

	if (!sp->last_file || sp->last_key.image != image ||
	    sp->last_key.dep != dep || sp->last_key.event != t->event ||
	    sp->last_key.tgid != tgid || sp->last_key.tid != tid ||
	    sp->last_key.cpu != cpu) {
		struct opd_sfile_key key = {
			.image = image, .dep = dep, .event = t->event,
			.tgid = tgid, .tid = tid, .cpu = cpu,
		};

		sp->last_file = opd_sfile_get(sp->sfiles, &key, n);
		sp->last_key = key;
		if (!sp->last_file)
			return;		/* counted by the cache */
	}
	if (opd_sfile_add(sp->sfiles, sp->last_file, offset, n))
		sp->nr_written += n;
}

/* A caller of the chain's last frame: one more on the arc from it into
 * that frame, in the caller's arc file for the callee's image, keyed as
 * OProfile's daemons key arcs (caller offset << 32 | callee offset; the
 * offsets are 32-bit there). A caller in no image ends the chain. */
static void caller(void *ctx, const struct opd_transient *t, uint64_t pc)
{
	struct opd_sampler *sp = ctx;
	struct opd_chain_state *c = &sp->chain;
	const struct opd_image *dep;
	struct opd_image *image;
	struct opd_sfile *f;
	uint64_t offset;

	if (!c->on || c->cut)
		return;
	image = locate(sp, t, pc, &offset);
	dep = image ? dep_of(sp, t, image, c->app) : NULL;
	if (!dep) {
		sp->nr_bt_lost_no_mapping += t->count;
		c->cut = true;	/* the chain so far is still stored */
		return;
	}
	if (c->nr_frames != SIZE_MAX && !push_frame(sp, image, offset))
		c->nr_frames = SIZE_MAX;
	{
		struct opd_sfile_key key = {
			.image = image, .dep = dep, .cg = c->callee,
			.event = c->event, .tgid = c->tgid, .tid = c->tid,
			.cpu = c->cpu,
		};

		/* a new file may evict the sample path's cached one */
		sp->last_file = NULL;
		f = opd_sfile_get(sp->sfiles, &key, t->count);
	}
	if (f && opd_sfile_add(sp->sfiles, f, offset << 32 |
			       (c->callee_offset & 0xffffffffULL), t->count))
		sp->nr_arcs += t->count;
	c->callee = image;
	c->callee_offset = offset;
}

/* The chain is complete (or broken off by the stream: what arrived of it
 * is a true prefix, and is stored as such). */
static void trace_end(void *ctx, const struct opd_transient *t, bool complete)
{
	struct opd_sampler *sp = ctx;
	struct opd_chain_state *c = &sp->chain;

	(void)t;
	(void)complete;
	if (c->on && sp->chains) {
		const struct opd_event_info *ev = &sp->sfiles->events[c->event];
		struct opd_chain_key key = {
			.event = sp->chain_event, .tgid = c->tgid, .tid = c->tid,
			.cpu = c->cpu,
		};
		uint32_t app = 0;

		if (!sp->chain_event[0] || sp->chain_event_idx != c->event) {
			snprintf(sp->chain_event, sizeof(sp->chain_event), "%s.%lu.%u",
				 ev->name, ev->count, ev->unit_mask);
			sp->chain_event_idx = c->event;
		}
		if (c->app) {
			if (!c->app->chain_id)
				c->app->chain_id = opd_chains_image(sp->chains, &c->app->img,
								    c->app->is_kernel);
			app = c->app->chain_id;
		}
		if (c->nr_frames == SIZE_MAX || (c->app && !app))
			sp->chains->nr_lost += t->count;
		else
			opd_chains_add(sp->chains, &key, app, c->frames, c->nr_frames,
				       t->count);
	}
	c->on = false;
}

static void module_loaded(void *ctx)
{
	struct opd_sampler *sp = ctx;

	opd_images_reread_modules(sp->images, sp->proc_root);
}

const struct opd_decode_ops opd_sampler_ops = {
	.sample = sample,
	.module_loaded = module_loaded,
	.caller = caller,
	.trace_end = trace_end,
};
