#include "config.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

char *tu_mkdtemp(void)
{
	const char *tmp = getenv("TMPDIR");
	char *path;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (asprintf(&path, "%s/opsampler-test.XXXXXX", tmp) < 0)
		return NULL;
	if (!mkdtemp(path)) {
		int err = errno;

		free(path);
		errno = err;
		return NULL;
	}
	return path;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path) ? -errno : 0;
}

int tu_rm_rf(const char *path)
{
	int ret = nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);

	return ret < 0 ? -errno : ret;
}

int tu_write_file(const char *path, const void *data, size_t len)
{
	const char *p = data;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			int err = errno;

			close(fd);
			return -err;
		}
		p += n;
		len -= (size_t)n;
	}
	return close(fd) ? -errno : 0;
}

char *tu_path(const char *dir, const char *name)
{
	char *path;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return NULL;
	return path;
}

/* $var/dir/name, or fallback/dir/name where var is unset. */
static char *top_path(const char *var, const char *fallback, const char *dir,
		      const char *name)
{
	const char *top = getenv(var);
	char *path;

	if (asprintf(&path, "%s/%s/%s", top ? top : fallback, dir, name) < 0)
		return NULL;
	return path;
}

char *tu_builddir_path(const char *dir, const char *name)
{
	return top_path("top_builddir", "..", dir, name);
}

char *tu_srcdir_path(const char *dir, const char *name)
{
	return top_path("top_srcdir", "../..", dir, name);
}

int tu_require_perf(void)
{
	const char *v = getenv("OPSAMPLER_REQUIRE_PERF");

	return v && strcmp(v, "0") != 0 && *v;
}

int tu_lock_system_wide(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/opsampler-system-wide.lock",
		 tmp && *tmp ? tmp : "/tmp");
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	if (fd < 0)
		return -errno;
	/* the shell tests wait 1200 s for it; so does this one (SIGALRM
	 * ends it then: a test that waited that long has failed) */
	alarm(1200);
	while (flock(fd, LOCK_EX)) {
		if (errno != EINTR) {
			int err = -errno;

			close(fd);
			alarm(0);
			return err;
		}
	}
	alarm(0);
	return 0;	/* fd stays open: the lock lasts as long as we do */
}

void tu_said_fn(void *ctx, enum op_log_level level, const char *msg)
{
	struct tu_said *w = ctx;
	size_t len = strlen(w->text);

	(void)level;
	snprintf(w->text + len, sizeof(w->text) - len, "%s\n", msg);
	w->nr++;
}

int tu_said_link(const struct tu_said *said, const char *path)
{
	char *want;
	int found;

	if (asprintf(&want, "%s is a symbolic link: refused, not followed", path) < 0)
		return 0;
	found = strstr(said->text, want) != NULL;
	free(want);
	return found;
}
