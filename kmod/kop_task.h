/* kop_task.c: the task table, each process's mappings, so a user pc
 * becomes (image cookie, offset). Owner: the sync thread. */
#ifndef KOP_TASK_H
#define KOP_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kop_dcookie.h"
#include "op_log.h"

/* One mapping: [start, end) of an image at file offset pgoff. */
struct kop_map {
	uint64_t start, end, pgoff;
	uint64_t cookie;
};
/* An anonymous mapping has KOP_MAP_ANON set in pgoff (no file offset
 * reaches bit 63); the rest of pgoff is the offset from the region's start
 * as its cookie names it, so a sample offset is pc - start + pgoff either
 * way. */
#define KOP_MAP_ANON (1ULL << 63)

struct kop_task {
	pid_t tgid;
	bool unknown;		/* no /proc entry: samples cannot be attributed */
	bool app_pending;	/* exec seen: next file mapping is the executable */
	uint8_t root;		/* KOP_ROOT_*: whose root its paths are from */
	uint32_t cgroup;	/* its cgroup's index in kop_roots + 1; 0:
				 * not read (kop_cgroup.c) */
	bool pidns;		/* in another PID namespace than ours */
	uint64_t root_dev, root_ino;	/* KOP_ROOT_OTHER: its root directory,
					 * which tells containers apart in
					 * one cgroup */
	pid_t nspid;		/* its pid in its PID namespace; 0: ours, or
				 * unread */
	uint8_t cgroup_lines;	/* lines its samples' cgroups added since
				 * its exec or fork: a move is counted at
				 * the first, and few are written (a
				 * threaded cgroup's threads differ at
				 * every sample): later ones rewrite the
				 * last */
	uint32_t cgroup_rec;	/* its last record's index in kop_cgroups'
				 * procs + 1; 0: none */
	uint64_t cgroup_id;	/* its last sample's cgroup id; 0: none yet */
	uint64_t cgroup_time;	/* the time of the sample that gave it: an
				 * older sample (another CPU's ring, synced
				 * later) does not change it back */
	uint64_t app_cookie;	/* OP_NO_COOKIE: kernel thread or unknown */
	uint64_t anon_cookie;	/* "anon" fallback for pcs in no mapping; lazy */
	uint64_t since;		/* time this mapping table started (exec, fork) */
	uint64_t retired_at;	/* retired tables: exit/exec time */
	uint64_t gen;		/* the table's version, unique in the
				 * process: new at every change of the
				 * table (kop_unwind's cache key) */
	struct kop_map *maps;	/* sorted by start, non-overlapping */
	uint64_t *starts;	/* maps[i].start, for the search */
	size_t nr_maps, cap_maps;
	size_t last;		/* index of the last lookup's hit */
	struct kop_task *next;	/* hash chain: live, or retired by tgid */
};

/* kop_task.root: not looked at yet (a new process, an exec), the host's
 * root, another (kop_root.c) */
enum { KOP_ROOT_UNKNOWN, KOP_ROOT_HOST, KOP_ROOT_OTHER };

/* Retired tables by tgid: a flight recorder keeps a window's worth, which
 * a fork-heavy machine makes thousands, and every sample of a process that
 * exited or exec'd since looks its tgid up there. */
#define KOP_RETIRED_BITS 10
#define KOP_RETIRED_BUCKETS (1u << KOP_RETIRED_BITS)

/* Owner: the sync thread (and session start before it runs). */
struct kop_tasks {
	struct kop_task **buckets;
	size_t nr_buckets, nr;
	struct kop_task *retired[KOP_RETIRED_BUCKETS];	/* newest first */
	size_t nr_retired;
};

int kop_tasks_init(struct kop_tasks *t);
void kop_tasks_release(struct kop_tasks *t);
struct kop_task *kop_task_find(struct kop_tasks *t, pid_t tgid);
struct kop_task *kop_task_new(struct kop_tasks *t, pid_t tgid);
/* Insert a mapping, replacing whatever overlapped it (munmap is not
 * reported; a new mapping over old addresses is). 0 or -ENOMEM. */
int kop_task_map(struct kop_task *k, uint64_t start, uint64_t end,
		 uint64_t pgoff, uint64_t cookie);
/* The mapping containing pc, or NULL. Branch-free binary search over
 * the separate starts[] array: with random pcs a branchy search
 * mispredicts at every level, and starts[] is a quarter the size of maps[]
 * in cache. The last hit is tried first (a hot loop stays in one map). */
static inline const struct kop_map *kop_task_lookup(struct kop_task *k,
						    uint64_t pc)
{
	const uint64_t *base = k->starts;
	size_t n = k->nr_maps, i;

	if (k->last < n && pc >= k->maps[k->last].start &&
	    pc < k->maps[k->last].end)
		return &k->maps[k->last];
	if (!n)
		return NULL;
	while (n > 1) {
		size_t half = n / 2;

		base = base[half] <= pc ? base + half : base;
		n -= half;
	}
	i = (size_t)(base - k->starts);
	if (pc < k->maps[i].start || pc >= k->maps[i].end)
		return NULL;
	k->last = i;
	return &k->maps[i];
}
/* Move k's mapping table to the retired ones as of time (exec); k keeps
 * its tgid with an empty table. 0 or -ENOMEM. */
int kop_task_retire_maps(struct kop_tasks *t, struct kop_task *k,
			 uint64_t time);
/* Remove k from the table into the retired ones (exit). */
void kop_task_exit(struct kop_tasks *t, struct kop_task *k, uint64_t time);
/* The retired table of tgid that was live at time, or NULL. */
struct kop_task *kop_task_retired_at(struct kop_tasks *t, pid_t tgid,
				     uint64_t time);
/* The newest retired table of tgid that started at or before time, or
 * NULL: for a sample after the exit of a process that has no live table. */
struct kop_task *kop_task_retired_last(struct kop_tasks *t, pid_t tgid,
				       uint64_t time);
/* Free retired tables retired at or before time. */
void kop_tasks_free_retired(struct kop_tasks *t, uint64_t time);
/* Copy parent's mappings into child (fork). 0 or -ENOMEM. */
int kop_task_copy_maps(struct kop_task *child, const struct kop_task *parent);
/* Fill k from PROC_ROOT/PID/maps (executable mappings) and PID/exe.
 * 0, -ENOENT (gone), -ENOMEM. */
int kop_task_read_proc(struct kop_task *k, const char *proc_root,
		       struct kop_dcookies *dc, const struct op_logger *lg);
/* Bytes held by one task's table (the benchmark's memory figure). */
size_t kop_task_bytes(const struct kop_task *k);
/* True for names perf and /proc give anonymous regions. */
bool kop_name_is_anon(const char *name);
/* A program run from a memfd (fexecve, as container runtimes do): its
 * executable is the memfd, an anonymous mapping by kop_name_is_anon(), but
 * still the process's application, named by that path as
 * /proc/PID/exe names it. */
bool kop_name_is_memfd(const char *name);

#endif /* KOP_TASK_H */
