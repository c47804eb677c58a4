/* Who ran what. A sample carries a pid and, on kernels from 5.7, the id
 * of its task's cgroup (PERF_SAMPLE_CGROUP); a container is a cgroup
 * (docker-ID.scope, kubepods/.../ID) and, often, a PID namespace in which
 * its processes have pids of their own. So when the sync thread first
 * meets a process image (after its exec) it reads the process's cgroup
 * and, when its PID namespace is not ours, its own pid there; a fork's
 * child inherits the cgroup and has its own pid read; a thread of such a
 * process has its id read. Then each sample's cgroup id is compared with
 * the last one its process had: one compare per sample. A new one is
 * named from a table of ids (the hierarchy scanned at the start, each
 * cgroup made since as PERF_RECORD_CGROUP tells), so that a process
 * running before the session, or gone before its /proc could be read, or
 * moved to another cgroup after its exec, is named by where its samples
 * were taken. And each image named after a copy in the store is recorded
 * with the cgroups of the processes that mapped it, so that a report can
 * say which container ran /app/prog even in a session not separated by
 * process. The daemon writes it all out at each dump (op_cgroups.h has
 * the file).
 */
#include "config.h"
#include "kop_cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	free(c->use_set.v);
	free(c->ids.v);
	free(c->path_set.v);
	free(c->v2_root);
	free(c->v2_sub);
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

/* ---- the maps -------------------------------------------------------- */

static size_t map_hash(uint64_t key, size_t size)
{
	key ^= key >> 31;
	key *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(key >> 17) & (size - 1);
}

/* The slot holding key, or the empty one it would take (m->size > 0). */
static struct kop_u64map_slot *map_slot(const struct kop_u64map *m, uint64_t key)
{
	size_t i = map_hash(key, m->size);

	while (m->v[i].key && m->v[i].key != key)
		i = (i + 1) & (m->size - 1);
	return &m->v[i];
}

static bool map_get(const struct kop_u64map *m, uint64_t key, uint32_t *val)
{
	const struct kop_u64map_slot *s;

	if (!m->size || !key)
		return false;
	s = map_slot(m, key);
	*val = s->val;
	return s->key != 0;
}

/* key (not 0) -> val, added or replaced. 0 or -ENOMEM. */
static int map_put(struct kop_u64map *m, uint64_t key, uint32_t val)
{
	struct kop_u64map_slot *s;

	if (2 * (m->n + 1) > m->size) {
		struct kop_u64map old = *m;

		m->size = old.size ? old.size * 2 : 64;
		m->v = calloc(m->size, sizeof(*m->v));
		if (!m->v) {
			*m = old;
			return -ENOMEM;
		}
		for (size_t j = 0; j < old.size; j++)
			if (old.v[j].key)
				*map_slot(m, old.v[j].key) = old.v[j];
		free(old.v);
	}
	s = map_slot(m, key);
	if (!s->key) {
		s->key = key;
		m->n++;
	}
	s->val = val;
	return 0;
}

/* ---- paths ------------------------------------------------------------ */

static uint64_t path_hash(const char *path)
{
	uint64_t h = 1469598103934665603ULL;

	while (*path)
		h = (h ^ (unsigned char)*path++) * 1099511628211ULL;
	return h | 1;	/* never an empty slot's key */
}

/* With lock held: path's index, added if new; SIZE_MAX out of memory.
 * The scan puts every cgroup of the hierarchy here, and every exec asks:
 * a hash, and a walk only when two paths share one. */
static size_t path_index_locked(struct kop_cgroups *c, const char *path)
{
	uint64_t h = path_hash(path);
	char **v = c->paths, *dup;
	bool shared;
	uint32_t i;

	shared = map_get(&c->path_set, h, &i);
	if (shared && !strcmp(c->paths[i], path))
		return i;
	for (size_t j = 0; shared && j < c->nr_paths; j++)
		if (!strcmp(c->paths[j], path))
			return j;
	dup = strdup(path);
	if (c->nr_paths == c->cap_paths)
		v = op_grow(c->paths, c->nr_paths + 1, &c->cap_paths, 16, sizeof(*v));
	if (!v || !dup || c->nr_paths >= UINT32_MAX ||
	    (!shared && map_put(&c->path_set, h, (uint32_t)c->nr_paths))) {
		free(dup);
		if (v)
			c->paths = v;
		return SIZE_MAX;
	}
	c->paths = v;
	v[c->nr_paths] = dup;
	return c->nr_paths++;
}

/* With lock held: append a record of k's process (k->cgroup_rec says
 * where). */
static void add_proc_locked(struct kop_cgroups *c, struct kop_task *k,
			    pid_t nspid, size_t path)
{
	if (c->nr_procs == c->cap_procs) {
		struct kop_cgroup_proc *v = op_grow(c->procs, c->nr_procs + 1,
						    &c->cap_procs, 256, sizeof(*v));

		if (!v)
			return;
		c->procs = v;
	}
	k->cgroup_rec = (uint32_t)c->nr_procs + 1;
	c->procs[c->nr_procs++] = (struct kop_cgroup_proc){
		.tgid = k->tgid, .nspid = nspid,
		.other_root = k->root == KOP_ROOT_OTHER,
		.path = (uint32_t)path,
		.root_dev = k->root_dev, .root_ino = k->root_ino,
	};
}

void kop_cgroups_note_exec(struct kop_cgroups *c, struct kop_task *k)
{
	char path[PATH_MAX];
	pid_t nspid = 0;
	size_t i;

	if (read_cgroup(c, k->tgid, path, sizeof(path))) {
		/* with ids in the samples, its first sample names it (and a
		 * process that has none needs no name) */
		if (!c->sample_ids)
			atomic_fetch_add_explicit(&c->nr_unread, 1, memory_order_relaxed);
		return;
	}
	k->pidns = other_pidns(c, k->tgid) > 0;
	if (k->pidns)
		nspid = read_nsid(c, k->tgid, k->tgid);
	k->nspid = nspid;
	pthread_mutex_lock(&c->lock);
	i = path_index_locked(c, path);
	if (i != SIZE_MAX) {
		add_proc_locked(c, k, nspid, i);
		k->cgroup = (uint32_t)i + 1;
	}
	pthread_mutex_unlock(&c->lock);
}

/* ---- cgroup ids ----------------------------------------------------- */

/* With lock held: id's path index, or SIZE_MAX. */
static size_t id_find_locked(const struct kop_cgroups *c, uint64_t id)
{
	uint32_t i;

	return map_get(&c->ids, id, &i) ? i : SIZE_MAX;
}

/* With lock held: id names paths[path] from now on (a reused id too).
 * -ENOMEM or 0. */
static int id_set_locked(struct kop_cgroups *c, uint64_t id, size_t path)
{
	return id ? map_put(&c->ids, id, (uint32_t)path) : 0;
}

/* With lock held: path (as /proc/PID/cgroup has it) is cgroup id. */
static int id_name_locked(struct kop_cgroups *c, uint64_t id, const char *path)
{
	size_t i = path_index_locked(c, path);

	return i == SIZE_MAX ? -ENOMEM : id_set_locked(c, id, i);
}

/* A mountinfo field's octal escapes (\040 for a space) undone in place. */
static void unescape_field(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* The cgroup2 mount point and the hierarchy's path it shows ("/" unless
 * it is a cgroup namespace's view), from proc_root's self/mountinfo. */
static int find_v2(const struct kop_cgroups *c, char *mnt, size_t mnt_len,
		   char *sub, size_t sub_len)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	int err = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/self/mountinfo", c->proc_root);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - TYPE SOURCE SUPER */
		char root[PATH_MAX], point[PATH_MAX], type[64];
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(dash, " - %63s", type) != 1 || strcmp(type, "cgroup2"))
			continue;
		if (sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2)
			continue;
		unescape_field(root);
		unescape_field(point);
		if (root[0] != '/' || point[0] != '/')
			continue;
		snprintf(mnt, mnt_len, "%s", point);
		snprintf(sub, sub_len, "%s", root);
		err = 0;
		break;
	}
	free(line);
	fclose(f);
	return err;
}

/* Every directory below dfd (the cgroup at path), depth first. */
static void scan_dir(struct kop_cgroups *c, int dfd, char *path, size_t len,
		     unsigned int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;

	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		struct stat st;
		int fd;

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, "..") || len + 1 + n >= PATH_MAX)
			continue;
		fd = openat(dirfd(d), de->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;	/* removed meanwhile */
		if (fstat(fd, &st)) {
			close(fd);
			continue;
		}
		snprintf(path + len, PATH_MAX - len, "%s%s",
			 len == 1 ? "" : "/", de->d_name);
		pthread_mutex_lock(&c->lock);
		if (!id_name_locked(c, st.st_ino, path))
			c->nr_ids_scanned++;
		pthread_mutex_unlock(&c->lock);
		if (depth < 64)
			scan_dir(c, fd, path, strlen(path), depth + 1);
		else
			close(fd);
		path[len] = '\0';
	}
	closedir(d);
}

int kop_cgroups_scan(struct kop_cgroups *c)
{
	char mnt[PATH_MAX], sub[PATH_MAX];
	struct stat st;
	int fd, err;

	c->sample_ids = true;
	err = find_v2(c, mnt, sizeof(mnt), sub, sizeof(sub));
	if (err)
		return err;
	c->v2_root = strdup(mnt);
	c->v2_sub = strdup(sub);
	if (!c->v2_root || !c->v2_sub)
		return -ENOMEM;
	fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	/* the ids are the v2 directories' inode numbers (kernfs's ids) */
	pthread_mutex_lock(&c->lock);
	err = id_name_locked(c, st.st_ino, sub);
	c->nr_ids_scanned += !err;
	pthread_mutex_unlock(&c->lock);
	if (err) {
		close(fd);
		return err;
	}
	scan_dir(c, fd, sub, strlen(sub), 0);
	return (int)(c->nr_ids_scanned > INT32_MAX ? INT32_MAX : c->nr_ids_scanned);
}

/* The v2 directory for the hierarchy's path: is it cgroup id? The mount
 * shows the hierarchy below c->v2_sub (a cgroup namespace's view): a path
 * outside it is not there. */
static bool v2_has(const struct kop_cgroups *c, uint64_t id, const char *path)
{
	size_t n = c->v2_sub ? strlen(c->v2_sub) : 0;
	char full[PATH_MAX * 2];
	struct stat st;

	if (!c->v2_root || path[0] != '/')
		return false;
	if (n > 1) {
		if (strncmp(path, c->v2_sub, n) || (path[n] && path[n] != '/'))
			return false;
		path += n;
	}
	snprintf(full, sizeof(full), "%s%s", c->v2_root, path);
	return !stat(full, &st) && S_ISDIR(st.st_mode) && (uint64_t)st.st_ino == id;
}

void kop_cgroups_note_made(struct kop_cgroups *c, uint64_t id, const char *path)
{
	if (!v2_has(c, id, path))
		return;		/* a v1 hierarchy's, or gone already */
	pthread_mutex_lock(&c->lock);
	if (!id_name_locked(c, id, path))
		c->nr_ids_made++;
	pthread_mutex_unlock(&c->lock);
}

void kop_cgroups_note_sample(struct kop_cgroups *c, struct kop_task *k,
			     uint64_t id, bool *changed)
{
	char path[PATH_MAX];
	bool first = !k->cgroup;
	pid_t nspid = 0;
	size_t i;

	*changed = false;
	pthread_mutex_lock(&c->lock);
	i = id_find_locked(c, id);
	pthread_mutex_unlock(&c->lock);
	if (i == SIZE_MAX && !read_cgroup(c, k->tgid, path, sizeof(path))) {
		/* made before the scan saw it, or its record lost: the
		 * process is running, so /proc says where. The id is kept
		 * for the path only when the path is the id's (the process
		 * may have moved on since the sample) */
		bool same = v2_has(c, id, path);

		pthread_mutex_lock(&c->lock);
		i = path_index_locked(c, path);
		if (i != SIZE_MAX && same)
			id_set_locked(c, id, i);
		c->nr_ids_from_proc++;
		pthread_mutex_unlock(&c->lock);
	}
	k->cgroup_id = id;		/* not tried again for this id */
	if (i == SIZE_MAX) {
		if (first)
			atomic_fetch_add_explicit(&c->nr_unread, 1, memory_order_relaxed);
		return;
	}
	if (k->cgroup == (uint32_t)i + 1)
		return;
	if (first) {
		k->pidns = other_pidns(c, k->tgid) > 0;
		if (k->pidns)
			k->nspid = read_nsid(c, k->tgid, k->tgid);
	} else {
		/* a move: counted once a process; its threads in a
		 * threaded cgroup's children could say another cgroup at
		 * every sample, so few lines are written */
		if (k->cgroup_lines == 0)
			atomic_fetch_add_explicit(&c->nr_moved, 1, memory_order_relaxed);
		if (k->cgroup_lines >= KOP_CGROUP_MOVES_WRITTEN) {
			/* as often as is written: the last line now says
			 * this one, so the last samples still name it (its
			 * images' users are not noted again) */
			if (!k->cgroup_rec)
				return;		/* no line to rewrite */
			pthread_mutex_lock(&c->lock);
			c->procs[k->cgroup_rec - 1].path = (uint32_t)i;
			pthread_mutex_unlock(&c->lock);
			k->cgroup = (uint32_t)i + 1;
			return;
		}
		k->cgroup_lines++;
	}
	/* a later line for the tgid wins and forgets its ns line: said
	 * again, as read at its first (its PID namespace is the same) */
	nspid = k->nspid;
	pthread_mutex_lock(&c->lock);
	add_proc_locked(c, k, nspid, i);
	pthread_mutex_unlock(&c->lock);
	k->cgroup = (uint32_t)i + 1;
	*changed = true;
}

void kop_cgroups_note_fork(struct kop_cgroups *c, struct kop_task *k)
{
	pid_t nspid = 0;

	if (!k->cgroup)
		return;
	if (k->pidns)
		nspid = read_nsid(c, k->tgid, k->tgid);
	k->nspid = nspid;
	pthread_mutex_lock(&c->lock);
	add_proc_locked(c, k, nspid, k->cgroup - 1);
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

/* With lock held: is key in the set; if not, add it. -ENOMEM, 0 (new),
 * 1 (there). */
static int use_seen_locked(struct kop_cgroups *c, uint64_t key)
{
	uint32_t v;

	if (map_get(&c->use_set, key + 1, &v))
		return 1;
	return map_put(&c->use_set, key + 1, 0);
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
		if (p->other_root && (p->root_dev || p->root_ino))
			ops->root(ctx, p->tgid, p->root_dev, p->root_ino);
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
