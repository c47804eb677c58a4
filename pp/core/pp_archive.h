/* oparchive's archives, for every reader: an archive directory holds a
 * session under its default session directory (DIR/var/lib/oprofile,
 * whatever --session-dir says) and each binary the session needs at its
 * own path under DIR, as OProfile's oparchive lays it out; separate debug
 * files sit in a .debug directory beside their binary or under
 * DIR/usr/lib/debug, and the kernel's symbols in DIR/proc/kallsyms.
 *
 * opreport and opexport read `archive:DIR` through pp_archive_opts(), which
 * turns their options into an archive's: the same rules, in one place.
 */
#ifndef PP_ARCHIVE_H
#define PP_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "op_log.h"
#include "pp_report.h"

/* Where an archive keeps its session, below the archive directory. */
#define PP_ARCHIVE_SESSION_DIR "/var/lib/oprofile"

/* The strings an archive's report options point at; owned here. */
struct pp_archive {
	char *session_dir;	/* DIR/var/lib/oprofile */
	char *debug_dirs;	/* :.debug:DIR/usr/lib/debug, unless given */
	char *kallsyms;		/* DIR/proc/kallsyms when the archive has it */
	char *real;		/* DIR's real path: OProfile's warnings name a
				 * missing image by it and the image's name */
};

/* Read archive dir as OProfile's opreport reads what oparchive wrote: *out
 * is *in with binaries under dir as under --root, separate debug files
 * beside them or under dir's /usr/lib/debug (unless in names debug
 * directories), and the kernel's symbols from dir/proc/kallsyms when the
 * archive holds it (unless in names a kallsyms file). a->session_dir is
 * the session directory to select from. out's strings point into a: keep
 * a until out is no longer used. Returns 0 or -ENOMEM (a released). */
int pp_archive_opts(struct pp_archive *a, const char *dir,
		    const struct pp_report_opts *in,
		    struct pp_report_opts *out);

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

/* ---- writing an archive (oparchive) ---- */

/* Copies files into an archive directory, or lists them. Destinations are
 * absolute-looking paths below the archive ("/usr/bin/ls" lands in
 * DIR/usr/bin/ls); directories are made as needed. A file is copied with
 * its permission bits and mtime (opreport compares a binary's mtime with
 * its samples'), and never over an existing one: a destination met twice
 * is copied once. */
struct pp_archive_writer {
	const char *dir;	/* the archive directory */
	FILE *list;		/* non-NULL: --list-files, print sources here */
	const struct op_logger *lg;	/* each copy is named at OP_LOG_INFO */
	size_t nr_files;	/* copied or listed */
	int err;		/* the first write error (-errno), 0 */
	char **seen;		/* sources listed, with list */
	size_t nr_seen;
};

/* Copy src to the archive's dest. Returns 0, -ENOENT (or another -errno)
 * when src cannot be read (the caller decides whether to warn), or -EIO
 * when the archive cannot be written (the error logged, w->err set). */
int pp_archive_put(struct pp_archive_writer *w, const char *src,
		   const char *dest);

/* Copy the regular files under src_dir to dest_dir, recursively (a
 * session's stats/ and callchains/). A missing src_dir is not an error.
 * 0 or -EIO (w->err). */
int pp_archive_put_tree(struct pp_archive_writer *w, const char *src_dir,
			const char *dest_dir);

/* Copy a binary (src, read as opreport reads it) to dest, and its
 * separate debug file where both OProfile's opreport and ours look for it
 * in an archive: dest's directory's .debug/ under the binary's
 * .gnu_debuglink name, else DIR/usr/lib/debug/.build-id/ by build-id.
 * debug_dirs as pp_symtab_load_elf's. Returns as pp_archive_put() for the
 * binary; a debug file that cannot be found is not an error. */
int pp_archive_put_binary(struct pp_archive_writer *w, const char *src,
			  const char *dest, const char *debug_dirs);

/* Copy the kernel's symbols to DIR/proc/kallsyms: live (the running
 * kernel's kallsyms, which names the callers of call-graph arcs too) when
 * it names the same kernel as saved (a session's stats/kallsyms, the
 * symbols it sampled; NULL when the session has none) by its _text
 * address, else saved. Returns as pp_archive_put(). */
int pp_archive_put_kallsyms(struct pp_archive_writer *w, const char *saved,
			    const char *live);

void pp_archive_writer_release(struct pp_archive_writer *w);

#endif /* PP_ARCHIVE_H */
