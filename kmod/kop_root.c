/* Processes that see another root. A mapping's path in an MMAP2 record is
 * the path as the process sees it, from its own root: in a container (its
 * own mount namespace, an overlay for a root) or a chroot, that path on
 * the host names nothing, or worse, another file: a container whose
 * /app/prog is a link to /etc/shadow must never make a profiler running
 * as root read the host's /etc/shadow.
 *
 * So the file of such a mapping is opened from the process's own view,
 * never by a host path: through its mapping (/proc/PID/map_files/START-END,
 * the very file it mapped), or, when the mapping has gone, by its path
 * resolved inside /proc/PID/root with openat2(RESOLVE_IN_ROOT), which no
 * link or ".." can leave, and then only if the file opened is the one
 * the kernel said was mapped (dev, ino). It is identified by build-id
 * (the kernel's, in MMAP2) or by (dev, ino): two different files at the
 * same path in two containers are two images, the same file seen from
 * two containers one.
 *
 * Naming: a file that is the host's own file at the same path is named by
 * that path, as any host mapping is. Any other is named after its copy in
 * the session's store, STORE/ab/cdef.../PATH (STORE/ino/DEV-INO/PATH with
 * no build-id), and the copy queued to the keeper (kop_keep.c): OProfile's
 * own opreport then finds the binary where the name says, and ours shows
 * PATH. This runs once per new file, on the sync thread, when it learns of
 * the mapping (its process is alive then, by definition); samples never
 * come here.
 */
#include "config.h"
#include "kop_root.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "op_grow.h"
#include "op_proto.h"

#define ROOT_BUCKETS 1024u

struct kop_rootent {
	uint8_t bid[20];
	uint8_t bid_size;
	dev_t dev;
	ino_t ino;
	uint64_t cookie;
	char *rel;		/* unresolved: its name below the store, for
				 * a copy if a later mapping opens it */
	uint8_t tries;		/* unresolved: opens tried */
	char *kept;		/* named after a copy: its path */
	uint32_t img;		/* its name's index + 1 in r->cg */
	struct kop_rootent *next_bid, *next_ino;
	struct kop_rootent *next_all;
};

/* Two chains per bucket: by build-id, by (dev, ino). */
struct kop_rootent_heads {
	struct kop_rootent *bid, *ino;
};

static size_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	while (n--)
		h = (h ^ *p++) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 29)) & (ROOT_BUCKETS - 1);
}

static size_t hash_ino(dev_t dev, ino_t ino)
{
	uint64_t k[2] = { (uint64_t)dev, (uint64_t)ino };

	return hash_bytes((const uint8_t *)k, sizeof(k));
}

int kop_roots_init(struct kop_roots *r, const char *proc_root,
		   const char *store, struct kop_keeper *keeper,
		   const struct op_logger *log)
{
	struct stat ns, root;

	memset(r, 0, sizeof(*r));
	r->proc_root = proc_root;
	r->store = store;
	r->keeper = keeper;
	r->log = log;
	r->nr_buckets = ROOT_BUCKETS;
	r->buckets = calloc(ROOT_BUCKETS, sizeof(struct kop_rootent_heads));
	if (!r->buckets)
		return -ENOMEM;
	if (kop_cgroups_init(&r->cg, proc_root)) {
		free(r->buckets);
		r->buckets = NULL;
		return -ENOMEM;
	}
	/* our own view, which host paths are relative to */
	if (stat("/proc/self/ns/mnt", &ns) == 0 && stat("/", &root) == 0) {
		r->have_self = true;
		r->self_mntns = ns.st_ino;
		r->self_root_dev = root.st_dev;
		r->self_root_ino = root.st_ino;
	}
	return 0;
}

void kop_roots_release(struct kop_roots *r)
{
	for (struct kop_rootent *e = r->all, *n; e; e = n) {
		n = e->next_all;
		free(e->rel);
		free(e->kept);
		free(e);
	}
	if (r->buckets)
		kop_cgroups_release(&r->cg);
	free(r->buckets);
	memset(r, 0, sizeof(*r));
}

void kop_root_task_forked(struct kop_roots *r, struct kop_task *k)
{
	kop_cgroups_note_fork(&r->cg, k);
}

static uint64_t note_use(struct kop_roots *r, struct kop_rootent *e,
			 const struct kop_task *k);
static void decide_root(struct kop_roots *r, struct kop_task *k);

void kop_root_task_sampled(struct kop_roots *r, struct kop_task *k,
			   uint64_t cgroup_id, uint64_t time)
{
	bool changed;

	if (cgroup_id == k->cgroup_id || time < k->cgroup_time)
		return;
	if (k->root == KOP_ROOT_UNKNOWN)
		decide_root(r, k);	/* its cgroup comes from the id */
	k->cgroup_time = time;
	kop_cgroups_note_sample(&r->cg, k, cgroup_id, &changed);
	if (!changed)
		return;
	/* rare (a process's first sample, a move): a walk over the images
	 * named after copies, against the process's mappings */
	for (struct kop_rootent *e = r->all; e; e = e->next_all) {
		for (size_t i = 0; i < k->nr_maps; i++)
			if (k->maps[i].cookie == e->cookie) {
				note_use(r, e, k);
				break;
			}
	}
}

void kop_root_task_thread(struct kop_roots *r, const struct kop_task *k,
			  pid_t tid)
{
	kop_cgroups_note_thread(&r->cg, k, tid);
}

/* Does k's process see another root than ours: 1 yes (k->root_dev and
 * root_ino then say which root directory, unless it is ours), 0 no,
 * -errno when /proc cannot say (the process is gone). */
static int kop_root_foreign(struct kop_roots *r, struct kop_task *k)
{
	char path[PATH_MAX];
	struct stat ns, st;

	if (!r->have_self)
		return 0;
	snprintf(path, sizeof(path), "%s/%d/ns/mnt", r->proc_root, (int)k->tgid);
	if (stat(path, &ns))
		return -errno;
	/* its root: a chroot in our mounts, or another namespace's */
	snprintf(path, sizeof(path), "%s/%d/root", r->proc_root, (int)k->tgid);
	if (stat(path, &st)) {
		if (ns.st_ino == r->self_mntns)
			return -errno;
		memset(&st, 0, sizeof(st));	/* its mounts are its own */
	}
	if (st.st_dev == r->self_root_dev && st.st_ino == r->self_root_ino) {
		/* our root directory in mounts of its own: a runtime's
		 * process before it enters its container's root; its
		 * paths are still resolved through its own view */
		return ns.st_ino != r->self_mntns;
	}
	k->root_dev = (uint64_t)st.st_dev;
	k->root_ino = (uint64_t)st.st_ino;
	return 1;
}

static void decide_root(struct kop_roots *r, struct kop_task *k)
{
	k->root_dev = k->root_ino = 0;
	k->root = kop_root_foreign(r, k) > 0 ? KOP_ROOT_OTHER : KOP_ROOT_HOST;
}

bool kop_root_task_foreign(struct kop_roots *r, struct kop_task *k)
{
	if (k->root == KOP_ROOT_UNKNOWN) {
		decide_root(r, k);
		/* the same moment names its container */
		kop_cgroups_note_exec(&r->cg, k);
	}
	return k->root == KOP_ROOT_OTHER;
}

static struct kop_rootent *find(struct kop_roots *r, dev_t dev, ino_t ino,
				const uint8_t *bid, uint8_t bid_size)
{
	struct kop_rootent_heads *h = (void *)r->buckets;
	struct kop_rootent *e;

	if (bid_size) {
		for (e = h[hash_bytes(bid, bid_size)].bid; e; e = e->next_bid)
			if (e->bid_size == bid_size && !memcmp(e->bid, bid, bid_size))
				return e;
	}
	if (dev || ino) {
		for (e = h[hash_ino(dev, ino)].ino; e; e = e->next_ino)
			if (e->dev == dev && e->ino == ino)
				return e;
	}
	return NULL;
}

static struct kop_rootent *remember(struct kop_roots *r, uint64_t cookie,
				     dev_t dev, ino_t ino, const uint8_t *bid,
				     uint8_t bid_size, const char *unresolved_rel)
{
	struct kop_rootent_heads *h = (void *)r->buckets;
	struct kop_rootent *e = calloc(1, sizeof(*e));
	size_t b;

	if (!e)
		return NULL;	/* met again, it is looked at again */
	if (unresolved_rel) {
		e->rel = strdup(unresolved_rel);
		if (!e->rel) {
			free(e);
			return NULL;
		}
		atomic_fetch_add_explicit(&r->nr_unresolved, 1, memory_order_relaxed);
	}
	e->cookie = cookie;
	e->dev = dev;
	e->ino = ino;
	e->bid_size = bid_size;
	if (bid_size)
		memcpy(e->bid, bid, bid_size);
	if (bid_size) {
		b = hash_bytes(bid, bid_size);
		e->next_bid = h[b].bid;
		h[b].bid = e;
	}
	if (dev || ino) {
		b = hash_ino(dev, ino);
		e->next_ino = h[b].ino;
		h[b].ino = e;
	}
	e->next_all = r->all;
	r->all = e;
	r->nr++;
	return e;
}

/* A path every component of which a sample-file name and OProfile's
 * opreport take as it is (op_names.h escapes the others, which OProfile
 * would not undo), within a bound. */
static bool plain_path(const char *path)
{
	const char *c = path;

	if (path[0] != '/' || strlen(path) > 1024)
		return false;
	while (*c) {
		const char *comp = ++c;
		size_t n;

		while (*c && *c != '/') {
			if ((unsigned char)*c < 0x20 || *c == 0x7f || *c == '%')
				return false;
			c++;
		}
		n = (size_t)(c - comp);
		if (!n || n > NAME_MAX || comp[0] == '{' ||
		    (n == 1 && comp[0] == '.') ||
		    (n == 2 && comp[0] == '.' && comp[1] == '.'))
			return false;
	}
	return true;
}

/* The file's name below the store (its identity, then the path it was
 * mapped by), into buf. */
static void store_name(char *buf, size_t len, dev_t dev, ino_t ino,
		       const uint8_t *bid, uint8_t bid_size, const char *path)
{
	size_t off = 0;

	if (!plain_path(path))
		path = "/unnamed";
	if (bid_size) {
		for (uint8_t i = 0; i < bid_size && off + 4 < len; i++)
			off += (size_t)snprintf(buf + off, len - off, "%s%02x",
						i == 1 ? "/" : "", bid[i]);
	} else {
		off = (size_t)snprintf(buf, len, "ino/%x-%x-%" PRIu64,
				       major(dev), minor(dev), (uint64_t)ino);
	}
	if (off < len)
		snprintf(buf + off, len - off, "%s", path);
}

/* The mapped file itself, or the path inside the process's root: a
 * descriptor of a regular file, or -errno. *via_map: it is the mapping's. */
static int open_in_root(struct kop_roots *r, pid_t tgid, const char *path,
			uint64_t start, uint64_t end, bool *via_map)
{
	char p[PATH_MAX];
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	int rootfd, fd;

	snprintf(p, sizeof(p), "%s/%d/map_files/%" PRIx64 "-%" PRIx64,
		 r->proc_root, (int)tgid, start, end);
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	*via_map = fd >= 0;
	if (fd < 0) {
		snprintf(p, sizeof(p), "%s/%d/root", r->proc_root, (int)tgid);
		rootfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (rootfd < 0)
			return -errno;
		fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
		if (fd < 0)
			fd = -errno;
		close(rootfd);
		if (fd < 0)
			return fd;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

static uint64_t name_cookie(struct kop_roots *r, struct kop_dcookies *dc,
			    dev_t dev, ino_t ino, const uint8_t *bid,
			    uint8_t bid_size, const char *path, char *rel,
			    size_t rel_len)
{
	char name[PATH_MAX];

	store_name(rel, rel_len, dev, ino, bid, bid_size, path);
	snprintf(name, sizeof(name), "%s/%s", r->store, rel);
	return kop_dcookie_file(dc, name, dev, ino, bid, bid_size);
}

/* k mapped e's image: recorded when its name is the store's. */
static uint64_t note_use(struct kop_roots *r, struct kop_rootent *e,
			 const struct kop_task *k)
{
	size_t n = strlen(r->store);
	const char *rel = e->rel;

	if (!rel && e->kept && !strncmp(e->kept, r->store, n) && e->kept[n] == '/')
		rel = e->kept + n + 1;
	if (rel)
		kop_cgroups_note_use(&r->cg, &e->img, rel, k);
	return e->cookie;
}

uint64_t kop_root_host_cookie(struct kop_roots *r, const struct kop_task *k,
			      dev_t dev, ino_t ino, const uint8_t *bid,
			      uint8_t bid_size)
{
	struct kop_rootent *e;

	if (!r->nr)
		return OP_NO_COOKIE;
	e = find(r, dev, ino, bid, bid_size);
	/* not a name with no file behind it: an unresolved one's, or a copy
	 * not written yet (the host's samples, and its unwinder, read the
	 * file by the name) */
	if (!e || e->rel || (e->kept && !kop_keeper_holds(r->keeper, e->kept)))
		return OP_NO_COOKIE;
	return note_use(r, e, k);
}

/* Hand fd (a regular file, st) to the keeper as rel; closes it. */
static void keep(struct kop_roots *r, int fd, const struct stat *st,
		 const char *rel)
{
	struct kop_keep_job job = {
		.fd = fd, .size = (uint64_t)st->st_size, .mtime = st->st_mtim,
	};

	if (r->keeper) {
		job.rel = strdup(rel);
		if (job.rel) {
			kop_keeper_push(r->keeper, &job);
			return;
		}
	}
	close(fd);
}

/* An image named before its file could be opened (its first mapping was
 * gone by the sync: an exec'd launcher's) met again in another process:
 * a few more tries to keep a copy under the name it has. */
static void retry_unresolved(struct kop_roots *r, struct kop_dcookies *dc,
			     struct kop_rootent *e, pid_t tgid, const char *path, uint64_t start,
			     uint64_t end, dev_t dev, ino_t ino)
{
	struct stat st;
	bool via_map;
	int fd;

	if (e->tries >= 8)
		return;
	e->tries++;
	fd = open_in_root(r, tgid, path, start, end, &via_map);
	if (fd < 0)
		return;
	if (fstat(fd, &st) ||
	    !(via_map || ((dev || ino) && st.st_dev == dev && st.st_ino == ino))) {
		close(fd);
		return;
	}
	kop_dcookie_set_mtime(dc, e->cookie, (uint64_t)st.st_mtim.tv_sec);
	keep(r, fd, &st, e->rel);
	if (asprintf(&e->kept, "%s/%s", r->store, e->rel) < 0)
		e->kept = NULL;
	free(e->rel);
	e->rel = NULL;
	atomic_fetch_sub_explicit(&r->nr_unresolved, 1, memory_order_relaxed);
}

uint64_t kop_root_cookie(struct kop_roots *r, struct kop_dcookies *dc,
			 const struct kop_task *k, const char *path,
			 uint64_t start, uint64_t end, dev_t dev, ino_t ino,
			 const uint8_t *bid, uint8_t bid_size)
{
	struct kop_rootent *e = find(r, dev, ino, bid, bid_size);
	pid_t tgid = k->tgid;
	char rel[PATH_MAX];
	struct stat st, host;
	bool via_map;
	uint64_t cookie;
	int fd;

	if (e) {
		if (e->rel)
			retry_unresolved(r, dc, e, tgid, path, start, end, dev, ino);
		return note_use(r, e, k);
	}
	fd = open_in_root(r, tgid, path, start, end, &via_map);
	if (fd >= 0 && fstat(fd, &st) == 0 &&
	    (via_map || ((dev || ino) && st.st_dev == dev && st.st_ino == ino))) {
		/* the file mapped: its identity is now known for sure */
		dev = st.st_dev;
		ino = st.st_ino;
		e = find(r, dev, ino, bid, bid_size);
		if (e) {
			if (e->rel) {
				kop_dcookie_set_mtime(dc, e->cookie,
						      (uint64_t)st.st_mtim.tv_sec);
				keep(r, fd, &st, e->rel);
				if (asprintf(&e->kept, "%s/%s", r->store, e->rel) < 0)
					e->kept = NULL;
				free(e->rel);
				e->rel = NULL;
				atomic_fetch_sub_explicit(&r->nr_unresolved, 1,
							  memory_order_relaxed);
			} else {
				close(fd);
			}
			return note_use(r, e, k);
		}
	} else {
		/* gone, or not the file mapped (moved, replaced, a link):
		 * named by what the kernel said, nothing of it read */
		if (fd >= 0)
			close(fd);
		cookie = name_cookie(r, dc, dev, ino, bid, bid_size, path, rel,
				     sizeof(rel));
		if (cookie == OP_NO_COOKIE)
			return cookie;
		if (!r->logged) {
			r->logged = true;
			op_log(r->log, OP_LOG_WARN,
			       "kmod: %s of process %d (another root) cannot be opened as it was mapped: %s; its samples are kept, its symbols may be missing (counted in images_unresolved)",
			       path, (int)tgid, fd >= 0 ? "another file is there now" :
			       strerror(-fd));
		}
		e = remember(r, cookie, dev, ino, bid, bid_size, rel);
		if (e)
			note_use(r, e, k);
		return cookie;
	}
	cookie = kop_dcookie_find(dc, dev, ino, bid, bid_size);
	if (cookie != OP_NO_COOKIE ||
	    (stat(path, &host) == 0 && host.st_dev == dev && host.st_ino == ino)) {
		/* a host process's file already (the same build, or the
		 * same file by a bind mount), or the host's own file at the
		 * same path */
		close(fd);
		if (cookie == OP_NO_COOKIE)
			cookie = kop_dcookie_file(dc, path, dev, ino, bid, bid_size);
		if (cookie != OP_NO_COOKIE)
			remember(r, cookie, dev, ino, bid, bid_size, NULL);
		return cookie;
	}
	cookie = name_cookie(r, dc, dev, ino, bid, bid_size, path, rel, sizeof(rel));
	if (cookie == OP_NO_COOKIE) {
		close(fd);
		return cookie;
	}
	kop_dcookie_set_mtime(dc, cookie, (uint64_t)st.st_mtim.tv_sec);
	e = remember(r, cookie, dev, ino, bid, bid_size, NULL);
	if (e && asprintf(&e->kept, "%s/%s", r->store, rel) < 0)
		e->kept = NULL;
	if (e)
		note_use(r, e, k);
	keep(r, fd, &st, rel);
	return cookie;
}
