/* A session's integrity record: a checksum of each sample file as the
 * daemon left it, so that a report can tell a file damaged afterwards (a
 * flipped bit on disk, a stray write, a bad copy) from a good one. OProfile's
 * format has no checksum, and a damaged table can hold counts that are
 * valid as far as its structure goes and wrong by millions.
 *
 * The record is stats/sums under the session directory (OProfile's tools
 * read only {root}/ and {kern}/ there, so they never see it), one line per
 * sample file (sample files, arc files, chain-count files), and one for
 * each of the call-chain store's two lists (plain files):
 *
 *     SUM NODES LEN REL
 *
 * SUM the file's checksum in hex (op_sum_odb(); for a list op_sum_bytes()
 * over all of it), NODES its used nodes (0 for a list), LEN its length in
 * bytes, REL its path under the session directory (the rest of the line;
 * a name holding a newline is not recorded). Lines starting with '#' are
 * comments.
 *
 * It is valid only while nobody writes the session: the daemon writes it
 * when collection stops (stop, exit, the dump of a stopped session, a
 * snapshot) and removes it before collection starts again. A file the
 * record does not list is not checked (OProfile's sessions have no record
 * at all).
 */
#ifndef OP_SUMS_H
#define OP_SUMS_H

#include <stddef.h>
#include <stdint.h>

#include "odb.h"
#include "op_sessdir.h"

#define OP_SUMS_FILE "stats/sums"

struct op_sum {
	uint64_t sum;
	uint64_t len;
	uint32_t nodes;
	char *rel;
};

struct op_sums {
	struct op_sum *v;	/* sorted by rel */
	size_t nr;
};

/* Every session_dir below is reached through sd (op_sessdir.h).
 *
 * Write session_dir/stats/sums for every sample file under session_dir
 * (temporary file + rename). *nr_files, when not NULL, gets how many it
 * lists. Returns 0 or -errno. */
int op_sums_write(const struct op_sessdir *sd, const char *session_dir,
		  size_t *nr_files);

/* Remove session_dir/stats/sums; 0 when it is gone (or never was). */
int op_sums_remove(const struct op_sessdir *sd, const char *session_dir);

/* Read session_dir/stats/sums. Returns 0, -ENOENT when there is none,
 * -EINVAL when a line is malformed (*bad_line, when not NULL, gets its
 * number; nothing is kept), or -errno. */
int op_sums_read(const struct op_sessdir *sd, const char *session_dir,
		 struct op_sums *s, size_t *bad_line);

/* The entry for rel, or NULL. */
const struct op_sum *op_sums_find(const struct op_sums *s, const char *rel);

/* 0 when db (of file length len) matches e, else -EBADMSG. */
int op_sum_check(const struct op_sum *e, const odb_t *db);

/* 0 when the file at path matches e (its length and op_sum_bytes()),
 * -EBADMSG when not, or -errno when it cannot be read. */
int op_sum_check_file(const struct op_sum *e, const struct op_sessdir *sd,
		      const char *path);

void op_sums_release(struct op_sums *s);

#endif /* OP_SUMS_H */
