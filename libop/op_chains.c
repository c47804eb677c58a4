/* Reading the call-chain store (the format is in op_chains.h). Both lists
 * are outside data: a line or record that does not parse ends the list
 * there, as a torn last record would, and nothing in them can make a
 * reader read outside what it allocated. */
#include "config.h"
#include "op_chains.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void op_chain_images_release(struct op_chain_images *im)
{
	for (size_t i = 0; i < im->nr; i++)
		free(im->img[i].path);
	free(im->img);
	free(im->is_kernel);
	memset(im, 0, sizeof(*im));
}

int op_chains_read_images(const char *dir, struct op_chain_images *im)
{
	char path[4096], *line = NULL;
	size_t cap = 0, room = 0;
	ssize_t len;
	FILE *f;
	int ret = 0;

	memset(im, 0, sizeof(*im));
	snprintf(path, sizeof(path), "%s/images", dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while ((len = getline(&line, &cap, f)) > 0) {
		unsigned long id;
		int kernel, used = 0;

		/* a torn last line has no newline: it ends the list */
		if (line[len - 1] != '\n')
			break;
		line[len - 1] = '\0';
		if (sscanf(line, "%lu %d %n", &id, &kernel, &used) != 2 || !used ||
		    id != im->nr + 1 || (kernel != 0 && kernel != 1))
			break;
		if (im->nr == room) {
			size_t n = room ? room * 2 : 64;
			struct op_img *v = realloc(im->img, n * sizeof(*v));
			bool *k;

			if (v)
				im->img = v;
			k = v ? realloc(im->is_kernel, n * sizeof(*k)) : NULL;
			if (!k) {
				ret = -ENOMEM;
				break;
			}
			im->is_kernel = k;
			room = n;
		}
		if (op_img_parse(line + used, &im->img[im->nr]))
			break;
		op_img_mark_kernel(&im->img[im->nr], (uint32_t)kernel);
		im->is_kernel[im->nr++] = kernel;
	}
	free(line);
	fclose(f);
	if (ret)
		op_chain_images_release(im);
	return ret;
}

int op_chains_read(const char *dir, op_chain_fn fn, void *ctx, uint64_t *end)
{
	char path[4096], magic[8];
	struct op_chain_frame *frames = NULL;
	size_t room = 0;
	uint64_t pos = sizeof(magic);
	uint32_t id = 0;
	int fd, ret = 0;

	if (end)
		*end = 0;
	snprintf(path, sizeof(path), "%s/chains", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    memcmp(magic, OP_CHAINS_MAGIC, sizeof(magic))) {
		close(fd);
		return -EINVAL;
	}
	for (;;) {
		uint32_t hdr[2];
		size_t bytes;

		if (pread(fd, hdr, sizeof(hdr), (off_t)pos) != (ssize_t)sizeof(hdr) ||
		    hdr[0] == 0 || hdr[0] > OP_CHAINS_MAX_FRAMES)
			break;
		if (hdr[0] > room) {
			struct op_chain_frame *v = realloc(frames, hdr[0] * sizeof(*v));

			if (!v) {
				ret = -ENOMEM;
				break;
			}
			frames = v;
			room = hdr[0];
		}
		bytes = hdr[0] * sizeof(*frames);
		if (pread(fd, frames, bytes, (off_t)(pos + sizeof(hdr))) != (ssize_t)bytes)
			break;	/* torn */
		pos += sizeof(hdr) + bytes;
		if (end)
			*end = pos;
		ret = fn(++id, hdr[1], frames, hdr[0], ctx);
		if (ret)
			break;
	}
	if (end && !*end)
		*end = sizeof(magic);
	free(frames);
	close(fd);
	return ret;
}
