/* opexport's model: stacks into folded lines (recursion, frames no symbol
 * names, kernel frames under user ones), and a synthetic session whose
 * chain store is written by the daemon's own writer, read back into the
 * known call tree, with the refusals of a store that counts chains it
 * does not hold. */
#include "config.h"

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

#include "odb.h"
#include "op_chains.h"
#include "op_sums.h"
#include "opd_chains.h"
#include "pp_export.h"
#include "pp_spec.h"
#include "pp_symbols.h"
#include "testutil.h"

static const struct op_logger quiet = { NULL, NULL, OP_LOG_ERR };

static const struct op_img app_img = { .kind = OP_IMG_FILE, .path = (char *)"/nonexistent/bin/app" };
static const struct op_img lib_img = { .kind = OP_IMG_FILE, .path = (char *)"/nonexistent/lib/libc.so.6" };
static const struct op_img kern_img = { .kind = OP_IMG_KERN, .path = (char *)"/nonexistent/vmlinux" };

/* The folded text of x. Malloc'd. */
static char *folded(const struct pp_export *x)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(pp_export_folded(x, f), 0);
	fclose(f);
	return buf;
}

/* A location of image named by a function of its own. */
static uint32_t named_loc(struct pp_export *x, uint32_t image, uint64_t off,
			  const char *name)
{
	uint32_t loc = pp_export_loc(x, image, off);
	uint32_t func = PP_XNONE;

	assert_int_not_equal(loc, PP_XNONE);
	for (size_t i = 0; i < x->nr_funcs; i++)
		if (x->funcs[i].image == image && !strcmp(x->funcs[i].name, name))
			func = (uint32_t)i;
	if (func == PP_XNONE)
		func = pp_export_func(x, image, name, NULL, NULL, 0);
	assert_int_not_equal(func, PP_XNONE);
	x->locs[loc].func = func;
	return loc;
}

static uint32_t timer_key(struct pp_export *x)
{
	uint32_t ev = pp_export_event(x, "TIMER", 100000, 0);

	return pp_export_key(x, ev, OP_SF_ALL, OP_SF_ALL, OP_SF_ALL);
}

/* A recursive function shows once per activation; two stacks that differ
 * only in addresses inside the same functions are one line. */
static void test_fold_recursion(void **state)
{
	struct pp_export x;
	uint32_t app, key, s1[5], s2[5];
	char *text;

	pp_export_init(&x);
	app = pp_export_image(&x, &app_img);
	key = timer_key(&x);
	/* innermost first: leaf <- rec <- rec <- rec <- main */
	s1[0] = named_loc(&x, app, 0x1010, "leaf");
	s1[1] = named_loc(&x, app, 0x1120, "rec");
	s1[2] = named_loc(&x, app, 0x1140, "rec");
	s1[3] = named_loc(&x, app, 0x1140, "rec");
	s1[4] = named_loc(&x, app, 0x1200, "main");
	memcpy(s2, s1, sizeof(s1));
	s2[0] = named_loc(&x, app, 0x1018, "leaf");
	assert_int_equal(pp_export_add_stack(&x, key, app, s1, 5, 3), 0);
	assert_int_equal(pp_export_add_stack(&x, key, app, s2, 5, 4), 0);
	assert_int_equal(pp_export_add_stack(&x, key, app, s1, 5, 1), 0);
	assert_int_equal(x.nr_stacks, 2);
	text = folded(&x);
	assert_string_equal(text, "main;rec;rec;rec;leaf 8\n");
	free(text);
	pp_export_release(&x);
}

/* Frames no symbol names (the binary is missing here) are named after
 * their image, one name per image, so they still merge. */
static void test_fold_unnamed(void **state)
{
	struct pp_export x;
	struct pp_report_opts o = { .demangle = true };
	struct pp_report_status st = { 0 };
	uint32_t app, lib, key, s[3];
	char *text;

	pp_export_init(&x);
	app = pp_export_image(&x, &app_img);
	lib = pp_export_image(&x, &lib_img);
	key = timer_key(&x);
	s[0] = pp_export_loc(&x, lib, 0x9000);
	s[1] = pp_export_loc(&x, app, 0x1100);
	s[2] = pp_export_loc(&x, app, 0x1000);
	assert_int_equal(pp_export_add_stack(&x, key, app, s, 3, 2), 0);
	s[0] = pp_export_loc(&x, lib, 0x9400);
	assert_int_equal(pp_export_add_stack(&x, key, app, s, 3, 5), 0);
	assert_int_equal(pp_export_symbolize(&x, &o, &quiet, &st), 0);
	assert_int_equal(st.nr_missing, 2);
	text = folded(&x);
	assert_string_equal(text, "[app];[app];[libc.so.6] 7\n");
	free(text);
	/* the executable's frames are the user's, the library's not */
	assert_int_equal(pp_export_kind(&x, app, app), PP_XKIND_USER);
	assert_int_equal(pp_export_kind(&x, lib, app), PP_XKIND_LIB);
	pp_report_status_release(&st);
	pp_export_release(&x);
}

/* A system call's kernel frames sit above the user frames that made it,
 * marked as kernel ones; the user part alone is its own line. */
static void test_fold_kernel(void **state)
{
	struct pp_export x;
	uint32_t app, kern, key, s[4];
	struct pp_fold f;
	char *text;

	pp_export_init(&x);
	app = pp_export_image(&x, &app_img);
	kern = pp_export_image(&x, &kern_img);
	key = timer_key(&x);
	s[0] = named_loc(&x, kern, 0x500, "read_zero");
	s[1] = named_loc(&x, kern, 0x400, "vfs_read");
	s[2] = named_loc(&x, app, 0x1100, "do_read");
	s[3] = named_loc(&x, app, 0x1000, "main");
	assert_int_equal(pp_export_add_stack(&x, key, app, s, 4, 6), 0);
	assert_int_equal(pp_export_add_stack(&x, key, app, s + 2, 2, 1), 0);
	text = folded(&x);
	assert_string_equal(text, "main;do_read 1\n"
			    "main;do_read;vfs_read_[k];read_zero_[k] 6\n");
	free(text);
	assert_int_equal(pp_export_fold(&x, &f), 0);
	assert_int_equal(f.nr_lines, 2);
	assert_int_equal(f.total, 7);
	assert_int_equal(f.kinds[f.lines[1].first], PP_XKIND_USER);
	assert_int_equal(f.kinds[f.lines[1].first + 3], PP_XKIND_KERNEL);
	pp_fold_release(&f);
	pp_export_release(&x);
}

/* ---- a synthetic session ---- */

/* The file offset of name in the ELF file at path. */
static uint64_t sym_off(const char *path, const char *name)
{
	struct pp_symtab st = { 0 };
	uint64_t off = UINT64_MAX;

	assert_int_equal(pp_symtab_load_elf(&st, path, NULL, &quiet), 0);
	for (size_t i = 0; i < st.nr_syms; i++) {
		if (strcmp(st.syms[i].name, name))
			continue;
		for (size_t k = 0; k < st.nr_segs; k++) {
			const struct pp_load_seg *g = &st.segs[k];

			if (st.syms[i].start >= g->vaddr &&
			    st.syms[i].start < g->vaddr + g->filesz)
				off = st.syms[i].start - g->vaddr + g->offset;
		}
	}
	pp_symtab_release(&st);
	assert_true(off != UINT64_MAX);
	return off + 4;		/* inside, past the first instruction */
}

struct session {
	char *dir;
	char *current;
	char *target;
};

static int session_setup(void **state)
{
	struct session *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->dir = tu_mkdtemp();
	assert_non_null(s->dir);
	assert_true(asprintf(&s->current, "%s/samples/current", s->dir) > 0);
	s->target = tu_builddir_path("tests/pp", "pp_target_pie");
	assert_non_null(s->target);
	*state = s;
	return 0;
}

static int session_teardown(void **state)
{
	struct session *s = *state;

	tu_rm_rf(s->dir);
	free(s->dir);
	free(s->current);
	free(s->target);
	free(s);
	return 0;
}

static int mkdirs(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

/* One flat sample file for the target, as the daemon files it. */
static void write_flat(const struct session *s, uint64_t off, uint32_t n)
{
	struct op_sfname name = {
		.image = { .kind = OP_IMG_FILE, .path = s->target },
		.dep = { .kind = OP_IMG_FILE, .path = s->target },
		.event = (char *)"TIMER", .count = 100000,
		.tgid = OP_SF_ALL, .tid = OP_SF_ALL, .cpu = OP_SF_ALL,
	};
	char *rel = op_sfname_build(&name), *path;
	odb_t db;

	assert_non_null(rel);
	assert_true(asprintf(&path, "%s/%s", s->current, rel) > 0);
	assert_int_equal(mkdirs(path), 0);
	assert_int_equal(odb_open(&db, NULL, path, ODB_RDWR), 0);
	db.header->cpu_type = ODB_CPU_TIMER_INT;
	db.header->ctr_count = 100000;
	assert_int_equal(odb_add(&db, off, n), 0);
	odb_close(&db);
	free(path);
	free(rel);
}

/* Export the session folded; returns the text (malloc'd) and the model's
 * bad-file count in *bad, or NULL when loading failed. */
static char *export_folded(const struct session *s, const char *spec_word,
			   size_t *bad, bool *chains)
{
	const char *argv[] = { spec_word };
	struct pp_report_opts o = { .demangle = true };
	struct pp_report_status st = { 0 };
	struct pp_merge merge = { 0 };
	struct pp_spec spec = { 0 };
	struct pp_fileset fs;
	struct pp_export x;
	char err[256], *text = NULL;

	pp_export_init(&x);
	assert_int_equal(pp_spec_parse(spec_word ? 1 : 0, argv, &spec, err,
				       sizeof(err)), 0);
	assert_int_equal(pp_fileset_select(&fs, s->dir, &spec, &quiet), 0);
	if (!pp_export_load(&x, &fs, &spec, &merge, &quiet)) {
		assert_int_equal(pp_export_symbolize(&x, &o, &quiet, &st), 0);
		text = folded(&x);
	}
	*bad = x.nr_bad_files;
	*chains = x.has_chains;
	pp_report_status_release(&st);
	pp_export_release(&x);
	pp_spec_release(&spec);
	return text;
}

/* Write the known call tree main -> func_a50 (5), main -> func_b30 (2),
 * main -> func_b30 -> func_c15 (3) with the daemon's writer. */
static void write_tree(const struct session *s, struct opd_chains *c)
{
	struct opd_chain_key key = { "TIMER.100000.0", OP_SF_ALL, OP_SF_ALL, OP_SF_ALL };
	struct op_img img = { .kind = OP_IMG_FILE, .path = s->target };
	uint32_t id;
	struct op_chain_frame f[3] = { { 0 } };

	assert_int_equal(opd_chains_init(c, NULL, s->current, &quiet), 0);
	id = opd_chains_image(c, &img, false);
	assert_int_not_equal(id, 0);
	for (int i = 0; i < 3; i++)
		f[i].image = id;
	f[0].offset = sym_off(s->target, "func_a50");
	f[1].offset = sym_off(s->target, "main");
	for (int i = 0; i < 5; i++)
		opd_chains_add(c, &key, id, f, 2, 1);
	f[0].offset = sym_off(s->target, "func_b30");
	for (int i = 0; i < 2; i++)
		opd_chains_add(c, &key, id, f, 2, 1);
	f[0].offset = sym_off(s->target, "func_c15");
	f[1].offset = sym_off(s->target, "func_b30");
	f[2].offset = sym_off(s->target, "main");
	for (int i = 0; i < 3; i++)
		opd_chains_add(c, &key, id, f, 3, 1);
	assert_int_equal(c->nr_lost, 0);
	assert_int_equal(opd_chains_sync(c), 0);
}

static void test_session_chains(void **state)
{
	struct session *s = *state;
	struct opd_chains c;
	size_t bad;
	bool chains;
	char *text;

	write_flat(s, sym_off(s->target, "func_a50"), 5);
	write_tree(s, &c);
	opd_chains_release(&c);
	text = export_folded(s, NULL, &bad, &chains);
	assert_non_null(text);
	assert_true(chains);
	assert_int_equal(bad, 0);
	assert_string_equal(text, "main;func_a50 5\n"
			    "main;func_b30 2\n"
			    "main;func_b30;func_c15 3\n");
	free(text);
	/* the spec selects by application: another selects nothing */
	text = export_folded(s, "image:/bin/other", &bad, &chains);
	assert_non_null(text);
	assert_string_equal(text, "");
	free(text);
}

/* Without a chain store: one frame per sampled address. */
static void test_session_flat(void **state)
{
	struct session *s = *state;
	size_t bad;
	bool chains;
	char *text;

	write_flat(s, sym_off(s->target, "func_a50"), 5);
	write_flat(s, sym_off(s->target, "func_d05"), 2);
	text = export_folded(s, NULL, &bad, &chains);
	assert_non_null(text);
	assert_false(chains);
	assert_string_equal(text, "func_a50 5\nfunc_d05 2\n");
	free(text);
}

/* Counts of a chain the list does not hold (the chains file cut short)
 * are refused and named; the other chains still export. A chains file
 * that is not one is refused outright. */
static void test_session_corrupt(void **state)
{
	struct session *s = *state;
	struct opd_chains c;
	char *chains_path, *text;
	size_t bad;
	bool chains;
	struct stat sb;

	write_flat(s, sym_off(s->target, "func_a50"), 5);
	write_tree(s, &c);
	opd_chains_release(&c);
	assert_true(asprintf(&chains_path, "%s/" OP_CHAINS_DIR "/chains", s->current) > 0);
	assert_int_equal(stat(chains_path, &sb), 0);
	/* tear the last node (func_c15 under func_b30, the only new one of
	 * the last chain) */
	assert_int_equal(truncate(chains_path, sb.st_size - 1), 0);
	text = export_folded(s, NULL, &bad, &chains);
	assert_non_null(text);
	assert_int_equal(bad, 1);
	assert_string_equal(text, "main;func_a50 5\nmain;func_b30 2\n");
	free(text);
	assert_int_equal(tu_write_file(chains_path, "NOTCHAIN", 8), 0);
	text = export_folded(s, NULL, &bad, &chains);
	assert_null(text);
	free(chains_path);
}

/* xor one byte of a file at off (from the end when negative) */
static void flip_byte(const char *path, long off)
{
	FILE *f = fopen(path, "r+b");
	int c;

	assert_non_null(f);
	assert_int_equal(fseek(f, off, off < 0 ? SEEK_END : SEEK_SET), 0);
	c = fgetc(f);
	assert_int_not_equal(c, EOF);
	assert_int_equal(fseek(f, -1, SEEK_CUR), 0);
	assert_int_not_equal(fputc(c ^ 0x01, f), EOF);
	fclose(f);
}

/* The integrity record holds the store's two lists: a list changed after
 * the daemon wrote it (a byte that still parses: an offset a bit off)
 * refuses the store, named; restored, it exports again. */
static void test_session_changed_list(void **state)
{
	struct session *s = *state;
	struct opd_chains c;
	char *list[2], *text;
	size_t bad, nr;
	bool chains;
	struct op_sums sums;

	write_flat(s, sym_off(s->target, "func_a50"), 5);
	write_tree(s, &c);
	opd_chains_release(&c);
	assert_int_equal(op_sums_write(NULL, s->current, &nr), 0);
	assert_int_equal(op_sums_read(NULL, s->current, &sums, NULL), 0);
	assert_non_null(op_sums_find(&sums, OP_CHAINS_DIR "/chains"));
	assert_int_equal(op_sums_find(&sums, OP_CHAINS_DIR "/images")->nodes, 0);
	op_sums_release(&sums);
	text = export_folded(s, NULL, &bad, &chains);
	assert_non_null(text);
	assert_int_equal(bad, 0);
	free(text);
	assert_true(asprintf(&list[0], "%s/" OP_CHAINS_DIR "/chains", s->current) > 0);
	assert_true(asprintf(&list[1], "%s/" OP_CHAINS_DIR "/images", s->current) > 0);
	for (int i = 0; i < 2; i++) {
		/* the chains' last byte: the low bit of an offset; the images
		 * list's: a character of a path */
		flip_byte(list[i], i ? -3 : -1);
		text = export_folded(s, NULL, &bad, &chains);
		assert_null(text);
		assert_int_equal(bad, 1);
		flip_byte(list[i], i ? -3 : -1);
		text = export_folded(s, NULL, &bad, &chains);
		assert_non_null(text);
		assert_int_equal(bad, 0);
		free(text);
		free(list[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold_recursion),
		cmocka_unit_test(test_fold_unnamed),
		cmocka_unit_test(test_fold_kernel),
		cmocka_unit_test_setup_teardown(test_session_chains, session_setup, session_teardown),
		cmocka_unit_test_setup_teardown(test_session_flat, session_setup, session_teardown),
		cmocka_unit_test_setup_teardown(test_session_corrupt, session_setup, session_teardown),
		cmocka_unit_test_setup_teardown(test_session_changed_list, session_setup, session_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
