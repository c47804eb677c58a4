/* Who ran what. A sample carries a pid, not a container; a container is a
 * cgroup (docker-ID.scope, kubepods/.../ID) and, often, a PID namespace
 * in which its processes have pids of their own. So when the sync thread
 * first meets a process image (after its exec) it reads the process's
 * cgroup and, when its PID namespace is not ours, its own pid there; a
 * fork's child inherits the cgroup and has its own pid read; a thread of
 * such a process has its id read. And each image named after a copy in
 * the store is recorded with the cgroups of the processes that mapped it,
 * so that a report can say which container ran /app/prog even in a
 * session not separated by process. All of it happens at exec, fork,
 * thread creation and mmap, never per sample. The daemon writes it out
 * at each dump (op_cgroups.h has the file).
 */
#include "config.h"
#include "kop_cgroup.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "op_grow.h"

int kop_cgroups_init(struct kop_cgroups *c, const char *proc_root)
{
	struct stat st;

	memset(c, 0, sizeof(*c));
	c->proc_root = proc_root;
	if (stat("/proc/self/ns/pid", &st) == 0) {
		c->have_pidns = true;
		c->self_pidns = st.st_ino;
	}
	return -pthread_mutex_init(&c->lock, NULL);
}

void kop_cgroups_release(struct kop_cgroups *c)
{
	for (size_t i = 0; i < c->nr_paths; i++)
		free(c->paths[i]);
	for (size_t i = 0; i < c->nr_imgs; i++)
		free(c->imgs[i]);
	free(c->paths);
	free(c->imgs);
	free(c->procs);
	free(c->threads);
	free(c->uses);
	free(c->use_set);
	pthread_mutex_destroy(&c->lock);
	memset(c, 0, sizeof(*c));
}

/* The cgroup v2 path of tgid ("0::PATH"), into buf. 0 or -errno. */
static int read_cgroup(const struct kop_cgroups *c, pid_t tgid, char *buf,
		       size_t len)
{
	char path[PATH_MAX], line[PATH_MAX];
	FILE *f;
	int err = -ENOENT;

	snprintf(path, sizeof(path), "%s/%d/cgroup", c->proc_root, (int)tgid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		if (strncmp(line, "0::", 3) || line[3] != '/')
			continue;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		snprintf(buf, len, "%s", line + 3);
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

/* Is tgid in another PID namespace than ours: 1, 0, or -errno. */
static int other_pidns(const struct kop_cgroups *c, pid_t tgid)
{
	char path[PATH_MAX];
	struct stat st;

	if (!c->have_pidns)
		return 0;
	snprintf(path, sizeof(path), "%s/%d/ns/pid", c->proc_root, (int)tgid);
	if (stat(path, &st))
		return -errno;
	return st.st_ino != c->self_pidns;
}

/* The id of tid (a thread of tgid; tid == tgid: the process) in its
 * innermost PID namespace, the last number of the NSpid line of its
 * status. 0 when it cannot be read (counted). */
static pid_t read_nsid(struct kop_cgroups *c, pid_t tgid, pid_t tid)
{
	char path[PATH_MAX], line[512];
	pid_t id = 0;
	FILE *f;

	if (tid == tgid)
		snprintf(path, sizeof(path), "%s/%d/status", c->proc_root, (int)tgid);
	else
		snprintf(path, sizeof(path), "%s/%d/task/%d/status", c->proc_root,
			 (int)tgid, (int)tid);
	f = fopen(path, "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *p, *end;

			if (strncmp(line, "NSpid:", 6))
				continue;
			for (p = line + 6;; p = end) {
				long v = strtol(p, &end, 10);

				if (end == p)
					break;
				if (v > 0 && v <= INT32_MAX)
					id = (pid_t)v;
			}
			break;
		}
		fclose(f);
	}
	if (!id)
		atomic_fetch_add_explicit(&c->nr_nspid_unread, 1, memory_order_relaxed);
	return id;
}

/* With lock held: path's index, added if new; SIZE_MAX out of memory. */
static size_t path_index_locked(struct kop_cgroups *c, const char *path)
{
	char **v = c->paths, *dup;
	size_t i;

	/* few distinct paths: the newest first */
	for (i = c->nr_paths; i-- > 0;)
		if (!strcmp(c->paths[i], path))
			return i;
	dup = strdup(path);
	if (c->nr_paths == c->cap_paths)
		v = op_grow(c->paths, c->nr_paths + 1, &c->cap_paths, 16, sizeof(*v));
	if (!v || !dup) {
		free(dup);
		return SIZE_MAX;
	}
	c->paths = v;
	v[c->nr_paths] = dup;
	return c->nr_paths++;
}

/* With lock held: append a process record. */
static void add_proc_locked(struct kop_cgroups *c, pid_t tgid, pid_t nspid,
			    bool other_root, size_t path)
{
	if (c->nr_procs == c->cap_procs) {
		struct kop_cgroup_proc *v = op_grow(c->procs, c->nr_procs + 1,
						    &c->cap_procs, 256, sizeof(*v));

		if (!v)
			return;
		c->procs = v;
	}
	c->procs[c->nr_procs++] = (struct kop_cgroup_proc){
		.tgid = tgid, .nspid = nspid, .other_root = other_root,
		.path = (uint32_t)path,
	};
}

void kop_cgroups_note_exec(struct kop_cgroups *c, struct kop_task *k)
{
	char path[PATH_MAX];
	pid_t nspid = 0;
	size_t i;

	if (read_cgroup(c, k->tgid, path, sizeof(path))) {
		atomic_fetch_add_explicit(&c->nr_unread, 1, memory_order_relaxed);
		return;
	}
	k->pidns = other_pidns(c, k->tgid) > 0;
	if (k->pidns)
		nspid = read_nsid(c, k->tgid, k->tgid);
	pthread_mutex_lock(&c->lock);
	i = path_index_locked(c, path);
	if (i != SIZE_MAX) {
		add_proc_locked(c, k->tgid, nspid, k->root == KOP_ROOT_OTHER, i);
		k->cgroup = (uint32_t)i + 1;
	}
	pthread_mutex_unlock(&c->lock);
}

void kop_cgroups_note_fork(struct kop_cgroups *c, struct kop_task *k)
{
	pid_t nspid = 0;

	if (!k->cgroup)
		return;
	if (k->pidns)
		nspid = read_nsid(c, k->tgid, k->tgid);
	pthread_mutex_lock(&c->lock);
	add_proc_locked(c, k->tgid, nspid, k->root == KOP_ROOT_OTHER, k->cgroup - 1);
	pthread_mutex_unlock(&c->lock);
}

void kop_cgroups_note_thread(struct kop_cgroups *c, const struct kop_task *k,
			     pid_t tid)
{
	pid_t nstid;

	if (!k->pidns)
		return;
	nstid = read_nsid(c, k->tgid, tid);
	if (!nstid)
		return;
	pthread_mutex_lock(&c->lock);
	if (c->nr_threads == c->cap_threads) {
		struct kop_cgroup_thread *v = op_grow(c->threads, c->nr_threads + 1,
						      &c->cap_threads, 64,
						      sizeof(*v));

		if (!v)
			goto out;
		c->threads = v;
	}
	c->threads[c->nr_threads++] = (struct kop_cgroup_thread){
		.tid = tid, .nstid = nstid,
	};
out:
	pthread_mutex_unlock(&c->lock);
}

static size_t use_hash(uint64_t key, size_t size)
{
	key ^= key >> 31;
	key *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(key >> 17) & (size - 1);
}

/* With lock held: is key in the set; if not, add it. -ENOMEM, 0 (new),
 * 1 (there). */
static int use_seen_locked(struct kop_cgroups *c, uint64_t key)
{
	size_t i;

	if (2 * (c->nr_uses + 1) > c->use_set_size) {
		size_t n = c->use_set_size ? c->use_set_size * 2 : 256;
		uint64_t *set = calloc(n, sizeof(*set));

		if (!set)
			return -ENOMEM;
		for (size_t j = 0; j < c->use_set_size; j++) {
			if (!c->use_set[j])
				continue;
			for (i = use_hash(c->use_set[j] - 1, n); set[i]; i = (i + 1) & (n - 1))
				;
			set[i] = c->use_set[j];
		}
		free(c->use_set);
		c->use_set = set;
		c->use_set_size = n;
	}
	for (i = use_hash(key, c->use_set_size); c->use_set[i];
	     i = (i + 1) & (c->use_set_size - 1))
		if (c->use_set[i] == key + 1)
			return 1;
	c->use_set[i] = key + 1;
	return 0;
}

void kop_cgroups_note_use(struct kop_cgroups *c, uint32_t *img,
			  const char *rel, const struct kop_task *k)
{
	bool other = k->root == KOP_ROOT_OTHER;
	uint64_t key;

	if (!k->cgroup)
		return;		/* its cgroup unread: nothing to say */
	pthread_mutex_lock(&c->lock);
	if (!*img) {
		char *dup = strdup(rel);

		if (c->nr_imgs == c->cap_imgs) {
			char **v = op_grow(c->imgs, c->nr_imgs + 1, &c->cap_imgs,
					   64, sizeof(*v));

			if (!v) {
				free(dup);
				goto out;
			}
			c->imgs = v;
		}
		if (!dup)
			goto out;
		c->imgs[c->nr_imgs++] = dup;
		*img = (uint32_t)c->nr_imgs;
	}
	key = (uint64_t)(*img - 1) << 32 | (uint64_t)(k->cgroup - 1) << 1 | other;
	if (use_seen_locked(c, key))
		goto out;
	if (c->nr_uses == c->cap_uses) {
		struct kop_cgroup_use *v = op_grow(c->uses, c->nr_uses + 1,
						   &c->cap_uses, 64, sizeof(*v));

		if (!v)
			goto out;	/* in the set: not tried again */
		c->uses = v;
	}
	c->uses[c->nr_uses++] = (struct kop_cgroup_use){
		.img = *img - 1, .path = k->cgroup - 1, .other_root = other,
	};
out:
	pthread_mutex_unlock(&c->lock);
}

void kop_cgroups_each(struct kop_cgroups *c, const struct kop_cgroup_ops *ops,
		      void *ctx)
{
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->nr_procs; i++) {
		const struct kop_cgroup_proc *p = &c->procs[i];

		ops->process(ctx, p->tgid, p->other_root, c->paths[p->path]);
		if (p->nspid && p->nspid != p->tgid)
			ops->nsid(ctx, p->tgid, p->nspid);
	}
	for (size_t i = 0; i < c->nr_threads; i++)
		if (c->threads[i].nstid != c->threads[i].tid)
			ops->nsid(ctx, c->threads[i].tid, c->threads[i].nstid);
	for (size_t i = 0; i < c->nr_uses; i++)
		ops->image(ctx, c->imgs[c->uses[i].img], c->uses[i].other_root,
			   c->paths[c->uses[i].path]);
	pthread_mutex_unlock(&c->lock);
}
