/* gmon.out writer for opgprof; the format is documented in pp_gprof.h. */
#include "config.h"
#include "pp_gprof.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { GMON_TAG_TIME_HIST = 0, GMON_TAG_CG_ARC = 1 };

static bool put(FILE *out, const void *p, size_t n)
{
	return fwrite(p, 1, n, out) == n;
}

static bool put_u32(FILE *out, uint32_t v)
{
	return put(out, &v, sizeof(v));
}

static bool put_addr(FILE *out, uint64_t a, unsigned int bytes)
{
	uint32_t a32 = (uint32_t)a;

	return bytes == 8 ? put(out, &a, sizeof(a)) : put(out, &a32, sizeof(a32));
}

/* The histogram: bins of 'gap' bytes over [low, high). */
static int put_hist(FILE *out, const struct pp_gmon *g,
		    const struct op_logger *lg)
{
	uint64_t low = UINT64_MAX, high = 0, gap = 8, capped = 0;
	static const char dimen[15] = "samples";
	uint16_t *hist;
	size_t nbins;
	bool ok;

	for (size_t i = 0; i < g->nr_samples; i++) {
		uint64_t v = g->samples[i].vma;

		if (v < low)
			low = v;
		if (v > high)
			high = v;
		if (v % 4)
			gap = 2;
	}
	if (!g->nr_samples)
		low = high = 0;
	else
		high++;		/* [low, high) */
	low -= low % gap;
	high = (high + gap - 1) / gap * gap;
	nbins = (size_t)((high - low) / gap);
	if ((high - low) / gap > UINT32_MAX)
		return -EINVAL;
	hist = calloc(nbins ? nbins : 1, sizeof(*hist));
	if (!hist)
		return -ENOMEM;
	for (size_t i = 0; i < g->nr_samples; i++) {
		size_t bin = (size_t)((g->samples[i].vma - low) / gap);
		uint64_t sum = hist[bin] + g->samples[i].count;

		if (sum > UINT16_MAX) {
			capped += sum - UINT16_MAX;
			sum = UINT16_MAX;
		}
		hist[bin] = (uint16_t)sum;
	}
	if (capped)
		op_log(lg, OP_LOG_WARN, "gmon.out's bins hold 65535 samples each: "
		       "%llu samples left out", (unsigned long long)capped);
	ok = put(out, &(uint8_t){ GMON_TAG_TIME_HIST }, 1) &&
	     put_addr(out, low, g->addr_bytes) &&
	     put_addr(out, high, g->addr_bytes) &&
	     put_u32(out, (uint32_t)nbins) &&
	     put_u32(out, 1) &&
	     put(out, dimen, sizeof(dimen)) &&
	     put(out, "1", 1) &&
	     put(out, hist, nbins * sizeof(*hist));
	free(hist);
	return ok ? 0 : -EIO;
}

int pp_gmon_write(FILE *out, const struct pp_gmon *g, const struct op_logger *lg)
{
	static const char cookie[4] = { 'g', 'm', 'o', 'n' };
	uint64_t capped = 0;
	int ret;

	if (g->addr_bytes != 4 && g->addr_bytes != 8)
		return -EINVAL;
	if (!put(out, cookie, sizeof(cookie)) || !put_u32(out, 1) ||
	    !put_u32(out, 0) || !put_u32(out, 0) || !put_u32(out, 0))
		return -EIO;
	ret = put_hist(out, g, lg);
	if (ret)
		return ret;
	for (size_t i = 0; i < g->nr_arcs; i++) {
		const struct pp_gmon_arc *a = &g->arcs[i];
		uint32_t count = a->count > UINT32_MAX ? UINT32_MAX : (uint32_t)a->count;

		capped += a->count - count;
		if (!put(out, &(uint8_t){ GMON_TAG_CG_ARC }, 1) ||
		    !put_addr(out, a->from, g->addr_bytes) ||
		    !put_addr(out, a->self, g->addr_bytes) ||
		    !put_u32(out, count))
			return -EIO;
	}
	if (capped)
		op_log(lg, OP_LOG_WARN, "gmon.out's arcs count up to 2^32-1 calls: "
		       "%llu left out", (unsigned long long)capped);
	return 0;
}
