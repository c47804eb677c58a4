/* fuzz-sources: libop/op_chains.c libop/op_afile.c libop/op_names.c libop/op_sessdir.c libop/op_sessdir_dir.c */
/* The call-chain store's readers on arbitrary bytes: whatever the images
 * and chains lists hold, op_chains_read_images(NULL, ) and op_chains_load(NULL, )
 * return an error or what they read, with every image parsed back to a
 * name that builds again to the same line, and a tree whose every node
 * comes after its parent, with the depth its path back to its root has.
 *
 * Input: a length byte N, then N bytes of the images list, then the chains
 * list. The chains list gets the store's 8-byte header (the first
 * format's when the first byte after the images is 0xfe) unless that byte
 * is 0xff, so the fuzzer spends its time on records, not on the magic. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_chains.h"

static char dir[64];

static void remove_dir(void)
{
	char p[96];

	snprintf(p, sizeof(p), "%s/images", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/chains", dir);
	unlink(p);
	rmdir(dir);
}

static void put(const char *name, const void *a, size_t na, const void *b,
		size_t nb)
{
	char p[96];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "wb");
	if (!f)
		abort();
	if ((na && fwrite(a, 1, na, f) != na) || (nb && fwrite(b, 1, nb, f) != nb))
		abort();
	fclose(f);
}

/* Every node's parent before it, its depth its parent's plus one, and
 * the path from each back to its root exactly that long. */
static void walk(const struct op_chain_tree *t)
{
	struct op_chain_frame *f = malloc((t->max_depth + 1) * sizeof(*f));
	uint32_t app;

	if (!f)
		abort();
	for (size_t i = 0; i < t->nr; i++) {
		const struct op_chain_node *n = &t->node[i];
		uint32_t want = n->parent ? t->depth[n->parent - 1] + 1 : 0;

		if (n->parent > i || t->depth[i] != want ||
		    t->depth[i] > OP_CHAINS_MAX_FRAMES || t->depth[i] > t->max_depth)
			abort();
		if (op_chain_frames(t, (uint32_t)(i + 1), f, &app) != want)
			abort();
	}
	for (size_t k = 1; k <= t->nr_keys; k++)
		if (op_chain_key_node(t, k) == 0 || op_chain_key_node(t, k) > t->nr)
			abort();
	free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct op_chain_images im;
	struct op_chain_tree t;
	size_t n;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz_chains.%d", (int)getpid());
		if (mkdir(dir, 0700))
			abort();
		atexit(remove_dir);
	}
	if (size < 1)
		return 0;
	n = data[0] < size - 1 ? data[0] : size - 1;
	put("images", data + 1, n, NULL, 0);
	data += 1 + n;
	size -= 1 + n;
	if (size && data[0] == 0xff)
		put("chains", data + 1, size - 1, NULL, 0);
	else if (size && data[0] == 0xfe)
		put("chains", OP_CHAINS_MAGIC_V1, 8, data + 1, size - 1);
	else
		put("chains", OP_CHAINS_MAGIC, 8, data, size);
	if (op_chains_read_images(NULL, dir, &im) == 0) {
		for (size_t i = 0; i < im.nr; i++) {
			char *again = op_img_name(&im.img[i]);

			if (!again)
				abort();
			free(again);
		}
		op_chain_images_release(&im);
	}
	if (op_chains_load(NULL, dir, &t, NULL) == 0) {
		walk(&t);
		op_chain_tree_release(&t);
	}
	return 0;
}
