/* fuzz-sources: libop/odb.c libop/op_afile.c libop/op_sessdir.c libop/op_sessdir_dir.c */
/* The sample-file reader on arbitrary bytes. Whatever the file holds,
 * odb_open() must refuse it with an error or accept a table that reads
 * consistently: for_each's total equals the sum of the used nodes, odb_get
 * never exceeds it, and a writable open can add to it.
 *
 * Input: one mode byte, then the file. Mode bit 0 set: the fuzzer's bytes
 * are made into a plausible file first (magic, version, a power-of-two
 * size from mode bits 1-3, the exact length), so it spends its time in the
 * chain checks and the readers rather than on the magic. Modes 0x41 and
 * 0xc1 also add enough keys to a writable open to grow the table. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "odb.h"

static char path[64];

static void remove_file(void)
{
	unlink(path);
}

static void write_file(const uint8_t *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		abort();
	if (len && fwrite(data, 1, len, f) != len)
		abort();
	fclose(f);
}

struct sum {
	uint64_t total, nr;
};

static int sum_fn(uint64_t key, uint64_t count, void *ctx)
{
	struct sum *s = ctx;

	s->total += count;
	s->nr++;
	return 0;
}

static void check(int grow)
{
	struct sum s = { 0, 0 };
	uint64_t nodes_sum = 0;
	uint32_t i, cur;
	odb_t db;
	int ret = odb_open(&db, NULL, path, ODB_RDONLY);

	if (ret) {
		if (db.base || !odb_strerror(ret))
			abort();
	} else {
		cur = db.descr->current_size;
		if (cur < 1 || cur > db.descr->size)
			abort();
		for (i = 1; i < cur; i++)
			nodes_sum += db.nodes[i].value;
		if (odb_for_each(&db, sum_fn, &s) || s.total != nodes_sum || s.nr > cur - 1)
			abort();
		for (i = 1; i < cur; i++)
			if (odb_get(&db, db.nodes[i].key) > nodes_sum)
				abort();
		odb_close(&db);
	}
	ret = odb_open(&db, NULL, path, ODB_RDWR);
	if (!ret) {
		uint64_t before = odb_get(&db, 0x1234);
		int r = odb_add(&db, 0x1234, 3);

		/* a damaged table is refused (-EIO); else the count is there */
		if (r == -EIO) {
			odb_close(&db);
			return;
		}
		if (r || odb_get(&db, 0x1234) != before + 3)
			abort();
		/* force a growth now and then */
		for (i = 0; grow && i < 40; i++)
			if (odb_add(&db, (uint64_t)i << 16, 1))
				abort();
		odb_close(&db);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path[0]) {
		int fd;

		/* tmpfs when there is one: rewriting a file on a disk file
		 * system each run is what would set the pace */
		snprintf(path, sizeof(path), "/dev/shm/fuzz_odb.XXXXXX");
		fd = mkstemp(path);
		if (fd < 0) {
			snprintf(path, sizeof(path), "/tmp/fuzz_odb.XXXXXX");
			fd = mkstemp(path);
		}
		if (fd < 0)
			abort();
		close(fd);
		atexit(remove_file);
	}
	if (size == 0)
		return 0;
	if (data[0] & 1) {
		uint32_t nodes = 1u << ((data[0] >> 1) & 7);	/* 1..128 */
		size_t len = 104 + (size_t)nodes * 20;
		uint8_t *buf = calloc(1, len);
		uint32_t v = ODB_VERSION;

		if (!buf)
			abort();
		memcpy(buf, data + 1, size - 1 < len ? size - 1 : len);
		memcpy(buf, ODB_MAGIC, 4);
		memcpy(buf + 4, &v, 4);
		memcpy(buf + 72, &nodes, 4);
		/* current_size: keep the fuzzer's byte, within 1..nodes mostly */
		v = 1 + (buf[76] % nodes);
		if (!(data[0] & 0x80))
			memcpy(buf + 76, &v, 4);
		write_file(buf, len);
		free(buf);
	} else {
		write_file(data + 1, size - 1);
	}
	check(data[0] == 0x41 || data[0] == 0xc1);
	return 0;
}
