/* Writing oparchive's archives (the layout: core/pp_archive.h, which every
 * reader of `archive:DIR` goes through). */
#ifndef PP_ARCHIVE_WRITE_H
#define PP_ARCHIVE_WRITE_H

#include <stddef.h>
#include <stdio.h>

#include "op_log.h"
#include "op_sessdir.h"

/* Copies files into an archive directory, or lists them. Destinations are
 * absolute-looking paths below the archive ("/usr/bin/ls" lands in
 * DIR/usr/bin/ls); directories are made as needed. A file is copied with
 * its permission bits and mtime (opreport compares a binary's mtime with
 * its samples'), and never over an existing one: a destination met twice
 * is copied once.
 *
 * oparchive may run as root, and its directory is a writer's: out is it
 * opened with OP_SD_WRITE (op_sessdir.h: owned by the user, writable by
 * nobody else, nor its parents, not a link), and everything is created
 * beneath that descriptor, no link followed: a link met inside is
 * refused and named, nothing is written through it. */
struct pp_archive_writer {
	const char *dir;	/* the archive directory, as given (messages) */
	const struct op_sessdir *out;	/* dir, opened as a writer's */
	FILE *list;		/* non-NULL: --list-files, print sources here */
	const struct op_logger *lg;	/* each copy is named at OP_LOG_INFO */
	size_t nr_files;	/* copied or listed */
	int err;		/* the first write error (-errno), 0 */
	char **seen;		/* sources listed, with list */
	size_t nr_seen, alloc_seen;
};

/* Copy src to the archive's dest; src a session's file read through sd
 * (op_sessdir.h: -ELOOP for a link), or with sd NULL a binary, read as
 * its path says. Returns 0, -ENOENT (or another -errno) when src cannot
 * be read (the caller decides whether to warn), or -EIO when the archive
 * cannot be written (the error logged, w->err set). */
int pp_archive_put(struct pp_archive_writer *w, const struct op_sessdir *sd,
		   const char *src, const char *dest);

/* Copy the regular files under src_dir to dest_dir, recursively (a
 * session's stats/ and callchains/). A missing src_dir is not an error.
 * 0 or -EIO (w->err). */
int pp_archive_put_tree(struct pp_archive_writer *w, const struct op_sessdir *sd,
			const char *src_dir, const char *dest_dir);

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
int pp_archive_put_kallsyms(struct pp_archive_writer *w, const struct op_sessdir *sd,
			    const char *saved, const char *live);

void pp_archive_writer_release(struct pp_archive_writer *w);

#endif /* PP_ARCHIVE_WRITE_H */
