/* Reading the call-chain store (the format is in op_chains.h). Both lists
 * are outside data: a line or record that does not parse ends the list
 * there, as a torn last record would, and nothing in them can make a
 * reader read outside what it allocated or walk a path longer than
 * OP_CHAINS_MAX_FRAMES. */
#include "config.h"
#include "op_chains.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_afile.h"
#include "op_grow.h"

void op_chain_images_release(struct op_chain_images *im)
{
	for (size_t i = 0; i < im->nr; i++)
		free(im->img[i].path);
	free(im->img);
	free(im->is_kernel);
	memset(im, 0, sizeof(*im));
}

int op_chains_read_images(const struct op_sessdir *sd, const char *dir,
			  struct op_chain_images *im)
{
	char path[4096], *line = NULL;
	size_t cap = 0, room = 0;
	ssize_t len;
	FILE *f;
	int ret = 0;

	memset(im, 0, sizeof(*im));
	snprintf(path, sizeof(path), "%s/" OP_CHAINS_IMAGES, dir);
	f = op_sd_fopen(sd, path, "re");
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
			/* two arrays of one capacity, updated once both
			 * have grown */
			size_t n = room, n_k = room;
			struct op_img *v = op_grow(im->img, im->nr + 1, &n, 64,
						   sizeof(*v));
			bool *k;

			if (v)
				im->img = v;
			k = v ? op_grow(im->is_kernel, im->nr + 1, &n_k, 64,
					sizeof(*k)) : NULL;
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

size_t op_chain_node_encode(uint32_t id, const struct op_chain_node *n,
			    uint8_t *buf)
{
	uint64_t v[3] = { id - n->parent, n->image, n->offset };
	size_t len = 0;

	for (int i = 0; i < 3; i++) {
		uint64_t x = v[i];

		while (x >= 0x80) {
			buf[len++] = (uint8_t)(x | 0x80);
			x >>= 7;
		}
		buf[len++] = (uint8_t)x;
	}
	return len;
}

/* One LEB128 number from p[0..end) into *v; the bytes it took, 0 when it
 * is torn or longer than 64 bits. */
static size_t get_number(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;

	for (size_t i = 0; i < 10 && p + i < end; i++) {
		uint64_t b = p[i] & 0x7f;

		if (i == 9 && b > 1)
			return 0;
		x |= b << (7 * i);
		if (!(p[i] & 0x80)) {
			*v = x;
			return i + 1;
		}
	}
	return 0;
}

/* Room for one more node (and, for v1, one more key). */
static int tree_room(struct op_chain_tree *t, size_t *room)
{
	/* two arrays of one capacity, updated once both have grown */
	size_t n = *room, n_depth = *room;
	struct op_chain_node *v;
	uint32_t *d;

	if (t->nr < *room)
		return 0;
	if (t->nr >= UINT32_MAX - 1)
		return -EOVERFLOW;
	v = op_grow(t->node, t->nr + 1, &n, 1024, sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->node = v;
	d = op_grow(t->depth, t->nr + 1, &n_depth, 1024, sizeof(*d));
	if (!d)
		return -ENOMEM;
	t->depth = d;
	*room = n;
	return 0;
}

static int tree_add(struct op_chain_tree *t, size_t *room,
		    const struct op_chain_node *n)
{
	uint32_t depth = n->parent ? t->depth[n->parent - 1] + 1 : 0;
	int ret = tree_room(t, room);

	if (ret)
		return ret;
	t->node[t->nr] = *n;
	t->depth[t->nr++] = depth;
	if (depth > t->max_depth)
		t->max_depth = depth;
	return 0;
}

/* The second format's records in p[0..len); *used gets the bytes of the
 * complete ones. */
static int load_v2(struct op_chain_tree *t, const uint8_t *p, size_t len,
		   size_t *used)
{
	const uint8_t *end, *q = p;
	size_t room = 0;

	*used = 0;
	if (!len)
		return 0;
	end = p + len;
	while (q < end) {
		uint64_t v[3];
		const uint8_t *r = q;
		struct op_chain_node n;
		uint64_t id = t->nr + 1;
		size_t k;
		int i, ret;

		for (i = 0; i < 3; i++, r += k)
			if (!(k = get_number(r, end, &v[i])))
				break;
		if (i < 3 || v[0] == 0 || v[0] > id || v[1] > UINT32_MAX)
			break;	/* torn, or not a record */
		n.parent = (uint32_t)(id - v[0]);
		n.image = (uint32_t)v[1];
		n.offset = v[2];
		if (!n.parent && n.offset)
			break;	/* a root at an offset */
		if (n.parent && t->depth[n.parent - 1] >= OP_CHAINS_MAX_FRAMES)
			break;
		ret = tree_add(t, &room, &n);
		if (ret == -EOVERFLOW)
			break;
		if (ret)
			return ret;
		q = r;
		*used = (size_t)(q - p);
	}
	return 0;
}

/* The first format: each chain becomes a root and an unshared path. */
static int load_v1(struct op_chain_tree *t, const uint8_t *p, size_t len,
		   size_t *used)
{
	const uint8_t *q = p, *end;
	size_t room = 0, keys_room = 0;

	*used = 0;
	t->v1 = true;
	if (!len)
		return 0;
	end = p + len;
	for (;;) {
		uint32_t hdr[2];
		struct op_chain_frame f;
		struct op_chain_node n;
		int ret;

		if ((size_t)(end - q) < sizeof(hdr))
			break;
		memcpy(hdr, q, sizeof(hdr));
		if (hdr[0] == 0 || hdr[0] > OP_CHAINS_MAX_FRAMES ||
		    (size_t)(end - q - sizeof(hdr)) / sizeof(f) < hdr[0] ||
		    t->nr + hdr[0] + 1 >= UINT32_MAX - 1)
			break;	/* torn or impossible */
		if (t->nr_keys == keys_room) {
			uint32_t *v = op_grow(t->key_node, t->nr_keys + 1, &keys_room, 1024,
					sizeof(*v));

			if (!v)
				return -ENOMEM;
			t->key_node = v;
		}
		n = (struct op_chain_node){ .parent = 0, .image = hdr[1] };
		ret = tree_add(t, &room, &n);
		/* the frames, outermost first */
		for (uint32_t i = hdr[0]; !ret && i-- > 0; ) {
			memcpy(&f, q + sizeof(hdr) + i * sizeof(f), sizeof(f));
			n = (struct op_chain_node){ .parent = (uint32_t)t->nr,
						    .image = f.image,
						    .offset = f.offset };
			ret = tree_add(t, &room, &n);
		}
		if (ret)
			return ret;
		t->key_node[t->nr_keys++] = (uint32_t)t->nr;
		q += sizeof(hdr) + hdr[0] * sizeof(f);
		*used = (size_t)(q - p);
	}
	return 0;
}

void op_chain_tree_release(struct op_chain_tree *t)
{
	free(t->node);
	free(t->depth);
	free(t->key_node);
	memset(t, 0, sizeof(*t));
}

int op_chains_load(const struct op_sessdir *sd, const char *dir,
		   struct op_chain_tree *t, uint64_t *end)
{
	const size_t magic = sizeof(OP_CHAINS_MAGIC) - 1;
	char path[4096];
	unsigned char *buf;
	size_t len, used = 0;
	int ret;

	memset(t, 0, sizeof(*t));
	if (end)
		*end = 0;
	snprintf(path, sizeof(path), "%s/" OP_CHAINS_LIST, dir);
	ret = op_file_read(sd, path, &buf, &len);
	if (ret)
		return ret;
	if (len < magic || (memcmp(buf, OP_CHAINS_MAGIC, magic) &&
			    memcmp(buf, OP_CHAINS_MAGIC_V1, magic))) {
		free(buf);
		return -EINVAL;
	}
	ret = memcmp(buf, OP_CHAINS_MAGIC, magic) ?
	      load_v1(t, buf + magic, len - magic, &used) :
	      load_v2(t, buf + magic, len - magic, &used);
	free(buf);
	if (ret) {
		op_chain_tree_release(t);
		return ret;
	}
	if (end)
		*end = magic + used;
	return 0;
}

uint32_t op_chain_key_node(const struct op_chain_tree *t, uint64_t key)
{
	if (!key)
		return 0;
	if (t->v1)
		return key <= t->nr_keys ? t->key_node[key - 1] : 0;
	return key <= t->nr ? (uint32_t)key : 0;
}

uint32_t op_chain_frames(const struct op_chain_tree *t, uint32_t id,
			 struct op_chain_frame *f, uint32_t *app)
{
	uint32_t nr = 0;

	*app = 0;
	if (!id || id > t->nr || !t->node[id - 1].parent)
		return 0;
	for (; t->node[id - 1].parent; id = t->node[id - 1].parent) {
		f[nr].image = t->node[id - 1].image;
		f[nr].pad = 0;
		f[nr++].offset = t->node[id - 1].offset;
	}
	*app = t->node[id - 1].image;
	return nr;
}
