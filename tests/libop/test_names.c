/* Sample-file names: OProfile's exact form for ordinary paths, reversible
 * escaping for hostile ones, nothing built that can leave its directory. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "op_names.h"

/* -Wwrite-strings: the struct holds char *, the tests never write */
#define S(x) ((char *)(x))
#define FILE_IMG(p) { .kind = OP_IMG_FILE, .path = (char *)(p) }
#define KERN_IMG(p) { .kind = OP_IMG_KERN, .path = (char *)(p) }
#define ANON_IMG(p, t, s, e) \
	{ .kind = OP_IMG_ANON, .path = (char *)(p), .anon_tgid = (t), .anon_start = (s), .anon_end = (e) }

static void assert_img_equal(const struct op_img *a, const struct op_img *b)
{
	assert_int_equal(a->kind, b->kind);
	assert_string_equal(a->path, b->path);
	if (a->kind == OP_IMG_ANON) {
		assert_int_equal(a->anon_tgid, b->anon_tgid);
		assert_int_equal(a->anon_start, b->anon_start);
		assert_int_equal(a->anon_end, b->anon_end);
	}
}

static void assert_sfname_equal(const struct op_sfname *a, const struct op_sfname *b)
{
	assert_img_equal(&a->image, &b->image);
	assert_img_equal(&a->dep, &b->dep);
	assert_string_equal(a->event, b->event);
	assert_int_equal(a->count, b->count);
	assert_int_equal(a->unit_mask, b->unit_mask);
	assert_int_equal(a->tgid, b->tgid);
	assert_int_equal(a->tid, b->tid);
	assert_int_equal(a->cpu, b->cpu);
	if (a->cg.path || b->cg.path) {
		assert_non_null(a->cg.path);
		assert_non_null(b->cg.path);
		assert_img_equal(&a->cg, &b->cg);
	}
}

/* Every component non-empty, not "." or "..", at most 255 bytes, no control
 * characters; the name is relative. */
static void assert_safe(const char *name)
{
	const char *s = name;

	assert_true(name[0] != '/');
	for (;;) {
		const char *slash = strchr(s, '/');
		size_t n = slash ? (size_t)(slash - s) : strlen(s), i;

		if (n == 0 || n > 255 || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.'))
			fail_msg("unsafe component in \"%s\"", name);
		for (i = 0; i < n; i++)
			if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
				fail_msg("control character in \"%s\"", name);
		if (!slash)
			break;
		s = slash + 1;
	}
}

static void round_trip(const struct op_sfname *n, const char *want)
{
	struct op_sfname back;
	char *name = op_sfname_build(n);
	char *again;

	assert_non_null(name);
	if (want)
		assert_string_equal(name, want);
	assert_safe(name);
	assert_int_equal(op_sfname_parse(name, &back), 0);
	assert_sfname_equal(n, &back);
	again = op_sfname_build(&back);
	assert_string_equal(again, name);
	free(again);
	op_sfname_release(&back);
	free(name);
}

static const struct {
	struct op_sfname n;
	const char *want;
} plain[] = {
	{ { FILE_IMG("/usr/bin/foo"), FILE_IMG("/usr/bin/foo"), S("TIMER"), 100000, 0,
	    OP_SF_ALL, OP_SF_ALL, OP_SF_ALL },
	  "{root}/usr/bin/foo/{dep}/{root}/usr/bin/foo/TIMER.100000.0.all.all.all" },
	{ { FILE_IMG("/lib/x86_64-linux-gnu/libc.so.6"), FILE_IMG("/usr/bin/foo"),
	    S("CPU_CLK_UNHALTED"), 100000, 0, 123, 124, 1 },
	  "{root}/usr/bin/foo/{dep}/{root}/lib/x86_64-linux-gnu/libc.so.6/"
	  "CPU_CLK_UNHALTED.100000.0.123.124.1" },
	{ { KERN_IMG("/proc/kallsyms"), KERN_IMG("/proc/kallsyms"), S("TIMER"), 1000000, 0,
	    OP_SF_ALL, OP_SF_ALL, 0 },
	  "{root}/proc/kallsyms/{dep}/{root}/proc/kallsyms/TIMER.1000000.0.all.all.0" },
	{ { KERN_IMG("ext4"), FILE_IMG("/usr/bin/dd"), S("TIMER"), 1, 255, 0, 0, 3 },
	  "{root}/usr/bin/dd/{dep}/{kern}/ext4/TIMER.1.255.0.0.3" },
	{ { ANON_IMG("anon", 42, 0x7f0000000000ull, 0x7f0000021000ull),
	    FILE_IMG("/usr/bin/java"), S("TIMER"), 100000, 0, OP_SF_ALL, OP_SF_ALL, OP_SF_ALL },
	  "{root}/usr/bin/java/{dep}/{anon:anon}/42.0x7f0000000000.0x7f0000021000/"
	  "TIMER.100000.0.all.all.all" },
	{ { ANON_IMG("[vdso]", 7, 0x7ffd000, 0x7ffe000), ANON_IMG("[vdso]", 7, 0x7ffd000, 0x7ffe000),
	    S("TIMER"), 100000, 0, 7, 8, OP_SF_ALL },
	  "{anon:[vdso]}/7.0x7ffd000.0x7ffe000/{dep}/{anon:[vdso]}/7.0x7ffd000.0x7ffe000/"
	  "TIMER.100000.0.7.8.all" },
	/* hostile, with the exact escaping */
	{ { FILE_IMG("/a b/c\nd"), FILE_IMG("/{dep}/{root}"), S("TIMER"), 1, 0, -1, -1, -1 },
	  "{root}/%7Bdep}/%7Broot}/{dep}/{root}/a b/c%0Ad/TIMER.1.0.all.all.all" },
	{ { FILE_IMG("/a/../../etc/./passwd"), FILE_IMG("/x//y/"), S("TIMER"), 1, 0, -1, -1, -1 },
	  "{root}/x/%-/y/%-/{dep}/{root}/a/%2E%2E/%2E%2E/etc/%2E/passwd/TIMER.1.0.all.all.all" },
	{ { FILE_IMG("/"), FILE_IMG("/100%/%2E"), S("ev.with/dots%"), 1, 0, -1, -1, -1 },
	  "{root}/100%25/%252E/{dep}/{root}/%-/ev%2Ewith%2Fdots%25.1.0.all.all.all" },
	{ { ANON_IMG("a}b/c{", 0, 0, 0), FILE_IMG("/.../..."), S("{TIMER}"), 0, 0, -1, -1, -1 },
	  "{root}/.../.../{dep}/{anon:a%7Db%2Fc{}/0.0x0.0x0/%7BTIMER}.0.0.all.all.all" },
	{ { ANON_IMG("", 1, 1, 2), KERN_IMG(""), S("T"), 0, 0, -1, -1, -1 },
	  "{kern}/%-/{dep}/{anon:}/1.0x1.0x2/T.0.0.all.all.all" },
	/* call-graph arcs: the callee's image after {cg}, as operf names them */
	{ { FILE_IMG("/usr/bin/foo"), FILE_IMG("/usr/bin/foo"), S("TIMER"), 100000, 0,
	    OP_SF_ALL, OP_SF_ALL, OP_SF_ALL, FILE_IMG("/lib/libc.so.6") },
	  "{root}/usr/bin/foo/{dep}/{root}/usr/bin/foo/{cg}/{root}/lib/libc.so.6/"
	  "TIMER.100000.0.all.all.all" },
	{ { KERN_IMG("/proc/kallsyms"), FILE_IMG("/usr/bin/foo"), S("TIMER"), 100000, 0,
	    12, 13, 1, ANON_IMG("[vdso]", 12, 0x7000, 0x7fff) },
	  "{root}/usr/bin/foo/{dep}/{root}/proc/kallsyms/{cg}/{anon:[vdso]}/12.0x7000.0x7fff/"
	  "TIMER.100000.0.12.13.1" },
	{ { FILE_IMG("/{cg}"), FILE_IMG("/a"), S("T"), 0, 0, -1, -1, -1, KERN_IMG("ext4") },
	  "{root}/a/{dep}/{root}/%7Bcg}/{cg}/{kern}/ext4/T.0.0.all.all.all" },
};

/* One image's part of a name, on its own, both ways. */
static void test_img_names(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		const struct op_img *im = &plain[i].n.image;
		char *name = op_img_name(im);
		struct op_img back;

		assert_non_null(name);
		assert_null(strchr(name, '\n'));
		assert_int_equal(op_img_parse(name, &back), 0);
		assert_img_equal(im, &back);
		free(back.path);
		free(name);
	}
	assert_int_equal(op_img_parse("{root}/a/{dep}/{root}/b", &(struct op_img){ 0 }), -EINVAL);
	assert_int_equal(op_img_parse("{root}//a", &(struct op_img){ 0 }), -EINVAL);
	assert_int_equal(op_img_parse("/usr/bin/a", &(struct op_img){ 0 }), -EINVAL);
	assert_int_equal(op_img_parse("", &(struct op_img){ 0 }), -EINVAL);
}

static void test_table(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		round_trip(&plain[i].n, plain[i].want);
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 2);

	s[0] = '/';
	memset(s + 1, c, n);
	s[n + 1] = '\0';
	return s;
}

/* Components around and far over 255 bytes, with escapes at the split. */
static void test_long_components(void **state)
{
	static const size_t lens[] = { 250, 251, 252, 253, 254, 255, 256, 257, 258,
				       300, 508, 509, 510, 511, 1000, 5000 };
	static const char fills[] = { 'a', '%', '\n', '.' };
	size_t i, k;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		for (k = 0; k < sizeof(fills); k++) {
			char *p = repeat(fills[k], lens[i]);
			struct op_sfname n = { FILE_IMG(p), KERN_IMG(p + 1), S("TIMER"), 1, 0, -1, -1, -1 };
			struct op_img anon = ANON_IMG(p, 5, 1, 2);
			size_t j;

			round_trip(&n, NULL);
			n.dep = anon;
			round_trip(&n, NULL);
			n.event = p + 1;
			round_trip(&n, NULL);
			/* mixed: an escape straddling every possible split */
			for (j = 1; j + 2 < lens[i]; j += 97) {
				p[j] = '%';
				p[j + 1] = '.';
			}
			n.event = S("TIMER");
			n.image.kind = OP_IMG_FILE;
			n.image.path = p;
			round_trip(&n, NULL);
			free(p);
		}
	}
}

static void test_long_path(void **state)
{
	size_t len = 20000, i;
	char *p = malloc(len + 1);
	struct op_sfname n = { FILE_IMG(p), FILE_IMG(p), S("TIMER"), 1, 0, -1, -1, -1 };

	for (i = 0; i < len; i++)
		p[i] = i % 7 == 0 ? '/' : (i % 13 == 0 ? '.' : 'x');
	p[len] = '\0';
	round_trip(&n, NULL);
	free(p);
}

static const char *const bad_names[] = {
	"{root}/a/{dep}/{root}/a/{cg}/TIMER.1.0.all.all.all",		/* {cg} with no image */
	"{root}/a/{dep}/{root}/a/{cg}/{root}/b/{cg}/{root}/c/T.1.0.all.all.all",	/* two */
	"",
	"foo",
	"/{root}/a/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{root}/a/{dep}/{root}/a/TIMER.1.0.all.all",
	"{root}/a/{dep}/{root}/a/TIMER.1.0.all.all.all.x",
	"{root}/a/{dep}/{root}/a/TIMER.1.0.all.all.all/",
	"{root}/a/{dep}/{root}/a/.1.0.all.all.all",
	"{root}/a/{dep}/{root}/a/TIMER.01.0.all.all.all",
	"{root}/a/{dep}/{root}/a/TIMER.1.0.-1.all.all",
	"{root}/a/{dep}/{root}/a/TIMER.1.0.+1.all.all",
	"{root}/a/{dep}/{root}/a/TIMER.1.0.All.all.all",
	"{root}/a/{dep}/{root}/a/TIMER.1.4294967296.all.all.all",
	"{root}/a/{dep}/{root}/a/TIMER.99999999999999999999999.0.all.all.all",
	"{root}/a/{dep}/{root}/a/TIMER.1.0.2147483648.all.all",
	"{root}/../{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{root}/./{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{root}//{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{root}/a/{dep}/{root}/a/b/../TIMER.1.0.all.all.all",
	"{root}/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{root}/a/{dep}/{root}/TIMER.1.0.all.all.all",
	"{root}/a/{dep}/TIMER.1.0.all.all.all",
	"{root}/a/{root}/a/TIMER.1.0.all.all.all",
	"{root}/a%2fb/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{root}/a%2Fb/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{root}/a%00b/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{root}/a%0ab/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{root}/a%4/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{root}/a%/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{root}/%41/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{root}/a%+/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{root}/a%+",
	"{root}/a/{dep}/{root}/a/TIMER.1.0.all.all.all%+",
	"{root}/{x}/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{root}/a/{dep}/{root}/a/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{cg}/a/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{kern}/{dep}/{kern}/x/TIMER.1.0.all.all.all",
	"{anon:anon}/42.0x1.0x2/x/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{anon:anon}/42.0x1/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{anon:anon}/42.0x01.0x2/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{anon:anon}/42.0xA.0x2/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{anon:anon}/42.1.0x2/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{anon:anon}/-1.0x1.0x2/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{anon:anon}/42.0x10000000000000000.0x2/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{anon:a}b}/42.0x1.0x2/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{anon:anon/42.0x1.0x2/{dep}/{root}/a/TIMER.1.0.all.all.all",
	"{dep}/{root}/a/TIMER.1.0.all.all.all",
	".odbtmp.Ab12Cd",
	"{root}/a/{dep}/{root}/a/.odbtmp.Ab12Cd",
	"{root}/a/{dep}/{root}/a/TIMER.1.0.all.all.all.odbtmp.Ab12Cd",
	"stats/total_samples",
};

static void test_reject(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
		struct op_sfname n;
		int ret = op_sfname_parse(bad_names[i], &n);

		if (ret != -EINVAL)
			fail_msg("accepted \"%s\" (%d)", bad_names[i], ret);
		assert_null(n.event);
		assert_null(n.image.path);
		op_sfname_release(&n);
	}
	assert_int_equal(op_sfname_parse(NULL, &(struct op_sfname){ 0 }), -EINVAL);
}

static void test_build_errors(void **state)
{
	struct op_sfname n = { FILE_IMG("usr/bin/foo"), FILE_IMG("/x"), S("TIMER"), 1, 0, -1, -1, -1 };

	errno = 0;
	assert_null(op_sfname_build(&n));
	assert_int_equal(errno, EINVAL);
	n.image.path = S("/x");
	n.event = S("");
	assert_null(op_sfname_build(&n));
	n.event = NULL;
	assert_null(op_sfname_build(&n));
	n.event = S("TIMER");
	n.cpu = -2;
	assert_null(op_sfname_build(&n));
	n.cpu = 0;
	n.dep.path = NULL;
	assert_null(op_sfname_build(&n));
	n.dep = (struct op_img)ANON_IMG("anon", -5, 0, 1);
	assert_null(op_sfname_build(&n));
	n.dep.anon_tgid = 5;
	char *ok = op_sfname_build(&n);
	assert_non_null(ok);
	free(ok);
	assert_null(op_sfname_build(NULL));
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static char *random_bytes(uint64_t *s, size_t max, bool slash_first)
{
	static const char alphabet[] = "/./..{}%+- \n\tab";
	size_t n = rnd(s) % max, i;
	char *p = malloc(n + 2), *o = p;

	if (slash_first)
		*o++ = '/';
	for (i = 0; i < n; i++) {
		unsigned char c;

		if (rnd(s) % 2)
			c = (unsigned char)alphabet[rnd(s) % (sizeof(alphabet) - 1)];
		else
			c = (unsigned char)(1 + rnd(s) % 255);
		*o++ = (char)c;
	}
	*o = '\0';
	return p;
}

static void random_img(uint64_t *s, struct op_img *img)
{
	size_t max = rnd(s) % 4 == 0 ? 700 : 40;

	img->kind = (enum op_img_kind)(rnd(s) % 3);
	img->path = random_bytes(s, max, img->kind == OP_IMG_FILE);
	/* a kernel named by a path is filed as a file (kept apart by the
	 * sample file's header): only "/proc/kallsyms" reads back as kernel */
	if (img->kind == OP_IMG_KERN && img->path[0] == '/')
		img->kind = OP_IMG_FILE;
	img->anon_tgid = (pid_t)(rnd(s) % 100000);
	img->anon_start = rnd(s);
	img->anon_end = rnd(s) % 3 ? rnd(s) : 0;
}

/* Property: for random byte strings in every field, the name is safe and
 * parses back to the same fields. */
static void test_random_round_trips(void **state)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	int i;

	for (i = 0; i < 20000; i++) {
		struct op_sfname n = { 0 };

		random_img(&s, &n.image);
		random_img(&s, &n.dep);
		if (rnd(&s) % 2)
			random_img(&s, &n.cg);
		n.event = random_bytes(&s, 20, false);
		if (!*n.event) {
			free(n.event);
			n.event = strdup("E");
		}
		n.count = (unsigned long)rnd(&s) >> (rnd(&s) % 64);
		n.unit_mask = (unsigned int)rnd(&s);
		n.tgid = rnd(&s) % 2 ? OP_SF_ALL : (int)(rnd(&s) % 0x80000000u);
		n.tid = rnd(&s) % 2 ? OP_SF_ALL : (int)(rnd(&s) % 1000);
		n.cpu = rnd(&s) % 2 ? OP_SF_ALL : (int)(rnd(&s) % 256);
		round_trip(&n, NULL);
		op_sfname_release(&n);
	}
}

/* Property: random damage to valid names is rejected or parses to fields
 * that build back to exactly the damaged name. */
static void test_random_mutations(void **state)
{
	uint64_t s = 12345;
	size_t i;
	int k;

	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		char *good = op_sfname_build(&plain[i].n);
		size_t len = strlen(good);

		for (k = 0; k < 3000; k++) {
			static const char alphabet[] = "/.%{}+-0123456789aAfFx";
			char *m = strdup(good);
			struct op_sfname n;

			m[rnd(&s) % len] = alphabet[rnd(&s) % (sizeof(alphabet) - 1)];
			if (op_sfname_parse(m, &n) == 0) {
				char *again = op_sfname_build(&n);

				assert_string_equal(again, m);
				assert_safe(m);
				free(again);
				op_sfname_release(&n);
			}
			free(m);
		}
		free(good);
	}
}

/* The kernel as operf files it: by its path under {root}. /proc/kallsyms
 * reads back as the kernel; a vmlinux path reads back as a file (the
 * sample file's header tells); names without '/' stay under {kern}; our
 * old {kern}/%-/proc/kallsyms form is refused. */
static void test_kernel_names(void **state)
{
	struct op_sfname k = { KERN_IMG("/proc/kallsyms"), FILE_IMG("/bin/sh"), S("TIMER"),
			       1, 0, -1, -1, -1 };
	struct op_sfname v = { KERN_IMG("/boot/vmlinux-6.1"), KERN_IMG("/boot/vmlinux-6.1"),
			       S("TIMER"), 1, 0, -1, -1, -1 };
	struct op_sfname nv = { KERN_IMG("no-vmlinux"), KERN_IMG("no-vmlinux"), S("TIMER"),
				1, 0, -1, -1, -1 };
	struct op_sfname n;
	char *s;

	(void)state;
	round_trip(&k, "{root}/bin/sh/{dep}/{root}/proc/kallsyms/TIMER.1.0.all.all.all");
	round_trip(&nv, "{kern}/no-vmlinux/{dep}/{kern}/no-vmlinux/TIMER.1.0.all.all.all");
	s = op_sfname_build(&v);
	assert_string_equal(s, "{root}/boot/vmlinux-6.1/{dep}/{root}/boot/vmlinux-6.1/"
			       "TIMER.1.0.all.all.all");
	assert_int_equal(op_sfname_parse(s, &n), 0);
	assert_int_equal(n.image.kind, OP_IMG_FILE);
	assert_string_equal(n.image.path, "/boot/vmlinux-6.1");
	op_sfname_release(&n);
	free(s);
	assert_int_equal(op_sfname_parse("{kern}/%-/proc/kallsyms/{dep}/{kern}/%-/proc/kallsyms/"
					 "TIMER.1.0.all.all.all", &n), -EINVAL);
}

static void test_display(void **state)
{
	struct op_img f = FILE_IMG("/usr/lib/libc.so.6");
	struct op_img k = KERN_IMG("/proc/kallsyms");
	struct op_img m = KERN_IMG("ext4");
	struct op_img a = ANON_IMG("[vdso]", 12, 0x7ffd000, 0x7ffe000);
	char *s;

	s = op_img_display(&f, 0);
	assert_string_equal(s, "libc.so.6");
	free(s);
	s = op_img_display(&f, 1);
	assert_string_equal(s, "/usr/lib/libc.so.6");
	free(s);
	s = op_img_display(&k, 0);
	assert_string_equal(s, "kallsyms");
	free(s);
	s = op_img_display(&m, 0);
	assert_string_equal(s, "ext4");
	free(s);
	s = op_img_display(&a, 0);
	assert_string_equal(s, "[vdso] (tgid:12 range:0x7ffd000-0x7ffe000)");
	free(s);
	errno = 0;
	assert_null(op_img_display(NULL, 0));
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_img_names),
		cmocka_unit_test(test_long_components),
		cmocka_unit_test(test_long_path),
		cmocka_unit_test(test_reject),
		cmocka_unit_test(test_build_errors),
		cmocka_unit_test(test_random_round_trips),
		cmocka_unit_test(test_random_mutations),
		cmocka_unit_test(test_kernel_names),
		cmocka_unit_test(test_display),
	};

	return cmocka_run_group_tests_name("op_names", tests, NULL, NULL);
}
