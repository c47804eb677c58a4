/* From a decoded sample to a count in a sample file: resolve the image (and,
 * for --separate=lib/kernel, the application it is filed under), apply
 * --image, build the file key from what --separate makes significant, and
 * add one at the offset; and for a sample's call chain, one on each arc
 * from a caller into its callee, in the {cg} arc files OProfile's tools
 * read. These are the decoder's callbacks.
 *
 * Ownership: one thread, with the decoder, images and files it points to.
 */
#ifndef OPD_SAMPLE_H
#define OPD_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "opd_chains.h"
#include "opd_decode.h"
#include "opd_image.h"
#include "opd_sfile.h"

/* The call chain being filed: the frame its next caller calls into, and
 * the sample's file key fields its arcs share. */
struct opd_chain_state {
	bool on;			/* the sample was filed: arcs follow */
	bool cut;			/* a caller in no image: no more arcs */
	const struct opd_image *callee;
	uint64_t callee_offset;
	struct opd_image *app;
	uint32_t event;
	int tgid, tid, cpu;
	/* the whole chain, for the chain store: the sample, then callers */
	struct op_chain_frame *frames;
	size_t nr_frames, cap_frames;
};

struct opd_sampler {
	struct opd_images *images;
	struct opd_sfiles *sfiles;
	struct opd_chains *chains;	/* whole chains go there; may be NULL */
	unsigned int separate;		/* OP_SEP_* */
	const char *proc_root;		/* for module re-reads */

	/* one-entry caches for the hot path */
	struct opd_sfile_key last_key;
	struct opd_sfile *last_file;	/* most recent in the LRU, so never evicted under us */
	uint64_t last_cookie;
	struct opd_image *last_image;
	uint64_t last_app_cookie;
	struct opd_image *last_app;

	uint64_t nr_written;		/* counts that reached a file */
	uint64_t nr_kernel;		/* kernel samples received */
	uint64_t nr_anon;		/* samples in anonymous regions */
	uint64_t nr_lost_no_mapping;	/* unknown cookie, kernel pc outside text and modules */
	uint64_t nr_filtered;		/* not in --image */
	uint64_t nr_arcs;		/* arc counts that reached a file */
	uint64_t nr_bt_lost_no_mapping;	/* samples whose chain was cut at a
					 * caller in no image */
	struct opd_chain_state chain;
	/* the chain store's name of the last chain's event, made once:
	 * "EVENT.COUNT.UNITMASK" (formatting it each sample cost a third of
	 * the daemon's time with chains) */
	char chain_event[96];
	uint32_t chain_event_idx;
	bool logged_kernel_no_mapping;
};

void opd_sampler_init(struct opd_sampler *sp, struct opd_images *images,
		      struct opd_sfiles *sfiles, unsigned int separate,
		      const char *proc_root);

/* Free what the sampler allocated (the chain being built). */
void opd_sampler_release(struct opd_sampler *sp);

/* Forget the one-entry caches (after closing files). */
void opd_sampler_invalidate(struct opd_sampler *sp);

/* The decoder callbacks; ctx is the opd_sampler. */
extern const struct opd_decode_ops opd_sampler_ops;

#endif /* OPD_SAMPLE_H */
