/* opreport's unit tests: the profile-specification parser (table-driven,
 * every malformed case), classification into columns, loading sample files
 * (a corrupt one included), percentages.
 * (test_pp_symbols.c: symbol lookup.) */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "odb.h"
#include "op_names.h"
#include "pp_format.h"
#include "pp_profile.h"
#include "pp_report.h"
#include "pp_spec.h"
#include "pp_symbols.h"
#include "testutil.h"

/* ---- specification parser ---- */

struct spec_case {
	const char *words[4];
	int ret;		/* 0 or -EINVAL */
	const char *msg_has;	/* the error must name this */
};

static const struct spec_case spec_cases[] = {
	{ { NULL }, 0, NULL },
	{ { "image:/bin/ls" }, 0, NULL },
	{ { "/bin/ls" }, 0, NULL },
	{ { "cpu:0,2-3", "tid:7" }, 0, NULL },
	{ { "event:TIMER", "count:1000000", "unit-mask:0x10" }, 0, NULL },
	{ { "session:a,b*", "session-exclude:b2" }, 0, NULL },
	{ { "lib-image:*libc*", "image-exclude:/usr/*" }, 0, NULL },
	{ { "tgid:1-1" }, 0, NULL },
	/* malformed */
	{ { "cpu:" }, -EINVAL, "cpu:" },
	{ { "cpu:a" }, -EINVAL, "'a'" },
	{ { "cpu:3-1" }, -EINVAL, "reversed range '3-1'" },
	{ { "cpu:1,,2" }, -EINVAL, "empty element in 'cpu:1,,2'" },
	{ { "cpu:-1" }, -EINVAL, "'-1'" },
	{ { "tid:1-" }, -EINVAL, "'1-'" },
	{ { "tid:1-2-3" }, -EINVAL, "'1-2-3'" },
	{ { "count:99999999999999999999999" }, -EINVAL, "99999999999999999999999" },
	{ { "unit-mask:0xzz" }, -EINVAL, "0xzz" },
	{ { "foo:bar" }, -EINVAL, "unknown tag 'foo'" },
	{ { "image:/a", "bogus-tag:1" }, -EINVAL, "bogus-tag" },
	{ { "cpu:1", "cpu:2" }, -EINVAL, "given twice at 'cpu:2'" },
	{ { "session:a/b" }, -EINVAL, "'a/b'" },
	{ { "session:.." }, -EINVAL, "'..'" },
	{ { "image:,x" }, -EINVAL, "empty element in 'image:,x'" },
	{ { "image:x," }, -EINVAL, "empty element" },
	{ { "" }, -EINVAL, "empty word" },
	{ { "event:" }, -EINVAL, "empty value in 'event:'" },
};

static void test_spec_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(spec_cases) / sizeof(spec_cases[0]); i++) {
		const struct spec_case *c = &spec_cases[i];
		struct pp_spec s;
		char err[256] = "";
		int argc = 0, ret;

		while (argc < 4 && c->words[argc])
			argc++;
		ret = pp_spec_parse(argc, c->words, &s, err, sizeof(err));
		if (ret != c->ret)
			fail_msg("case %zu (%s): ret %d, want %d (%s)", i,
				 argc ? c->words[0] : "", ret, c->ret, err);
		if (c->msg_has && !strstr(err, c->msg_has))
			fail_msg("case %zu: message '%s' lacks '%s'", i, err,
				 c->msg_has);
		if (!ret)
			pp_spec_release(&s);
	}
}

static struct op_sfname mkname(const char *img, const char *dep, int cpu,
			       int tgid, int tid)
{
	struct op_sfname n;

	memset(&n, 0, sizeof(n));
	/* "/proc/kallsyms" is the kernel's image name */
	n.image.kind = strncmp(img, "/proc/", 6) ? OP_IMG_FILE : OP_IMG_KERN;
	n.image.path = strdup(img);
	n.dep.kind = strncmp(dep, "/proc/", 6) ? OP_IMG_FILE : OP_IMG_KERN;
	n.dep.path = strdup(dep);
	n.event = strdup("TIMER");
	n.count = 100000;
	n.cpu = cpu;
	n.tgid = tgid;
	n.tid = tid;
	return n;
}

static bool match(const char *w1, const char *w2, const struct op_sfname *n)
{
	const char *w[2] = { w1, w2 };
	struct pp_spec s;
	char err[128];
	bool m;

	assert_int_equal(pp_spec_parse(w2 ? 2 : (w1 ? 1 : 0), w, &s, err,
				       sizeof(err)), 0);
	m = pp_spec_match_file(&s, n);
	pp_spec_release(&s);
	return m;
}

static void test_spec_match(void **state)
{
	struct op_sfname app = mkname("/usr/bin/app", "/usr/bin/app", 2, 10, 11);
	struct op_sfname lib = mkname("/lib/libc.so.6", "/usr/bin/app", 2, 10, 11);
	struct op_sfname all = mkname("/usr/bin/app", "/usr/bin/app", OP_SF_ALL,
				      OP_SF_ALL, OP_SF_ALL);

	(void)state;
	assert_true(match(NULL, NULL, &app));
	assert_true(match("image:/usr/bin/app", NULL, &app));
	assert_true(match("app", NULL, &app));		/* basename */
	assert_true(match("image:/usr/*", NULL, &lib));	/* image is the app */
	assert_false(match("image:/lib/*", NULL, &lib));
	assert_true(match("lib-image:*libc*", NULL, &lib));
	assert_false(match("lib-image:*libc*", NULL, &app));
	assert_false(match("image-exclude:app", NULL, &app));
	assert_true(match("cpu:0-3", "tid:11", &app));
	assert_false(match("cpu:3", NULL, &app));
	assert_false(match("cpu:0", NULL, &all));	/* not separated by cpu */
	assert_true(match("tgid:9,10", NULL, &app));
	assert_false(match("event:CPU_CLK_UNHALTED", NULL, &app));
	assert_true(match("event:TIM*", "count:100000", &app));
	assert_false(match("count:1", NULL, &app));
	op_sfname_release(&app);
	op_sfname_release(&lib);
	op_sfname_release(&all);
}

static void test_spec_session(void **state)
{
	const char *w[] = { "session:run*", "session-exclude:run2" };
	struct pp_spec s;
	char err[128];

	(void)state;
	assert_int_equal(pp_spec_parse(0, NULL, &s, err, sizeof(err)), 0);
	assert_true(pp_spec_match_session(&s, "current"));
	assert_false(pp_spec_match_session(&s, "run1"));
	pp_spec_release(&s);
	assert_int_equal(pp_spec_parse(2, w, &s, err, sizeof(err)), 0);
	assert_false(pp_spec_match_session(&s, "current"));
	assert_true(pp_spec_match_session(&s, "run1"));
	assert_false(pp_spec_match_session(&s, "run2"));
	assert_string_equal(s.text, "session:run* session-exclude:run2");
	pp_spec_release(&s);
}

struct diff_case {
	const char *words[8];
	int ret;
	bool is_diff;
};

static const struct diff_case diff_cases[] = {
	{ { "cpu:0" }, 0, false },
	{ { "{", "cpu:0", "}", "{", "cpu:1", "}" }, 0, true },
	{ { "{", "}", "{", "}" }, 0, true },
	{ { "{", "cpu:0", "}" }, -EINVAL, true },
	{ { "{", "a", "}", "{", "b", "}", "{", "}" }, -EINVAL, true },
	{ { "x", "{", "a", "}", "{", "b", "}" }, -EINVAL, true },
	{ { "{", "{", "a", "}", "}" }, -EINVAL, true },
	{ { "{", "a" }, -EINVAL, true },
	{ { "a", "}" }, -EINVAL, true },
};

static void test_spec_diff(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(diff_cases) / sizeof(diff_cases[0]); i++) {
		const struct diff_case *c = &diff_cases[i];
		int argc = 0, a0 = -1, an = -1, b0 = -1, bn = -1;
		bool is_diff;
		char err[128] = "";
		int ret;

		while (argc < 8 && c->words[argc])
			argc++;
		ret = pp_spec_split_diff(argc, c->words, &is_diff, &a0, &an,
					 &b0, &bn, err, sizeof(err));
		if (ret != c->ret || is_diff != c->is_diff)
			fail_msg("diff case %zu: ret %d diff %d (%s)", i, ret,
				 is_diff, err);
		if (c->ret)
			assert_true(err[0] != '\0');
	}
	{
		const char *w[] = { "{", "cpu:0", "}", "{", "cpu:1", "tid:3", "}" };
		int a0, an, b0, bn;
		bool d;
		char err[64];

		assert_int_equal(pp_spec_split_diff(7, w, &d, &a0, &an, &b0, &bn,
						    err, sizeof(err)), 0);
		assert_int_equal(a0, 1);
		assert_int_equal(an, 1);
		assert_int_equal(b0, 4);
		assert_int_equal(bn, 2);
	}
}

static void test_merge_parse(void **state)
{
	struct pp_merge m = { 0 };
	const char *bad = NULL;

	(void)state;
	assert_int_equal(pp_merge_parse("lib,cpu", &m, &bad), 0);
	assert_true(m.lib && m.cpu && !m.tid && !m.tgid && !m.unitmask);
	memset(&m, 0, sizeof(m));
	assert_int_equal(pp_merge_parse("all", &m, &bad), 0);
	assert_true(m.lib && m.cpu && m.tid && m.tgid && m.unitmask);
	assert_int_equal(pp_merge_parse("cpu,bogus", &m, &bad), -EINVAL);
	assert_string_equal(bad, "bogus");
	assert_int_equal(pp_merge_parse("", &m, &bad), -EINVAL);
}

/* ---- classification ---- */

struct fdesc {
	const char *event;
	int cpu, tgid, tid;
};

static void mkfileset(struct pp_fileset *fs, const struct fdesc *d, size_t n)
{
	memset(fs, 0, sizeof(*fs));
	fs->files = calloc(n, sizeof(*fs->files));
	assert_non_null(fs->files);
	for (size_t i = 0; i < n; i++) {
		fs->files[i].name = mkname("/bin/x", "/bin/x", d[i].cpu,
					   d[i].tgid, d[i].tid);
		if (d[i].event) {
			free(fs->files[i].name.event);
			fs->files[i].name.event = strdup(d[i].event);
		}
		fs->files[i].path = strdup("/nonexistent");
	}
	fs->nr_files = n;
}

static void test_classify_none(void **state)
{
	const struct fdesc d[] = { { NULL, 0, 5, 5 }, { NULL, 0, 5, 5 } };
	struct pp_fileset fs;
	struct pp_merge m = { 0 };
	char err[512];

	(void)state;
	mkfileset(&fs, d, 2);
	assert_int_equal(pp_classify(&fs, &m, err, sizeof(err)), 0);
	assert_int_equal(fs.axis, PP_AXIS_NONE);
	assert_int_equal(fs.nr_classes, 1);
	assert_string_equal(fs.classes[0].label, "TIMER:100000");
	pp_fileset_release(&fs);
}

static void test_classify_cpu(void **state)
{
	const struct fdesc d[] = {
		{ NULL, 1, 5, 5 }, { NULL, 0, 5, 5 }, { NULL, 3, 5, 5 }, { NULL, 0, 5, 5 },
	};
	struct pp_fileset fs;
	struct pp_merge m = { 0 };
	char err[512];

	(void)state;
	mkfileset(&fs, d, 4);
	assert_int_equal(pp_classify(&fs, &m, err, sizeof(err)), 0);
	assert_int_equal(fs.axis, PP_AXIS_CPU);
	assert_int_equal(fs.nr_classes, 3);
	assert_string_equal(fs.classes[0].label, "cpu:0");
	assert_string_equal(fs.classes[1].label, "cpu:1");
	assert_string_equal(fs.classes[2].label, "cpu:3");
	assert_string_equal(fs.classes[2].longname, "Samples on CPU 3");
	assert_int_equal(fs.files[0].cls, 1);
	assert_int_equal(fs.files[1].cls, 0);
	assert_int_equal(fs.files[2].cls, 2);
	assert_int_equal(fs.files[3].cls, 0);
	/* merged: one column */
	m.cpu = true;
	assert_int_equal(pp_classify(&fs, &m, err, sizeof(err)), 0);
	assert_int_equal(fs.axis, PP_AXIS_NONE);
	assert_int_equal(fs.nr_classes, 1);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(fs.files[i].cls, 0);
	pp_fileset_release(&fs);
}

static void test_classify_two_axes(void **state)
{
	const struct fdesc d[] = {
		{ NULL, 0, 5, 5 }, { NULL, 1, 6, 6 },
	};
	struct pp_fileset fs;
	struct pp_merge m = { 0 };
	char err[512] = "";

	(void)state;
	mkfileset(&fs, d, 2);
	assert_int_equal(pp_classify(&fs, &m, err, sizeof(err)), -EDOM);
	/* OProfile's wording: the axis shown first (tid comes before cpu) */
	assert_string_equal(err,
		"Already displaying results for parameter tid with values:\n"
		"tid:5,tid:6,\n"
		"which conflicts with parameter cpu.\n"
		"Suggestion: specify tid: or --merge tid");
	/* merging the cpu leaves tid (tgid follows tid) */
	m.cpu = true;
	assert_int_equal(pp_classify(&fs, &m, err, sizeof(err)), 0);
	assert_int_equal(fs.axis, PP_AXIS_TID);
	assert_string_equal(fs.classes[1].label, "tid:6");
	assert_string_equal(fs.classes[1].longname, "Processes with a thread ID of 6");
	pp_fileset_release(&fs);
}

/* XML's classes across several axes: one per (tgid, tid, event, cpu),
 * thread group outermost, "all" after numbers */
static void test_classify_multi(void **state)
{
	const struct fdesc d[] = {
		{ NULL, 1, 6, 6 }, { NULL, 0, 5, 5 }, { NULL, -1, 5, 5 },
		{ NULL, 1, 5, 5 }, { NULL, 0, 5, 5 },
	};
	struct pp_fileset fs;
	struct pp_merge m = { 0 };

	(void)state;
	mkfileset(&fs, d, 5);
	assert_int_equal(pp_classify_multi(&fs, &m), 0);
	assert_int_equal(fs.axis, PP_AXIS_MULTI);
	assert_int_equal(fs.nr_classes, 4);
	assert_int_equal(fs.files[1].cls, 0);	/* tgid 5, cpu 0 */
	assert_int_equal(fs.files[4].cls, 0);
	assert_int_equal(fs.files[3].cls, 1);	/* tgid 5, cpu 1 */
	assert_int_equal(fs.files[2].cls, 2);	/* tgid 5, cpu all */
	assert_int_equal(fs.files[0].cls, 3);	/* tgid 6 */
	/* merging the cpu leaves one column per thread */
	m.cpu = true;
	assert_int_equal(pp_classify_multi(&fs, &m), 0);
	assert_int_equal(fs.nr_classes, 2);
	assert_int_equal(fs.files[2].cls, 0);
	assert_int_equal(fs.files[0].cls, 1);
	pp_fileset_release(&fs);
}

static void test_classify_two_axes_many(void **state)
{
	/* seven events on two CPUs: five values named, the rest counted */
	const struct fdesc d[] = {
		{ "E1", 0, 1, 1 }, { "E2", 0, 1, 1 }, { "E3", 0, 1, 1 },
		{ "E4", 0, 1, 1 }, { "E5", 0, 1, 1 }, { "E6", 0, 1, 1 },
		{ "E7", 1, 1, 1 }, { "E1", 1, 1, 1 },
	};
	struct pp_fileset fs;
	struct pp_merge m = { 0 };
	char err[512] = "";

	(void)state;
	mkfileset(&fs, d, 8);
	assert_int_equal(pp_classify(&fs, &m, err, sizeof(err)), -EDOM);
	assert_string_equal(err,
		"Already displaying results for parameter event with values:\n"
		/* OProfile counts the classes beyond five, not the names */
		"E1:100000,E2:100000,E3:100000,E4:100000,E5:100000, and 3 more,\n"
		"which conflicts with parameter cpu.\n"
		"Suggestion: specify event:, count: or unitmask: "
		"(see also --merge=unitmask)");
	pp_fileset_release(&fs);
}

static void test_classify_tid_tgid(void **state)
{
	/* one thread per process: tgid and tid together, tid names them */
	const struct fdesc ok[] = { { NULL, 0, 5, 5 }, { NULL, 0, 9, 9 } };
	/* thread 7 of process 5: OProfile refuses tgid with tid */
	const struct fdesc bad[] = { { NULL, 0, 5, 5 }, { NULL, 0, 5, 7 }, { NULL, 0, 9, 9 } };
	struct pp_fileset fs;
	struct pp_merge m = { 0 };
	const char *bad_str = NULL;
	char err[512];

	(void)state;
	mkfileset(&fs, ok, 2);
	assert_int_equal(pp_classify(&fs, &m, err, sizeof(err)), 0);
	assert_int_equal(fs.axis, PP_AXIS_TID);
	assert_int_equal(fs.nr_classes, 2);
	pp_fileset_release(&fs);
	mkfileset(&fs, bad, 3);
	assert_int_equal(pp_classify(&fs, &m, err, sizeof(err)), -EDOM);
	assert_string_equal(err,
		"Already displaying results for parameter tgid with values:\n"
		"tgid:5,tgid:9,\n"
		"which conflicts with parameter tid.\n"
		"Suggestion: specify tgid: or --merge tgid");
	m.tid = true;
	assert_int_equal(pp_classify(&fs, &m, err, sizeof(err)), 0);
	assert_int_equal(fs.axis, PP_AXIS_TGID);
	assert_string_equal(fs.classes[0].label, "tgid:5");
	/* --merge=tgid merges the threads too: one column */
	memset(&m, 0, sizeof(m));
	assert_int_equal(pp_merge_parse("tgid", &m, &bad_str), 0);
	assert_true(m.tgid && m.tid);
	assert_int_equal(pp_classify(&fs, &m, err, sizeof(err)), 0);
	assert_int_equal(fs.nr_classes, 1);
	pp_fileset_release(&fs);
}

static void test_classify_event(void **state)
{
	const struct fdesc d[] = { { "INST_RETIRED", 0, 1, 1 }, { "CPU_CLK_UNHALTED", 0, 1, 1 } };
	struct pp_fileset fs;
	struct pp_merge m = { 0 };
	char err[512];

	(void)state;
	mkfileset(&fs, d, 2);
	assert_int_equal(pp_classify(&fs, &m, err, sizeof(err)), 0);
	assert_int_equal(fs.axis, PP_AXIS_EVENT);
	assert_string_equal(fs.classes[0].label, "CPU_CLK_UNHALTED:100000");
	assert_string_equal(fs.classes[1].label, "INST_RETIRED:100000");
	assert_int_equal(fs.files[0].cls, 1);
	pp_fileset_release(&fs);
}

/* ---- loading a session ---- */

static void write_sf(const char *session, struct op_sfname *n,
		     const uint64_t *keys, const uint32_t *counts, size_t nr)
{
	char *rel = op_sfname_build(n), path[4096], cmd[4200];
	odb_t db;

	assert_non_null(rel);
	snprintf(path, sizeof(path), "%s/samples/current/%s", session, rel);
	free(rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(odb_open(&db, NULL, path, ODB_RDWR), 0);
	db.header->cpu_type = ODB_CPU_TIMER_INT;
	for (size_t i = 0; i < nr; i++)
		assert_int_equal(odb_add(&db, keys[i], counts[i]), 0);
	odb_close(&db);
}

static void test_load_session(void **state)
{
	char *dir = tu_mkdtemp(), path[4096];
	struct op_sfname a0 = mkname("/bin/x", "/bin/x", 0, OP_SF_ALL, OP_SF_ALL);
	struct op_sfname a1 = mkname("/bin/x", "/bin/x", 1, OP_SF_ALL, OP_SF_ALL);
	struct op_sfname k1 = mkname("/proc/kallsyms", "/bin/x", 1, OP_SF_ALL, OP_SF_ALL);
	const uint64_t keys[] = { 0x10, 0x20, 0x10 };
	const uint32_t c0[] = { 5, 7, 0 }, c1[] = { 1, 2, 3 };
	struct pp_spec spec;
	struct pp_fileset fs;
	struct pp_profile p;
	struct pp_merge m = { 0 };
	struct op_logger lg = { 0 };
	char err[256];

	(void)state;
	assert_non_null(dir);
	write_sf(dir, &a0, keys, c0, 2);
	write_sf(dir, &a1, keys, c1, 2);
	write_sf(dir, &k1, keys, c1, 1);
	/* a corrupt sample file and a stray file */
	snprintf(path, sizeof(path), "%s/samples/current/{root}/bin/x/{dep}/{root}/bin/x/TIMER.100000.0.all.all.2", dir);
	assert_int_equal(tu_write_file(path, "garbage", 7), 0);
	snprintf(path, sizeof(path), "%s/samples/current/{root}/README", dir);
	assert_int_equal(tu_write_file(path, "x", 1), 0);
	/* not under {root} or {kern}: OProfile reads no such file */
	snprintf(path, sizeof(path), "%s/samples/current/README", dir);
	assert_int_equal(tu_write_file(path, "x", 1), 0);
	assert_int_equal(pp_spec_parse(0, NULL, &spec, err, sizeof(err)), 0);
	assert_int_equal(pp_fileset_select(&fs, dir, &spec, &lg), 0);
	assert_int_equal(fs.nr_files, 4);
	assert_int_equal(fs.nr_unnamed, 1);
	assert_int_equal(fs.nr_foreign, 1);
	assert_int_equal(pp_classify(&fs, &m, err, sizeof(err)), 0);
	assert_int_equal(fs.nr_classes, 3);	/* cpu 0, 1, 2 */
	assert_int_equal(pp_profile_load(&p, &fs, &m, false, true, &lg), 0);
	assert_int_equal(p.nr_bad_files, 1);
	assert_int_equal(p.nr_images, 2);
	assert_int_equal(p.total[0], 12);
	assert_int_equal(p.total[1], 3 + 1);
	assert_int_equal(p.total[2], 0);
	for (size_t i = 0; i < p.nr_images; i++) {
		const struct pp_image *im = &p.images[i];

		if (im->img.kind == OP_IMG_FILE) {
			assert_int_equal(im->nr_addrs, 2);
			assert_int_equal(im->offs[0], 0x10);
			assert_int_equal(im->counts[0 * 3 + 0], 5);
			assert_int_equal(im->counts[0 * 3 + 1], 1);
			assert_int_equal(im->counts[1 * 3 + 0], 7);
			assert_int_equal(im->counts[1 * 3 + 1], 2);
		} else {
			assert_int_equal(im->nr_addrs, 1);
			assert_int_equal(im->total[1], 1);
		}
	}
	pp_profile_release(&p);
	/* -x drops the kernel under /bin/x; --merge=lib makes it an app */
	assert_int_equal(pp_fileset_select(&fs, dir, &spec, &lg), 0);
	m.cpu = true;
	assert_int_equal(pp_classify(&fs, &m, err, sizeof(err)), 0);
	assert_int_equal(pp_profile_load(&p, &fs, &m, true, false, &lg), 0);
	assert_int_equal(p.nr_images, 1);
	assert_int_equal(p.total[0], 15);
	assert_int_equal(p.images[0].nr_addrs, 0);	/* totals only */
	pp_profile_release(&p);
	pp_spec_release(&spec);
	/* a missing session */
	assert_int_equal(pp_spec_parse(1, (const char *[]){ "session:nope" },
				       &spec, err, sizeof(err)), 0);
	assert_int_equal(pp_fileset_select(&fs, dir, &spec, &lg), -ENOENT);
	pp_spec_release(&spec);
	op_sfname_release(&a0);
	op_sfname_release(&a1);
	op_sfname_release(&k1);
	tu_rm_rf(dir);
	free(dir);
}

static void test_percent_format(void **state)
{
	char b[32];

	(void)state;
	pp_format_percent(b, sizeof(b), 100.0);
	assert_string_equal(b, "100.000");
	pp_format_percent(b, sizeof(b), 6088.0 * 100 / 6090);
	assert_string_equal(b, "99.9672");
	pp_format_percent(b, sizeof(b), 2.0 * 100 / 6090);
	assert_string_equal(b, "0.0328");
	pp_format_percent(b, sizeof(b), 0.0);
	assert_string_equal(b, "0");
	pp_format_percent(b, sizeof(b), 301.0 * 100 / 6090);
	assert_string_equal(b, "4.9425");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_table),
		cmocka_unit_test(test_spec_match),
		cmocka_unit_test(test_spec_session),
		cmocka_unit_test(test_spec_diff),
		cmocka_unit_test(test_merge_parse),
		cmocka_unit_test(test_classify_none),
		cmocka_unit_test(test_classify_cpu),
		cmocka_unit_test(test_classify_two_axes),
		cmocka_unit_test(test_classify_two_axes_many),
		cmocka_unit_test(test_classify_multi),
		cmocka_unit_test(test_classify_tid_tgid),
		cmocka_unit_test(test_classify_event),
		cmocka_unit_test(test_load_session),
		cmocka_unit_test(test_percent_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
