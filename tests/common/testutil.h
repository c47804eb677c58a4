/* Helpers shared by the cmocka tests: a fresh temporary directory per case. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stddef.h>

#include "op_log.h"

/* Create a new directory under $TMPDIR (or /tmp) named opsampler-test.XXXXXX;
 * returns a malloc'd path, or NULL (errno set). */
char *tu_mkdtemp(void);

/* Remove a directory tree; returns 0 or -errno. */
int tu_rm_rf(const char *path);

/* Write len bytes to path (created 0644, truncated). 0 or -errno. */
int tu_write_file(const char *path, const void *data, size_t len);

/* path = dir + "/" + name, malloc'd. */
char *tu_path(const char *dir, const char *name);

/* A file of the build tree: $top_builddir/dir/name, or ../dir/name where
 * top_builddir is unset (a test run by hand from tests/); malloc'd, or
 * NULL (errno set). */
char *tu_builddir_path(const char *dir, const char *name);

/* The same in the source tree: $top_srcdir/dir/name, or ../../dir/name. */
char *tu_srcdir_path(const char *dir, const char *name);

/* True when perf_event_open tests must not skip (OPSAMPLER_REQUIRE_PERF=1). */
int tu_require_perf(void);

/* Take the machine-wide lock the tests that profile the whole system take
 * turns with (tests/e2e/lib.sh: $TMPDIR/opsampler-system-wide.lock), held
 * until the process exits. 0 or -errno. */
int tu_lock_system_wide(void);

/* What a logger said, line by line, for a test to search: pass tu_said_fn
 * with a struct tu_said (zeroed) as its ctx. A line that does not fit is
 * cut; nr counts every line all the same. */
struct tu_said {
	char text[8192];
	unsigned int nr;
};

void tu_said_fn(void *ctx, enum op_log_level level, const char *msg);

/* True when said holds the line that refuses path as a link ("PATH is a
 * symbolic link: refused, not followed"). */
int tu_said_link(const struct tu_said *said, const char *path);

#endif /* TESTUTIL_H */
