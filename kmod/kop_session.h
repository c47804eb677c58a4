/* kmod internals: the session that ties the stages together. Not part of
 * the daemon's interface (that is kop.h); the tests and the benchmark
 * include the stage headers to reach the stages directly.
 *
 * Stages, one file and one header each, in pipeline order:
 *   kop_perf.c     the real kop_source_ops (perf_event_open, mmap, ioctl)
 *   kop_ring.c     reading one perf ring (head acquire / tail release)
 *   kop_sync.c     the sync thread: rings -> task table -> resolved samples
 *   kop_emit.c     the sync thread's stream writer -> event buffer
 *   kop_flight.c   the flight recorder's snapshot: backward rings -> samples
 *   kop_task.c     per-process mapping tables, retired at exit/exec
 *   kop_dcookie.c  session-stable ids of images
 *   kop_root.c     files of processes that see another root
 *   kop_keep.c     the keeper thread: copies of those files in the store
 *   kop_evbuf.c    the event buffer the daemon reads
 *   kop_session.c  lifecycle, the rings, kop.h's functions
 *
 * Threads: the control thread (kop_session_*), the sync thread (kop_sync.c,
 * kop_emit.c), the daemon's reader (kop_evbuf_read), and any thread for
 * kop_dcookie_lookup() and kop_stats_get().
 *
 * Lock order (outer first): sync->lock, evbuf->lock, dcookies->lock,
 * sync->stats_lock. keeper.lock is a leaf: taken with no other held (the
 * sync thread's pushes, kop_stats_get()). No stage calls back into another while holding its own
 * lock except the sync thread writing the event buffer.
 */
#ifndef KOP_SESSION_H
#define KOP_SESSION_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "kop.h"
#include "kop_dcookie.h"
#include "kop_evbuf.h"
#include "kop_keep.h"
#include "kop_ring.h"
#include "kop_root.h"
#include "kop_sync.h"

/* Snapshot pauses remembered for the windows that hold them; more within
 * one window (a snapshot every few ms) forget the oldest. */
#define KOP_PAUSE_LOG 64

/* Unmarked fields: the control thread's. */
struct kop_session {
	struct kop_config cfg;
	struct perf_event_attr *events;	/* copy of cfg.events */
	const struct kop_source_ops *ops;
	void *ops_ctx;
	char *proc_root;
	int nr_cpus;
	cpu_set_t cpus;			/* cfg.cpus points here when given */
	/* opened by kop_session_start(); their heads and tails are the
	 * sync thread's while it runs */
	struct kop_ring *rings;		/* nr_rings, cpu-major */
	size_t nr_rings;
	/* flight recorder: the backward sample rings, cpu-major, apart from
	 * rings (which then holds the side-band rings alone, all the sync
	 * thread polls and merges); read by the sync thread during a
	 * snapshot only, paused and resumed around it by this thread */
	struct kop_ring *flight;
	size_t nr_flight;
	bool lost_fmt;			/* their read_format has PERF_FORMAT_LOST */
	bool sample_cgroup;		/* samples carry their cgroup id, and the
					 * side-band the cgroups made */
	uint64_t paused_at;		/* kop_session_pause()'s time; 0: running */
	uint64_t nr_lost_paused;	/* protected by sync.stats_lock */
	/* the snapshots' pauses that lost samples, oldest first, for as long
	 * as a later window can hold them: the control thread's */
	struct kop_pause_loss {
		uint64_t at_ns;		/* its window's end: every ring paused */
		uint64_t lost;
	} pause_log[KOP_PAUSE_LOG];
	size_t nr_pause_log;
	bool started, stopped;

	struct kop_dcookies dcookies;	/* shared: its own lock */
	struct kop_evbuf evbuf;		/* shared: evbuf.lock */
	struct kop_sync sync;		/* its fields say who may touch them */
	/* cfg.keep_dir: started with the sync thread, stopped after it */
	struct kop_keeper keeper;	/* shared: its own lock */
	struct kop_roots roots;		/* owner: sync thread */
	char *keep_dir;			/* cfg.keep_dir's copy */
};

/* kop_session_rings.c, on the control thread. */
enum which_rings { SIDEBAND_RINGS = 1, SAMPLE_RINGS = 2, ALL_RINGS = 3 };
/* Every (event, CPU) ring and each CPU's side-band ring, opened and
 * mapped, disabled; whether samples carry cgroup ids decided first
 * (s->sample_cgroup). *clock_ok: the kernel stamps their records with
 * CLOCK_MONOTONIC. 0 or -errno (what is open stays for kop_rings_close). */
int kop_rings_open(struct kop_session *s, bool *clock_ok);
void kop_rings_close(struct kop_session *s);
int kop_rings_enable(struct kop_session *s, bool on, enum which_rings which);
int kop_rings_enable_all(struct kop_session *s, bool on);

#endif /* KOP_SESSION_H */
