/* Files read and written whole (op_afile.h). */
#include "config.h"
#include "op_afile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_grow.h"

static void release(struct op_afile *a)
{
	free(a->path);
	free(a->tmp);
	memset(a, 0, sizeof(*a));
}

int op_tmp_beside(const struct op_sessdir *sd, const char *path, const char *tag,
		  char **tmp)
{
	return op_sd_tmp(sd, path, tag, tmp);
}

int op_afile_open(struct op_afile *a, const struct op_sessdir *sd, const char *path)
{
	int fd, ret;

	memset(a, 0, sizeof(*a));
	a->sd = sd;
	a->path = strdup(path);
	if (!a->path) {
		release(a);
		return -ENOMEM;
	}
	fd = op_tmp_beside(sd, path, NULL, &a->tmp);
	if (fd < 0) {
		release(a);
		return fd;
	}
	a->f = fdopen(fd, "w");
	if (!a->f) {
		ret = -errno;
		close(fd);
		op_sd_unlink(a->sd, a->tmp);
		release(a);
		return ret;
	}
	return 0;
}

int op_afile_commit(struct op_afile *a, bool sync)
{
	int ret = 0;

	if (fflush(a->f) || ferror(a->f))
		ret = -(errno ? errno : EIO);
	if (!ret && sync && fsync(fileno(a->f)))
		ret = -errno;
	/* mkstemp made it 0600; the files a session keeps are readable */
	if (!ret && fchmod(fileno(a->f), 0644))
		ret = -errno;
	if (fclose(a->f) && !ret)
		ret = -errno;
	if (!ret)
		ret = op_sd_rename(a->sd, a->tmp, a->path, 0);
	if (ret)
		op_sd_unlink(a->sd, a->tmp);
	release(a);
	return ret;
}

void op_afile_abort(struct op_afile *a)
{
	if (a->f) {
		fclose(a->f);
		op_sd_unlink(a->sd, a->tmp);
	}
	release(a);
}

int op_file_read(const struct op_sessdir *sd, const char *path, unsigned char **buf,
		 size_t *len)
{
	FILE *f = op_sd_fopen(sd, path, "re");
	unsigned char *b = NULL;
	size_t n = 0, cap = 0, got;
	int ret = 0;

	*buf = NULL;
	*len = 0;
	if (!f)
		return -errno;
	do {
		if (n == cap) {
			unsigned char *v = op_grow(b, n + 1, &cap, 65536, 1);

			if (!v) {
				ret = -ENOMEM;
				break;
			}
			b = v;
		}
		got = fread(b + n, 1, cap - n, f);
		n += got;
	} while (got);
	if (!ret && ferror(f))
		ret = -EIO;
	fclose(f);
	if (ret || !n) {
		free(b);
		return ret;
	}
	*buf = b;
	*len = n;
	return 0;
}
