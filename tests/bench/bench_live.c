/* optop's refresh with 10^5 distinct sampled addresses: what one refresh
 * costs (the scan of every sample file, the deltas named and added up,
 * the interval's rows built and sorted), in CPU time of this process.
 *
 * The session: 8 sample files (4 applications x 2 CPUs) of libc, 12,500
 * distinct addresses each, spread over its text 16 bytes apart, written
 * with odb_add() as the daemon writes them.
 *   optop_refresh_first_1e5   the refresh that first sees them all: every
 *                             address named once (and libc's table loaded)
 *   optop_refresh_all_1e5     every address gained a sample: 10^5 deltas,
 *                             every symbol from the keys' cache (median of 7)
 *   optop_refresh_1pct_1e5    1 % of them gained (median of 7)
 *   optop_refresh_idle_1e5    nothing gained (median of 7)
 * Goal (issue 32): under 50 ms of CPU for a refresh with 10^5 addresses.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "odb.h"
#include "op_names.h"
#include "pp_live.h"
#include "pp_live_view.h"
#include "pp_symbols.h"

#define NR_APPS 4
#define NR_CPUS 2
#define NR_KEYS 100000
#define PER_FILE (NR_KEYS / (NR_APPS * NR_CPUS))
#define RUNS 7

static const char *const libcs[] = {
	"/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6",
	"/usr/lib64/libc.so.6",
};

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct bench {
	char dir[256];
	char current[300];
	char *paths[NR_APPS * NR_CPUS];
	uint64_t text_off, text_len;
	struct pp_live_scan scan;
	struct pp_live_view view;
};

/* Add n to every step-th address of every file. */
static int add_all(struct bench *b, unsigned int step)
{
	for (size_t f = 0; f < NR_APPS * NR_CPUS; f++) {
		odb_t db;
		int ret = odb_open(&db, NULL, b->paths[f], ODB_RDWR);

		if (ret)
			return ret;
		for (uint64_t k = 0; k < PER_FILE; k += step) {
			uint64_t off = b->text_off + (k * 16 + f * 4) % b->text_len;

			ret = odb_add(&db, off, 1);
			if (ret)
				break;
		}
		odb_close(&db);
		if (ret)
			return ret;
	}
	return 0;
}

/* One refresh as optop makes it; its CPU time in ms. */
static double refresh(struct bench *b, uint64_t *samples)
{
	struct pp_live_show show = { .per_cpu = true };
	struct pp_live_rows rows;
	double t0 = cpu_ms(), t1;

	pp_live_view_next(&b->view);
	if (pp_live_scan_refresh(&b->scan, pp_live_view_delta, &b->view, NULL) ||
	    pp_live_rows_build(&b->view, &show, &rows)) {
		fprintf(stderr, "bench_live: out of memory\n");
		exit(1);
	}
	t1 = cpu_ms();
	*samples = rows.all;
	pp_live_rows_release(&rows);
	return t1 - t0;
}

static double median_of(struct bench *b, unsigned int step, uint64_t want)
{
	double t[RUNS];
	uint64_t got;

	for (int r = 0; r < RUNS; r++) {
		if (step && add_all(b, step)) {
			fprintf(stderr, "bench_live: cannot write the sample files\n");
			exit(1);
		}
		t[r] = refresh(b, &got);
		if (got != want) {
			fprintf(stderr, "bench_live: the refresh saw %llu samples, not %llu\n",
				(unsigned long long)got, (unsigned long long)want);
			exit(1);
		}
	}
	qsort(t, RUNS, sizeof(t[0]), cmp_double);
	return t[RUNS / 2];
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	struct pp_report_opts o = { 0 };
	struct pp_symtab st;
	struct bench b = { 0 };
	const char *libc = NULL;
	uint64_t got;
	char cmd[400];
	double first;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	fprintf(stderr, "bench_live: a sanitizer build: the figures mean nothing\n");
#endif
	for (size_t i = 0; i < sizeof(libcs) / sizeof(libcs[0]) && !libc; i++)
		if (!access(libcs[i], R_OK))
			libc = libcs[i];
	if (!libc || pp_symtab_load_elf(&st, libc, NULL, NULL)) {
		fprintf(stderr, "bench_live: no libc.so.6 to name addresses with\n");
		return 1;
	}
	for (size_t i = 0; i < st.nr_segs; i++) {
		if (st.segs[i].filesz > b.text_len) {	/* the largest: text */
			b.text_off = st.segs[i].offset;
			b.text_len = st.segs[i].filesz;
		}
	}
	pp_symtab_release(&st);
	snprintf(b.dir, sizeof(b.dir), "%s/opsampler-bench-live.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(b.dir)) {
		perror("bench_live: mkdtemp");
		return 1;
	}
	snprintf(b.current, sizeof(b.current), "%s/samples/current", b.dir);
	for (int a = 0; a < NR_APPS; a++) {
		for (int c = 0; c < NR_CPUS; c++) {
			char app[64];
			struct op_sfname n = {
				.image = { .kind = OP_IMG_FILE, .path = (char *)libc },
				.dep = { .kind = OP_IMG_FILE, .path = app },
				.event = (char *)"TIMER", .count = 100000,
				.tgid = OP_SF_ALL, .tid = OP_SF_ALL, .cpu = c,
			};
			char *rel;

			snprintf(app, sizeof(app), "/usr/bin/app%d", a);
			rel = op_sfname_build(&n);
			if (!rel || asprintf(&b.paths[a * NR_CPUS + c], "%s/%s",
					     b.current, rel) < 0)
				return 1;
			free(rel);
			if (mkdirs(b.paths[a * NR_CPUS + c]))
				return 1;
		}
	}
	if (pp_live_scan_init(&b.scan, NULL, b.current, NULL))
		return 1;
	pp_live_view_init(&b.view, &o, NULL);
	refresh(&b, &got);	/* the baseline: nothing there yet */
	if (add_all(&b, 1))
		return 1;
	first = refresh(&b, &got);
	printf("BENCH optop_refresh_first_1e5 %.2f ms\n", first);
	printf("BENCH optop_refresh_all_1e5 %.2f ms\n", median_of(&b, 1, NR_KEYS));
	printf("BENCH optop_refresh_1pct_1e5 %.2f ms\n",
	       median_of(&b, 100, NR_KEYS / 100));
	printf("BENCH optop_refresh_idle_1e5 %.2f ms\n", median_of(&b, 0, 0));
	pp_live_view_release(&b.view);
	pp_live_scan_release(&b.scan);
	for (size_t i = 0; i < NR_APPS * NR_CPUS; i++)
		free(b.paths[i]);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", b.dir);
	return system(cmd) ? 1 : 0;
}
