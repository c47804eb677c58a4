/* From a decoded sample to a count in a sample file: resolve the image (and,
 * for --separate=lib/kernel, the application it is filed under), apply
 * --image, build the file key from what --separate makes significant, and
 * add one at the offset. This is the decoder's sample callback.
 *
 * Ownership: one thread, with the decoder, images and files it points to.
 */
#ifndef OPD_SAMPLE_H
#define OPD_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "opd_decode.h"
#include "opd_image.h"
#include "opd_sfile.h"

struct opd_sampler {
	struct opd_images *images;
	struct opd_sfiles *sfiles;
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
	bool logged_kernel_no_mapping;
};

void opd_sampler_init(struct opd_sampler *sp, struct opd_images *images,
		      struct opd_sfiles *sfiles, unsigned int separate,
		      const char *proc_root);

/* Forget the one-entry caches (after closing files). */
void opd_sampler_invalidate(struct opd_sampler *sp);

/* The decoder callbacks; ctx is the opd_sampler. */
extern const struct opd_decode_ops opd_sampler_ops;

#endif /* OPD_SAMPLE_H */
