/* Cgroup ids (kop_cgroup.c) against a fixture: a proc root whose
 * self/mountinfo names a directory tree as the cgroup2 mount (its
 * directories' inode numbers are the ids, as kernfs's are), and processes'
 * cgroup files. The scan names every directory by its id; a sample's id
 * names its process's cgroup (a process running before the start, one
 * whose read at exec failed, one moved: counted, a later line); an id met
 * before anything named it is read from /proc, and kept only when the
 * path is the id's; a made cgroup's record is taken only when the v2
 * directory at its path has its id (a v1 hierarchy's ids are others');
 * unreadable cgroups are counted once. */
#include "config.h"

#include <errno.h>
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

#include "kop_cgroup.h"
#include "testutil.h"

struct fixture {
	char *top;		/* the temporary directory */
	char *proc;		/* the proc root */
	char *cg;		/* the "cgroup2 mount" (a name with a space) */
};

/* The recorded lines, as stats/cgroups would have them. */
struct said {
	char text[4096];
};

static void say_process(void *ctx, pid_t tgid, bool other_root, const char *cgroup)
{
	struct said *s = ctx;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "%d %d %s\n", (int)tgid,
		 other_root ? 1 : 0, cgroup);
}

static void say_nsid(void *ctx, pid_t id, pid_t nsid)
{
	struct said *s = ctx;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "ns %d %d\n", (int)id, (int)nsid);
}

static void say_image(void *ctx, const char *rel, bool other_root, const char *cgroup)
{
	struct said *s = ctx;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "image %d %s\t%s\n",
		 other_root ? 1 : 0, rel, cgroup);
}

static void say_root(void *ctx, pid_t tgid, uint64_t dev, uint64_t ino)
{
	struct said *s = ctx;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "root %d %llu %llu\n", (int)tgid,
		 (unsigned long long)dev, (unsigned long long)ino);
}

static const struct kop_cgroup_ops say_ops = {
	.process = say_process, .nsid = say_nsid, .root = say_root,
	.image = say_image,
};

static void mkdir_in(const char *dir, const char *rel)
{
	char *p = tu_path(dir, rel);

	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
}

static uint64_t id_of(const struct fixture *f, const char *rel)
{
	char *p = tu_path(f->cg, rel);
	struct stat st;

	assert_int_equal(stat(p, &st), 0);
	free(p);
	return (uint64_t)st.st_ino;
}

/* PID's /proc/PID/cgroup says "0::PATH" (NULL: no such process) */
static void proc_cgroup(const struct fixture *f, pid_t pid, const char *path)
{
	char rel[64], text[PATH_MAX];
	char *p;

	snprintf(rel, sizeof(rel), "%d", (int)pid);
	p = tu_path(f->proc, rel);
	mkdir(p, 0755);
	free(p);
	snprintf(rel, sizeof(rel), "%d/cgroup", (int)pid);
	p = tu_path(f->proc, rel);
	if (path) {
		snprintf(text, sizeof(text), "4:memory:/elsewhere\n0::%s\n", path);
		assert_int_equal(tu_write_file(p, text, strlen(text)), 0);
	} else {
		unlink(p);
	}
	free(p);
}

static void make_fixture(struct fixture *f)
{
	char text[PATH_MAX * 2], *p;

	f->top = tu_mkdtemp();
	assert_non_null(f->top);
	f->proc = tu_path(f->top, "proc");
	f->cg = tu_path(f->top, "cg root");
	assert_int_equal(mkdir(f->proc, 0755), 0);
	assert_int_equal(mkdir(f->cg, 0755), 0);
	p = tu_path(f->proc, "self");
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	/* a v1 hierarchy first, then the v2 mount, its space escaped */
	snprintf(text, sizeof(text),
		 "25 1 0:22 / /sys/fs/cgroup/memory rw shared:9 - cgroup cgroup rw,memory\n"
		 "26 1 0:23 / %s/cg\\040root rw,nosuid shared:10 - cgroup2 cgroup2 rw\n",
		 f->top);
	p = tu_path(f->proc, "self/mountinfo");
	assert_int_equal(tu_write_file(p, text, strlen(text)), 0);
	free(p);
	mkdir_in(f->cg, "a");
	mkdir_in(f->cg, "a/b");
	mkdir_in(f->cg, "c");
}

static void drop_fixture(struct fixture *f)
{
	tu_rm_rf(f->top);
	free(f->top);
	free(f->proc);
	free(f->cg);
}

static struct kop_task task(pid_t tgid)
{
	return (struct kop_task){ .tgid = tgid, .root = KOP_ROOT_HOST };
}

/* A sample of k in cgroup id, as kop_root_task_sampled gives it. */
static bool sample(struct kop_cgroups *c, struct kop_task *k, uint64_t id)
{
	bool changed = false;

	if (id != k->cgroup_id)
		kop_cgroups_note_sample(c, k, id, &changed);
	return changed;
}

static void test_scan_and_samples(void **state)
{
	struct fixture f;
	struct kop_cgroups c;
	struct kop_task k = task(100), q = task(200);
	struct said said = { "" };

	(void)state;
	make_fixture(&f);
	assert_int_equal(kop_cgroups_init(&c, f.proc), 0);
	/* the root and its three directories */
	assert_int_equal(kop_cgroups_scan(&c), 4);
	assert_true(c.sample_ids);

	/* running before the start: named by its first sample, no /proc read
	 * needed (there is none for 100) */
	assert_true(sample(&c, &k, id_of(&f, "a/b")));
	assert_int_equal(k.cgroup_id, id_of(&f, "a/b"));
	assert_false(sample(&c, &k, id_of(&f, "a/b")));
	/* another process in the root cgroup */
	assert_true(sample(&c, &q, id_of(&f, ".")));
	/* 100 moved: a later line, the process counted once */
	assert_true(sample(&c, &k, id_of(&f, "c")));
	assert_int_equal(atomic_load(&c.nr_moved), 1);
	assert_int_equal(atomic_load(&c.nr_unread), 0);

	kop_cgroups_each(&c, &say_ops, &said);
	assert_string_equal(said.text, "100 0 /a/b\n200 0 /\n100 0 /c\n");
	kop_cgroups_release(&c);
	drop_fixture(&f);
}

static void test_unknown_ids(void **state)
{
	struct fixture f;
	struct kop_cgroups c;
	struct kop_task k = task(300), g = task(400), m = task(500), e = task(600);
	struct said said = { "" };

	(void)state;
	make_fixture(&f);
	assert_int_equal(kop_cgroups_init(&c, f.proc), 0);
	assert_int_equal(kop_cgroups_scan(&c), 4);
	mkdir_in(f.cg, "d");		/* made after the scan, its record lost */
	mkdir_in(f.cg, "e");

	/* /proc says /d, whose id it is: named, and the id kept */
	proc_cgroup(&f, 300, "/d");
	assert_true(sample(&c, &k, id_of(&f, "d")));
	proc_cgroup(&f, 300, NULL);
	m = task(301);
	assert_true(sample(&c, &m, id_of(&f, "d")));	/* by the id alone now */

	/* /proc names another cgroup than the sample's (moved on since): the
	 * process is named by /proc's, the id is not kept for that path */
	proc_cgroup(&f, 500, "/a");
	m = task(500);
	assert_true(sample(&c, &m, id_of(&f, "e")));
	proc_cgroup(&f, 500, NULL);
	g = task(501);
	assert_false(sample(&c, &g, id_of(&f, "e")));	/* not /a: unknown */
	assert_int_equal(atomic_load(&c.nr_unread), 1);
	assert_false(sample(&c, &g, id_of(&f, "e")));	/* tried once */
	assert_int_equal(atomic_load(&c.nr_unread), 1);

	/* a record for a v1 hierarchy's cgroup: its id is not /e's */
	kop_cgroups_note_made(&c, id_of(&f, "e") + 1000000, "/e");
	assert_int_equal(c.nr_ids_made, 0);
	/* the real one */
	kop_cgroups_note_made(&c, id_of(&f, "e"), "/e");
	assert_int_equal(c.nr_ids_made, 1);
	g = task(502);
	assert_true(sample(&c, &g, id_of(&f, "e")));

	/* at exec, a gone process is not counted: its samples name it */
	proc_cgroup(&f, 600, NULL);
	kop_cgroups_note_exec(&c, &e);
	assert_int_equal(e.cgroup, 0);
	assert_int_equal(atomic_load(&c.nr_unread), 1);

	kop_cgroups_each(&c, &say_ops, &said);
	assert_string_equal(said.text, "300 0 /d\n301 0 /d\n500 0 /a\n502 0 /e\n");
	kop_cgroups_release(&c);
	drop_fixture(&f);
}

/* Without ids in the samples (an older kernel), a failed read at exec is
 * what counts; without a cgroup2 mount, the scan says so and samples are
 * named through /proc. */
static void test_without(void **state)
{
	struct fixture f;
	struct kop_cgroups c;
	struct kop_task e = task(700), k = task(701);
	char *p;

	(void)state;
	make_fixture(&f);
	assert_int_equal(kop_cgroups_init(&c, f.proc), 0);
	kop_cgroups_note_exec(&c, &e);
	assert_int_equal(atomic_load(&c.nr_unread), 1);
	kop_cgroups_release(&c);

	p = tu_path(f.proc, "self/mountinfo");
	assert_int_equal(tu_write_file(p, "25 1 0:22 / /x rw - cgroup cgroup rw\n", 37), 0);
	free(p);
	assert_int_equal(kop_cgroups_init(&c, f.proc), 0);
	assert_int_equal(kop_cgroups_scan(&c), -ENOENT);
	proc_cgroup(&f, 701, "/a/b");
	assert_true(sample(&c, &k, 12345));
	assert_int_equal(k.cgroup, 1);
	assert_int_equal(atomic_load(&c.nr_unread), 0);
	kop_cgroups_release(&c);
	drop_fixture(&f);
}

/* A process whose samples keep changing cgroup (a threaded cgroup's
 * threads): counted once, a bounded number of lines, the last of which
 * follows its last samples; each line of a process of another root keeps
 * its root, and of one in another PID namespace its pid there, read once
 * (the process may be gone at a later move). A fork's child's moves are
 * its own. */
static void test_moves(void **state)
{
	struct fixture f;
	struct kop_cgroups c;
	struct kop_task k = task(800), child;
	struct said said = { "" };
	uint64_t a, b;
	size_t lines = 0;
	const char *last;
	char *p;

	(void)state;
	make_fixture(&f);
	proc_cgroup(&f, 800, NULL);		/* makes proc/800 */
	p = tu_path(f.proc, "800/ns");
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = tu_path(f.proc, "800/ns/pid");	/* not our namespace's inode */
	assert_int_equal(tu_write_file(p, "", 0), 0);
	free(p);
	p = tu_path(f.proc, "800/status");
	assert_int_equal(tu_write_file(p, "Name:\tx\nNSpid:\t800\t5\n",
				       strlen("Name:\tx\nNSpid:\t800\t5\n")), 0);
	assert_int_equal(kop_cgroups_init(&c, f.proc), 0);
	assert_int_equal(kop_cgroups_scan(&c), 4);
	a = id_of(&f, "a");
	b = id_of(&f, "c");
	k.root = KOP_ROOT_OTHER;
	k.root_dev = 2049;
	k.root_ino = 77;
	assert_true(sample(&c, &k, a));
	assert_true(k.pidns);
	assert_int_equal(k.nspid, 5);
	unlink(p);				/* gone before its moves */
	free(p);
	for (int i = 1; i < 50; i++)
		sample(&c, &k, i % 2 ? b : a);
	sample(&c, &k, id_of(&f, "a/b"));	/* its last samples */
	assert_int_equal(atomic_load(&c.nr_moved), 1);
	assert_int_equal(atomic_load(&c.nr_nspid_unread), 0);
	kop_cgroups_each(&c, &say_ops, &said);
	for (const char *q = said.text; (q = strstr(q, "800 1 /")); q++) {
		lines++;
		last = q;
	}
	assert_int_equal(lines, 1 + KOP_CGROUP_MOVES_WRITTEN);
	assert_string_equal(last, "800 1 /a/b\nroot 800 2049 77\nns 800 5\n");
	assert_non_null(strstr(said.text, "800 1 /a\nroot 800 2049 77\nns 800 5\n"
					  "800 1 /c\nroot 800 2049 77\nns 800 5\n"));

	/* a fork: in its parent's cgroup, its own first move counted */
	memset(&child, 0, sizeof(child));
	child.tgid = 810;
	assert_int_equal(kop_task_copy_maps(&child, &k), 0);
	assert_int_equal(child.cgroup_lines, 0);
	assert_true(sample(&c, &child, b));
	assert_int_equal(atomic_load(&c.nr_moved), 2);
	free(child.maps);
	free(child.starts);
	kop_cgroups_release(&c);
	drop_fixture(&f);
}

/* The cgroup2 mount shows the hierarchy below /ns (mountinfo's root): the
 * scan names its directories from there, and a made cgroup's path (from
 * the hierarchy's root) is looked for below the mount accordingly. */
static void test_sub(void **state)
{
	struct fixture f;
	struct kop_cgroups c;
	struct kop_task k = task(900);
	struct said said = { "" };
	char text[PATH_MAX * 2], *p;

	(void)state;
	make_fixture(&f);
	snprintf(text, sizeof(text),
		 "26 1 0:23 /ns %s/cg\\040root rw - cgroup2 cgroup2 rw\n", f.top);
	p = tu_path(f.proc, "self/mountinfo");
	assert_int_equal(tu_write_file(p, text, strlen(text)), 0);
	free(p);
	assert_int_equal(kop_cgroups_init(&c, f.proc), 0);
	assert_int_equal(kop_cgroups_scan(&c), 4);
	mkdir_in(f.cg, "x");
	kop_cgroups_note_made(&c, id_of(&f, "x"), "/x");	/* not below /ns */
	assert_int_equal(c.nr_ids_made, 0);
	kop_cgroups_note_made(&c, id_of(&f, "x"), "/nsx");
	assert_int_equal(c.nr_ids_made, 0);
	kop_cgroups_note_made(&c, id_of(&f, "x"), "/ns/x");
	assert_int_equal(c.nr_ids_made, 1);
	assert_true(sample(&c, &k, id_of(&f, "a/b")));
	k = task(901);
	assert_true(sample(&c, &k, id_of(&f, "x")));
	kop_cgroups_each(&c, &say_ops, &said);
	assert_string_equal(said.text, "900 0 /ns/a/b\n901 0 /ns/x\n");
	kop_cgroups_release(&c);
	drop_fixture(&f);
}

/* A hierarchy of many cgroups (a node's hundreds of pods): each named by
 * its id, a path met again at an exec found, not added twice. */
static void test_many(void **state)
{
	struct fixture f;
	struct kop_cgroups c;
	struct said said = { "" };
	char rel[64];
	size_t nr_paths;

	(void)state;
	make_fixture(&f);
	for (int i = 0; i < 300; i++) {
		snprintf(rel, sizeof(rel), "c/pod%d", i);
		mkdir_in(f.cg, rel);
	}
	assert_int_equal(kop_cgroups_init(&c, f.proc), 0);
	assert_int_equal(kop_cgroups_scan(&c), 304);
	nr_paths = c.nr_paths;
	for (int i = 0; i < 300; i += 37) {
		struct kop_task k = task(1000 + i);
		char want[64];

		snprintf(rel, sizeof(rel), "c/pod%d", i);
		assert_true(sample(&c, &k, id_of(&f, rel)));
		snprintf(want, sizeof(want), "/c/pod%d", i);
		assert_string_equal(c.paths[k.cgroup - 1], want);
		proc_cgroup(&f, 2000 + i, want);	/* the same path at an exec */
		k = task(2000 + i);
		kop_cgroups_note_exec(&c, &k);
		assert_string_equal(c.paths[k.cgroup - 1], want);
	}
	assert_int_equal(c.nr_paths, nr_paths);
	kop_cgroups_each(&c, &say_ops, &said);
	assert_non_null(strstr(said.text, "1296 0 /c/pod296\n2296 0 /c/pod296\n"));
	kop_cgroups_release(&c);
	drop_fixture(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_and_samples),
		cmocka_unit_test(test_unknown_ids),
		cmocka_unit_test(test_without),
		cmocka_unit_test(test_moves),
		cmocka_unit_test(test_sub),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
