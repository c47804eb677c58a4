/* Decode-to-sample-file throughput of the daemon, one thread: a prepared
 * event-buffer stream goes through the real decoder, image table, file
 * cache and odb_add(), as in oprofiled's main loop, with the cache warm
 * (one pass first creates every file and node).
 *
 * The stream is shaped like a busy system's: 2 CPUs, a task switch every
 * 64 samples among 16 processes of 4 executables, each task sampling its
 * executable, 4 shared libraries and an anonymous region; a third of the
 * samples in the kernel (text and a module); 4096 distinct code offsets,
 * arbitrary byte addresses in the first 2 MiB of each image, as sampled
 * pcs are. A profile is skewed (a few hot loops take most samples): in
 * the "hot" streams 90% of the samples fall on 256 of the offsets; the
 * "uniform" stream spreads them evenly, so nearly every sample misses the
 * caches twice (bucket head, node) and the figure is the memory's. (Offsets all aligned to 16 in a 64 KiB range would be a bad
 * case for the file format's bucket hash, t ^ (t >> 8), which folds bits
 * 8-11 onto bits 0-3: chains of 8 and a third of the speed.) No
 * separation, then --separate=all.
 *
 *   daemon_decode_throughput          Msamples/s, hot, no separation (the
 *                                     target: at least 15 on one core)
 *   daemon_decode_throughput_sep_all  Msamples/s, hot, --separate=all
 *   daemon_decode_throughput_uniform  Msamples/s, uniform, no separation
 *
 * Rates are per second of this thread's CPU time. Figures from a sanitizer
 * build are not meaningful; a note on stderr says so.
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
#include "op_config.h"
#include "op_proto.h"
#include "opd_decode.h"
#include "opd_image.h"
#include "opd_sample.h"
#include "opd_sfile.h"

#define ESC OP_ESCAPE_CODE
#define KTEXT 0xffffffff81000000ULL
#define KMOD 0xffffffffa0000000ULL
#define NR_APPS 4
#define NR_LIBS 4
#define NR_TASKS 16
#define RUN 64			/* samples between task switches */
#define NR_SAMPLES (4u << 20)	/* per pass */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* cookies: 1..4 apps, 11..14 libraries, 100+task anonymous regions */
static int lookup(void *ctx, uint64_t cookie, struct kop_dcookie_info *info)
{
	(void)ctx;
	if (cookie >= 1 && cookie <= NR_APPS) {
		info->kind = KOP_IMAGE_FILE;
		snprintf(info->path, sizeof(info->path), "/usr/bin/app%llu",
			 (unsigned long long)cookie);
		return 0;
	}
	if (cookie >= 11 && cookie < 11 + NR_LIBS) {
		info->kind = KOP_IMAGE_FILE;
		snprintf(info->path, sizeof(info->path), "/usr/lib/lib%llu.so",
			 (unsigned long long)cookie);
		return 0;
	}
	if (cookie >= 100 && cookie < 100 + NR_TASKS) {
		info->kind = KOP_IMAGE_ANON;
		snprintf(info->path, sizeof(info->path), "anon");
		info->tgid = (pid_t)(1000 + cookie - 100);
		info->start = 0x7f0000000000ULL;
		info->end = 0x7f0000100000ULL;
		return 0;
	}
	return -ENOENT;
}

struct stream {
	uint64_t *w;
	size_t n, cap;
};

static void put(struct stream *s, uint64_t v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1 << 20;
		s->w = realloc(s->w, s->cap * sizeof(*s->w));
		if (!s->w) {
			perror("bench_decode");
			exit(1);
		}
	}
	s->w[s->n++] = v;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void build(struct stream *s, int hot)
{
	static uint64_t offsets[4096];
	uint64_t x = 0x2545f4914f6cdd1dULL;
	unsigned int nr = 0;
	int mode[2] = { 0, 0 };	/* per CPU: the decoder keeps each CPU's mode */

	for (size_t i = 0; i < 4096; i++)
		offsets[i] = 0x1000 + rnd(&x) % 0x1ff000;

	while (nr < NR_SAMPLES) {
		unsigned int cpu = (nr / RUN) & 1;
		unsigned int task = (unsigned int)(rnd(&x) % NR_TASKS);
		uint64_t app = 1 + task % NR_APPS;
		uint64_t cookie = 0;
		int in_kernel = mode[cpu];

		put(s, ESC); put(s, OP_CPU_SWITCH); put(s, cpu);
		put(s, ESC); put(s, OP_CTX_SWITCH); put(s, 1000 + task); put(s, app);
		put(s, ESC); put(s, OP_CTX_TGID); put(s, 1000 + task);
		if (nr < 2 * RUN) {
			/* each CPU's first run states its mode: the stream is
			 * decoded several times and a CPU's mode carries over */
			put(s, ESC); put(s, OP_USER_ENTER);
		}
		for (unsigned int i = 0; i < RUN; i++, nr++) {
			uint64_t r = rnd(&x);
			unsigned int where = (unsigned int)(r % 12);
			uint64_t off = offsets[(r >> 8) % (hot && (r >> 52) % 10 < 9 ? 256 : 4096)];
			uint64_t want = 0;
			int kernel = where < 4;

			if (!kernel)
				want = where < 8 ? app : where < 11 ? 11 + (r >> 40) % NR_LIBS :
				       100 + task;
			if (kernel != in_kernel) {
				put(s, ESC);
				put(s, kernel ? OP_KERNEL_ENTER : OP_USER_ENTER);
				in_kernel = kernel;
			}
			if (kernel) {
				put(s, (where == 3 ? KMOD : KTEXT) + off);
			} else {
				if (want != cookie) {
					put(s, ESC); put(s, OP_COOKIE_SWITCH); put(s, want);
					cookie = want;
				}
				put(s, off);
			}
			put(s, 0);
		}
		mode[cpu] = in_kernel;
	}
}

static double run(const struct stream *s, unsigned int separate, const char *dir,
		  uint64_t *out_written)
{
	struct opd_event_info ev = { "TIMER", 100000, 0, 0, ODB_CPU_TIMER_INT };
	struct opd_images images;
	struct opd_sfiles sfiles;
	struct opd_sampler sampler;
	struct opd_decoder *dec = malloc(sizeof(*dec));
	double t0, t1;
	int passes = 5;

	if (!dec || opd_images_init(&images, lookup, NULL, NULL, NULL, NULL) ||
	    opd_sfiles_init(&sfiles, NULL, dir, &ev, 1, 0, 0, NULL)) {
		fprintf(stderr, "bench_decode: out of memory\n");
		exit(1);
	}
	images.km.text_start = KTEXT;
	images.km.text_end = KTEXT + 0x2000000;
	images.km.modules = calloc(1, sizeof(struct op_kmodule));
	if (!images.km.modules)
		exit(1);
	snprintf(images.km.modules[0].name, sizeof(images.km.modules[0].name), "ext4");
	images.km.modules[0].start = KMOD;
	images.km.modules[0].end = KMOD + 0x200000;
	images.km.nr_modules = 1;
	images.have_km = true;
	opd_sampler_init(&sampler, &images, &sfiles, separate, "/nonexistent");
	opd_decoder_init(dec, &opd_sampler_ops, &sampler, 1, NULL);

	opd_decode(dec, s->w, s->n);	/* warm: files and nodes exist */
	t0 = now();
	for (int p = 0; p < passes; p++)
		opd_decode(dec, s->w, s->n);
	t1 = now();
	if (dec->nr_bad || sampler.nr_written != (uint64_t)(passes + 1) * NR_SAMPLES) {
		fprintf(stderr, "bench_decode: %llu bad, %llu no mapping, %llu lost to files, %llu of %llu written\n",
			(unsigned long long)dec->nr_bad, (unsigned long long)sampler.nr_lost_no_mapping,
			(unsigned long long)sfiles.nr_lost,
			(unsigned long long)sampler.nr_written,
			(unsigned long long)(passes + 1) * NR_SAMPLES);
		exit(1);
	}
	*out_written = sampler.nr_written;
	opd_sfiles_release(&sfiles);
	opd_images_release(&images);
	free(dec);
	return (double)passes * NR_SAMPLES / (t1 - t0) / 1e6;
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096];
	struct stream s = { 0 }, u = { 0 };
	uint64_t written;
	double plain, all, uniform;
	char cmd[4200];

#if defined(__SANITIZE_ADDRESS__)
	fprintf(stderr, "bench_decode: sanitizer build, figures are not meaningful\n");
#endif
	snprintf(dir, sizeof(dir), "%s/bench_decode.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("bench_decode: mkdtemp");
		return 1;
	}
	build(&s, 1);
	build(&u, 0);
	fprintf(stderr, "bench_decode: %u samples per pass in %zu words, files in %s\n",
		NR_SAMPLES, s.n, dir);
	plain = run(&s, 0, dir, &written);
	printf("BENCH daemon_decode_throughput %.1f Msamples/s\n", plain);
	fflush(stdout);
	all = run(&s, OP_SEP_ALL, dir, &written);
	printf("BENCH daemon_decode_throughput_sep_all %.1f Msamples/s\n", all);
	fflush(stdout);
	uniform = run(&u, 0, dir, &written);
	printf("BENCH daemon_decode_throughput_uniform %.1f Msamples/s\n", uniform);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_decode: could not remove %s\n", dir);
	free(s.w);
	free(u.w);
	return 0;
}
