/* The keeper's copy (kop_keep.c): a file copied whole under its name in
 * the store, directories made, the original's mtime kept, no temporary
 * left; an existing copy left alone; a link in the store (or a name that
 * would climb out of it) never followed: nothing is written outside. And
 * the thread: queued copies are written by the time it stops, within the
 * bound, the rest counted; in a session, a link at the store or at a
 * directory in it refused, named and counted. */
#include "config.h"

#include <dirent.h>
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
	assert_int_equal(kop_keeper_start(&k, NULL, store, 10, &lg), 0);
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

/* One copy pushed to a keeper of SESSION/kept, opened beneath the session;
 * what was counted. */
static void keep_one(const struct op_sessdir *sd, const char *store, const char *src,
		     const char *rel, struct op_logger *lg, struct kop_keep_counts *c)
{
	struct kop_keep_job j = { 0 };
	struct kop_keeper k;
	struct stat st;

	assert_int_equal(kop_keeper_start(&k, sd, store, 1 << 20, lg), 0);
	j.fd = open_file(src, "prog", "container's", &st);
	j.size = (uint64_t)st.st_size;
	j.rel = strdup(rel);
	kop_keeper_push(&k, &j);
	kop_keeper_stop(&k);
	kop_keeper_counts(&k, c);
	kop_keeper_release(&k);
}

/* The store in a session: kept/ itself a link, then kept/ab a link, each
 * to a directory outside: refused and named, counted as not kept, nothing
 * written outside; and kop_keeper_holds() finds a copy only through no
 * link. */
static void test_store_links(void **state)
{
	char *sess = tu_mkdtemp(), *src = tu_mkdtemp(), *outside = tu_mkdtemp();
	char *store = tu_path(sess, "kept"), *ab = tu_path(store, "ab"), *p;
	struct tu_said said = { .nr = 0 };
	struct op_logger lg = { tu_said_fn, &said, OP_LOG_WARN };
	char why[4096];
	struct kop_keep_counts c;
	struct op_sessdir sd;
	struct kop_keeper k;
	DIR *d;

	(void)state;
	assert_int_equal(op_sessdir_open(&sd, sess, OP_SD_READ, why, sizeof(why)), 0);
	/* kept/ a link */
	assert_int_equal(symlink(outside, store), 0);
	keep_one(&sd, store, src, "ab/cdef/prog", &lg, &c);
	assert_int_equal(c.nr_kept, 0);
	assert_int_equal(c.nr_failed, 1);
	assert_true(tu_said_link(&said, store));
	assert_non_null(strstr(said.text, "images_not_kept"));
	/* kept/ab a link */
	assert_int_equal(unlink(store), 0);
	assert_int_equal(mkdir(store, 0755), 0);
	assert_int_equal(symlink(outside, ab), 0);
	said.text[0] = '\0';
	keep_one(&sd, store, src, "ab/cdef/prog", &lg, &c);
	assert_int_equal(c.nr_kept, 0);
	assert_int_equal(c.nr_failed, 1);
	assert_true(tu_said_link(&said, ab));
	/* nothing outside */
	d = opendir(outside);
	assert_non_null(d);
	for (struct dirent *de; (de = readdir(d));)
		assert_true(!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."));
	closedir(d);
	/* a copy under the link is not held; one kept for real is */
	p = tu_path(outside, "x");
	assert_int_equal(tu_write_file(p, "x", 1), 0);
	free(p);
	assert_int_equal(kop_keeper_start(&k, &sd, store, 1 << 20, &lg), 0);
	assert_false(kop_keeper_holds(&k, "ab/x"));
	p = tu_path(store, "ab/x");
	assert_false(kop_keeper_holds(&k, p));
	free(p);
	kop_keeper_release(&k);
	assert_int_equal(unlink(ab), 0);
	keep_one(&sd, store, src, "ab/cdef/prog", &lg, &c);
	assert_int_equal(c.nr_kept, 1);
	assert_int_equal(kop_keeper_start(&k, &sd, store, 1 << 20, &lg), 0);
	p = tu_path(store, "ab/cdef/prog");
	assert_true(kop_keeper_holds(&k, p));
	assert_true(kop_keeper_holds(&k, "ab/cdef/prog"));
	free(p);
	kop_keeper_release(&k);

	op_sessdir_close(&sd);
	tu_rm_rf(sess);
	tu_rm_rf(src);
	tu_rm_rf(outside);
	free(sess);
	free(src);
	free(outside);
	free(store);
	free(ab);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_no_escape),
		cmocka_unit_test(test_keeper),
		cmocka_unit_test(test_store_links),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
