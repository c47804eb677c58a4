/* The session's cgroups file (op_cgroups.h): containers named from their
 * cgroup paths as the runtimes lay them out, and the file read back with
 * one entry a process, its last line winning, bad lines skipped; ids in
 * PID namespaces (forgotten by a newer process line of the same pid);
 * who mapped each kept image; kept images' names taken apart. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "op_cgroups.h"
#include "op_stats.h"
#include "testutil.h"

static const struct {
	const char *path, *name;
} names[] = {
	{ "/", "" },
	{ "/system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope",
	  "docker-0123456789ab" },
	{ "/machine.slice/libpod-fedcba9876543210fedcba9876543210.scope", "libpod-fedcba987654" },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234.slice/cri-containerd-abcdef012345678.scope",
	  "cri-containerd-abcdef012345" },
	{ "/kubepods/burstable/pod5f0e-11aa/0a1b2c3d4e5f6a7b8c9d", "k8s-0a1b2c3d4e5f" },
	{ "/machine.slice/machine-web\\x2d1.scope", "machine-web\\x2d1" },
	{ "/user.slice/user-0.slice/session-3.scope", "session-3.scope" },
	{ "/opsampler-test", "opsampler-test" },
	{ "/docker-.scope", "docker-.scope" },	/* no id: not a runtime's */
};

static void test_names(void **state)
{
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		op_cgroup_name(names[i].path, buf, sizeof(buf));
		assert_string_equal(buf, names[i].name);
	}
	/* a small buffer cuts, never overflows */
	op_cgroup_name("/a-very-long-cgroup-component-name", buf, 8);
	assert_string_equal(buf, "a-very-");
}

/* DIR/stats/cgroups written with text, as the daemon leaves it; its path. */
static char *write_cgroups(const char *dir, const char *text)
{
	char *stats = tu_path(dir, OP_STATS_DIR), *file;

	assert_int_equal(mkdir(stats, 0755), 0);
	file = tu_path(stats, OP_CGROUPS_FILE);
	assert_int_equal(tu_write_file(file, text, strlen(text)), 0);
	free(stats);
	return file;
}

static void test_read(void **state)
{
	char *dir = tu_mkdtemp(), *file;
	static const char text[] =
		"10 0 /a\n"
		"11 1 /system.slice/docker-0123456789abcdef.scope\n"
		"bad line\n"
		"12 2 /root-flag-out-of-range\n"
		"13 0 relative\n"
		"-4 0 /negative\n"
		"10 0 /b\n";		/* tgid 10 again: a newer image */
	struct op_cgroups c;
	const struct op_cgroup *e;
	FILE *f;

	(void)state;
	file = write_cgroups(dir, text);
	assert_int_equal(op_cgroups_read(NULL, dir, &c), 0);
	assert_int_equal(c.n, 2);
	e = op_cgroups_find(&c, 10);
	assert_non_null(e);
	assert_string_equal(e->path, "/b");
	assert_false(e->other_root);
	e = op_cgroups_find(&c, 11);
	assert_non_null(e);
	assert_true(e->other_root);
	assert_string_equal(e->name, "docker-0123456789ab");
	assert_null(op_cgroups_find(&c, 12));
	assert_null(op_cgroups_find(&c, 99));
	op_cgroups_release(&c);

	/* written as read: a path with a newline is not written */
	f = fopen(file, "w");
	assert_non_null(f);
	op_cgroups_write_line(f, 7, true, "/x y");
	op_cgroups_write_line(f, 8, false, "/bad\nline");
	fclose(f);
	assert_int_equal(op_cgroups_read(NULL, dir, &c), 0);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.v[0].path, "/x y");
	assert_true(c.v[0].other_root);
	op_cgroups_release(&c);

	/* no file: no processes, no error */
	tu_rm_rf(dir);
	assert_int_equal(op_cgroups_read(NULL, dir, &c), 0);
	assert_int_equal(c.n, 0);
	free(file);
	free(dir);
}

/* Containers that share a cgroup are told apart by their roots: in a
 * cgroup whose processes saw more than one root directory of their own,
 * those processes get the root in their names; the host's processes, and
 * those that saw our root in mounts of their own, keep the cgroup's name,
 * and a cgroup of one root keeps its name. A root line not right after
 * its process's line is not taken. */
static void test_shared(void **state)
{
	char *dir = tu_mkdtemp(), *file;
	static const char text[] =
		"10 1 /shared\n"
		"root 10 2049 100\n"
		"11 1 /shared\n"
		"root 11 2049 200\n"
		"12 0 /shared\n"
		"17 1 /shared\n"	/* our root, its own mounts: no root line */
		"13 1 /solo\n"
		"root 13 2049 300\n"
		"16 1 /solo\n"
		"root 16 2049 300\n"
		"14 1 /\n"
		"root 14 2049 400\n"
		"15 0 /\n"
		"root 14 2049 999\n"	/* not after 14's line */
		"18 1 /other\n"
		"root 18 2049 500\n"
		"root 15 2049 999\n";	/* 15 sees the daemon's root */
	struct op_cgroups c;
	FILE *f;

	(void)state;
	file = write_cgroups(dir, text);
	assert_int_equal(op_cgroups_read(NULL, dir, &c), 0);
	assert_int_equal(c.n, 9);
	assert_string_equal(op_cgroups_find(&c, 10)->name, "shared+root:8:1:100");
	assert_string_equal(op_cgroups_find(&c, 11)->name, "shared+root:8:1:200");
	assert_string_equal(op_cgroups_find(&c, 12)->name, "shared");
	assert_string_equal(op_cgroups_find(&c, 17)->name, "shared");
	assert_string_equal(op_cgroups_find(&c, 13)->name, "solo");
	assert_string_equal(op_cgroups_find(&c, 16)->name, "solo");
	/* alone in / with a root of its own: the host's 15 does not count */
	assert_string_equal(op_cgroups_find(&c, 14)->name, "");
	assert_string_equal(op_cgroups_find(&c, 18)->name, "other");
	assert_string_equal(op_cgroups_find(&c, 15)->name, "");
	assert_int_equal(op_cgroups_find(&c, 14)->root_ino, 400);
	assert_int_equal(op_cgroups_find(&c, 15)->root_ino, 0);
	op_cgroups_release(&c);

	/* the writer's lines read back */
	f = fopen(file, "w");
	assert_non_null(f);
	op_cgroups_write_line(f, 20, true, "/c");
	op_cgroups_write_root(f, 20, 2049, 7);
	op_cgroups_write_line(f, 21, true, "/c");
	op_cgroups_write_root(f, 21, 2049, 8);
	op_cgroups_write_line(f, 22, true, "/");
	op_cgroups_write_root(f, 22, 2049, 9);
	op_cgroups_write_line(f, 23, true, "/");
	op_cgroups_write_root(f, 23, 2049, 10);
	fclose(f);
	assert_int_equal(op_cgroups_read(NULL, dir, &c), 0);
	assert_string_equal(op_cgroups_find(&c, 20)->name, "c+root:8:1:7");
	assert_string_equal(op_cgroups_find(&c, 21)->name, "c+root:8:1:8");
	assert_string_equal(op_cgroups_find(&c, 22)->name, "root:8:1:9");
	assert_string_equal(op_cgroups_find(&c, 23)->name, "root:8:1:10");
	op_cgroups_release(&c);
	tu_rm_rf(dir);
	free(file);
	free(dir);
}

static void test_ns_and_images(void **state)
{
	char *dir = tu_mkdtemp(), *file;
	static const char text[] =
		"20 1 /c1\n"
		"ns 20 1\n"
		"21 1 /c2\n"
		"ns 21 1\n"
		"22 0 /user.slice/session-3.scope\n"
		"ns 21 x\n"			/* malformed: skipped */
		"image 1 ab/cdef/app/prog\t/c1\n"
		"image 1 ab/cdef/app/prog\t/c1\n"	/* the same, said once */
		"image 0 ab/cdef/app/prog\t/user.slice/session-3.scope\n"
		"image 1 12/3456/app/prog\t/c2\n"
		"image 1 99/9999/root\t/\n"
		"image 1 notab /c1\n"		/* malformed: skipped */
		"21 1 /c2\n"			/* pid 21 again: a new process */
		"ns 25 2\n";			/* a thread of 20 */
	struct op_cgroups c;
	char who[64];
	FILE *f;

	(void)state;
	file = write_cgroups(dir, text);
	assert_int_equal(op_cgroups_read(NULL, dir, &c), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(op_cgroups_nsid(&c, 20), 1);
	assert_int_equal(op_cgroups_nsid(&c, 21), 0);	/* forgotten */
	assert_int_equal(op_cgroups_nsid(&c, 22), 0);
	assert_int_equal(op_cgroups_nsid(&c, 25), 2);
	assert_true(op_cgroups_image_who(&c, "ab/cdef/app/prog", who, sizeof(who)));
	assert_string_equal(who, "c1,host");
	assert_true(op_cgroups_image_who(&c, "12/3456/app/prog", who, sizeof(who)));
	assert_string_equal(who, "c2");
	assert_true(op_cgroups_image_who(&c, "99/9999/root", who, sizeof(who)));
	assert_string_equal(who, "/");
	assert_false(op_cgroups_image_who(&c, "ab/cdef/app/other", who, sizeof(who)));
	assert_string_equal(who, "");
	/* a small buffer leaves names out, never cuts one */
	assert_true(op_cgroups_image_who(&c, "ab/cdef/app/prog", who, 5));
	assert_string_equal(who, "c1");
	op_cgroups_release(&c);

	/* written as read; names that could not be read back are not written */
	f = fopen(file, "w");
	assert_non_null(f);
	op_cgroups_write_line(f, 30, true, "/c3");
	op_cgroups_write_nsid(f, 30, 7);
	op_cgroups_write_image(f, "aa/bbbb/x", true, "/c3");
	op_cgroups_write_image(f, "aa/bbbb/tab\there", true, "/c3");
	op_cgroups_write_image(f, "aa/bbbb/y", true, "/c\n3");
	fclose(f);
	assert_int_equal(op_cgroups_read(NULL, dir, &c), 0);
	assert_int_equal(c.nr_uses, 1);
	assert_int_equal(op_cgroups_nsid(&c, 30), 7);
	assert_true(op_cgroups_image_who(&c, "aa/bbbb/x", who, sizeof(who)));
	assert_string_equal(who, "c3");
	op_cgroups_release(&c);
	tu_rm_rf(dir);
	free(file);
	free(dir);
}

static void test_kept_path(void **state)
{
	static const struct {
		const char *name, *path, *rel;
	} cases[] = {
		{ "/s/kept/ab/0123456789abcdef0123456789abcdef012345/app/prog",
		  "/app/prog", "ab/0123456789abcdef0123456789abcdef012345/app/prog" },
		{ "/s/kept/ino/fd-1-12345/app/prog", "/app/prog", "ino/fd-1-12345/app/prog" },
		/* a store inside a path that has "kept" in it before */
		{ "/kept/x/s/kept/ab/0123456789abcdef01/lib/libc.so.6", "/lib/libc.so.6",
		  "ab/0123456789abcdef01/lib/libc.so.6" },
		{ "/usr/bin/prog", NULL, NULL },
		{ "/s/kept/ab/0123/app/prog", NULL, NULL },		/* too short an id */
		{ "/s/kept/AB/0123456789ABCDEF01/app/prog", NULL, NULL },	/* not ours: upper case */
		{ "/s/kept/ab/0123456789abcdef0/app/prog", NULL, NULL },	/* odd */
		{ "/s/kept/ab/0123456789abcdef01", NULL, NULL },	/* no path */
		{ "/s/kept/ino/fd-1-x/app/prog", NULL, NULL },
		{ "/s/kept/other/thing", NULL, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *rel = NULL, *path = op_kept_path(cases[i].name, &rel);

		if (!cases[i].path) {
			assert_null(path);
			continue;
		}
		assert_non_null(path);
		assert_string_equal(path, cases[i].path);
		assert_string_equal(rel, cases[i].rel);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_shared),
		cmocka_unit_test(test_ns_and_images),
		cmocka_unit_test(test_kept_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
