/* archive:DIR for the readers (opreport, opexport): one rule for where an
 * archive's session, binaries, debug files and kernel symbols are. */
#include "config.h"
#include "pp_archive.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pp_symbols.h"

int pp_archive_opts(struct pp_archive *a, const char *dir,
		    const struct pp_report_opts *in,
		    struct pp_report_opts *out, char *warn, size_t warn_len)
{
	*a = (struct pp_archive){ .kallsyms_fd = -1 };
	*out = *in;
	if (asprintf(&a->session_dir, "%s%s", dir, PP_ARCHIVE_SESSION_DIR) < 0) {
		a->session_dir = NULL;
		goto err_nomem;
	}
	out->root = dir;
	/* OProfile names a missing image by the archive's real path and the
	 * image's name */
	a->real = realpath(dir, NULL);
	out->archive = a->real ? a->real : dir;
	if (!in->debug_dirs) {
		a->debug_dirs = pp_debug_dirs_under(dir);
		if (!a->debug_dirs)
			goto err_nomem;
		out->debug_dirs = a->debug_dirs;
	}
	a->root = malloc(sizeof(*a->root));
	if (!a->root)
		goto err_nomem;
	if (op_sessdir_open(a->root, dir, OP_SD_READ, NULL, 0)) {
		free(a->root);
		a->root = NULL;
	} else if (!in->sd) {
		out->sd = a->root;
	}
	if (!in->kallsyms && a->root) {
		/* opened beneath DIR, no link followed out of it; the readers
		 * get the file itself, by its descriptor */
		char path[PATH_MAX], why[PATH_MAX + 128];
		int fd = -ENAMETOOLONG;

		if ((size_t)snprintf(path, sizeof(path), "%s/proc/kallsyms", dir) < sizeof(path))
			fd = op_sd_open(a->root, path, O_RDONLY, 0);
		if (fd < 0 && fd != -ENOENT)
			snprintf(warn, warn_len, "%s; the kernel's symbols are looked for "
				 "as for an archive without them",
				 op_sd_explain(a->root, path, fd, why, sizeof(why)));
		if (fd >= 0) {
			a->kallsyms_fd = fd;
			if (asprintf(&a->kallsyms, "/proc/self/fd/%d", fd) < 0) {
				a->kallsyms = NULL;
				goto err_nomem;
			}
			out->kallsyms = a->kallsyms;
		}
	}
	return 0;

err_nomem:
	pp_archive_release(a);
	return -ENOMEM;
}

void pp_archive_release(struct pp_archive *a)
{
	free(a->session_dir);
	free(a->debug_dirs);
	free(a->kallsyms);
	if (a->kallsyms_fd >= 0)
		close(a->kallsyms_fd);
	free(a->real);
	if (a->root)
		op_sessdir_close(a->root);
	free(a->root);
	*a = (struct pp_archive){ .kallsyms_fd = -1 };
}

bool pp_readable_file(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISREG(sb.st_mode) && !access(path, R_OK);
}

char *pp_locate_binary(const char *path, const char *root,
		       const char *image_path)
{
	char buf[PATH_MAX * 2];
	const char *base = strrchr(path, '/');

	snprintf(buf, sizeof(buf), "%s%s", root ? root : "", path);
	if (pp_readable_file(buf) || !image_path)
		return strdup(buf);
	base = base ? base + 1 : path;
	for (const char *p = image_path; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char cand[PATH_MAX * 2];

		snprintf(cand, sizeof(cand), "%.*s/%s", (int)len, p, base);
		if (len && pp_readable_file(cand))
			return strdup(cand);
		if (!comma)
			break;
		p = comma + 1;
	}
	return strdup(buf);
}
