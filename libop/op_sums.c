/* The integrity record of a session (op_sums.h). */
#include "config.h"
#include "op_sums.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_afile.h"
#include "op_chains.h"
#include "op_grow.h"
#include "op_names.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv_words(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		h = (h ^ w) * FNV_PRIME;
	}
	for (; i < len; i++)
		h = (h ^ b[i]) * FNV_PRIME;
	return h;
}

/* Checksum of an open sample file: 64-bit FNV-1a over its header and
 * descriptor as on disk, its used nodes and its buckets, eight bytes at a
 * time. */
static uint64_t op_sum_odb(const odb_t *db)
{
	uint64_t h = FNV_OFFSET;
	uint32_t size = db->mask + 1;
	uint32_t used = db->descr->current_size;

	/* the header and descriptor as they are on disk (an 88-byte header
	 * is presented converted in db->header; base holds the bytes) */
	h = fnv_words(h, db->base, db->header_len + sizeof(struct odb_descr));
	if (used > size)
		used = size;	/* odb_open refused it; keep the bound anyway */
	h = fnv_words(h, db->nodes, (size_t)used * sizeof(struct odb_node));
	h = fnv_words(h, db->buckets, (size_t)size * sizeof(uint32_t));
	return h;
}

struct write_ctx {
	FILE *f;
	size_t nr;
	int err;
	const struct op_sessdir *sd;
};

/* Checksum of a plain file's bytes (the call-chain store's lists). */
static uint64_t op_sum_bytes(const void *p, size_t len)
{
	return fnv_words(FNV_OFFSET, p, len);
}

/* The sum and length of the plain file at path. 0 or -errno. */
static int sum_file(const struct op_sessdir *sd, const char *path, uint64_t *sum,
		    size_t *len)
{
	unsigned char *buf = NULL;
	int ret = op_file_read(sd, path, &buf, len);

	if (!ret)
		*sum = op_sum_bytes(buf, *len);
	free(buf);
	return ret;
}

int op_sum_check_file(const struct op_sum *e, const struct op_sessdir *sd,
		      const char *path)
{
	uint64_t sum = 0;
	size_t len = 0;
	int ret = sum_file(sd, path, &sum, &len);

	if (!ret && (len != e->len || sum != e->sum))
		ret = -EBADMSG;
	return ret;
}

/* The call-chain store's two lists (libop/op_chains.h): plain files */
static bool is_chain_list(const char *rel)
{
	return !strcmp(rel, OP_CHAINS_DIR "/" OP_CHAINS_LIST) ||
	       !strcmp(rel, OP_CHAINS_DIR "/" OP_CHAINS_IMAGES);
}

static int add_file(const char *rel, const char *full, void *arg)
{
	struct write_ctx *w = arg;
	odb_t db;

	const char *base = strrchr(rel, '/');

	/* unrecordable, or a writer's temporary (".odbtmp.XXXXXX" beside its
	 * file). Only the file's own name says so: a binary under a hidden
	 * directory (~/.local/bin/x, ~/.pyenv/...) has "/." in its path, and
	 * its sample files are recorded like any other */
	base = base ? base + 1 : rel;
	if (strchr(rel, '\n') || base[0] == '.')
		return 0;
	if (is_chain_list(rel)) {
		uint64_t sum;
		size_t len;

		if (sum_file(w->sd, full, &sum, &len))
			return 0;	/* not recorded: not checked */
		if (fprintf(w->f, "%016" PRIx64 " 0 %zu %s\n", sum, len, rel) < 0)
			w->err = -EIO;
		w->nr++;
		return w->err;
	}
	if (odb_open(&db, w->sd, full, ODB_RDONLY))
		return 0;	/* not a sample file (names, a stray file) */
	if (fprintf(w->f, "%016" PRIx64 " %" PRIu32 " %zu %s\n", op_sum_odb(&db),
		    odb_nr_nodes(&db), db.map_len, rel) < 0)
		w->err = -EIO;
	odb_close(&db);
	w->nr++;
	return w->err;
}

int op_sums_write(const struct op_sessdir *sd, const char *session_dir,
		  size_t *nr_files)
{
	char path[PATH_MAX], dir[PATH_MAX];
	struct write_ctx w = { .sd = sd };
	struct op_afile a;
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", session_dir,
			     OP_SUMS_FILE) >= sizeof(path))
		return -ENAMETOOLONG;
	snprintf(dir, sizeof(dir), "%s/stats", session_dir);
	ret = op_sd_mkdirs(sd, dir, 0755);
	if (ret)
		return ret;
	ret = op_afile_open(&a, sd, path);
	if (ret)
		return ret;
	w.f = a.f;
	fprintf(w.f, "# opsampler integrity record: SUM NODES LEN FILE, for "
		"each sample file as the daemon left it\n");
	ret = op_sfname_walk(sd, session_dir, add_file, &w);
	if (!ret)
		ret = w.err;
	if (ret) {
		op_afile_abort(&a);
		return ret;
	}
	ret = op_afile_commit(&a, true);
	if (!ret && nr_files)
		*nr_files = w.nr;
	return ret;
}

int op_sums_remove(const struct op_sessdir *sd, const char *session_dir)
{
	char path[PATH_MAX];
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", session_dir,
			     OP_SUMS_FILE) >= sizeof(path))
		return -ENAMETOOLONG;
	ret = op_sd_unlink(sd, path);
	return ret == -ENOENT ? 0 : ret;
}

static int sum_cmp(const void *a, const void *b)
{
	const struct op_sum *x = a, *y = b;

	return strcmp(x->rel, y->rel);
}

/* "SUM NODES LEN REL": 0 or -EINVAL */
static int parse_line(char *line, struct op_sum *e)
{
	char *p = line, *end;
	unsigned long long v;

	errno = 0;
	e->sum = strtoull(p, &end, 16);
	if (end == p || end - p > 16 || *end != ' ' || errno)
		return -EINVAL;
	p = end + 1;
	v = strtoull(p, &end, 10);
	if (end == p || *end != ' ' || errno || v > UINT32_MAX || *p == '-')
		return -EINVAL;
	e->nodes = (uint32_t)v;
	p = end + 1;
	e->len = strtoull(p, &end, 10);
	if (end == p || *end != ' ' || errno || *p == '-')
		return -EINVAL;
	p = end + 1;
	if (!*p)
		return -EINVAL;
	e->rel = strdup(p);
	return e->rel ? 0 : -ENOMEM;
}

int op_sums_read(const struct op_sessdir *sd, const char *session_dir,
		 struct op_sums *s, size_t *bad_line)
{
	char path[PATH_MAX];
	char *line = NULL;
	size_t cap = 0, nr_line = 0, alloc = 0;
	ssize_t len;
	FILE *f;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", session_dir,
			     OP_SUMS_FILE) >= sizeof(path))
		return -ENAMETOOLONG;
	f = op_sd_fopen(sd, path, "re");
	if (!f)
		return -errno;
	while ((len = getline(&line, &cap, f)) > 0) {
		struct op_sum e;

		nr_line++;
		if (line[len - 1] != '\n') {
			ret = -EINVAL;	/* torn last line */
			break;
		}
		line[len - 1] = '\0';
		if (line[0] == '#')
			continue;
		if (s->nr == alloc) {
			struct op_sum *v = op_grow(s->v, s->nr + 1, &alloc, 256,
						   sizeof(*v));

			if (!v) {
				ret = -ENOMEM;
				break;
			}
			s->v = v;
		}
		ret = parse_line(line, &e);
		if (ret)
			break;
		s->v[s->nr++] = e;
	}
	if (!ret && ferror(f))
		ret = -EIO;
	free(line);
	fclose(f);
	if (ret) {
		if (ret == -EINVAL && bad_line)
			*bad_line = nr_line;
		op_sums_release(s);
		return ret;
	}
	qsort(s->v, s->nr, sizeof(*s->v), sum_cmp);
	return 0;
}

const struct op_sum *op_sums_find(const struct op_sums *s, const char *rel)
{
	struct op_sum key = { .rel = (char *)rel };

	if (!s->nr)
		return NULL;
	return bsearch(&key, s->v, s->nr, sizeof(*s->v), sum_cmp);
}

int op_sum_check(const struct op_sum *e, const odb_t *db)
{
	if (e->len != db->map_len || e->nodes != odb_nr_nodes(db) ||
	    e->sum != op_sum_odb(db))
		return -EBADMSG;
	return 0;
}

void op_sums_release(struct op_sums *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->v[i].rel);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
