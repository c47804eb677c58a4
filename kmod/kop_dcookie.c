/* dcookies: the session-stable 64-bit ids of images, the user-space twin
 * of the kernel's dcookies. The stream carries cookies, not paths, so a
 * sample costs two words; the daemon turns a cookie back into a path with
 * kop_dcookie_lookup(). Cookies count up from 1 and are never reused, so
 * an id seen once names the same image for the whole session.
 *
 * A file is identified by its path plus its build-id when the kernel gave
 * one, else its (dev, ino). Because /proc/PID/maps gives (dev, ino) and
 * MMAP2 may give only a build-id, a build-id record that names a path we
 * already know without one is matched by stat()ing the path: same (dev,
 * ino) is the same file, and the build-id is adopted.
 *
 * Anonymous regions get a fresh cookie each: they belong to one process.
 */
#include "config.h"
#include "kop_dcookie.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "op_grow.h"
#include "op_proto.h"

struct kop_dcookie {
	uint64_t cookie;
	enum kop_image_kind kind;
	char *path;
	dev_t dev;
	ino_t ino;
	uint8_t build_id[20];
	uint8_t build_id_size;
	pid_t tgid;
	uint64_t start, end;
	uint64_t mtime;		/* 0: the daemon stats the path */
	uint64_t hash;
	struct kop_dcookie *next;	/* bucket chain (files only) */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

int kop_dcookies_init(struct kop_dcookies *dc)
{
	memset(dc, 0, sizeof(*dc));
	dc->nr_buckets = 1024;
	dc->buckets = calloc(dc->nr_buckets, sizeof(*dc->buckets));
	if (!dc->buckets)
		return -ENOMEM;
	pthread_mutex_init(&dc->lock, NULL);
	return 0;
}

void kop_dcookies_release(struct kop_dcookies *dc)
{
	if (!dc->buckets)
		return;
	for (size_t i = 0; i < dc->nr; i++) {
		free(dc->by_cookie[i]->path);
		free(dc->by_cookie[i]);
	}
	free(dc->by_cookie);
	free(dc->buckets);
	pthread_mutex_destroy(&dc->lock);
	memset(dc, 0, sizeof(*dc));
}

/* With lock held: append e and give it the next cookie. */
static int add_locked(struct kop_dcookies *dc, struct kop_dcookie *e)
{
	if (dc->nr == dc->cap) {
		struct kop_dcookie **n = op_grow(dc->by_cookie, dc->nr + 1,
						 &dc->cap, 256, sizeof(*n));

		if (!n)
			return -ENOMEM;
		dc->by_cookie = n;
	}
	dc->by_cookie[dc->nr++] = e;
	e->cookie = dc->nr;
	return 0;
}

static int grow_buckets_locked(struct kop_dcookies *dc)
{
	size_t nb = dc->nr_buckets * 2;
	struct kop_dcookie **b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < dc->nr_buckets; i++) {
		struct kop_dcookie *e = dc->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (nb - 1)];
			b[e->hash & (nb - 1)] = e;
		}
	}
	free(dc->buckets);
	dc->buckets = b;
	dc->nr_buckets = nb;
	return 0;
}

uint64_t kop_dcookie_file(struct kop_dcookies *dc, const char *path,
			  dev_t dev, ino_t ino, const uint8_t *bid,
			  uint8_t bid_size)
{
	uint64_t h = hash_str(path), cookie = OP_NO_COOKIE;
	struct kop_dcookie *e, *same_path = NULL;
	struct stat st;
	bool statted = false;

	if (bid_size > sizeof(e->build_id))
		bid_size = sizeof(e->build_id);
	pthread_mutex_lock(&dc->lock);
	for (e = dc->buckets[h & (dc->nr_buckets - 1)]; e; e = e->next) {
		if (e->hash != h || strcmp(e->path, path))
			continue;
		if (bid_size) {
			if (e->build_id_size == bid_size &&
			    !memcmp(e->build_id, bid, bid_size))
				goto out_found;
			if (!e->build_id_size)
				same_path = e;
		} else if (e->dev == dev && e->ino == ino) {
			goto out_found;
		}
	}
	if (bid_size && !dev && !ino) {
		/* a build-id record: learn (dev, ino) from the file, and
		 * adopt an entry /proc gave us for the same file */
		if (stat(path, &st) == 0) {
			dev = st.st_dev;
			ino = st.st_ino;
			statted = true;
		}
		if (statted && same_path && same_path->dev == dev &&
		    same_path->ino == ino) {
			e = same_path;
			if (bid_size)	/* bid may be NULL then */
				memcpy(e->build_id, bid, bid_size);
			e->build_id_size = bid_size;
			goto out_found;
		}
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		goto out;
	e->path = strdup(path);
	if (!e->path || add_locked(dc, e)) {
		free(e->path);
		free(e);
		goto out;
	}
	e->kind = KOP_IMAGE_FILE;
	e->dev = dev;
	e->ino = ino;
	if (bid_size)
		memcpy(e->build_id, bid, bid_size);
	e->build_id_size = bid_size;
	e->hash = h;
	e->next = dc->buckets[h & (dc->nr_buckets - 1)];
	dc->buckets[h & (dc->nr_buckets - 1)] = e;
	if (dc->nr > dc->nr_buckets)
		grow_buckets_locked(dc);	/* failure only costs speed */
out_found:
	cookie = e->cookie;
out:
	pthread_mutex_unlock(&dc->lock);
	return cookie;
}

uint64_t kop_dcookie_anon(struct kop_dcookies *dc, const char *name,
			  pid_t tgid, uint64_t start, uint64_t end)
{
	struct kop_dcookie *e = calloc(1, sizeof(*e));
	uint64_t cookie = OP_NO_COOKIE;

	if (!e)
		return OP_NO_COOKIE;
	e->kind = KOP_IMAGE_ANON;
	e->path = strdup(name);
	e->tgid = tgid;
	e->start = start;
	e->end = end;
	pthread_mutex_lock(&dc->lock);
	if (e->path && !add_locked(dc, e)) {
		cookie = e->cookie;
		e = NULL;
	}
	pthread_mutex_unlock(&dc->lock);
	if (e) {
		free(e->path);
		free(e);
	}
	return cookie;
}

int kop_dcookies_lookup(struct kop_dcookies *dc, uint64_t cookie,
			struct kop_dcookie_info *info)
{
	const struct kop_dcookie *e;
	int err = -ENOENT;

	pthread_mutex_lock(&dc->lock);
	if (cookie != OP_NO_COOKIE && cookie <= dc->nr) {
		e = dc->by_cookie[cookie - 1];
		memset(info, 0, sizeof(*info));
		info->kind = e->kind;
		snprintf(info->path, sizeof(info->path), "%s", e->path);
		info->dev = e->dev;
		info->ino = e->ino;
		memcpy(info->build_id, e->build_id, sizeof(info->build_id));
		info->build_id_size = e->build_id_size;
		info->tgid = e->tgid;
		info->start = e->start;
		info->end = e->end;
		info->mtime = e->mtime;
		err = 0;
	}
	pthread_mutex_unlock(&dc->lock);
	return err;
}

uint64_t kop_dcookie_find(struct kop_dcookies *dc, dev_t dev, ino_t ino,
			  const uint8_t *bid, uint8_t bid_size)
{
	uint64_t cookie = OP_NO_COOKIE;

	if (bid_size > sizeof(dc->by_cookie[0]->build_id))
		bid_size = sizeof(dc->by_cookie[0]->build_id);
	pthread_mutex_lock(&dc->lock);
	for (size_t i = 0; i < dc->nr; i++) {
		const struct kop_dcookie *e = dc->by_cookie[i];

		if (e->kind != KOP_IMAGE_FILE)
			continue;
		if ((bid_size && e->build_id_size == bid_size &&
		     !memcmp(e->build_id, bid, bid_size)) ||
		    ((dev || ino) && e->dev == dev && e->ino == ino)) {
			cookie = e->cookie;
			break;
		}
	}
	pthread_mutex_unlock(&dc->lock);
	return cookie;
}

void kop_dcookie_set_mtime(struct kop_dcookies *dc, uint64_t cookie,
			   uint64_t mtime)
{
	pthread_mutex_lock(&dc->lock);
	if (cookie != OP_NO_COOKIE && cookie <= dc->nr)
		dc->by_cookie[cookie - 1]->mtime = mtime;
	pthread_mutex_unlock(&dc->lock);
}
