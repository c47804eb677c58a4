/* Images: what a sample's cookie or kernel pc names. User images come from
 * dcookies (a file, or an anonymous region of one process) and are cached
 * here for the whole session, since a cookie is never reused; the kernel
 * image and its modules come from the kernel map.
 *
 * The cookie lookup is a callback (kop_dcookie_lookup in the daemon) so the
 * decoder tests resolve cookies from a table of their own.
 *
 * Ownership: one thread (the daemon's main loop). An opd_image lives until
 * opd_images_release(), so sample-file keys may hold pointers to it.
 */
#ifndef OPD_IMAGE_H
#define OPD_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kop.h"
#include "op_kernel.h"
#include "op_log.h"
#include "op_names.h"

struct opd_image {
	struct op_img img;		/* the name, as op_names.h builds it */
	uint64_t mtime;			/* of the binary, for the file header; 0 if unknown */
	bool selected;			/* passes --image (true without a filter) */
	bool is_kernel;			/* the kernel or a module */
	uint64_t cookie;		/* OP_NO_COOKIE for kernel images */
	uint32_t chain_id;		/* its ID in the call-chain store, 0: none yet */
	struct opd_image *next;		/* hash chain / module list */
};

typedef int (*opd_lookup_fn)(void *ctx, uint64_t cookie,
			     struct kop_dcookie_info *info);

struct opd_images {
	opd_lookup_fn lookup;
	void *lookup_ctx;
	const struct op_logger *log;

	struct opd_image **buckets;	/* cookie -> image, chained */
	size_t nr_buckets;		/* power of two */
	size_t nr_images;
	struct kop_dcookie_info *info;	/* scratch for lookups (4 KiB path) */

	/* the kernel: km is filled by the owner (opd_images_read_kernel or a
	 * test); kernel_name is "/proc/kallsyms" or the --vmlinux path */
	struct op_kernel_map km;
	bool have_km;
	char *kernel_name;
	struct opd_image *kernel;	/* created on first kernel sample */
	struct opd_image *unknown_app;	/* created on first use */
	struct opd_image *modules;	/* list, by name */

	char **filter;			/* --image list, NULL: everything */
	size_t nr_filter, alloc_filter;

	uint64_t nr_unknown_cookies;	/* distinct cookies the lookup did not know */
};

/* filter: comma list of images for --image, or NULL/"" for all. kernel_name:
 * the kernel image's name (NULL: "/proc/kallsyms"). Returns 0 or -errno. */
int opd_images_init(struct opd_images *ims, opd_lookup_fn lookup, void *ctx,
		    const char *kernel_name, const char *filter,
		    const struct op_logger *log);

void opd_images_release(struct opd_images *ims);

/* Read the kernel map from proc_root (kallsyms and modules). A failure is
 * logged and leaves kernel samples unattributable (counted as no mapping).
 * Returns 0 or -errno. */
int opd_images_read_kernel(struct opd_images *ims, const char *proc_root);

/* Re-read the modules after MODULE_LOADED. */
void opd_images_reread_modules(struct opd_images *ims, const char *proc_root);

/* The image of a cookie, NULL when the lookup does not know it (logged
 * once per cookie) or it cannot be named. */
struct opd_image *opd_image_from_cookie(struct opd_images *ims, uint64_t cookie);

/* The image of a kernel pc and the offset in it: the kernel text
 * (pc - text_start) or a module (pc - module start); NULL outside both. */
struct opd_image *opd_image_from_kernel_pc(struct opd_images *ims, uint64_t pc,
					   uint64_t *offset);

/* The application of a process whose executable was never seen (it exited
 * before we read /proc, and no mapping named it): "/unknown", the name
 * OProfile's operf files such processes under. NULL when out of memory. */
struct opd_image *opd_image_unknown_app(struct opd_images *ims);

#endif /* OPD_IMAGE_H */
