/* The task table: what each process has mapped, so a user pc becomes
 * (image cookie, offset). One table per process (threads share it; samples
 * carry the tgid). A table is sorted by address and looked up by binary
 * search: a process with 10,000 mappings costs ~14 compares a sample.
 *
 * Exec and exit do not free a table: they retire it with the time they
 * happened, because samples taken before that time may still sit in a CPU
 * ring that has not been synced yet. The sync code frees retired tables
 * once every ring has been consumed past their time (kop_sync.c).
 *
 * Owner: the sync thread (session start fills it before the thread runs).
 */
#include "config.h"
#include "kop_task.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "op_grow.h"
#include "op_proto.h"

int kop_tasks_init(struct kop_tasks *t)
{
	memset(t, 0, sizeof(*t));
	t->nr_buckets = 1024;
	t->buckets = calloc(t->nr_buckets, sizeof(*t->buckets));
	return t->buckets ? 0 : -ENOMEM;
}

static void task_free(struct kop_task *k)
{
	free(k->maps);
	free(k->starts);
	free(k);
}

void kop_tasks_release(struct kop_tasks *t)
{
	struct kop_task *k, *next;

	if (!t->buckets)
		return;
	for (size_t i = 0; i < t->nr_buckets; i++)
		for (k = t->buckets[i]; k; k = next) {
			next = k->next;
			task_free(k);
		}
	for (size_t i = 0; i < KOP_RETIRED_BUCKETS; i++)
		for (k = t->retired[i]; k; k = next) {
			next = k->next;
			task_free(k);
		}
	free(t->buckets);
	memset(t, 0, sizeof(*t));
}

static size_t bucket_of(const struct kop_tasks *t, pid_t tgid)
{
	return ((uint32_t)tgid * 2654435761u) & (t->nr_buckets - 1);
}

static struct kop_task **retired_of(struct kop_tasks *t, pid_t tgid)
{
	return &t->retired[((uint32_t)tgid * 2654435761u) >> (32 - KOP_RETIRED_BITS)];
}

struct kop_task *kop_task_find(struct kop_tasks *t, pid_t tgid)
{
	struct kop_task *k = t->buckets[bucket_of(t, tgid)];

	while (k && k->tgid != tgid)
		k = k->next;
	return k;
}

static void grow_buckets(struct kop_tasks *t)
{
	size_t old = t->nr_buckets;
	struct kop_task **ob = t->buckets, *k, *next;
	struct kop_task **nb = calloc(old * 2, sizeof(*nb));

	if (!nb)
		return;		/* longer chains, still correct */
	t->buckets = nb;
	t->nr_buckets = old * 2;
	for (size_t i = 0; i < old; i++)
		for (k = ob[i]; k; k = next) {
			size_t b = bucket_of(t, k->tgid);

			next = k->next;
			k->next = nb[b];
			nb[b] = k;
		}
	free(ob);
}

/* kop_task.gen's source: tables of several sessions may live at once */
static _Atomic uint64_t next_gen = 1;

static uint64_t new_gen(void)
{
	return atomic_fetch_add_explicit(&next_gen, 1, memory_order_relaxed);
}

struct kop_task *kop_task_new(struct kop_tasks *t, pid_t tgid)
{
	struct kop_task *k = calloc(1, sizeof(*k));
	size_t b;

	if (!k)
		return NULL;
	k->tgid = tgid;
	k->gen = new_gen();
	if (t->nr >= t->nr_buckets)
		grow_buckets(t);
	b = bucket_of(t, tgid);
	k->next = t->buckets[b];
	t->buckets[b] = k;
	t->nr++;
	return k;
}

static void unlink_task(struct kop_tasks *t, struct kop_task *k)
{
	struct kop_task **p = &t->buckets[bucket_of(t, k->tgid)];

	while (*p && *p != k)
		p = &(*p)->next;
	if (*p) {
		*p = k->next;
		t->nr--;
	}
}

static int reserve(struct kop_task *k, size_t n)
{
	/* two arrays of one capacity: each grown from it, which is
	 * updated once both have grown */
	size_t cap = k->cap_maps, cap_starts = k->cap_maps;
	struct kop_map *m;
	uint64_t *st;

	if (n <= k->cap_maps)
		return 0;
	m = op_grow(k->maps, n, &cap, 8, sizeof(*m));
	if (!m)
		return -ENOMEM;
	k->maps = m;
	st = op_grow(k->starts, n, &cap_starts, 8, sizeof(*st));
	if (!st)
		return -ENOMEM;
	k->starts = st;
	k->cap_maps = cap;
	return 0;
}

/* First index whose mapping ends after addr. */
static size_t first_ending_after(const struct kop_task *k, uint64_t addr)
{
	size_t lo = 0, hi = k->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int kop_task_map(struct kop_task *k, uint64_t start, uint64_t end,
		 uint64_t pgoff, uint64_t cookie)
{
	size_t i, j;
	struct kop_map head = { 0 }, tail = { 0 };
	bool keep_head = false, keep_tail = false;
	size_t nr_new, first;

	if (end <= start)
		return -EINVAL;
	/* maps[i, j) overlap [start, end) */
	i = first_ending_after(k, start);
	for (j = i; j < k->nr_maps && k->maps[j].start < end; j++)
		;
	if (i < j && k->maps[i].start < start) {
		head = k->maps[i];
		head.end = start;
		keep_head = true;
	}
	if (i < j && k->maps[j - 1].end > end) {
		tail = k->maps[j - 1];
		tail.pgoff += end - tail.start;
		tail.start = end;
		keep_tail = true;
	}
	nr_new = keep_head + 1 + keep_tail;
	first = i;
	if (reserve(k, k->nr_maps - (j - i) + nr_new))
		return -ENOMEM;
	memmove(&k->maps[i + nr_new], &k->maps[j],
		(k->nr_maps - j) * sizeof(*k->maps));
	k->nr_maps = k->nr_maps - (j - i) + nr_new;
	if (keep_head)
		k->maps[i++] = head;
	k->maps[i++] = (struct kop_map){ start, end, pgoff, cookie };
	if (keep_tail)
		k->maps[i] = tail;
	/* everything from the first touched slot on has moved */
	for (i = first; i < k->nr_maps; i++)
		k->starts[i] = k->maps[i].start;
	k->gen = new_gen();
	return 0;
}

int kop_task_retire_maps(struct kop_tasks *t, struct kop_task *k,
			 uint64_t time)
{
	struct kop_task *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	*r = *k;
	r->retired_at = time;
	r->next = *retired_of(t, r->tgid);
	*retired_of(t, r->tgid) = r;
	t->nr_retired++;
	k->maps = NULL;
	k->starts = NULL;
	k->nr_maps = k->cap_maps = 0;
	k->last = 0;
	k->anon_cookie = OP_NO_COOKIE;
	k->since = time;
	k->gen = new_gen();
	return 0;
}

void kop_task_exit(struct kop_tasks *t, struct kop_task *k, uint64_t time)
{
	unlink_task(t, k);
	k->retired_at = time;
	k->next = *retired_of(t, k->tgid);
	*retired_of(t, k->tgid) = k;
	t->nr_retired++;
}

struct kop_task *kop_task_retired_at(struct kop_tasks *t, pid_t tgid,
				     uint64_t time)
{
	for (struct kop_task *r = *retired_of(t, tgid); r; r = r->next)
		if (r->tgid == tgid && r->since <= time && time < r->retired_at)
			return r;
	return NULL;
}

struct kop_task *kop_task_retired_last(struct kop_tasks *t, pid_t tgid,
				       uint64_t time)
{
	/* newest first: the first that started in time is the last one */
	for (struct kop_task *r = *retired_of(t, tgid); r; r = r->next)
		if (r->tgid == tgid && r->since <= time)
			return r;
	return NULL;
}

void kop_tasks_free_retired(struct kop_tasks *t, uint64_t time)
{
	for (size_t i = 0; t->nr_retired && i < KOP_RETIRED_BUCKETS; i++) {
		struct kop_task **p = &t->retired[i];

		while (*p) {
			struct kop_task *r = *p;

			if (r->retired_at <= time) {
				*p = r->next;
				task_free(r);
				t->nr_retired--;
			} else {
				p = &r->next;
			}
		}
	}
}

int kop_task_copy_maps(struct kop_task *child, const struct kop_task *parent)
{
	if (reserve(child, parent->nr_maps))
		return -ENOMEM;
	/* a parent with no mappings yet has no arrays: memcpy must not see
	 * their NULL even for 0 bytes */
	if (parent->nr_maps) {
		memcpy(child->maps, parent->maps,
		       parent->nr_maps * sizeof(*child->maps));
		memcpy(child->starts, parent->starts,
		       parent->nr_maps * sizeof(*child->starts));
	}
	child->nr_maps = parent->nr_maps;
	child->gen = new_gen();
	child->app_cookie = parent->app_cookie;
	child->root = parent->root;	/* a fork keeps its parent's view */
	child->cgroup = parent->cgroup;	/* and its cgroup */
	child->cgroup_id = parent->cgroup_id;
	child->cgroup_lines = 0;	/* its moves are its own */
	child->cgroup_rec = 0;		/* its record is note_fork's */
	child->cgroup_time = parent->cgroup_time;
	child->pidns = parent->pidns;	/* and its PID namespace */
	child->root_dev = parent->root_dev;
	child->root_ino = parent->root_ino;
	child->anon_cookie = parent->anon_cookie;
	return 0;
}

bool kop_name_is_anon(const char *name)
{
	return name[0] != '/' || !strncmp(name, "//anon", 6) ||
	       !strncmp(name, "/anon_hugepage", 14) ||
	       !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/memfd:", 7);
}

bool kop_name_is_memfd(const char *name)
{
	return !strncmp(name, "/memfd:", 7);
}

int kop_task_read_proc(struct kop_task *k, const char *proc_root,
		       struct kop_dcookies *dc, const struct op_logger *lg)
{
	char path[PATH_MAX], exe[PATH_MAX], line[PATH_MAX + 256];
	ssize_t n;
	FILE *f;
	unsigned long nr_bad = 0;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%d/exe", proc_root, (int)k->tgid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	snprintf(path, sizeof(path), "%s/%d/maps", proc_root, (int)k->tgid);
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned int maj, min;
		char perms[8];
		int pos = 0;
		char *name, *nl;
		uint64_t cookie;

		if (!strchr(line, '\n')) {
			int c;

			while ((c = getc(f)) != EOF && c != '\n')
				;
		}
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start,
			   &end, perms, &off, &maj, &min, &ino, &pos) < 7 ||
		    end <= start) {
			nr_bad++;
			continue;
		}
		name = line + pos;
		nl = strchr(name, '\n');
		if (nl)
			*nl = '\0';
		/* only executable mappings take samples */
		if (strlen(perms) < 3 || perms[2] != 'x')
			continue;
		if (!*name || kop_name_is_anon(name) || !ino) {
			cookie = kop_dcookie_anon(dc, *name ? name : "anon",
						  k->tgid, start, end);
			off = KOP_MAP_ANON;
			if (k->app_cookie == OP_NO_COOKIE && kop_name_is_memfd(name) &&
			    !strcmp(name, exe))
				k->app_cookie = kop_dcookie_file(dc, name, makedev(maj, min),
								 (ino_t)ino, NULL, 0);
		} else {
			cookie = kop_dcookie_file(dc, name, makedev(maj, min),
						  (ino_t)ino, NULL, 0);
			if (k->app_cookie == OP_NO_COOKIE && !strcmp(name, exe))
				k->app_cookie = cookie;
		}
		if (cookie == OP_NO_COOKIE ||
		    kop_task_map(k, start, end, off, cookie)) {
			err = -ENOMEM;
			break;
		}
	}
	fclose(f);
	if (nr_bad)
		op_log(lg, OP_LOG_WARN, "kmod: %s: %lu malformed lines ignored",
		       path, nr_bad);
	/* a table read whole rarely grows much: give back the doubling's
	 * slack (a failed shrink keeps the larger arrays, still valid) */
	if (!err && k->nr_maps && k->cap_maps > k->nr_maps + k->nr_maps / 8) {
		struct kop_map *m = realloc(k->maps, k->nr_maps * sizeof(*m));
		uint64_t *st;

		if (m) {
			k->maps = m;
			k->cap_maps = k->nr_maps;
			/* starts[] may stay larger than cap_maps: harmless */
			st = realloc(k->starts, k->nr_maps * sizeof(*st));
			if (st)
				k->starts = st;
		}
	}
	return err;
}

size_t kop_task_bytes(const struct kop_task *k)
{
	return sizeof(*k) + k->cap_maps * (sizeof(*k->maps) + sizeof(*k->starts));
}
