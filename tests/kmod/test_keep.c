/* The keeper's copy (kop_keep.c): a file copied whole under its name in
 * the store, directories made, the original's mtime kept, no temporary
 * left; an existing copy left alone; a link in the store (or a name that
 * would climb out of it) never followed: nothing is written outside. And
 * the thread: queued copies are written by the time it stops, within the
 * bound, the rest counted. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "kop_keep.h"
#include "testutil.h"

static int open_file(const char *dir, const char *name, const char *text,
		     struct stat *st)
{
	char *p = tu_path(dir, name);
	int fd;

	assert_int_equal(tu_write_file(p, text, strlen(text)), 0);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, st), 0);
	free(p);
	return fd;
}

static void test_copy(void **state)
{
	char *src = tu_mkdtemp(), *store = tu_mkdtemp(), *out, buf[64] = { 0 };
	struct timespec mt = { .tv_sec = 1000000000, .tv_nsec = 0 };
	struct stat st, cs;
	int fd, sfd, n;

	(void)state;
	fd = open_file(src, "prog", "an ELF, say", &st);
	sfd = open(store, O_RDONLY | O_DIRECTORY);
	assert_true(sfd >= 0);
	assert_int_equal(kop_keep_copy(sfd, "ab/cdef/app/prog", fd, (uint64_t)st.st_size, &mt), 0);
	out = tu_path(store, "ab/cdef/app/prog");
	assert_int_equal(stat(out, &cs), 0);
	assert_int_equal(cs.st_size, st.st_size);
	assert_int_equal(cs.st_mtim.tv_sec, mt.tv_sec);
	n = open(out, O_RDONLY);
	assert_true(read(n, buf, sizeof(buf) - 1) == st.st_size);
	close(n);
	assert_string_equal(buf, "an ELF, say");
	/* there already: left alone */
	assert_int_equal(kop_keep_copy(sfd, "ab/cdef/app/prog", fd, (uint64_t)st.st_size, NULL),
			 -EEXIST);
	/* a file shorter than it said: no copy, no temporary */
	assert_int_equal(kop_keep_copy(sfd, "ab/cdef/app/short", fd, (uint64_t)st.st_size + 100,
				       NULL), -EIO);
	free(out);
	out = tu_path(store, "ab/cdef/app/short");
	assert_int_not_equal(access(out, F_OK), 0);
	free(out);
	out = tu_path(store, "ab/cdef/app");
	{
		char cmd[PATH_MAX + 32];

		snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | wc -l) -eq 1", out);
		assert_int_equal(system(cmd), 0);
	}
	free(out);
	close(fd);
	close(sfd);
	tu_rm_rf(src);
	tu_rm_rf(store);
	free(src);
	free(store);
}

static void test_no_escape(void **state)
{
	char *src = tu_mkdtemp(), *store = tu_mkdtemp(), *outside = tu_mkdtemp();
	char *lnk, *victim;
	struct stat st;
	int fd, sfd;

	(void)state;
	fd = open_file(src, "prog", "container's", &st);
	sfd = open(store, O_RDONLY | O_DIRECTORY);
	/* a link in the store to a directory outside it */
	lnk = tu_path(store, "ab");
	assert_int_equal(symlink(outside, lnk), 0);
	assert_true(kop_keep_copy(sfd, "ab/cdef/prog", fd, (uint64_t)st.st_size, NULL) < 0);
	victim = tu_path(outside, "cdef");
	assert_int_not_equal(access(victim, F_OK), 0);
	/* names that climb, or are empty */
	assert_int_equal(kop_keep_copy(sfd, "../x", fd, (uint64_t)st.st_size, NULL), -EINVAL);
	assert_int_equal(kop_keep_copy(sfd, "cd/../../x", fd, (uint64_t)st.st_size, NULL), -EINVAL);
	assert_int_equal(kop_keep_copy(sfd, "cd//x", fd, (uint64_t)st.st_size, NULL), -EINVAL);
	assert_int_equal(kop_keep_copy(sfd, "cd/", fd, (uint64_t)st.st_size, NULL), -EINVAL);
	close(fd);
	close(sfd);
	free(lnk);
	free(victim);
	tu_rm_rf(src);
	tu_rm_rf(store);
	tu_rm_rf(outside);
	free(src);
	free(store);
	free(outside);
}

static void test_keeper(void **state)
{
	char *src = tu_mkdtemp(), *store = tu_mkdtemp(), *p;
	struct op_logger lg = { 0 };
	struct kop_keeper k;
	struct kop_keep_counts c;
	struct stat st;

	(void)state;
	/* room for one 6-byte file and not two */
	assert_int_equal(kop_keeper_start(&k, store, 10, &lg), 0);
	for (int i = 0; i < 2; i++) {
		struct kop_keep_job j = { 0 };
		char rel[32];

		j.fd = open_file(src, i ? "b" : "a", "123456", &st);
		j.size = (uint64_t)st.st_size;
		snprintf(rel, sizeof(rel), "xx/%d/prog", i);
		j.rel = strdup(rel);
		kop_keeper_push(&k, &j);
	}
	kop_keeper_stop(&k);
	kop_keeper_counts(&k, &c);
	assert_int_equal(c.nr_kept, 1);
	assert_int_equal(c.nr_no_space, 1);
	assert_int_equal(c.bytes, 6);
	kop_keeper_release(&k);
	p = tu_path(store, "xx/0/prog");
	assert_int_equal(stat(p, &st), 0);
	free(p);
	tu_rm_rf(src);
	tu_rm_rf(store);
	free(src);
	free(store);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_no_escape),
		cmocka_unit_test(test_keeper),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
