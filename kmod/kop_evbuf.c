/* The event buffer: one array of 64-bit words between the sync thread and
 * the daemon. A mutex rather than a lock-free ring because the writer
 * emits variable-length sequences that must reach the reader whole, and
 * the reader must be able to sleep until there is enough to be worth
 * waking for (the watershed) or a sync has ended.
 *
 * When the buffer is full the writer drops the sample and counts it
 * (nr_lost_evbuf): it never waits for the reader with rings filling up
 * behind it, and never overwrites unread words.
 */
#include "config.h"
#include "kop_evbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kop.h"
#include "op_config.h"
#include "op_proto.h"

int kop_evbuf_init(struct kop_evbuf *b, size_t size, size_t watershed)
{
	pthread_condattr_t ca;

	memset(b, 0, sizeof(*b));
	if (size < 64)
		return -EINVAL;
	b->words = malloc(size * sizeof(*b->words));
	if (!b->words)
		return -ENOMEM;
	b->size = size;
	b->watershed = watershed && watershed <= size ? watershed :
		       op_default_watershed(size);
	pthread_mutex_init(&b->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->cond, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

void kop_evbuf_release(struct kop_evbuf *b)
{
	if (!b->words)
		return;
	free(b->words);
	pthread_cond_destroy(&b->cond);
	pthread_mutex_destroy(&b->lock);
	memset(b, 0, sizeof(*b));
}

void kop_evbuf_check_watershed(struct kop_evbuf *b)
{
	if (b->wr - b->rd >= b->watershed)
		pthread_cond_broadcast(&b->cond);
}

void kop_evbuf_sync_end(struct kop_evbuf *b)
{
	b->gen++;
	pthread_cond_broadcast(&b->cond);
}

void kop_evbuf_stop(struct kop_evbuf *b)
{
	b->stopped = true;
	pthread_cond_broadcast(&b->cond);
}

/* Words of whole sequences at the front of words[rd, wr) that fit in max.
 * A SAMPLE_COUNT and the sample it counts are one: a read that ended
 * between them would hand the decoder a count with nothing to count. */
static size_t whole_prefix(const struct kop_evbuf *b, size_t max)
{
	size_t pos = b->rd, end = b->wr, n = 0;

	while (pos < end) {
		size_t len = OP_SAMPLE_WORDS;

		if (b->words[pos] == OP_ESCAPE_CODE) {
			/* the writer only writes codes it knows */
			int nargs = pos + 1 < end ?
				op_code_nr_args(b->words[pos + 1]) : 0;

			len = 2 + (nargs > 0 ? (size_t)nargs : 0);
			if (pos + 1 < end && b->words[pos + 1] == OP_SAMPLE_COUNT)
				len += OP_SAMPLE_WORDS;
		}
		if (n + len > max || pos + len > end)
			break;
		n += len;
		pos += len;
	}
	return n;
}

ssize_t kop_evbuf_read_words(struct kop_evbuf *b, uint64_t *buf, size_t max,
			     int timeout_ms)
{
	struct timespec until;
	size_t n;

	if (max < KOP_EVBUF_MIN_READ)
		return -EINVAL;
	if (timeout_ms >= 0) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += timeout_ms / 1000;
		until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&b->lock);
	for (;;) {
		size_t avail = b->wr - b->rd;

		if (avail && (avail >= b->watershed ||
			      b->gen != b->seen_gen || b->stopped))
			break;
		if (!avail && b->stopped) {
			pthread_mutex_unlock(&b->lock);
			return -EPIPE;
		}
		if (!avail)
			b->seen_gen = b->gen;	/* nothing came of that sync */
		if (timeout_ms < 0) {
			pthread_cond_wait(&b->cond, &b->lock);
		} else if (pthread_cond_timedwait(&b->cond, &b->lock, &until) ==
			   ETIMEDOUT) {
			if (b->wr != b->rd)
				break;
			pthread_mutex_unlock(&b->lock);
			return 0;
		}
	}
	/* the writer only writes whole sequences: all of it is whole; of
	 * more than max, up to the last mark that fits (or, with none, a
	 * walk over the words) */
	n = b->wr - b->rd;
	if (n > max) {
		unsigned int i = b->nr_marks;

		while (i > 0 && b->marks[i - 1] - b->rd > max)
			i--;
		n = i > 0 && b->marks[i - 1] > b->rd ? b->marks[i - 1] - b->rd :
		    whole_prefix(b, max);
	}
	memcpy(buf, b->words + b->rd, n * sizeof(*buf));
	b->rd += n;
	{
		/* marks now behind the reader go */
		unsigned int k = 0;

		while (k < b->nr_marks && b->marks[k] <= b->rd)
			k++;
		memmove(b->marks, b->marks + k, (b->nr_marks - k) * sizeof(*b->marks));
		b->nr_marks -= k;
	}
	if (b->rd == b->wr) {
		b->rd = b->wr = 0;
		b->nr_marks = 0;
		b->seen_gen = b->gen;
	}
	pthread_mutex_unlock(&b->lock);
	return (ssize_t)n;
}
