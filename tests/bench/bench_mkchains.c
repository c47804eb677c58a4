/* bench_mkchains SESSION_DIR NCHAINS DEPTH NSAMPLES SEED ELF...: writes a
 * call-chain store into SESSION_DIR/samples/current with the daemon's own
 * writer (daemon/opd_chains.h), for opexport's benchmark: NCHAINS distinct
 * chains of DEPTH frames, each frame an address among 5000 per binary
 * (so frames repeat across chains, as callers do), the first ELF the
 * application; NSAMPLES samples spread over the chains with a skew (a few
 * chains hold most samples, as in a real profile). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "opd_chains.h"

static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	struct op_logger lg = { op_log_to_stderr, (void *)"bench_mkchains", OP_LOG_WARN };
	struct opd_chain_key key = { "TIMER.100000.0", OP_SF_ALL, OP_SF_ALL, OP_SF_ALL };
	struct opd_chains c;
	struct op_chain_frame *chains, f[256];
	unsigned long nr_chains, depth, samples;
	uint32_t ids[64];
	uint64_t sizes[64];
	int nr_bins;
	char current[4096];

	if (argc < 7 || argc - 6 > 64) {
		fprintf(stderr, "usage: bench_mkchains SESSION_DIR NCHAINS DEPTH "
			"NSAMPLES SEED ELF...\n");
		return 2;
	}
	nr_chains = strtoul(argv[2], NULL, 0);
	depth = strtoul(argv[3], NULL, 0);
	samples = strtoul(argv[4], NULL, 0);
	rng = strtoull(argv[5], NULL, 0) | 1;
	nr_bins = argc - 6;
	if (!nr_chains || !depth || depth > 256)
		return 2;
	snprintf(current, sizeof(current), "%s/samples/current", argv[1]);
	if (opd_chains_init(&c, NULL, current, &lg))
		return 1;
	for (int i = 0; i < nr_bins; i++) {
		struct op_img img = { .kind = OP_IMG_FILE, .path = argv[6 + i] };
		struct stat sb;

		if (stat(argv[6 + i], &sb)) {
			perror(argv[6 + i]);
			return 1;
		}
		sizes[i] = (uint64_t)sb.st_size;
		ids[i] = opd_chains_image(&c, &img, false);
		if (!ids[i])
			return 1;
	}
	chains = malloc(nr_chains * depth * sizeof(*chains));
	if (!chains)
		return 1;
	for (unsigned long k = 0; k < nr_chains * depth; k++) {
		int b = (int)(next() % (uint64_t)nr_bins);
		uint64_t slot = next() % 5000;

		chains[k].image = ids[b];
		chains[k].pad = 0;
		chains[k].offset = slot * (sizes[b] / 5000) & ~3ULL;
	}
	for (unsigned long s = 0; s < samples; s++) {
		/* the square of a uniform variable: low IDs are hot */
		double u = (double)(next() % 1000000) / 1000000.0;
		unsigned long k = (unsigned long)(u * u * (double)nr_chains);

		if (s < nr_chains)
			k = s;	/* every chain at least once */
		for (unsigned long d = 0; d < depth; d++)
			f[d] = chains[k * depth + d];
		opd_chains_add(&c, &key, ids[0], f, depth, 1);
	}
	free(chains);
	if (opd_chains_sync(&c) || c.nr_lost) {
		fprintf(stderr, "bench_mkchains: %llu chain(s) lost\n",
			(unsigned long long)c.nr_lost);
		return 1;
	}
	opd_chains_release(&c);
	return 0;
}
