/* The few file-system walks the programs share: creating a session's
 * directories and removing a session's files, never following a symlink
 * out of it. */
#include "config.h"
#include "opd_fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int opd_mkdir_p(const char *path)
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
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return -errno;
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

int opd_rm_dir_contents(int fd)
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
		ret = opd_rm_rf_at(dirfd(d), de->d_name);
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

int opd_rm_rf_at(int dirfd, const char *name)
{
	struct stat st;
	int fd, ret;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0) && errno != ENOENT ? -errno : 0;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = opd_rm_dir_contents(fd);
	if (ret)
		return ret;
	return unlinkat(dirfd, name, AT_REMOVEDIR) && errno != ENOENT ? -errno : 0;
}

