/* Sample-file update throughput, one thread: the daemon's hot path is one
 * odb_add() per sample, so this bounds how many samples a second one daemon
 * thread can file.
 *
 *   odb_hot_updates          64 keys, 2*10^8 updates (a tight loop in a
 *                            few functions: the chains stay in L1)
 *   odb_spread_updates_1e6   10^6 distinct keys shaped like code offsets,
 *                            in a random order, 10 passes over a table that
 *                            already holds them (the daemon's steady state:
 *                            every sample lands on a known offset)
 *   odb_spread_inserts_1e6   the pass before: creates the 10^6 nodes and
 *                            grows the file from 128 nodes to 2^20
 * With 10^6 keys the table (20 MiB) is far larger than the caches, so an
 * update costs a miss for the bucket head and one for the node: this figure
 * measures the memory of the machine as much as the code.
 *
 * Prints `BENCH <name> <value> Mupdates/s`, updates per second of this
 * thread's CPU time. The file lives in $TMPDIR (or /tmp). Figures from a sanitizer build are not meaningful; a note on
 * stderr says so.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "odb.h"

static double now(void)
{
	struct timespec ts;

	/* CPU time of this thread: the machine is shared, and time spent
	 * preempted is not the cost of an update */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int open_fresh(odb_t *db, const char *path)
{
	int ret;

	unlink(path);
	ret = odb_open(db, NULL, path, ODB_RDWR);
	if (ret)
		fprintf(stderr, "bench_odb: cannot create %s: %s\n", path, odb_strerror(ret));
	return ret;
}

static int bench_hot(const char *path, double *mps)
{
	const uint64_t nr = 200000000;
	uint64_t keys[64], i, s = 88172645463325252ull;
	double t0, t1;
	odb_t db;
	int ret;

	if (open_fresh(&db, path))
		return 1;
	for (i = 0; i < 64; i++)
		keys[i] = 0x400000 + (rnd(&s) % 0x10000);
	t0 = now();
	for (i = 0; i < nr; i++) {
		ret = odb_add(&db, keys[i & 63], 1);
		if (ret) {
			fprintf(stderr, "bench_odb: odb_add: %s\n", odb_strerror(ret));
			odb_close(&db);
			return 1;
		}
	}
	t1 = now();
	*mps = (double)nr / (t1 - t0) / 1e6;
	/* check the work was done: the counts add up */
	{
		uint64_t sum = 0;

		for (i = 1; i <= odb_nr_nodes(&db); i++)
			sum += db.nodes[i].value;
		if (sum != nr) {
			fprintf(stderr, "bench_odb: hot: counted %llu of %llu\n",
				(unsigned long long)sum, (unsigned long long)nr);
			odb_close(&db);
			return 1;
		}
	}
	odb_close(&db);
	return 0;
}

static int bench_spread(const char *path, double *mps, double *ins)
{
	const uint32_t nr_keys = 1000000, passes = 10;
	uint64_t *seq, s = 0x2545f4914f6cdd1dull, i;
	uint32_t p;
	double t0, t1;
	odb_t db;
	int ret;

	seq = malloc(nr_keys * sizeof(*seq));
	if (!seq)
		return 1;
	/* distinct code-like offsets, shuffled */
	for (i = 0; i < nr_keys; i++)
		seq[i] = 0x1000 + i * 16 + (rnd(&s) & 15);
	for (i = nr_keys - 1; i > 0; i--) {
		uint64_t j = rnd(&s) % (i + 1), t = seq[i];

		seq[i] = seq[j];
		seq[j] = t;
	}
	if (open_fresh(&db, path)) {
		free(seq);
		return 1;
	}
	t0 = now();
	for (i = 0; i < nr_keys; i++) {
		ret = odb_add(&db, seq[i], 1);
		if (ret) {
			fprintf(stderr, "bench_odb: odb_add: %s\n", odb_strerror(ret));
			goto err;
		}
	}
	t1 = now();
	*ins = (double)nr_keys / (t1 - t0) / 1e6;
	t0 = now();
	for (p = 0; p < passes; p++) {
		for (i = 0; i < nr_keys; i++) {
			ret = odb_add(&db, seq[i], 1);
			if (ret) {
				fprintf(stderr, "bench_odb: odb_add: %s\n", odb_strerror(ret));
				goto err;
			}
		}
	}
	t1 = now();
	*mps = (double)nr_keys * passes / (t1 - t0) / 1e6;
	if (odb_nr_nodes(&db) != nr_keys || odb_get(&db, seq[12345]) != passes + 1) {
		fprintf(stderr, "bench_odb: spread: wrong table (%u nodes)\n", odb_nr_nodes(&db));
		goto err;
	}
	odb_close(&db);
	free(seq);
	return 0;
err:
	odb_close(&db);
	free(seq);
	return 1;
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	double hot, spread, ins;
	int ret;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	fprintf(stderr, "bench_odb: note: sanitizer build, figures are not meaningful\n");
#endif
	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(path, sizeof(path), "%s/bench_odb.%d", tmp, (int)getpid());
	ret = bench_hot(path, &hot);
	if (!ret)
		ret = bench_spread(path, &spread, &ins);
	unlink(path);
	if (ret)
		return 1;
	printf("BENCH odb_hot_updates %.1f Mupdates/s\n", hot);
	printf("BENCH odb_spread_updates_1e6 %.1f Mupdates/s\n", spread);
	printf("BENCH odb_spread_inserts_1e6 %.1f Minserts/s\n", ins);
	return 0;
}
