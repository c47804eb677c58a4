/* Sample files: round trips, growth, overflow, crash safety and every kind
 * of corrupt file. Each case gets a fresh temporary directory. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "odb.h"
#include "testutil.h"

struct fixture {
	char *dir;
	char *file;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->dir = tu_mkdtemp();
	if (!f->dir)
		return -1;
	f->file = tu_path(f->dir, "TIMER.100000.0.all.all.all");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	tu_rm_rf(f->dir);
	free(f->dir);
	free(f->file);
	free(f);
	return 0;
}

static void *read_all(const char *path, size_t *len)
{
	struct stat st;
	void *buf;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc(st.st_size ? st.st_size : 1);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, st.st_size), st.st_size);
	close(fd);
	*len = st.st_size;
	return buf;
}

static off_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

/* An iterator that checks keys come once each and totals the counts. */
struct walk {
	uint64_t nr_keys;
	uint64_t total;
	uint64_t last_key;
	int stop_after;
};

static int walk_fn(uint64_t key, uint64_t count, void *ctx)
{
	struct walk *w = ctx;

	if (w->nr_keys)
		assert_true(key > w->last_key);
	w->last_key = key;
	w->nr_keys++;
	w->total += count;
	if (w->stop_after && w->nr_keys == (uint64_t)w->stop_after)
		return 42;
	return 0;
}

static void test_new_file(void **state)
{
	struct fixture *f = *state;
	odb_t db;

	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDONLY), -ENOENT);
	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDWR), 0);
	assert_memory_equal(db.header->magic, "DAE\n", 4);
	assert_int_equal(db.header->version, 0x13);
	assert_int_equal(db.descr->size, ODB_DEFAULT_NODES);
	assert_int_equal(db.descr->current_size, 1);
	assert_int_equal(odb_nr_nodes(&db), 0);
	assert_int_equal(odb_sync(&db), 0);
	odb_close(&db);
	odb_close(&db);	/* closing twice is safe */
	assert_int_equal(file_size(f->file), 72 + 32 + 128 * 20);

	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDONLY), 0);
	assert_int_equal(odb_nr_nodes(&db), 0);
	assert_int_equal(odb_get(&db, 0), 0);
	odb_close(&db);
}

static void test_one_key(void **state)
{
	struct fixture *f = *state;
	struct walk w = { 0 };
	odb_t db;
	int i;

	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDWR), 0);
	db.header->cpu_type = ODB_CPU_TIMER_INT;
	db.header->ctr_count = 100000;
	for (i = 0; i < 1000; i++)
		assert_int_equal(odb_add(&db, 0x401234, 1), 0);
	assert_int_equal(odb_add(&db, 0x401234, 5), 0);
	assert_int_equal(odb_add(&db, 0x999, 0), 0);	/* n=0 creates nothing */
	odb_close(&db);

	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDONLY), 0);
	assert_int_equal(db.header->cpu_type, 4);
	assert_int_equal(db.header->ctr_count, 100000);
	assert_int_equal(odb_nr_nodes(&db), 1);
	assert_int_equal(odb_get(&db, 0x401234), 1005);
	assert_int_equal(odb_get(&db, 0x401235), 0);
	assert_int_equal(odb_for_each(&db, walk_fn, &w), 0);
	assert_int_equal(w.nr_keys, 1);
	assert_int_equal(w.total, 1005);
	odb_close(&db);

	/* the raw layout: node 1 at 120, bucket of the key after the nodes */
	{
		size_t len;
		unsigned char *raw = read_all(f->file, &len);
		uint64_t key;
		uint32_t val, bucket, t = (uint32_t)0x401234;

		memcpy(&key, raw + 104 + 16, 8);
		memcpy(&val, raw + 104 + 16 + 8, 4);
		t = (t ^ (t >> 8)) & 127;
		memcpy(&bucket, raw + 104 + 128 * 16 + 4 * t, 4);
		assert_int_equal(key, 0x401234);
		assert_int_equal(val, 1005);
		assert_int_equal(bucket, 1);
		free(raw);
	}
}

/* xorshift: keys that are not sequential */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t key_of(uint64_t i)
{
	return i * 0x9e3779b97f4a7c15ull ^ (i << 3);
}

static void fill_keys(const char *file, uint64_t nr, uint32_t per_key)
{
	odb_t db;
	uint64_t i;

	assert_int_equal(odb_open(&db, NULL, file, ODB_RDWR), 0);
	for (i = 0; i < nr; i++)
		assert_int_equal(odb_add(&db, key_of(i), per_key), 0);
	odb_close(&db);
}

static void test_million_keys(void **state)
{
	struct fixture *f = *state;
	const uint64_t nr = 1000000;
	struct walk w = { 0 };
	odb_t db;
	uint64_t i;

	fill_keys(f->file, nr, 1);
	/* a second pass over the same keys adds to them, creates nothing */
	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDWR), 0);
	for (i = 0; i < nr; i++)
		assert_int_equal(odb_add(&db, key_of(i), 2), 0);
	assert_int_equal(odb_nr_nodes(&db), nr);
	odb_close(&db);

	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDONLY), 0);
	assert_int_equal(db.descr->size, 1u << 20);
	assert_int_equal(file_size(f->file), 104 + (1 << 20) * 20);
	assert_int_equal(odb_nr_nodes(&db), nr);
	for (i = 0; i < nr; i += 997)
		assert_int_equal(odb_get(&db, key_of(i)), 3);
	assert_int_equal(odb_get(&db, key_of(nr)), 0);
	assert_int_equal(odb_for_each(&db, walk_fn, &w), 0);
	assert_int_equal(w.nr_keys, nr);
	assert_int_equal(w.total, 3 * nr);
	odb_close(&db);
}

static void test_growth(void **state)
{
	struct fixture *f = *state;
	odb_t db, old;
	uint64_t i;

	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDWR), 0);
	db.header->ctr_event = 77;
	/* 127 nodes fit in 128 (node 0 is unused) */
	for (i = 1; i <= 127; i++)
		assert_int_equal(odb_add(&db, i << 12, (uint32_t)i), 0);
	assert_int_equal(db.descr->size, 128);
	assert_int_equal(db.descr->current_size, 128);

	/* a reader of the old table keeps a consistent view after growth */
	assert_int_equal(odb_open(&old, NULL, f->file, ODB_RDONLY), 0);

	assert_int_equal(odb_add(&db, 128 << 12, 128), 0);
	assert_int_equal(db.descr->size, 256);
	assert_int_equal(db.header->ctr_event, 77);
	assert_int_equal(file_size(f->file), 104 + 256 * 20);
	for (i = 129; i <= 1000; i++)
		assert_int_equal(odb_add(&db, i << 12, (uint32_t)i), 0);
	assert_int_equal(db.descr->size, 1024);
	for (i = 1; i <= 1000; i++)
		assert_int_equal(odb_get(&db, i << 12), i);

	assert_int_equal(odb_nr_nodes(&old), 127);
	assert_int_equal(odb_get(&old, 5 << 12), 5);
	assert_int_equal(odb_get(&old, 200 << 12), 0);
	odb_close(&old);
	odb_close(&db);

	/* reopen read-write and keep adding */
	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDWR), 0);
	assert_int_equal(odb_add(&db, 5 << 12, 10), 0);
	assert_int_equal(odb_add(&db, 5000 << 12, 1), 0);
	odb_close(&db);
	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDONLY), 0);
	assert_int_equal(odb_get(&db, 5 << 12), 15);
	assert_int_equal(odb_get(&db, 5000 << 12), 1);
	assert_int_equal(odb_nr_nodes(&db), 1001);
	odb_close(&db);

	/* no temporary file left behind */
	{
		char *tmpglob = tu_path(f->dir, ".odbtmp.");
		char cmd[4096];

		snprintf(cmd, sizeof(cmd), "ls -a '%s' | grep -q odbtmp", f->dir);
		assert_int_not_equal(system(cmd), 0);
		free(tmpglob);
	}
}

static void test_overflow(void **state)
{
	struct fixture *f = *state;
	struct walk w = { 0 };
	odb_t db;

	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDWR), 0);
	assert_int_equal(odb_add(&db, 0x1000, UINT32_MAX - 5), 0);
	assert_int_equal(odb_add(&db, 0x2000, 1), 0);
	assert_int_equal(odb_add(&db, 0x1000, 5), 0);	/* exactly full */
	assert_int_equal(odb_nr_nodes(&db), 2);
	assert_int_equal(odb_add(&db, 0x1000, 1), 0);	/* second node */
	assert_int_equal(odb_nr_nodes(&db), 3);
	assert_int_equal(odb_add(&db, 0x1000, 9), 0);	/* goes to the new node */
	assert_int_equal(odb_nr_nodes(&db), 3);
	assert_int_equal(odb_get(&db, 0x1000), (uint64_t)UINT32_MAX + 10);
	odb_close(&db);

	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDONLY), 0);
	assert_int_equal(odb_get(&db, 0x1000), (uint64_t)UINT32_MAX + 10);
	assert_int_equal(odb_for_each(&db, walk_fn, &w), 0);
	assert_int_equal(w.nr_keys, 2);
	assert_int_equal(w.total, (uint64_t)UINT32_MAX + 11);
	odb_close(&db);

	/* the duplicates survive growth */
	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDWR), 0);
	for (uint64_t i = 1; i < 300; i++)
		assert_int_equal(odb_add(&db, i << 20, 1), 0);
	assert_true(db.descr->size > 128);
	assert_int_equal(odb_get(&db, 0x1000), (uint64_t)UINT32_MAX + 10);
	/* and the node with room is still found: no third node */
	{
		uint32_t nr = odb_nr_nodes(&db);

		assert_int_equal(odb_add(&db, 0x1000, 7), 0);
		assert_int_equal(odb_nr_nodes(&db), nr);
		assert_int_equal(odb_get(&db, 0x1000), (uint64_t)UINT32_MAX + 17);
	}
	odb_close(&db);
}

static void test_for_each_stops(void **state)
{
	struct fixture *f = *state;
	struct walk w = { .stop_after = 3 };
	odb_t db;

	fill_keys(f->file, 10, 1);
	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDONLY), 0);
	assert_int_equal(odb_for_each(&db, walk_fn, &w), 42);
	assert_int_equal(w.nr_keys, 3);
	odb_close(&db);
}

/* --- corrupt files --- */

/* A valid 128-node file with 50 keys, as raw bytes. */
static unsigned char *valid_file(const char *file, size_t *len)
{
	fill_keys(file, 50, 3);
	return read_all(file, len);
}

static void put32(unsigned char *raw, size_t off, uint32_t v)
{
	memcpy(raw + off, &v, 4);
}

static uint32_t get32(const unsigned char *raw, size_t off)
{
	uint32_t v;

	memcpy(&v, raw + off, 4);
	return v;
}

#define OFF_SIZE 72
#define OFF_CUR 76
#define OFF_NODE(i) (104 + 16 * (size_t)(i))
#define OFF_NEXT(i) (OFF_NODE(i) + 12)
#define OFF_BUCKET(b) (104 + 128 * 16 + 4 * (size_t)(b))

/* index of a non-empty bucket whose chain has at least two nodes */
static uint32_t long_bucket(const unsigned char *raw)
{
	uint32_t b;

	for (b = 0; b < 128; b++) {
		uint32_t head = get32(raw, OFF_BUCKET(b));

		if (head && get32(raw, OFF_NEXT(head)))
			return b;
	}
	fail_msg("no chain of two nodes");
	return 0;
}

enum corruption {
	C_MAGIC, C_VERSION, C_SIZE_NOT_POW2, C_SIZE_ZERO, C_SIZE_HUGE,
	C_SIZE_SMALLER, C_CUR_ZERO, C_CUR_BIG, C_BUCKET_RANGE, C_NEXT_RANGE,
	C_LOOP, C_SELF_LOOP, C_SHARED_TAIL, C_WRONG_BUCKET, C_TRUNC, C_EXTEND,
	C_EMPTY, C_SHORT_MAGIC, C_HEADER_ONLY,
};

static const struct {
	enum corruption c;
	int err;
	const char *what;
} corruptions[] = {
	{ C_MAGIC, -ODB_EMAGIC, "bad magic" },
	{ C_VERSION, -ODB_EVERSION, "version 0x11" },
	{ C_SIZE_NOT_POW2, -ODB_ESIZE, "size 129" },
	{ C_SIZE_ZERO, -ODB_ESIZE, "size 0" },
	{ C_SIZE_HUGE, -ODB_ESIZE, "size 2^31" },
	{ C_SIZE_SMALLER, -ODB_ETRUNC, "size 64 in a 128-node file" },
	{ C_CUR_ZERO, -ODB_ESIZE, "current_size 0" },
	{ C_CUR_BIG, -ODB_ESIZE, "current_size > size" },
	{ C_BUCKET_RANGE, -ODB_ECHAIN, "bucket head >= current_size" },
	{ C_NEXT_RANGE, -ODB_ECHAIN, "next >= current_size" },
	{ C_LOOP, -ODB_ECHAIN, "chain loop" },
	{ C_SELF_LOOP, -ODB_ECHAIN, "node pointing at itself" },
	{ C_SHARED_TAIL, -ODB_ECHAIN, "two buckets sharing a node" },
	{ C_WRONG_BUCKET, -ODB_ECHAIN, "a chain under another key's bucket" },
	{ C_TRUNC, -ODB_ETRUNC, "last bucket cut off" },
	{ C_EXTEND, -ODB_ETRUNC, "trailing garbage" },
	{ C_EMPTY, -ODB_ETRUNC, "empty file" },
	{ C_SHORT_MAGIC, -ODB_EMAGIC, "ten bytes of text" },
	{ C_HEADER_ONLY, -ODB_ETRUNC, "header without descriptor" },
};

static void test_corrupt_table(void **state)
{
	struct fixture *f = *state;
	size_t len, k;
	unsigned char *good = valid_file(f->file, &len);
	char *bad = tu_path(f->dir, "bad");

	for (k = 0; k < sizeof(corruptions) / sizeof(corruptions[0]); k++) {
		unsigned char *raw = malloc(len + 16);
		size_t n = len;
		uint32_t b, head, second;
		odb_t db;
		int rw;

		memcpy(raw, good, len);
		b = long_bucket(raw);
		head = get32(raw, OFF_BUCKET(b));
		second = get32(raw, OFF_NEXT(head));
		switch (corruptions[k].c) {
		case C_MAGIC: raw[0] = 'X'; break;
		case C_VERSION: put32(raw, 4, 0x11); break;
		case C_SIZE_NOT_POW2: put32(raw, OFF_SIZE, 129); break;
		case C_SIZE_ZERO: put32(raw, OFF_SIZE, 0); break;
		case C_SIZE_HUGE: put32(raw, OFF_SIZE, 1u << 31); break;
		case C_SIZE_SMALLER: put32(raw, OFF_SIZE, 64); put32(raw, OFF_CUR, 51); break;
		case C_CUR_ZERO: put32(raw, OFF_CUR, 0); break;
		case C_CUR_BIG: put32(raw, OFF_CUR, 129); break;
		case C_BUCKET_RANGE: put32(raw, OFF_BUCKET(b), 51); break;
		case C_NEXT_RANGE: put32(raw, OFF_NEXT(second), 1000); break;
		case C_LOOP: put32(raw, OFF_NEXT(second), head); break;
		case C_SELF_LOOP: put32(raw, OFF_NEXT(head), head); break;
		case C_SHARED_TAIL: put32(raw, OFF_BUCKET((b + 1) % 128), second); break;
		case C_WRONG_BUCKET:
			for (uint32_t e = 0; e < 128; e++)
				if (!get32(raw, OFF_BUCKET(e))) {
					put32(raw, OFF_BUCKET(e), head);
					break;
				}
			put32(raw, OFF_BUCKET(b), 0);
			break;
		case C_TRUNC: n = len - 4; break;
		case C_EXTEND: memset(raw + len, 0, 16); n = len + 16; break;
		case C_EMPTY: n = 0; break;
		case C_SHORT_MAGIC: memcpy(raw, "hello, wor", 10); n = 10; break;
		case C_HEADER_ONLY: n = 72; break;
		}
		assert_int_equal(tu_write_file(bad, raw, n), 0);
		for (rw = 0; rw < 2; rw++) {
			int ret = odb_open(&db, NULL, bad, rw ? ODB_RDWR : ODB_RDONLY);

			if (ret != corruptions[k].err)
				fail_msg("%s (%s): got %d (%s), want %d", corruptions[k].what,
					 rw ? "rdwr" : "rdonly", ret, odb_strerror(ret),
					 corruptions[k].err);
			/* a refused file is left closed and untouched */
			assert_null(db.base);
			odb_close(&db);
		}
		free(raw);
	}
	assert_int_equal(odb_open(&(odb_t){ 0 }, NULL, f->dir, ODB_RDONLY), -EINVAL);
	/* a FIFO is refused at once, not waited on */
	assert_int_equal(mkfifo(bad, 0600) == 0 || (unlink(bad) == 0 && mkfifo(bad, 0600) == 0), 1);
	assert_int_equal(odb_open(&(odb_t){ 0 }, NULL, bad, ODB_RDONLY), -EINVAL);
	assert_int_equal(odb_open(&(odb_t){ 0 }, NULL, bad, ODB_RDWR), -EINVAL);
	free(bad);
	free(good);
}

static int sum_counts(uint64_t key, uint64_t count, void *ctx)
{
	(void)key;
	*(uint64_t *)ctx += count;
	return 0;
}

/* A used node in no chain: what a writer killed between publishing
 * current_size and the bucket head leaves. Its count is real: a read-only
 * open keeps the file and the nodes' readers count it; a writable open
 * links it into its bucket, so that odb_get() and odb_add() find it. */
static void test_orphan_node(void **state)
{
	struct fixture *f = *state;
	size_t len;
	unsigned char *raw = valid_file(f->file, &len);
	uint32_t b = long_bucket(raw), head = get32(raw, OFF_BUCKET(b));
	uint64_t key, total = 0;
	odb_t db;

	memcpy(&key, raw + OFF_NODE(head), 8);
	put32(raw, OFF_BUCKET(b), get32(raw, OFF_NEXT(head)));
	assert_int_equal(tu_write_file(f->file, raw, len), 0);

	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDONLY), 0);
	assert_int_equal(odb_for_each(&db, sum_counts, &total), 0);
	assert_int_equal(total, 50 * 3);
	assert_int_equal(odb_get(&db, key), 0);
	odb_close(&db);

	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDWR), 0);
	assert_int_equal(odb_get(&db, key), 3);
	assert_int_equal(odb_add(&db, key, 2), 0);
	assert_int_equal(odb_get(&db, key), 5);
	assert_int_equal(odb_nr_nodes(&db), 50);	/* no second node */
	odb_close(&db);
	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDONLY), 0);
	assert_int_equal(odb_get(&db, key), 5);
	odb_close(&db);
	free(raw);
}

/* The 88-byte header of OProfile 0.9 (version 0x12), and of opsampler
 * before it wrote OProfile 1.x's 72 bytes (under 0x13): the same table
 * behind 16 more header bytes, anon_start at 64. Both read with the header
 * converted; neither opens for writing. */
static void test_old_headers(void **state)
{
	static const uint32_t versions[] = { 0x12, 0x13 };
	struct fixture *f = *state;
	size_t len, k;
	unsigned char *good, *old;
	char *path = tu_path(f->dir, "old");
	odb_t db;

	fill_keys(f->file, 50, 3);
	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDWR), 0);
	db.header->cpu_type = 4;
	db.header->is_kernel = 1;
	db.header->mtime = 1234567;
	db.header->cg_to_is_kernel = 1;
	db.header->anon_start = 0x7f0000001000ULL;
	db.header->cg_to_anon_start = 0x7f0000002000ULL;
	odb_close(&db);
	good = read_all(f->file, &len);
	old = calloc(1, len + 16);
	/* magic .. cg_to_is_kernel, then spu_profile and embedded_offset */
	memcpy(old, good, 52);
	memcpy(old + 64, good + 56, 16);	/* anon_start, cg_to_anon_start */
	memcpy(old + 88, good + 72, len - 72);	/* descriptor and table */
	for (k = 0; k < 2; k++) {
		struct walk w = { 0 }, w0 = { 0 };
		odb_t ref;

		put32(old, 4, versions[k]);
		assert_int_equal(tu_write_file(path, old, len + 16), 0);
		assert_int_equal(odb_open(&db, NULL, path, ODB_RDONLY), 0);
		assert_int_equal(db.header_len, 88);
		assert_int_equal(db.header->version, versions[k]);
		assert_int_equal(db.header->cpu_type, 4);
		assert_int_equal(db.header->is_kernel, 1);
		assert_int_equal(db.header->mtime, 1234567);
		assert_int_equal(db.header->cg_to_is_kernel, 1);
		assert_int_equal(db.header->anon_start, 0x7f0000001000ULL);
		assert_int_equal(db.header->cg_to_anon_start, 0x7f0000002000ULL);
		assert_int_equal(odb_open(&ref, NULL, f->file, ODB_RDONLY), 0);
		assert_int_equal(ref.header_len, 72);
		assert_int_equal(odb_nr_nodes(&db), odb_nr_nodes(&ref));
		assert_int_equal(odb_for_each(&db, walk_fn, &w), 0);
		assert_int_equal(odb_for_each(&ref, walk_fn, &w0), 0);
		assert_int_equal(w.total, w0.total);
		assert_int_equal(w.nr_keys, w0.nr_keys);
		odb_close(&ref);
		odb_close(&db);
		assert_int_equal(odb_open(&db, NULL, path, ODB_RDWR), -ODB_EOLDFMT);
		assert_null(db.base);
	}
	/* a 0x12 header in front of a 72-byte layout is neither */
	put32(good, 4, 0x12);
	assert_int_equal(tu_write_file(path, good, len), 0);
	assert_true(odb_open(&db, NULL, path, ODB_RDONLY) < 0);
	assert_null(db.base);
	free(old);
	free(good);
	free(path);
}

static void test_strerror(void **state)
{
	assert_string_equal(odb_strerror(0), "success");
	assert_non_null(strstr(odb_strerror(-ODB_EMAGIC), "magic"));
	assert_non_null(strstr(odb_strerror(-ODB_ECHAIN), "chain"));
	assert_string_equal(odb_strerror(-ENOENT), strerror(ENOENT));
}

/* Open a damaged file both ways; whatever it accepts must read consistently
 * and stay writable without crashing. */
static void check_damaged(const char *path)
{
	odb_t db;
	int ret = odb_open(&db, NULL, path, ODB_RDONLY);

	if (ret) {
		assert_true(ret <= -ODB_EMAGIC && ret >= -ODB_EOLDFMT);
		assert_null(db.base);
	} else {
		struct walk w = { 0 };
		uint64_t sum = 0;
		uint32_t i, cur = db.descr->current_size;

		assert_true(cur >= 1 && cur <= db.descr->size);
		for (i = 1; i < cur; i++)
			sum += db.nodes[i].value;
		assert_int_equal(odb_for_each(&db, walk_fn, &w), 0);
		assert_int_equal(w.total, sum);
		assert_true(w.nr_keys <= cur - 1);
		for (i = 1; i < cur; i++)
			assert_true(odb_get(&db, db.nodes[i].key) <= sum);
		odb_close(&db);
	}
	ret = odb_open(&db, NULL, path, ODB_RDWR);
	if (ret) {
		assert_true(ret <= -ODB_EMAGIC && ret >= -ODB_EOLDFMT);
	} else {
		uint64_t before = odb_get(&db, 0xabcdef);

		assert_int_equal(odb_add(&db, 0xabcdef, 1), 0);
		assert_int_equal(odb_get(&db, 0xabcdef), before + 1);
		odb_close(&db);
	}
}

static void test_truncations(void **state)
{
	struct fixture *f = *state;
	size_t len, n;
	unsigned char *good = valid_file(f->file, &len);
	char *bad = tu_path(f->dir, "bad");
	odb_t db;

	for (n = 0; n < len; n++) {
		assert_int_equal(tu_write_file(bad, good, n), 0);
		assert_int_equal(odb_open(&db, NULL, bad, ODB_RDONLY), -ODB_ETRUNC);
		assert_int_equal(odb_open(&db, NULL, bad, ODB_RDWR), -ODB_ETRUNC);
	}
	free(bad);
	free(good);
}

static void test_bit_flips(void **state)
{
	struct fixture *f = *state;
	size_t len, bit;
	unsigned char *good = valid_file(f->file, &len);
	char *bad = tu_path(f->dir, "bad");
	unsigned long nr_refused = 0;

	for (bit = 0; bit < len * 8; bit++) {
		odb_t db;

		good[bit / 8] ^= 1u << (bit % 8);
		assert_int_equal(tu_write_file(bad, good, len), 0);
		good[bit / 8] ^= 1u << (bit % 8);
		if (odb_open(&db, NULL, bad, ODB_RDONLY))
			nr_refused++;
		else
			odb_close(&db);
		check_damaged(bad);
	}
	/* flips in magic, version, size, current_size and the links must have
	 * been caught; flips in keys and counts read as other keys and counts */
	assert_true(nr_refused >= 4 * 8 + 8 + 32);
	assert_true(nr_refused < len * 8);
	free(bad);
	free(good);
}

/* Random multi-byte damage to the table area. */
static void test_random_damage(void **state)
{
	struct fixture *f = *state;
	size_t len;
	unsigned char *good = valid_file(f->file, &len);
	unsigned char *raw = malloc(len);
	char *bad = tu_path(f->dir, "bad");
	uint64_t s = 0x1234567;
	int round;

	for (round = 0; round < 3000; round++) {
		int k, nr = 1 + (int)(rnd(&s) % 8);

		memcpy(raw, good, len);
		for (k = 0; k < nr; k++) {
			size_t off = 72 + rnd(&s) % (len - 72);

			raw[off] = (unsigned char)rnd(&s);
			if (rnd(&s) % 4 == 0)	/* a plausible small index */
				raw[off & ~(size_t)3] = (unsigned char)(rnd(&s) % 60);
		}
		assert_int_equal(tu_write_file(bad, raw, len), 0);
		check_damaged(bad);
	}
	free(bad);
	free(raw);
	free(good);
}

/* kill -9 of a writer at a random instant leaves a file that opens. */
static void test_kill_writer(void **state)
{
	struct fixture *f = *state;
	uint64_t s = (uint64_t)time(NULL) | 1;
	int round;

	for (round = 0; round < 20; round++) {
		struct walk w = { 0 };
		int status;
		odb_t db;
		pid_t pid;

		unlink(f->file);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			odb_t c;
			uint64_t i;

			if (odb_open(&c, NULL, f->file, ODB_RDWR))
				_exit(2);
			for (i = 0;; i++)
				if (odb_add(&c, key_of(i % 300000), 1))
					_exit(3);
		}
		usleep(1000 + rnd(&s) % 60000);
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status));
		if (access(f->file, F_OK))
			continue;	/* killed before the file was created */
		assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDONLY), 0);
		assert_int_equal(odb_for_each(&db, walk_fn, &w), 0);
		assert_true(w.nr_keys <= 300000);
		odb_close(&db);
		/* and the writer can carry on */
		assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDWR), 0);
		assert_int_equal(odb_add(&db, key_of(1), 1), 0);
		odb_close(&db);
	}
}

/* A reader that opens a file while its writer adds new keys (optop, an
 * opreport of a running session): the writer publishes a node by raising
 * current_size, then pointing its bucket at it, so a reader that read
 * current_size before the bucket can meet a head past it. That is a node
 * it has not counted yet, not a damaged table: every open succeeds. */
static void test_live_reader(void **state)
{
	struct fixture *f = *state;
	int status, failures = 0, first = 0;
	odb_t db;
	pid_t pid;

	assert_int_equal(odb_open(&db, NULL, f->file, ODB_RDWR), 0);
	odb_close(&db);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		odb_t c;

		if (odb_open(&c, NULL, f->file, ODB_RDWR))
			_exit(2);
		for (uint64_t i = 0;; i++)
			if (odb_add(&c, key_of(i % 2000000), 1))
				_exit(3);
	}
	for (int i = 0; i < 3000; i++) {
		int ret = odb_open(&db, NULL, f->file, ODB_RDONLY);

		if (ret) {
			if (!failures++)
				first = ret;
			continue;
		}
		odb_close(&db);
	}
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (failures)
		fail_msg("%d of 3000 read-only opens failed beside a live writer, "
			 "the first with %s", failures, odb_strerror(first));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_million_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_growth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_for_each_stops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_orphan_node, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_headers, setup, teardown),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test_setup_teardown(test_truncations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bit_flips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_damage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kill_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_reader, setup, teardown),
	};

	return cmocka_run_group_tests_name("odb", tests, NULL, NULL);
}
