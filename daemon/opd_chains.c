/* The call-chain store's writer. A chain is looked up by its words in an
 * open-addressed table; a new one is appended to the chains list (and any
 * new image to the images list) before its count is added, so every
 * count on file refers to a chain on file. */
#include "config.h"
#include "opd_chains.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void lost(struct opd_chains *c, const char *what, int err)
{
	c->nr_lost++;
	if (c->logged)
		return;
	c->logged = true;
	op_log(c->log, OP_LOG_ERR,
	       "chains: %s in %s: %s; call chains are counted as lost from now on when it fails again",
	       what, c->dir, strerror(-err));
}

int opd_chains_init(struct opd_chains *c, const char *current_dir,
		    const struct op_logger *log)
{
	memset(c, 0, sizeof(*c));
	c->images_fd = c->chains_fd = -1;
	c->log = log;
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
		const uint32_t *w = &c->words[c->starts[id - 1]];
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

/* The ID of the chain in words w[0..n), or 0 with *slot where it goes. */
static uint32_t chains_find(const struct opd_chains *c, const uint32_t *w,
			    size_t n, size_t *slot)
{
	size_t mask = c->slots_cap - 1;
	size_t i = hash_words(w, n) & mask;

	for (; c->slots[i]; i = (i + 1) & mask) {
		const uint32_t *x = &c->words[c->starts[c->slots[i] - 1]];

		if (x[0] == w[0] && !memcmp(x, w, n * sizeof(*w)))
			return c->slots[i];
	}
	*slot = i;
	return 0;
}

/* Remember the chain w[0..n) as the next ID. */
static int chains_put(struct opd_chains *c, const uint32_t *w, size_t n)
{
	size_t slot = 0;

	if ((c->nr_chains + 1) * 2 > c->slots_cap && chains_grow(c))
		return -ENOMEM;
	if (c->nr_words + n > c->words_cap) {
		size_t cap = c->words_cap ? c->words_cap * 2 : 65536;
		uint32_t *v;

		while (cap < c->nr_words + n)
			cap *= 2;
		v = realloc(c->words, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->words = v;
		c->words_cap = cap;
	}
	if (c->nr_chains == c->starts_cap) {
		size_t cap = c->starts_cap ? c->starts_cap * 2 : 4096;
		size_t *v = realloc(c->starts, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->starts = v;
		c->starts_cap = cap;
	}
	chains_find(c, w, n, &slot);
	memcpy(&c->words[c->nr_words], w, n * sizeof(*w));
	c->starts[c->nr_chains++] = c->nr_words;
	c->nr_words += n;
	c->slots[slot] = (uint32_t)c->nr_chains;
	return 0;
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

static int load_chain(uint32_t id, uint32_t app, const struct op_chain_frame *f,
		      uint32_t nr, void *ctx)
{
	struct opd_chains *c = ctx;
	size_t n = HDR_WORDS + (size_t)nr * FRAME_WORDS;
	uint32_t *w = malloc(n * sizeof(*w));
	int ret;

	(void)id;
	if (!w)
		return -ENOMEM;
	w[0] = nr;
	w[1] = app;
	memcpy(w + HDR_WORDS, f, (size_t)nr * sizeof(*f));
	ret = chains_put(c, w, n);
	free(w);
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
static int cut_torn_line(const char *path, int fd)
{
	char buf[4096];
	off_t keep = 0, pos = 0;
	ssize_t n;
	int rfd = open(path, O_RDONLY | O_CLOEXEC);

	if (rfd < 0)
		return -errno;
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

/* Open (and on first use create, or read what a previous daemon left)
 * the two lists. A torn tail is cut off so appends start on a record
 * boundary. */
static int open_lists(struct opd_chains *c)
{
	struct op_chain_images im;
	char path[4096];
	uint64_t end = 0;
	int ret;

	if (c->chains_fd >= 0)
		return 0;
	if (mkdir(c->dir, 0755) && errno != EEXIST)
		return -errno;
	ret = op_chains_read_images(c->dir, &im);
	if (ret == 0) {
		ret = load_image(c, &im);
		op_chain_images_release(&im);
		if (ret)
			return ret;
		ret = op_chains_read(c->dir, load_chain, c, &end);
		if (ret && ret != -ENOENT)
			return ret;
	} else if (ret != -ENOENT) {
		return ret;
	}
	snprintf(path, sizeof(path), "%s/images", c->dir);
	c->images_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	snprintf(path, sizeof(path), "%s/chains", c->dir);
	c->chains_fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (c->images_fd < 0 || c->chains_fd < 0)
		return -errno;
	if (!end) {
		/* a new list (or one not even holding its header) */
		if (ftruncate(c->chains_fd, 0))
			return -errno;
		ret = append(c->chains_fd, OP_CHAINS_MAGIC, 8);
		if (ret)
			return ret;
	} else if (ftruncate(c->chains_fd, (off_t)end) ||
		   lseek(c->chains_fd, 0, SEEK_END) < 0) {
		return -errno;
	}
	/* an images line torn by a crash: cut after the last newline */
	snprintf(path, sizeof(path), "%s/images", c->dir);
	ret = cut_torn_line(path, c->images_fd);
	if (ret)
		return ret;
	c->loaded = true;
	return 0;
}

uint32_t opd_chains_image(struct opd_chains *c, const struct op_img *img,
			  bool is_kernel)
{
	char *name = op_img_name(img), line[64];
	uint32_t id;
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
	free(name);
	lost(c, "naming an image", ret);
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
	} else {
		f = realloc(c->files, (c->nr_files + 1) * sizeof(*f));
		if (!f) {
			errno = ENOMEM;
			return NULL;
		}
		c->files = f;
	}
	f = &c->files[c->nr_files];
	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	ret = odb_open(&f->db, path, ODB_RDWR);
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
		    uint32_t app, const struct op_chain_frame *frames, size_t nr)
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
	if (!id) {
		ret = append(c->chains_fd, w, n * sizeof(*w));
		if (!ret)
			ret = chains_put(c, w, n);
		if (ret)
			goto err;
		id = (uint32_t)c->nr_chains;
	}
	db = counts_file(c, key);
	ret = db ? odb_add(db, id, 1) : -errno;
	if (ret)
		goto err;
	c->nr_added++;
	if (w != stackw)
		free(w);
	return;
err:
	if (w != stackw)
		free(w);
	lost(c, "storing a call chain", ret);
}

int opd_chains_sync(struct opd_chains *c)
{
	int first = 0;

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
	free(c->starts);
	for (size_t i = 0; i < c->nr_files; i++) {
		odb_close(&c->files[i].db);
		free(c->files[i].event);
	}
	free(c->files);
	free(c->dir);
	memset(c, 0, sizeof(*c));
	c->images_fd = c->chains_fd = -1;
}
