/* The call-chain store's writer (its format: libop/op_chains.h). Each
 * frame-in-context is named once in the store's tree; each sample adds one
 * to the count of its chain's innermost node in the file of its event and
 * separation key.
 *
 * Ownership: one thread (the daemon's main loop).
 */
#ifndef OPD_CHAINS_H
#define OPD_CHAINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "odb.h"
#include "op_chains.h"
#include "op_log.h"
#include "op_names.h"
#include "op_sessdir.h"

/* Where a chain's count goes: its event's file-name part and the key. */
struct opd_chain_key {
	const char *event;	/* "TIMER.1000000.0": EVENT.COUNT.UNITMASK */
	int tgid, tid, cpu;	/* OP_SF_ALL when not separated */
};

struct opd_chains {
	char *dir;			/* samples/current/callchains */
	const struct op_sessdir *sd;	/* dir is reached through it */
	const struct op_logger *log;
	int images_fd, chains_fd;	/* -1 until the first chain */
	bool loaded;			/* an existing store was read */
	bool frozen;			/* the store on file cannot be extended
					 * (an older format, no images list
					 * for its nodes): left as it is */

	/* image name -> ID, open addressing; names owned */
	char **names;
	uint32_t *name_ids;
	size_t names_cap, nr_images;

	/* the tree: (parent, image, offset) -> node ID, open addressing */
	struct op_chain_node *nodes;	/* node ID - 1 */
	size_t nr_nodes, nodes_cap;
	uint32_t *nslots;		/* node ID, 0 empty */
	size_t nslots_cap;
	uint64_t chains_end;		/* the chains list's length */
	uint8_t *enc;			/* a chain's new records, encoded */
	size_t enc_cap;

	/* the chains met since start -> their innermost node: one lookup
	 * a sample, open addressing over the chains' words */
	uint32_t *slots;		/* chain ordinal, 0 empty */
	size_t slots_cap;
	uint32_t *words;		/* each chain: nr, app, 4 words a frame */
	size_t nr_words, words_cap;
	struct opd_chain_seen {
		size_t start;		/* its words' index in words */
		uint32_t leaf;		/* the node it ends at */
	} *seen;			/* chain ordinal - 1 */
	size_t nr_chains, seen_cap;

	/* the counts files open (few: one per event and separation key) */
	struct opd_chain_file {
		odb_t db;
		/* its key: found by these, not by its name, which takes
		 * formatting (the hot path: once a sample) */
		char *event;
		int tgid, tid, cpu;
	} *files;
	size_t nr_files, alloc_files;

	uint64_t nr_added;		/* counts that reached a file */
	uint64_t nr_lost;		/* samples whose chain was not stored */
	bool logged;
};

/* Set up the store for current_dir (samples/current). Nothing is created
 * until the first chain; an existing store is read first then, so a
 * restarted daemon goes on with the same IDs. 0 or -ENOMEM. */
int opd_chains_init(struct opd_chains *c, const struct op_sessdir *sd,
		    const char *current_dir,
		    const struct op_logger *log);

/* The image's ID, naming it on file the first time. 0 on failure, said
 * once but not counted: the caller counts the chain that needed it. */
uint32_t opd_chains_image(struct opd_chains *c, const struct op_img *img,
			  bool is_kernel);

/* Count count samples whose chain is app (an image ID, 0 for none) and
 * frames[0..nr) (frames[0] the sampled pc). Failures are counted in
 * nr_lost (count of them) and logged once. */
void opd_chains_add(struct opd_chains *c, const struct opd_chain_key *key,
		    uint32_t app, const struct op_chain_frame *frames,
		    size_t nr, uint32_t count);

/* Write the lists out (fdatasync), then msync the counts, so that what
 * a sync leaves on disk names no node it does not hold. 0 or the first
 * -errno. */
int opd_chains_sync(struct opd_chains *c);

/* Close and free; safe on a zeroed struct. */
void opd_chains_release(struct opd_chains *c);

#endif /* OPD_CHAINS_H */
