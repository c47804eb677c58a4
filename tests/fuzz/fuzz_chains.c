/* fuzz-sources: libop/op_chains.c libop/op_names.c */
/* The call-chain store's readers on arbitrary bytes: whatever the images
 * and chains lists hold, op_chains_read_images() and op_chains_read()
 * return an error or what they read, with every image parsed back to a
 * name that builds again to the same line, every chain ID in order and
 * every record inside the file.
 *
 * Input: a length byte N, then N bytes of the images list, then the chains
 * list. The chains list gets the store's 8-byte header unless the first
 * byte after the images is 0xff, so the fuzzer spends its time on
 * records, not on the magic. */
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

struct walk {
	uint32_t last;
	uint64_t frames;
};

static int chain(uint32_t id, uint32_t app, const struct op_chain_frame *f,
		 uint32_t nr, void *ctx)
{
	struct walk *w = ctx;

	(void)app;
	if (id != w->last + 1 || !nr || nr > OP_CHAINS_MAX_FRAMES)
		abort();
	w->last = id;
	for (uint32_t i = 0; i < nr; i++)	/* touch every frame */
		w->frames += f[i].image + (f[i].offset & 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct op_chain_images im;
	struct walk w = { 0 };
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
	else
		put("chains", OP_CHAINS_MAGIC, 8, data, size);
	if (op_chains_read_images(dir, &im) == 0) {
		for (size_t i = 0; i < im.nr; i++) {
			char *again = op_img_name(&im.img[i]);

			if (!again)
				abort();
			free(again);
		}
		op_chain_images_release(&im);
	}
	op_chains_read(dir, chain, &w, NULL);
	return 0;
}
