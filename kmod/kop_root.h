/* kop_root.c: the files of processes that see another root (a container's
 * mount namespace, a chroot), opened through that root and named by what
 * they are, not by a path that on the host names something else. */
#ifndef KOP_ROOT_H
#define KOP_ROOT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kop_cgroup.h"
#include "kop_dcookie.h"
#include "kop_keep.h"
#include "kop_task.h"
#include "op_log.h"

struct kop_rootent;

/* Owner: the sync thread (session start fills it before the thread runs);
 * nr_unresolved is read by any thread. */
struct kop_roots {
	const char *proc_root;		/* the session's ("/proc") */
	const char *store;		/* the keeper's store: images' names */
	struct kop_keeper *keeper;	/* NULL: nothing is copied */
	const struct op_logger *log;
	bool have_self;			/* the daemon's own root is known */
	ino_t self_mntns;		/* /proc/self/ns/mnt */
	dev_t self_root_dev;		/* /proc/self/root */
	ino_t self_root_ino;
	void *buckets;			/* files met, by identity */
	struct kop_rootent *all;	/* every one, for the release */
	size_t nr_buckets, nr;
	bool logged;
	/* foreign mappings whose file could not be opened through their
	 * root, or was not the file mapped: one per image (the cookie is
	 * remembered), any thread reads it */
	_Atomic uint64_t nr_unresolved;
	/* who ran what: cgroups, ids in PID namespaces, who mapped which
	 * kept image (kop_cgroup.h) */
	struct kop_cgroups cg;
};

/* store: where kept copies go and foreign images are named (absolute);
 * keeper: started on store, or NULL. 0 or -ENOMEM. */
int kop_roots_init(struct kop_roots *r, const char *proc_root,
		   const char *store, struct kop_keeper *keeper,
		   const struct op_logger *log);
void kop_roots_release(struct kop_roots *r);

/* Does k's process see another root? Asked of /proc once per process
 * image (fork copies the answer, exec forgets it); a process gone before
 * it could be asked counts as the host's. */
bool kop_root_task_foreign(struct kop_roots *r, struct kop_task *k);

/* A fork's child (its table copied from its parent's): recorded in its
 * parent's cgroup, which it starts in, so that a server's workers that
 * never exec are named by their container too. */
void kop_root_task_forked(struct kop_roots *r, struct kop_task *k);
/* A sample of live process k at time in cgroup id, which is not
 * k->cgroup_id, and not older than the sample that gave that
 * (kop_cgroups_note_sample): when its cgroup changed, the images it maps
 * that are named after the store's copies are noted in the new one. */
void kop_root_task_sampled(struct kop_roots *r, struct kop_task *k,
			   uint64_t cgroup_id, uint64_t time);

/* A new thread tid of k's process (kop_cgroup.h). */
void kop_root_task_thread(struct kop_roots *r, const struct kop_task *k,
			  pid_t tid);

/* The cookie of a file mapping [start, end) of k's process, which sees
 * another root, at path as seen from that root: dev/ino or the build-id, as the
 * kernel gave them (zeros when it did not). The file is opened through
 * the process's own view (its mapping, or the path resolved inside its
 * root: never a host path), identified by build-id or (dev, ino):
 *   - the same file met before (any process, any root): its cookie;
 *   - a file that is the host's file at the same path: named by the path,
 *     as a host mapping is;
 *   - else named STORE/BUILDID[0:2]/BUILDID[2:]/PATH (STORE/ino/DEV-INO/PATH
 *     without a build-id), and a copy queued to the keeper under that
 *     name. A file that cannot be opened, or is not the mapped one, is
 *     named so too, without a copy, and counted in nr_unresolved.
 * Each image named after the store is recorded with k's cgroup
 * (kop_cgroup.h). OP_NO_COOKIE when out of memory. */
uint64_t kop_root_cookie(struct kop_roots *r, struct kop_dcookies *dc,
			 const struct kop_task *k, const char *path, uint64_t start,
			 uint64_t end, dev_t dev, ino_t ino,
			 const uint8_t *bid, uint8_t bid_size);

/* A host mapping's file met before from another root (by build-id or
 * (dev, ino)): its cookie, so that the same file is one image whoever
 * maps it first; OP_NO_COOKIE otherwise, and when that image's name has
 * no file behind it (not opened, or its copy not written yet): the host
 * mapping then keeps its own name. k's cgroup is recorded as one that
 * mapped it. */
uint64_t kop_root_host_cookie(struct kop_roots *r, const struct kop_task *k,
			      dev_t dev, ino_t ino, const uint8_t *bid,
			      uint8_t bid_size);

#endif /* KOP_ROOT_H */
