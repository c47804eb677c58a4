/* kop_evbuf.c: the event buffer, where the sync thread leaves the word
 * stream (op_proto.h) and the daemon's reader takes it. */
#ifndef KOP_EVBUF_H
#define KOP_EVBUF_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#define KOP_EVBUF_MARKS 64
#define KOP_EVBUF_MARK_STEP 2048

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
	/* ends of whole sequences in (rd, wr], ascending, one every
	 * KOP_EVBUF_MARK_STEP words or so, that the writer sets: a reader
	 * taking less than all cuts at one instead of walking the words to
	 * find a sequence's end; protected by lock */
	size_t marks[KOP_EVBUF_MARKS];
	unsigned int nr_marks;
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
	for (unsigned int i = 0; i < b->nr_marks; i++)
		b->marks[i] -= b->rd;
	b->wr -= b->rd;
	b->rd = 0;
	return true;
}
/* With lock held, at the end of a whole sequence: note it when the last
 * note is KOP_EVBUF_MARK_STEP words behind (the oldest goes when full). */
static inline void kop_evbuf_mark(struct kop_evbuf *b)
{
	size_t last = b->nr_marks ? b->marks[b->nr_marks - 1] : b->rd;

	if (b->wr - last < KOP_EVBUF_MARK_STEP)
		return;
	if (b->nr_marks == KOP_EVBUF_MARKS) {
		memmove(b->marks, b->marks + 1, (KOP_EVBUF_MARKS - 1) * sizeof(*b->marks));
		b->nr_marks--;
	}
	b->marks[b->nr_marks++] = b->wr;
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

#endif /* KOP_EVBUF_H */
