/* The call-chain store: each frame-in-context written once, a chain
 * counted at its innermost node per event and separation key, read back
 * by libop's reader; a restarted writer goes on with the same IDs; a torn
 * tail is dropped by readers and cut by the next writer; the first
 * format is read but not extended. */
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

/* Chain id's frames (innermost first) and its application's image ID,
 * from the store on file. */
static uint32_t chain_of(const char *dir, uint32_t id, struct op_chain_frame *f,
			 uint32_t *app_id, size_t *nr_nodes)
{
	struct op_chain_tree t;
	uint32_t nr;

	assert_int_equal(op_chains_load(NULL, dir, &t, NULL), 0);
	assert_true(t.max_depth <= 8);
	nr = op_chain_frames(&t, op_chain_key_node(&t, id), f, app_id);
	if (nr_nodes)
		*nr_nodes = t.nr;
	op_chain_tree_release(&t);
	return nr;
}

static uint64_t count_of(const char *dir, const char *file, uint64_t id)
{
	char *path = tu_path(dir, file);
	odb_t db;
	uint64_t n;

	assert_int_equal(odb_open(&db, NULL, path, ODB_RDONLY), 0);
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
	uint32_t a, l, k, v, app_id;
	struct op_chain_frame f[3], g[8];
	const struct opd_chain_key all = { "TIMER.1000000.0", ALL, ALL, ALL };
	const struct opd_chain_key cpu1 = { "TIMER.1000000.0", ALL, ALL, 1 };
	struct stat sb;
	size_t nodes;
	char *chains;

	(void)state;
	assert_non_null(top);
	dir = tu_path(top, OP_CHAINS_DIR);
	chains = tu_path(dir, "chains");
	assert_int_equal(opd_chains_init(&c, NULL, top, NULL), 0);
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
	/* nodes: 1 the root of app a, 2 a+0x10, 3 libc+0x20, 4 kernel+0x30 */
	opd_chains_add(&c, &all, a, f, 3, 1);
	opd_chains_add(&c, &all, a, f, 3, 1);
	opd_chains_add(&c, &cpu1, a, f, 3, 1);
	opd_chains_add(&c, &all, a, f + 1, 2, 1);	/* its caller's chain: node 3 */
	/* no app, four samples at once (a tallied chain): another root, 5
	 * and 6 */
	opd_chains_add(&c, &all, 0, f + 2, 1, 4);
	assert_int_equal(c.nr_chains, 3);
	assert_int_equal(c.nr_nodes, 6);
	assert_int_equal(c.nr_added, 8);
	assert_int_equal(c.nr_lost, 0);
	assert_int_equal(opd_chains_sync(&c), 0);
	opd_chains_release(&c);
	/* each node written once, a few bytes each */
	assert_int_equal(stat(chains, &sb), 0);
	assert_int_equal(sb.st_size, 8 + 6 * 3);

	assert_int_equal(count_of(dir, "TIMER.1000000.0.all.all.all", 4), 2);
	assert_int_equal(count_of(dir, "TIMER.1000000.0.all.all.all", 3), 1);
	assert_int_equal(count_of(dir, "TIMER.1000000.0.all.all.all", 6), 4);
	assert_int_equal(count_of(dir, "TIMER.1000000.0.all.all.1", 4), 1);
	assert_int_equal(op_chains_read_images(NULL, dir, &im), 0);
	assert_int_equal(im.nr, 3);
	assert_int_equal(im.img[0].kind, OP_IMG_KERN);
	assert_true(im.is_kernel[0]);
	assert_string_equal(im.img[1].path, "/lib/libc.so.6");
	assert_false(im.is_kernel[1]);
	op_chain_images_release(&im);
	assert_int_equal(chain_of(dir, 4, g, &app_id, &nodes), 3);
	assert_int_equal(nodes, 6);
	assert_int_equal(app_id, a);
	assert_memory_equal(g, f, sizeof(f));
	assert_int_equal(chain_of(dir, 3, g, &app_id, NULL), 2);
	assert_memory_equal(g, f + 1, 2 * sizeof(*f));
	assert_int_equal(chain_of(dir, 6, g, &app_id, NULL), 1);
	assert_int_equal(app_id, 0);
	assert_int_equal(g[0].image, a);
	assert_int_equal(chain_of(dir, 1, g, &app_id, NULL), 0);	/* a root */
	assert_int_equal(chain_of(dir, 7, g, &app_id, NULL), 0);	/* none */

	/* a restarted writer: the same chain ends at the same node, a new
	 * image and new nodes come after the old ones */
	assert_int_equal(opd_chains_init(&c, NULL, top, NULL), 0);
	v = opd_chains_image(&c, &vdso, false);
	assert_int_equal(v, 4);
	assert_int_equal(opd_chains_image(&c, &app, false), a);
	opd_chains_add(&c, &all, a, f, 3, 1);
	f[0].image = v;
	opd_chains_add(&c, &all, a, f, 3, 1);	/* node 7 under node 3 */
	assert_int_equal(c.nr_nodes, 7);
	opd_chains_release(&c);
	assert_int_equal(count_of(dir, "TIMER.1000000.0.all.all.all", 4), 3);
	assert_int_equal(count_of(dir, "TIMER.1000000.0.all.all.all", 7), 1);
	assert_int_equal(chain_of(dir, 7, g, &app_id, NULL), 3);
	assert_int_equal(g[0].image, v);
	assert_int_equal(g[1].image, l);

	/* torn tails: half a record, half a line; readers stop before them,
	 * the next writer cuts them and goes on */
	{
		char *images = tu_path(dir, "images");
		FILE *fp = fopen(chains, "ae");
		const uint8_t half[2] = { 1, 0x85 };	/* a number torn */
		uint64_t end;
		struct op_chain_tree t;

		assert_non_null(fp);
		assert_int_equal(fwrite(half, sizeof(half), 1, fp), 1);
		fclose(fp);
		fp = fopen(images, "ae");
		assert_non_null(fp);
		fputs("5 0 {root}/bin/hal", fp);
		fclose(fp);
		assert_int_equal(op_chains_load(NULL, dir, &t, &end), 0);
		assert_int_equal(t.nr, 7);
		assert_int_equal(end, 8 + 7 * 3);
		op_chain_tree_release(&t);
		assert_int_equal(op_chains_read_images(NULL, dir, &im), 0);
		assert_int_equal(im.nr, 4);
		op_chain_images_release(&im);

		assert_int_equal(opd_chains_init(&c, NULL, top, NULL), 0);
		assert_int_equal(opd_chains_image(&c, &libc, false), 2);
		assert_int_equal(opd_chains_image(&c, &(struct op_img){
			.kind = OP_IMG_FILE, .path = (char *)"/bin/half" }, false), 5);
		f[0] = (struct op_chain_frame){ .image = l, .offset = UINT64_MAX };
		opd_chains_add(&c, &all, 0, f, 1, 1);	/* node 8 under root 5 */
		assert_int_equal(c.nr_nodes, 8);
		opd_chains_release(&c);
		assert_int_equal(chain_of(dir, 8, g, &app_id, &nodes), 1);
		assert_int_equal(nodes, 8);
		assert_int_equal(app_id, 0);
		assert_int_equal(g[0].offset, UINT64_MAX);
		assert_int_equal(op_chains_read_images(NULL, dir, &im), 0);
		assert_int_equal(im.nr, 5);
		assert_string_equal(im.img[4].path, "/bin/half");
		op_chain_images_release(&im);
		free(images);
	}
	tu_rm_rf(top);
	free(chains);
	free(dir);
	free(top);
}

/* The first format is still read, its keys mapped to its chains' nodes;
 * a writer does not extend it, and says so. */
static void test_first_format(void **state)
{
	char *top = tu_mkdtemp(), *dir, *path;
	uint8_t buf[8 + 2 * 8 + 3 * 16];
	uint32_t w[2];
	struct op_chain_frame f[2] = {
		{ .image = 1, .offset = 0x30 }, { .image = 2, .offset = 0x10 },
	}, g[4];
	struct op_chain_tree t;
	struct opd_chains c;
	const struct opd_chain_key all = { "TIMER.1000000.0", ALL, ALL, ALL };
	uint32_t app_id;
	size_t len = 0;

	(void)state;
	dir = tu_path(top, OP_CHAINS_DIR);
	assert_int_equal(mkdir(dir, 0755), 0);
	memcpy(buf, OP_CHAINS_MAGIC_V1, 8);
	len = 8;
	w[0] = 2;
	w[1] = 2;
	memcpy(buf + len, w, 8);
	memcpy(buf + len + 8, f, 2 * sizeof(*f));
	len += 8 + 2 * sizeof(*f);
	w[0] = 1;
	w[1] = 0;
	memcpy(buf + len, w, 8);
	memcpy(buf + len + 8, f + 1, sizeof(*f));
	len += 8 + sizeof(*f);
	path = tu_path(dir, "chains");
	assert_int_equal(tu_write_file(path, buf, len), 0);
	assert_int_equal(op_chains_load(NULL, dir, &t, NULL), 0);
	assert_true(t.v1);
	assert_int_equal(t.nr_keys, 2);
	assert_int_equal(op_chain_frames(&t, op_chain_key_node(&t, 1), g, &app_id), 2);
	assert_int_equal(app_id, 2);
	assert_memory_equal(g, f, sizeof(f));
	assert_int_equal(op_chain_frames(&t, op_chain_key_node(&t, 2), g, &app_id), 1);
	assert_int_equal(app_id, 0);
	assert_int_equal(g[0].offset, 0x10);
	assert_int_equal(op_chain_key_node(&t, 3), 0);
	op_chain_tree_release(&t);
	{
		char *images = tu_path(dir, "images");
		const char *text = "1 1 {root}/proc/kallsyms\n2 0 {root}/bin/app\n";

		assert_int_equal(tu_write_file(images, text, strlen(text)), 0);
		free(images);
	}

	assert_int_equal(opd_chains_init(&c, NULL, top, NULL), 0);
	opd_chains_add(&c, &all, 2, f, 2, 1);
	assert_int_equal(c.nr_lost, 1);
	assert_int_equal(c.nr_added, 0);
	opd_chains_release(&c);
	{
		struct stat sb;

		assert_int_equal(stat(path, &sb), 0);
		assert_int_equal(sb.st_size, (off_t)len);
	}
	free(path);
	tu_rm_rf(top);
	free(dir);
	free(top);
}

/* A store on file the writer cannot extend without renumbering what its
 * counts refer to (nodes with no images list, a list that is not one) is
 * left whole; new chains are counted lost. A header torn at creation is
 * a new list. */
static void test_frozen(void **state)
{
	char *top = tu_mkdtemp(), *dir = tu_path(top, OP_CHAINS_DIR);
	char *chains = tu_path(dir, "chains"), *images = tu_path(dir, "images");
	const struct opd_chain_key all = { "TIMER.1000000.0", ALL, ALL, ALL };
	struct op_chain_frame f = { .image = 1, .offset = 0x10 };
	struct opd_chains c;
	struct stat sb;

	(void)state;
	assert_int_equal(mkdir(dir, 0755), 0);
	/* nodes, no images */
	assert_int_equal(tu_write_file(chains, "OPCHAIN2\x01\x01\x00\x01\x01\x10", 14), 0);
	assert_int_equal(opd_chains_init(&c, NULL, top, NULL), 0);
	assert_int_equal(opd_chains_image(&c, &app, false), 0);
	opd_chains_add(&c, &all, 0, &f, 1, 1);
	opd_chains_add(&c, &all, 0, &f, 1, 1);
	assert_int_equal(c.nr_lost, 2);
	assert_int_equal(c.nr_added, 0);
	opd_chains_release(&c);
	assert_int_equal(stat(chains, &sb), 0);
	assert_int_equal(sb.st_size, 14);
	assert_int_not_equal(access(images, F_OK), 0);

	/* not a chain list at all */
	assert_int_equal(tu_write_file(images, "1 0 {root}/bin/app\n", 19), 0);
	assert_int_equal(tu_write_file(chains, "NOTACHAINLIST", 13), 0);
	assert_int_equal(opd_chains_init(&c, NULL, top, NULL), 0);
	opd_chains_add(&c, &all, 0, &f, 1, 1);
	assert_int_equal(c.nr_lost, 1);
	opd_chains_release(&c);
	assert_int_equal(stat(chains, &sb), 0);
	assert_int_equal(sb.st_size, 13);

	/* a torn header: a new list */
	assert_int_equal(tu_write_file(chains, "OPCH", 4), 0);
	assert_int_equal(opd_chains_init(&c, NULL, top, NULL), 0);
	opd_chains_add(&c, &all, 0, &f, 1, 1);
	assert_int_equal(c.nr_lost, 0);
	assert_int_equal(c.nr_added, 1);
	opd_chains_release(&c);
	tu_rm_rf(top);
	free(images);
	free(chains);
	free(dir);
	free(top);
}

/* Not a chain store: refused, and nothing read; records that cannot be
 * end the tree there. */
static void test_bad_files(void **state)
{
	char *top = tu_mkdtemp(), *dir, *path;
	struct op_chain_images im;
	struct op_chain_tree t;
	uint64_t end;

	(void)state;
	dir = tu_path(top, OP_CHAINS_DIR);
	assert_int_equal(op_chains_load(NULL, dir, &t, NULL), -ENOENT);
	assert_int_equal(op_chains_read_images(NULL, dir, &im), -ENOENT);
	assert_int_equal(mkdir(dir, 0755), 0);
	path = tu_path(dir, "chains");
	assert_int_equal(tu_write_file(path, "NOTACHAINFILE", 13), 0);
	assert_int_equal(op_chains_load(NULL, dir, &t, NULL), -EINVAL);
	/* a first-format record claiming more frames than any chain has */
	assert_int_equal(tu_write_file(path, "OPCHAIN1\xff\xff\xff\xff\0\0\0\0", 16), 0);
	assert_int_equal(op_chains_load(NULL, dir, &t, NULL), 0);
	assert_int_equal(t.nr, 0);
	op_chain_tree_release(&t);
	/* a root and a frame under it, then a record that cannot be: no
	 * parent offset, a parent after the node, a root at an offset, an
	 * image ID past 32 bits, a number torn; each ends the tree there */
	{
		static const struct { const char *b; size_t n; } tails[] = {
			{ "\x00\x01\x05", 3 }, { "\x04\x01\x05", 3 },
			{ "\x03\x01\x05", 3 }, { "\x01\x80\x80\x80\x80\x10\x05", 7 },
			{ "\x01\x85", 2 },
		};

		for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
			char buf[32];

			memcpy(buf, "OPCHAIN2\x01\x02\x00\x01\x02\x07", 14);
			memcpy(buf + 14, tails[i].b, tails[i].n);
			assert_int_equal(tu_write_file(path, buf, 14 + tails[i].n), 0);
			assert_int_equal(op_chains_load(NULL, dir, &t, &end), 0);
			assert_int_equal(t.nr, 2);
			assert_int_equal(end, 14);
			assert_int_equal(t.node[1].parent, 1);
			assert_int_equal(t.node[1].offset, 7);
			op_chain_tree_release(&t);
		}
	}
	free(path);
	path = tu_path(dir, "images");
	assert_int_equal(tu_write_file(path, "1 0 {root}/a\n3 0 {root}/b\n", 26), 0);
	assert_int_equal(op_chains_read_images(NULL, dir, &im), 0);
	assert_int_equal(im.nr, 1);	/* IDs must follow each other */
	op_chain_images_release(&im);
	free(path);
	tu_rm_rf(top);
	free(dir);
	free(top);
}

/* A chain as deep as the bound is read; one deeper ends the tree. */
static void test_depth_bound(void **state)
{
	char *top = tu_mkdtemp(), *dir, *path;
	size_t n = OP_CHAINS_MAX_FRAMES + 2, len = 8;
	uint8_t *buf = malloc(8 + n * 3);
	struct op_chain_tree t;

	(void)state;
	assert_non_null(buf);
	dir = tu_path(top, OP_CHAINS_DIR);
	assert_int_equal(mkdir(dir, 0755), 0);
	memcpy(buf, OP_CHAINS_MAGIC, 8);
	buf[len++] = 1, buf[len++] = 0, buf[len++] = 0;	/* the root */
	for (size_t i = 1; i < n; i++)
		buf[len++] = 1, buf[len++] = 1, buf[len++] = 4;
	path = tu_path(dir, "chains");
	assert_int_equal(tu_write_file(path, buf, len), 0);
	assert_int_equal(op_chains_load(NULL, dir, &t, NULL), 0);
	assert_int_equal(t.nr, OP_CHAINS_MAX_FRAMES + 1);
	assert_int_equal(t.max_depth, OP_CHAINS_MAX_FRAMES);
	op_chain_tree_release(&t);
	free(buf);
	free(path);
	tu_rm_rf(top);
	free(dir);
	free(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store),
		cmocka_unit_test(test_first_format),
		cmocka_unit_test(test_frozen),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_depth_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
