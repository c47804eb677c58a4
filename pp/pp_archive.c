/* archive:DIR for the readers (opreport, opexport): one rule for where an
 * archive's session, binaries, debug files and kernel symbols are. */
#include "config.h"
#include "pp_archive.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int pp_archive_opts(struct pp_archive *a, const char *dir,
		    const struct pp_report_opts *in,
		    struct pp_report_opts *out)
{
	struct stat sb;

	*a = (struct pp_archive){ 0 };
	*out = *in;
	if (asprintf(&a->session_dir, "%s%s", dir, PP_ARCHIVE_SESSION_DIR) < 0) {
		a->session_dir = NULL;
		goto err_nomem;
	}
	out->root = dir;
	if (!in->debug_dirs) {
		if (asprintf(&a->debug_dirs, ":.debug:%s/usr/lib/debug", dir) < 0) {
			a->debug_dirs = NULL;
			goto err_nomem;
		}
		out->debug_dirs = a->debug_dirs;
	}
	if (!in->kallsyms) {
		if (asprintf(&a->kallsyms, "%s/proc/kallsyms", dir) < 0) {
			a->kallsyms = NULL;
			goto err_nomem;
		}
		if (!stat(a->kallsyms, &sb))
			out->kallsyms = a->kallsyms;
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
	*a = (struct pp_archive){ 0 };
}
