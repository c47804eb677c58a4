/* The integrity record: what it lists, that it catches a changed file
 * whatever byte changed, and that a malformed record is refused whole. */
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
#include "op_sums.h"
#include "testutil.h"

#define SF "{root}/bin/x/{dep}/{root}/bin/x/TIMER.100000.0.all.all.all"

static void mkdirs(const char *dir, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *p = path + strlen(dir) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		assert_true(!mkdir(path, 0755) || errno == EEXIST);
		*p = '/';
	}
}

/* a sample file at dir/rel with n keys */
static char *write_sf(const char *dir, const char *rel, unsigned int n)
{
	char *path = tu_path(dir, rel);
	odb_t db;

	mkdirs(dir, rel);
	assert_int_equal(odb_open(&db, NULL, path, ODB_RDWR), 0);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(odb_add(&db, 0x1000 + 16 * i, i + 1), 0);
	odb_close(&db);
	return path;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int check_path(const struct op_sums *s, const char *dir, const char *rel)
{
	const struct op_sum *e = op_sums_find(s, rel);
	char *path = tu_path(dir, rel);
	odb_t db;
	int ret;

	assert_non_null(e);
	ret = odb_open(&db, NULL, path, ODB_RDONLY);
	if (!ret) {
		ret = op_sum_check(e, &db);
		odb_close(&db);
	}
	free(path);
	return ret;
}

/* Sample files by their tables, the chain store's two lists by all their
 * bytes; any other file is left out. */
static void test_lists_sample_files_only(void **state)
{
	char *dir = tu_mkdtemp();
	char *p1 = write_sf(dir, SF, 300);
	char *p2 = write_sf(dir, "callchains/TIMER.100000.0.all.all.all", 3);
	char *other = tu_path(dir, "callchains/images");
	char *stray = tu_path(dir, "callchains/notes");
	struct op_sums s;
	size_t n = 0;

	(void)state;
	write_text(other, "1 0 {root}/bin/x\n");
	write_text(stray, "not a sample file\n");
	assert_int_equal(op_sums_write(NULL, dir, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(op_sums_read(NULL, dir, &s, NULL), 0);
	assert_int_equal(s.nr, 3);
	assert_null(op_sums_find(&s, "callchains/notes"));
	assert_non_null(op_sums_find(&s, "callchains/images"));
	assert_int_equal(op_sums_find(&s, "callchains/images")->nodes, 0);
	assert_int_equal(op_sums_find(&s, "callchains/images")->len, 17);
	assert_int_equal(op_sum_check_file(op_sums_find(&s, "callchains/images"), NULL, other), 0);
	write_text(other, "1 0 {root}/bin/y\n");	/* same length */
	assert_int_equal(op_sum_check_file(op_sums_find(&s, "callchains/images"), NULL, other),
			 -EBADMSG);
	write_text(other, "1 0 {root}/bin/x\n2 0 {root}/bin/z\n");
	assert_int_equal(op_sum_check_file(op_sums_find(&s, "callchains/images"), NULL, other),
			 -EBADMSG);
	assert_int_equal(check_path(&s, dir, SF), 0);
	assert_int_equal(check_path(&s, dir, "callchains/TIMER.100000.0.all.all.all"), 0);
	assert_int_equal(op_sums_find(&s, SF)->nodes, 300);
	op_sums_release(&s);
	assert_int_equal(op_sums_remove(NULL, dir), 0);
	assert_int_equal(op_sums_read(NULL, dir, &s, NULL), -ENOENT);
	assert_int_equal(op_sums_remove(NULL, dir), 0);
	free(p1);
	free(p2);
	free(other);
	free(stray);
	tu_rm_rf(dir);
	free(dir);
}

/* A binary under a hidden directory (~/.pyenv/...) has sample files like
 * any other: recorded; a writer's temporary beside them is not. */
static void test_hidden_directories(void **state)
{
	static const char hidden[] =
		"{root}/root/.pyenv/bin/python3/{dep}/{root}/root/.pyenv/bin/python3/"
		"TIMER.100000.0.all.all.all";
	static const char tmp[] = "{root}/bin/true/{dep}/{root}/bin/true/.odbtmp.Ab12Cd";
	char *dir = tu_mkdtemp();
	char *p1 = write_sf(dir, hidden, 5);
	char *p2 = write_sf(dir, tmp, 5);
	struct op_sums s;
	size_t n = 0;

	(void)state;
	assert_int_equal(op_sums_write(NULL, dir, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(op_sums_read(NULL, dir, &s, NULL), 0);
	assert_non_null(op_sums_find(&s, hidden));
	assert_null(op_sums_find(&s, tmp));
	op_sums_release(&s);
	free(p1);
	free(p2);
	tu_rm_rf(dir);
	free(dir);
}

/* Every byte that a reader reads changes the sum; bytes of the free
 * nodes, which no reader reads, need not. */
static void test_every_read_byte_counts(void **state)
{
	char *dir = tu_mkdtemp();
	char *path = write_sf(dir, SF, 5);
	struct op_sums s;
	struct stat st;
	odb_t db;
	size_t used_end, buckets;
	int fd, caught = 0, tried = 0;

	(void)state;
	assert_int_equal(op_sums_write(NULL, dir, NULL), 0);
	assert_int_equal(op_sums_read(NULL, dir, &s, NULL), 0);
	assert_int_equal(odb_open(&db, NULL, path, ODB_RDONLY), 0);
	used_end = db.header_len + sizeof(struct odb_descr) +
		   (size_t)db.descr->current_size * sizeof(struct odb_node);
	buckets = (size_t)((char *)db.buckets - (char *)db.base);
	odb_close(&db);
	assert_int_equal(stat(path, &st), 0);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	for (off_t off = 0; off < st.st_size; off++) {
		unsigned char b, x;
		bool read_part = (size_t)off < used_end || (size_t)off >= buckets;

		if (!read_part)
			continue;
		assert_int_equal(pread(fd, &b, 1, off), 1);
		x = b ^ 0x10;
		assert_int_equal(pwrite(fd, &x, 1, off), 1);
		tried++;
		if (check_path(&s, dir, SF))
			caught++;
		assert_int_equal(pwrite(fd, &b, 1, off), 1);
	}
	close(fd);
	assert_int_equal(caught, tried);
	assert_int_equal(check_path(&s, dir, SF), 0);
	op_sums_release(&s);
	free(path);
	tu_rm_rf(dir);
	free(dir);
}

static void test_malformed_record(void **state)
{
	static const char *bad[] = {
		"zz 1 2 x\n",
		"0123 1 2\n",
		"0123 -1 2 x\n",
		"0123 1 x x\n",
		"00000000000000000 1 2 x\n",	/* 17 hex digits */
		"0123 1 2 x",			/* torn: no newline */
		"0123 99999999999 2 x\n",
	};
	char *dir = tu_mkdtemp();
	char *stats = tu_path(dir, "stats");
	char *rec = tu_path(dir, OP_SUMS_FILE);
	struct op_sums s;

	(void)state;
	assert_int_equal(mkdir(stats, 0755), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char text[256];
		size_t line = 0;

		snprintf(text, sizeof(text), "# comment\nabcdef 3 1000 ok name\n%s", bad[i]);
		write_text(rec, text);
		assert_int_equal(op_sums_read(NULL, dir, &s, &line), -EINVAL);
		assert_int_equal(line, 3);
		assert_null(s.v);
	}
	write_text(rec, "abcdef 3 1000 a name with spaces\n");
	assert_int_equal(op_sums_read(NULL, dir, &s, NULL), 0);
	assert_non_null(op_sums_find(&s, "a name with spaces"));
	assert_int_equal(op_sums_find(&s, "a name with spaces")->sum, 0xabcdef);
	op_sums_release(&s);
	free(stats);
	free(rec);
	tu_rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lists_sample_files_only),
		cmocka_unit_test(test_hidden_directories),
		cmocka_unit_test(test_every_read_byte_counts),
		cmocka_unit_test(test_malformed_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
