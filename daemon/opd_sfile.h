/* The open-sample-file cache. A sample file is one (image, dependent image,
 * event, separation key); the key holds exactly the fields --separate makes
 * significant, the others being OP_SF_ALL, so two samples that must share a
 * file always build the same key.
 *
 * At most max_open files are open (each is an fd and a mapping); the least
 * recently used is closed when a new one is needed, and opened again, with
 * its counts intact, when a sample needs it. A file that cannot be opened
 * (disk full, unwritable directory) stays in the cache marked failed, so its
 * samples are counted as lost (lost_samplefile) without retrying on every
 * sample; it is retried once evicted. Each failure is logged once per file.
 *
 * Ownership: one thread (the daemon's main loop).
 */
#ifndef OPD_SFILE_H
#define OPD_SFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "odb.h"
#include "op_log.h"
#include "op_sessdir.h"
#include "opd_image.h"

/* What goes into a file's name and header for one event index. */
struct opd_event_info {
	char name[64];		/* sample-file event name ("TIMER", ...) */
	unsigned long count;
	unsigned int unit_mask;
	uint32_t event_number;
	uint32_t cpu_type;
};

struct opd_sfile_key {
	const struct opd_image *image;
	const struct opd_image *dep;
	const struct opd_image *cg;	/* an arc file: the callee's image;
					 * NULL for a sample file */
	uint32_t event;
	int tgid, tid, cpu;	/* OP_SF_ALL when not separated */
};

struct opd_sfile {
	struct opd_sfile_key key;
	odb_t db;
	bool failed;			/* open failed: samples are lost */
	bool logged;			/* a failure of this file was logged */
	uint64_t retry_at;		/* failed: CLOCK_MONOTONIC ns of the next try */
	struct opd_sfile *hnext;	/* hash chain */
	struct opd_sfile *lru_prev, *lru_next;	/* prev: more recent */
};

struct opd_sfiles {
	char *dir;			/* samples/current */
	const struct op_sessdir *sd;	/* dir is reached through it */
	const struct opd_event_info *events;	/* indexed by event index */
	uint32_t nr_events;
	double cpu_speed;
	const struct op_logger *log;

	size_t max_open;
	uint64_t retry_ns;		/* a failed open is tried again after this */
	size_t nr_cached;
	struct opd_sfile **buckets;
	size_t nr_buckets;
	struct opd_sfile *lru_head, *lru_tail;	/* head: most recent */

	uint64_t nr_opens;		/* successful opens, re-opens included */
	uint64_t nr_evictions;
	uint64_t nr_open_failures;	/* failed opens, retries included */
	uint64_t nr_lost;		/* samples lost to open or add failures */
	uint64_t nr_lost_arcs;		/* arcs lost so (an arc is no sample) */
};

#define OPD_SFILE_DEFAULT_MAX_OPEN 512
/* A file that failed to open (a full disk, a directory in the way, out of
 * descriptors) is tried again once a second while its samples come: the
 * samples meanwhile are counted lost, those after a recovery are kept. */
#define OPD_SFILE_RETRY_NS 1000000000ULL

/* dir: samples/current (created as needed), under sd (op_sessdir.h); events: nr_events entries,
 * borrowed; max_open 0: the default. Returns 0 or -errno. */
int opd_sfiles_init(struct opd_sfiles *sf, const struct op_sessdir *sd, const char *dir,
		    const struct opd_event_info *events, uint32_t nr_events,
		    double cpu_speed, size_t max_open,
		    const struct op_logger *log);

/* The file for key, opened (or created) if needed and made most recent,
 * for n samples (or arcs). NULL when it cannot be opened: the n are counted
 * lost, the failure logged once; it is tried again after retry_ns. */
struct opd_sfile *opd_sfile_get(struct opd_sfiles *sf,
				const struct opd_sfile_key *key, uint32_t n);

/* Add n at key: a sample's offset, or an arc's (caller offset << 32 |
 * callee offset, as OProfile's daemons key them). A failure counts the n
 * in nr_lost and is logged once per file. Returns true when the count
 * reached the file. */
bool opd_sfile_add(struct opd_sfiles *sf, struct opd_sfile *f, uint64_t key,
		   uint32_t n);

/* msync every open file. Returns 0 or the first -errno. */
int opd_sfiles_sync(struct opd_sfiles *sf);

/* Close every file (they are re-opened on demand). */
void opd_sfiles_close_all(struct opd_sfiles *sf);

/* Close everything and free. */
void opd_sfiles_release(struct opd_sfiles *sf);

#endif /* OPD_SFILE_H */
