/* gmon.out, as GNU gprof reads it, from a profile's samples and arcs
 * (opgprof). The format is gprof's (binutils gprof/gmon_out.h): a 20-byte
 * header ("gmon", u32 version 1, three spare u32), then tagged records in
 * the machine's byte order:
 *   tag 0, histogram: low_pc, high_pc (addresses of the binary's width),
 *     u32 number of bins, u32 profiling rate, 15 bytes of dimension name,
 *     1 byte abbreviation, then one u16 count per bin;
 *   tag 1, call arc: from_pc (in the caller), self_pc (in the callee),
 *     u32 count.
 * The histogram is written as OProfile's opgprof writes it, so that gprof
 * prints the same for either: rate 1 and dimension "samples" (each sample
 * counts 1), bins of 8 bytes when every sampled address is 4-aligned, else
 * of 2, covering the lowest to the highest sampled address.
 */
#ifndef PP_GPROF_H
#define PP_GPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "op_log.h"

struct pp_gmon_sample {
	uint64_t vma;		/* link-time address, as in the ELF symbols */
	uint64_t count;
};

struct pp_gmon_arc {
	uint64_t from, self;	/* caller and callee addresses */
	uint64_t count;
};

struct pp_gmon {
	const struct pp_gmon_sample *samples;
	size_t nr_samples;
	const struct pp_gmon_arc *arcs;
	size_t nr_arcs;
	unsigned int addr_bytes;	/* 4 or 8: the binary's ELF class */
};

/* Write g to out. A bin or an arc that would overflow its counter is
 * capped and said once through lg. Returns 0, -EINVAL (addr_bytes), -ENOMEM
 * or -EIO (a write failed). */
int pp_gmon_write(FILE *out, const struct pp_gmon *g, const struct op_logger *lg);

#endif /* PP_GPROF_H */
