/* opreport's unit tests, symbols: lookup on fixture binaries built by
 * tests/pp.am (PIE, non-PIE, no debug info, stripped with a debuglink or a
 * build-id debug file, a shared library, aliases, extents, .dynsym),
 * kallsyms (hostile ones too) and JIT maps, and demangling.
 * (test_pp.c: specifications, classes, loading.) */
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

/* ---- symbols ---- */

static const struct pp_sym *find_name(const struct pp_symtab *st,
				      const char *name)
{
	for (size_t i = 0; i < st->nr_syms; i++)
		if (!strcmp(st->syms[i].name, name))
			return &st->syms[i];
	return NULL;
}

/* The four functions are found, in source order, each lookup inside one
 * lands on it, and (with debug info) their lines are 13..16. */
static void check_target(const char *name, const char *debug_dirs,
			 bool lines, bool pie)
{
	static const char *const funcs[] = { "func_a50", "func_b30", "func_c15", "func_d05" };
	char *path = tu_builddir_path("tests/pp", name);
	struct pp_symtab st;
	uint64_t prev = 0;

	assert_int_equal(pp_symtab_load_elf(&st, path, debug_dirs, NULL), 0);
	for (int i = 0; i < 4; i++) {
		const struct pp_sym *s = find_name(&st, funcs[i]);
		const char *src;
		int line;

		if (!s)
			fail_msg("%s: no %s", name, funcs[i]);
		assert_true(s->start > prev);
		prev = s->start;
		assert_ptr_equal(pp_symtab_lookup(&st, s->start), s);
		assert_ptr_equal(pp_symtab_lookup(&st, s->start + s->size - 1), s);
		assert_true(s->size > 0);
		if (lines) {
			assert_true(pp_symtab_line(&st, s->start, &src, &line));
			assert_non_null(strstr(src, "pp_target.c"));
			assert_int_equal(line, 13 + i);
		} else {
			assert_false(pp_symtab_line(&st, s->start, &src, &line));
		}
	}
	/* PIE links near 0, non-PIE at the classic 0x400000 */
	if (pie)
		assert_true(prev < 0x100000);
	else
		assert_true(prev >= 0x400000);
	/* file offset -> vma: the text segment's offset maps to its vaddr */
	for (size_t i = 0; i < st.nr_segs; i++)
		assert_int_equal(pp_symtab_off_to_vma(&st, st.segs[i].offset + 1),
				 st.segs[i].vaddr + 1);
	assert_null(pp_symtab_lookup(&st, 0));
	pp_symtab_release(&st);
	free(path);
}

/* check_target's binaries, each a case of its own (main's table). */
static const struct target_case {
	const char *name;
	const char *debug_dir;	/* under tests/pp, or NULL */
	bool lines, pie;
} targets[] = {
	{ "pp_target_pie", NULL, true, true },
	{ "pp_target_nopie", NULL, true, false },
	{ "pp_target_nodebug", NULL, false, true },
	/* stripped: the symbols and lines come from pp_target_dbglink.debug */
	{ "pp_target_dbglink", NULL, true, true },
	/* stripped, no debuglink: found under DIR/.build-id/xx/yyyy.debug */
	{ "pp_target_buildid", "debug", true, true },
};

static void test_sym_target(void **state)
{
	const struct target_case *c = *state;
	char *dir = NULL;

	if (c->debug_dir) {
		dir = tu_builddir_path("tests/pp", c->debug_dir);
		assert_non_null(dir);
	}
	check_target(c->name, dir, c->lines, c->pie);
	free(dir);
}

static void test_sym_stripped_alone(void **state)
{
	char *path = tu_builddir_path("tests/pp", "pp_target_buildid");
	struct pp_symtab st;

	(void)state;
	/* without the debug directory there is nothing to name the functions */
	assert_int_equal(pp_symtab_load_elf(&st, path, "/nonexistent", NULL), 0);
	assert_null(find_name(&st, "func_a50"));
	pp_symtab_release(&st);
	free(path);
}

static void test_sym_shlib(void **state)
{
	char *path = tu_builddir_path("tests/pp", "libpptarget.so");
	struct pp_symtab st;
	const struct pp_sym *hot, *cold;

	(void)state;
	assert_int_equal(pp_symtab_load_elf(&st, path, NULL, NULL), 0);
	hot = find_name(&st, "pplib_hot");
	cold = find_name(&st, "pplib_cold");
	assert_non_null(hot);
	assert_non_null(cold);
	assert_ptr_equal(pp_symtab_lookup(&st, hot->start + 2), hot);
	pp_symtab_release(&st);
	free(path);
}

/* [start, end) of a section of an ELF file, by name. */
static bool section_range(const char *path, const char *name, uint64_t *start,
			  uint64_t *end)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while (!found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name)) {
			*start = sh.sh_addr;
			*end = sh.sh_addr + sh.sh_size;
			found = true;
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

/* OProfile's choice among aliases (libutil++/bfd_support.cpp's
 * boring_symbol()): not local, then no leading '_', then not weak, in
 * that order, so the weak "thing" beats the global "__thing". */
static void test_sym_elf_aliases(void **state)
{
	char *path = tu_builddir_path("tests/pp", "libppalias.so");
	struct pp_symtab st;
	const struct pp_sym *s;

	(void)state;
	assert_int_equal(pp_symtab_load_elf(&st, path, NULL, NULL), 0);
	assert_false(st.dynsym_only);
	assert_false(st.partial);
	s = find_name(&st, "thing");
	assert_non_null(s);
	assert_null(find_name(&st, "__libc_thing"));
	assert_null(find_name(&st, "__thing"));
	assert_null(find_name(&st, "local_thing"));
	s = find_name(&st, "other_strong");
	assert_non_null(s);
	assert_null(find_name(&st, "other_weak"));
	pp_symtab_release(&st);
	free(path);
}

/* As OProfile sizes .symtab symbols: each reaches the next symbol (the
 * padding after a function is its own) or the end of its section, so no
 * symbol stretches over .plt, whose samples stay unnamed. */
static void test_sym_elf_extents(void **state)
{
	char *path = tu_builddir_path("tests/pp", "libppalias.so");
	struct pp_symtab st;
	const struct pp_sym *s, *next;
	uint64_t plt, plt_end, init, init_end;

	(void)state;
	assert_true(section_range(path, ".plt", &plt, &plt_end));
	assert_true(section_range(path, ".init", &init, &init_end));
	assert_int_equal(pp_symtab_load_elf(&st, path, NULL, NULL), 0);
	for (uint64_t a = plt; a < plt_end; a++)
		assert_null(pp_symtab_lookup(&st, a));
	s = pp_symtab_lookup(&st, init);
	assert_non_null(s);
	assert_string_equal(s->name, "_init");
	assert_int_equal(s->start + s->size, init_end);
	s = find_name(&st, "thing");
	next = s + 1;
	assert_true(next < st.syms + st.nr_syms);
	assert_int_equal(s->start + s->size, next->start);
	pp_symtab_release(&st);
	free(path);
}

/* A binary stripped to .dynsym: its functions, with their own sizes, are
 * there for --dynamic-symbols, the table says where they came from. */
static void test_sym_elf_dynsym(void **state)
{
	char *path = tu_builddir_path("tests/pp", "libppalias_dynsym.so");
	struct pp_symtab st;
	const struct pp_sym *s;

	(void)state;
	assert_int_equal(pp_symtab_load_elf(&st, path, "/nonexistent", NULL), 0);
	assert_true(st.dynsym_only);
	assert_true(st.partial);
	s = find_name(&st, "thing");
	assert_non_null(s);
	assert_null(find_name(&st, "__thing"));
	assert_null(find_name(&st, "local_thing"));
	assert_true(s->size < 0x100);
	pp_symtab_release(&st);
	free(path);
}

static void test_sym_missing(void **state)
{
	struct pp_symtab st;
	char *dir = tu_mkdtemp(), *f = tu_path(dir, "notelf");

	(void)state;
	assert_int_equal(pp_symtab_load_elf(&st, "/nonexistent/bin", NULL, NULL),
			 -ENOENT);
	assert_int_equal(tu_write_file(f, "#!/bin/sh\n", 10), 0);
	assert_int_equal(pp_symtab_load_elf(&st, f, NULL, NULL), -ENOEXEC);
	tu_rm_rf(dir);
	free(dir);
	free(f);
}

static void test_sym_kallsyms(void **state)
{
	char *path = tu_srcdir_path("tests/pp", "kallsyms.txt");
	struct pp_symtab st;
	const struct pp_sym *s;

	(void)state;
	assert_int_equal(pp_symtab_load_kallsyms(&st, path, NULL), 0);
	s = pp_symtab_lookup(&st, 0x2050);
	assert_non_null(s);
	assert_string_equal(s->name, "pid_task");
	assert_int_equal(s->start, 0x2000);
	s = pp_symtab_lookup(&st, 0x2100);
	assert_string_equal(s->name, "tty_audit_exit");
	assert_null(find_name(&st, "ext4_readpage"));
	pp_symtab_release(&st);
	assert_int_equal(pp_symtab_load_kallsyms(&st, path, "ext4"), 0);
	s = pp_symtab_lookup(&st, 0x104);
	assert_non_null(s);
	assert_string_equal(s->name, "ext4_writepage");
	pp_symtab_release(&st);
	assert_int_equal(pp_symtab_load_kallsyms(&st, path, "nosuchmod"), -ENODATA);
	free(path);
}

/* Lines a kallsyms parser must survive: malformed ones are skipped, aliases
 * at one address keep the last line's name (as OProfile, where the earlier
 * ones reach nothing), unsorted input still sorts. */
static void test_sym_kallsyms_hostile(void **state)
{
	char *dir = tu_mkdtemp(), *f = tu_path(dir, "kallsyms");
	const char text[] =
		"ffffffff81003000 T late_fn\n"		/* out of order */
		"ffffffff81000000 T _text\n"
		"ffffffff81001000 t local_alias\n"
		"ffffffff81001000 T global_name\n"
		"ffffffff81001000 t another_alias\n"
		"zzzz T not_hex\n"
		"ffffffff81001800 T\n"			/* no name */
		"ffffffff81001900 TT two_letter_type\n"
		"11111111111111111 T seventeen_digits\n"
		"ffffffff81002000 t mod_sym\t[broken\n"	/* no ] */
		"ffffffff81002100 t spaced   \t[mod]\n"
		"\n"
		"ffffffff81004000 T _etext\n";
	struct pp_symtab st;
	const struct pp_sym *s;

	(void)state;
	assert_int_equal(tu_write_file(f, text, sizeof(text) - 1), 0);
	assert_int_equal(pp_symtab_load_kallsyms(&st, f, NULL), 0);
	s = pp_symtab_lookup(&st, 0x1000);
	assert_non_null(s);
	assert_string_equal(s->name, "another_alias");
	assert_int_equal(s->size, 0x2000);	/* up to late_fn */
	s = pp_symtab_lookup(&st, 0x3010);
	assert_non_null(s);
	assert_string_equal(s->name, "late_fn");
	assert_null(find_name(&st, "not_hex"));
	assert_null(find_name(&st, "two_letter_type"));
	assert_null(find_name(&st, "seventeen_digits"));
	assert_null(find_name(&st, "mod_sym"));
	assert_null(find_name(&st, "spaced"));
	pp_symtab_release(&st);
	assert_int_equal(pp_symtab_load_kallsyms(&st, f, "mod"), 0);
	assert_int_equal(st.nr_syms, 1);
	assert_string_equal(st.syms[0].name, "spaced");
	pp_symtab_release(&st);
	{
		/* one read for several images: the kernel named twice, a
		 * module, a module that is not there */
		const char *mods[] = { NULL, "mod", NULL, "absent" };
		struct pp_symtab tabs[4];
		int status[4];

		pp_symtab_load_kallsyms_set(f, 4, mods, tabs, status);
		assert_int_equal(status[0], 0);
		assert_int_equal(status[1], 0);
		assert_int_equal(status[2], 0);
		assert_int_equal(status[3], -ENODATA);
		assert_int_equal(tabs[0].nr_syms, tabs[2].nr_syms);
		assert_string_equal(pp_symtab_lookup(&tabs[2], 0x3010)->name, "late_fn");
		assert_string_equal(tabs[1].syms[0].name, "spaced");
		for (int i = 0; i < 3; i++)
			pp_symtab_release(&tabs[i]);
	}
	tu_rm_rf(dir);
	free(f);
	free(dir);
}

/* A session's saved kernel symbols: end lines ("ADDR - -") close the
 * symbol before them and are not symbols themselves; an end line at the
 * address of a symbol loses to it; a module's base is its lowest symbol,
 * not an end line below it. */
static void test_sym_kallsyms_end_lines(void **state)
{
	char *dir = tu_mkdtemp(), *f = tu_path(dir, "kallsyms");
	const char text[] =
		"# comment line\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81001000 - -\n"
		"ffffffff81002000 t pid_task\n"
		"ffffffff81002100 - -\n"
		"ffffffff81002200 T schedule\n"
		"ffffffff81002300 - -\n"
		"ffffffff81002300 T adjacent\n"
		"ffffffff81003000 D _etext\n"
		"ffffffffbfffff00 - -\t[mod]\n"
		"ffffffffc0000000 t mod_base\t[mod]\n"
		"ffffffffc0000010 - -\t[mod]\n"
		"ffffffffc0000100 t mod_fn\t[mod]\n"
		"ffffffffc0000180 - -\t[mod]\n";
	struct pp_symtab st;
	const struct pp_sym *s;

	(void)state;
	assert_int_equal(tu_write_file(f, text, sizeof(text) - 1), 0);
	assert_int_equal(pp_symtab_load_kallsyms(&st, f, NULL), 0);
	assert_int_equal(st.nr_syms, 4);
	assert_int_equal(pp_symtab_lookup(&st, 0xfff)->size, 0x1000);
	assert_null(pp_symtab_lookup(&st, 0x1000));
	assert_null(pp_symtab_lookup(&st, 0x1fff));
	s = pp_symtab_lookup(&st, 0x20ff);
	assert_non_null(s);
	assert_string_equal(s->name, "pid_task");
	assert_int_equal(s->size, 0x100);
	assert_null(pp_symtab_lookup(&st, 0x2100));
	assert_string_equal(pp_symtab_lookup(&st, 0x22ff)->name, "schedule");
	s = pp_symtab_lookup(&st, 0x2300);
	assert_non_null(s);
	assert_string_equal(s->name, "adjacent");
	assert_int_equal(s->size, 0xd00);	/* up to _etext */
	assert_null(find_name(&st, "-"));
	pp_symtab_release(&st);
	assert_int_equal(pp_symtab_load_kallsyms(&st, f, "mod"), 0);
	assert_int_equal(st.nr_syms, 2);
	assert_int_equal(st.syms[0].start, 0);
	assert_int_equal(st.syms[0].size, 0x10);
	assert_int_equal(st.syms[1].start, 0x100);
	assert_int_equal(st.syms[1].size, 0x80);
	pp_symtab_release(&st);
	tu_rm_rf(dir);
	free(f);
	free(dir);
}

static void test_sym_perfmap(void **state)
{
	char *dir = tu_mkdtemp(), *f = tu_path(dir, "perf-42.map");
	const char map[] = "7f0000001000 20 jitted_a\n"
			   "7f0000001020 10 jitted b with spaces\n"
			   "this is not a map line\n"
			   "7f0000009000 10 outside_region\n";
	struct pp_symtab st;
	const struct pp_sym *s;
	size_t bad = 0;

	(void)state;
	assert_int_equal(tu_write_file(f, map, sizeof(map) - 1), 0);
	assert_int_equal(pp_symtab_load_perfmap(&st, f, 0x7f0000001000,
						0x7f0000002000, &bad), 0);
	assert_int_equal(bad, 1);
	assert_int_equal(st.nr_syms, 2);
	s = pp_symtab_lookup(&st, 0x25);
	assert_non_null(s);
	assert_string_equal(s->name, "jitted b with spaces");
	assert_null(pp_symtab_lookup(&st, 0x30));
	pp_symtab_release(&st);
	tu_rm_rf(dir);
	free(dir);
	free(f);
}

static void test_demangle(void **state)
{
	char *s = pp_demangle("_ZN2ns5scaleEi");

	(void)state;
	assert_null(pp_demangle("main"));
	/* no demangler is a failure, not a skip: opreport would print every
	 * C++ symbol mangled, and libstdc++ comes with the compiler that
	 * built this test */
	assert_non_null(s);
	assert_string_equal(s, "ns::scale(int)");
	free(s);
}

/* cmocka_unit_test_prestate() with the case's own name */
#define TARGET_CASE(name, i) { #name, test_sym_target, NULL, NULL, (void *)&targets[i] }

int main(void)
{
	const struct CMUnitTest tests[] = {
		TARGET_CASE(test_sym_pie, 0),
		TARGET_CASE(test_sym_nopie, 1),
		TARGET_CASE(test_sym_nodebug, 2),
		TARGET_CASE(test_sym_debuglink, 3),
		TARGET_CASE(test_sym_buildid, 4),
		cmocka_unit_test(test_sym_stripped_alone),
		cmocka_unit_test(test_sym_shlib),
		cmocka_unit_test(test_sym_elf_aliases),
		cmocka_unit_test(test_sym_elf_extents),
		cmocka_unit_test(test_sym_elf_dynsym),
		cmocka_unit_test(test_sym_missing),
		cmocka_unit_test(test_sym_kallsyms),
		cmocka_unit_test(test_sym_kallsyms_hostile),
		cmocka_unit_test(test_sym_kallsyms_end_lines),
		cmocka_unit_test(test_sym_perfmap),
		cmocka_unit_test(test_demangle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
