/* Sample files: the daemon adds one to a count per sample, millions of times
 * a second, so the table lives in a shared file mapping and the hot path of
 * odb_add() is a hash, a short chain walk and an increment: no syscall, no
 * lock, no allocation. The layout is OProfile 1.x's (see odb.h) so that its
 * opreport reads our sessions and ours reads its.
 *
 * Crash safety (the writer may be killed with SIGKILL at any instant; the
 * page cache keeps what was written through the mapping, so what matters is
 * the order of the stores):
 *
 * - Adding a node: the node at index current_size is written fully (key,
 *   value, next = the bucket's head), then current_size is bumped (release),
 *   then the bucket head is pointed at the node (release). A kill between the
 *   last two leaves a node that is counted by readers (they scan nodes
 *   1..current_size-1) but reachable from no bucket; the writer will then
 *   start a second node for that key, and readers sum nodes with one key,
 *   so no count is lost or doubled. Linking before bumping would leave a
 *   bucket head >= current_size, which odb_open must refuse.
 *
 * - Creating and growing: a file is never resized in place. The new table
 *   (header, descriptor, nodes, buckets rebuilt for the new mask) is written
 *   into a temporary file in the same directory, which is then linked
 *   (create) or renamed (grow) over the final name. The name therefore always
 *   names a complete, valid table: the old one or the new one. In-place
 *   ftruncate + mremap, as OProfile does it, cannot be made safe: between the
 *   ftruncate and the store of the new size the file size disagrees with the
 *   descriptor, and the rebuild rewrites the next links the old table's
 *   chains depend on. Doubling keeps the copy amortised O(1) per node, and
 *   the copy lays the nodes out bucket by bucket (see odb_fill()). A kill
 *   during the copy leaves a hidden ".odbtmp.XXXXXX" file beside the sample
 *   file; it is not a sample-file name and readers skip it.
 *
 * Readers map the file read-only. A reader that raced a growth still holds
 * the old inode, which the writer never touches again: its view is stale but
 * consistent, and re-opening picks up the new table. All reader-side index
 * loads are bounds-checked against the size validated at open, so even a
 * file modified under us by someone else cannot make us read outside the
 * mapping.
 */
#include "config.h"
#include "odb.h"
#include "op_afile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest table we create or accept: 2^28 nodes is a 5 GiB file. */
#define ODB_MAX_NODES (1u << 28)
#define ODB_HEADER_LEN sizeof(struct odb_header)
#define ODB_HEADER_LEN_V12 sizeof(struct odb_header_v12)

static inline uint32_t odb_hash(uint64_t key, uint32_t mask)
{
	uint32_t t = (uint32_t)(key >> 32) ^ (uint32_t)key;

	return (t ^ (t >> 8)) & mask;
}

static inline uint64_t odb_file_len(uint32_t size, uint32_t header_len)
{
	return header_len + sizeof(struct odb_descr) +
	       (uint64_t)size * (sizeof(struct odb_node) + sizeof(uint32_t));
}

static void odb_set_pointers(odb_t *db, void *base, size_t len, uint32_t size,
			     uint32_t header_len)
{
	char *descr = (char *)base + header_len;

	db->base = base;
	db->map_len = len;
	db->header_len = header_len;
	db->header = base;
	db->descr = (struct odb_descr *)descr;
	db->nodes = (struct odb_node *)(descr + sizeof(struct odb_descr));
	db->buckets = (uint32_t *)(db->nodes + size);
	db->mask = size - 1;
}

/* current_size as seen by a reader, clamped to the validated size. */
static inline uint32_t odb_cur(const odb_t *db)
{
	uint32_t cur;

	/* pairs with the release store in odb_new_node() */
	cur = __atomic_load_n(&db->descr->current_size, __ATOMIC_ACQUIRE);
	if (cur > db->mask + 1)
		cur = db->mask + 1;
	return cur;
}

const char *odb_strerror(int err)
{
	switch (-err) {
	case 0:
		return "success";
	case ODB_EMAGIC:
		return "bad magic: not a sample file";
	case ODB_EVERSION:
		return "unsupported sample file version";
	case ODB_ETRUNC:
		return "file size does not match the table size (truncated or corrupt)";
	case ODB_ESIZE:
		return "corrupt table size";
	case ODB_ECHAIN:
		return "corrupt hash chain";
	case ODB_EOLDFMT:
		return "88-byte header of an older format: read-only";
	default:
		return err < 0 ? strerror(-err) : "unknown error";
	}
}

/* Check every chain of a mapped table of `size` nodes. Every bucket head
 * and every next link of a used node must be below current_size, every
 * node must sit in its key's bucket, and no node may be reached twice
 * (that is a loop or two chains sharing a tail: a key lives in one bucket
 * only). A used node in no chain is what a writer killed inside
 * odb_new_node() leaves (current_size is published before the bucket
 * head): its count is real, readers of the nodes count it, and a writable
 * open links it into its bucket so that odb_get() and odb_add() see it
 * too. O(size). */
static int odb_check_chains(odb_t *db, uint32_t size, uint32_t cur)
{
	uint8_t *seen;
	uint32_t b, i;
	int ret = 0;

	seen = calloc(size / 8 + 1, 1);
	if (!seen)
		return -ENOMEM;
	for (b = 0; b < size && !ret; b++) {
		/* pairs with the release store of the head in odb_new_node() */
		i = __atomic_load_n(&db->buckets[b], __ATOMIC_ACQUIRE);
		/* a live writer raised current_size before it pointed this
		 * head at the new node: read after the head, it covers it */
		if (i >= cur && !db->writable)
			cur = odb_cur(db);
		while (i) {
			if (i >= cur || (seen[i / 8] & (1u << (i % 8))) ||
			    odb_hash(db->nodes[i].key, size - 1) != b) {
				ret = -ODB_ECHAIN;
				break;
			}
			seen[i / 8] |= 1u << (i % 8);
			i = db->nodes[i].next;
		}
	}
	for (i = 1; !ret && db->writable && i < cur; i++) {
		uint32_t *head;

		if (seen[i / 8] & (1u << (i % 8)))
			continue;
		head = &db->buckets[odb_hash(db->nodes[i].key, size - 1)];
		db->nodes[i].next = *head;
		*head = i;
	}
	free(seen);
	return ret;
}

/* Validate a descriptor for a table behind a header_len-byte header in a
 * file of file_len bytes. */
static int odb_check_descr(const struct odb_descr *d, uint32_t header_len,
			   uint64_t file_len)
{
	if (d->size == 0 || (d->size & (d->size - 1)) || d->size > ODB_MAX_NODES)
		return -ODB_ESIZE;
	if (d->current_size < 1 || d->current_size > d->size)
		return -ODB_ESIZE;
	if (file_len != odb_file_len(d->size, header_len))
		return -ODB_ETRUNC;
	return 0;
}

/* The length of the header in front of the table, from the first bytes of
 * the file: 88 under 0x12; under 0x13, 72 as OProfile 1.x writes it, or 88
 * as opsampler wrote it before, told apart by the file length (72 + 32 +
 * 20 * size and 88 + 32 + 20 * size' never coincide: 16 is no multiple of
 * 20, so at most one layout is valid). *d gets the descriptor behind it.
 * 0 or a negative error. */
static int odb_probe_header(int fd, uint64_t file_len, uint32_t *header_len,
			    struct odb_descr *d)
{
	uint8_t buf[ODB_HEADER_LEN_V12 + sizeof(*d)];
	struct odb_header h;
	ssize_t n;
	int ret;

	n = pread(fd, buf, sizeof(buf), 0);
	if (n < 0)
		return -errno;
	if ((size_t)n < sizeof(h.magic))
		return -ODB_ETRUNC;
	if (memcmp(buf, ODB_MAGIC, 4))
		return -ODB_EMAGIC;
	if ((size_t)n < ODB_HEADER_LEN + sizeof(*d))
		return -ODB_ETRUNC;
	memcpy(&h, buf, sizeof(h));
	if (h.version != ODB_VERSION && h.version != ODB_VERSION_V12)
		return -ODB_EVERSION;
	if (h.version == ODB_VERSION) {
		memcpy(d, buf + ODB_HEADER_LEN, sizeof(*d));
		*header_len = ODB_HEADER_LEN;
		ret = odb_check_descr(d, ODB_HEADER_LEN, file_len);
		if (!ret)
			return 0;
	}
	/* 0x12, or 0x13 that is no valid 72-byte layout (whose "descriptor"
	 * is then the old header's anon starts): a 0x13 file is taken as 88
	 * bytes only when that layout is wholly valid, else the 72-byte
	 * layout's error stands */
	if ((size_t)n < sizeof(buf))
		return -ODB_ETRUNC;
	if (h.version == ODB_VERSION) {
		struct odb_descr d88;

		memcpy(&d88, buf + ODB_HEADER_LEN_V12, sizeof(d88));
		if (odb_check_descr(&d88, ODB_HEADER_LEN_V12, file_len))
			return ret;
		*d = d88;
	} else {
		memcpy(d, buf + ODB_HEADER_LEN_V12, sizeof(*d));
	}
	*header_len = ODB_HEADER_LEN_V12;
	return odb_check_descr(d, ODB_HEADER_LEN_V12, file_len);
}

/* An 88-byte header seen as the 72-byte one: the fields up to
 * cg_to_is_kernel sit at the same offsets, the anon starts 8 bytes later. */
static void odb_convert_v12(struct odb_header *to, const struct odb_header_v12 *from)
{
	memcpy(to, from, offsetof(struct odb_header, pad1));
	to->pad1 = 0;
	to->anon_start = from->anon_start;
	to->cg_to_anon_start = from->cg_to_anon_start;
}

/* Map an open file and validate it. */
static int odb_map(odb_t *db)
{
	uint32_t header_len = 0;
	struct odb_descr d = { 0 };
	struct stat st;
	void *base;
	int ret;

	if (fstat(db->fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	ret = odb_probe_header(db->fd, (uint64_t)st.st_size, &header_len, &d);
	if (ret)
		return ret;
	if (header_len != ODB_HEADER_LEN && db->writable)
		return -ODB_EOLDFMT;

	base = mmap(NULL, st.st_size, db->writable ? PROT_READ | PROT_WRITE : PROT_READ,
		    MAP_SHARED, db->fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	odb_set_pointers(db, base, st.st_size, d.size, header_len);
	/* Re-check what we validated through pread on the mapping itself, and
	 * use the mapping's values from now on. */
	ret = odb_check_descr(db->descr, header_len, (uint64_t)st.st_size);
	if (!ret && db->descr->size != d.size)
		ret = -ODB_ESIZE;
	if (!ret)
		ret = odb_check_chains(db, d.size, db->descr->current_size);
	if (ret) {
		munmap(base, st.st_size);
		db->base = NULL;
		return ret;
	}
	if (header_len != ODB_HEADER_LEN) {
		odb_convert_v12(&db->old_header, base);
		db->header = &db->old_header;
	}
	return 0;
}

/* Create a temporary file beside path; *tmp gets its malloc'd name. */
static int odb_tmp_open(const struct op_sessdir *sd, const char *path, char **tmp)
{
	int fd = op_tmp_beside(sd, path, "odbtmp", tmp);

	if (fd >= 0 && fchmod(fd, 0644)) {
		int err = -errno;

		close(fd);
		op_sd_unlink(sd, *tmp);
		free(*tmp);
		*tmp = NULL;
		return err;
	}
	return fd;
}

/* Fill the freshly sized, mapped table `to` (size nodes) from `from` (or
 * from nothing): header copied, then the nodes laid out bucket by bucket (a
 * counting sort on the new bucket index, stable, so duplicates of a key keep
 * their order), each bucket's chain running through consecutive nodes. A
 * lookup then costs one miss for the bucket head and one for the chain
 * instead of one per node: with 10^6 random keys this is most of the cost.
 * The bucket array of the new file doubles as the counting array. */
static void odb_fill(odb_t *to, const odb_t *from, uint32_t size)
{
	uint32_t cur = from ? odb_cur(from) : 1;
	uint32_t mask = size - 1;
	uint32_t *count = to->buckets;	/* zero: fresh from ftruncate */
	uint32_t i, b, pos;

	if (!from) {
		memcpy(to->header->magic, ODB_MAGIC, 4);
		to->header->version = ODB_VERSION;
		to->descr->size = size;
		to->descr->current_size = 1;
		return;
	}
	memcpy(to->header, from->header, sizeof(*to->header));
	for (i = 1; i < cur; i++)
		count[odb_hash(from->nodes[i].key, mask)]++;
	/* count[b] becomes the first index of bucket b's run */
	for (b = 0, pos = 1; b < size; b++) {
		uint32_t n = count[b];

		count[b] = pos;
		pos += n;
	}
	for (i = 1; i < cur; i++) {
		const struct odb_node *src = &from->nodes[i];

		b = odb_hash(src->key, mask);
		to->nodes[count[b]].key = src->key;
		to->nodes[count[b]].value = src->value;
		count[b]++;
	}
	/* count[b] is now one past bucket b's run, which starts where bucket
	 * b-1's run ended */
	for (b = 0, pos = 1; b < size; b++) {
		uint32_t end = count[b];

		if (end == pos) {
			to->buckets[b] = 0;
			continue;
		}
		to->buckets[b] = pos;
		for (i = pos; i + 1 < end; i++)
			to->nodes[i].next = i + 1;
		to->nodes[end - 1].next = 0;
		pos = end;
	}
	to->descr->size = size;
	to->descr->current_size = cur;
}

/* Write a complete table of `size` nodes (empty, or the content of `from`)
 * into a new temporary file beside path and map it read-write into *to.
 * *tmp gets the temporary file's name for the caller to publish. */
static int odb_build(odb_t *to, const odb_t *from, const struct op_sessdir *sd,
		     const char *path, uint32_t size, char **tmp)
{
	uint64_t len = odb_file_len(size, ODB_HEADER_LEN);
	void *base;
	int fd, ret;

	if (size > ODB_MAX_NODES || len > SIZE_MAX)
		return -EFBIG;
	fd = odb_tmp_open(sd, path, tmp);
	if (fd < 0)
		return fd;
	/* Allocate the blocks now: a store through the mapping into a hole
	 * on a full disk is a SIGBUS, an fallocate failure is an -ENOSPC we
	 * can report. It also spares the first store to each page the block
	 * allocation. File systems without fallocate get a sparse file. */
	if (fallocate(fd, 0, 0, (off_t)len)) {
		ret = -errno;
		if (ret != -EOPNOTSUPP && ret != -ENOSYS)
			goto err_file;
		if (ftruncate(fd, (off_t)len)) {
			ret = -errno;
			goto err_file;
		}
	}
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		ret = -errno;
		goto err_file;
	}
	to->fd = fd;
	to->writable = true;
	odb_set_pointers(to, base, len, size, ODB_HEADER_LEN);
	odb_fill(to, from, size);
	return 0;

err_file:
	close(fd);
	op_sd_unlink(sd, *tmp);
	free(*tmp);
	*tmp = NULL;
	return ret;
}

static void odb_unmap(odb_t *db)
{
	if (db->base)
		munmap(db->base, db->map_len);
	if (db->fd >= 0)
		close(db->fd);
	db->base = NULL;
	db->fd = -1;
}

/* Create path with an empty table. -EEXIST when it appeared meanwhile. */
static int odb_create(odb_t *db, const char *path)
{
	char *tmp;
	int ret;

	ret = odb_build(db, NULL, db->sd, path, ODB_DEFAULT_NODES, &tmp);
	if (ret)
		return ret;
	/* link, not rename: never replace a file someone else just created */
	ret = op_sd_link(db->sd, tmp, path);
	op_sd_unlink(db->sd, tmp);
	free(tmp);
	if (ret)
		odb_unmap(db);
	return ret;
}

int odb_open(odb_t *db, const struct op_sessdir *sd, const char *path, enum odb_rw rw)
{
	int ret, tries;

	memset(db, 0, sizeof(*db));
	db->fd = -1;
	db->sd = sd;
	db->writable = rw == ODB_RDWR;
	if (!path || !*path) {
		ret = -EINVAL;
		goto err_out;
	}
	db->path = strdup(path);
	if (!db->path) {
		ret = -ENOMEM;
		goto err_out;
	}
	for (tries = 0; tries < 4; tries++) {
		/* O_NONBLOCK: a FIFO planted where a sample file should be
		 * must be refused, not waited on (odb_map checks S_ISREG) */
		db->fd = op_sd_open(sd, path, (db->writable ? O_RDWR : O_RDONLY) | O_NONBLOCK, 0);
		if (db->fd >= 0)
			break;
		ret = db->fd;
		if (ret != -ENOENT || !db->writable)
			goto err_path;
		ret = odb_create(db, path);
		if (ret == 0)
			return 0;
		if (ret != -EEXIST)
			goto err_path;
	}
	if (db->fd < 0)
		goto err_path;
	ret = odb_map(db);
	if (ret)
		goto err_fd;
	return 0;

err_fd:
	close(db->fd);
err_path:
	free(db->path);
err_out:
	memset(db, 0, sizeof(*db));
	db->fd = -1;
	return ret;
}

/* Double the table: build the grown copy beside the file, rename it over,
 * then switch our mapping to it. On failure the old table stays in use. */
static int odb_grow(odb_t *db)
{
	uint32_t size = db->mask + 1;
	odb_t grown;
	char *tmp;
	int ret;

	if (size >= ODB_MAX_NODES)
		return -EFBIG;
	memset(&grown, 0, sizeof(grown));
	ret = odb_build(&grown, db, db->sd, db->path, size * 2, &tmp);
	if (ret)
		return ret;
	ret = op_sd_rename(db->sd, tmp, db->path, 0);
	if (ret) {
		op_sd_unlink(db->sd, tmp);
		free(tmp);
		odb_unmap(&grown);
		return ret;
	}
	free(tmp);
	grown.path = db->path;
	grown.sd = db->sd;
	odb_unmap(db);
	*db = grown;
	return 0;
}

/* Append a node for key with count n and link it; the slow path of
 * odb_add(). The store order is the crash-safety argument at the top. */
static int odb_new_node(odb_t *db, uint64_t key, uint32_t n)
{
	struct odb_node *node;
	uint32_t *head, idx;
	int ret;

	idx = db->descr->current_size;
	if (idx > db->mask) {
		ret = odb_grow(db);
		if (ret)
			return ret;
		idx = db->descr->current_size;
	}
	head = &db->buckets[odb_hash(key, db->mask)];
	node = &db->nodes[idx];
	node->key = key;
	node->value = n;
	node->next = *head;
	/* publish the node to readers scanning up to current_size; pairs with
	 * the acquire load in odb_cur() */
	__atomic_store_n(&db->descr->current_size, idx + 1, __ATOMIC_RELEASE);
	__atomic_store_n(head, idx, __ATOMIC_RELEASE);
	return 0;
}

int odb_add(odb_t *db, uint64_t key, uint32_t n)
{
	uint32_t i = db->buckets[odb_hash(key, db->mask)];
	uint32_t cur = db->descr->current_size, steps = 0;

	while (i) {
		struct odb_node *node = &db->nodes[i];

		/* a damaged file: a link past the used nodes (which odb_get()
		 * would not count) or a loop */
		if (__builtin_expect(i > db->mask || i >= cur || ++steps > cur, 0))
			return -EIO;
		if (node->key == key &&
		    __builtin_expect(node->value <= UINT32_MAX - n, 1)) {
			node->value += n;
			return 0;
		}
		/* a full node for key: a later one may have room; if none
		 * has, odb_new_node() starts one */
		i = node->next;
	}
	if (n == 0)
		return 0;
	return odb_new_node(db, key, n);
}

uint64_t odb_get(const odb_t *db, uint64_t key)
{
	uint32_t cur = odb_cur(db);
	uint32_t i, steps = 0;
	uint64_t sum = 0;

	/* pairs with the release store of the head in odb_new_node() */
	i = __atomic_load_n(&db->buckets[odb_hash(key, db->mask)], __ATOMIC_ACQUIRE);
	while (i && i < cur && steps++ < cur) {
		if (db->nodes[i].key == key)
			sum += db->nodes[i].value;
		i = db->nodes[i].next;
	}
	return sum;
}

struct odb_kv {
	uint64_t key;
	uint64_t count;
};

static int odb_kv_cmp(const void *a, const void *b)
{
	const struct odb_kv *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

int odb_for_each(const odb_t *db, odb_iter_fn fn, void *ctx)
{
	uint32_t cur = odb_cur(db);
	struct odb_kv *kv;
	size_t nr = 0, i;
	int ret = 0;

	if (cur <= 1)
		return 0;
	kv = malloc((size_t)(cur - 1) * sizeof(*kv));
	if (!kv)
		return -ENOMEM;
	/* a snapshot: the writer may keep adding to the mapping meanwhile */
	for (i = 1; i < cur; i++) {
		kv[nr].key = db->nodes[i].key;
		kv[nr].count = db->nodes[i].value;
		nr++;
	}
	qsort(kv, nr, sizeof(*kv), odb_kv_cmp);
	for (i = 0; i < nr && !ret; ) {
		uint64_t key = kv[i].key, count = 0;

		while (i < nr && kv[i].key == key)
			count += kv[i++].count;
		ret = fn(key, count, ctx);
	}
	free(kv);
	return ret;
}

uint32_t odb_nr_nodes(const odb_t *db)
{
	return db->base ? odb_cur(db) - 1 : 0;
}

int odb_sync(odb_t *db)
{
	if (!db->base)
		return -EBADF;
	return msync(db->base, db->map_len, MS_SYNC) ? -errno : 0;
}

void odb_close(odb_t *db)
{
	if (!db)
		return;
	if (db->base)
		munmap(db->base, db->map_len);
	if (db->fd > 0 || (db->fd == 0 && db->base))
		close(db->fd);
	free(db->path);
	memset(db, 0, sizeof(*db));
	db->fd = -1;
}
