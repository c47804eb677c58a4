/* The keeper: copies of the binaries that processes in other mount
 * namespaces mapped, kept in the session's store by build-id while their
 * container still holds them. A container's files vanish when it exits
 * (its overlay is unmounted), usually long before anyone runs a report;
 * the reports read the copy instead (its path is the image's name in the
 * sample files, so OProfile's own opreport finds it too).
 *
 * Its own thread, because a copy can take a while (tens of MB through
 * an overlay), and the sync thread, which finds these files, must keep
 * draining the rings meanwhile. The sync thread opens each file once,
 * through the process's root (kop_root.c), and hands the descriptor
 * over: the keeper never resolves a path a container could redirect.
 *
 * The store is bounded (max_bytes, counting what earlier sessions kept
 * there); a file that does not fit is counted, not copied. Each copy is
 * written whole or not at all: a temporary beside its name, synced, then
 * renamed over it.
 */
#include "config.h"
#include "kop_keep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_grow.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Bytes under dirfd (which it closes), no link followed, at most depth
 * levels down (the store's names are bounded by PATH_MAX). */
static uint64_t tree_bytes(int dirfd, int depth)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;
	uint64_t sum = 0;

	if (!d) {
		close(dirfd);
		return 0;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISREG(st.st_mode)) {
			sum += (uint64_t)st.st_size;
		} else if (S_ISDIR(st.st_mode) && depth > 0) {
			int fd = openat(dirfd, de->d_name,
					O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (fd >= 0)
				sum += tree_bytes(fd, depth - 1);
		}
	}
	closedir(d);
	return sum;
}

/* The directory of rel below dirfd, made as needed, each step opened
 * without following a link: *base is rel's last component. A descriptor
 * or -errno. */
static int open_parent(int dirfd, const char *rel, const char **base)
{
	char comp[NAME_MAX + 1];
	const char *p = rel, *slash;
	int fd = dup(dirfd);

	if (fd < 0)
		return -errno;
	while ((slash = strchr(p, '/'))) {
		size_t n = (size_t)(slash - p);
		int next;

		if (!n || n > NAME_MAX || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.')) {
			close(fd);
			return -EINVAL;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (mkdirat(fd, comp, 0755) && errno != EEXIST) {
			int err = -errno;

			close(fd);
			return err;
		}
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			/* a link says ENOTDIR to O_DIRECTORY: say what it is */
			struct stat st;
			int err = -errno;

			if (!fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
				err = -ELOOP;
			close(fd);
			return err;
		}
		close(fd);
		fd = next;
		p = slash + 1;
	}
	if (!*p || strlen(p) > NAME_MAX || !strcmp(p, ".") || !strcmp(p, "..")) {
		close(fd);
		return -EINVAL;
	}
	*base = p;
	return fd;
}

int kop_keep_copy(int dirfd, const char *rel, int fd, uint64_t size,
		  const struct timespec *mtime)
{
	char tmp[NAME_MAX + 1];
	const char *base = NULL;
	struct stat st;
	uint64_t done = 0;
	int pfd, out, err = 0;

	pfd = open_parent(dirfd, rel, &base);
	if (pfd < 0)
		return pfd;
	if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		close(pfd);
		return S_ISREG(st.st_mode) ? -EEXIST : S_ISLNK(st.st_mode) ? -ELOOP :
		       -ENOTDIR;
	}
	snprintf(tmp, sizeof(tmp), ".%.200s.%d.tmp", base, (int)getpid());
	out = openat(pfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		     0644);
	if (out < 0) {
		err = -errno;
		goto err_parent;
	}
	while (done < size) {
		off_t off = (off_t)done;
		ssize_t n = sendfile(out, fd, &off, size - done > (1u << 30) ?
				     (1u << 30) : (size_t)(size - done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;	/* shorter than it was */
			goto err_tmp;
		}
		done += (uint64_t)n;
	}
	if (mtime) {
		struct timespec ts[2] = { *mtime, *mtime };

		futimens(out, ts);	/* only the header check would miss it */
	}
	if (fdatasync(out) || close(out)) {
		err = -errno;
		out = -1;
		goto err_tmp;
	}
	out = -1;
	if (renameat(pfd, tmp, pfd, base)) {
		err = -errno;
		goto err_tmp;
	}
	close(pfd);
	return 0;

err_tmp:
	if (out >= 0)
		close(out);
	unlinkat(pfd, tmp, 0);
err_parent:
	close(pfd);
	return err;
}

static void job_done(struct kop_keep_job *j)
{
	close(j->fd);
	free(j->rel);
}

static void *keeper_main(void *arg)
{
	struct kop_keeper *k = arg;

	pthread_mutex_lock(&k->lock);
	for (;;) {
		struct kop_keep_job j;
		bool fits;
		uint64_t t0;
		int err;

		while (!k->nr && !k->stop)
			pthread_cond_wait(&k->cond, &k->lock);
		if (!k->nr)
			break;
		j = k->jobs[k->head];
		k->head = (k->head + 1) % k->cap;
		k->nr--;
		fits = k->used + j.size <= k->max_bytes;
		if (fits)
			k->used += j.size;	/* taken before the copy: a
						 * failure gives it back */
		pthread_mutex_unlock(&k->lock);

		t0 = now_ns();
		err = fits ? kop_keep_copy(k->store.fd, j.rel, j.fd, j.size, &j.mtime) :
			     -ENOSPC;
		/* a copy kept by an earlier session costs nothing */
		if (err == -ENOSPC && !fits && kop_keeper_holds(k, j.rel))
			err = -EEXIST;
		if (err == -ELOOP) {
			char why[PATH_MAX + 128];

			op_log(k->log, OP_LOG_WARN,
			       "keep: %s; %s not kept, counted in images_not_kept",
			       op_sd_explain(&k->store, j.rel, err, why, sizeof(why)),
			       j.rel);
		} else if (err && err != -EEXIST && err != -ENOSPC) {
			op_log(k->log, OP_LOG_WARN,
			       "keep: cannot keep a copy of %s in %s: %s; counted in images_not_kept",
			       j.rel, k->dir, strerror(-err));
		}
		job_done(&j);

		pthread_mutex_lock(&k->lock);
		k->counts.busy_ns += now_ns() - t0;
		if (fits && err)
			k->used -= j.size;
		if (!err) {
			k->counts.nr_kept++;
			k->counts.bytes += j.size;
		} else if (err == -EEXIST) {
			k->counts.nr_kept++;
		} else if (err == -ENOSPC) {
			if (!k->counts.nr_no_space)
				op_log(k->log, OP_LOG_WARN,
				       "keep: the store %s is full (%" PRIu64 " of %" PRIu64 " bytes): binaries from other mount namespaces are not kept; counted in images_not_kept_no_space",
				       k->dir, k->used, k->max_bytes);
			k->counts.nr_no_space++;
		} else {
			k->counts.nr_failed++;
		}
	}
	pthread_mutex_unlock(&k->lock);
	return NULL;
}

/* The store beneath sd, made as needed; -ELOOP for a link on the way. */
static int store_open(struct kop_keeper *k, const struct op_sessdir *sd,
		      const char *dir, char *why, size_t whylen)
{
	int err;

	if (!sd) {
		err = op_sd_mkdirs(NULL, dir, 0755);
		if (err)
			snprintf(why, whylen, "%s", strerror(-err));
		return err ? err : op_sessdir_open(&k->store, dir, OP_SD_READ, why, whylen);
	}
	err = op_sd_mkdirs(sd, dir, 0755);
	if (!err)
		err = op_sessdir_sub(sd, dir, &k->store);
	if (err)
		op_sd_explain(sd, dir, err, why, whylen);
	return err;
}

int kop_keeper_start(struct kop_keeper *k, const struct op_sessdir *sd,
		     const char *dir, uint64_t max_bytes,
		     const struct op_logger *log)
{
	char why[PATH_MAX + 128];
	int err, fd;

	memset(k, 0, sizeof(*k));
	k->store.fd = -1;
	k->log = log;
	k->max_bytes = max_bytes;
	k->dir = strdup(dir);
	if (!k->dir)
		return -ENOMEM;
	err = store_open(k, sd, dir, why, sizeof(why));
	if (err == -ELOOP) {
		/* someone's link: nothing kept, the session goes on */
		op_log(log, OP_LOG_WARN,
		       "keep: %s; binaries from other roots (containers) are not kept: counted in images_not_kept",
		       why);
		pthread_mutex_init(&k->lock, NULL);
		pthread_cond_init(&k->cond, NULL);
		return 0;
	}
	if (err) {
		op_log(log, OP_LOG_ERR, "keep: cannot make the store %s: %s",
		       dir, err == -ENOMEM ? strerror(-err) : why);
		goto err_dir;
	}
	fd = dup(k->store.fd);
	if (fd >= 0)
		k->used = tree_bytes(fd, 64);
	k->cap = KOP_KEEP_QUEUE;
	k->jobs = calloc(k->cap, sizeof(*k->jobs));
	if (!k->jobs) {
		err = -ENOMEM;
		goto err_dir;
	}
	pthread_mutex_init(&k->lock, NULL);
	pthread_cond_init(&k->cond, NULL);
	err = -pthread_create(&k->thread, NULL, keeper_main, k);
	if (err) {
		pthread_mutex_destroy(&k->lock);
		pthread_cond_destroy(&k->cond);
		goto err_jobs;
	}
	k->running = true;
	return 0;

err_jobs:
	free(k->jobs);
	k->jobs = NULL;
err_dir:
	op_sessdir_close(&k->store);
	free(k->dir);
	k->dir = NULL;
	return err;
}

void kop_keeper_push(struct kop_keeper *k, struct kop_keep_job *job)
{
	pthread_mutex_lock(&k->lock);
	if (k->store.fd < 0) {
		/* refused at start, and said then */
		k->counts.nr_failed++;
		pthread_mutex_unlock(&k->lock);
		job_done(job);
		return;
	}
	if (k->running && !k->stop && k->nr < k->cap) {
		k->jobs[(k->head + k->nr) % k->cap] = *job;
		k->nr++;
		pthread_cond_signal(&k->cond);
		pthread_mutex_unlock(&k->lock);
		return;
	}
	k->counts.nr_failed++;
	pthread_mutex_unlock(&k->lock);
	op_log(k->log, OP_LOG_WARN,
	       "keep: %s not kept: %d copies are waiting already; counted in images_not_kept",
	       job->rel, KOP_KEEP_QUEUE);
	job_done(job);
}

void kop_keeper_stop(struct kop_keeper *k)
{
	if (!k->running)
		return;
	pthread_mutex_lock(&k->lock);
	k->stop = true;
	pthread_cond_signal(&k->cond);
	pthread_mutex_unlock(&k->lock);
	pthread_join(k->thread, NULL);
	k->running = false;
}

void kop_keeper_release(struct kop_keeper *k)
{
	if (!k->dir)
		return;
	kop_keeper_stop(k);
	for (size_t i = 0; i < k->nr; i++)
		job_done(&k->jobs[(k->head + i) % k->cap]);
	free(k->jobs);
	op_sessdir_close(&k->store);
	free(k->dir);
	pthread_mutex_destroy(&k->lock);
	pthread_cond_destroy(&k->cond);
	memset(k, 0, sizeof(*k));
	k->store.fd = -1;
}

void kop_keeper_counts(struct kop_keeper *k, struct kop_keep_counts *c)
{
	memset(c, 0, sizeof(*c));
	if (!k->dir)
		return;
	pthread_mutex_lock(&k->lock);
	*c = k->counts;
	pthread_mutex_unlock(&k->lock);
}

bool kop_keeper_holds(const struct kop_keeper *k, const char *path)
{
	struct stat st;

	return k && k->store.fd >= 0 && !op_sd_stat(&k->store, path, &st) &&
	       S_ISREG(st.st_mode);
}
