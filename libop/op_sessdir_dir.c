/* A session directory itself: opened, checked as a writer's, and the
 * words for what was refused (op_sessdir.h). */
#include "config.h"
#include "op_sessdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the display form of rel under sd */
static void show(const struct op_sessdir *sd, const char *rel, size_t n,
		 char *buf, size_t len)
{
	if (!sd)
		snprintf(buf, len, "%.*s", (int)n, rel);
	else if (!n || (n == 1 && rel[0] == '.'))
		snprintf(buf, len, "%s", sd->path);
	else
		snprintf(buf, len, "%s%s%.*s", sd->path,
			 sd->len == 1 ? "" : "/", (int)n, rel);
}

const char *op_sd_explain(const struct op_sessdir *sd, const char *path, int err,
			  char *buf, size_t len)
{
	const char *rel = sd ? op_sd_rel(sd, path) : path;
	char shown[PATH_MAX + 64];

	if (!rel || err == -EXDEV) {
		snprintf(buf, len, "%s: outside the session directory %s: refused",
			 path, sd ? sd->path : ".");
		return buf;
	}
	if (err == -ELOOP) {
		/* find the first link, one component at a time */
		int cur = sd ? sd->fd : AT_FDCWD;
		const char *p = rel, *end;

		while (*p) {
			char comp[NAME_MAX + 1];
			struct stat st;
			int fd;

			if (op_sd_comp(p, &end, comp) <= 0)
				break;
			if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW))
				break;
			if (S_ISLNK(st.st_mode)) {
				show(sd, rel, (size_t)(end - rel), shown, sizeof(shown));
				snprintf(buf, len, "%s is a symbolic link: refused, not followed",
					 shown);
				if (sd && cur != sd->fd)
					close(cur);
				else if (!sd && cur != AT_FDCWD)
					close(cur);
				return buf;
			}
			if (!*end)
				break;
			fd = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if ((sd && cur != sd->fd) || (!sd && cur != AT_FDCWD))
				close(cur);
			cur = fd;
			if (fd < 0)
				break;
			p = end + 1;
		}
		if (cur >= 0 && ((sd && cur != sd->fd) || (!sd && cur != AT_FDCWD)))
			close(cur);
		show(sd, rel, strlen(rel), shown, sizeof(shown));
		snprintf(buf, len, "%s: a symbolic link on the way: refused, not followed",
			 shown);
		return buf;
	}
	snprintf(buf, len, "%s", strerror(-err));
	return buf;
}

/* ---- opening and checking the directory itself ---- */

static int fail(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

/* dirname in place: "/a/b" -> "/a", "/a" -> "/" */
static void up(char *name)
{
	char *slash = strrchr(name, '/');

	if (!slash)
		strcpy(name, ".");
	else if (slash == name)
		name[1] = '\0';
	else
		*slash = '\0';
}

/* A directory above a session (name, st): owned by root or by me, and
 * writable by nobody else unless sticky, as /tmp is: there nobody else
 * can rename what is ours. */
static int check_parent(const struct stat *st, const char *name, const char *path,
			char *err, size_t errlen)
{
	uid_t me = geteuid();

	if (st->st_uid != 0 && st->st_uid != me)
		return fail(err, errlen, -EPERM,
			    "%s (a parent of %s): owned by uid %u, neither root nor uid %u who runs this",
			    name, path, (unsigned)st->st_uid, (unsigned)me);
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return fail(err, errlen, -EPERM,
			    "%s (a parent of %s): writable by group or others and not sticky (mode %04o)",
			    name, path, (unsigned)(st->st_mode & 07777));
	return 0;
}

/* The parents of the directory fd (st, whose real path is name: changed
 * in place), up to "/", through "..": the real ones, whatever path said. */
static int check_parents(int fd, struct stat st, char *name, const char *path,
			 char *err, size_t errlen)
{
	struct stat pst;
	int cur = fd, parent, ret;

	for (;;) {
		parent = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (cur != fd)
			close(cur);
		if (parent < 0)
			return fail(err, errlen, -errno, "%s: cannot open its parent: %s",
				    path, strerror(errno));
		if (fstat(parent, &pst)) {
			ret = -errno;
			close(parent);
			return fail(err, errlen, ret, "%s: %s", path, strerror(-ret));
		}
		if (pst.st_dev == st.st_dev && pst.st_ino == st.st_ino)
			break;		/* "/" is its own parent */
		up(name);
		ret = check_parent(&pst, name, path, err, errlen);
		if (ret) {
			close(parent);
			return ret;
		}
		st = pst;
		cur = parent;
	}
	close(parent);
	return 0;
}

/* realpath of path, or path, into name */
static void real_name(const char *path, char *name, size_t len)
{
	char *real = realpath(path, NULL);

	snprintf(name, len, "%s", real ? real : path);
	free(real);
}

/* The check of OP_SD_WRITE alone, on an open directory fd named path:
 * 0 or -EPERM with the reason in err. */
static int op_sessdir_check(int fd, const char *path, char *err, size_t errlen)
{
	uid_t me = geteuid();
	char name[PATH_MAX];
	struct stat st;

	if (fstat(fd, &st))
		return fail(err, errlen, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail(err, errlen, -ENOTDIR, "%s: not a directory", path);
	if (st.st_uid != me)
		return fail(err, errlen, -EPERM,
			    "%s: owned by uid %u, not by uid %u who runs this",
			    path, (unsigned)st.st_uid, (unsigned)me);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return fail(err, errlen, -EPERM,
			    "%s: writable by group or others (mode %04o)",
			    path, (unsigned)(st.st_mode & 07777));
	real_name(path, name, sizeof(name));
	return check_parents(fd, st, name, path, err, errlen);
}

/* Before path is created: its nearest existing ancestor, and that one's
 * parents, must be safe parents, so that nothing is made where another
 * user could move it. */
static int check_before_create(const char *path, char *err, size_t errlen)
{
	char anc[PATH_MAX], name[PATH_MAX];
	struct stat st;
	int fd, ret;

	snprintf(anc, sizeof(anc), "%s", path);
	while (lstat(anc, &st) && errno == ENOENT && strcmp(anc, "/") && strcmp(anc, "."))
		up(anc);
	fd = open(anc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, -errno, "cannot create %s: %s: %s", path, anc,
			    strerror(errno));
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return fail(err, errlen, ret, "%s: %s", anc, strerror(-ret));
	}
	real_name(anc, name, sizeof(name));
	ret = check_parent(&st, name, path, err, errlen);
	if (!ret)
		ret = check_parents(fd, st, name, path, err, errlen);
	close(fd);
	return ret;
}

int op_sessdir_open(struct op_sessdir *sd, const char *path, unsigned int flags,
		    char *err, size_t errlen)
{
	bool writer = flags & OP_SD_WRITE;
	size_t len = strlen(path);
	struct stat st;
	int ret;

	memset(sd, 0, sizeof(*sd));
	sd->fd = -1;
	sd->walk = flags & OP_SD_WALK;
	if (!len)
		return fail(err, errlen, -EINVAL, "empty session directory name");
	if (len >= sizeof(sd->path))
		return fail(err, errlen, -ENAMETOOLONG, "%.64s...: name too long", path);
	memcpy(sd->path, path, len + 1);
	while (len > 1 && sd->path[len - 1] == '/')
		sd->path[--len] = '\0';
	sd->len = len;
	if (writer && (flags & OP_SD_CREATE) && lstat(sd->path, &st) && errno == ENOENT) {
		ret = check_before_create(sd->path, err, errlen);
		if (ret)
			return ret;
		ret = op_sd_mkdirs(NULL, sd->path, 0755);
		if (ret)
			return fail(err, errlen, ret, "cannot create %s: %s",
				    sd->path, strerror(-ret));
	}
	sd->fd = open(sd->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
		      (writer ? O_NOFOLLOW : 0));
	if (sd->fd < 0) {
		ret = -errno;
		if (writer && !lstat(sd->path, &st) && S_ISLNK(st.st_mode))
			return fail(err, errlen, -ELOOP,
				    "%s is a symbolic link: refused, not followed",
				    sd->path);
		return fail(err, errlen, ret, "cannot open %s: %s", sd->path,
			    strerror(-ret));
	}
	if (writer) {
		ret = op_sessdir_check(sd->fd, sd->path, err, errlen);
		if (ret) {
			op_sessdir_close(sd);
			return ret;
		}
	}
	return 0;
}

int op_sessdir_sub(const struct op_sessdir *sd, const char *path,
		   struct op_sessdir *sub)
{
	const char *rel = op_sd_rel(sd, path);
	int fd, n;

	memset(sub, 0, sizeof(*sub));
	sub->fd = -1;
	if (!rel)
		return -EXDEV;
	n = !strcmp(rel, ".") ? snprintf(sub->path, sizeof(sub->path), "%s", sd->path)
	    : snprintf(sub->path, sizeof(sub->path), "%s%s%s", sd->path,
		       sd->len == 1 ? "" : "/", rel);
	if (n < 0 || (size_t)n >= sizeof(sub->path))
		return -ENAMETOOLONG;
	fd = op_sd_open(sd, rel, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	sub->fd = fd;
	sub->walk = sd->walk;
	sub->len = (size_t)n;
	while (sub->len > 1 && sub->path[sub->len - 1] == '/')
		sub->path[--sub->len] = '\0';
	return 0;
}

void op_sessdir_close(struct op_sessdir *sd)
{
	if (sd->fd >= 0)
		close(sd->fd);
	sd->fd = -1;
}
