/* A session directory's paths: every operation stays beneath the
 * directory and refuses a symlink met on the way, which is never
 * followed nor removed; the file outside that a link points at is left
 * as it was. Each case runs twice: resolving with openat2(2), and with the
 * fallback of one openat(2) a component (OP_SD_WALK). The writer's check
 * of the directory itself refuses what OpenSSH would. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "op_sessdir.h"
#include "testutil.h"

/* One case's world: base/ holds sess/ (the session, opened as sd) and
 * outside/ (a link's target, holding keep with "precious"). */
struct world {
	unsigned int flags;	/* OP_SD_WALK or 0 */
	char *base, *sess, *outside, *keep;
	struct op_sessdir sd;
};

static int setup(void **state, unsigned int flags)
{
	struct world *w = calloc(1, sizeof(*w));
	char err[512];

	assert_non_null(w);
	w->flags = flags;
	w->base = tu_mkdtemp();
	assert_non_null(w->base);
	w->sess = tu_path(w->base, "sess");
	w->outside = tu_path(w->base, "outside");
	w->keep = tu_path(w->outside, "keep");
	assert_int_equal(mkdir(w->outside, 0755), 0);
	assert_int_equal(tu_write_file(w->keep, "precious", 8), 0);
	assert_int_equal(op_sessdir_open(&w->sd, w->sess,
					 OP_SD_WRITE | OP_SD_CREATE | flags, err,
					 sizeof(err)), 0);
	*state = w;
	return 0;
}

static int setup_openat2(void **state) { return setup(state, 0); }
static int setup_walk(void **state) { return setup(state, OP_SD_WALK); }

static int teardown(void **state)
{
	struct world *w = *state;

	op_sessdir_close(&w->sd);
	tu_rm_rf(w->base);
	free(w->base);
	free(w->sess);
	free(w->outside);
	free(w->keep);
	free(w);
	return 0;
}

/* sess/REL: a symlink to outside/ */
static void plant(struct world *w, const char *rel)
{
	char *p = tu_path(w->sess, rel);

	assert_int_equal(symlink(w->outside, p), 0);
	free(p);
}

/* outside/ holds keep, intact, and nothing else */
static void assert_outside_intact(struct world *w)
{
	char buf[16] = { 0 };
	int fd = open(w->keep, O_RDONLY), n = 0;
	DIR *d = opendir(w->outside);
	struct dirent *de;

	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 8);
	close(fd);
	assert_string_equal(buf, "precious");
	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	assert_int_equal(n, 1);
}

static void test_open_beneath(void **state)
{
	struct world *w = *state;
	char *abs = tu_path(w->sess, "a/b/file");
	struct stat st;
	int fd;

	assert_int_equal(op_sd_mkparents(&w->sd, abs, 0755), 0);
	fd = op_sd_open(&w->sd, abs, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);
	/* the same file by its relative name */
	fd = op_sd_open(&w->sd, "a/b/file", O_RDONLY, 0);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(op_sd_stat(&w->sd, "a/b/file", &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(op_sd_stat(&w->sd, w->sess, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	free(abs);
}

static void test_link_in_the_middle(void **state)
{
	struct world *w = *state;
	char msg[PATH_MAX + 128], *want;
	int fd;

	plant(w, "samples");
	fd = op_sd_open(&w->sd, "samples/current/x", O_WRONLY | O_CREAT, 0644);
	assert_int_equal(fd, -ELOOP);
	assert_int_equal(op_sd_mkdirs(&w->sd, "samples/current", 0755), -ELOOP);
	assert_null(op_sd_fopen(&w->sd, "samples/keep", "r"));
	assert_int_equal(errno, ELOOP);
	op_sd_explain(&w->sd, "samples/current/x", -ELOOP, msg, sizeof(msg));
	assert_true(asprintf(&want, "%s/samples is a symbolic link: refused, not followed",
			     w->sess) > 0);
	assert_string_equal(msg, want);
	free(want);
	assert_outside_intact(w);
}

static void test_link_at_the_end(void **state)
{
	struct world *w = *state;
	struct stat st;

	assert_int_equal(op_sd_mkdirs(&w->sd, "samples", 0755), 0);
	plant(w, "samples/log");
	assert_int_equal(op_sd_open(&w->sd, "samples/log", O_WRONLY | O_CREAT | O_APPEND, 0644),
			 -ELOOP);
	assert_int_equal(op_sd_open(&w->sd, "samples/log", O_RDONLY | O_DIRECTORY, 0), -ELOOP);
	assert_int_equal(op_sd_mkdirs(&w->sd, "samples/log", 0755), -ELOOP);
	assert_int_equal(op_sd_mkdirs(&w->sd, "samples/log/sub", 0755), -ELOOP);
	/* neither removed nor renamed, nor replaced */
	assert_int_equal(op_sd_unlink(&w->sd, "samples/log"), -ELOOP);
	assert_int_equal(op_sd_rename(&w->sd, "samples/log", "samples/moved", 0), -ELOOP);
	assert_int_equal(op_sd_open(&w->sd, "samples/real", O_WRONLY | O_CREAT, 0644) >= 0, 1);
	assert_int_equal(op_sd_rename(&w->sd, "samples/real", "samples/log", 0), -ELOOP);
	assert_int_equal(op_sd_stat(&w->sd, "samples/log", &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_outside_intact(w);
}

static void test_outside_refused(void **state)
{
	struct world *w = *state;
	char msg[PATH_MAX + 128];

	assert_int_equal(op_sd_open(&w->sd, "../outside/keep", O_RDONLY, 0), -EXDEV);
	assert_int_equal(op_sd_open(&w->sd, "a/../../outside/keep", O_RDONLY, 0), -EXDEV);
	assert_int_equal(op_sd_open(&w->sd, w->keep, O_RDONLY, 0), -EXDEV);
	assert_int_equal(op_sd_mkdirs(&w->sd, "../evil", 0755), -EXDEV);
	assert_int_equal(op_sd_unlink(&w->sd, w->keep), -EXDEV);
	assert_int_equal(op_sd_remove_tree(&w->sd, "..", NULL, 0), -EXDEV);
	/* a sibling whose name starts like the session's is not under it */
	assert_null(op_sd_rel(&w->sd, "/nonexistent"));
	op_sd_explain(&w->sd, w->keep, -EXDEV, msg, sizeof(msg));
	assert_non_null(strstr(msg, "outside the session directory"));
	assert_outside_intact(w);
}

static void test_remove_tree(void **state)
{
	struct world *w = *state;
	char refused[PATH_MAX];
	struct stat st;
	int fd;

	assert_int_equal(op_sd_mkdirs(&w->sd, "samples/current/{root}/bin", 0755), 0);
	fd = op_sd_open(&w->sd, "samples/current/{root}/bin/TIMER.0", O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	plant(w, "samples/current/{root}/current");
	assert_int_equal(op_sd_remove_tree(&w->sd, "samples/current", refused, sizeof(refused)),
			 -ELOOP);
	assert_string_equal(refused, "samples/current/{root}/current");
	/* everything else went, the link stayed, its target untouched */
	assert_int_equal(op_sd_stat(&w->sd, "samples/current/{root}/bin", &st), -ENOENT);
	assert_int_equal(op_sd_stat(&w->sd, "samples/current/{root}/current", &st), 0);
	assert_outside_intact(w);
	/* a link as the tree itself: not entered, not removed */
	plant(w, "samples/old");
	assert_int_equal(op_sd_remove_tree(&w->sd, "samples/old", refused, sizeof(refused)),
			 -ELOOP);
	assert_string_equal(refused, "samples/old");
	assert_int_equal(op_sd_empty_dir(&w->sd, "samples/old", refused, sizeof(refused)),
			 -ELOOP);
	assert_outside_intact(w);
	/* a missing tree is no error */
	assert_int_equal(op_sd_remove_tree(&w->sd, "samples/none", NULL, 0), 0);
}

static void test_rename_and_tmp(void **state)
{
	struct world *w = *state;
	char *tmp = NULL;
	struct stat st;
	int fd;

	assert_int_equal(op_sd_mkdirs(&w->sd, "samples/current", 0755), 0);
	assert_int_equal(op_sd_rename(&w->sd, "samples/current", "samples/saved",
				      RENAME_NOREPLACE), 0);
	plant(w, "samples/taken");
	assert_int_equal(op_sd_mkdirs(&w->sd, "samples/current", 0755), 0);
	assert_int_equal(op_sd_rename(&w->sd, "samples/current", "samples/taken",
				      RENAME_NOREPLACE), -ELOOP);
	fd = op_sd_tmp(&w->sd, "samples/stats", NULL, &tmp);
	assert_true(fd >= 0);
	close(fd);
	assert_true(!strncmp(tmp, "samples/.stats.", 15));
	assert_int_equal(op_sd_rename(&w->sd, tmp, "samples/stats", 0), 0);
	assert_int_equal(op_sd_stat(&w->sd, "samples/stats", &st), 0);
	assert_true(S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
	assert_int_equal(op_sd_link(&w->sd, "samples/stats", "samples/stats2"), 0);
	free(tmp);
	/* a temporary beside a link's name is made in the session, not
	 * through a link on the way */
	assert_int_equal(op_sd_tmp(&w->sd, "samples/taken/x", NULL, &tmp), -ELOOP);
	assert_null(tmp);
	assert_outside_intact(w);
}

static void test_socket(void **state)
{
	struct world *w = *state;
	char deep[PATH_MAX];
	int s, c;

	/* deeper than sun_path holds: the address goes through the fd */
	snprintf(deep, sizeof(deep), "%s/%0120d/%0120d", w->sess, 1, 2);
	assert_int_equal(op_sd_mkdirs(&w->sd, deep, 0755), 0);
	strcat(deep, "/opd_ctl");
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(s >= 0 && c >= 0);
	assert_int_equal(op_sd_bind(&w->sd, deep, s), 0);
	assert_int_equal(listen(s, 1), 0);
	assert_int_equal(op_sd_connect(&w->sd, deep, c), 0);
	close(c);
	close(s);
	/* a planted link: no bind, no connect, and nothing in its target */
	plant(w, "opd_ctl");
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(op_sd_bind(&w->sd, "opd_ctl", s), -ELOOP);
	assert_int_equal(op_sd_connect(&w->sd, "opd_ctl", s), -ELOOP);
	close(s);
	assert_outside_intact(w);
}

static void test_sub(void **state)
{
	struct world *w = *state;
	struct op_sessdir sub;
	int fd;

	assert_int_equal(op_sd_mkdirs(&w->sd, "samples/current", 0755), 0);
	assert_int_equal(op_sessdir_sub(&w->sd, "samples/current", &sub), 0);
	fd = op_sd_open(&sub, "TIMER", O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(op_sd_open(&sub, "../../../outside/keep", O_RDONLY, 0), -EXDEV);
	fd = op_sd_open(&w->sd, "samples/current/TIMER", O_RDONLY, 0);
	assert_true(fd >= 0);
	close(fd);
	op_sessdir_close(&sub);
	plant(w, "samples/linked");
	assert_int_equal(op_sessdir_sub(&w->sd, "samples/linked", &sub), -ELOOP);
}

/* The directory itself, as a writer opens it */
static void test_writer_check(void **state)
{
	struct world *w = *state;
	char *dir = tu_path(w->base, "d"), *link = tu_path(w->base, "l");
	char *open_dir = tu_path(w->base, "open"), *inner = tu_path(open_dir, "s");
	char *sticky = tu_path(w->base, "sticky"), *sinner = tu_path(sticky, "s");
	struct op_sessdir sd;
	char err[1024];

	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(op_sessdir_open(&sd, dir, OP_SD_WRITE | w->flags, err, sizeof(err)),
			 -EPERM);
	assert_non_null(strstr(err, "writable by group or others (mode 0777)"));
	assert_non_null(strstr(err, dir));
	/* readers do not check */
	assert_int_equal(op_sessdir_open(&sd, dir, OP_SD_READ | w->flags, err, sizeof(err)), 0);
	op_sessdir_close(&sd);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(op_sessdir_open(&sd, dir, OP_SD_WRITE | w->flags, err, sizeof(err)), 0);
	op_sessdir_close(&sd);
	/* owned by somebody else */
	if (geteuid() == 0) {
		assert_int_equal(chown(dir, 65534, 65534), 0);
		assert_int_equal(op_sessdir_open(&sd, dir, OP_SD_WRITE, err, sizeof(err)),
				 -EPERM);
		assert_non_null(strstr(err, "owned by uid 65534"));
	}
	/* the session directory a link: refused for a writer, followed by
	 * a reader */
	assert_int_equal(symlink(w->outside, link), 0);
	assert_int_equal(op_sessdir_open(&sd, link, OP_SD_WRITE | OP_SD_CREATE, err,
					 sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "is a symbolic link"));
	assert_int_equal(op_sessdir_open(&sd, link, OP_SD_READ, err, sizeof(err)), 0);
	op_sessdir_close(&sd);
	/* a parent others may write in, not sticky */
	assert_int_equal(mkdir(open_dir, 0777), 0);
	assert_int_equal(chmod(open_dir, 0777), 0);
	assert_int_equal(op_sessdir_open(&sd, inner, OP_SD_WRITE | OP_SD_CREATE, err,
					 sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "a parent of"));
	assert_non_null(strstr(err, "not sticky (mode 0777)"));
	/* sticky, as /tmp: fine; and what was created is 0755 or tighter */
	assert_int_equal(mkdir(sticky, 0777), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	assert_int_equal(op_sessdir_open(&sd, sinner, OP_SD_WRITE | OP_SD_CREATE, err,
					 sizeof(err)), 0);
	{
		struct stat st;

		assert_int_equal(fstat(sd.fd, &st), 0);
		assert_int_equal(st.st_mode & 022, 0);
	}
	op_sessdir_close(&sd);
	assert_outside_intact(w);
	free(dir);
	free(link);
	free(open_dir);
	free(inner);
	free(sticky);
	free(sinner);
}

/* No session: the path as given, the last component not followed */
static void test_no_session(void **state)
{
	struct world *w = *state;
	char *l = tu_path(w->base, "plain-link");
	int fd;

	assert_int_equal(symlink(w->keep, l), 0);
	assert_int_equal(op_sd_open(NULL, l, O_RDONLY, 0), -ELOOP);
	fd = op_sd_open(NULL, w->keep, O_RDONLY, 0);
	assert_true(fd >= 0);
	close(fd);
	free(l);
	assert_outside_intact(w);
}

#define BOTH(fn) \
	cmocka_unit_test_setup_teardown(fn, setup_openat2, teardown), \
	cmocka_unit_test_setup_teardown(fn, setup_walk, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_open_beneath),
		BOTH(test_link_in_the_middle),
		BOTH(test_link_at_the_end),
		BOTH(test_outside_refused),
		BOTH(test_remove_tree),
		BOTH(test_rename_and_tmp),
		BOTH(test_socket),
		BOTH(test_sub),
		BOTH(test_writer_check),
		BOTH(test_no_session),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
