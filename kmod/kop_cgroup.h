/* kop_cgroup.c: who ran what, for the reports' container names. Each
 * process image's cgroup (from its samples' cgroup ids where the kernel
 * gives them, else read at exec), its pid in its own PID namespace when
 * that is not the daemon's, its threads' ids there, and the cgroups of
 * the processes that mapped each image named after a copy in the store.
 * The daemon writes them to stats/cgroups at each dump (op_cgroups.h). */
#ifndef KOP_CGROUP_H
#define KOP_CGROUP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kop.h"
#include "kop_task.h"

/* An open-addressing map from nonzero 64-bit keys to 32-bit values
 * (kop_cgroup.c). */
struct kop_u64map {
	struct kop_u64map_slot {
		uint64_t key;		/* 0: an empty slot */
		uint32_t val;
	} *v;
	size_t n, size;
};

/* The sync thread appends (kop_cgroups_note_*), the daemon's thread
 * reads (kop_cgroups_each): every array is protected by lock. */
struct kop_cgroups {
	const char *proc_root;		/* read-only */
	bool have_pidns;		/* read-only: self_pidns is known */
	ino_t self_pidns;		/* read-only: /proc/self/ns/pid */
	pthread_mutex_t lock;
	struct kop_cgroup_proc {
		pid_t tgid, nspid;	/* nspid 0: the daemon's namespace */
		bool other_root;
		uint32_t path;		/* index in paths */
		uint64_t root_dev, root_ino;	/* other_root: which */
	} *procs;
	size_t nr_procs, cap_procs;
	char **paths;			/* distinct cgroup paths: every one of
					 * the hierarchy once scanned */
	size_t nr_paths, cap_paths;
	struct kop_u64map path_set;	/* a path's hash -> its index */
	struct kop_cgroup_thread {
		pid_t tid, nstid;
	} *threads;			/* threads of processes in another
					 * PID namespace, by their creation */
	size_t nr_threads, cap_threads;
	char **imgs;			/* images' names below the store */
	size_t nr_imgs, cap_imgs;
	struct kop_cgroup_use {
		uint32_t img, path;	/* indices in imgs, paths */
		bool other_root;
	} *uses;			/* distinct, in the order met */
	size_t nr_uses, cap_uses;
	struct kop_u64map use_set;	/* uses met: their key + 1 */
	/* cgroup ids (PERF_SAMPLE_CGROUP: the cgroup v2 directory's inode)
	 * to paths: the hierarchy as scanned at start, the cgroups made
	 * since (PERF_RECORD_CGROUP), and ids met in samples before either
	 * named them, read from /proc */
	bool sample_ids;		/* read-only: samples carry their
					 * cgroup id; a failed read at exec is
					 * then not counted (a sample names it) */
	char *v2_root;			/* read-only: the cgroup2 mount, or NULL */
	char *v2_sub;			/* read-only: the hierarchy's path it
					 * shows ("/" but in a cgroup namespace) */
	struct kop_u64map ids;		/* cgroup id -> index in paths */
	uint64_t nr_ids_scanned;	/* known at start */
	uint64_t nr_ids_made;		/* made during the session */
	uint64_t nr_ids_from_proc;	/* met before either named them: read
					 * from /proc */
	_Atomic uint64_t nr_moved;	/* processes whose samples changed
					 * cgroup: named under the last */
	_Atomic uint64_t nr_unread;	/* /proc/PID/cgroup unreadable */
	_Atomic uint64_t nr_nspid_unread;	/* /proc/PID/status's NSpid */
};

/* The lines a process's moves add at most (after its first cgroup), and
 * the image walks they cost: a later move rewrites the last line. */
#define KOP_CGROUP_MOVES_WRITTEN 4

int kop_cgroups_init(struct kop_cgroups *c, const char *proc_root);
void kop_cgroups_release(struct kop_cgroups *c);

/* Sync thread. A process image met for the first time after its exec
 * (k->root already decided): its cgroup and, in another PID namespace,
 * its own pid there, recorded and remembered in k for its forks. A
 * failure to read is counted; out of memory loses the record (the reports
 * then name no container). */
void kop_cgroups_note_exec(struct kop_cgroups *c, struct kop_task *k);
/* A fork's child (its table copied from its parent's): recorded in its
 * parent's cgroup, which it starts in; its pid in its namespace read. */
void kop_cgroups_note_fork(struct kop_cgroups *c, struct kop_task *k);
/* A new thread tid of k: its id in k's PID namespace, when k is in
 * another one. */
void kop_cgroups_note_thread(struct kop_cgroups *c, const struct kop_task *k,
			     pid_t tid);
/* k mapped the image named rel below the store: *img is the image's
 * index + 1 in c (0: not yet known; set here), so that a use met again
 * costs a lookup in a hash set. */
void kop_cgroups_note_use(struct kop_cgroups *c, uint32_t *img,
			  const char *rel, const struct kop_task *k);

/* Session start, before the sync thread runs: every cgroup of the cgroup
 * v2 hierarchy (the cgroup2 mount in proc_root's self/mountinfo) by its
 * id, and samples' ids are used from now on. The number of cgroups known,
 * or -errno (no cgroup2 mount: -ENOENT; samples' ids then name cgroups
 * through /proc as they are met). */
int kop_cgroups_scan(struct kop_cgroups *c);
/* Sync thread: PERF_RECORD_CGROUP, a cgroup made with this id at path.
 * The kernel says the same for cgroup v1 hierarchies, whose ids may be
 * another's: the path is taken only when the v2 directory there has this
 * id. */
void kop_cgroups_note_made(struct kop_cgroups *c, uint64_t id,
			   const char *path);
/* Sync thread: a sample of live process k in cgroup id, which is not
 * k->cgroup_id. Its cgroup is recorded when it is new for k (a process
 * already running at the start, or one whose read at exec failed), or
 * when k moved (counted in nr_moved: reports name it under the last).
 * *changed: k->cgroup changed (its images' uses are to be noted again). */
void kop_cgroups_note_sample(struct kop_cgroups *c, struct kop_task *k,
			     uint64_t id, bool *changed);

/* Any thread: what was recorded, in order (see kop.h). */
void kop_cgroups_each(struct kop_cgroups *c, const struct kop_cgroup_ops *ops,
		      void *ctx);

#endif /* KOP_CGROUP_H */
