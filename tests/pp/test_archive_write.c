/* oparchive's writing into its directory (pp_archive_write.c), opened as
 * a writer's: files land beneath it, directories made; a link someone put
 * inside it (at a directory on a file's way, or at the file's own name)
 * is refused and named, the archive fails (w.err), and nothing is
 * written through it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "op_sessdir.h"
#include "pp_archive_write.h"
#include "testutil.h"

static bool empty_dir(const char *dir)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s')\"", dir);
	return system(cmd) == 0;
}

/* name put from src through the link at link: refused with -EIO, the
 * writer's error -ELOOP, the link named in what this put said. */
static void put_refused(struct pp_archive_writer *w, struct tu_said *said,
			const char *src, const char *name, const char *link)
{
	said->text[0] = '\0';
	w->err = 0;
	assert_int_equal(pp_archive_put(w, NULL, src, name), -EIO);
	assert_int_equal(w->err, -ELOOP);
	assert_true(tu_said_link(said, link));
}

static void test_links_inside(void **state)
{
	char *src_dir = tu_mkdtemp(), *arch = tu_mkdtemp(), *outside = tu_mkdtemp();
	char *src = tu_path(src_dir, "prog"), *p, err[PATH_MAX + 256];
	struct tu_said said = { .nr = 0 };
	struct op_logger lg = { tu_said_fn, &said, OP_LOG_WARN };
	struct pp_archive_writer w = { .lg = &lg };
	struct op_sessdir out;
	struct stat sb;

	(void)state;
	assert_int_equal(tu_write_file(src, "binary", 6), 0);
	assert_int_equal(op_sessdir_open(&out, arch, OP_SD_WRITE, err, sizeof(err)), 0);
	w.dir = arch;
	w.out = &out;

	/* a plain copy, its directories made */
	assert_int_equal(pp_archive_put(&w, NULL, src, "/opt/app/prog"), 0);
	p = tu_path(arch, "opt/app/prog");
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_size, 6);
	free(p);
	assert_int_equal(w.err, 0);

	/* a directory on the way a link */
	p = tu_path(arch, "usr");
	assert_int_equal(symlink(outside, p), 0);
	put_refused(&w, &said, src, "/usr/bin/prog", p);
	free(p);
	assert_true(empty_dir(outside));

	/* the file's own name a link */
	p = tu_path(arch, "opt/app/other");
	assert_int_equal(symlink(outside, p), 0);
	put_refused(&w, &said, src, "/opt/app/other", p);
	assert_int_equal(lstat(p, &sb), 0);
	assert_true(S_ISLNK(sb.st_mode));
	free(p);
	assert_true(empty_dir(outside));

	/* a name that climbs out */
	w.err = 0;
	assert_int_equal(pp_archive_put(&w, NULL, src, "/opt/../../x"), -EIO);
	assert_int_equal(w.err, -EXDEV);

	op_sessdir_close(&out);
	pp_archive_writer_release(&w);
	tu_rm_rf(src_dir);
	tu_rm_rf(arch);
	tu_rm_rf(outside);
	free(src_dir);
	free(arch);
	free(outside);
	free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_links_inside),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
