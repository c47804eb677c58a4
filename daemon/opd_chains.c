/* The call-chain store's writer. A sample's chain is looked up by its
 * words in an open-addressed table of the chains met since start, which
 * gives its innermost node; a chain not met yet is walked down the tree
 * from its application's root, and the nodes it lacks are appended to
 * the chains list (as any new image to the images list) before its count
 * is added, so every count on file refers to a node on file. */
#include "config.h"
#include "opd_chains.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_grow.h"

/* words of a chain in c->words: nr, app, then per frame image, 0, offset
 * low, offset high: the chain record's own layout */
#define HDR_WORDS 2
#define FRAME_WORDS 4
/* counts files kept open; more are closed oldest first */
#define MAX_OPEN_FILES 64

static uint64_t hash_words(const uint32_t *w, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= w[i];
		h *= 0x100000001b3ULL;
	}
	return h ^ (h >> 31);
}

/* Say a failure, once a session. */
static void say(struct opd_chains *c, const char *what, int err)
{
	if (c->logged)
		return;
	c->logged = true;
	if (op_sd_refused(err)) {
		/* name the link: on the way to the store, or at a list */
		static const char *const lists[] = { OP_CHAINS_LIST, OP_CHAINS_IMAGES };
		char path[4096], why[4096 + 128] = "";

		for (size_t i = 0; i < 2 && !strstr(why, " is a symbolic link"); i++) {
			snprintf(path, sizeof(path), "%s/%s", c->dir, lists[i]);
			op_sd_explain(c->sd, path, err, why, sizeof(why));
		}
		op_log(c->log, OP_LOG_ERR, "chains: %s: %s; call chains are counted "
		       "as lost", what, why);
		return;
	}
	op_log(c->log, OP_LOG_ERR,
	       "chains: %s in %s: %s; call chains are counted as lost from now on when it fails again",
	       what, c->dir, strerror(-err));
}

/* A chain not stored: counted, and said once. */
static void lost(struct opd_chains *c, const char *what, int err, uint32_t n)
{
	c->nr_lost += n;
	say(c, what, err);
}

int opd_chains_init(struct opd_chains *c, const struct op_sessdir *sd,
		    const char *current_dir,
		    const struct op_logger *log)
{
	memset(c, 0, sizeof(*c));
	c->images_fd = c->chains_fd = -1;
	c->log = log;
	c->sd = sd;
	if (asprintf(&c->dir, "%s/%s", current_dir, OP_CHAINS_DIR) < 0) {
		c->dir = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* ---- the tables ---- */

static int names_put(struct opd_chains *c, char *name, uint32_t id);

static int names_grow(struct opd_chains *c)
{
	size_t cap = c->names_cap ? c->names_cap * 2 : 256;
	char **names = calloc(cap, sizeof(*names));
	uint32_t *ids = calloc(cap, sizeof(*ids));
	char **old = c->names;
	uint32_t *old_ids = c->name_ids;
	size_t old_cap = c->names_cap;

	if (!names || !ids) {
		free(names);
		free(ids);
		return -ENOMEM;
	}
	c->names = names;
	c->name_ids = ids;
	c->names_cap = cap;
	c->nr_images = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i])
			names_put(c, old[i], old_ids[i]);
	free(old);
	free(old_ids);
	return 0;
}

/* The slot of name, empty or holding it. */
static size_t names_slot(const struct opd_chains *c, const char *name)
{
	size_t mask = c->names_cap - 1;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	for (i = (size_t)(h ^ (h >> 31)) & mask;
	     c->names[i] && strcmp(c->names[i], name); i = (i + 1) & mask)
		;
	return i;
}

/* Takes name. */
static int names_put(struct opd_chains *c, char *name, uint32_t id)
{
	size_t i;

	if ((c->nr_images + 1) * 2 > c->names_cap) {
		int ret = names_grow(c);

		if (ret)
			return ret;
	}
	i = names_slot(c, name);
	c->names[i] = name;
	c->name_ids[i] = id;
	c->nr_images++;
	return 0;
}

static int chains_grow(struct opd_chains *c)
{
	size_t cap = c->slots_cap ? c->slots_cap * 2 : 4096;
	uint32_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t id = 1; id <= c->nr_chains; id++) {
		const uint32_t *w = &c->words[c->seen[id - 1].start];
		size_t i = hash_words(w, HDR_WORDS + w[0] * FRAME_WORDS) & (cap - 1);

		while (slots[i])
			i = (i + 1) & (cap - 1);
		slots[i] = (uint32_t)id;
	}
	free(c->slots);
	c->slots = slots;
	c->slots_cap = cap;
	return 0;
}

/* The ordinal of the chain in words w[0..n), or 0 with *slot where it
 * goes. */
static uint32_t chains_find(const struct opd_chains *c, const uint32_t *w,
			    size_t n, size_t *slot)
{
	size_t mask = c->slots_cap - 1;
	size_t i = hash_words(w, n) & mask;

	for (; c->slots[i]; i = (i + 1) & mask) {
		const uint32_t *x = &c->words[c->seen[c->slots[i] - 1].start];

		if (x[0] == w[0] && !memcmp(x, w, n * sizeof(*w)))
			return c->slots[i];
	}
	*slot = i;
	return 0;
}

/* Remember the chain w[0..n), which ends at node leaf. */
static int chains_put(struct opd_chains *c, const uint32_t *w, size_t n,
		      uint32_t leaf)
{
	size_t slot = 0;

	if ((c->nr_chains + 1) * 2 > c->slots_cap && chains_grow(c))
		return -ENOMEM;
	if (c->nr_words + n > c->words_cap) {
		uint32_t *v = op_grow(c->words, c->nr_words + n, &c->words_cap,
				      65536, sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->words = v;
	}
	if (c->nr_chains == c->seen_cap) {
		struct opd_chain_seen *v = op_grow(c->seen, c->nr_chains + 1,
						   &c->seen_cap, 4096, sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->seen = v;
	}
	chains_find(c, w, n, &slot);
	memcpy(&c->words[c->nr_words], w, n * sizeof(*w));
	c->seen[c->nr_chains++] = (struct opd_chain_seen){ c->nr_words, leaf };
	c->nr_words += n;
	c->slots[slot] = (uint32_t)c->nr_chains;
	return 0;
}

/* ---- the tree ---- */

static int append(int fd, const void *buf, size_t len);

static size_t node_hash(uint32_t parent, uint32_t image, uint64_t offset)
{
	uint64_t h = ((uint64_t)parent << 32 | image) * 0x9e3779b97f4a7c15ULL;

	h ^= offset * 0xc2b2ae3d27d4eb4fULL;
	return (size_t)(h ^ (h >> 29));
}

/* The ID of the node (parent, image, offset), or 0. */
static uint32_t node_find(const struct opd_chains *c, uint32_t parent,
			  uint32_t image, uint64_t offset)
{
	size_t mask = c->nslots_cap - 1;

	if (!c->nslots_cap)
		return 0;
	for (size_t i = node_hash(parent, image, offset) & mask; c->nslots[i];
	     i = (i + 1) & mask) {
		const struct op_chain_node *n = &c->nodes[c->nslots[i] - 1];

		if (n->parent == parent && n->image == image && n->offset == offset)
			return c->nslots[i];
	}
	return 0;
}

static void node_slot(struct opd_chains *c, uint32_t id)
{
	const struct op_chain_node *n = &c->nodes[id - 1];
	size_t mask = c->nslots_cap - 1;
	size_t i = node_hash(n->parent, n->image, n->offset) & mask;

	while (c->nslots[i])
		i = (i + 1) & mask;
	c->nslots[i] = id;
}

/* Room for more new nodes in the table and the index. */
static int nodes_room(struct opd_chains *c, size_t more)
{
	if (c->nr_nodes + more > c->nodes_cap) {
		struct op_chain_node *v = op_grow(c->nodes, c->nr_nodes + more,
						  &c->nodes_cap, 4096, sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->nodes = v;
	}
	if ((c->nr_nodes + more) * 2 > c->nslots_cap) {
		size_t cap = c->nslots_cap ? c->nslots_cap * 2 : 8192;
		uint32_t *v;

		while ((c->nr_nodes + more) * 2 > cap)
			cap *= 2;
		v = calloc(cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		free(c->nslots);
		c->nslots = v;
		c->nslots_cap = cap;
		for (size_t id = 1; id <= c->nr_nodes; id++)
			node_slot(c, (uint32_t)id);
	}
	return 0;
}

/* The node of the chain app, frames[0..nr) (innermost first), appending
 * the nodes it lacks to the file first: a node is in memory only once it
 * is on file. 0 with *err on failure. */
static uint32_t tree_path(struct opd_chains *c, uint32_t app,
			  const struct op_chain_frame *frames, size_t nr,
			  int *err)
{
	uint32_t id = node_find(c, 0, app, 0);
	size_t level = 0, len = 0, first_new;

	/* the part already known: root, then outermost frame inwards */
	if (id)
		for (level = 1; level <= nr; level++) {
			const struct op_chain_frame *f = &frames[nr - level];
			uint32_t next = node_find(c, id, f->image, f->offset);

			if (!next)
				break;
			id = next;
		}
	if (level > nr)
		return id;
	/* the rest is new: nodes nr_nodes + 1 on, each the last's child */
	first_new = level;
	if (c->nr_nodes + (nr + 1 - level) >= UINT32_MAX - 1) {
		*err = -EOVERFLOW;	/* IDs are 32-bit: a reader stops there */
		return 0;
	}
	*err = nodes_room(c, nr + 1 - level);
	if (*err)
		return 0;
	if ((nr + 1 - level) * OP_CHAIN_NODE_MAX > c->enc_cap) {
		uint8_t *v = op_grow(c->enc, (nr + 1) * OP_CHAIN_NODE_MAX,
				     &c->enc_cap, 4096, 1);

		if (!v) {
			*err = -ENOMEM;
			return 0;
		}
		c->enc = v;
	}
	for (size_t k = 0; level <= nr; level++, k++) {
		struct op_chain_node *n = &c->nodes[c->nr_nodes + k];

		if (level == 0) {
			*n = (struct op_chain_node){ .image = app };
		} else {
			const struct op_chain_frame *f = &frames[nr - level];

			*n = (struct op_chain_node){ .parent = id, .image = f->image,
						     .offset = f->offset };
		}
		id = (uint32_t)(c->nr_nodes + k + 1);
		len += op_chain_node_encode(id, n, c->enc + len);
	}
	*err = append(c->chains_fd, c->enc, len);
	if (*err) {
		/* the file may hold part of it: cut back to what is known */
		if (!ftruncate(c->chains_fd, (off_t)c->chains_end))
			lseek(c->chains_fd, (off_t)c->chains_end, SEEK_SET);
		return 0;
	}
	c->chains_end += len;
	for (size_t k = 0; k < nr + 1 - first_new; k++) {
		c->nr_nodes++;
		node_slot(c, (uint32_t)c->nr_nodes);
	}
	return id;
}

/* ---- the files ---- */

static int load_image(struct opd_chains *c, const struct op_chain_images *im)
{
	for (size_t i = 0; i < im->nr; i++) {
		char *name = op_img_name(&im->img[i]);

		if (!name || names_put(c, name, (uint32_t)(i + 1))) {
			free(name);
			return -ENOMEM;
		}
	}
	return 0;
}

/* The tree a previous daemon left, into the index. */
static int load_tree(struct opd_chains *c, uint64_t *end)
{
	struct op_chain_tree t;
	int ret = op_chains_load(c->sd, c->dir, &t, end);

	if (ret)
		return ret;
	if (t.v1) {
		op_chain_tree_release(&t);
		return -EPROTO;
	}
	ret = nodes_room(c, t.nr);
	if (!ret) {
		memcpy(c->nodes, t.node, t.nr * sizeof(*t.node));
		for (size_t id = 1; id <= t.nr; id++) {
			c->nr_nodes++;
			node_slot(c, (uint32_t)id);
		}
	}
	op_chain_tree_release(&t);
	return ret;
}

/* Append exactly len bytes, or fail. */
static int append(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Cut the file at path (open as fd) after its last newline. */
static int cut_torn_line(const struct op_sessdir *sd, const char *path, int fd)
{
	char buf[4096];
	off_t keep = 0, pos = 0;
	ssize_t n;
	int rfd = op_sd_open(sd, path, O_RDONLY, 0);

	if (rfd < 0)
		return rfd;
	while ((n = read(rfd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] == '\n')
				keep = pos + i + 1;
		pos += n;
	}
	close(rfd);
	if (n < 0)
		return -errno;
	if (keep != pos && ftruncate(fd, keep))
		return -errno;
	return 0;
}

/* The store on file cannot be extended: leave it, say why, count new
 * chains lost. */
static int freeze(struct opd_chains *c, const char *why)
{
	c->frozen = true;
	op_log(c->log, OP_LOG_ERR, "chains: %s/" OP_CHAINS_LIST " %s; it is "
	       "left as it is and new call chains are counted as lost",
	       c->dir, why);
	return -EPROTO;
}

/* Open (and on first use create, or read what a previous daemon left)
 * the two lists. A torn tail is cut off so appends start on a record
 * boundary. */
static int open_lists_once(struct opd_chains *c)
{
	struct op_chain_images im;
	struct stat sb;
	char path[4096];
	uint64_t end = 0;
	int ret;

	if (c->chains_fd >= 0)
		return 0;
	if (c->frozen)
		return -EPROTO;
	ret = op_sd_mkdirs(c->sd, c->dir, 0755);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/" OP_CHAINS_LIST, c->dir);
	ret = op_chains_read_images(c->sd, c->dir, &im);
	if (ret == 0) {
		ret = load_image(c, &im);
		op_chain_images_release(&im);
		if (ret)
			return ret;
		ret = load_tree(c, &end);
		if (ret == -EPROTO)
			return freeze(c, "is of an older format (OPCHAIN1)");
		if (ret == -EINVAL && !op_sd_stat(c->sd, path, &sb) && sb.st_size > 8)
			return freeze(c, "is not a chain list");
		if (ret == -EINVAL)
			ret = 0;	/* a header a crash tore: a new list */
		if (ret && ret != -ENOENT)
			return ret;
		if (!op_sd_stat(c->sd, path, &sb) && (uint64_t)sb.st_size > end && end)
			op_log(c->log, OP_LOG_WARN, "chains: %s: %llu byte(s) after "
			       "the last whole node cut (a record a crash tore)",
			       path, (unsigned long long)(sb.st_size - end));
	} else if (ret != -ENOENT) {
		return ret;
	} else if (!op_sd_stat(c->sd, path, &sb) && sb.st_size > 8) {
		/* nodes whose images are gone: counts files name them */
		return freeze(c, "has nodes but no images list");
	}
	snprintf(path, sizeof(path), "%s/" OP_CHAINS_IMAGES, c->dir);
	c->images_fd = op_sd_open(c->sd, path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (c->images_fd < 0) {
		ret = c->images_fd;
		c->images_fd = -1;
		return ret;
	}
	snprintf(path, sizeof(path), "%s/" OP_CHAINS_LIST, c->dir);
	c->chains_fd = op_sd_open(c->sd, path, O_WRONLY | O_CREAT, 0644);
	if (c->chains_fd < 0) {
		ret = c->chains_fd;
		c->chains_fd = -1;
		return ret;
	}
	if (!end) {
		/* a new list (or one not even holding its header) */
		if (ftruncate(c->chains_fd, 0))
			return -errno;
		ret = append(c->chains_fd, OP_CHAINS_MAGIC, 8);
		if (ret)
			return ret;
		end = 8;
	} else if (ftruncate(c->chains_fd, (off_t)end) ||
		   lseek(c->chains_fd, 0, SEEK_END) < 0) {
		return -errno;
	}
	c->chains_end = end;
	/* an images line torn by a crash: cut after the last newline */
	snprintf(path, sizeof(path), "%s/" OP_CHAINS_IMAGES, c->dir);
	ret = cut_torn_line(c->sd, path, c->images_fd);
	if (ret)
		return ret;
	c->loaded = true;
	return 0;
}

/* A link met in the store is refused for good: the store is left as it
 * is, never tried (nor its images list read into the names) again. */
static int open_lists(struct opd_chains *c)
{
	int ret = open_lists_once(c);

	if (op_sd_refused(ret))
		c->frozen = true;
	return ret;
}

uint32_t opd_chains_image(struct opd_chains *c, const struct op_img *img,
			  bool is_kernel)
{
	char *name = op_img_name(img), line[64];
	uint32_t id;
	off_t end = -1;
	int ret = name ? open_lists(c) : -ENOMEM;

	if (!ret && c->names_cap) {
		size_t i = names_slot(c, name);

		if (c->names[i]) {
			free(name);
			return c->name_ids[i];
		}
	}
	id = (uint32_t)(c->nr_images + 1);
	snprintf(line, sizeof(line), "%u %d ", id, is_kernel ? 1 : 0);
	if (!ret && (end = lseek(c->images_fd, 0, SEEK_END)) < 0)
		ret = -errno;
	if (!ret)
		ret = append(c->images_fd, line, strlen(line));
	if (!ret)
		ret = append(c->images_fd, name, strlen(name));
	if (!ret)
		ret = append(c->images_fd, "\n", 1);
	if (!ret)
		ret = names_put(c, name, id);
	if (!ret)
		return id;
	/* a part of a line, or one the table does not hold (its ID would be
	 * written again): cut back, or every later line would be unreadable */
	if (end >= 0 && ftruncate(c->images_fd, end))
		say(c, "cutting back the images list", -errno);
	free(name);
	say(c, "naming an image", ret);	/* the chain is counted by the caller */
	return 0;
}

static bool file_is(const struct opd_chain_file *f, const struct opd_chain_key *key)
{
	return f->tgid == key->tgid && f->tid == key->tid && f->cpu == key->cpu &&
	       !strcmp(f->event, key->event);
}

static odb_t *counts_file(struct opd_chains *c, const struct opd_chain_key *key)
{
	char name[256], path[4096 + 256];
	struct opd_chain_file *f;
	int ret;

	/* the latest first: a session's samples mostly share one key */
	for (size_t i = c->nr_files; i-- > 0; )
		if (file_is(&c->files[i], key))
			return &c->files[i].db;
	snprintf(name, sizeof(name), "%s", key->event);
	for (int i = 0; i < 3; i++) {
		int v = i == 0 ? key->tgid : i == 1 ? key->tid : key->cpu;
		size_t len = strlen(name);

		if (v == OP_SF_ALL)
			snprintf(name + len, sizeof(name) - len, ".all");
		else
			snprintf(name + len, sizeof(name) - len, ".%d", v);
	}
	if (c->nr_files == MAX_OPEN_FILES) {
		/* close the oldest; it opens again with its counts */
		odb_close(&c->files[0].db);
		free(c->files[0].event);
		memmove(c->files, c->files + 1, --c->nr_files * sizeof(*c->files));
	} else if (c->nr_files == c->alloc_files) {
		f = op_grow(c->files, c->nr_files + 1, &c->alloc_files, 16,
			    sizeof(*f));
		if (!f) {
			errno = ENOMEM;
			return NULL;
		}
		c->files = f;
	}
	f = &c->files[c->nr_files];
	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	ret = odb_open(&f->db, c->sd, path, ODB_RDWR);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	f->event = strdup(key->event);
	if (!f->event) {
		odb_close(&f->db);
		errno = ENOMEM;
		return NULL;
	}
	f->tgid = key->tgid;
	f->tid = key->tid;
	f->cpu = key->cpu;
	c->nr_files++;
	return &f->db;
}

void opd_chains_add(struct opd_chains *c, const struct opd_chain_key *key,
		    uint32_t app, const struct op_chain_frame *frames, size_t nr,
		    uint32_t count)
{
	size_t n = HDR_WORDS + nr * FRAME_WORDS, slot = 0;
	uint32_t stackw[HDR_WORDS + 64 * FRAME_WORDS];
	uint32_t *w = n <= sizeof(stackw) / sizeof(stackw[0]) ? stackw :
		      malloc(n * sizeof(*w));
	uint32_t id = 0;
	odb_t *db;
	int ret;

	if (!w || !nr || nr > OP_CHAINS_MAX_FRAMES) {
		ret = -ENOMEM;
		goto err;
	}
	ret = open_lists(c);
	if (ret)
		goto err;
	w[0] = (uint32_t)nr;
	w[1] = app;
	memcpy(w + HDR_WORDS, frames, nr * sizeof(*frames));
	if (c->slots_cap)
		id = chains_find(c, w, n, &slot);
	if (id) {
		id = c->seen[id - 1].leaf;
	} else {
		id = tree_path(c, app, frames, nr, &ret);
		if (!id)
			goto err;
		ret = chains_put(c, w, n, id);
		if (ret)
			goto err;
	}
	db = counts_file(c, key);
	ret = db ? odb_add(db, id, count) : -errno;
	if (ret)
		goto err;
	c->nr_added += count;
	if (w != stackw)
		free(w);
	return;
err:
	if (w != stackw)
		free(w);
	lost(c, "storing a call chain", ret, count);
}

int opd_chains_sync(struct opd_chains *c)
{
	int first = 0;

	/* the lists first: the counts synced next name their nodes */
	if (c->images_fd >= 0 && fdatasync(c->images_fd))
		first = -errno;
	if (c->chains_fd >= 0 && fdatasync(c->chains_fd) && !first)
		first = -errno;
	for (size_t i = 0; i < c->nr_files; i++) {
		int ret = odb_sync(&c->files[i].db);

		if (ret && !first)
			first = ret;
	}
	return first;
}

void opd_chains_release(struct opd_chains *c)
{
	if (!c->dir)
		return;		/* never set up (a zeroed struct) */
	if (c->images_fd >= 0)
		close(c->images_fd);
	if (c->chains_fd >= 0)
		close(c->chains_fd);
	for (size_t i = 0; i < c->names_cap; i++)
		free(c->names[i]);
	free(c->names);
	free(c->name_ids);
	free(c->slots);
	free(c->words);
	free(c->seen);
	free(c->nodes);
	free(c->nslots);
	free(c->enc);
	for (size_t i = 0; i < c->nr_files; i++) {
		odb_close(&c->files[i].db);
		free(c->files[i].event);
	}
	free(c->files);
	free(c->dir);
	memset(c, 0, sizeof(*c));
	c->images_fd = c->chains_fd = -1;
}
