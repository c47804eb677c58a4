/* Reading one perf ring. The kernel writes records at data_head and
 * publishes it; we read records at our tail and hand space back by
 * publishing data_tail. Two barriers, and they pair:
 *   - data_head is loaded with acquire, pairing with the kernel's
 *     smp_store_release() of it: the record bytes below head are visible;
 *   - data_tail is stored with release, pairing with the kernel's
 *     smp_mb()/READ_ONCE of it before it overwrites: we are done reading
 *     the bytes below tail before the kernel may reuse them.
 * Records are 8-byte aligned and the data area is a power of two, so a
 * header never wraps; a record's body may, and is then copied out.
 *
 * A backward ring (the flight recorder's) has no tail: it is mapped
 * read-only, so the kernel overwrites, and only data_head is loaded, with
 * the same acquire. */
#include "config.h"
#include "kop_ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int kop_ring_init(struct kop_ring *r, void *base, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pg = base;
	uint64_t off = page, size = len > page ? len - page : 0;

	/* kernels since 4.1 say where the data area is */
	if (pg->data_size) {
		off = pg->data_offset;
		size = pg->data_size;
	}
	if (!size || (size & (size - 1)) || off + size > len)
		return -EINVAL;
	r->pg = pg;
	r->base = base;
	r->len = len;
	r->data = (unsigned char *)base + off;
	r->size = size;
	r->tail = __atomic_load_n(&pg->data_tail, __ATOMIC_RELAXED);
	r->head = r->tail;
	r->copy = malloc(65536);
	if (!r->copy)
		return -ENOMEM;
	return 0;
}

void kop_ring_release(struct kop_ring *r)
{
	free(r->copy);
	r->copy = NULL;
}

/* pairs with the kernel's store-release of data_head */
static inline uint64_t load_head(const struct kop_ring *r)
{
	return __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
}

void kop_ring_snapshot(struct kop_ring *r)
{
	r->head = load_head(r);
}

bool kop_ring_any(const struct kop_ring *r,
		  bool (*match)(const struct perf_event_header *h))
{
	uint64_t head = load_head(r), pos = r->tail;

	while (head - pos >= sizeof(struct perf_event_header) &&
	       head - pos <= r->size) {
		const struct perf_event_header *h =
			(const void *)(r->data + (pos & (r->size - 1)));

		if (h->size < sizeof(*h) || (h->size & 7))
			return true;	/* let the sync count it */
		if (match(h))
			return true;
		pos += h->size;
	}
	return false;
}

const struct perf_event_header *kop_ring_peek(struct kop_ring *r, bool *bad)
{
	uint64_t mask = r->size - 1, off, avail = r->head - r->tail;
	const struct perf_event_header *h;

	*bad = false;
	if (!avail)
		return NULL;
	off = r->tail & mask;
	if (avail < sizeof(*h) || (off & 7) || avail > r->size) {
		*bad = true;
		return NULL;
	}
	h = (const void *)(r->data + off);
	if (h->size < sizeof(*h) || (h->size & 7) || h->size > avail) {
		*bad = true;
		return NULL;
	}
	if (off + h->size > r->size) {
		uint64_t first = r->size - off;

		memcpy(r->copy, r->data + off, first);
		memcpy(r->copy + first, r->data, h->size - first);
		h = (const void *)r->copy;
	}
	return h;
}

void kop_ring_skip_all(struct kop_ring *r)
{
	r->tail = r->head;
}

void kop_ring_publish_tail(struct kop_ring *r)
{
	/* pairs with the kernel's read of data_tail before it writes: every
	 * byte below tail has been read */
	__atomic_store_n(&r->pg->data_tail, r->tail, __ATOMIC_RELEASE);
}

/* A record at off that runs past the data area's end, copied out whole. */
static const struct perf_event_header *unwrap(struct kop_ring *r, uint64_t off,
					      uint16_t size)
{
	uint64_t first = r->size - off;

	memcpy(r->copy, r->data + off, first);
	memcpy(r->copy + first, r->data, size - first);
	return (const void *)r->copy;
}

void kop_ring_bwd_begin(struct kop_bwd *it, struct kop_ring *r)
{
	it->r = r;
	it->start = load_head(r);
	it->pos = it->start;
}

const struct perf_event_header *kop_ring_bwd_next(struct kop_bwd *it,
						  uint64_t *pos, bool *bad)
{
	struct kop_ring *r = it->r;
	uint64_t done = it->pos - it->start, off = it->pos & (r->size - 1);
	const struct perf_event_header *h;

	*bad = false;
	if (done >= r->size)
		return NULL;	/* a whole ring's worth read */
	h = (const void *)(r->data + off);
	if (!h->size)
		return NULL;	/* never written: the ring is not full yet */
	if (h->size < sizeof(*h) || (h->size & 7) || (off & 7)) {
		*bad = true;
		return NULL;
	}
	if (done + h->size > r->size)
		return NULL;	/* the oldest, its end overwritten */
	*pos = it->pos;
	it->pos += h->size;
	if (off + h->size > r->size)
		return unwrap(r, off, h->size);
	return h;
}

const struct perf_event_header *kop_ring_bwd_at(struct kop_ring *r, uint64_t pos)
{
	uint64_t off = pos & (r->size - 1);
	const struct perf_event_header *h = (const void *)(r->data + off);

	if (off + h->size > r->size)
		return unwrap(r, off, h->size);
	return h;
}

uint64_t kop_ring_bwd_used(const struct kop_ring *r)
{
	/* data_head starts at 0 and goes down: -head bytes written */
	uint64_t written = -load_head(r);

	return written < r->size ? written : r->size;
}
