/* kop_keep.c: copies of binaries from other mount namespaces, kept in the
 * session by build-id before their container goes away. */
#ifndef KOP_KEEP_H
#define KOP_KEEP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "op_log.h"
#include "op_sessdir.h"

/* One file to keep: an open descriptor of it (the keeper's once pushed)
 * and its name below the store. */
struct kop_keep_job {
	int fd;
	char *rel;		/* "ab/cdef.../app/prog", malloc'd */
	uint64_t size;
	struct timespec mtime;	/* given to the copy, so that its mtime is
				 * the one the sample files' headers hold */
};

/* What the keeper did, this session. */
struct kop_keep_counts {
	uint64_t nr_kept;	/* images with a whole copy in the store */
	uint64_t nr_no_space;	/* not kept: the store's bound */
	uint64_t nr_failed;	/* not kept: a read or write failed */
	uint64_t bytes;		/* written this session */
	uint64_t busy_ns;	/* time spent copying */
};

/* The keeper: a thread that copies files into the store, so that the sync
 * thread, which finds them, never waits on a disk. The sync thread pushes,
 * the keeper thread pops; everything marked is protected by lock. */
struct kop_keeper {
	char *dir;			/* the store, absolute; read-only */
	/* the store, opened once beneath the session directory; read-only.
	 * fd -1: refused (a link where it should be), nothing is kept */
	struct op_sessdir store;
	uint64_t max_bytes;		/* the store's bound; read-only */
	const struct op_logger *log;
	pthread_t thread;
	bool running;			/* control thread */
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* a job pushed, or stop */
	struct kop_keep_job *jobs;	/* protected by lock: a queue */
	size_t head, nr, cap;		/* protected by lock */
	bool stop;			/* protected by lock */
	uint64_t used;			/* protected by lock: bytes in the store */
	struct kop_keep_counts counts;	/* protected by lock */
};

/* At most this many files wait for the keeper (each holds a descriptor);
 * one more is counted as failed. */
#define KOP_KEEP_QUEUE 256

/* Create the store dir (mkdir -p beneath sd, the session directory, no
 * link followed; sd NULL: dir as it is, for tests), measure what it
 * holds, start the thread. A symbolic link at dir or on the way is
 * refused and named in the log, and the keeper then keeps nothing:
 * every push is counted as failed (images_not_kept), the session goes
 * on. 0 or -errno (logged). */
int kop_keeper_start(struct kop_keeper *k, const struct op_sessdir *sd,
		     const char *dir, uint64_t max_bytes,
		     const struct op_logger *log);
/* Sync thread: queue a copy. Takes job->fd and job->rel whatever happens;
 * a job that cannot be queued is counted as failed. */
void kop_keeper_push(struct kop_keeper *k, struct kop_keep_job *job);
/* Control thread: copy what is queued, then end the thread. */
void kop_keeper_stop(struct kop_keeper *k);
void kop_keeper_release(struct kop_keeper *k);
/* Any thread. */
void kop_keeper_counts(struct kop_keeper *k, struct kop_keep_counts *c);
/* Whether the store holds a regular file at path (absolute, under the
 * store, or relative to it), reached without following a link. Any
 * thread; false for NULL k. */
bool kop_keeper_holds(const struct kop_keeper *k, const char *path);

/* Copy the regular file open at fd into dirfd/rel (directories made as
 * needed, no symbolic link followed), whole or not at all: a temporary
 * beside it renamed over it once written and synced. 0, -EEXIST when
 * rel is there already (nothing written), or -errno. */
int kop_keep_copy(int dirfd, const char *rel, int fd, uint64_t size,
		  const struct timespec *mtime);

#endif /* KOP_KEEP_H */
