/* Every path under a session directory, opened without following a link.
 *
 * The profiler runs as root and writes where a session directory says:
 * /var/lib/oprofile, --session-dir=DIR, or operf's ./oprofile_data in
 * whatever directory it was started from, /tmp included. A symlink planted
 * there by whoever can write in it would make root write, rename or delete
 * where that user chooses (CWE-59). So nothing opens a session's files by
 * path: this module holds a descriptor of the session directory and
 * resolves everything beneath it, refusing every symlink on the way
 * (openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or, on kernels
 * without it, one openat(O_NOFOLLOW) a component), and then opens,
 * creates, renames or removes the last component relative to the
 * directory found, never through a link either. A symlink met where a
 * session file or directory should be is refused with -ELOOP, and
 * op_sessdir_explain() names it.
 *
 * Writers (oprofiled, opcontrol, operf, oparchive's output) open the
 * directory with OP_SD_WRITE, which checks it as OpenSSH checks its files
 * before trusting them: owned by the user running the tool and writable by
 * nobody else, and each parent up to / owned by root or that user and
 * writable by nobody else unless sticky (/tmp), so that no other user can
 * put a link in it, or rename it and put their own directory in its
 * place. Readers (the report tools) open with OP_SD_READ: no ownership
 * check, since a session someone else wrote (a copied archive, OProfile's
 * own) is input to parse, not a place to write; they still never follow a
 * link out of it.
 *
 * Paths: every function takes path relative to the session directory
 * ("samples/current/stats") or absolute, beginning with the session
 * directory's own path as op_sessdir_open() was given it (the strings
 * struct op_paths builds); anything else, or a ".." component, is -EXDEV.
 * sd may be NULL for a file that belongs to no session (a test's
 * temporary file, a file a user names on the command line): path is then
 * used as it is, and only its last component is not followed.
 *
 * Functions returning int return 0 (or a descriptor) or -errno. An
 * op_sessdir is read-only once opened, so threads may share it. One that
 * is not open (fd -1: a session directory that does not exist) holds
 * nothing: every function returns -ENOENT.
 */
#ifndef OP_SESSDIR_H
#define OP_SESSDIR_H

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/* PATH_MAX, without <limits.h> in every file that includes this one */
#define OP_SD_PATH_MAX 4096

struct op_sessdir {
	int fd;			/* the session directory (O_DIRECTORY) */
	bool walk;		/* resolve by openat() per component */
	size_t len;
	char path[OP_SD_PATH_MAX];	/* as given, without trailing '/' */
};

enum {
	OP_SD_READ = 0,
	/* a directory this tool writes in: checked as above */
	OP_SD_WRITE = 1 << 0,
	/* with OP_SD_WRITE: create it (and missing parents) mode 0755 */
	OP_SD_CREATE = 1 << 1,
	/* resolve by openat() per component even where openat2() works
	 * (the fallback, for tests) */
	OP_SD_WALK = 1 << 2,
};

/* Open the session directory path (absolute or relative to the working
 * directory) with OP_SD_* flags. A writer's path must not itself be a
 * symlink (its parents may be: they are the user's to choose, and the
 * check walks the real ones). Returns 0, or -errno with the reason in err,
 * naming the path ("/tmp/x/oprofile_data: writable by group or others
 * (mode 0777)"). */
int op_sessdir_open(struct op_sessdir *sd, const char *path, unsigned int flags,
		    char *err, size_t errlen);

/* A session directory below sd (samples/current...), as its own
 * op_sessdir: resolved beneath sd, no check of its own. */
int op_sessdir_sub(const struct op_sessdir *sd, const char *path,
		   struct op_sessdir *sub);

void op_sessdir_close(struct op_sessdir *sd);

/* path relative to sd ("." for sd itself), pointing into path; NULL when
 * path is absolute and not under sd. */
const char *op_sd_rel(const struct op_sessdir *sd, const char *path);

/* The component of a relative path that starts at p, up to the next '/'
 * or the end (*end), copied into comp (NAME_MAX + 1 bytes) with its NUL:
 * its length (0 for an empty one), or -ENAMETOOLONG. Every walk of a path
 * one openat() at a time takes its components from here. */
int op_sd_comp(const char *p, const char **end, char *comp);

/* open(2) of path (O_NOFOLLOW and O_CLOEXEC added; O_PATH refused). */
int op_sd_open(const struct op_sessdir *sd, const char *path, int flags, mode_t mode);

/* fopen(3) of path, mode one of "r", "w", "a" (each may add "e", "+");
 * "w" and "a" create mode 0644. NULL with errno set. */
FILE *op_sd_fopen(const struct op_sessdir *sd, const char *path, const char *mode);

/* opendir(3) of path. NULL with errno set. */
DIR *op_sd_opendir(const struct op_sessdir *sd, const char *path);

/* fstatat(2) of path, the last component not followed (a symlink there is
 * reported as one, S_ISLNK). */
int op_sd_stat(const struct op_sessdir *sd, const char *path, struct stat *st);

/* mkdir -p of path beneath sd, each new directory with mode; an existing
 * one that is a symlink is -ELOOP, one that is not a directory -ENOTDIR. */
int op_sd_mkdirs(const struct op_sessdir *sd, const char *path, mode_t mode);

/* mkdir -p of path's parent directories. */
int op_sd_mkparents(const struct op_sessdir *sd, const char *path, mode_t mode);

/* renameat2(2) of from to to (flags: RENAME_NOREPLACE or 0). A symlink at
 * either name is refused (-ELOOP), not moved or replaced. */
int op_sd_rename(const struct op_sessdir *sd, const char *from, const char *to,
		 unsigned int flags);

/* link(2) from to to (the link itself is never followed). */
int op_sd_link(const struct op_sessdir *sd, const char *from, const char *to);

/* Remove the file path; a symlink is refused (-ELOOP) and left alone. A
 * missing file is -ENOENT. */
int op_sd_unlink(const struct op_sessdir *sd, const char *path);

/* Remove path and everything below it. A symlink met on the way is left
 * where it is, never removed or followed: the rest is removed and the
 * result is -ELOOP, with the first such link's path (relative to sd) in
 * refused when not NULL. A missing path is not an error. */
int op_sd_remove_tree(const struct op_sessdir *sd, const char *path,
		      char *refused, size_t refusedlen);

/* Remove everything inside the directory path (which stays), as above. */
int op_sd_empty_dir(const struct op_sessdir *sd, const char *path,
		    char *refused, size_t refusedlen);

/* A new empty file beside path (mode 0600), named ".TAG.XXXXXX" (TAG:
 * path's own name when NULL). The descriptor, with *tmp its malloc'd path
 * (in path's form, for op_sd_rename() and op_sd_unlink()), or -errno. */
int op_sd_tmp(const struct op_sessdir *sd, const char *path, const char *tag,
	      char **tmp);

/* bind(2) / connect(2) the UNIX socket sock at path. The address is
 * /proc/self/fd/N/NAME, N a descriptor of path's directory resolved as
 * above: it names that directory itself, whatever happens to the path
 * meanwhile, and is short whatever the session path's length. bind never
 * follows a link (an existing name is -EADDRINUSE), and connect is made
 * only to a name that is a socket, not a link. */
int op_sd_bind(const struct op_sessdir *sd, const char *path, int sock);
int op_sd_connect(const struct op_sessdir *sd, const char *path, int sock);

/* Did an operation fail because the session refused what it met (-ELOOP:
 * a link; -EXDEV: a path out of the session), not for want of a file or
 * of room? Such a refusal is named (op_sd_explain()) as an error. */
static inline bool op_sd_refused(int err)
{
	return err == -ELOOP || err == -EXDEV;
}

/* Why an operation on path failed with err (negative): for -ELOOP, which
 * component is a link ("DIR/samples is a symbolic link: refused, not
 * followed"); for -EXDEV, that path lies outside the session; else
 * strerror(-err) alone, for "cannot open PATH: %s". Into buf; returns buf. */
const char *op_sd_explain(const struct op_sessdir *sd, const char *path, int err,
			  char *buf, size_t len);

#endif /* OP_SESSDIR_H */
