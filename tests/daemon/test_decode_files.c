/* The daemon's decoder, image naming and sample-file cache together,
 * without kmod: streams of words go in, sample files come out.
 *
 * - decoder + images + files: one stream under every --separate setting,
 *   checked file by file, offset by offset, with the totals, so an extra or
 *   a missing count fails; call-graph arcs; anonymous regions;
 * - the file cache: LRU eviction and reopen keep counts, an unwritable
 *   directory is counted and logged once, --image.
 * (test_decode.c: the decoder alone.)
 */
#include "config.h"

#include <dirent.h>
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
#include "op_config.h"
#include "op_names.h"
#include "op_proto.h"
#include "opd_decode.h"
#include "opd_image.h"
#include "opd_sample.h"
#include "opd_sfile.h"
#include "logcount.h"
#include "testutil.h"

#define ESC OP_ESCAPE_CODE
#define KTEXT 0xffffffff81000000ULL
#define KMOD 0xffffffffa0000000ULL

/* ---- the whole path: stream -> sample files ---- */

struct fake_cookie {
	uint64_t cookie;
	enum kop_image_kind kind;
	const char *path;
	pid_t tgid;
	uint64_t start, end;
};

static const struct fake_cookie fake_cookies[] = {
	{ 1, KOP_IMAGE_FILE, "/usr/bin/app", 0, 0, 0 },
	{ 2, KOP_IMAGE_FILE, "/usr/lib/libc.so.6", 0, 0, 0 },
	{ 3, KOP_IMAGE_ANON, "anon", 100, 0x7f0000001000ULL, 0x7f0000003000ULL },
	{ 5, KOP_IMAGE_FILE, "/usr/bin/other", 0, 0, 0 },
};

static int fake_lookup(void *ctx, uint64_t cookie, struct kop_dcookie_info *info)
{
	int *nr_lookups = ctx;

	(*nr_lookups)++;
	for (size_t i = 0; i < sizeof(fake_cookies) / sizeof(fake_cookies[0]); i++) {
		const struct fake_cookie *f = &fake_cookies[i];

		if (f->cookie != cookie)
			continue;
		info->kind = f->kind;
		snprintf(info->path, sizeof(info->path), "%s", f->path);
		info->tgid = f->tgid;
		info->start = f->start;
		info->end = f->end;
		return 0;
	}
	return -ENOENT;
}

/* The stream every separation case decodes. cpu 0: task 100 (app 1)
 * samples app 0x10 twice (one sample counted 2), libc 0x20, kernel text
 * +0x30, module +0x40, anon 0x50; then an unknown cookie and a kernel pc
 * outside everything, twice (one sample counted 2) (all three lost, no
 * mapping). cpu 1: thread 101 of 100 samples app 0x10 and
 * the kernel +0x30; task 300 (app 5) samples libc 0x20. */
static const uint64_t chain_stream[] = {
	ESC, OP_CPU_SWITCH, 0, ESC, OP_CTX_SWITCH, 100, 1, ESC, OP_CTX_TGID, 100,
	ESC, OP_COOKIE_SWITCH, 1, ESC, OP_SAMPLE_COUNT, 2, 0x10, 0,
	ESC, OP_COOKIE_SWITCH, 2, 0x20, 0,
	ESC, OP_KERNEL_ENTER, KTEXT + 0x30, 0, KMOD + 0x40, 0, ESC, OP_USER_ENTER,
	ESC, OP_COOKIE_SWITCH, 3, 0x50, 0,
	ESC, OP_COOKIE_SWITCH, 4, 0x60, 0,
	ESC, OP_KERNEL_ENTER, ESC, OP_SAMPLE_COUNT, 2, 0x1000, 0, ESC, OP_USER_ENTER,
	ESC, OP_CPU_SWITCH, 1, ESC, OP_CTX_SWITCH, 101, 1, ESC, OP_CTX_TGID, 100,
	ESC, OP_COOKIE_SWITCH, 1, 0x10, 0,
	ESC, OP_KERNEL_ENTER, KTEXT + 0x30, 0, ESC, OP_USER_ENTER,
	ESC, OP_CTX_SWITCH, 300, 5, ESC, OP_CTX_TGID, 300,
	ESC, OP_COOKIE_SWITCH, 2, 0x20, 0,
};

#define KERN "/proc/kallsyms"
#define ALL OP_SF_ALL

struct expect {
	enum op_img_kind kind;
	const char *image, *dep;
	int tgid, tid, cpu;
	uint64_t offset;
	uint64_t count;
};

struct chain_case {
	const char *separate;
	struct expect e[12];	/* ends at image == NULL */
	size_t nr_files;
};

static const struct chain_case chain_cases[] = {
	{ "none", {
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", ALL, ALL, ALL, 0x10, 3 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/lib/libc.so.6", ALL, ALL, ALL, 0x20, 2 },
		{ OP_IMG_KERN, KERN, KERN, ALL, ALL, ALL, 0x30, 2 },
		{ OP_IMG_KERN, "ext4", "ext4", ALL, ALL, ALL, 0x40, 1 },
		{ OP_IMG_ANON, "anon", "/usr/bin/app", ALL, ALL, ALL, 0x50, 1 },
	  }, 5 },
	{ "lib", {
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", ALL, ALL, ALL, 0x10, 3 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/bin/app", ALL, ALL, ALL, 0x20, 1 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/bin/other", ALL, ALL, ALL, 0x20, 1 },
		{ OP_IMG_KERN, KERN, KERN, ALL, ALL, ALL, 0x30, 2 },
		{ OP_IMG_KERN, "ext4", "ext4", ALL, ALL, ALL, 0x40, 1 },
		{ OP_IMG_ANON, "anon", "/usr/bin/app", ALL, ALL, ALL, 0x50, 1 },
	  }, 6 },
	{ "kernel", {
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", ALL, ALL, ALL, 0x10, 3 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/lib/libc.so.6", ALL, ALL, ALL, 0x20, 2 },
		{ OP_IMG_KERN, KERN, "/usr/bin/app", ALL, ALL, ALL, 0x30, 2 },
		{ OP_IMG_KERN, "ext4", "/usr/bin/app", ALL, ALL, ALL, 0x40, 1 },
		{ OP_IMG_ANON, "anon", "/usr/bin/app", ALL, ALL, ALL, 0x50, 1 },
	  }, 5 },
	{ "thread", {
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", 100, 100, ALL, 0x10, 2 },
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", 100, 101, ALL, 0x10, 1 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/lib/libc.so.6", 100, 100, ALL, 0x20, 1 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/lib/libc.so.6", 300, 300, ALL, 0x20, 1 },
		{ OP_IMG_KERN, KERN, KERN, 100, 100, ALL, 0x30, 1 },
		{ OP_IMG_KERN, KERN, KERN, 100, 101, ALL, 0x30, 1 },
		{ OP_IMG_KERN, "ext4", "ext4", 100, 100, ALL, 0x40, 1 },
		{ OP_IMG_ANON, "anon", "/usr/bin/app", 100, 100, ALL, 0x50, 1 },
	  }, 8 },
	{ "cpu", {
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", ALL, ALL, 0, 0x10, 2 },
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", ALL, ALL, 1, 0x10, 1 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/lib/libc.so.6", ALL, ALL, 0, 0x20, 1 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/lib/libc.so.6", ALL, ALL, 1, 0x20, 1 },
		{ OP_IMG_KERN, KERN, KERN, ALL, ALL, 0, 0x30, 1 },
		{ OP_IMG_KERN, KERN, KERN, ALL, ALL, 1, 0x30, 1 },
		{ OP_IMG_KERN, "ext4", "ext4", ALL, ALL, 0, 0x40, 1 },
		{ OP_IMG_ANON, "anon", "/usr/bin/app", ALL, ALL, 0, 0x50, 1 },
	  }, 8 },
	{ "all", {
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", 100, 100, 0, 0x10, 2 },
		{ OP_IMG_FILE, "/usr/bin/app", "/usr/bin/app", 100, 101, 1, 0x10, 1 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/bin/app", 100, 100, 0, 0x20, 1 },
		{ OP_IMG_FILE, "/usr/lib/libc.so.6", "/usr/bin/other", 300, 300, 1, 0x20, 1 },
		{ OP_IMG_KERN, KERN, "/usr/bin/app", 100, 100, 0, 0x30, 1 },
		{ OP_IMG_KERN, KERN, "/usr/bin/app", 100, 101, 1, 0x30, 1 },
		{ OP_IMG_KERN, "ext4", "/usr/bin/app", 100, 100, 0, 0x40, 1 },
		{ OP_IMG_ANON, "anon", "/usr/bin/app", 100, 100, 0, 0x50, 1 },
	  }, 8 },
};

struct chain {
	char *dir;
	int nr_lookups;
	struct logcount lc;
	struct op_logger lg;
	struct opd_event_info ev[2];
	struct opd_images images;
	struct opd_sfiles sfiles;
	struct opd_sampler sampler;
	struct opd_decoder *dec;
};

static void chain_init(struct chain *c, const char *dir, unsigned int separate,
		       size_t max_open, const char *filter)
{
	memset(c, 0, sizeof(*c));
	c->lg = (struct op_logger){ count_log, &c->lc, OP_LOG_DEBUG };
	c->ev[0] = (struct opd_event_info){ "TIMER", 100000, 0, 0, ODB_CPU_TIMER_INT };
	c->ev[1] = (struct opd_event_info){ "CPU_CLK_UNHALTED", 100000, 0, 0x3c, 9 };
	assert_int_equal(opd_images_init(&c->images, fake_lookup, &c->nr_lookups,
					 NULL, filter, &c->lg), 0);
	/* a kernel layout without /proc: text and one module */
	c->images.km.text_start = KTEXT;
	c->images.km.text_end = KTEXT + 0x1000000;
	c->images.km.modules = calloc(1, sizeof(struct op_kmodule));
	assert_non_null(c->images.km.modules);
	snprintf(c->images.km.modules[0].name, sizeof(c->images.km.modules[0].name), "ext4");
	c->images.km.modules[0].start = KMOD;
	c->images.km.modules[0].end = KMOD + 0x10000;
	c->images.km.nr_modules = 1;
	c->images.have_km = true;
	assert_int_equal(opd_sfiles_init(&c->sfiles, NULL, dir, c->ev, 2, 2400.5, max_open,
					 &c->lg), 0);
	opd_sampler_init(&c->sampler, &c->images, &c->sfiles, separate, "/nonexistent");
	c->dec = malloc(sizeof(*c->dec));
	assert_non_null(c->dec);
	opd_decoder_init(c->dec, &opd_sampler_ops, &c->sampler, 2, &c->lg);
}

static void chain_release(struct chain *c)
{
	opd_sfiles_release(&c->sfiles);
	opd_images_release(&c->images);
	free(c->dec);
}

/* Sum of every count in every regular file under dir; number of files. */
static void walk(const char *dir, uint64_t *total, size_t *nr_files)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	assert_non_null(d);
	while ((de = readdir(d))) {
		char *p;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = tu_path(dir, de->d_name);
		assert_int_equal(lstat(p, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			walk(p, total, nr_files);
		} else {
			odb_t db;

			assert_int_equal(odb_open(&db, NULL, p, ODB_RDONLY), 0);
			for (uint32_t i = 1; i < db.descr->current_size; i++)
				*total += db.nodes[i].value;
			odb_close(&db);
			(*nr_files)++;
		}
		free(p);
	}
	closedir(d);
}

/* What the files under dir hold, closed: want_total counts in want_files
 * files. */
static void check_files(const char *dir, uint64_t want_total, size_t want_files)
{
	uint64_t total = 0;
	size_t nr_files = 0;

	walk(dir, &total, &nr_files);
	assert_int_equal(total, want_total);
	assert_int_equal(nr_files, want_files);
}

/* The chain released, its session directory removed and freed. */
static void chain_done(struct chain *c, char *dir)
{
	chain_release(c);
	tu_rm_rf(dir);
	free(dir);
}

static void check_expect(const char *dir, const struct expect *e, const char *label)
{
	struct op_sfname n = {
		.image = { .kind = e->kind, .path = (char *)e->image },
		.dep = { .kind = e->kind, .path = (char *)e->dep },
		.event = (char *)"TIMER",
		.count = 100000,
		.unit_mask = 0,
		.tgid = e->tgid, .tid = e->tid, .cpu = e->cpu,
	};
	char *rel, *path;
	odb_t db;
	int ret;

	if (e->kind == OP_IMG_ANON) {
		n.image.anon_tgid = 100;
		n.image.anon_start = 0x7f0000001000ULL;
		/* [0x7f0000001000, 0x7f0000003000) named by its last byte */
		n.image.anon_end = 0x7f0000002fffULL;
	}
	if (strcmp(e->dep, e->image)) {
		n.dep.kind = OP_IMG_FILE;
	} else {
		n.dep = n.image;
	}
	rel = op_sfname_build(&n);
	assert_non_null(rel);
	path = tu_path(dir, rel);
	ret = odb_open(&db, NULL, path, ODB_RDONLY);
	if (ret)
		fail_msg("%s: %s: %s", label, rel, odb_strerror(ret));
	if (odb_get(&db, e->offset) != e->count)
		fail_msg("%s: %s: offset 0x%llx has %llu, want %llu", label, rel,
			 (unsigned long long)e->offset,
			 (unsigned long long)odb_get(&db, e->offset),
			 (unsigned long long)e->count);
	assert_int_equal(db.header->cpu_type, ODB_CPU_TIMER_INT);
	assert_int_equal(db.header->ctr_count, 100000);
	assert_int_equal(db.header->is_kernel, e->kind == OP_IMG_KERN);
	assert_true(db.header->cpu_speed > 2400 && db.header->cpu_speed < 2401);
	if (e->kind == OP_IMG_ANON)
		assert_int_equal(db.header->anon_start, 0x7f0000001000ULL);
	odb_close(&db);
	free(path);
	free(rel);
}

static unsigned int sep_flags(const char *name)
{
	if (!strcmp(name, "lib"))
		return OP_SEP_LIB;
	if (!strcmp(name, "kernel"))
		return OP_SEP_KERNEL;
	if (!strcmp(name, "thread"))
		return OP_SEP_THREAD;
	if (!strcmp(name, "cpu"))
		return OP_SEP_CPU;
	if (!strcmp(name, "all"))
		return OP_SEP_ALL;
	return 0;
}

static void test_chain_separations(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(chain_cases) / sizeof(chain_cases[0]); i++) {
		const struct chain_case *cc = &chain_cases[i];
		char *dir = tu_mkdtemp();
		struct chain c;
		unsigned int sep = sep_flags(cc->separate);
		uint64_t want = 0, total = 0;
		size_t nr_files = 0;

		assert_non_null(dir);
		chain_init(&c, dir, sep, 0, NULL);
		opd_decode(c.dec, chain_stream, sizeof(chain_stream) / sizeof(chain_stream[0]));
		assert_int_equal(c.dec->nr_bad, 0);
		assert_int_equal(c.dec->nr_samples, 12);
		assert_int_equal(c.sampler.nr_lost_no_mapping, 3);
		assert_int_equal(c.sampler.nr_kernel, 5);
		assert_int_equal(c.sampler.nr_anon, 1);
		assert_int_equal(c.sampler.nr_written, 9);
		assert_int_equal(opd_sfiles_sync(&c.sfiles), 0);
		for (const struct expect *e = cc->e; e->image; e++) {
			check_expect(dir, e, cc->separate);
			want += e->count;
		}
		walk(dir, &total, &nr_files);
		if (total != want || nr_files != cc->nr_files)
			fail_msg("separate=%s: %llu counts in %zu files, want %llu in %zu",
				 cc->separate, (unsigned long long)total, nr_files,
				 (unsigned long long)want, cc->nr_files);
		/* one lookup per cookie, the unknown one included */
		assert_int_equal(c.nr_lookups, 5);
		chain_done(&c, dir);
	}
}

/* Two files open at most: alternating three keys evicts, and every reopen
 * continues the counts. */
static void test_cache_eviction(void **state)
{
	char *dir = tu_mkdtemp();
	struct chain c;
	static uint64_t w[3 * 1000 * 8 + 16];
	size_t n = 0;

	(void)state;
	assert_non_null(dir);
	chain_init(&c, dir, 0, 2, NULL);
	w[n++] = ESC; w[n++] = OP_CPU_SWITCH; w[n++] = 0;
	w[n++] = ESC; w[n++] = OP_CTX_SWITCH; w[n++] = 100; w[n++] = 1;
	for (int i = 0; i < 1000; i++) {
		for (uint64_t ck = 1; ck <= 3; ck += 1) {
			uint64_t cookie = ck == 3 ? 5 : ck;

			w[n++] = ESC; w[n++] = OP_COOKIE_SWITCH; w[n++] = cookie;
			w[n++] = 0x100 + (uint64_t)i % 7; w[n++] = 0;
		}
	}
	opd_decode(c.dec, w, n);
	assert_int_equal(c.dec->nr_bad, 0);
	assert_int_equal(c.sampler.nr_written, 3000);
	assert_true(c.sfiles.nr_evictions >= 2990);
	assert_true(c.sfiles.nr_cached <= 2);
	opd_sfiles_close_all(&c.sfiles);
	opd_sampler_invalidate(&c.sampler);
	check_files(dir, 3000, 3);
	/* and after a full close, more samples land in the same files */
	opd_decode(c.dec, w + 7, n - 7);
	opd_sfiles_close_all(&c.sfiles);
	check_files(dir, 6000, 3);
	chain_done(&c, dir);
}

/* A directory that cannot hold files: every sample counted lost, one log
 * line for the file, and the decoder goes on; once the way is clear, the
 * files open at their next try. */
static void test_cache_unwritable(void **state)
{
	char *dir = tu_mkdtemp();
	char *blocker;
	struct chain c;

	(void)state;
	assert_non_null(dir);
	blocker = tu_path(dir, "file");
	assert_int_equal(tu_write_file(blocker, "x", 1), 0);
	chain_init(&c, blocker, 0, 0, NULL);	/* samples/current is a regular file */
	for (int i = 0; i < 100; i++)
		opd_decode(c.dec, chain_stream, sizeof(chain_stream) / sizeof(chain_stream[0]));
	assert_int_equal(c.sampler.nr_written, 0);
	assert_int_equal(c.sfiles.nr_lost, 900);
	assert_int_equal(c.sfiles.nr_open_failures, 5);
	/* one line per failed file, plus the two no-mapping warnings */
	assert_int_equal(c.lc.nr_warn, 5 + 2);
	/* the way cleared: a second later each file opens at its next
	 * sample and nothing more is lost */
	assert_int_equal(unlink(blocker), 0);
	assert_int_equal(mkdir(blocker, 0755), 0);
	opd_decode(c.dec, chain_stream, sizeof(chain_stream) / sizeof(chain_stream[0]));
	assert_int_equal(c.sampler.nr_written, 0);	/* not yet */
	usleep(1100 * 1000);
	opd_decode(c.dec, chain_stream, sizeof(chain_stream) / sizeof(chain_stream[0]));
	assert_int_equal(c.sampler.nr_written, 9);
	assert_int_equal(c.sfiles.nr_lost, 909);
	assert_int_equal(c.sfiles.nr_open_failures, 5);
	assert_int_equal(c.lc.nr_warn, 5 + 2);
	opd_sfiles_close_all(&c.sfiles);
	check_files(blocker, 9, 5);
	free(blocker);
	chain_done(&c, dir);
}

/* --image: only samples in the named binaries (or of the named
 * application) are kept. */
static void test_image_filter(void **state)
{
	char *dir = tu_mkdtemp();
	struct chain c;

	(void)state;
	assert_non_null(dir);
	chain_init(&c, dir, 0, 0, "/usr/bin/other,nonexistent");
	opd_decode(c.dec, chain_stream, sizeof(chain_stream) / sizeof(chain_stream[0]));
	/* only task 300 (app /usr/bin/other) sampling libc 0x20 */
	assert_int_equal(c.sampler.nr_written, 1);
	assert_int_equal(c.sampler.nr_filtered, 8);
	opd_sfiles_close_all(&c.sfiles);
	check_files(dir, 1, 1);
	chain_done(&c, dir);
}

/* An anonymous region of a process whose executable is unknown (app cookie
 * OP_NO_COOKIE) is filed under "/unknown", never at the top of the session,
 * whatever --separate says: OProfile's readers skip a top-level {anon:}. */
static void test_anon_unknown_app(void **state)
{
	static const uint64_t stream[] = {
		ESC, OP_CPU_SWITCH, 0, ESC, OP_CTX_SWITCH, 100, OP_NO_COOKIE,
		ESC, OP_CTX_TGID, 100, ESC, OP_COOKIE_SWITCH, 3, 0x50, 0, 0x50, 0,
	};
	static const char *const seps[] = { "none", "lib", "thread" };

	(void)state;
	for (size_t i = 0; i < sizeof(seps) / sizeof(seps[0]); i++) {
		unsigned int sep = sep_flags(seps[i]);
		int id = sep & OP_SEP_THREAD ? 100 : ALL;
		const struct expect e = {
			OP_IMG_ANON, "anon", "/unknown", id, id, ALL, 0x50, 2,
		};
		char *dir = tu_mkdtemp();
		struct chain c;

		assert_non_null(dir);
		chain_init(&c, dir, sep, 0, NULL);
		opd_decode(c.dec, stream, sizeof(stream) / sizeof(stream[0]));
		assert_int_equal(c.sampler.nr_written, 2);
		assert_int_equal(opd_sfiles_sync(&c.sfiles), 0);
		check_expect(dir, &e, seps[i]);
		opd_sfiles_close_all(&c.sfiles);
		check_files(dir, 2, 1);
		chain_done(&c, dir);
	}
}

/* The arcs of a sample's chain, each in its caller's {cg} file for the
 * callee's image, keyed caller offset << 32 | callee offset, the header
 * describing both ends; a caller in no image ends the chain. */
static void test_chain_arcs(void **state)
{
	static const uint64_t stream[] = {
		ESC, OP_CPU_SWITCH, 0, ESC, OP_CTX_SWITCH, 100, 1, ESC, OP_CTX_TGID, 100,
		/* a kernel sample called from libc, called from the app */
		ESC, OP_TRACE_BEGIN, ESC, OP_KERNEL_ENTER, KTEXT + 0x30, 0,
		ESC, OP_USER_ENTER, ESC, OP_COOKIE_SWITCH, 2, 0x20, 0,
		ESC, OP_COOKIE_SWITCH, 1, 0x10, 0, ESC, OP_TRACE_END,
		/* again, then a caller in an unknown image: the chain ends */
		ESC, OP_TRACE_BEGIN, ESC, OP_KERNEL_ENTER, KTEXT + 0x30, 0,
		ESC, OP_USER_ENTER, ESC, OP_COOKIE_SWITCH, 2, 0x20, 0,
		ESC, OP_COOKIE_SWITCH, 99, 0x99, 0, ESC, OP_COOKIE_SWITCH, 1, 0x10, 0,
		ESC, OP_TRACE_END,
	};
	static const struct {
		const char *caller, *callee;
		bool callee_kernel;
		uint64_t key, count;
	} want[] = {
		{ "/usr/lib/libc.so.6", KERN, true, 0x20ULL << 32 | 0x30, 2 },
		{ "/usr/bin/app", "/usr/lib/libc.so.6", false, 0x10ULL << 32 | 0x20, 1 },
	};
	char *dir = tu_mkdtemp();
	struct opd_chains store;
	struct chain c;

	(void)state;
	assert_non_null(dir);
	chain_init(&c, dir, OP_SEP_LIB | OP_SEP_KERNEL, 0, NULL);
	assert_int_equal(opd_chains_init(&store, NULL, dir, NULL), 0);
	c.sampler.chains = &store;
	opd_decode(c.dec, stream, sizeof(stream) / sizeof(stream[0]));
	assert_int_equal(c.dec->nr_bad, 0);
	assert_int_equal(c.sampler.nr_written, 2);
	assert_int_equal(c.sampler.nr_arcs, 3);
	/* whole chains: the first complete, the second up to its cut */
	assert_int_equal(store.nr_chains, 2);
	assert_int_equal(store.nr_added, 2);
	assert_int_equal(store.nr_lost, 0);
	{
		const uint32_t *w = &store.words[store.seen[0].start];

		assert_int_equal(w[0], 3);	/* frames */
		assert_int_equal(w[4], 0x30);	/* the kernel pc's offset, low word */
		w = &store.words[store.seen[1].start];
		assert_int_equal(w[0], 2);
	}
	opd_chains_release(&store);
	opd_sampler_release(&c.sampler);
	assert_int_equal(c.sampler.nr_bt_lost_no_mapping, 1);
	assert_int_equal(opd_sfiles_sync(&c.sfiles), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct op_sfname n = {
			.image = { .kind = OP_IMG_FILE, .path = (char *)want[i].caller },
			.dep = { .kind = OP_IMG_FILE, .path = (char *)"/usr/bin/app" },
			.cg = { .kind = want[i].callee_kernel ? OP_IMG_KERN : OP_IMG_FILE,
				.path = (char *)want[i].callee },
			.event = (char *)"TIMER", .count = 100000,
			.tgid = ALL, .tid = ALL, .cpu = ALL,
		};
		char *rel = op_sfname_build(&n), *path;
		odb_t db;

		assert_non_null(rel);
		path = tu_path(dir, rel);
		if (odb_open(&db, NULL, path, ODB_RDONLY))
			fail_msg("no arc file %s", rel);
		assert_int_equal(odb_nr_nodes(&db), 1);
		assert_int_equal(odb_get(&db, want[i].key), want[i].count);
		assert_int_equal(db.header->is_kernel, 0);
		assert_int_equal(db.header->cg_to_is_kernel, want[i].callee_kernel);
		odb_close(&db);
		free(path);
		free(rel);
	}
	/* one sample file and the two arc files, besides the chain store */
	opd_sfiles_close_all(&c.sfiles);
	{
		char *store_dir = tu_path(dir, OP_CHAINS_DIR);

		assert_int_equal(tu_rm_rf(store_dir), 0);
		free(store_dir);
	}
	check_files(dir, 2 + 3, 3);
	chain_done(&c, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anon_unknown_app),
		cmocka_unit_test(test_chain_arcs),
		cmocka_unit_test(test_chain_separations),
		cmocka_unit_test(test_cache_eviction),
		cmocka_unit_test(test_cache_unwritable),
		cmocka_unit_test(test_image_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
