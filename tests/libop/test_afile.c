/* Files written whole or not at all: a committed file replaces its target
 * with all its text and the session's usual mode, and leaves no temporary;
 * an abandoned one or a failed commit leaves the target as it was and no
 * temporary either. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "op_afile.h"
#include "testutil.h"

/* Entries of dir other than . and .. */
static int nr_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static void assert_text(const char *path, const char *want)
{
	char buf[256] = { 0 };
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_true(fread(buf, 1, sizeof(buf) - 1, f) == strlen(want));
	fclose(f);
	assert_string_equal(buf, want);
}

static void test_commit(void **state)
{
	char *dir = tu_mkdtemp(), *path = tu_path(dir, "stat");
	struct op_afile a;
	struct stat sb;

	(void)state;
	assert_int_equal(tu_write_file(path, "old\n", 4), 0);
	assert_int_equal(op_afile_open(&a, NULL, path), 0);
	fprintf(a.f, "new %d\n", 42);
	/* the target holds the old text until the commit */
	assert_text(path, "old\n");
	assert_int_equal(nr_entries(dir), 2);
	assert_int_equal(op_afile_commit(&a, true), 0);
	assert_text(path, "new 42\n");
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0644);
	assert_int_equal(nr_entries(dir), 1);
	assert_null(a.f);
	tu_rm_rf(dir);
	free(path);
	free(dir);
}

static void test_abort_and_failure(void **state)
{
	char *dir = tu_mkdtemp(), *path = tu_path(dir, "kallsyms");
	char *sub = tu_path(dir, "sub"), *missing = tu_path(dir, "no/such");
	struct op_afile a;

	(void)state;
	assert_int_equal(tu_write_file(path, "old\n", 4), 0);
	assert_int_equal(op_afile_open(&a, NULL, path), 0);
	fprintf(a.f, "half");
	op_afile_abort(&a);
	assert_text(path, "old\n");
	assert_int_equal(nr_entries(dir), 1);

	/* a target that is a directory: the rename fails, nothing is left */
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(tu_write_file(path, "x", 1), 0);
	assert_int_equal(op_afile_open(&a, NULL, sub), 0);
	fprintf(a.f, "text\n");
	assert_int_equal(op_afile_commit(&a, false), -EISDIR);
	assert_int_equal(nr_entries(dir), 2);

	/* no directory for it: said at once */
	assert_int_equal(op_afile_open(&a, NULL, missing), -ENOENT);
	assert_null(a.f);
	tu_rm_rf(dir);
	free(missing);
	free(sub);
	free(path);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commit),
		cmocka_unit_test(test_abort_and_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
