/* kop_ring.c: reading one mmap'd perf ring, and the layout of the records
 * the rings carry. The only file that touches data_head and data_tail. */
#ifndef KOP_RING_H
#define KOP_RING_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	bool backward;		/* flight recorder: mapped read-only, the
				 * kernel writes backward and overwrites */
	int handle;
	void *base;
	size_t len;
};

/* base/len: the whole mapping (user page + data). 0 or -errno. */
int kop_ring_init(struct kop_ring *r, void *base, size_t len);
void kop_ring_release(struct kop_ring *r);
/* Snapshot data_head (load-acquire). */
void kop_ring_snapshot(struct kop_ring *r);
/* Is there, between r->tail and the kernel's data_head as of now, a record
 * match() accepts or one whose header is impossible (the sync counts it)?
 * Reads headers only: consumes nothing, leaves r->head alone. The sync
 * thread's, as it owns r->tail. */
bool kop_ring_any(const struct kop_ring *r,
		  bool (*match)(const struct perf_event_header *h));
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

/* Reading a backward ring (write_backward, mapped read-only: the flight
 * recorder). The kernel writes each record below the previous one and
 * moves data_head down, so from data_head upward the records run newest
 * first. It wraps over the oldest ones without asking; a reader must
 * pause the ring's output first (PERF_EVENT_IOC_PAUSE_OUTPUT) for what it
 * reads to hold still. The walk ends at the first never-written byte (the
 * data area starts zeroed, and no record has size 0), after a whole
 * ring's worth of bytes, or before a record that runs past that: the
 * oldest record, partly overwritten by the newest. */
struct kop_bwd {
	struct kop_ring *r;
	uint64_t start;		/* data_head when the walk began */
	uint64_t pos;		/* the next record */
};
/* Start a walk at data_head (load-acquire). */
void kop_ring_bwd_begin(struct kop_bwd *it, struct kop_ring *r);
/* The next record, newest first, its position in *pos (for
 * kop_ring_bwd_at()); NULL at the end. *bad when a header is impossible:
 * the walk ends there. A record that wraps the data area's end is copied
 * out (valid until the next call). */
const struct perf_event_header *kop_ring_bwd_next(struct kop_bwd *it,
						  uint64_t *pos, bool *bad);
/* The record at pos that an earlier kop_ring_bwd_next() returned, again. */
const struct perf_event_header *kop_ring_bwd_at(struct kop_ring *r, uint64_t pos);
/* Bytes the kernel has written into a backward ring, at most its size:
 * how full it is. Any thread (reads data_head only). */
uint64_t kop_ring_bwd_used(const struct kop_ring *r);

#endif /* KOP_RING_H */
