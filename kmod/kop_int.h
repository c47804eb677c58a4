/* kmod internals: the stages of the pipeline and the session that ties
 * them together. Not part of the daemon's interface (that is kop.h); the
 * tests and the benchmark include it to reach the stages directly.
 *
 * Stages, one file each:
 *   kop_perf.c     the real kop_source_ops (perf_event_open, mmap, ioctl)
 *   kop_ring.c     reading one perf ring (head acquire / tail release)
 *   kop_dcookie.c  session-stable ids of images
 *   kop_task.c     per-process mapping tables, retired at exit/exec
 *   kop_evbuf.c    the event buffer the daemon reads
 *   kop_sync.c     the sync thread: rings -> task table -> event buffer
 *   kop_session.c  lifecycle, stats
 *
 * Lock order (outer first): s->sync_lock, evbuf->lock, dcookies->lock,
 * s->stats_lock. No stage calls back into another while holding its own
 * lock except the sync thread writing the event buffer.
 */
#ifndef KOP_INT_H
#define KOP_INT_H

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kop.h"
#include "op_kernel.h"
#include "op_log.h"

/* The sample layout every ring carries (PERF_SAMPLE_IP|TID|TIME) and the
 * sample_id trailer of other records (TID|TIME). No more than that: every
 * byte is written by the kernel in the sampled task's interrupt and read
 * by the sync thread from memory another CPU wrote. Each ring is one
 * CPU's, so no CPU field; a sample counts one whatever its period, so no
 * PERIOD. */
#define KOP_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

struct kop_sample_rec {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
};
_Static_assert(sizeof(struct kop_sample_rec) == 32, "sample record layout");

/* the sample_id_all trailer of the other records, for the same type */
struct kop_sample_id {
	uint32_t pid, tid;
	uint64_t time;
};
_Static_assert(sizeof(struct kop_sample_id) == 16, "sample_id layout");

/* The ring's event index for the per-CPU side-band ring: a dummy
 * software event that carries MMAP2, COMM, FORK and EXIT and wakes the
 * sync thread on each record, so an exit or exec is synced at once. */
#define KOP_SIDEBAND UINT32_MAX

/* ---- kop_ring.c ---------------------------------------------------- */

/* One mmap'd perf ring. The kernel is the producer, the sync thread the
 * only consumer. */
struct kop_ring {
	struct perf_event_mmap_page *pg;
	unsigned char *data;
	uint64_t size;		/* data area bytes, a power of two */
	uint64_t head;		/* snapshot of data_head; owner: sync thread */
	uint64_t tail;		/* consumed up to here; owner: sync thread */
	unsigned char *copy;	/* a record that wraps the end, copied out */
	int cpu;
	unsigned int event;	/* index in kop_config.events; KOP_SIDEBAND */
	bool sideband;		/* the per-CPU dummy event's ring */
	int handle;
	void *base;
	size_t len;
};

/* base/len: the whole mapping (user page + data). 0 or -errno. */
int kop_ring_init(struct kop_ring *r, void *base, size_t len);
void kop_ring_release(struct kop_ring *r);
/* Snapshot data_head (load-acquire). */
void kop_ring_snapshot(struct kop_ring *r);
/* The record at r->tail, or NULL when r->tail == r->head. *bad is set when
 * the header is impossible (size too small, past head): the caller counts
 * it and calls kop_ring_skip_all(). */
const struct perf_event_header *kop_ring_peek(struct kop_ring *r, bool *bad);
/* kop_ring_peek() for the common case, a whole record that does not wrap;
 * anything else goes the slow way. */
static inline const struct perf_event_header *kop_ring_peek_fast(struct kop_ring *r,
								 bool *bad)
{
	uint64_t avail = r->head - r->tail, off = r->tail & (r->size - 1);
	const struct perf_event_header *h = (const void *)(r->data + off);

	if (avail >= sizeof(*h) && avail <= r->size && !(off & 7) &&
	    off + sizeof(*h) <= r->size && h->size >= sizeof(*h) &&
	    !(h->size & 7) && h->size <= avail && off + h->size <= r->size) {
		*bad = false;
		return h;
	}
	return kop_ring_peek(r, bad);
}
static inline void kop_ring_consume(struct kop_ring *r, uint16_t size)
{
	r->tail += size;
}
void kop_ring_skip_all(struct kop_ring *r);
/* Hand consumed space back to the kernel (store-release of data_tail). */
void kop_ring_publish_tail(struct kop_ring *r);

/* ---- kop_dcookie.c ------------------------------------------------- */

struct kop_dcookie;

/* Session-stable ids. Created by the sync thread (and session start),
 * looked up from any thread: everything below is protected by lock. */
struct kop_dcookies {
	pthread_mutex_t lock;
	struct kop_dcookie **by_cookie;	/* cookie c at by_cookie[c - 1] */
	size_t nr, cap;
	struct kop_dcookie **buckets;	/* file cookies by path hash */
	size_t nr_buckets;
};

int kop_dcookies_init(struct kop_dcookies *dc);
void kop_dcookies_release(struct kop_dcookies *dc);
/* The cookie of a file, created on first use. dev/ino 0 and bid_size 0
 * mean unknown. Returns OP_NO_COOKIE when out of memory. */
uint64_t kop_dcookie_file(struct kop_dcookies *dc, const char *path,
			  dev_t dev, ino_t ino, const uint8_t *bid,
			  uint8_t bid_size);
/* A new cookie for an anonymous region of tgid. */
uint64_t kop_dcookie_anon(struct kop_dcookies *dc, const char *name,
			  pid_t tgid, uint64_t start, uint64_t end);
int kop_dcookies_lookup(struct kop_dcookies *dc, uint64_t cookie,
			struct kop_dcookie_info *info);
size_t kop_dcookies_count(struct kop_dcookies *dc);

/* ---- kop_task.c ---------------------------------------------------- */

/* One mapping: [start, end) of an image at file offset pgoff. */
struct kop_map {
	uint64_t start, end, pgoff;
	uint64_t cookie;
};
/* An anonymous mapping has KOP_MAP_ANON set in pgoff (no file offset
 * reaches bit 63); the rest of pgoff is the offset from the region's start
 * as its cookie names it, so a sample offset is pc - start + pgoff either
 * way. */
#define KOP_MAP_ANON (1ULL << 63)

struct kop_task {
	pid_t tgid;
	bool unknown;		/* no /proc entry: samples cannot be attributed */
	bool app_pending;	/* exec seen: next file mapping is the executable */
	uint64_t app_cookie;	/* OP_NO_COOKIE: kernel thread or unknown */
	uint64_t anon_cookie;	/* "anon" fallback for pcs in no mapping; lazy */
	uint64_t since;		/* time this mapping table started (exec, fork) */
	uint64_t retired_at;	/* retired tables: exit/exec time */
	struct kop_map *maps;	/* sorted by start, non-overlapping */
	uint64_t *starts;	/* maps[i].start, for the search */
	size_t nr_maps, cap_maps;
	size_t last;		/* index of the last lookup's hit */
	struct kop_task *next;	/* hash chain, or retired list */
};

/* Owner: the sync thread (and session start before it runs). */
struct kop_tasks {
	struct kop_task **buckets;
	size_t nr_buckets, nr;
	struct kop_task *retired;	/* newest first */
	size_t nr_retired;
};

int kop_tasks_init(struct kop_tasks *t);
void kop_tasks_release(struct kop_tasks *t);
struct kop_task *kop_task_find(struct kop_tasks *t, pid_t tgid);
struct kop_task *kop_task_new(struct kop_tasks *t, pid_t tgid);
/* Insert a mapping, replacing whatever overlapped it (munmap is not
 * reported; a new mapping over old addresses is). 0 or -ENOMEM. */
int kop_task_map(struct kop_task *k, uint64_t start, uint64_t end,
		 uint64_t pgoff, uint64_t cookie);
/* The mapping containing pc, or NULL. Branch-free binary search over
 * the separate starts[] array: with random pcs a branchy search
 * mispredicts at every level, and starts[] is a quarter the size of maps[]
 * in cache. The last hit is tried first (a hot loop stays in one map). */
static inline const struct kop_map *kop_task_lookup(struct kop_task *k,
						    uint64_t pc)
{
	const uint64_t *base = k->starts;
	size_t n = k->nr_maps, i;

	if (k->last < n && pc >= k->maps[k->last].start &&
	    pc < k->maps[k->last].end)
		return &k->maps[k->last];
	if (!n)
		return NULL;
	while (n > 1) {
		size_t half = n / 2;

		base = base[half] <= pc ? base + half : base;
		n -= half;
	}
	i = (size_t)(base - k->starts);
	if (pc < k->maps[i].start || pc >= k->maps[i].end)
		return NULL;
	k->last = i;
	return &k->maps[i];
}
/* Move k's mapping table to the retired list as of time (exec); k keeps
 * its tgid with an empty table. 0 or -ENOMEM. */
int kop_task_retire_maps(struct kop_tasks *t, struct kop_task *k,
			 uint64_t time);
/* Remove k from the table onto the retired list (exit). */
void kop_task_exit(struct kop_tasks *t, struct kop_task *k, uint64_t time);
/* The retired table of tgid that was live at time, or NULL. */
struct kop_task *kop_task_retired_at(struct kop_tasks *t, pid_t tgid,
				     uint64_t time);
/* Free retired tables retired at or before time. */
void kop_tasks_free_retired(struct kop_tasks *t, uint64_t time);
/* Copy parent's mappings into child (fork). 0 or -ENOMEM. */
int kop_task_copy_maps(struct kop_task *child, const struct kop_task *parent);
/* Fill k from PROC_ROOT/PID/maps (executable mappings) and PID/exe.
 * 0, -ENOENT (gone), -ENOMEM. */
int kop_task_read_proc(struct kop_task *k, const char *proc_root,
		       struct kop_dcookies *dc, const struct op_logger *lg);
/* Bytes held by one task's table (the benchmark's memory figure). */
size_t kop_task_bytes(const struct kop_task *k);
/* True for names perf and /proc give anonymous regions. */
bool kop_name_is_anon(const char *name);
/* A program run from a memfd (fexecve, as container runtimes do): its
 * executable is the memfd, an anonymous mapping by kop_name_is_anon(), but
 * still the process's application, named by that path as
 * /proc/PID/exe names it. */
bool kop_name_is_memfd(const char *name);

/* ---- kop_evbuf.c --------------------------------------------------- */

/* The event buffer: the sync thread writes whole sequences under lock,
 * the daemon's reader copies them out under lock. */
struct kop_evbuf {
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* reader waits: watershed, sync end, stop */
	uint64_t *words;	/* protected by lock */
	size_t size, watershed;
	size_t rd, wr;		/* protected by lock: words[rd, wr) unread */
	uint64_t gen;		/* syncs ended; protected by lock */
	uint64_t seen_gen;	/* reader's last gen; protected by lock */
	bool stopped;		/* protected by lock */
};

int kop_evbuf_init(struct kop_evbuf *b, size_t size, size_t watershed);
void kop_evbuf_release(struct kop_evbuf *b);
/* With lock held: make room for n words; false when they do not fit. */
static inline bool kop_evbuf_room(struct kop_evbuf *b, size_t n)
{
	if (b->size - b->wr >= n)
		return true;
	if (b->size - (b->wr - b->rd) < n)
		return false;
	/* compact: the reader is not inside (it holds lock to read) */
	for (size_t i = b->rd; i < b->wr; i++)
		b->words[i - b->rd] = b->words[i];
	b->wr -= b->rd;
	b->rd = 0;
	return true;
}
static inline void kop_evbuf_put(struct kop_evbuf *b, uint64_t w)
{
	b->words[b->wr++] = w;
}
/* With lock held: wake the reader if the watershed is reached. */
void kop_evbuf_check_watershed(struct kop_evbuf *b);
/* With lock held: a sync ended / the session stopped. */
void kop_evbuf_sync_end(struct kop_evbuf *b);
void kop_evbuf_stop(struct kop_evbuf *b);
ssize_t kop_evbuf_read_words(struct kop_evbuf *b, uint64_t *buf, size_t max,
			     int timeout_ms);

/* ---- kop_sync.c / kop_session.c ------------------------------------ */

/* A sample resolved against the task table at its time, waiting to be
 * written into its CPU's block of the stream. */
struct kop_resolved {
	uint64_t app_cookie;
	uint64_t cookie;	/* OP_NO_COOKIE for kernel samples */
	uint64_t offset;	/* file offset, pc - start, or kernel pc */
	int32_t tid, tgid;
	uint32_t event;
	uint8_t kernel;
	uint8_t module_loaded;	/* emit MODULE_LOADED before this sample */
	uint8_t anon;		/* user sample in an anonymous region */
	uint16_t nr_frames;	/* callers, in the CPU's frames from first_frame */
	uint32_t first_frame;
};

/* A caller of a sample, resolved as a sample is (its cookie and offset, or
 * a kernel pc). */
struct kop_frame {
	uint64_t cookie;	/* OP_NO_COOKIE for kernel frames */
	uint64_t offset;
	uint8_t kernel;
};

struct kop_cpu_out {
	struct kop_resolved *v;
	size_t nr, cap;
	struct kop_frame *frames;	/* the samples' callers */
	size_t nr_frames, cap_frames;
	uint64_t nr_lost;	/* ring loss since the last block: DROPPED */
};

/* Counters the sync thread keeps; published to s->stats under stats_lock
 * at the end of every sync. */
struct kop_counts {
	uint64_t nr_samples, nr_kernel_samples, nr_user_samples,
		 nr_anon_samples, nr_lost_ring, nr_lost_evbuf,
		 nr_lost_no_task, nr_bad_records, nr_module_loads,
		 nr_chains, nr_bt_lost_no_mapping, nr_bt_truncated,
		 nr_bt_aborted;
	uint64_t throttled;
};

struct kop_session {
	struct kop_config cfg;
	struct perf_event_attr *events;	/* copy of cfg.events */
	const struct kop_source_ops *ops;
	void *ops_ctx;
	bool real_source;		/* ops are kop_perf_ops: rings are pollable */
	bool clock_ok;			/* records stamped with CLOCK_MONOTONIC */
	char *proc_root;

	int nr_cpus;
	struct kop_ring *rings;		/* nr_rings, cpu-major */
	size_t nr_rings;
	struct kop_cpu_out *out;	/* per CPU; owner: sync thread */
	const struct perf_event_header **merge_h;	/* nr_rings; sync thread */
	uint64_t *merge_t;		/* nr_rings; owner: sync thread */

	struct kop_tasks tasks;		/* owner: sync thread */
	struct kop_dcookies dcookies;
	struct kop_evbuf evbuf;
	struct op_kernel_map kmap;	/* owner: sync thread */
	bool have_kmap;
	uint64_t last_module_reread;	/* sample time; owner: sync thread */
	uint64_t prev_cutoff;		/* owner: sync thread */
	uint64_t sync_cutoff;		/* this sync's; owner: sync thread */

	/* Sync thread control. wake_fd is an eventfd the control thread
	 * writes to; sync_lock guards the request/done counters and stop. */
	pthread_t thread;
	bool thread_running;
	int wake_fd;
	pthread_mutex_t sync_lock;
	pthread_cond_t sync_done;
	uint64_t sync_req;		/* protected by sync_lock */
	uint64_t sync_seen;		/* protected by sync_lock */
	bool stop_req;			/* protected by sync_lock */
	bool started, stopped;		/* control thread only */

	struct kop_counts counts;	/* owner: sync thread */
	pthread_mutex_t stats_lock;
	struct kop_counts pub;		/* protected by stats_lock */
	uint64_t *pub_lost_cpu;		/* protected by stats_lock */
	uint64_t *pub_samples_cpu;	/* protected by stats_lock */
	uint64_t *lost_cpu;		/* owner: sync thread */
	uint64_t *samples_cpu;		/* owner: sync thread */

	unsigned int log_once;		/* bits of messages already logged; sync thread */
	/* the last sample's task, valid until the next side-band record;
	 * owner: sync thread */
	struct kop_task *hot_task;
	pid_t hot_tgid;
};

extern const struct kop_source_ops kop_perf_ops;

/* One sync of every ring: records with time <= cutoff are applied in
 * time order across CPUs, then written to the event buffer CPU by CPU.
 * Called by the sync thread only (or a test with no thread running). */
void kop_sync_once(struct kop_session *s, uint64_t cutoff);
void *kop_sync_thread(void *arg);
uint64_t kop_now_ns(void);

#endif /* KOP_INT_H */
