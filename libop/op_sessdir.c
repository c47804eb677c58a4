/* Every path under a session directory, opened without following a link
 * (op_sessdir.h says why). */
#include "config.h"
#include "op_sessdir.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

/* deep enough for any sample-file name (op_names.c bounds them), shallow
 * enough that a planted tree cannot exhaust the stack or the descriptors */
#define SD_MAX_DEPTH 128

/* Where a path's last component lives: a directory descriptor (owned
 * when own) and the name in it. */
struct where {
	int dirfd;
	bool own;
	const char *leaf;
	char buf[PATH_MAX];
};

static void where_done(struct where *w)
{
	if (w->own)
		close(w->dirfd);
	w->own = false;
}

static bool is_dotdot(const char *s, size_t n)
{
	return n == 2 && s[0] == '.' && s[1] == '.';
}

/* a ".." anywhere in rel: refused before anything is looked up */
static bool climbs(const char *rel)
{
	for (const char *p = rel; *p; ) {
		const char *end = strchrnul(p, '/');

		if (is_dotdot(p, (size_t)(end - p)))
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

const char *op_sd_rel(const struct op_sessdir *sd, const char *path)
{
	if (path[0] != '/')
		return *path ? path : ".";
	if (strncmp(path, sd->path, sd->len))
		return NULL;
	/* sd->path "/" (len 1) is a prefix of every absolute path */
	if (sd->len == 1)
		return path[1] ? path + 1 : ".";
	if (path[sd->len] == '\0')
		return ".";
	if (path[sd->len] != '/')
		return NULL;
	path += sd->len;
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

int op_sd_comp(const char *p, const char **end, char *comp)
{
	size_t n;

	*end = strchrnul(p, '/');
	n = (size_t)(*end - p);
	if (n > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(comp, p, n);
	comp[n] = '\0';
	return (int)n;
}

/* A directory beneath sd, one openat() a component, none followed. */
static int walk_dir(const struct op_sessdir *sd, const char *rel)
{
	int cur = sd->fd, err;
	const char *end;

	for (const char *p = rel; *p; p = *end ? end + 1 : end) {
		char comp[NAME_MAX + 1];
		int fd, n = op_sd_comp(p, &end, comp);
		struct stat st;

		if (n < 0) {
			err = n;
			goto err_cur;
		}
		if (n == 0 || !strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			err = -EXDEV;
			goto err_cur;
		}
		fd = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			if (!fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
				err = -ELOOP;
			goto err_cur;
		}
		/* O_PATH | O_NOFOLLOW may hand back the link itself */
		if (fstat(fd, &st) || !S_ISDIR(st.st_mode)) {
			err = S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
			close(fd);
			goto err_cur;
		}
		if (cur != sd->fd)
			close(cur);
		cur = fd;
	}
	return cur == sd->fd ? fcntl(cur, F_DUPFD_CLOEXEC, 0) : cur;

err_cur:
	if (cur != sd->fd)
		close(cur);
	return err;
}

/* A directory beneath sd: a new O_PATH descriptor, or -errno (-ELOOP: a
 * link on the way; -EXDEV: the path climbs out). */
static int resolve_dir(const struct op_sessdir *sd, const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	int tries;

	if (sd->walk)
		return walk_dir(sd, rel);
	for (tries = 0; tries < 8; tries++) {
		long fd = syscall(SYS_openat2, sd->fd, rel, &how, sizeof(how));

		if (fd >= 0)
			return (int)fd;
		/* EAGAIN: a rename raced the lookup; ENOSYS, EPERM (a seccomp
		 * filter), E2BIG: no usable openat2, walk instead */
		if (errno == EAGAIN)
			continue;
		if (errno == ENOSYS || errno == EPERM || errno == E2BIG)
			return walk_dir(sd, rel);
		return -errno;
	}
	return -EAGAIN;
}

static int locate(const struct op_sessdir *sd, const char *path, struct where *w)
{
	const char *rel = sd ? op_sd_rel(sd, path) : path;
	size_t len;
	char *slash;

	w->own = false;
	w->dirfd = sd ? sd->fd : AT_FDCWD;
	if (!rel || (sd && climbs(rel)))
		return -EXDEV;
	if (sd && sd->fd < 0)
		return -ENOENT;		/* a session directory that is not there */
	len = strlen(rel);
	if (!len)
		return -ENOENT;
	if (len >= sizeof(w->buf))
		return -ENAMETOOLONG;
	memcpy(w->buf, rel, len + 1);
	while (len > 1 && w->buf[len - 1] == '/')
		w->buf[--len] = '\0';
	slash = strrchr(w->buf, '/');
	w->leaf = slash ? slash + 1 : w->buf;
	if (!slash)
		return 0;
	if (slash == w->buf) {		/* sd NULL, "/name" */
		w->dirfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	} else {
		*slash = '\0';
		w->dirfd = sd ? resolve_dir(sd, w->buf)
			      : open(w->buf, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (w->dirfd < 0)
		return sd ? w->dirfd : -errno;
	w->own = true;
	return 0;
}

/* w's leaf as it is, not followed: 0 with *st, -ELOOP for a link, or
 * -errno */
static int leaf_stat(const struct where *w, struct stat *st)
{
	if (fstatat(w->dirfd, w->leaf, st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	return S_ISLNK(st->st_mode) ? -ELOOP : 0;
}

static bool leaf_is_link(int dirfd, const char *leaf)
{
	struct stat st;

	return !fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode);
}

int op_sd_open(const struct op_sessdir *sd, const char *path, int flags, mode_t mode)
{
	struct where w;
	int fd, ret;

	if (flags & O_PATH)
		return -EINVAL;
	ret = locate(sd, path, &w);
	if (ret)
		return ret;
	fd = openat(w.dirfd, w.leaf, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode);
	if (fd < 0) {
		fd = -errno;
		if (fd == -ENOTDIR && leaf_is_link(w.dirfd, w.leaf))
			fd = -ELOOP;
	}
	where_done(&w);
	return fd;
}

FILE *op_sd_fopen(const struct op_sessdir *sd, const char *path, const char *mode)
{
	bool plus = strchr(mode, '+') != NULL;
	int flags, fd;
	FILE *f;

	switch (mode[0]) {
	case 'r':
		flags = plus ? O_RDWR : O_RDONLY;
		break;
	case 'w':
		flags = (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC;
		break;
	case 'a':
		flags = (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND;
		break;
	default:
		errno = EINVAL;
		return NULL;
	}
	fd = op_sd_open(sd, path, flags, 0644);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, mode[0] == 'r' ? (plus ? "r+" : "r") :
		       mode[0] == 'w' ? (plus ? "w+" : "w") : (plus ? "a+" : "a"));
	if (!f) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

DIR *op_sd_opendir(const struct op_sessdir *sd, const char *path)
{
	int fd = op_sd_open(sd, path, O_RDONLY | O_DIRECTORY, 0);
	DIR *d;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	d = fdopendir(fd);
	if (!d) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return d;
}

int op_sd_stat(const struct op_sessdir *sd, const char *path, struct stat *st)
{
	struct where w;
	int ret = locate(sd, path, &w);

	if (ret)
		return ret;
	ret = fstatat(w.dirfd, w.leaf, st, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
	where_done(&w);
	return ret;
}

/* mkdir -p of a plain path (sd NULL): the user's own, followed */
static int mkdirs_plain(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(buf, mode) < 0 && errno != EEXIST)
				return -errno;
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

int op_sd_mkdirs(const struct op_sessdir *sd, const char *path, mode_t mode)
{
	const char *rel, *p, *end;
	int cur;

	if (!sd)
		return mkdirs_plain(path, mode);
	rel = op_sd_rel(sd, path);
	if (!rel || climbs(rel))
		return -EXDEV;
	if (sd->fd < 0)
		return -ENOENT;
	cur = sd->fd;
	for (p = rel; *p; p = *end ? end + 1 : end) {
		char comp[NAME_MAX + 1];
		struct stat st;
		int fd, err = op_sd_comp(p, &end, comp);

		if (err == 0 || (err > 0 && !strcmp(comp, ".")))
			continue;
		if (err > 0 && !strcmp(comp, ".."))
			err = -EXDEV;
		if (err < 0)
			goto err_cur;
		if (mkdirat(cur, comp, mode) && errno != EEXIST) {
			err = -errno;
			goto err_cur;
		}
		fd = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) || !S_ISDIR(st.st_mode)) {
			err = leaf_is_link(cur, comp) ? -ELOOP : -ENOTDIR;
			if (fd >= 0)
				close(fd);
			goto err_cur;
		}
		if (cur != sd->fd)
			close(cur);
		cur = fd;
		continue;
err_cur:
		if (cur != sd->fd)
			close(cur);
		return err;
	}
	if (cur != sd->fd)
		close(cur);
	return 0;
}

int op_sd_mkparents(const struct op_sessdir *sd, const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash)
		return 0;
	n = (size_t)(slash - path);
	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	if (!n)
		return 0;
	memcpy(buf, path, n);
	buf[n] = '\0';
	return op_sd_mkdirs(sd, buf, mode);
}

int op_sd_rename(const struct op_sessdir *sd, const char *from, const char *to,
		 unsigned int flags)
{
	struct where a, b;
	int ret = locate(sd, from, &a);

	if (ret)
		return ret;
	ret = locate(sd, to, &b);
	if (ret)
		goto out_a;
	if (leaf_is_link(a.dirfd, a.leaf) || leaf_is_link(b.dirfd, b.leaf))
		ret = -ELOOP;
	else if (renameat2(a.dirfd, a.leaf, b.dirfd, b.leaf, flags))
		ret = -errno;
	where_done(&b);
out_a:
	where_done(&a);
	return ret;
}

int op_sd_link(const struct op_sessdir *sd, const char *from, const char *to)
{
	struct where a, b;
	int ret = locate(sd, from, &a);

	if (ret)
		return ret;
	ret = locate(sd, to, &b);
	if (!ret) {
		ret = linkat(a.dirfd, a.leaf, b.dirfd, b.leaf, 0) ? -errno : 0;
		where_done(&b);
	}
	where_done(&a);
	return ret;
}

int op_sd_unlink(const struct op_sessdir *sd, const char *path)
{
	struct where w;
	struct stat st;
	int ret = locate(sd, path, &w);

	if (ret)
		return ret;
	ret = leaf_stat(&w, &st);
	if (!ret && S_ISDIR(st.st_mode))
		ret = -EISDIR;
	else if (!ret && unlinkat(w.dirfd, w.leaf, 0))
		ret = -errno;
	where_done(&w);
	return ret;
}

struct rm {
	char *refused;
	size_t refusedlen;
	bool looped;
	char rel[PATH_MAX];
};

static int rm_at(struct rm *r, int dirfd, const char *name, size_t rellen, int depth);

/* Remove what the directory fd holds; fd is consumed. r->rel[0..rellen)
 * names it. */
static int rm_contents(struct rm *r, int fd, size_t rellen, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ret = rm_at(r, dirfd(d), de->d_name, rellen, depth + 1);
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

/* a link met in the tree: left where it is, the first one named */
static int rm_refuse(struct rm *r)
{
	if (!r->looped && r->refused)
		snprintf(r->refused, r->refusedlen, "%s", r->rel);
	r->looped = true;
	return 0;
}

static int rm_at(struct rm *r, int dirfd, const char *name, size_t rellen, int depth)
{
	size_t n = strlen(name);
	struct stat st;
	int fd, ret;

	if (rellen + n + 2 > sizeof(r->rel))
		return -ENAMETOOLONG;
	if (rellen)
		r->rel[rellen++] = '/';
	memcpy(r->rel + rellen, name, n + 1);
	rellen += n;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode))
		return rm_refuse(r);
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0) && errno != ENOENT ? -errno : 0;
	if (depth > SD_MAX_DEPTH)
		return -ENAMETOOLONG;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? rm_refuse(r) : -errno;
	ret = rm_contents(r, fd, rellen, depth);
	if (ret)
		return ret;
	if (unlinkat(dirfd, name, AT_REMOVEDIR) && errno != ENOENT)
		return errno == ENOTEMPTY && r->looped ? 0 : -errno;
	return 0;
}

static int rm_start(const struct op_sessdir *sd, const char *path, bool self,
		    char *refused, size_t refusedlen)
{
	struct rm r = { .refused = refused, .refusedlen = refusedlen };
	const char *rel = sd ? op_sd_rel(sd, path) : path;
	struct where w;
	size_t len;
	int fd, ret;

	if (refused && refusedlen)
		refused[0] = '\0';
	if (!rel)
		return -EXDEV;
	if (self && !strcmp(rel, "."))
		return -EINVAL;
	ret = locate(sd, path, &w);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	/* r.rel: the path relative to sd, less its last component, which
	 * rm_at() appends */
	len = (size_t)(w.leaf - w.buf);
	len = len ? len - 1 : 0;
	memcpy(r.rel, rel, len);
	r.rel[len] = '\0';
	if (self) {
		ret = rm_at(&r, w.dirfd, w.leaf, len, 0);
	} else {
		fd = openat(w.dirfd, w.leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			if (leaf_is_link(w.dirfd, w.leaf)) {
				ret = -ELOOP;
				if (refused)
					snprintf(refused, refusedlen, "%s", rel);
			}
		} else {
			ret = rm_contents(&r, fd, strlen(strcpy(r.rel, rel)), 0);
		}
	}
	where_done(&w);
	if (!ret && r.looped)
		ret = -ELOOP;
	return ret;
}

int op_sd_remove_tree(const struct op_sessdir *sd, const char *path,
		      char *refused, size_t refusedlen)
{
	return rm_start(sd, path, true, refused, refusedlen);
}

int op_sd_empty_dir(const struct op_sessdir *sd, const char *path,
		    char *refused, size_t refusedlen)
{
	return rm_start(sd, path, false, refused, refusedlen);
}

int op_sd_tmp(const struct op_sessdir *sd, const char *path, const char *tag,
	      char **tmp)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) + 1 : 0;
	struct where w;
	int fd = -EEXIST, ret, tries;

	*tmp = NULL;
	ret = locate(sd, path, &w);
	if (ret)
		return ret;
	for (tries = 0; tries < 100 && fd == -EEXIST; tries++) {
		unsigned char r[6];
		char *name;

		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
			fd = -EIO;
			break;
		}
		free(*tmp);
		if (asprintf(tmp, "%.*s.%s.XXXXXX", dirlen, path,
			     tag ? tag : path + dirlen) < 0) {
			*tmp = NULL;
			fd = -ENOMEM;
			break;
		}
		name = *tmp + strlen(*tmp) - 6;
		for (int i = 0; i < 6; i++)
			name[i] = chars[r[i] % (sizeof(chars) - 1)];
		fd = openat(w.dirfd, strrchr(*tmp, '/') ? strrchr(*tmp, '/') + 1 : *tmp,
			    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			fd = -errno;
	}
	where_done(&w);
	if (fd < 0) {
		free(*tmp);
		*tmp = NULL;
	}
	return fd;
}

static int sock_addr(const struct where *w, struct sockaddr_un *a)
{
	int n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (w->dirfd == AT_FDCWD)
		n = snprintf(a->sun_path, sizeof(a->sun_path), "%s", w->leaf);
	else
		n = snprintf(a->sun_path, sizeof(a->sun_path), "/proc/self/fd/%d/%s",
			     w->dirfd, w->leaf);
	return n < 0 || (size_t)n >= sizeof(a->sun_path) ? -ENAMETOOLONG : 0;
}

int op_sd_bind(const struct op_sessdir *sd, const char *path, int sock)
{
	struct sockaddr_un a;
	struct where w;
	int ret = locate(sd, path, &w);

	if (ret)
		return ret;
	if (leaf_is_link(w.dirfd, w.leaf))
		ret = -ELOOP;
	if (!ret)
		ret = sock_addr(&w, &a);
	if (!ret && bind(sock, (struct sockaddr *)&a, sizeof(a)))
		ret = -errno;
	where_done(&w);
	return ret;
}

int op_sd_connect(const struct op_sessdir *sd, const char *path, int sock)
{
	struct sockaddr_un a;
	struct stat st;
	struct where w;
	int ret = locate(sd, path, &w);

	if (ret)
		return ret;
	ret = leaf_stat(&w, &st);
	if (!ret && !S_ISSOCK(st.st_mode))
		ret = -ENOTSOCK;
	if (!ret)
		ret = sock_addr(&w, &a);
	if (!ret && connect(sock, (struct sockaddr *)&a, sizeof(a)))
		ret = -errno;
	where_done(&w);
	return ret;
}
