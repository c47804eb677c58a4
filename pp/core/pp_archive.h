/* oparchive's archives, for every reader: an archive directory holds a
 * session under its default session directory (DIR/var/lib/oprofile,
 * whatever --session-dir says) and each binary the session needs at its
 * own path under DIR, as OProfile's oparchive lays it out; separate debug
 * files sit in a .debug directory beside their binary or under
 * DIR/usr/lib/debug, and the kernel's symbols in DIR/proc/kallsyms.
 *
 * opreport and opexport read `archive:DIR` through pp_archive_opts(), which
 * turns their options into an archive's: the same rules, in one place.
 * oparchive writes archives (pp/archive/pp_archive_write.h).
 */
#ifndef PP_ARCHIVE_H
#define PP_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "op_log.h"
#include "op_sessdir.h"
#include "pp_options.h"

/* Where an archive keeps its session, below the archive directory. */
#define PP_ARCHIVE_SESSION_DIR "/var/lib/oprofile"

/* The strings an archive's report options point at; owned here. */
struct pp_archive {
	char *session_dir;	/* DIR/var/lib/oprofile */
	char *debug_dirs;	/* :.debug:DIR/usr/lib/debug, unless given */
	char *kallsyms;		/* DIR/proc/kallsyms when the archive has it,
				 * as /proc/self/fd/N of kallsyms_fd */
	int kallsyms_fd;	/* it, opened beneath root; -1: none */
	char *real;		/* DIR's real path: OProfile's warnings name a
				 * missing image by it and the image's name */
	struct op_sessdir *root;	/* DIR, a reader's (op_sessdir.h): its
					 * binaries and debug files are opened
					 * beneath it, no link followed out */
};

/* Read archive dir as OProfile's opreport reads what oparchive wrote: *out
 * is *in with binaries under dir as under --root, separate debug files
 * beside them or under dir's /usr/lib/debug (unless in names debug
 * directories), and the kernel's symbols from dir/proc/kallsyms when the
 * archive holds it (unless in names a kallsyms file). a->session_dir is
 * the session directory to select from; out->sd is dir's descriptor, so
 * that no binary or debug file is read through a link out of the archive
 * (unless in gives a descriptor); dir/proc/kallsyms is opened beneath it
 * too, and when it is there but cannot be (a link: refused) warn says why
 * and the readers look for kernel symbols as for an archive without them.
 * out's strings point into a: keep a until out is no longer used. Returns
 * 0 or -ENOMEM (a released). */
int pp_archive_opts(struct pp_archive *a, const char *dir,
		    const struct pp_report_opts *in,
		    struct pp_report_opts *out, char *warn, size_t warn_len);

void pp_archive_release(struct pp_archive *a);

/* Where a report reads the binary of a FILE image path from: root (NULL:
 * none) prefixed to path when that exists, else the first of the
 * image_path directories (a comma list, NULL: none) holding a file of
 * path's basename, else root + path all the same (the caller finds it
 * missing). oparchive copies what opreport would read. Returns a malloc'd
 * path, or NULL on ENOMEM. */
char *pp_locate_binary(const char *path, const char *root,
		       const char *image_path);

/* A file OProfile reads an image from: a regular file we may read. */
bool pp_readable_file(const char *path);

#endif /* PP_ARCHIVE_H */
