/* The DWARF unwinder (kmod/kop_unwind.c) on recorded inputs: unwind_rec,
 * built beside this test without frame pointers, records at test time
 * what the kernel would hand us for a sample in several situations (its
 * registers, the top of its stack, its thread and executable mappings);
 * each is unwound through a task table built from those mappings, and the
 * pcs found are named (libdw's symbol tables, apart from the unwinder) and
 * checked against the calls the helper made: the main thread, another
 * thread, a library loaded after start, a frame without unwind tables
 * (without a frame pointer: the chain ends; with one: libdw's fallback
 * follows it, and it is counted), a
 * stack copy cut short and a recursion deeper than the copy, a signal
 * frame; a file named after a copy in a session's kept/ store, read
 * beneath the session and not through a link there. And the record
 * parser on records whose sizes do not add up. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kop_unwind.h"
#include "op_proto.h"
#include "testutil.h"

#define TGID 4242
#define MAX_PCS 64
#define DEEP_PCS 512

struct rec_map {
	uint64_t start, end, off;
	char path[PATH_MAX];
};

struct rec_case {
	pid_t tid;
	uint64_t regs[KOP_UNWIND_NR_REGS];
	struct rec_map maps[256];
	size_t nr_maps;
	unsigned char *stack;
	size_t stack_size;
};

static char *dir;

static int setup_all(void **state)
{
	char helper[PATH_MAX], lib[PATH_MAX], cmd[3 * PATH_MAX];

	(void)state;
	if (!realpath("kmod/unwind_rec", helper) ||
	    !realpath("kmod/libunwind_lib.so", lib)) {
		fprintf(stderr, "test_unwind: kmod/unwind_rec or kmod/libunwind_lib.so not built\n");
		return -1;
	}
	dir = tu_mkdtemp();
	if (!dir)
		return -1;
	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s'", helper, dir, lib);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown_all(void **state)
{
	(void)state;
	if (dir)
		tu_rm_rf(dir);
	free(dir);
	return 0;
}

static void load(const char *name, struct rec_case *c)
{
	char path[PATH_MAX], line[PATH_MAX + 128];
	FILE *f;
	long n;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/%s.txt", dir, name);
	f = fopen(path, "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		struct rec_map *m = &c->maps[c->nr_maps];
		char *p;

		if (!strncmp(line, "tid ", 4)) {
			c->tid = (pid_t)atol(line + 4);
		} else if (!strncmp(line, "regs", 4)) {
			p = line + 4;
			for (int i = 0; i < KOP_UNWIND_NR_REGS; i++)
				c->regs[i] = strtoull(p, &p, 16);
		} else if (sscanf(line, "map %lx %lx %lx %4095s", &m->start,
				  &m->end, &m->off, m->path) == 4) {
			assert_true(c->nr_maps < 255);
			c->nr_maps++;
		}
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s.stack", dir, name);
	f = fopen(path, "re");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	c->stack = malloc((size_t)n);
	assert_non_null(c->stack);
	assert_int_equal(fread(c->stack, 1, (size_t)n, f), (size_t)n);
	c->stack_size = (size_t)n;
	fclose(f);
	assert_int_not_equal(c->tid, 0);
	assert_true(c->nr_maps > 0);
}

/* the case's mappings into k, as the sync thread would have them */
static void map_all(struct kop_dcookies *dc, struct kop_task *k,
		    const struct rec_case *c)
{
	for (size_t i = 0; i < c->nr_maps; i++) {
		const struct rec_map *m = &c->maps[i];
		bool file = m->path[0] == '/';
		uint64_t cookie = file ?
			kop_dcookie_file(dc, m->path, 0, 0, NULL, 0) :
			kop_dcookie_anon(dc, m->path, TGID, m->start, m->end);

		assert_int_not_equal(cookie, OP_NO_COOKIE);
		assert_int_equal(kop_task_map(k, m->start, m->end,
					      file ? m->off : KOP_MAP_ANON,
					      cookie), 0);
	}
}

struct env {
	struct kop_dcookies dc;
	struct kop_tasks tasks;
	struct kop_task *k;
	struct kop_unwind *u;
	struct op_logger log;
};

static void env_init(struct env *e, const struct rec_case *c)
{
	memset(e, 0, sizeof(*e));
	assert_int_equal(kop_dcookies_init(&e->dc), 0);
	assert_int_equal(kop_tasks_init(&e->tasks), 0);
	e->k = kop_task_new(&e->tasks, TGID);
	assert_non_null(e->k);
	map_all(&e->dc, e->k, c);
	e->u = kop_unwind_new(&e->dc, &e->log);
	assert_non_null(e->u);
}

static void env_release(struct env *e)
{
	kop_unwind_free(e->u);
	kop_tasks_release(&e->tasks);
	kop_dcookies_release(&e->dc);
}

/* Whether walk()'s last walk took the fast path (kop_unwind_rows.h). */
static bool last_fast;

/* One walk of case c (its stack copy cut to cut bytes, 0: whole), which
 * the fast path and libdw's walk alone must find alike: the same pcs, the
 * same end, the same frames by the frame pointer. */
static size_t walk(struct env *e, const struct rec_case *c, size_t cut,
		   size_t max, uint64_t *pcs, enum kop_unwind_end *end)
{
	struct kop_user_regs ur = {
		.abi = PERF_SAMPLE_REGS_ABI_64,
		.regs = (const unsigned char *)c->regs,
		.stack = c->stack,
		.stack_size = cut ? cut : c->stack_size,
	};

	unsigned int nr_fp, nr_fp_dw;
	struct kop_unwind_stats st0, st1;
	enum kop_unwind_end end_dw;
	uint64_t *pcs_dw = calloc(max, sizeof(*pcs_dw));
	size_t n, n_dw;

	assert_non_null(pcs_dw);
	kop_unwind_get_stats(e->u, &st0);
	n = kop_unwind_walk(e->u, e->k, c->tid, &ur, pcs, max, end, &nr_fp);
	kop_unwind_get_stats(e->u, &st1);
	last_fast = st1.nr_fast > st0.nr_fast;
	/* the reference: the same sample by libdw's walk alone */
	kop_unwind_set_fast(e->u, false);
	n_dw = kop_unwind_walk(e->u, e->k, c->tid, &ur, pcs_dw, max, &end_dw,
			       &nr_fp_dw);
	kop_unwind_set_fast(e->u, true);
	assert_int_equal(n, n_dw);
	assert_memory_equal(pcs, pcs_dw, n * sizeof(*pcs));
	assert_int_equal(*end, end_dw);
	assert_int_equal(nr_fp, nr_fp_dw);
	free(pcs_dw);
	return n;
}

/* The names of pcs (the first the sampled one, the others return
 * addresses, named by the call before them), from the ELF files' symbol
 * tables: a Dwfl of our own, not the unwinder's. */
static void name_pcs(const struct rec_case *c, const uint64_t *pcs, size_t n,
		     char names[][128])
{
	static char *debuginfo_path = NULL;
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_build_id_find_debuginfo,
		.debuginfo_path = &debuginfo_path,
	};
	Dwfl *dwfl = dwfl_begin(&cb);

	assert_non_null(dwfl);
	dwfl_report_begin(dwfl);
	for (size_t i = 0; i < c->nr_maps; i++) {
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(c->maps[j].path, c->maps[i].path);
		if (!seen && c->maps[i].path[0] == '/')
			dwfl_report_elf(dwfl, c->maps[i].path, c->maps[i].path, -1,
					c->maps[i].start - c->maps[i].off, true);
	}
	dwfl_report_end(dwfl, NULL, NULL);
	for (size_t i = 0; i < n; i++) {
		uint64_t pc = pcs[i] - (i ? 1 : 0);
		Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
		const char *name = mod ? dwfl_module_addrname(mod, pc) : NULL;

		snprintf(names[i], 128, "%s", name ? name : "?");
	}
	dwfl_end(dwfl);
}

/* Do want's names appear in names, in that order (others between)? */
static bool in_order(char names[][128], size_t n, const char *const *want)
{
	size_t i = 0;

	for (; *want; want++) {
		while (i < n && strcmp(names[i], *want))
			i++;
		if (i == n)
			return false;
		i++;
	}
	return true;
}

static bool has(char names[][128], size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static void show(const char *what, char names[][128], size_t n,
		 enum kop_unwind_end end)
{
	fprintf(stderr, "%s (end %d):", what, (int)end);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " %s", names[i]);
	fprintf(stderr, "\n");
}

/* one case unwound whole, expecting how it ends and names in order */
static void expect(const char *name, enum kop_unwind_end want_end,
		   bool want_fast, const char *const *want)
{
	struct rec_case c;
	struct env e;
	uint64_t pcs[MAX_PCS];
	char names[MAX_PCS][128];
	enum kop_unwind_end end;
	size_t n;

	load(name, &c);
	env_init(&e, &c);
	n = walk(&e, &c, 0, MAX_PCS, pcs, &end);
	name_pcs(&c, pcs, n, names);
	show(name, names, n, end);
	assert_true(n >= 2);
	assert_int_equal(end, want_end);
	assert_true(in_order(names, n, want));
	assert_int_equal(last_fast, want_fast);
	env_release(&e);
	free(c.stack);
}

static void test_main_thread(void **state)
{
	static const char *const want[] = { "rec_capture", "take", "rec_b",
		"rec_a", "main", "__libc_start_call_main", NULL };

	(void)state;
	expect("main", KOP_UNWIND_DONE, true, want);
}

static void test_other_thread(void **state)
{
	static const char *const want[] = { "rec_capture", "take", "rec_b",
		"rec_a", "thread_main", "start_thread", NULL };

	(void)state;
	expect("thread", KOP_UNWIND_DONE, true, want);
}

static void test_signal_frame(void **state)
{
	static const char *const want[] = { "rec_capture", "take", "on_signal",
		"rec_sig", "main", "__libc_start_call_main", NULL };

	(void)state;
	/* a signal frame's CIE: libdw's to walk */
	expect("signal", KOP_UNWIND_DONE, false, want);
}

/* a frame with no unwind table ends the chain there, and says so */
static void test_no_cfi(void **state)
{
	static const char *const want[] = { "rec_capture", "take",
		"nocfi_target", "nocfi_call", NULL };
	struct rec_case c;
	struct env e;
	uint64_t pcs[MAX_PCS];
	char names[MAX_PCS][128];
	enum kop_unwind_end end;
	size_t n;

	(void)state;
	expect("nocfi", KOP_UNWIND_NO_CFI, false, want);
	load("nocfi", &c);
	env_init(&e, &c);
	n = walk(&e, &c, 0, MAX_PCS, pcs, &end);
	name_pcs(&c, pcs, n, names);
	assert_string_equal(names[n - 1], "nocfi_call");
	assert_false(has(names, n, "main"));
	env_release(&e);
	free(c.stack);
}

/* No unwind table, but a frame pointer: libdw's fallback finds the
 * caller, and says so (one frame by it); with tables again from there. */
static void test_fp_fallback(void **state)
{
	static const char *const want[] = { "rec_capture", "take", "fp_target",
		"fp_call", "fp_caller", "main", "__libc_start_call_main", NULL };
	struct rec_case c;
	struct env e;
	uint64_t pcs[MAX_PCS];
	char names[MAX_PCS][128];
	struct kop_user_regs ur;
	enum kop_unwind_end end;
	unsigned int nr_fp;
	size_t n;

	(void)state;
	load("fp", &c);
	env_init(&e, &c);
	ur = (struct kop_user_regs){ .abi = PERF_SAMPLE_REGS_ABI_64,
		.regs = (const unsigned char *)c.regs, .stack = c.stack,
		.stack_size = c.stack_size };
	n = kop_unwind_walk(e.u, e.k, c.tid, &ur, pcs, MAX_PCS, &end, &nr_fp);
	name_pcs(&c, pcs, n, names);
	show("fp", names, n, end);
	assert_int_equal(end, KOP_UNWIND_DONE);
	assert_true(in_order(names, n, want));
	assert_int_equal(nr_fp, 1);
	/* and none where every frame has a table */
	env_release(&e);
	free(c.stack);
	load("main", &c);
	env_init(&e, &c);
	ur.regs = (const unsigned char *)c.regs;
	ur.stack = c.stack;
	ur.stack_size = c.stack_size;
	kop_unwind_walk(e.u, e.k, c.tid, &ur, pcs, MAX_PCS, &end, &nr_fp);
	assert_int_equal(nr_fp, 0);
	env_release(&e);
	free(c.stack);
}

/* a copy cut after a few frames, and a recursion deeper than 8 KiB */
static void test_short_stack(void **state)
{
	static const char *const want_cut[] = { "rec_capture", "take", NULL };
	static const char *const want_deep[] = { "rec_capture", "take", "deep",
		"deep", "deep", NULL };
	struct rec_case c;
	struct env e;
	uint64_t pcs[MAX_PCS];
	char names[MAX_PCS][128];
	static uint64_t deep_pcs[DEEP_PCS];
	static char deep_names[DEEP_PCS][128];
	enum kop_unwind_end end;
	size_t n, deep = 0;

	(void)state;
	load("main", &c);
	env_init(&e, &c);
	n = walk(&e, &c, 64, MAX_PCS, pcs, &end);
	name_pcs(&c, pcs, n, names);
	show("main cut to 64 bytes", names, n, end);
	assert_int_equal(end, KOP_UNWIND_SHORT_STACK);
	assert_true(in_order(names, n, want_cut));
	assert_false(has(names, n, "main"));
	env_release(&e);
	free(c.stack);

	/* 400 frames of about 80 bytes: the copy ends within them */
	load("deep", &c);
	env_init(&e, &c);
	n = walk(&e, &c, 0, DEEP_PCS, deep_pcs, &end);
	name_pcs(&c, deep_pcs, n, deep_names);
	show("deep", deep_names, n, end);
	assert_int_equal(end, KOP_UNWIND_SHORT_STACK);
	assert_true(in_order(deep_names, n, want_deep));
	for (size_t i = 0; i < n; i++)
		deep += !strcmp(deep_names[i], "deep");
	assert_true(deep >= 50);
	assert_false(has(deep_names, n, "main"));
	env_release(&e);
	free(c.stack);
}

/* A library loaded after the first sample: the table's new generation
 * builds the process's state again, and the library's frame is found. */
static void test_dlopen(void **state)
{
	static const char *const before[] = { "take", "rec_b", "rec_a",
		"main", NULL };
	static const char *const after[] = { "take", "lib_cb",
		"unwind_lib_call", "main", "__libc_start_call_main", NULL };
	struct rec_case c1, c2;
	struct env e;
	struct kop_unwind_stats st;
	uint64_t pcs[MAX_PCS];
	char names[MAX_PCS][128];
	enum kop_unwind_end end;
	size_t n;

	(void)state;
	load("dl_before", &c1);
	load("dl_after", &c2);
	assert_true(c2.nr_maps > c1.nr_maps);
	env_init(&e, &c1);
	n = walk(&e, &c1, 0, MAX_PCS, pcs, &end);
	name_pcs(&c1, pcs, n, names);
	assert_int_equal(end, KOP_UNWIND_DONE);
	assert_true(in_order(names, n, before));
	/* the same table again: from the cache */
	n = walk(&e, &c1, 0, MAX_PCS, pcs, &end);
	kop_unwind_get_stats(e.u, &st);
	/* each walk() is two: by the kept rows, then by libdw alone */
	assert_int_equal(st.nr_builds, 1);
	assert_int_equal(st.nr_walks, 4);
	assert_int_equal(st.nr_fast, 2);
	/* the mmap of the library, as the sync thread applies it */
	map_all(&e.dc, e.k, &c2);
	n = walk(&e, &c2, 0, MAX_PCS, pcs, &end);
	name_pcs(&c2, pcs, n, names);
	show("dl_after", names, n, end);
	assert_int_equal(end, KOP_UNWIND_DONE);
	assert_true(in_order(names, n, after));
	assert_true(last_fast);
	kop_unwind_get_stats(e.u, &st);
	assert_int_equal(st.nr_builds, 2);
	env_release(&e);
	free(c1.stack);
	free(c2.stack);
}

/* A file whole into another path. */
static void copy_file(const char *from, const char *to)
{
	FILE *f = fopen(from, "re");
	static char buf[1 << 22];
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	assert_true(n > 0 && n < sizeof(buf));
	fclose(f);
	assert_int_equal(tu_write_file(to, buf, n), 0);
}

/* The helper named after a copy in a session's kept/ store, as the daemon
 * names a container's binary: with kept/ a link to the helper's own
 * directory, the file is not read through it (its frames are not
 * unwound, the build failure counted); a real copy there is read. */
static void test_session_link(void **state)
{
	static const char *const want[] = { "rec_capture", "take", "rec_b",
		"rec_a", "main", NULL };
	char helper[PATH_MAX], hdir[PATH_MAX], why[PATH_MAX + 128];
	char names[MAX_PCS][128];
	char *sess = tu_mkdtemp(), *kept = tu_path(sess, "kept"), *copy;
	struct kop_unwind_stats st;
	struct op_sessdir sd;
	struct rec_case c;
	uint64_t pcs[MAX_PCS];
	enum kop_unwind_end end;
	struct env e;
	size_t n;

	(void)state;
	assert_non_null(realpath("kmod/unwind_rec", helper));
	snprintf(hdir, sizeof(hdir), "%s", helper);
	*strrchr(hdir, '/') = '\0';
	copy = tu_path(kept, "unwind_rec");
	load("main", &c);
	for (size_t i = 0; i < c.nr_maps; i++)
		if (!strcmp(c.maps[i].path, helper))
			snprintf(c.maps[i].path, sizeof(c.maps[i].path), "%s", copy);
	assert_int_equal(op_sessdir_open(&sd, sess, OP_SD_READ, why, sizeof(why)), 0);

	/* kept/ a link to where the helper is */
	assert_int_equal(symlink(hdir, kept), 0);
	env_init(&e, &c);
	kop_unwind_set_session(e.u, &sd);
	n = walk(&e, &c, 0, MAX_PCS, pcs, &end);
	kop_unwind_get_stats(e.u, &st);
	name_pcs(&c, pcs, n, names);
	show("main, kept/ a link", names, n, end);
	assert_true(st.nr_build_fail >= 1);
	assert_false(in_order(names, n, want));
	env_release(&e);

	/* a real copy */
	assert_int_equal(unlink(kept), 0);
	assert_int_equal(mkdir(kept, 0755), 0);
	copy_file(helper, copy);
	env_init(&e, &c);
	kop_unwind_set_session(e.u, &sd);
	n = walk(&e, &c, 0, MAX_PCS, pcs, &end);
	name_pcs(&c, pcs, n, names);
	show("main, a kept copy", names, n, end);
	assert_int_equal(end, KOP_UNWIND_DONE);
	assert_true(in_order(names, n, want));
	env_release(&e);

	op_sessdir_close(&sd);
	free(c.stack);
	tu_rm_rf(sess);
	free(sess);
	free(kept);
	free(copy);
}

/* max pcs, then DEPTH; registers not 64-bit: nothing */
static void test_depth_and_abi(void **state)
{
	struct rec_case c;
	struct env e;
	uint64_t pcs[MAX_PCS];
	enum kop_unwind_end end;
	struct kop_user_regs ur;
	unsigned int nr_fp;

	(void)state;
	load("main", &c);
	env_init(&e, &c);
	assert_int_equal(walk(&e, &c, 0, 3, pcs, &end), 3);
	assert_int_equal(end, KOP_UNWIND_DEPTH);
	ur = (struct kop_user_regs){ .abi = PERF_SAMPLE_REGS_ABI_32,
		.regs = (const unsigned char *)c.regs, .stack = c.stack,
		.stack_size = c.stack_size };
	assert_int_equal(kop_unwind_walk(e.u, e.k, c.tid, &ur, pcs, MAX_PCS, &end, &nr_fp), 0);
	assert_int_equal(end, KOP_UNWIND_BAD_FRAME);
	env_release(&e);
	free(c.stack);
}

/* A record: header, kop_sample_rec's fixed 24 bytes, then the chain,
 * the registers and the stack, each size as given. */
static size_t build_rec(unsigned char *buf, uint64_t nr, uint64_t abi,
			uint64_t size, uint64_t dyn, size_t cut)
{
	struct perf_event_header *h = (void *)buf;
	size_t off = sizeof(*h) + 24;

	memset(buf, 0, 65536);
	memcpy(buf + off, &nr, 8);
	off += 8 + 8 * nr;
	memcpy(buf + off, &abi, 8);
	off += 8;
	if (abi)
		off += 8 * KOP_UNWIND_NR_REGS;
	memcpy(buf + off, &size, 8);
	off += 8;
	if (size) {
		off += size;
		memcpy(buf + off, &dyn, 8);
		off += 8;
	}
	off -= cut;
	h->type = PERF_RECORD_SAMPLE;
	h->size = (uint16_t)off;
	return off;
}

static void test_parse(void **state)
{
	static unsigned char buf[65536];
	const struct perf_event_header *h = (const void *)buf;
	struct kop_user_regs u;
	size_t fixed = sizeof(*h) + 24;

	(void)state;
	build_rec(buf, 3, PERF_SAMPLE_REGS_ABI_64, 1024, 512, 0);
	assert_true(kop_unwind_parse(h, fixed, &u));
	assert_int_equal(u.abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(u.stack_size, 512);
	assert_ptr_equal(u.regs, buf + fixed + 8 + 24 + 8);
	assert_ptr_equal(u.stack, u.regs + 8 * KOP_UNWIND_NR_REGS + 8);
	/* a kernel thread: no registers, no stack */
	build_rec(buf, 2, PERF_SAMPLE_REGS_ABI_NONE, 0, 0, 0);
	assert_true(kop_unwind_parse(h, fixed, &u));
	assert_null(u.regs);
	assert_null(u.stack);
	/* each field cut: refused, never read past the record */
	for (size_t cut = 8; cut <= 1024 + 8 * 20; cut += 8) {
		build_rec(buf, 3, PERF_SAMPLE_REGS_ABI_64, 1024, 512, cut);
		assert_false(kop_unwind_parse(h, fixed, &u));
	}
	/* filled more than copied; a chain longer than the record */
	build_rec(buf, 3, PERF_SAMPLE_REGS_ABI_64, 1024, 1032, 0);
	assert_false(kop_unwind_parse(h, fixed, &u));
	build_rec(buf, 3, PERF_SAMPLE_REGS_ABI_64, 1024, 512, 0);
	memcpy(buf + fixed, &(uint64_t){ 1ULL << 60 }, 8);
	assert_false(kop_unwind_parse(h, fixed, &u));
	build_rec(buf, 3, PERF_SAMPLE_REGS_ABI_64, 1024, 512, 0);
	assert_false(kop_unwind_parse(h, h->size + 8, &u));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_main_thread),
		cmocka_unit_test(test_other_thread),
		cmocka_unit_test(test_signal_frame),
		cmocka_unit_test(test_no_cfi),
		cmocka_unit_test(test_fp_fallback),
		cmocka_unit_test(test_short_stack),
		cmocka_unit_test(test_dlopen),
		cmocka_unit_test(test_session_link),
		cmocka_unit_test(test_depth_and_abi),
		cmocka_unit_test(test_parse),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
