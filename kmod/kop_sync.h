/* The sync thread, the one consumer of the rings and the one writer of
 * the event buffer (OProfile's buffer_sync.c): kop_sync_thread.c its life,
 * loop and requests; kop_sync.c one sync, record by record; kop_emit.c
 * the stream writer; kop_flight.c a flight recorder's snapshot, which the
 * thread asks for and which calls the sync. Everything it keeps between
 * records is in struct kop_sync; the session creates it, starts and stops
 * the thread, and reads the counters it publishes. */
#ifndef KOP_SYNC_H
#define KOP_SYNC_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "kop.h"
#include "kop_dcookie.h"
#include "kop_evbuf.h"
#include "kop_ring.h"
#include "kop_root.h"
#include "kop_task.h"
#include "kop_unwind.h"
#include "op_grow.h"
#include "op_kernel.h"
#include "op_log.h"

/* A sample resolved against the task table at its time, waiting to be
 * written into its CPU's block of the stream; with the samples of the same
 * block that resolved the same way (count). */
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
	uint32_t count;		/* samples it stands for (its callers too) */
};

/* A caller of a sample, resolved as a sample is (its cookie and offset, or
 * a kernel pc). */
struct kop_frame {
	uint64_t cookie;	/* OP_NO_COOKIE for kernel frames */
	uint64_t offset;
	uint8_t kernel;
};

/* The tally: where in a CPU's list the samples are, by a hash of what they
 * resolved to, their callers included, so that a sample met again in the
 * same block, the same chain under it, adds one to its twin's count
 * instead of taking a place of its own (and its chain's frames).
 * A block of a busy CPU holds thousands of samples (250 ms at 10 kHz) of a
 * few hundred pcs, often fewer: each distinct one then costs the stream,
 * the event buffer and the daemon once, not once a sample. A slot holds
 * the hash's upper half beside the place, so a probe reads the list only
 * for a likely twin; it takes new samples until half full, so a block of
 * all-different samples (thousands of images) costs a few probes in the
 * table each, not a walk through the list. A sample it does not take is
 * written on its own, still counted right. */
#define KOP_TALLY_BITS 10
#define KOP_TALLY_SLOTS (1u << KOP_TALLY_BITS)
#define KOP_TALLY_PROBES 8

struct kop_cpu_out {
	struct kop_resolved *v;
	size_t nr, cap;
	struct kop_frame *frames;	/* the samples' callers */
	size_t nr_frames, cap_frames;
	uint64_t nr_lost;	/* ring loss since the last block: DROPPED */
	uint64_t tally[KOP_TALLY_SLOTS];	/* the hash's upper half | index in v + 1;
						 * 0: free */
	uint32_t nr_tally;			/* slots in use */
};

/* Forget the tally: the list it points into was emptied, or what follows
 * must not count into what came before. */
static inline void kop_tally_clear(struct kop_cpu_out *o)
{
	if (o->nr_tally) {
		memset(o->tally, 0, sizeof(o->tally));
		o->nr_tally = 0;
	}
}

/* Counters the sync thread keeps; copied to kop_sync.pub under stats_lock
 * at the end of every sync. */
struct kop_counts {
	uint64_t nr_samples, nr_kernel_samples, nr_user_samples,
		 nr_anon_samples, nr_lost_ring, nr_lost_evbuf,
		 nr_lost_no_task, nr_bad_records, nr_module_loads,
		 nr_chains, nr_bt_lost_no_mapping, nr_bt_truncated,
		 nr_bt_aborted, nr_lost_sideband;
	uint64_t nr_unwind_no_cfi, nr_unwind_short_stack,
		 nr_unwind_bad_frame, nr_unwind_done, nr_unwind_fp_fallback,
		 nr_unwind_walks,
		 nr_unwind_pcs, unwind_ns;
	uint64_t throttled;
};

/* Messages the sync thread logs once a session (kop_sync.log_once bits). */
enum {
	KOP_LOG_BAD_RECORD = 1 << 0,
	KOP_LOG_UNKNOWN_TYPE = 1 << 1,
	KOP_LOG_NO_TASK = 1 << 2,
	KOP_LOG_EVBUF_FULL = 1 << 3,
	KOP_LOG_NOMEM = 1 << 4,
	KOP_LOG_RING_LOST = 1 << 5,
	KOP_LOG_FUTURE = 1 << 6,
	KOP_LOG_SIDEBAND_LOST = 1 << 7,
	KOP_LOG_BAD_USER = 1 << 8,	/* kop_sync_unwind.c */
};

/* The sync thread's state. Three kinds of field, each marked:
 *   - what it works on, the session's: set by kop_sync_init() and
 *     kop_sync_start(), read-only while the thread runs;
 *   - "owner: sync thread": touched by the sync thread alone once it runs
 *     (kop_sync_start() fills them before, kop_sync_release() after; a
 *     test may call kop_sync_once() when no thread runs);
 *   - the two meeting points with other threads, each under its lock:
 *     requests from the control thread (lock) and the published counters
 *     (stats_lock).
 * The lock order is kop_session.h's. */
struct kop_sync {
	/* the session's, read-only */
	const struct kop_config *cfg;	/* the session's copy; cfg->proc_root set */
	int nr_cpus;
	struct kop_ring *rings;		/* nr_rings, cpu-major; their heads
					 * and tails: owner: sync thread */
	size_t nr_rings;
	bool poll_rings;		/* ring handles are fds (the real source) */
	bool clock_ok;			/* records stamped with CLOCK_MONOTONIC */
	struct kop_dcookies *dcookies;	/* shared: its own lock */
	struct kop_evbuf *evbuf;	/* shared: evbuf->lock */
	struct kop_roots *roots;	/* NULL: every process's paths are the
					 * host's (no cfg->keep_dir); its
					 * fields: owner: sync thread */
	/* flight recorder (cfg->flight_window_ns): the backward rings, read
	 * during a snapshot only, while the control thread has them paused */
	struct kop_ring *flight;
	size_t nr_flight;
	bool sample_cgroup;		/* samples end with their cgroup id
					 * (PERF_SAMPLE_CGROUP) */
	bool lost_fmt;			/* losses counted by PERF_FORMAT_LOST,
					 * not by the rings' LOST records */

	/* owner: sync thread */
	uint64_t *snap_pos;		/* a snapshot's record positions in one ring */
	size_t nr_snap_pos, cap_snap_pos;
	struct kop_tasks tasks;
	struct kop_cpu_out *out;	/* nr_cpus */
	const struct perf_event_header **merge_h;	/* nr_rings */
	uint64_t *merge_t;		/* nr_rings */
	struct op_kernel_map kmap;
	bool have_kmap;
	uint64_t last_module_reread;	/* sample time */
	uint64_t prev_cutoff;		/* the previous sync's */
	uint64_t cutoff;		/* this sync's */
	struct kop_counts counts;
	uint64_t *lost_cpu;		/* nr_cpus */
	uint64_t *samples_cpu;		/* nr_cpus */
	unsigned int log_once;		/* KOP_LOG_* already logged */
	struct kop_unwind *unwind;	/* --unwind=dwarf; NULL: frame pointers */
	uint64_t *unwind_pcs;		/* a walk's pcs: callgraph_depth + 1 */
	/* the last sample's task, valid until the next side-band record */
	struct kop_task *hot_task;
	pid_t hot_tgid;

	/* Requests. The control thread writes wake_fd (an eventfd) after
	 * changing req or stop_req; the thread answers through done. */
	pthread_t thread;		/* control thread */
	bool thread_running;		/* control thread */
	int wake_fd;
	pthread_mutex_t lock;
	pthread_cond_t done;		/* seen moved */
	uint64_t req;			/* protected by lock */
	uint64_t seen;			/* protected by lock */
	bool stop_req;			/* protected by lock */
	/* a snapshot asked for: the control thread fills snap's window and
	 * bumps snap_req; the thread answers in snap and moves snap_seen */
	uint64_t snap_req, snap_seen;	/* protected by lock */
	struct kop_snapshot snap;	/* protected by lock */

	/* What kop_stats_get() reads, copied from counts at each sync end. */
	pthread_mutex_t stats_lock;
	struct kop_counts pub;		/* protected by stats_lock */
	uint64_t *pub_lost_cpu;		/* protected by stats_lock */
	uint64_t *pub_samples_cpu;	/* protected by stats_lock */
};

/* Set up s for nr_cpus CPUs over the session's cfg, dcookies and event
 * buffer. 0 or -errno; kop_sync_release() either way. */
int kop_sync_init(struct kop_sync *s, const struct kop_config *cfg,
		  int nr_cpus, struct kop_dcookies *dc, struct kop_evbuf *b);
/* Over the opened and enabled rings: read the kernel's text range and the
 * processes that exist already, then start the thread. 0 or -errno. */
int kop_sync_start(struct kop_sync *s, struct kop_ring *rings,
		   size_t nr_rings, bool poll_rings, bool clock_ok);
/* Control thread: ask for a sync and wait until one has ended. */
int kop_sync_request(struct kop_sync *s);
/* Control thread: the last sync takes everything; then the thread ends. */
void kop_sync_stop(struct kop_sync *s);
void kop_sync_release(struct kop_sync *s);
/* Any thread: the counters as the last sync left them, into st (its
 * per-CPU arrays allocated for nr_cpus). */
void kop_sync_read_stats(struct kop_sync *s, struct kop_stats *st);

/* One sync of every ring: records with time <= cutoff are applied in
 * time order across CPUs, then written to the event buffer CPU by CPU.
 * Called by the sync thread only (or a test with no thread running). */
void kop_sync_once(struct kop_sync *s, uint64_t cutoff);
uint64_t kop_now_ns(void);
/* Control thread: have the thread write the flight rings' window
 * (snap->from_ns, to_ns) into the event buffer; wait until it has, and
 * take its counts into snap. */
void kop_sync_snapshot(struct kop_sync *s, struct kop_snapshot *snap);

/* The sync thread's pieces kop_flight.c shares: the side-band merge up
 * to cutoff (kop_sync_once()'s first pass), one record applied or
 * resolved at its time, and the end of a sync (emit every CPU's block,
 * free the retired tables no window can need, publish the counters). */
void kop_sync_merge(struct kop_sync *s, uint64_t cutoff);
void kop_sync_record(struct kop_sync *s, struct kop_ring *r,
		     const struct perf_event_header *h, uint64_t time);
bool kop_sync_record_time(const struct perf_event_header *h, uint64_t *time);
void kop_sync_finish(struct kop_sync *s, uint64_t cutoff);

/* ---- kop_flight.c -------------------------------------------------- */

/* The snapshot itself, on the sync thread: side-band merged up to
 * snap->to_ns, then every flight ring read newest first down to
 * snap->from_ns, its samples resolved oldest first, the blocks written.
 * Fills snap's counts. */
void kop_flight_snapshot(struct kop_sync *s, struct kop_snapshot *snap);

/* Sync thread: true the first time bit is asked for. */
static inline bool kop_sync_log_once(struct kop_sync *s, unsigned int bit)
{
	if (s->log_once & bit)
		return false;
	s->log_once |= bit;
	return true;
}

/* ---- kop_sync_unwind.c --------------------------------------------- */

struct kop_chain_pos {
	uint32_t first_frame;
	uint16_t nr_frames;
};
/* A new frame at the end of o's; NULL when out of memory. Inline: both
 * kop_sync.c and kop_sync_unwind.c append frames, and neither file calls
 * the other for it. */
static inline struct kop_frame *kop_frame_slot(struct kop_cpu_out *o)
{
	if (o->nr_frames == o->cap_frames) {
		struct kop_frame *v = op_grow(o->frames, o->nr_frames + 1,
					      &o->cap_frames, 4096, sizeof(*v));

		if (!v)
			return NULL;
		o->frames = v;
	}
	return &o->frames[o->nr_frames++];
}

/* --unwind=dwarf: set up and free the unwinder (kop_sync_start, _release) */
int kop_sync_unwind_init(struct kop_sync *s);
void kop_sync_unwind_release(struct kop_sync *s);
/* The user part of sample h's chain, found by DWARF unwinding of its
 * stack copy against task k (NULL: none known), resolved into o's frames
 * after the kernel part *e has (kernel: the sample was taken there, and
 * the user pc where the task entered is a caller). Counts why a walk
 * ended early, once a chain. */
void kop_sync_unwind(struct kop_sync *s, struct kop_cpu_out *o,
		     struct kop_task *k, const struct perf_event_header *h,
		     bool kernel, struct kop_chain_pos *e);

/* ---- kop_emit.c ---------------------------------------------------- */

/* Write CPU cpu's resolved samples as one block of the stream and empty
 * its list. Sync thread, with evbuf->lock held. */
void kop_emit_cpu(struct kop_sync *s, int cpu);

#endif /* KOP_SYNC_H */
