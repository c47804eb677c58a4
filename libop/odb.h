/* Sample files: mmap'd hash tables of (offset -> count), one per image,
 * event and separation key, in OProfile 1.x's on-disk layout so that either
 * tool's opreport reads the other's sessions.
 *
 * File layout (x86_64, little endian):
 *   struct odb_header            72 bytes (OProfile 1.x's struct opd_header)
 *   struct odb_descr             32 bytes
 *   struct odb_node[size]        16 bytes each; node 0 is never used
 *   uint32_t bucket[size]        head node index of each bucket, 0 = empty
 * Bucket of a key: t = (key >> 32) ^ (uint32_t)key; (t ^ (t >> 8)) & (size-1).
 *
 * The header: OProfile 1.0 to 1.4 write a 72-byte struct opd_header under
 * version 0x13 (anon_start at 56, cg_to_anon_start at 64). OProfile 0.9.x
 * wrote 88 bytes under version 0x12: spu_profile (u32 at 52),
 * embedded_offset (u64 at 56) and a reserved u32 put anon_start at 64 and
 * cg_to_anon_start at 72. opsampler builds before 2026-11-23 wrote that
 * 88-byte layout under 0x13, which no OProfile reads. We write 0x13/72
 * only. Readers accept all three; the table's offset follows from the header
 * length, which the file length tells apart (see odb_map()). A read-only
 * open of an 88-byte file presents its header converted to the 72-byte
 * struct, so callers see one layout. Opening an 88-byte file for writing is
 * refused (ODB_EOLDFMT): a writer never mixes layouts in one session.
 *
 * Ownership: an odb_t is owned by one thread. The daemon is the only writer
 * of a file; readers open it read-only and may see it grow (they re-open).
 * Counts reach the file through the shared mapping; odb_sync() msyncs, so a
 * crash of the writer loses at most what was added since the last sync and
 * never leaves an inconsistent table: a node is fully written before the
 * current_size and then the bucket head that publish it, and creation and
 * growth build the whole table in a temporary file that is then linked or
 * renamed over the name (odb.c explains the order). A reader holding a file
 * that has since grown keeps a stale but consistent view until it re-opens.
 */
#ifndef ODB_H
#define ODB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_sessdir.h"

#define ODB_MAGIC "DAE\n"
#define ODB_VERSION 0x13		/* OProfile 1.x, 72-byte header */
#define ODB_VERSION_V12 0x12		/* OProfile 0.9.x, 88-byte header */
#define ODB_DEFAULT_NODES 128

/* OProfile cpu_type for timer-interrupt mode (the cpu-clock fallback). */
#define ODB_CPU_TIMER_INT 4

struct odb_header {
	uint8_t magic[4];
	uint32_t version;
	uint32_t cpu_type;
	uint32_t ctr_event;
	uint32_t ctr_um;
	uint32_t ctr_count;
	uint32_t is_kernel;	/* for an arc file: the caller's */
	uint32_t pad0;
	double cpu_speed;
	uint64_t mtime;
	uint32_t cg_to_is_kernel;
	uint32_t pad1;
	uint64_t anon_start;	/* for an arc file: the caller's */
	uint64_t cg_to_anon_start;
};

/* OProfile 0.9.x's header (version 0x12), read only. */
struct odb_header_v12 {
	uint8_t magic[4];
	uint32_t version;
	uint32_t cpu_type;
	uint32_t ctr_event;
	uint32_t ctr_um;
	uint32_t ctr_count;
	uint32_t is_kernel;
	uint32_t pad0;
	double cpu_speed;
	uint64_t mtime;
	uint32_t cg_to_is_kernel;
	uint32_t spu_profile;
	uint64_t embedded_offset;
	uint64_t anon_start;
	uint64_t cg_to_anon_start;
	uint32_t reserved1[1];
	uint32_t pad1;
};

struct odb_descr {
	uint32_t size;		/* nodes, a power of two */
	uint32_t current_size;	/* used nodes + 1 (node 0 unused) */
	uint32_t padding[6];
};

struct odb_node {
	uint64_t key;
	uint32_t value;
	uint32_t next;
};

_Static_assert(sizeof(struct odb_header) == 72, "odb_header is 72 bytes");
_Static_assert(offsetof(struct odb_header, cpu_speed) == 32, "cpu_speed at 32");
_Static_assert(offsetof(struct odb_header, mtime) == 40, "mtime at 40");
_Static_assert(offsetof(struct odb_header, cg_to_is_kernel) == 48, "cg_to_is_kernel at 48");
_Static_assert(offsetof(struct odb_header, anon_start) == 56, "anon_start at 56");
_Static_assert(offsetof(struct odb_header, cg_to_anon_start) == 64, "cg_to_anon_start at 64");
_Static_assert(sizeof(struct odb_header_v12) == 88, "odb_header_v12 is 88 bytes");
_Static_assert(offsetof(struct odb_header_v12, anon_start) == 64, "v12 anon_start at 64");
_Static_assert(offsetof(struct odb_header_v12, cg_to_anon_start) == 72, "v12 cg_to_anon_start at 72");
_Static_assert(sizeof(struct odb_descr) == 32, "odb_descr is 32 bytes");
_Static_assert(sizeof(struct odb_node) == 16, "odb_node is 16 bytes");

enum odb_rw {
	ODB_RDONLY,
	ODB_RDWR,	/* creates the file if missing */
};

/* Format errors, returned negated like errnos; past the errno range. */
enum odb_error {
	ODB_EMAGIC = 4096,	/* not a sample file */
	ODB_EVERSION,		/* unsupported version */
	ODB_ETRUNC,		/* file size does not match the table size */
	ODB_ESIZE,		/* size not a power of two, or current_size > size */
	ODB_ECHAIN,		/* a bucket or next index out of range, or a loop */
	ODB_EOLDFMT,		/* an 88-byte header opened for writing */
};

typedef struct odb {
	int fd;
	bool writable;
	void *base;			/* the whole mapping */
	size_t map_len;
	struct odb_header *header;	/* inside base, or &old_header */
	struct odb_header old_header;	/* an 88-byte header, converted */
	uint32_t header_len;		/* on disk: 72, or 88 for old files */
	struct odb_descr *descr;	/* inside base */
	struct odb_node *nodes;		/* inside base */
	uint32_t *buckets;		/* inside base */
	uint32_t mask;			/* descr->size - 1 */
	char *path;			/* malloc'd copy: growth renames over it */
	const struct op_sessdir *sd;	/* the caller's, outlives db */
} odb_t;

/* Open (and for ODB_RDWR create) a sample file. A new file gets a zeroed
 * 72-byte header with magic and version set, ODB_DEFAULT_NODES nodes.
 * Validates the magic, version, size, current_size and (read-only) every
 * chain index. An 88-byte file (OProfile 0.9's, or an opsampler one from
 * before the 72-byte header) opens read-only with db->header converted.
 * path is reached through sd (op_sessdir.h: beneath the session, no link
 * followed; NULL for a file of no session), and so are the temporaries of
 * creation and growth. Returns 0, -errno (-ELOOP: a link on the way,
 * refused), or -ODB_E*; on failure db is left closed. */
int odb_open(odb_t *db, const struct op_sessdir *sd, const char *path, enum odb_rw rw);

/* Add n to key's count; grows the file when it is full. On overflow of the
 * u32 count a second node with the same key is started. Returns 0 or -errno
 * (the count is then not added: the caller counts it as lost).
 * Growth maps a new file: db->base, header, descr, nodes and buckets change,
 * so never keep those pointers across a call to odb_add(); set header fields
 * through db->header right after odb_open(). Growth leaves a hidden
 * ".odbtmp.XXXXXX" beside the file only if the writer is killed mid-copy;
 * op_sfname_parse() refuses that name, so readers skip it. */
int odb_add(odb_t *db, uint64_t key, uint32_t n);

/* Total count for key (summing duplicate nodes); 0 if absent. */
uint64_t odb_get(const odb_t *db, uint64_t key);

/* Calls fn once per distinct key, with the summed count, in no particular
 * order. Stops and returns fn's value when fn returns non-zero. */
typedef int (*odb_iter_fn)(uint64_t key, uint64_t count, void *ctx);
int odb_for_each(const odb_t *db, odb_iter_fn fn, void *ctx);

/* Number of distinct nodes in use (current_size - 1). */
uint32_t odb_nr_nodes(const odb_t *db);

/* msync the mapping (MS_SYNC). Returns 0 or -errno. */
int odb_sync(odb_t *db);

/* Unmap and close; safe on a closed or zeroed odb_t. */
void odb_close(odb_t *db);

/* Message for 0, -errno or -ODB_E*. */
const char *odb_strerror(int err);

#endif /* ODB_H */
