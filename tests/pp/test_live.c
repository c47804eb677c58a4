/* optop's reading of a live session (pp/live/): the interval arithmetic
 * on sample files written here as a daemon writes them (odb_add through
 * the mapping, growth by rename, a daemon that restarts or stops), and the
 * rows' sort and filter on a real binary's symbols. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
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

#include "odb.h"
#include "op_names.h"
#include "op_sessdir.h"
#include "pp_live.h"
#include "pp_live_view.h"
#include "pp_symbols.h"
#include "testutil.h"

/* ---- a fake daemon: sample files under DIR/samples/current ---- */

/* What a refresh reported, key by key (one file at a time is enough). */
struct seen {
	uint64_t key[1024];
	uint64_t n[1024];
	size_t nr;
	uint64_t total;
};

struct fixture {
	char *dir;
	char current[4096];
	/* the interval tests' scan of current (watch_start(); teardown
	 * releases it), and what its last refresh said */
	struct pp_live_scan scan;
	bool scanning;
	struct pp_live_news news;
	struct seen s;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->dir = tu_mkdtemp();
	assert_non_null(f->dir);
	snprintf(f->current, sizeof(f->current), "%s/samples/current", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f->scanning)
		pp_live_scan_release(&f->scan);
	tu_rm_rf(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static void mkdirs(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
	mkdir(buf, 0755);
}

/* The path of the sample file n names under current, its directory made. */
static char *sfile_of(const struct fixture *f, const struct op_sfname *n)
{
	char *rel = op_sfname_build(n), *full, *slash;

	assert_non_null(rel);
	assert_true(asprintf(&full, "%s/%s", f->current, rel) > 0);
	free(rel);
	slash = strrchr(full, '/');
	*slash = '\0';
	mkdirs(full);
	*slash = '/';
	return full;
}

/* The path of the sample file of app's image at cpu (-1: all). */
static char *sfile(const struct fixture *f, const char *app, int cpu)
{
	struct op_sfname n = {
		.image = { .kind = OP_IMG_FILE, .path = (char *)app },
		.dep = { .kind = OP_IMG_FILE, .path = (char *)app },
		.event = (char *)"TIMER", .count = 100000,
		.tgid = OP_SF_ALL, .tid = OP_SF_ALL, .cpu = cpu,
	};

	return sfile_of(f, &n);
}

/* The arc file of caller image caller_img calling into callee_img. */
static char *arc_file(const struct fixture *f, const char *caller_img,
		      const char *callee_img)
{
	struct op_sfname n = {
		.image = { .kind = OP_IMG_FILE, .path = (char *)caller_img },
		.dep = { .kind = OP_IMG_FILE, .path = (char *)caller_img },
		.cg = { .kind = OP_IMG_FILE, .path = (char *)callee_img },
		.event = (char *)"TIMER", .count = 100000,
		.tgid = OP_SF_ALL, .tid = OP_SF_ALL, .cpu = OP_SF_ALL,
	};

	return sfile_of(f, &n);
}

/* Add n to key in the file at path, as the daemon does. */
static void add(const char *path, uint64_t key, uint32_t n)
{
	odb_t db;

	assert_int_equal(odb_open(&db, NULL, path, ODB_RDWR), 0);
	assert_int_equal(odb_add(&db, key, n), 0);
	odb_close(&db);
}

static void collect(void *ctx, struct pp_live_file *file, struct pp_live_key *k,
		    uint64_t delta)
{
	struct seen *s = ctx;

	(void)file;
	assert_true(s->nr < 1024);
	s->key[s->nr] = k->key;
	s->n[s->nr++] = delta;
	s->total += delta;
}

static uint64_t seen_of(const struct seen *s, uint64_t key)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->nr; i++)
		if (s->key[i] == key)
			n += s->n[i];
	return n;
}

static void refresh(struct pp_live_scan *scan, struct seen *s,
		    struct pp_live_news *news)
{
	memset(s, 0, sizeof(*s));
	assert_int_equal(pp_live_scan_refresh(scan, collect, s, news), 0);
}

/* The fixture's scan of current: its next refresh. */
static void watch(struct fixture *f)
{
	refresh(&f->scan, &f->s, &f->news);
}

/* The fixture's scan of current started, and its first refresh (the
 * baseline) read. */
static void watch_start(struct fixture *f)
{
	assert_int_equal(pp_live_scan_init(&f->scan, NULL, f->current, NULL), 0);
	f->scanning = true;
	watch(f);
}

/* ---- the interval arithmetic ---- */

/* The first refresh is the baseline; then each refresh reports what each
 * key gained, and nothing for keys that did not move. */
static void test_deltas(void **state)
{
	struct fixture *f = *state;
	char *path = sfile(f, "/bin/app", -1);

	add(path, 0x1000, 5);
	add(path, 0x2000, 3);
	watch_start(f);
	assert_int_equal(f->s.nr, 0);
	assert_int_equal(f->news.samples, 0);

	add(path, 0x1000, 2);
	add(path, 0x3000, 4);
	watch(f);
	assert_int_equal(f->s.nr, 2);
	assert_int_equal(seen_of(&f->s, 0x1000), 2);
	assert_int_equal(seen_of(&f->s, 0x3000), 4);
	assert_int_equal(f->news.samples, 6);
	assert_int_equal(f->news.nr_new_files, 0);

	watch(f);	/* nothing moved */
	assert_int_equal(f->s.nr, 0);
	free(path);
}

/* A file that appears between two refreshes holds only new samples. */
static void test_new_file(void **state)
{
	struct fixture *f = *state;
	char *a = sfile(f, "/bin/a", -1), *b;

	add(a, 0x10, 1);
	watch_start(f);
	b = sfile(f, "/bin/b", -1);
	add(b, 0x20, 7);
	add(b, 0x30, 2);
	watch(f);
	assert_int_equal(f->news.nr_new_files, 1);
	assert_int_equal(f->s.total, 9);
	assert_int_equal(seen_of(&f->s, 0x20), 7);
	free(a);
	free(b);
}

/* A refresh reads every file before it hands out a delta: what the daemon
 * writes while the caller works on the deltas (the first refresh after
 * the baseline looks every key's symbol up, long on a loaded machine)
 * belongs to the next interval, whichever file it lands in. Read file by
 * file, the files after the first held more than the interval's share. */
struct landing {
	struct seen seen;
	char *path[2];
	bool landed;
};

static void land(void *ctx, struct pp_live_file *file, struct pp_live_key *k,
		 uint64_t delta)
{
	struct landing *l = ctx;

	collect(&l->seen, file, k, delta);
	if (l->landed)
		return;
	l->landed = true;
	add(l->path[0], 0x99, 100);
	add(l->path[1], 0x99, 100);
}

static void test_counts_before_deltas(void **state)
{
	struct fixture *f = *state;
	struct landing l = { .path = { sfile(f, "/bin/a", 0), sfile(f, "/bin/b", 1) } };
	struct pp_live_scan scan;
	struct seen s;

	add(l.path[0], 0x10, 1);
	add(l.path[1], 0x20, 1);
	assert_int_equal(pp_live_scan_init(&scan, NULL, f->current, NULL), 0);
	refresh(&scan, &s, NULL);
	add(l.path[0], 0x10, 3);
	add(l.path[1], 0x20, 4);
	assert_int_equal(pp_live_scan_refresh(&scan, land, &l, NULL), 0);
	assert_true(l.landed);
	assert_int_equal(l.seen.total, 7);
	assert_int_equal(seen_of(&l.seen, 0x99), 0);
	refresh(&scan, &s, NULL);
	assert_int_equal(s.total, 200);
	assert_int_equal(seen_of(&s, 0x99), 200);
	pp_live_scan_release(&scan);
	free(l.path[0]);
	free(l.path[1]);
}

/* A session directory that does not exist yet (a daemon about to start),
 * then does. */
static void test_no_session_yet(void **state)
{
	struct fixture *f = *state;
	char *a;

	watch_start(f);
	assert_int_equal(f->s.nr, 0);
	a = sfile(f, "/bin/a", 0);
	add(a, 0x10, 3);
	watch(f);
	assert_int_equal(f->s.total, 3);
	free(a);
}

/* Growth renames a larger copy over the file (another inode, nodes in
 * another order): only what was added since counts. */
static void test_growth(void **state)
{
	struct fixture *f = *state;
	char *path = sfile(f, "/bin/app", -1);
	struct stat before, after;
	odb_t db;

	assert_int_equal(odb_open(&db, NULL, path, ODB_RDWR), 0);
	for (uint64_t k = 1; k <= 100; k++)
		assert_int_equal(odb_add(&db, k * 16, (uint32_t)k), 0);
	odb_close(&db);
	watch_start(f);
	assert_int_equal(stat(path, &before), 0);
	assert_int_equal(odb_open(&db, NULL, path, ODB_RDWR), 0);
	for (uint64_t k = 1; k <= 400; k++)	/* past 128 nodes, twice */
		assert_int_equal(odb_add(&db, k * 16, 1), 0);
	odb_close(&db);
	assert_int_equal(stat(path, &after), 0);
	assert_true(before.st_ino != after.st_ino);
	watch(f);
	assert_int_equal(f->news.nr_regrown, 1);
	assert_int_equal(f->news.nr_renewed, 0);
	assert_int_equal(f->s.nr, 400);
	assert_int_equal(f->s.total, 400);
	assert_int_equal(seen_of(&f->s, 16 * 50), 1);
	free(path);
}

/* A daemon restarted on a reset session makes its files anew: a key that
 * counts less than before says so, and every count is new. */
static void test_restart(void **state)
{
	struct fixture *f = *state;
	char *path = sfile(f, "/bin/app", -1);

	add(path, 0x100, 50);
	add(path, 0x200, 20);
	watch_start(f);
	assert_int_equal(unlink(path), 0);
	add(path, 0x100, 4);
	add(path, 0x300, 6);
	watch(f);
	assert_int_equal(f->news.nr_renewed, 1);
	assert_int_equal(seen_of(&f->s, 0x100), 4);
	assert_int_equal(seen_of(&f->s, 0x300), 6);
	assert_int_equal(seen_of(&f->s, 0x200), 0);
	assert_int_equal(f->s.total, 10);
	/* and from there on, deltas as usual */
	add(path, 0x200, 1);
	watch(f);
	assert_int_equal(f->s.total, 1);
	assert_int_equal(seen_of(&f->s, 0x200), 1);
	free(path);
}

/* A session removed (--reset) and a daemon that stopped: files go away,
 * nothing is reported; files that come back later are new. */
static void test_stop_and_reset(void **state)
{
	struct fixture *f = *state;
	char *path = sfile(f, "/bin/app", 1);

	add(path, 0x100, 50);
	watch_start(f);
	/* stopped: nothing moves */
	watch(f);
	watch(f);
	assert_int_equal(f->s.nr, 0);
	/* reset */
	assert_int_equal(tu_rm_rf(f->current), 0);
	watch(f);
	assert_int_equal(f->news.nr_gone, 1);
	assert_int_equal(f->s.nr, 0);
	assert_int_equal(f->scan.nr_files, 0);
	/* a new daemon on the same directory */
	free(path);
	path = sfile(f, "/bin/app", 1);
	add(path, 0x100, 2);
	watch(f);
	assert_int_equal(f->news.nr_new_files, 1);
	assert_int_equal(f->s.total, 2);
	free(path);
}

/* A count past 2^32 continues in a second node of the same key: the sums
 * are over both. */
static void test_overflow_nodes(void **state)
{
	struct fixture *f = *state;
	char *path = sfile(f, "/bin/app", -1);

	add(path, 0x100, UINT32_MAX - 1);
	watch_start(f);
	add(path, 0x100, 5);
	watch(f);
	assert_int_equal(f->s.nr, 1);
	assert_int_equal(f->s.total, 5);
	free(path);
}

/* Files that are not sample files (a growth's temporary, a damaged file)
 * are skipped, the damaged one said once. */
static void test_not_sample_files(void **state)
{
	struct fixture *f = *state;
	char *path = sfile(f, "/bin/app", -1), *bad = sfile(f, "/bin/bad", -1);
	char tmp[4200];

	add(path, 0x10, 1);
	assert_int_equal(tu_write_file(bad, "not a sample file", 17), 0);
	snprintf(tmp, sizeof(tmp), "%s/{root}/.odbtmp.abcdef", f->current);
	assert_int_equal(tu_write_file(tmp, "x", 1), 0);
	watch_start(f);
	assert_int_equal(f->news.nr_bad, 1);
	add(path, 0x10, 1);
	watch(f);
	assert_int_equal(f->s.total, 1);
	assert_int_equal(f->scan.nr_said_bad, 1);
	free(path);
	free(bad);
}

/* A file the baseline found but could not read (a writer mid-update):
 * read later, its counts are still the past, not the interval's. */
static void test_unreadable_at_baseline(void **state)
{
	struct fixture *f = *state;
	char *path = sfile(f, "/bin/app", -1);

	assert_int_equal(tu_write_file(path, "half a file", 11), 0);
	watch_start(f);
	assert_int_equal(f->news.nr_bad, 1);
	assert_int_equal(unlink(path), 0);
	add(path, 0x10, 40);
	watch(f);
	assert_int_equal(f->s.nr, 0);
	add(path, 0x10, 2);
	watch(f);
	assert_int_equal(f->s.total, 2);
	free(path);
}

/* ---- the view: symbols, sort and filter ---- */

static char *target(void)
{
	char *p = tu_builddir_path("tests/pp", "pp_target_nopie");

	assert_non_null(p);
	return p;
}


/* ---- links planted in the watched session ---- */

/* Read through the session's descriptor: a sample file that is a link, a
 * directory of them that is a link, stats a link, then current itself a link, each to
 * sample files outside with counts that grow; none is read, each is named
 * once, and the session's own file still is. */
static void test_links_refused(void **state)
{
	struct fixture *f = *state;
	char *out = tu_mkdtemp(), *a = sfile(f, "/bin/a", -1), *b = sfile(f, "/bin/b", -1);
	char *outside, *outdir, *linkdir, *cur2, *y, *stats, why[8192];
	struct tu_said said = { .nr = 0 };
	struct op_logger lg = { tu_said_fn, &said, OP_LOG_WARN };
	struct fixture fo = { .dir = out };
	struct op_sessdir sd;
	struct pp_live_scan scan;
	struct pp_live_news news;
	struct seen s;

	assert_non_null(out);
	snprintf(fo.current, sizeof(fo.current), "%s/samples/current", out);
	/* outside: /bin/b's file and /usr/bin/y's, with counts */
	outside = sfile(&fo, "/bin/b", -1);
	add(outside, 0x10, 5);
	y = sfile(&fo, "/usr/bin/y", -1);
	add(y, 0x20, 6);
	/* planted: b's file a link to the outside one, {root}/usr a link */
	add(a, 0x30, 1);
	unlink(b);
	assert_int_equal(symlink(outside, b), 0);
	assert_true(asprintf(&linkdir, "%s/{root}/usr", f->current) > 0);
	assert_true(asprintf(&outdir, "%s/{root}/usr", fo.current) > 0);
	assert_int_equal(symlink(outdir, linkdir), 0);
	assert_true(asprintf(&stats, "%s/stats", f->current) > 0);
	assert_int_equal(symlink(out, stats), 0);

	assert_int_equal(op_sessdir_open(&sd, f->dir, OP_SD_READ, why, sizeof(why)), 0);
	assert_int_equal(pp_live_scan_init(&scan, &sd, f->current, &lg), 0);
	refresh(&scan, &s, &news);
	assert_int_equal(news.nr_bad, 2);
	assert_int_equal(said.nr, 3);
	assert_true(tu_said_link(&said, b));
	assert_true(tu_said_link(&said, linkdir));
	assert_true(tu_said_link(&said, stats));
	/* the outside counts grow: nothing of them is read, nothing said again */
	add(outside, 0x10, 3);
	add(a, 0x30, 2);
	refresh(&scan, &s, &news);
	assert_int_equal(s.total, 2);
	assert_int_equal(seen_of(&s, 0x30), 2);
	assert_int_equal(said.nr, 3);

	/* current itself a link to the outside session */
	assert_true(asprintf(&cur2, "%s.real", f->current) > 0);
	assert_int_equal(rename(f->current, cur2), 0);
	assert_int_equal(symlink(fo.current, f->current), 0);
	add(outside, 0x10, 4);
	refresh(&scan, &s, &news);
	assert_int_equal(s.total, 0);
	assert_int_equal(news.nr_bad, 1);
	assert_int_equal(said.nr, 4);
	assert_true(tu_said_link(&said, f->current));
	refresh(&scan, &s, &news);
	assert_int_equal(said.nr, 4);	/* said once */

	pp_live_scan_release(&scan);
	op_sessdir_close(&sd);
	tu_rm_rf(out);
	free(out);
	free(outside);
	free(outdir);
	free(linkdir);
	free(cur2);
	free(y);
	free(stats);
	free(a);
	free(b);
}

/* The file offset of name in the table (PT_LOAD back from the vma). */
static uint64_t offset_of(const struct pp_symtab *st, const char *name)
{
	for (size_t i = 0; i < st->nr_syms; i++) {
		if (strcmp(st->syms[i].name, name))
			continue;
		for (size_t j = 0; j < st->nr_segs; j++) {
			const struct pp_load_seg *g = &st->segs[j];

			if (st->syms[i].start >= g->vaddr &&
			    st->syms[i].start < g->vaddr + g->filesz)
				return st->syms[i].start - g->vaddr + g->offset + 1;
		}
	}
	fail_msg("no %s", name);
	return 0;
}

/* The file offsets in bin of the symbols named: NAME, uint64_t *, ...,
 * NULL. */
static void offsets_of(const char *bin, ...)
{
	struct pp_symtab st;
	const char *name;
	va_list ap;

	assert_int_equal(pp_symtab_load_elf(&st, bin, NULL, NULL), 0);
	va_start(ap, bin);
	for (name = va_arg(ap, const char *); name; name = va_arg(ap, const char *))
		*va_arg(ap, uint64_t *) = offset_of(&st, name);
	va_end(ap);
	pp_symtab_release(&st);
}

/* The next interval of the view: what the session gained since the last
 * refresh. */
static void view_interval(struct pp_live_scan *scan, struct pp_live_view *v)
{
	pp_live_view_next(v);
	assert_int_equal(pp_live_scan_refresh(scan, pp_live_view_delta, v, NULL), 0);
}

/* A scan of the fixture's session and a view of it, their baseline read. */
static void view_start(const struct fixture *f, struct pp_live_scan *scan,
		       struct pp_live_view *v, const struct pp_report_opts *o)
{
	assert_int_equal(pp_live_scan_init(scan, NULL, f->current, NULL), 0);
	pp_live_view_init(v, o, NULL);
	view_interval(scan, v);
}

static const char *row_name(const struct pp_live_view *v,
			    const struct pp_live_rows *r, size_t i)
{
	return v->syms[r->v[i].sym].name;
}

static void test_view(void **state)
{
	struct fixture *f = *state;
	char *bin = target(), *tpath, *kpath;
	struct pp_report_opts o = { 0 };
	struct pp_live_scan scan;
	struct pp_live_view v;
	struct pp_live_rows r;
	struct pp_live_show show = { .per_cpu = true };
	uint64_t a50, b30, c15;

	offsets_of(bin, "func_a50", &a50, "func_b30", &b30, "func_c15", &c15, NULL);
	tpath = sfile(f, bin, 0);
	kpath = sfile(f, "/bin/otherapp", 1);
	add(tpath, a50, 1);
	add(kpath, 0x10, 1);
	view_start(f, &scan, &v, &o);

	/* the interval: a50 50, b30 30 (on cpu 0), c15 15, otherapp 5 (cpu 1) */
	add(tpath, a50, 50);
	add(tpath, b30, 30);
	add(tpath, c15, 15);
	add(kpath, 0x10, 5);
	view_interval(&scan, &v);
	assert_int_equal(v.interval_samples, 100);
	assert_int_equal(v.max_cpu, 1);

	assert_int_equal(pp_live_rows_build(&v, &show, &r), 0);
	assert_int_equal(r.nr, 4);
	assert_int_equal(r.all, 100);
	assert_int_equal(r.nr_cpus, 2);
	assert_string_equal(row_name(&v, &r, 0), "func_a50");
	assert_int_equal(r.v[0].n, 50);
	assert_int_equal(r.v[0].cpu[0], 50);
	assert_int_equal(r.v[0].cpu[1], 0);
	assert_string_equal(row_name(&v, &r, 1), "func_b30");
	assert_string_equal(row_name(&v, &r, 2), "func_c15");
	/* otherapp has no binary: one row named as opreport names it */
	assert_string_equal(row_name(&v, &r, 3), "(no symbols)");
	assert_int_equal(r.v[3].cpu[1], 5);
	pp_live_rows_release(&r);

	/* by name */
	show.sort = PP_LIVE_BY_NAME;
	assert_int_equal(pp_live_rows_build(&v, &show, &r), 0);
	assert_string_equal(row_name(&v, &r, 0), "(no symbols)");
	assert_string_equal(row_name(&v, &r, 1), "func_a50");
	assert_string_equal(row_name(&v, &r, 3), "func_c15");
	pp_live_rows_release(&r);

	/* filtered by process: the shares stay of the whole interval */
	show.sort = PP_LIVE_BY_SAMPLES;
	show.filter = "otherapp";
	assert_int_equal(pp_live_rows_build(&v, &show, &r), 0);
	assert_int_equal(r.nr, 1);
	assert_int_equal(r.shown, 5);
	assert_int_equal(r.all, 100);
	pp_live_rows_release(&r);
	show.filter = "pp_target";
	assert_int_equal(pp_live_rows_build(&v, &show, &r), 0);
	assert_int_equal(r.nr, 3);
	pp_live_rows_release(&r);

	/* user hidden: nothing left (no kernel here) */
	show.filter = NULL;
	show.hide_user = true;
	assert_int_equal(pp_live_rows_build(&v, &show, &r), 0);
	assert_int_equal(r.nr, 0);
	pp_live_rows_release(&r);

	/* the next interval starts empty; the totals keep everything */
	add(tpath, b30, 1);
	view_interval(&scan, &v);
	show.hide_user = false;
	assert_int_equal(pp_live_rows_build(&v, &show, &r), 0);
	assert_int_equal(r.nr, 1);
	assert_int_equal(r.v[0].n, 1);
	pp_live_rows_release(&r);
	show.totals = true;
	assert_int_equal(pp_live_rows_build(&v, &show, &r), 0);
	assert_int_equal(r.all, 101);
	assert_string_equal(row_name(&v, &r, 1), "func_b30");
	assert_int_equal(r.v[1].n, 31);
	pp_live_rows_release(&r);

	pp_live_view_release(&v);
	pp_live_scan_release(&scan);
	free(tpath);
	free(kpath);
	free(bin);
}

/* Kernel rows: a module's samples under an application ('k' and 'u',
 * --no-kernel and --no-user), and the filter by process, which keeps the
 * kernel's samples of that process. */
static void test_kernel_rows(void **state)
{
	struct fixture *f = *state;
	struct op_sfname n = {
		.image = { .kind = OP_IMG_KERN, .path = (char *)"mymod" },
		.dep = { .kind = OP_IMG_FILE, .path = (char *)"/bin/someapp" },
		.event = (char *)"TIMER", .count = 100000,
		.tgid = OP_SF_ALL, .tid = OP_SF_ALL, .cpu = 0,
	};
	static const struct {
		const char *filter;
		size_t nr;
		uint64_t shown;
	} by[] = {
		{ "someapp", 2, 10 }, { "mymod", 1, 4 }, { "nothing-like-it", 0, 0 },
	};
	char *upath = sfile(f, "/bin/someapp", 0), *kpath = sfile_of(f, &n);
	struct pp_report_opts o = { 0 };
	struct pp_live_show show = { 0 };
	struct pp_live_scan scan;
	struct pp_live_view v;
	struct pp_live_rows r;

	add(upath, 0x10, 1);
	add(kpath, 0x20, 1);
	view_start(f, &scan, &v, &o);
	add(upath, 0x10, 6);
	add(kpath, 0x20, 4);
	view_interval(&scan, &v);
	assert_int_equal(v.interval_samples, 10);

	assert_int_equal(pp_live_rows_build(&v, &show, &r), 0);
	assert_int_equal(r.nr, 2);
	assert_string_equal(v.images[v.syms[r.v[0].sym].image].name, "someapp");
	assert_string_equal(v.images[v.syms[r.v[1].sym].image].name, "mymod");
	assert_true(v.images[v.syms[r.v[1].sym].image].kernel);
	pp_live_rows_release(&r);

	show.hide_kernel = true;
	assert_int_equal(pp_live_rows_build(&v, &show, &r), 0);
	assert_int_equal(r.nr, 1);
	assert_int_equal(r.v[0].n, 6);
	assert_int_equal(r.all, 10);	/* shares stay of the interval */
	pp_live_rows_release(&r);

	show.hide_kernel = false;
	show.hide_user = true;
	assert_int_equal(pp_live_rows_build(&v, &show, &r), 0);
	assert_int_equal(r.nr, 1);
	assert_int_equal(r.v[0].n, 4);
	pp_live_rows_release(&r);

	/* by process: its kernel samples too; by image: the module alone */
	show.hide_user = false;
	for (size_t i = 0; i < sizeof(by) / sizeof(by[0]); i++) {
		show.filter = by[i].filter;
		assert_int_equal(pp_live_rows_build(&v, &show, &r), 0);
		assert_int_equal(r.nr, by[i].nr);
		assert_int_equal(r.shown, by[i].shown);
		pp_live_rows_release(&r);
	}

	pp_live_view_release(&v);
	pp_live_scan_release(&scan);
	free(upath);
	free(kpath);
}

/* The call-graph arcs: (caller, callee) pairs keyed as the daemon keys
 * them, caller's offset << 32 | callee's; the callers of a symbol, by
 * samples, for the interval and since the start. */
static void test_callers(void **state)
{
	struct fixture *f = *state;
	char *bin = target(), *arcs = arc_file(f, bin, bin);
	struct pp_report_opts o = { 0 };
	struct pp_live_scan scan;
	struct pp_live_view v;
	struct pp_live_rows r;
	uint64_t a50, b30, mainf;
	uint32_t callee = PP_LIVE_NO_TAG;

	offsets_of(bin, "func_a50", &a50, "func_b30", &b30, "main", &mainf, NULL);
	add(arcs, mainf << 32 | a50, 1);
	view_start(f, &scan, &v, &o);
	/* main calls a50 7 times, b30 calls it 3 times */
	add(arcs, mainf << 32 | a50, 7);
	add(arcs, b30 << 32 | a50, 3);
	view_interval(&scan, &v);
	assert_true(v.has_arcs);
	assert_int_equal(v.interval_samples, 0);	/* arcs are no samples */
	for (size_t i = 0; i < v.nr_syms; i++)
		if (!strcmp(v.syms[i].name, "func_a50"))
			callee = (uint32_t)i;
	assert_int_not_equal(callee, PP_LIVE_NO_TAG);
	assert_int_equal(pp_live_callers(&v, callee, false, &r), 0);
	assert_int_equal(r.nr, 2);
	assert_string_equal(row_name(&v, &r, 0), "main");
	assert_int_equal(r.v[0].n, 7);
	assert_string_equal(row_name(&v, &r, 1), "func_b30");
	assert_int_equal(r.all, 10);
	pp_live_rows_release(&r);
	view_interval(&scan, &v);
	assert_int_equal(pp_live_callers(&v, callee, false, &r), 0);
	assert_int_equal(r.nr, 0);
	pp_live_rows_release(&r);
	assert_int_equal(pp_live_callers(&v, callee, true, &r), 0);
	assert_int_equal(r.all, 10);
	pp_live_rows_release(&r);
	pp_live_view_release(&v);
	pp_live_scan_release(&scan);
	free(arcs);
	free(bin);
}

/* Batch mode's table with callers (--callers[=N]): under the first N rows
 * (all with 0) the callers, largest first, each with its share of the
 * arcs into the symbol, ten at most and the rest summed on a line. */
static void test_callers_print(void **state)
{
	struct fixture *f = *state;
	char *bin = target(), *flat, *arcs[12], *mainarc, *out = NULL;
	struct pp_report_opts o = { 0 };
	struct pp_live_print p = { .callers = true };
	struct pp_live_show show = { 0 };
	struct pp_live_scan scan;
	struct pp_live_view v;
	struct pp_live_rows r;
	uint64_t a50, b30, mainf;
	size_t len = 0;
	FILE *mem;

	offsets_of(bin, "func_a50", &a50, "func_b30", &b30, "main", &mainf, NULL);
	flat = sfile(f, bin, -1);
	mainarc = arc_file(f, bin, bin);
	add(flat, a50, 1);
	view_start(f, &scan, &v, &o);
	/* a50: 100 samples, called from 12 binaries without symbols (one
	 * row each), 20 to 31 times; b30: 5, called from main twice */
	add(flat, a50, 100);
	add(flat, b30, 5);
	for (int i = 0; i < 12; i++) {
		char img[32];

		snprintf(img, sizeof(img), "/bin/caller%02d", i);
		arcs[i] = arc_file(f, img, bin);
		add(arcs[i], 0x10ULL << 32 | a50, (uint32_t)(20 + i));
	}
	add(mainarc, mainf << 32 | b30, 2);
	view_interval(&scan, &v);
	assert_int_equal(pp_live_rows_build(&v, &show, &r), 0);
	assert_int_equal(r.nr, 2);

	/* --callers=1: under the first row only */
	p.callers_of = 1;
	mem = open_memstream(&out, &len);
	assert_non_null(mem);
	assert_int_equal(pp_live_rows_print(mem, &v, &r, &p), 0);
	assert_int_equal(fclose(mem), 0);
	{
		/* 20 + ... + 31 = 306 samples of arcs into a50 */
		const char *want[] = {
			"   samples       %  image                    symbol\n",
			"       100  95.238  pp_target_nopie          func_a50\n",
			"           <-         31  10.131  caller11                 (no symbols)\n",
			"           <-         30   9.804  caller10                 (no symbols)\n",
		};
		const char *at = out;

		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			assert_memory_equal(at, want[i], strlen(want[i]));
			at = strchr(at, '\n') + 1;
		}
	}
	assert_non_null(strstr(out, "caller02 "));
	assert_null(strstr(out, "caller01 "));
	assert_non_null(strstr(out, "(2 more callers: 41 samples)\n"));
	assert_non_null(strstr(out, "func_b30\n"));
	assert_null(strstr(out, "main\n"));	/* b30 is the second row */
	free(out);

	/* --callers: under every row */
	p.callers_of = 0;
	out = NULL;
	mem = open_memstream(&out, &len);
	assert_non_null(mem);
	assert_int_equal(pp_live_rows_print(mem, &v, &r, &p), 0);
	assert_int_equal(fclose(mem), 0);
	assert_non_null(strstr(out, "func_b30\n           <-          2 100.000  pp_target_nopie          main\n"));
	free(out);
	pp_live_rows_release(&r);

	pp_live_view_release(&v);
	pp_live_scan_release(&scan);
	for (int i = 0; i < 12; i++)
		free(arcs[i]);
	free(mainarc);
	free(flat);
	free(bin);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_deltas, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counts_before_deltas, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_session_yet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_growth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_and_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overflow_nodes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_sample_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_at_baseline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_view, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callers_print, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
