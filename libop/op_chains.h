/* The call-chain store's format: whole chains, aggregated. Arc files say
 * how often a caller called a callee, not which grandparent a call came
 * through; flame graphs and pprof need whole stacks. So each distinct
 * chain (the process's application, then its frames, innermost first, each
 * an image and an offset in it) is written once, and the samples that
 * ended in it are counted per event and separation key. The store's size
 * follows distinct chains, not samples. The daemon writes it
 * (daemon/opd_chains.h); exporters read it through this header.
 *
 * Files, in samples/current/callchains/ (OProfile's tools read only
 * {root}/ and {kern}/ under a session, so they never see these):
 *   images   one line per image: "ID KERNEL NAME\n", NAME an image part
 *            of a sample file's name (op_img_name()), KERNEL 0 or 1, IDs
 *            from 1 in order;
 *   chains   the 8-byte header "OPCHAIN1", then one record per chain, its
 *            ID its ordinal from 1: u32 nr_frames, u32 app image ID (0:
 *            none), then nr_frames of { u32 image ID, u32 0, u64 offset },
 *            little endian;
 *   EVENT.COUNT.UNITMASK.TGID.TID.CPU   a sample file (odb) whose keys are
 *            chain IDs, named as a sample file's last component.
 * Names and chains are appended with write(2) before any count refers to
 * them, so a crash leaves at worst a torn last record, which readers drop.
 */
#ifndef OP_CHAINS_H
#define OP_CHAINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_names.h"

#define OP_CHAINS_DIR "callchains"
#define OP_CHAINS_MAGIC "OPCHAIN1"
/* A chain longer than this is refused on reading (the kernel's own bound
 * on a sample's chain is 16 bits). */
#define OP_CHAINS_MAX_FRAMES 65536u

struct op_chain_frame {
	uint32_t image;		/* image ID */
	uint32_t pad;
	uint64_t offset;
};
_Static_assert(sizeof(struct op_chain_frame) == 16, "chain frame layout");

struct op_chain_images {
	struct op_img *img;	/* indexed by ID - 1 */
	bool *is_kernel;
	size_t nr;
};

/* Read dir/images: every complete line, up to the first bad one. 0 or
 * -errno (-ENOENT: no store). */
int op_chains_read_images(const char *dir, struct op_chain_images *im);
void op_chain_images_release(struct op_chain_images *im);

/* Call fn for each complete chain record of dir/chains, with its ID; stops
 * at a torn or impossible record, and at fn's non-zero return, which it
 * returns. *end, when not NULL, gets the file offset after the last
 * complete record. 0 or -errno (-ENOENT: no store, -EINVAL: not a chain
 * file). */
typedef int (*op_chain_fn)(uint32_t id, uint32_t app,
			   const struct op_chain_frame *frames, uint32_t nr,
			   void *ctx);
int op_chains_read(const char *dir, op_chain_fn fn, void *ctx, uint64_t *end);

#endif /* OP_CHAINS_H */
