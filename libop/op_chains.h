/* The call-chain store's format: whole chains, aggregated. Arc files say
 * how often a caller called a callee, not which grandparent a call came
 * through; flame graphs and pprof need whole stacks. So the store keeps
 * every distinct chain, and the samples that ended in it are counted per
 * event and separation key. Chains share their outer frames (every chain
 * of a program starts at its entry point, every kernel stack at the same
 * entry code), so they are kept as a calling-context tree: each node is a
 * frame under its caller's node, written once, and a chain is named by
 * the node of its innermost frame. The store's size follows distinct
 * frames-in-context, not samples. The daemon writes it
 * (daemon/opd_chains.h); exporters read it through this header.
 *
 * Files, in samples/current/callchains/ (OProfile's tools read only
 * {root}/ and {kern}/ under a session, so they never see these):
 *   images   one line per image: "ID KERNEL NAME\n", NAME an image part
 *            of a sample file's name (op_img_name()), KERNEL 0 or 1, IDs
 *            from 1 in order;
 *   chains   the 8-byte header "OPCHAIN2", then one record per node, its
 *            ID its ordinal from 1: three unsigned LEB128 numbers,
 *            ID - PARENT, IMAGE, OFFSET. A record whose first number is
 *            its own ID (PARENT 0) is an application's root: IMAGE is the
 *            application's image ID (0: none), OFFSET 0. Any other node is
 *            a frame at OFFSET in image IMAGE called from its parent's
 *            frame (or, under a root, the outermost frame). A parent
 *            comes before its children.
 *   EVENT.COUNT.UNITMASK.TGID.TID.CPU   a sample file (odb) whose keys are
 *            node IDs, each counting the samples whose chain ends at that
 *            node; named as a sample file's last component.
 * Names and nodes are appended with write(2) before any count refers to
 * them, so a crash leaves at worst a torn last record, which readers drop.
 *
 * The first format ("OPCHAIN1": u32 nr_frames, u32 app, then per frame
 * u32 image, u32 0, u64 offset, innermost first; counts keyed by chain
 * ordinal) is still read: its chains are loaded as unshared paths of the
 * tree, and op_chain_key_node() maps its keys.
 */
#ifndef OP_CHAINS_H
#define OP_CHAINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_names.h"

#define OP_CHAINS_DIR "callchains"
/* its two lists, the only plain files in it */
#define OP_CHAINS_LIST "chains"
#define OP_CHAINS_IMAGES "images"
#define OP_CHAINS_MAGIC "OPCHAIN2"
#define OP_CHAINS_MAGIC_V1 "OPCHAIN1"
/* A chain longer than this is refused on reading (the kernel's own bound
 * on a sample's chain is 16 bits). */
#define OP_CHAINS_MAX_FRAMES 65536u
/* The most bytes one node record takes. */
#define OP_CHAIN_NODE_MAX 20

struct op_chain_frame {
	uint32_t image;		/* image ID */
	uint32_t pad;
	uint64_t offset;
};
_Static_assert(sizeof(struct op_chain_frame) == 16, "chain frame layout");

struct op_chain_node {
	uint32_t parent;	/* node ID; 0: an application's root */
	uint32_t image;		/* image ID; a root's: the application's (0: none) */
	uint64_t offset;	/* in the image; a root's: 0 */
};

struct op_chain_images {
	struct op_img *img;	/* indexed by ID - 1 */
	bool *is_kernel;
	size_t nr;
};

/* dir (samples/current/callchains) is reached through sd (op_sessdir.h).
 * Read dir/images: every complete line, up to the first bad one. 0 or
 * -errno (-ENOENT: no store). */
int op_chains_read_images(const struct op_sessdir *sd, const char *dir,
			  struct op_chain_images *im);
void op_chain_images_release(struct op_chain_images *im);

struct op_chain_tree {
	struct op_chain_node *node;	/* indexed by ID - 1 */
	uint32_t *depth;		/* ID - 1 -> frames from it to its root */
	size_t nr;
	uint32_t max_depth;
	bool v1;			/* read from the first format */
	uint32_t *key_node;		/* v1: chain ordinal - 1 -> its node */
	size_t nr_keys;
};

/* Load dir/chains whole, up to a torn or impossible record (a parent
 * not before its child, a chain deeper than OP_CHAINS_MAX_FRAMES, a
 * number that does not fit). *end, when not NULL, gets the file offset
 * after the last complete record. 0 or -errno (-ENOENT: no store,
 * -EINVAL: not a chain file). */
int op_chains_load(const struct op_sessdir *sd, const char *dir,
		   struct op_chain_tree *t, uint64_t *end);
void op_chain_tree_release(struct op_chain_tree *t);

/* The node a counts file's key names: the key itself, or for a store of
 * the first format the node its chain ended at; 0 when none. */
uint32_t op_chain_key_node(const struct op_chain_tree *t, uint64_t key);

/* The chain ending at node id, innermost frame first, into f (room for
 * t->max_depth frames); its application's image ID in *app. The number
 * of frames: 0 when id is no node or a root. */
uint32_t op_chain_frames(const struct op_chain_tree *t, uint32_t id,
			 struct op_chain_frame *f, uint32_t *app);

/* Encode node id's record into buf (OP_CHAIN_NODE_MAX bytes); its length. */
size_t op_chain_node_encode(uint32_t id, const struct op_chain_node *n,
			    uint8_t *buf);

#endif /* OP_CHAINS_H */
