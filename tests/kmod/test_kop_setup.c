/* kmod unit tests, what a session opens and reads: build-ids naming
 * cookies, the perf attributes and rings asked of the kernel (offline
 * CPUs, ring sizes, open failures, --cpu), kallsyms and modules
 * (op_kernel), and the task table's mapping replacement. */
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
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "kop_evbuf.h"
#include "kop_fixture.h"
#include "kop_task.h"
#include "op_kernel.h"
#include "stream_walk.h"
#include "testutil.h"

/* ---- build-ids ---- */

static size_t mmap2_bid(void *buf, uint32_t pid, uint64_t addr,
			const char *name, uint8_t fill, uint64_t time)
{
	unsigned char *p = buf;
	size_t n = fake_mmap2(buf, pid, addr, 0x1000, 0, 0, 0, 0, name, time);
	struct perf_event_header h;

	memcpy(&h, p, sizeof(h));
	h.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	memcpy(p, &h, sizeof(h));
	memset(p + 8 + 32, 0, 24);
	p[8 + 32] = 20;			/* build_id_size */
	memset(p + 8 + 36, fill, 20);	/* build_id */
	return n;
}

/* MMAP2 with a build-id (no dev/ino) names the same cookie as /proc's
 * (dev, ino) entry for the same file, and adopts the build-id; another
 * build-id at the same path is another file. */
static void test_build_id_cookies(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr ev = cpu_clock();
	char *lib = tu_path(fx->dir, "lib.so"), maps[512];
	unsigned char rec[4096];
	struct stat st;
	struct kop_dcookie_info info;
	uint64_t got[256];
	ssize_t n;

	assert_int_equal(tu_write_file(lib, "x", 1), 0);
	assert_int_equal(stat(lib, &st), 0);
	snprintf(maps, sizeof(maps), "00400000-00401000 r-xp 00000000 %02x:%02x %llu %s\n",
		 major(st.st_dev), minor(st.st_dev),
		 (unsigned long long)st.st_ino, lib);
	proc_add(fx->dir, 220, maps, NULL);
	fx_start(fx, &ev, 1, 0, 0);
	put_ring(fx, 0, SIDEBAND_RING, rec, mmap2_bid(rec, 220, 0x500000, lib, 0xaa, 10));
	put_ring(fx, 0, SIDEBAND_RING, rec, mmap2_bid(rec, 220, 0x600000, "/no/such/file", 0xbb, 11));
	put_ring(fx, 0, SIDEBAND_RING, rec, mmap2_bid(rec, 220, 0x700000, lib, 0xcc, 12));
	put(fx, 0, rec, fake_sample(rec, false, 220, 220, 20, 0x400010));
	put(fx, 0, rec, fake_sample(rec, false, 220, 220, 21, 0x500010));
	put(fx, 0, rec, fake_sample(rec, false, 220, 220, 22, 0x600010));
	put(fx, 0, rec, fake_sample(rec, false, 220, 220, 23, 0x700010));
	assert_int_equal(kop_session_stop(fx->s), 0);
	n = kop_evbuf_read(fx->s, got, 256, 0);
	{
		const uint64_t want[] = { CPU(0), CTX(220, 0, 220), USER,
			COOKIE(1), COUNT(2), 0x10, 0, COOKIE(2), 0x10, 0,
			COOKIE(3), 0x10, 0 };

		assert_int_equal(n, sizeof(want) / sizeof(want[0]));
		assert_memory_equal(got, want, sizeof(want));
	}
	assert_int_equal(kop_dcookie_lookup(fx->s, 1, &info), 0);
	assert_string_equal(info.path, lib);
	assert_int_equal(info.ino, st.st_ino);
	assert_int_equal(info.build_id_size, 20);
	assert_int_equal(info.build_id[19], 0xaa);
	assert_int_equal(kop_dcookie_lookup(fx->s, 2, &info), 0);
	assert_string_equal(info.path, "/no/such/file");
	assert_int_equal(info.ino, 0);
	assert_int_equal(info.build_id[0], 0xbb);
	assert_int_equal(kop_dcookie_lookup(fx->s, 3, &info), 0);
	assert_string_equal(info.path, lib);
	assert_int_equal(info.build_id[0], 0xcc);
	assert_int_equal(kop_dcookie_lookup(fx->s, 4, &info), -ENOENT);
	assert_int_equal(kop_dcookie_lookup(fx->s, OP_NO_COOKIE, &info), -ENOENT);
	free(lib);
}

/* ---- what is asked of the kernel ---- */

static void test_attrs_and_offline_cpu(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr ev[2] = { cpu_clock(), cpu_clock() };
	struct fake_ring *r;

	ev[1].config = PERF_COUNT_SW_TASK_CLOCK;
	fx->src.nr_cpus = 3;
	fx->src.offline = 1UL << 1;
	fx_start(fx, ev, 2, 0, 0);
	/* cpus 0 and 2: two events and the side-band ring each */
	assert_int_equal(fx->src.nr_rings, 6);
	assert_null(fake_find(&fx->src, 1, 0));
	r = fake_find(&fx->src, 2, 0);
	assert_non_null(r);
	assert_true(r->enabled);
	/* no CPU (the ring is the CPU's) and no PERIOD (a sample counts one) */
	assert_int_equal(r->attr.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME);
	assert_true(r->attr.sample_id_all && r->attr.use_clockid &&
		    r->attr.watermark && r->attr.disabled);
	assert_false(r->attr.context_switch);
	assert_int_equal(r->attr.clockid, CLOCK_MONOTONIC);
	assert_int_equal(r->attr.wakeup_watermark, 16384 / 4);
	assert_false(r->attr.mmap2 || r->attr.comm || r->attr.task);
	assert_int_equal(r->attr.sample_period, 1000000);
	r = fake_find(&fx->src, 2, 1);
	assert_non_null(r);
	assert_int_equal(r->attr.config, PERF_COUNT_SW_TASK_CLOCK);
	assert_false(r->attr.mmap2 || r->attr.comm || r->attr.task ||
		     r->attr.context_switch);
	/* side-band: a dummy event waking on every record */
	r = fake_find(&fx->src, 2, 2);
	assert_non_null(r);
	assert_int_equal(r->attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(r->attr.config, PERF_COUNT_SW_DUMMY);
	assert_true(r->attr.mmap2 && r->attr.comm && r->attr.comm_exec &&
		    r->attr.task && r->attr.build_id && r->attr.sample_id_all &&
		    r->attr.use_clockid);
	assert_true(r->attr.watermark);
	assert_int_equal(r->attr.wakeup_watermark, 1);
	assert_int_equal(r->len, 4096 + 4096);
	r = fake_find(&fx->src, 2, 1);
	assert_int_equal(kop_session_pause(fx->s), 0);
	assert_false(r->enabled);
	assert_int_equal(kop_session_resume(fx->s), 0);
	assert_true(r->enabled);
	assert_int_equal(kop_session_stop(fx->s), 0);
	assert_false(r->enabled);
}

/* Rings of size 0 are sized from the busiest event's rate: a second of
 * its samples, chains included, 512 KiB to 8 MiB; a given size is kept. */
static void test_auto_ring_size(void **state)
{
	static const struct {
		uint64_t period;
		bool freq;
		unsigned int depth;
		size_t cpu_buffer_size;
		const char *want;
	} cases[] = {
		{ 1000000, false, 0, 0, "kmod: 512 KiB rings per CPU" },	/* 1 kHz */
		{ 10000, false, 0, 0, "kmod: 4096 KiB rings per CPU" },	/* 100 kHz x 32 B */
		{ 10000, false, 32, 0, "kmod: 8192 KiB rings per CPU" },	/* capped */
		{ 100000, false, 8, 0, "kmod: 2048 KiB rings per CPU" },	/* 10 kHz x 128 B */
		{ 50000, true, 0, 0, "kmod: 2048 KiB rings per CPU" },	/* -F 50000 */
		{ 10000, false, 0, 65536, NULL },			/* given */
	};
	struct fixture *fx = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct perf_event_attr ev = cpu_clock();
		struct kop_config cfg = {
			.events = &ev, .nr_events = 1, .pid = -1,
			.proc_root = fx->dir, .ops = &fake_ops, .ops_ctx = &fx->src,
			.log = { capture, fx, OP_LOG_DEBUG },
			.callgraph_depth = cases[i].depth,
			.cpu_buffer_size = cases[i].cpu_buffer_size,
		};

		if (cases[i].freq) {
			ev.freq = 1;
			ev.sample_freq = cases[i].period;
		} else {
			ev.sample_period = cases[i].period;
		}
		fx->log[0] = '\0';
		assert_int_equal(kop_session_new(&cfg, &fx->s), 0);
		if (cases[i].want) {
			if (!strstr(fx->log, cases[i].want))
				fail_msg("case %zu: want '%s', log: %s", i,
					 cases[i].want, fx->log);
		} else {
			assert_null(strstr(fx->log, "rings per CPU"));
		}
		kop_session_free(fx->s);
		fx->s = NULL;
	}
}

static void test_open_failure_is_reported(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr ev = cpu_clock();
	struct kop_config cfg = {
		.events = &ev, .nr_events = 1, .pid = -1,
		.proc_root = fx->dir, .ops = &fake_ops, .ops_ctx = &fx->src,
		.log = { capture, fx, OP_LOG_DEBUG },
	};

	fx->src.fail_open_errno = EACCES;
	assert_int_equal(kop_session_new(&cfg, &fx->s), 0);
	assert_int_equal(kop_session_start(fx->s), -EACCES);
	assert_non_null(strstr(fx->log, "cannot open event 0"));
	assert_non_null(strstr(fx->log, "on cpu 0"));
	cfg.cpu_buffer_size = 12345;
	kop_session_free(fx->s);
	fx->s = NULL;
	assert_int_equal(kop_session_new(&cfg, &fx->s), -EINVAL);
	assert_null(fx->s);
}

/* A cpu mask opens only its CPUs' rings; a CPU the machine lacks, or a
 * mask of offline CPUs only, is refused with a message. */
static void test_cpu_mask(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr ev = cpu_clock();
	cpu_set_t cpus;
	struct kop_config cfg = {
		.events = &ev, .nr_events = 1, .pid = -1, .cpus = &cpus,
		.proc_root = fx->dir, .ops = &fake_ops, .ops_ctx = &fx->src,
		.log = { capture, fx, OP_LOG_DEBUG },
	};

	fx->src.nr_cpus = 4;
	fx->src.offline = 1UL << 3;
	CPU_ZERO(&cpus);
	CPU_SET(4, &cpus);
	assert_int_equal(kop_session_new(&cfg, &fx->s), -EINVAL);
	assert_non_null(strstr(fx->log, "cpu 4 was chosen"));

	CPU_ZERO(&cpus);
	CPU_SET(3, &cpus);
	assert_int_equal(kop_session_new(&cfg, &fx->s), 0);
	assert_int_equal(kop_session_start(fx->s), -ENODEV);
	assert_non_null(strstr(fx->log, "none of the chosen cpus is online"));
	kop_session_free(fx->s);
	fx->s = NULL;

	CPU_ZERO(&cpus);
	CPU_SET(1, &cpus);
	CPU_SET(3, &cpus);
	assert_int_equal(kop_session_new(&cfg, &fx->s), 0);
	CPU_ZERO(&cpus);	/* the session keeps its own copy */
	assert_int_equal(kop_session_start(fx->s), 0);
	/* cpu 1's event and side-band rings, nothing of 0, 2 or offline 3 */
	assert_int_equal(fx->src.nr_rings, 2);
	assert_non_null(fake_find(&fx->src, 1, 0));
	assert_null(fake_find(&fx->src, 0, 0));
	assert_null(fake_find(&fx->src, 2, 0));
	assert_int_equal(kop_session_stop(fx->s), 0);
}

/* ---- op_kernel: kallsyms and modules fixtures ---- */

struct kernel_case {
	const char *name;
	const char *kallsyms;	/* NULL: no file */
	const char *modules;	/* NULL: no file (normal) */
	int want_err;
	uint64_t text_start, text_end;
	size_t nr_modules;
	const char *first_module;
};

static const struct kernel_case kernel_cases[] = {
	{ "no modules file is normal", kop_fixture_kallsyms, NULL, 0, KTEXT, 0xffffffff82000000ULL, 0, NULL },
	{ "modules sorted by address, malformed lines skipped", kop_fixture_kallsyms,
	  "zlib 4096 0 - Live 0xffffffffc0200000\n"
	  "junk\n"
	  "ext4 8192 1 - Live 0xffffffffc0001000 (E)\n",
	  0, KTEXT, 0xffffffff82000000ULL, 2, "ext4" },
	{ "_stext when there is no _text",
	  "ffffffff81001000 T _stext\nffffffff81800000 T _etext\n", "",
	  0, 0xffffffff81001000ULL, 0xffffffff81800000ULL, 0, NULL },
	{ "kptr_restrict zeros give no text range",
	  "0000000000000000 T _text\n0000000000000000 T _etext\n", NULL,
	  -ENODATA, 0, 0, 0, NULL },
	{ "no kallsyms is an error", NULL, NULL, -ENOENT, 0, 0, 0, NULL },
};

static void test_kernel_map(void **state)
{
	struct fixture *fx = *state;
	struct op_kernel_map km;
	struct op_logger lg = { capture, fx, OP_LOG_DEBUG };
	char *p = tu_path(fx->dir, "kallsyms");

	for (size_t i = 0; i < sizeof(kernel_cases) / sizeof(kernel_cases[0]); i++) {
		const struct kernel_case *c = &kernel_cases[i];
		char *m = tu_path(fx->dir, "modules");

		unlink(p);
		unlink(m);
		free(m);
		if (c->kallsyms)
			write_under(fx->dir, "kallsyms", c->kallsyms);
		if (c->modules)
			write_under(fx->dir, "modules", c->modules);
		if (op_kernel_map_read(&km, fx->dir, &lg) != c->want_err)
			fail_msg("%s: wrong result", c->name);
		if (c->want_err)
			continue;
		assert_int_equal(km.text_start, c->text_start);
		assert_int_equal(km.text_end, c->text_end);
		assert_int_equal(km.nr_modules, c->nr_modules);
		if (c->first_module) {
			assert_string_equal(km.modules[0].name, c->first_module);
			assert_int_equal(km.modules[0].end - km.modules[0].start, 8192);
			assert_ptr_equal(op_kernel_map_find_module(&km, 0xffffffffc0001fffULL),
					 &km.modules[0]);
			assert_null(op_kernel_map_find_module(&km, 0xffffffffc0003000ULL));
		}
		assert_true(op_kernel_map_in_text(&km, c->text_start));
		assert_false(op_kernel_map_in_text(&km, c->text_end));
		op_kernel_map_release(&km);
	}
	/* a module appears: reread says it changed, then that it did not */
	write_under(fx->dir, "kallsyms", kop_fixture_kallsyms);
	assert_int_equal(op_kernel_map_read(&km, fx->dir, &lg), 0);
	write_under(fx->dir, "modules", "ext4 8192 1 - Live 0xffffffffc0001000\n");
	assert_int_equal(op_kernel_map_reread_modules(&km, fx->dir, &lg), 1);
	assert_int_equal(op_kernel_map_reread_modules(&km, fx->dir, &lg), 0);
	assert_int_equal(km.nr_modules, 1);
	op_kernel_map_release(&km);
	free(p);
}

/* ---- the task table's mapping replacement ---- */

static void test_task_map_overlaps(void **state)
{
	struct kop_task k = { 0 };
	const struct kop_map *m;

	assert_int_equal(kop_task_map(&k, 0x1000, 0x5000, 0, 1), 0);
	assert_int_equal(kop_task_map(&k, 0x8000, 0x9000, 0, 2), 0);
	/* punch a hole in the first: head and tail survive, tail's offset moves */
	assert_int_equal(kop_task_map(&k, 0x2000, 0x3000, 0x10000, 3), 0);
	assert_int_equal(k.nr_maps, 4);
	m = kop_task_lookup(&k, 0x1fff);
	assert_int_equal(m->cookie, 1);
	assert_int_equal(kop_task_lookup(&k, 0x2000)->cookie, 3);
	m = kop_task_lookup(&k, 0x3000);
	assert_int_equal(m->cookie, 1);
	assert_int_equal(m->pgoff, 0x2000);
	assert_null(kop_task_lookup(&k, 0x6000));
	/* cover everything */
	assert_int_equal(kop_task_map(&k, 0x0, 0x10000, 0, 4), 0);
	assert_int_equal(k.nr_maps, 1);
	assert_int_equal(kop_task_lookup(&k, 0x8000)->cookie, 4);
	assert_int_equal(kop_task_map(&k, 0x10, 0x10, 0, 5), -EINVAL);
	free(k.maps);
	free(k.starts);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_build_id_cookies, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_attrs_and_offline_cpu, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_open_failure_is_reported, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_auto_ring_size, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_cpu_mask, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_kernel_map, fx_setup, fx_teardown),
		cmocka_unit_test(test_task_map_overlaps),
	};

	return _cmocka_run_group_tests("kmod setup", tests, sizeof(tests) / sizeof(tests[0]),
				       NULL, NULL);
}
