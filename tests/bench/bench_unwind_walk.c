/* The DWARF unwinder's own cost (kmod/kop_unwind.c), on what
 * tests/kmod/unwind_rec records of itself (registers, stack copy,
 * mappings: see test_unwind): per case, the first walk of a process (its
 * files opened, its libdw state built), a walk of a new process whose
 * files are already open (the table's generation changed: what a fork or
 * a short-lived process costs), and a walk of a process seen before (the
 * steady state), with the frames each walk finds. One thread, wall time
 * of a quiet loop. Each case twice: as the daemon walks (the kept rows
 * of kop_unwind_rows.c, libdw where they do not serve), and by libdw's
 * walk alone (unwind_libdw_*), the reference the fast path is against.
 *
 *   BENCH unwind_first_us_<case>   us
 *   BENCH unwind_new_process_us_<case> us
 *   BENCH unwind_walk_us_<case>    us   (frames: unwind_frames_<case>)
 *
 * Run from the build's tests/ directory (make bench does), where
 * kmod/unwind_rec and kmod/libunwind_lib.so are.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kop_unwind.h"
#include "op_proto.h"
#include "testutil.h"

#define WALKS 20000
#define NEW_PROCESSES 500

struct rec {
	pid_t tid;
	uint64_t regs[KOP_UNWIND_NR_REGS];
	unsigned char *stack;
	size_t stack_size;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* the case's registers and stack, its mappings into k */
static int load(const char *dir, const char *name, struct rec *r,
		struct kop_dcookies *dc, struct kop_task *k)
{
	char path[PATH_MAX], line[PATH_MAX + 128];
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s.txt", dir, name);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, off;
		char file[PATH_MAX];
		char *p;

		if (!strncmp(line, "tid ", 4)) {
			r->tid = (pid_t)atol(line + 4);
		} else if (!strncmp(line, "regs", 4)) {
			p = line + 4;
			for (int i = 0; i < KOP_UNWIND_NR_REGS; i++)
				r->regs[i] = strtoull(p, &p, 16);
		} else if (sscanf(line, "map %lx %lx %lx %4095s", &start, &end,
				  &off, file) == 4) {
			bool is_file = file[0] == '/';
			uint64_t cookie = is_file ?
				kop_dcookie_file(dc, file, 0, 0, NULL, 0) :
				kop_dcookie_anon(dc, file, k->tgid, start, end);

			kop_task_map(k, start, end, is_file ? off : KOP_MAP_ANON,
				     cookie);
		}
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s.stack", dir, name);
	if (!(f = fopen(path, "re")))
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	r->stack = malloc(n > 0 ? (size_t)n : 1);
	r->stack_size = r->stack && n > 0 ? fread(r->stack, 1, (size_t)n, f) : 0;
	fclose(f);
	return r->stack_size ? 0 : -1;
}

static int one_case(const char *dir, const char *name, bool fast)
{
	const char *by = fast ? "" : "libdw_";
	struct kop_dcookies dc;
	struct kop_tasks tasks;
	struct kop_task *k;
	struct kop_unwind *u;
	struct op_logger lg = { 0 };
	struct rec r = { 0 };
	struct kop_user_regs ur;
	uint64_t pcs[256];
	enum kop_unwind_end end;
	unsigned int nr_fp;
	size_t n = 0;
	double t0, t1, t2, t3;

	if (kop_dcookies_init(&dc) || kop_tasks_init(&tasks) ||
	    !(k = kop_task_new(&tasks, 4242)) ||
	    load(dir, name, &r, &dc, k) || !(u = kop_unwind_new(&dc, &lg))) {
		fprintf(stderr, "bench_unwind_walk: cannot set up case %s\n", name);
		return 1;
	}
	ur = (struct kop_user_regs){ .abi = PERF_SAMPLE_REGS_ABI_64,
		.regs = (const unsigned char *)r.regs, .stack = r.stack,
		.stack_size = r.stack_size };
	kop_unwind_set_fast(u, fast);
	t0 = now_us();
	kop_unwind_walk(u, k, r.tid, &ur, pcs, 256, &end, &nr_fp);
	t1 = now_us();
	for (int i = 0; i < NEW_PROCESSES; i++) {
		/* a new table: what a fork or a new process is to the cache */
		k->gen += 1000000;
		kop_unwind_walk(u, k, r.tid, &ur, pcs, 256, &end, &nr_fp);
	}
	t2 = now_us();
	for (int i = 0; i < WALKS; i++)
		n = kop_unwind_walk(u, k, r.tid, &ur, pcs, 256, &end, &nr_fp);
	t3 = now_us();
	printf("BENCH unwind_%sfirst_us_%s %.1f us\n", by, name, t1 - t0);
	printf("BENCH unwind_%snew_process_us_%s %.2f us\n", by, name,
	       (t2 - t1) / NEW_PROCESSES);
	printf("BENCH unwind_%swalk_us_%s %.2f us\n", by, name, (t3 - t2) / WALKS);
	if (fast)
		printf("BENCH unwind_frames_%s %zu frames\n", name, n);
	kop_unwind_free(u);
	kop_tasks_release(&tasks);
	kop_dcookies_release(&dc);
	free(r.stack);
	return 0;
}

int main(void)
{
	static const char *const cases[] = { "main", "thread", "signal", "fp",
					     "deep" };
	char helper[PATH_MAX], lib[PATH_MAX], cmd[3 * PATH_MAX];
	char *dir = tu_mkdtemp();
	int status = 0;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	fprintf(stderr, "bench_unwind_walk: built with sanitizers, figures mean nothing\n");
#endif
	if (!dir || !realpath("kmod/unwind_rec", helper) ||
	    !realpath("kmod/libunwind_lib.so", lib)) {
		fprintf(stderr, "bench_unwind_walk: run from the build's tests/ (kmod/unwind_rec built)\n");
		return 1;
	}
	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s'", helper, dir, lib);
	if (system(cmd)) {
		fprintf(stderr, "bench_unwind_walk: %s failed\n", helper);
		return 1;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		status |= one_case(dir, cases[i], true) |
			  one_case(dir, cases[i], false);
	tu_rm_rf(dir);
	free(dir);
	return status;
}
