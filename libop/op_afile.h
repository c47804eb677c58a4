/* Files read and written whole.
 *
 * A file written whole or not at all: the text goes to a temporary file
 * beside the target, which replaces the target by rename(2) only once all
 * of it is written, so a reader (or a crash) sees the old file or the new
 * one, never part of one. Used for the small files a session keeps beside
 * its sample files: stats, the saved kernel symbols, the integrity record,
 * the order of kernel names, the session's settings.
 *
 *	struct op_afile a;
 *	if (op_afile_open(&a, sd, path) == 0) {
 *		fprintf(a.f, ...);
 *		ret = op_afile_commit(&a, false);
 *	}
 */
#ifndef OP_AFILE_H
#define OP_AFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "op_sessdir.h"

/* sd: the session the file belongs to (op_sessdir.h), through which the
 * target and its temporary are reached; NULL for a file of no session. */
struct op_afile {
	FILE *f;		/* write here */
	const struct op_sessdir *sd;	/* the caller's, outlives a */
	char *path;		/* the target */
	char *tmp;		/* the temporary, in the target's directory */
};

/* A new empty file (mode 0600, close-on-exec) in path's directory, named
 * ".TAG.XXXXXX" (TAG: path's own name when NULL): a dot name that readers
 * listing the directory skip, and one rename(2) away from path. *tmp is
 * its name, for the caller to free. The descriptor, or -errno (*tmp NULL,
 * nothing left behind). */
int op_tmp_beside(const struct op_sessdir *sd, const char *path, const char *tag,
		  char **tmp);

/* Create a temporary beside path. 0 or -errno (nothing left behind). */
int op_afile_open(struct op_afile *a, const struct op_sessdir *sd, const char *path);

/* Write the temporary out (fsync'd first when sync), make it 0644 and
 * rename it over the target. On any failure, a write error of the stream
 * included, the temporary is removed and the target left as it was. Always
 * releases a. 0 or -errno. */
int op_afile_commit(struct op_afile *a, bool sync);

/* Give up: remove the temporary, release a. */
void op_afile_abort(struct op_afile *a);

/* Read the whole file at path into *buf (malloc'd; NULL for an empty
 * file) and *len. 0 or -errno (-ENOENT: no file). */
int op_file_read(const struct op_sessdir *sd, const char *path, unsigned char **buf,
		 size_t *len);

#endif /* OP_AFILE_H */
