/* One profiling session in process: kmod's collection pipeline, the
 * decoder, the images, the sample-file writer, the chain store and the
 * counters, driven as one. oprofiled wraps it in its lock, control socket
 * and signals; operf wraps it around one command, a pid or the system.
 *
 * Life: opd_session_init() (events resolved, nothing created), then
 * opd_session_open() (sample files, decoder, kmod session), then any of
 * start / pause / pump / dump, then opd_session_finish() (collection ends,
 * the stream is read to its end, a last dump) and opd_session_close().
 *
 * Threads: every function is called from one thread, the caller's; kmod's
 * own threads fill the event buffer behind opd_session_pump() and log
 * through cfg.log, which must therefore be safe to call from any thread.
 */
#ifndef OPD_SESSION_H
#define OPD_SESSION_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "kop.h"
#include "op_config.h"
#include "op_events.h"
#include "op_log.h"
#include "op_sessdir.h"
#include "opd_chains.h"
#include "opd_decode.h"
#include "opd_image.h"
#include "opd_sample.h"
#include "opd_sfile.h"
#include "opd_stats.h"

/* How long opd_session_pump() and the final read wait for words. */
#define OPD_READ_TIMEOUT_MS 100

/* The caller's strings must outlive the session. */
struct opd_session_config {
	const struct op_sessdir *sd;	/* the session directory: every
					 * path below is reached through it */
	const char *current_dir;	/* samples/current, which must exist */
	const char *keep_dir;		/* binaries kept from other roots
					 * (op_paths.keep_dir); NULL: none */
	uint64_t keep_max_bytes;	/* its bound (0: nothing is kept) */
	const char *events;		/* comma list of specs; NULL or "": "default" */
	unsigned int separate;		/* OP_SEP_* */
	const char *vmlinux;		/* NULL: the kernel from /proc/kallsyms */
	const char *image;		/* comma list of binaries, NULL or "": all */
	/* 0 in these three: libop's default (op_config.h) */
	unsigned long buffer_size;
	unsigned long buffer_watershed;
	unsigned long cpu_buffer_size;
	unsigned int callgraph;		/* call-chain depth, 0: none */
	unsigned int unwind_stack;	/* 0: frame pointers; else DWARF
					 * unwinding, with this many bytes of
					 * user stack copied a sample */
	pid_t pid;			/* -1: system-wide; else this process tree */
	const cpu_set_t *cpus;		/* NULL: every online CPU; copied */
	unsigned int flight_seconds;	/* flight recorder's window; 0: off */
	struct op_logger log;
};

struct opd_session {
	struct opd_session_config cfg;
	cpu_set_t cpus;			/* cfg.cpus points here when given */

	struct op_event events[OP_MAX_EVENTS];
	struct perf_event_attr attrs[OP_MAX_EVENTS];
	struct opd_event_info einfo[OP_MAX_EVENTS];
	unsigned int nr_events;
	char events_text[OP_MAX_EVENTS * 140];	/* canonical specs, comma list */

	struct kop_session *kop;	/* NULL after a failed recreation */
	bool kop_started;		/* started and not yet finally stopped */
	bool running;			/* events enabled */

	struct opd_images images;
	struct opd_sfiles sfiles;
	struct opd_sampler sampler;
	struct opd_chains chains;	/* whole call chains (callgraph) */
	struct opd_decoder *dec;	/* large (per-CPU saved contexts): heap */
	uint64_t *buf;
	bool opened;
	/* flight recorder: each CPU ring's bytes (op_flight_ring_bytes()),
	 * and the event buffer sized to take a whole snapshot at once */
	size_t flight_ring_bytes;
	size_t flight_evbuf_words;
	/* what an earlier daemon counted into the same current/ (opcontrol
	 * --shutdown, then --start: the files go on accumulating), added to
	 * this one's counts so that the stats describe the files */
	struct opd_stats base;
};

/* Copy cfg and resolve its events; nothing is created. Returns 0, or
 * -errno with the reason in err ("bad event specification 'X' near 'Y'"). */
int opd_session_init(struct opd_session *s, const struct opd_session_config *cfg,
		     char *err, size_t errlen);

/* Create the images, sample files, chain store, decoder and kmod session
 * (nothing is sampled yet). Returns 0, or -errno with the reason in err;
 * kmod's own detail has gone through cfg.log. */
int opd_session_open(struct opd_session *s, char *err, size_t errlen);

/* Enable collection: the first time, kmod reads the processes' maps and
 * opens every event; later, the events are enabled again. A failed first
 * start leaves a fresh kmod session so that a later start can succeed.
 * 0 or -errno (kmod's reason through the log). */
int opd_session_start(struct opd_session *s);

/* Disable the events, keeping them open. 0 or -errno. */
int opd_session_pause(struct opd_session *s);

/* Read the event buffer once, waiting up to timeout_ms, and decode what
 * came. Returns the number of words, 0, or -errno (-EPIPE: the stream has
 * ended). */
ssize_t opd_session_pump(struct opd_session *s, int timeout_ms);

/* Sync every CPU buffer, decode, msync, write and log the stats (why names
 * the occasion); ending: collection is over, so save the kernel symbols
 * too. When collection is over or paused, the session's files stay as they
 * are until the next start: their integrity record (op_sums.h) is written
 * too. 0 or the first -errno (each logged). */
int opd_session_dump(struct opd_session *s, const char *why, bool ending);

/* Write dir's integrity record (op_sums_write()); a failure is logged,
 * why naming the occasion. opd_session_start() removes the record. */
void opd_session_write_sums(struct opd_session *s, const char *dir,
			    const char *why);

/* Decode whatever the event buffer holds now, without waiting. */
void opd_session_drain(struct opd_session *s);

/* ---- opd_snapshot.c: the flight recorder's snapshots ---- */

/* Write the flight recorder's last window as the saved session
 * samples_dir/name, readable by every tool as any saved session; name
 * "current" replaces samples/current. The session is written under a
 * temporary name beside it and renamed into place whole, so a reader
 * never sees half a snapshot. Recording goes on. snap (may be NULL) gets
 * kmod's figures. 0, or -errno with the reason in err: -EEXIST (the name
 * is taken), -EINVAL (not a flight recorder, or not started). */
int opd_session_snapshot(struct opd_session *s, const char *samples_dir,
			 const char *name, struct kop_snapshot *snap,
			 char *err, size_t errlen);

/* The end of collection: kmod's threads stop, the stream is read to its
 * end, and a last dump ("exit"). */
void opd_session_finish(struct opd_session *s);

/* A snapshot of the counters; free with opd_stats_release(). */
void opd_session_stats(struct opd_session *s, struct opd_stats *st);

/* Everything opened, in reverse; a session never opened is fine. */
void opd_session_close(struct opd_session *s);

#endif /* OPD_SESSION_H */
