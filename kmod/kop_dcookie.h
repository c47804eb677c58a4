/* kop_dcookie.c: session-stable ids of images (OProfile's dcookies), so
 * the stream names a binary in one word and the daemon asks for its path
 * once. */
#ifndef KOP_DCOOKIE_H
#define KOP_DCOOKIE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kop.h"

struct kop_dcookie;

/* Session-stable ids. Created by the sync thread (and session start),
 * looked up from any thread: everything below is protected by lock. */
struct kop_dcookies {
	pthread_mutex_t lock;
	struct kop_dcookie **by_cookie;	/* cookie c at by_cookie[c - 1] */
	size_t nr, cap;
	struct kop_dcookie **buckets;	/* file cookies by path hash */
	size_t nr_buckets;
};

int kop_dcookies_init(struct kop_dcookies *dc);
void kop_dcookies_release(struct kop_dcookies *dc);
/* The cookie of a file, created on first use. dev/ino 0 and bid_size 0
 * mean unknown. Returns OP_NO_COOKIE when out of memory. */
uint64_t kop_dcookie_file(struct kop_dcookies *dc, const char *path,
			  dev_t dev, ino_t ino, const uint8_t *bid,
			  uint8_t bid_size);
/* A new cookie for an anonymous region of tgid. */
uint64_t kop_dcookie_anon(struct kop_dcookies *dc, const char *name,
			  pid_t tgid, uint64_t start, uint64_t end);
/* A file's cookie by what it is, whatever its path: by build-id, else
 * (dev, ino); OP_NO_COOKIE when none. A walk of every cookie: for files
 * met the first time from another root (kop_root.c), not for samples. */
uint64_t kop_dcookie_find(struct kop_dcookies *dc, dev_t dev, ino_t ino,
			  const uint8_t *bid, uint8_t bid_size);
/* The mtime the image's sample files record, when the path does not lead
 * to the file (a kept copy, written later with this mtime). */
void kop_dcookie_set_mtime(struct kop_dcookies *dc, uint64_t cookie,
			   uint64_t mtime);
int kop_dcookies_lookup(struct kop_dcookies *dc, uint64_t cookie,
			struct kop_dcookie_info *info);

#endif /* KOP_DCOOKIE_H */
