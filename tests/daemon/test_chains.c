/* The call-chain store: distinct chains written once and counted per
 * event and separation key, read back by libop's reader; a restarted
 * writer goes on with the same IDs; a torn tail is dropped by readers and
 * cut by the next writer. */
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
#include "opd_chains.h"
#include "testutil.h"

#define ALL (-1)

static const struct op_img libc = { .kind = OP_IMG_FILE, .path = (char *)"/lib/libc.so.6" };
static const struct op_img app = { .kind = OP_IMG_FILE, .path = (char *)"/bin/app" };
static const struct op_img kern = { .kind = OP_IMG_KERN, .path = (char *)"/proc/kallsyms" };
static const struct op_img vdso = {
	.kind = OP_IMG_ANON, .path = (char *)"[vdso]", .anon_tgid = 7,
	.anon_start = 0x7000, .anon_end = 0x7fff,
};

struct seen {
	uint32_t nr;
	uint32_t app[8];
	uint32_t nr_frames[8];
	struct op_chain_frame frames[8][4];
};

static int record(uint32_t id, uint32_t app_id, const struct op_chain_frame *f,
		  uint32_t nr, void *ctx)
{
	struct seen *s = ctx;

	assert_int_equal(id, s->nr + 1);
	assert_true(s->nr < 8 && nr <= 4);
	s->app[s->nr] = app_id;
	s->nr_frames[s->nr] = nr;
	memcpy(s->frames[s->nr], f, nr * sizeof(*f));
	s->nr++;
	return 0;
}

static uint64_t count_of(const char *dir, const char *file, uint64_t id)
{
	char *path = tu_path(dir, file);
	odb_t db;
	uint64_t n;

	assert_int_equal(odb_open(&db, path, ODB_RDONLY), 0);
	n = odb_get(&db, id);
	odb_close(&db);
	free(path);
	return n;
}

static void test_store(void **state)
{
	char *top = tu_mkdtemp(), *dir;
	struct opd_chains c;
	struct op_chain_images im;
	struct seen s = { 0 };
	uint32_t a, l, k, v;
	struct op_chain_frame f[3];
	const struct opd_chain_key all = { "TIMER.1000000.0", ALL, ALL, ALL };
	const struct opd_chain_key cpu1 = { "TIMER.1000000.0", ALL, ALL, 1 };
	uint64_t end;

	(void)state;
	assert_non_null(top);
	dir = tu_path(top, OP_CHAINS_DIR);
	assert_int_equal(opd_chains_init(&c, top, NULL), 0);
	k = opd_chains_image(&c, &kern, true);
	l = opd_chains_image(&c, &libc, false);
	a = opd_chains_image(&c, &app, false);
	assert_int_equal(k, 1);
	assert_int_equal(l, 2);
	assert_int_equal(a, 3);
	assert_int_equal(opd_chains_image(&c, &libc, false), 2);	/* once */
	f[0] = (struct op_chain_frame){ .image = k, .offset = 0x30 };
	f[1] = (struct op_chain_frame){ .image = l, .offset = 0x20 };
	f[2] = (struct op_chain_frame){ .image = a, .offset = 0x10 };
	opd_chains_add(&c, &all, a, f, 3);
	opd_chains_add(&c, &all, a, f, 3);
	opd_chains_add(&c, &cpu1, a, f, 3);
	opd_chains_add(&c, &all, a, f + 1, 2);	/* another chain */
	assert_int_equal(c.nr_chains, 2);
	assert_int_equal(c.nr_added, 4);
	assert_int_equal(c.nr_lost, 0);
	assert_int_equal(opd_chains_sync(&c), 0);
	opd_chains_release(&c);

	assert_int_equal(count_of(dir, "TIMER.1000000.0.all.all.all", 1), 2);
	assert_int_equal(count_of(dir, "TIMER.1000000.0.all.all.all", 2), 1);
	assert_int_equal(count_of(dir, "TIMER.1000000.0.all.all.1", 1), 1);
	assert_int_equal(op_chains_read_images(dir, &im), 0);
	assert_int_equal(im.nr, 3);
	assert_int_equal(im.img[0].kind, OP_IMG_KERN);
	assert_true(im.is_kernel[0]);
	assert_string_equal(im.img[1].path, "/lib/libc.so.6");
	assert_false(im.is_kernel[1]);
	op_chain_images_release(&im);
	assert_int_equal(op_chains_read(dir, record, &s, &end), 0);
	assert_int_equal(s.nr, 2);
	assert_int_equal(s.nr_frames[0], 3);
	assert_int_equal(s.app[0], a);
	assert_int_equal(s.frames[0][0].image, k);
	assert_int_equal(s.frames[0][0].offset, 0x30);
	assert_int_equal(s.frames[0][2].offset, 0x10);
	assert_int_equal(s.nr_frames[1], 2);

	/* a restarted writer: the same chain keeps its ID, a new image and
	 * a new chain come after the old ones */
	assert_int_equal(opd_chains_init(&c, top, NULL), 0);
	v = opd_chains_image(&c, &vdso, false);
	assert_int_equal(v, 4);
	assert_int_equal(opd_chains_image(&c, &app, false), a);
	opd_chains_add(&c, &all, a, f, 3);
	f[0].image = v;
	opd_chains_add(&c, &all, a, f, 1);
	assert_int_equal(c.nr_chains, 3);
	opd_chains_release(&c);
	assert_int_equal(count_of(dir, "TIMER.1000000.0.all.all.all", 1), 3);
	assert_int_equal(count_of(dir, "TIMER.1000000.0.all.all.all", 3), 1);

	/* torn tails: half a record, half a line; readers stop before them,
	 * the next writer cuts them and goes on */
	{
		char *chains = tu_path(dir, "chains"), *images = tu_path(dir, "images");
		FILE *fp = fopen(chains, "ae");
		uint32_t half[3] = { 2, a, k };

		assert_non_null(fp);
		assert_int_equal(fwrite(half, sizeof(half), 1, fp), 1);
		fclose(fp);
		fp = fopen(images, "ae");
		assert_non_null(fp);
		fputs("5 0 {root}/bin/hal", fp);
		fclose(fp);
		memset(&s, 0, sizeof(s));
		assert_int_equal(op_chains_read(dir, record, &s, NULL), 0);
		assert_int_equal(s.nr, 3);
		assert_int_equal(op_chains_read_images(dir, &im), 0);
		assert_int_equal(im.nr, 4);
		op_chain_images_release(&im);

		assert_int_equal(opd_chains_init(&c, top, NULL), 0);
		assert_int_equal(opd_chains_image(&c, &libc, false), 2);
		assert_int_equal(opd_chains_image(&c, &(struct op_img){
			.kind = OP_IMG_FILE, .path = (char *)"/bin/half" }, false), 5);
		f[0].image = l;
		opd_chains_add(&c, &all, 0, f, 1);
		assert_int_equal(c.nr_chains, 4);
		opd_chains_release(&c);
		memset(&s, 0, sizeof(s));
		assert_int_equal(op_chains_read(dir, record, &s, NULL), 0);
		assert_int_equal(s.nr, 4);
		assert_int_equal(s.app[3], 0);
		assert_int_equal(op_chains_read_images(dir, &im), 0);
		assert_int_equal(im.nr, 5);
		assert_string_equal(im.img[4].path, "/bin/half");
		op_chain_images_release(&im);
		free(chains);
		free(images);
	}
	tu_rm_rf(top);
	free(dir);
	free(top);
}

/* Not a chain store: refused, and nothing read. */
static void test_bad_files(void **state)
{
	char *top = tu_mkdtemp(), *dir, *path;
	struct seen s = { 0 };
	struct op_chain_images im;

	(void)state;
	dir = tu_path(top, OP_CHAINS_DIR);
	assert_int_equal(op_chains_read(dir, record, &s, NULL), -ENOENT);
	assert_int_equal(op_chains_read_images(dir, &im), -ENOENT);
	assert_int_equal(mkdir(dir, 0755), 0);
	path = tu_path(dir, "chains");
	assert_int_equal(tu_write_file(path, "NOTACHAINFILE", 13), 0);
	assert_int_equal(op_chains_read(dir, record, &s, NULL), -EINVAL);
	/* a record claiming more frames than any chain has */
	assert_int_equal(tu_write_file(path, "OPCHAIN1\xff\xff\xff\xff\0\0\0\0", 16), 0);
	assert_int_equal(op_chains_read(dir, record, &s, NULL), 0);
	assert_int_equal(s.nr, 0);
	free(path);
	path = tu_path(dir, "images");
	assert_int_equal(tu_write_file(path, "1 0 {root}/a\n3 0 {root}/b\n", 26), 0);
	assert_int_equal(op_chains_read_images(dir, &im), 0);
	assert_int_equal(im.nr, 1);	/* IDs must follow each other */
	op_chain_images_release(&im);
	free(path);
	tu_rm_rf(top);
	free(dir);
	free(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store),
		cmocka_unit_test(test_bad_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
