/* The flight recorder's snapshot: the last window of samples, read out of
 * rings nobody has touched while recording.
 *
 * Why it exists apart from the sync: in flight mode the sample rings are
 * written backward into read-only mappings, so the kernel keeps the newest
 * records and overwrites the oldest, and recording costs the profiler
 * nothing but the side-band (MMAP2, COMM, FORK, EXIT), which the sync
 * thread keeps applying to the task table as in normal mode. Only here,
 * on demand, are samples read: with the rings' output paused by the
 * control thread (kop_session_snapshot()), on the sync thread, which owns
 * the task table:
 *
 *   1. the side-band is merged up to the window's end, so every mapping,
 *      exec and exit before it is in the table;
 *   2. each ring is walked from its newest record back to the first older
 *      than the window's start (samples carry TIME); the positions are
 *      kept, then the records are applied oldest first, each sample
 *      resolved against its task's table at its own time: a process that
 *      exited or exec'd inside the window is found among the retired
 *      tables, which kop_sync_finish() keeps for a window;
 *   3. the samples are written into the event buffer as a sync writes
 *      them, CPU by CPU.
 *
 * A mapping replaced in place (munmap, then mmap over the same addresses)
 * by a process that is still alive is the one case resolved against the
 * newer mapping: perf reports no munmap, so the table has no time for it.
 */
#include "config.h"
#include "kop_sync.h"

#include <inttypes.h>
#include <stdlib.h>

#include "op_grow.h"

static bool keep_pos(struct kop_sync *s, uint64_t pos)
{
	if (s->nr_snap_pos == s->cap_snap_pos) {
		uint64_t *v = op_grow(s->snap_pos, s->nr_snap_pos + 1,
				      &s->cap_snap_pos, 4096, sizeof(*v));

		if (!v)
			return false;
		s->snap_pos = v;
	}
	s->snap_pos[s->nr_snap_pos++] = pos;
	return true;
}

/* Walk r newest first and keep the positions of its records inside
 * [from, to]; records newer than to (taken while the pause took effect)
 * are passed over, the first older than from ends the walk. */
static void collect(struct kop_sync *s, struct kop_ring *r, uint64_t from,
		    uint64_t to, struct kop_snapshot *snap)
{
	const struct perf_event_header *h;
	struct kop_bwd it;
	uint64_t pos, time;
	bool bad;

	s->nr_snap_pos = 0;
	kop_ring_bwd_begin(&it, r);
	while ((h = kop_ring_bwd_next(&it, &pos, &bad))) {
		if (!kop_sync_record_time(h, &time)) {
			bad = true;
			break;
		}
		if (time > to)
			continue;
		if (time < from)
			break;
		snap->nr_samples += h->type == PERF_RECORD_SAMPLE;
		if (!keep_pos(s, pos)) {
			if (kop_sync_log_once(s, KOP_LOG_NOMEM))
				op_log(&s->cfg->log, OP_LOG_ERR,
				       "kmod: out of memory reading cpu %d's flight ring; the snapshot is cut there",
				       r->cpu);
			break;
		}
	}
	if (bad) {
		/* what the kernel wrote is whole: a bad header is damage the
		 * walk cannot see past */
		snap->nr_bad_records++;
		s->counts.nr_bad_records++;
		if (kop_sync_log_once(s, KOP_LOG_BAD_RECORD))
			op_log(&s->cfg->log, OP_LOG_WARN,
			       "kmod: bad record in cpu %d's flight ring; the snapshot of that ring stops there, counted in nr_bad_records",
			       r->cpu);
	}
}

void kop_flight_snapshot(struct kop_sync *s, struct kop_snapshot *snap)
{
	kop_sync_merge(s, snap->to_ns);
	for (size_t i = 0; i < s->nr_flight; i++) {
		struct kop_ring *r = &s->flight[i];

		collect(s, r, snap->from_ns, snap->to_ns, snap);
		s->hot_task = NULL;
		for (size_t k = s->nr_snap_pos; k-- > 0; ) {
			const struct perf_event_header *h =
				kop_ring_bwd_at(r, s->snap_pos[k]);
			uint64_t time = 0;

			/* a paused ring's LOST record restates what the
			 * event's PERF_FORMAT_LOST count has told already */
			if (h->type == PERF_RECORD_LOST && s->lost_fmt)
				continue;
			kop_sync_record_time(h, &time);
			kop_sync_record(s, r, h, time);
		}
	}
	kop_sync_finish(s, snap->to_ns);
}
