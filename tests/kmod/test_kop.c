/* kmod unit tests: the real sync code driven through kop_source_ops with
 * in-memory rings of the exact perf layout. Each case writes records into
 * the rings of a 2-CPU fake source, syncs, stops, and compares the event
 * stream word by word (and the counters) with what it expects.
 * (test_kop_evbuf.c: the event buffer's read contract and garbage in the
 * rings; test_kop_setup.c: what is asked of the kernel and read from it.) */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "kop_evbuf.h"
#include "kop_fixture.h"
#include "kop_task.h"
#include "op_kernel.h"
#include "stream_walk.h"
#include "testutil.h"

enum step_op {
	S_END,
	W_SAMPLE,	/* user sample: cpu pid tid time addr */
	W_KSAMPLE,	/* kernel sample */
	W_MMAP,		/* cpu pid time addr len pgoff name ino */
	W_EXEC,		/* cpu pid time name */
	W_FORK,		/* cpu pid ppid time */
	W_EXIT,		/* cpu pid time */
	W_LOST,		/* cpu len(=count) time */
	W_RAW,		/* cpu ppid(=type) len(=size) time */
	W_FILL,		/* cpu: len kernel samples of pid 0 */
	W_FILLU,	/* cpu: len user samples of pid from addr on, 8
			 * bytes apart (no two alike: none is tallied) */
	SYNC,
	DRAIN,		/* read and discard what the event buffer holds */
	PROC_ADD,	/* pid, name = maps text, exe = exe link */
	PROC_RM,	/* pid */
	PROC_FILE,	/* name = file under proc root, exe = content */
};

struct step {
	enum step_op op;
	int cpu;
	uint32_t pid, tid, ppid;
	uint64_t time, addr, len, pgoff, ino;
	const char *name, *exe;
	const uint64_t *chain;	/* W_SAMPLE/W_KSAMPLE: a call chain of */
	uint64_t nr_chain;	/* nr_chain entries (markers included), */
	uint64_t nr_said;	/* said to be this many when not 0 */
	unsigned int ring;	/* W_RAW: 0 the sample ring, 1 the side-band ring;
				 * the other side-band records go to the
				 * side-band ring, as the kernel writes them */
	bool sample_ring;	/* W_MMAP: to the sample ring instead */
};

struct cookie_want {
	uint64_t cookie;
	enum kop_image_kind kind;
	const char *path;
	uint64_t start;		/* ANON */
};

struct kcase {
	const char *name;
	size_t evbuf_words;
	unsigned int callgraph;	/* kop_config.callgraph_depth */
	struct step procs[4];	/* PROC_ADD steps done before start */
	struct step steps[24];
	uint64_t expect[160];	/* END-terminated */
	struct kop_stats want;	/* compared: the nr_* below, and the chain
				 * counters when callgraph is set */
	struct cookie_want cookies[4];
};

#define CTX_K PERF_CONTEXT_KERNEL
#define CTX_U PERF_CONTEXT_USER
#define TBEGIN ESC, OP_TRACE_BEGIN
#define TEND ESC, OP_TRACE_END
/* a kernel sample of task 800 with its kernel and user callers */
static const uint64_t chain_ku[] = { CTX_K, KTEXT + 0x100, KTEXT + 0x200,
				     CTX_U, 0x401010, 0x7f0000000100, 0x401020 };
/* a user sample: the sampled pc first, then a caller in no mapping */
static const uint64_t chain_gap[] = { CTX_U, 0x401010, 0x401030, 0x12345, 0x401040 };
/* deeper than the depth (2): cut there, counted */
static const uint64_t chain_deep[] = { CTX_U, 0x401010, 0x401020, 0x401030, 0x401040 };
/* two user chains of the same pc that differ in one caller */
static const uint64_t chain_u1[] = { CTX_U, 0x401010, 0x401020, 0x7f0000000100 };
static const uint64_t chain_u2[] = { CTX_U, 0x401010, 0x401030, 0x7f0000000100 };
/* said to be 1000 entries long: more than the record holds */
static const uint64_t chain_bad[] = { CTX_U, 0x401010 };
#define MAPS_800 \
	{ W_MMAP, 0, 800, 800, 0, 1, 0x400000, 0x2000, 0, 11, "/bin/prog" }, \
	{ W_MMAP, 0, 800, 800, 0, 2, 0x7f0000000000, 0x1000, 0x3000, 12, "/lib/libc.so.6" }

static const struct kcase cases[] = {
	{
		.name = "a kernel sample's chain: kernel callers, then user ones by image",
		.callgraph = 16,
		.steps = {
			MAPS_800,
			{ W_KSAMPLE, 0, 800, 800, 0, 10, KTEXT + 0x100, .chain = chain_ku, .nr_chain = 7 },
		},
		.expect = { CPU(0), CTX(800, 1, 800), TBEGIN, KERN, KTEXT + 0x100, 0,
			    KTEXT + 0x200, 0, USER, COOKIE(1), 0x1010, 0, COOKIE(2), 0x3100, 0,
			    COOKIE(1), 0x1020, 0, TEND, END },
		.want = { .nr_samples = 1, .nr_kernel_samples = 1, .nr_chains = 1 },
	},
	{
		.name = "a user chain stops at a caller in no mapping; a flat sample follows",
		.callgraph = 16,
		.steps = {
			MAPS_800,
			{ W_SAMPLE, 0, 800, 800, 0, 10, 0x401010, .chain = chain_gap, .nr_chain = 5 },
			{ W_SAMPLE, 0, 800, 800, 0, 11, 0x401010, .chain = chain_gap, .nr_chain = 2 },
		},
		.expect = { CPU(0), CTX(800, 1, 800), TBEGIN, USER, COOKIE(1), 0x1010, 0,
			    0x1030, 0, TEND, 0x1010, 0, END },
		.want = { .nr_samples = 2, .nr_user_samples = 2, .nr_chains = 1,
			  .nr_bt_lost_no_mapping = 1 },
	},
	{
		.name = "a chain met again in a block counts on its twin; one caller apart is another",
		.callgraph = 16,
		.steps = {
			MAPS_800,
			{ W_SAMPLE, 0, 800, 800, 0, 10, 0x401010, .chain = chain_u1, .nr_chain = 4 },
			{ W_SAMPLE, 0, 800, 800, 0, 11, 0x401010, .chain = chain_u2, .nr_chain = 4 },
			{ W_SAMPLE, 0, 800, 800, 0, 12, 0x401010, .chain = chain_u1, .nr_chain = 4 },
			{ W_SAMPLE, 0, 800, 800, 0, 13, 0x401010, .chain = chain_u1, .nr_chain = 4 },
		},
		.expect = { CPU(0), CTX(800, 1, 800), TBEGIN, USER, COOKIE(1), COUNT(3), 0x1010, 0,
			    0x1020, 0, COOKIE(2), 0x3100, 0, TEND,
			    TBEGIN, COOKIE(1), 0x1010, 0, 0x1030, 0, COOKIE(2), 0x3100, 0, TEND, END },
		.want = { .nr_samples = 4, .nr_user_samples = 4, .nr_chains = 4 },
	},
	{
		.name = "a chain deeper than the depth is cut and counted; a bad one is flat",
		.callgraph = 2,
		.steps = {
			MAPS_800,
			{ W_SAMPLE, 0, 800, 800, 0, 10, 0x401010, .chain = chain_deep, .nr_chain = 5 },
			{ W_SAMPLE, 0, 800, 800, 0, 11, 0x401010, .chain = chain_bad, .nr_chain = 2, .nr_said = 1000 },
		},
		.expect = { CPU(0), CTX(800, 1, 800), TBEGIN, USER, COOKIE(1), 0x1010, 0,
			    0x1020, 0, 0x1030, 0, TEND, 0x1010, 0, END },
		.want = { .nr_samples = 2, .nr_user_samples = 2, .nr_chains = 1,
			  .nr_bt_truncated = 1, .nr_bt_aborted = 1 },
	},
	{
		.name = "cross-CPU: mmap on cpu0 applies to a later sample on cpu1, whatever the write order",
		.steps = {
			{ W_SAMPLE, 1, 100, 100, 0, 20, 0x400010 },
			{ W_SAMPLE, 0, 100, 100, 0, 5, 0x400010 },
			{ W_MMAP, 0, 100, 100, 0, 10, 0x400000, 0x1000, 0, 11, "/bin/a" },
		},
		.expect = { CPU(1), CTX(100, 1, 100), USER, COOKIE(1), 0x10, 0, END },
		.want = { .nr_samples = 1, .nr_user_samples = 1, .nr_lost_no_task = 1 },
		.cookies = { { 1, KOP_IMAGE_FILE, "/bin/a" } },
	},
	{
		.name = "exec on cpu1 while an older sample is queued on cpu0",
		.procs = { { PROC_ADD, 0, 200, .name = "00400000-00401000 r-xp 00000000 08:01 1234 /usr/bin/old\n", .exe = "/usr/bin/old" } },
		.steps = {
			{ W_EXEC, 1, 200, 200, 0, 20, .name = "new" },
			{ W_MMAP, 1, 200, 200, 0, 21, 0x400000, 0x1000, 0, 99, "/usr/bin/new" },
			{ W_SAMPLE, 1, 200, 200, 0, 30, 0x400020 },
			{ W_SAMPLE, 0, 200, 200, 0, 10, 0x400020 },
		},
		.expect = { CPU(0), CTX(200, 1, 200), USER, COOKIE(1), 0x20, 0,
			    CPU(1), CTX(200, 2, 200), USER, COOKIE(2), 0x20, 0, END },
		.want = { .nr_samples = 2, .nr_user_samples = 2 },
		.cookies = { { 1, KOP_IMAGE_FILE, "/usr/bin/old" }, { 2, KOP_IMAGE_FILE, "/usr/bin/new" } },
	},
	{
		.name = "side-band rings merge with sample rings by time across CPUs",
		.procs = { { PROC_ADD, 0, 210, .name = "00400000-00401000 r-xp 00000000 08:01 1234 /usr/bin/old\n", .exe = "/usr/bin/old" } },
		.steps = {
			{ W_SAMPLE, 0, 210, 210, 0, 10, 0x400030 },
			{ W_SAMPLE, 0, 210, 210, 0, 25, 0x400030 },
			{ W_EXEC, 1, 210, 210, 0, 20, .name = "new" },
			{ W_MMAP, 1, 210, 210, 0, 21, 0x400000, 0x1000, 0, 99, "/usr/bin/new" },
			{ W_SAMPLE, 1, 210, 210, 0, 22, 0x400030 },
		},
		/* same thread before and after the exec: the new executable
		 * is announced by a CTX_SWITCH with the new app cookie */
		.expect = { CPU(0), CTX(210, 1, 210), USER, COOKIE(1), 0x30, 0,
			    CTX(210, 2, 210), USER, COOKIE(2), 0x30, 0,
			    CPU(1), CTX(210, 2, 210), USER, COOKIE(2), 0x30, 0, END },
		.want = { .nr_samples = 3, .nr_user_samples = 3 },
	},
	{
		.name = "exec synced before an older sample arrives: the retired table answers",
		.procs = { { PROC_ADD, 0, 200, .name = "00400000-00401000 r-xp 00000000 08:01 1234 /usr/bin/old\n", .exe = "/usr/bin/old" } },
		.steps = {
			{ W_EXEC, 1, 200, 200, 0, 20, .name = "new" },
			{ W_MMAP, 1, 200, 200, 0, 21, 0x400000, 0x1000, 0, 99, "/usr/bin/new" },
			{ W_SAMPLE, 1, 200, 200, 0, 30, 0x400020 },
			{ SYNC },
			{ W_SAMPLE, 0, 200, 200, 0, 10, 0x400020 },
		},
		.expect = { CPU(1), CTX(200, 2, 200), USER, COOKIE(2), 0x20, 0,
			    CPU(0), CTX(200, 1, 200), USER, COOKIE(1), 0x20, 0, END },
		.want = { .nr_samples = 2, .nr_user_samples = 2 },
	},
	{
		.name = "exit synced before an older sample arrives; the process is gone from /proc",
		.procs = { { PROC_ADD, 0, 300, .name = "00400000-00401000 r-xp 00000000 08:01 55 /usr/bin/short\n", .exe = "/usr/bin/short" } },
		.steps = {
			{ W_EXIT, 1, 300, 300, 0, 20 },
			{ SYNC },
			{ PROC_RM, 0, 300 },
			{ W_SAMPLE, 0, 300, 300, 0, 10, 0x400040 },
			{ W_SAMPLE, 0, 300, 300, 0, 25, 0x400040 },
		},
		.expect = { CPU(0), CTX(300, 1, 300), USER, COOKIE(1), 0x40, 0, END },
		.want = { .nr_samples = 1, .nr_user_samples = 1, .nr_lost_no_task = 1 },
	},
	{
		.name = "address reuse after munmap+mmap attributes to the new file",
		.steps = {
			{ W_MMAP, 0, 400, 400, 0, 10, 0x7000, 0x2000, 0, 1, "/lib/a" },
			{ W_SAMPLE, 0, 400, 400, 0, 15, 0x7010 },
			{ W_MMAP, 1, 400, 400, 0, 20, 0x7000, 0x1000, 0x3000, 2, "/lib/b" },
			{ W_SAMPLE, 0, 400, 400, 0, 25, 0x7010 },
			{ W_SAMPLE, 0, 400, 400, 0, 26, 0x8010 },
		},
		.expect = { CPU(0), CTX(400, 1, 400), USER, COOKIE(1), 0x10, 0,
			    COOKIE(2), 0x3010, 0, COOKIE(1), 0x1010, 0, END },
		.want = { .nr_samples = 3, .nr_user_samples = 3 },
		.cookies = { { 1, KOP_IMAGE_FILE, "/lib/a" }, { 2, KOP_IMAGE_FILE, "/lib/b" } },
	},
	{
		.name = "an MMAP2 in a sample ring is counted as bad, not applied",
		.steps = {
			{ W_MMAP, 0, 400, 400, 0, 10, 0x7000, 0x2000, 0, 1, "/lib/a" },
			{ W_MMAP, 1, 400, 400, 0, 12, 0x7000, 0x2000, 0, 2, "/lib/b", .sample_ring = true },
			{ W_SAMPLE, 0, 400, 400, 0, 15, 0x7010 },
		},
		.expect = { CPU(0), CTX(400, 1, 400), USER, COOKIE(1), 0x10, 0, END },
		.want = { .nr_samples = 1, .nr_user_samples = 1, .nr_bad_records = 1 },
		.cookies = { { 1, KOP_IMAGE_FILE, "/lib/a" } },
	},
	{
		.name = "a task seen only by its samples is read from /proc/PID/maps",
		.steps = {
			{ PROC_ADD, 0, 500, .name = "00400000-00402000 r-xp 00001000 08:01 77 /opt/only\n", .exe = "/opt/only" },
			{ W_SAMPLE, 0, 500, 501, 0, 5, 0x400100 },
			{ W_SAMPLE, 0, 500, 500, 0, 6, 0x400104 },
		},
		.expect = { CPU(0), CTX(501, 1, 500), USER, COOKIE(1), 0x1100, 0,
			    CTX(500, 1, 500), USER, COOKIE(1), 0x1104, 0, END },
		.want = { .nr_samples = 2, .nr_user_samples = 2 },
		.cookies = { { 1, KOP_IMAGE_FILE, "/opt/only" } },
	},
	{
		.name = "lost records are counted per CPU and passed on as DROPPED",
		.steps = {
			{ W_LOST, 0, .time = 5, .len = 7 },
			{ W_KSAMPLE, 0, 0, 0, 0, 6, KTEXT + 0x40 },
		},
		.expect = { CPU(0), DROPPED(7), CTX(0, 0, 0), KERN, KTEXT + 0x40, 0, END },
		.want = { .nr_samples = 1, .nr_kernel_samples = 1, .nr_lost_ring = 7 },
	},
	{
		.name = "lost side-band records are no lost samples: counted apart, no DROPPED",
		.steps = {
			{ W_LOST, 0, .time = 5, .len = 9, .ring = 1 },
			{ W_KSAMPLE, 0, 0, 0, 0, 6, KTEXT + 0x40 },
		},
		.expect = { CPU(0), CTX(0, 0, 0), KERN, KTEXT + 0x40, 0, END },
		.want = { .nr_samples = 1, .nr_kernel_samples = 1, .nr_lost_sideband = 9 },
	},
	{
		.name = "a task past the release of its pid (pid/tid -1) goes to the kernel's context",
		.steps = {
			{ W_KSAMPLE, 0, UINT32_MAX, UINT32_MAX, 0, 5, KTEXT + 0x40 },
			{ W_KSAMPLE, 0, 0, 0, 0, 6, KTEXT + 0x48 },
			{ W_KSAMPLE, 1, 0, UINT32_MAX, 0, 7, KTEXT + 0x50 },
		},
		.expect = { CPU(0), CTX(0, 0, 0), KERN, KTEXT + 0x40, 0, KTEXT + 0x48, 0,
			    CPU(1), CTX(0, 0, 0), KERN, KTEXT + 0x50, 0, END },
		.want = { .nr_samples = 3, .nr_kernel_samples = 3 },
	},
	{
		.name = "a THROTTLE record marks its ring's event throttled",
		.steps = {
			{ W_RAW, 0, .ppid = PERF_RECORD_THROTTLE, .len = 56, .time = 5 },
			{ W_KSAMPLE, 0, 0, 0, 0, 6, KTEXT + 0x80 },
		},
		.expect = { CPU(0), CTX(0, 0, 0), KERN, KTEXT + 0x80, 0, END },
		.want = { .nr_samples = 1, .nr_kernel_samples = 1, .throttled = 1 },
	},
	{
		.name = "a THROTTLE record on the side-band ring throttles no event",
		.steps = {
			{ W_RAW, 0, .ppid = PERF_RECORD_THROTTLE, .len = 56, .time = 5, .ring = 1 },
			{ W_KSAMPLE, 0, 0, 0, 0, 6, KTEXT + 0x80 },
		},
		.expect = { CPU(0), CTX(0, 0, 0), KERN, KTEXT + 0x80, 0, END },
		.want = { .nr_samples = 1, .nr_kernel_samples = 1, .throttled = 0 },
	},
	{
		.name = "an unknown record type is counted and skipped",
		.steps = {
			{ W_RAW, 0, .ppid = 99, .len = 40, .time = 5 },
			{ W_RAW, 0, .ppid = PERF_RECORD_SAMPLE, .len = 16, .time = 5 },
			{ W_KSAMPLE, 0, 0, 0, 0, 6, KTEXT + 0x80 },
		},
		.expect = { CPU(0), CTX(0, 0, 0), KERN, KTEXT + 0x80, 0, END },
		.want = { .nr_samples = 1, .nr_kernel_samples = 1, .nr_bad_records = 2 },
	},
	{
		.name = "an existing process's maps are read at start; [vdso] and unmapped pcs are anonymous",
		.procs = { { PROC_ADD, 0, 600, .name =
			"00400000-00401000 r--p 00000000 08:01 10 /usr/bin/six\n"
			"00401000-00402000 r-xp 00001000 08:01 10 /usr/bin/six\n"
			"7fff0000-7fff2000 r-xp 00000000 00:00 0                          [vdso]\n"
			"garbage line\n",
			.exe = "/usr/bin/six" } },
		.steps = {
			{ W_SAMPLE, 0, 600, 600, 0, 5, 0x401010 },
			{ W_SAMPLE, 0, 600, 600, 0, 6, 0x7fff0100 },
			{ W_SAMPLE, 0, 600, 600, 0, 7, 0x12345 },
		},
		.expect = { CPU(0), CTX(600, 1, 600), USER, COOKIE(1), 0x1010, 0,
			    COOKIE(2), 0x100, 0, COOKIE(3), 0x12345, 0, END },
		.want = { .nr_samples = 3, .nr_user_samples = 3, .nr_anon_samples = 2 },
		.cookies = { { 1, KOP_IMAGE_FILE, "/usr/bin/six" },
			     { 2, KOP_IMAGE_ANON, "[vdso]", 0x7fff0000 },
			     { 3, KOP_IMAGE_ANON, "anon", 0 } },
	},
	{
		/* a program run from a memfd (fexecve): its text is an
		 * anonymous region, its application the memfd's name */
		.name = "exec of a memfd: the memfd names the application",
		.steps = {
			{ W_EXEC, 0, 740, 740, 0, 10, .name = "runc" },
			{ W_MMAP, 0, 740, 740, 0, 11, 0x400000, 0x2000, 0, 77, "/memfd:runc (deleted)" },
			{ W_MMAP, 0, 740, 740, 0, 12, 0x7f0000000000, 0x1000, 0, 78, "/usr/lib/libc.so.6" },
			{ W_SAMPLE, 0, 740, 740, 0, 20, 0x401010 },
		},
		.expect = { CPU(0), CTX(740, 2, 740), USER, COOKIE(1), 0x1010, 0, END },
		.want = { .nr_samples = 1, .nr_user_samples = 1, .nr_anon_samples = 1 },
		.cookies = { { 1, KOP_IMAGE_ANON, "/memfd:runc (deleted)", 0x400000 },
			     { 2, KOP_IMAGE_FILE, "/memfd:runc (deleted)" },
			     { 3, KOP_IMAGE_FILE, "/usr/lib/libc.so.6" } },
	},
	{
		.name = "an existing process run from a memfd: /proc/PID/exe names the application",
		.procs = { { PROC_ADD, 0, 750, .name =
			"00400000-00402000 r-xp 00000000 08:01 77 /memfd:runc (deleted)\n",
			.exe = "/memfd:runc (deleted)" } },
		.steps = {
			{ W_SAMPLE, 0, 750, 750, 0, 5, 0x401010 },
		},
		.expect = { CPU(0), CTX(750, 2, 750), USER, COOKIE(1), 0x1010, 0, END },
		.want = { .nr_samples = 1, .nr_user_samples = 1, .nr_anon_samples = 1 },
		.cookies = { { 1, KOP_IMAGE_ANON, "/memfd:runc (deleted)", 0x400000 },
			     { 2, KOP_IMAGE_FILE, "/memfd:runc (deleted)" } },
	},
	{
		.name = "a kernel sample outside every range re-reads modules and emits MODULE_LOADED",
		.steps = {
			{ PROC_FILE, .name = "modules", .exe = "ext4 8192 1 - Live 0xffffffffc0001000\n" },
			{ W_KSAMPLE, 0, 0, 0, 0, 5, 0xffffffffc0001010 },
			{ W_KSAMPLE, 0, 0, 0, 0, 6, 0xffffffffc0001020 },
		},
		.expect = { CPU(0), MODLOAD, CTX(0, 0, 0), KERN, 0xffffffffc0001010, 0,
			    0xffffffffc0001020, 0, END },
		.want = { .nr_samples = 2, .nr_kernel_samples = 2, .nr_module_loads = 1 },
	},
	{
		.name = "fork copies the parent's mappings and executable",
		.procs = { { PROC_ADD, 0, 700, .name = "00400000-00401000 r-xp 00000000 08:01 5 /usr/bin/sh\n", .exe = "/usr/bin/sh" } },
		.steps = {
			{ W_FORK, 0, 701, 701, 700, 10 },
			{ W_SAMPLE, 1, 701, 701, 0, 20, 0x400010 },
			{ W_KSAMPLE, 1, 701, 701, 0, 21, KTEXT + 8 },
		},
		.expect = { CPU(1), CTX(701, 1, 701), USER, COOKIE(1), 0x10, 0,
			    KERN, KTEXT + 8, 0, END },
		.want = { .nr_samples = 2, .nr_user_samples = 1, .nr_kernel_samples = 1 },
	},
	{
		/* the parent execs and forks before its first mapping: copying
		 * its (empty) table is what UBSan caught aborting the daemon */
		.name = "fork from a parent with no mappings yet",
		.steps = {
			{ W_EXEC, 0, 720, 720, 0, 10, .name = "sh" },
			{ W_FORK, 0, 721, 721, 720, 11 },
			{ W_KSAMPLE, 0, 721, 721, 0, 12, KTEXT + 8 },
		},
		.expect = { CPU(0), CTX(721, 0, 721), KERN, KTEXT + 8, 0, END },
		.want = { .nr_samples = 1, .nr_kernel_samples = 1 },
	},
	{
		.name = "records that wrap the end of the ring are copied out whole",
		.steps = {
			{ W_FILL, 0, .len = 341 },	/* 341 * 48 = 16368 of 16384 */
			{ SYNC },
			{ DRAIN },
			{ W_MMAP, 0, 800, 800, 0, 10, 0x400000, 0x1000, 0, 3, "/usr/lib/a-rather-long-library-name.so" },
			{ W_SAMPLE, 0, 800, 800, 0, 11, 0x400010 },
		},
		.expect = { CPU(0), CTX(800, 1, 800), USER, COOKIE(1), 0x10, 0, END },
		.want = { .nr_samples = 342, .nr_user_samples = 1, .nr_kernel_samples = 341 },
	},
	{
		.name = "a full event buffer drops whole samples and counts them",
		.evbuf_words = 64,
		.steps = {
			{ W_MMAP, 0, 900, 900, 0, 1, 0x400000, 0x1000, 0, 3, "/bin/x" },
			{ W_FILLU, 0, 900, 900, 0, 2, 0x400010, 40 },
		},
		/* 3 + 14 + 23 * 2 = 63 words hold 24 samples */
		.expect = { CPU(0), CTX(900, 1, 900), USER, COOKIE(1),
			    0x10, 0, 0x18, 0, 0x20, 0, 0x28, 0, 0x30, 0, 0x38, 0, 0x40, 0, 0x48, 0,
			    0x50, 0, 0x58, 0, 0x60, 0, 0x68, 0, 0x70, 0, 0x78, 0, 0x80, 0, 0x88, 0,
			    0x90, 0, 0x98, 0, 0xa0, 0, 0xa8, 0, 0xb0, 0, 0xb8, 0, 0xc0, 0, 0xc8, 0,
			    END },
		.want = { .nr_samples = 24, .nr_user_samples = 24, .nr_lost_evbuf = 16 },
	},
	{
		.name = "a sample met again in a block is written once, with its count",
		.steps = {
			{ W_MMAP, 0, 950, 950, 0, 1, 0x400000, 0x1000, 0, 3, "/bin/x" },
			{ W_SAMPLE, 0, 950, 950, 0, 11, 0x400010 },
			{ W_SAMPLE, 0, 950, 950, 0, 12, 0x400020 },
			{ W_SAMPLE, 0, 950, 950, 0, 13, 0x400010 },
			{ W_KSAMPLE, 0, 950, 950, 0, 14, KTEXT + 8 },
			{ W_SAMPLE, 0, 950, 950, 0, 15, 0x400010 },
			{ W_KSAMPLE, 0, 950, 950, 0, 16, KTEXT + 8 },
			/* another thread's: another sample */
			{ W_SAMPLE, 0, 950, 951, 0, 17, 0x400010 },
			{ SYNC },
			/* a new block: counted anew */
			{ W_SAMPLE, 0, 950, 950, 0, 18, 0x400010 },
		},
		.expect = { CPU(0), CTX(950, 1, 950), USER, COOKIE(1),
			    COUNT(3), 0x10, 0, 0x20, 0, KERN, COUNT(2), KTEXT + 8, 0,
			    CTX(951, 1, 950), USER, COOKIE(1), 0x10, 0,
			    CPU(0), CTX(950, 1, 950), USER, COOKIE(1), 0x10, 0, END },
		.want = { .nr_samples = 8, .nr_user_samples = 6, .nr_kernel_samples = 2 },
	},
};

static void run_step(struct fixture *fx, const struct step *st)
{
	unsigned char rec[4096];
	char name[64];

	switch (st->op) {
	case W_SAMPLE:
	case W_KSAMPLE:
		if (st->chain)
			put(fx, st->cpu, rec, fake_sample_chain(rec, st->op == W_KSAMPLE,
								st->pid, st->tid, st->time, st->addr,
								st->nr_said ? st->nr_said : st->nr_chain,
								st->chain, st->nr_chain));
		else
			put(fx, st->cpu, rec, fake_sample(rec, st->op == W_KSAMPLE,
							  st->pid, st->tid, st->time, st->addr));
		break;
	case W_MMAP:
		put_ring(fx, st->cpu, st->sample_ring ? 0 : SIDEBAND_RING, rec, fake_mmap2(rec, st->pid, st->addr, st->len,
						 st->pgoff, 8, 1, st->ino,
						 st->name, st->time));
		break;
	case W_EXEC:
		put_ring(fx, st->cpu, SIDEBAND_RING, rec, fake_comm(rec, true, st->pid, st->name,
						st->time));
		break;
	case W_FORK:
	case W_EXIT:
		put_ring(fx, st->cpu, SIDEBAND_RING, rec, fake_task(rec, st->op == W_EXIT, st->pid,
						st->op == W_FORK ? st->ppid : st->pid,
						st->time));
		break;
	case W_LOST:
		put_ring(fx, st->cpu, st->ring, rec, fake_lost(rec, st->len, st->time));
		break;
	case W_RAW:
		put_ring(fx, st->cpu, st->ring, rec,
			 fake_raw(rec, st->ppid, st->len, st->time));
		break;
	case W_FILL:
		for (uint64_t i = 0; i < st->len; i++)
			put(fx, st->cpu, rec, fake_sample(rec, true, 0, 0, 1 + i,
							  KTEXT + 0x10));
		break;
	case W_FILLU:
		for (uint64_t i = 0; i < st->len; i++)
			put(fx, st->cpu, rec, fake_sample(rec, false, st->pid,
							  st->tid, st->time + i,
							  st->addr + 8 * i));
		break;
	case SYNC:
		assert_int_equal(kop_session_sync(fx->s), 0);
		break;
	case DRAIN:
		drain(fx);
		break;
	case PROC_ADD:
		proc_add(fx->dir, st->pid, st->name, st->exe);
		break;
	case PROC_RM:
		proc_rm(fx->dir, st->pid);
		break;
	case PROC_FILE:
		snprintf(name, sizeof(name), "%s", st->name);
		write_under(fx->dir, name, st->exe);
		break;
	case S_END:
		break;
	}
}

static void run_case(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr ev = cpu_clock();
	const struct kcase *c = fx->c;
	uint64_t got[4096];
	size_t nr_got = 0, nr_want = 0;
	ssize_t n;
	struct kop_stats st;

	for (size_t i = 0; i < 4 && c->procs[i].op; i++)
		run_step(fx, &c->procs[i]);
	fx_start(fx, &ev, 1, c->evbuf_words, c->callgraph);
	for (size_t i = 0; i < 24 && c->steps[i].op; i++)
		run_step(fx, &c->steps[i]);
	assert_int_equal(kop_session_sync(fx->s), 0);
	assert_int_equal(kop_session_stop(fx->s), 0);
	while ((n = kop_evbuf_read(fx->s, got + nr_got, 4096 - nr_got, 0)) > 0)
		nr_got += (size_t)n;
	assert_int_equal(n, -EPIPE);
	while (c->expect[nr_want] != END)
		nr_want++;
	for (size_t i = 0; i < nr_want && i < nr_got; i++)
		if (got[i] != c->expect[i])
			fail_msg("%s: word %zu is %#llx, want %#llx\nlog:\n%s",
				 c->name, i, (unsigned long long)got[i],
				 (unsigned long long)c->expect[i], fx->log);
	if (nr_got != nr_want)
		fail_msg("%s: %zu words, want %zu\nlog:\n%s", c->name, nr_got,
			 nr_want, fx->log);
	assert_int_equal(kop_stats_get(fx->s, &st), 0);
	assert_int_equal(st.nr_samples, c->want.nr_samples);
	assert_int_equal(st.nr_kernel_samples, c->want.nr_kernel_samples);
	assert_int_equal(st.nr_user_samples, c->want.nr_user_samples);
	assert_int_equal(st.nr_anon_samples, c->want.nr_anon_samples);
	assert_int_equal(st.nr_lost_ring, c->want.nr_lost_ring);
	assert_int_equal(st.nr_lost_evbuf, c->want.nr_lost_evbuf);
	assert_int_equal(st.nr_lost_no_task, c->want.nr_lost_no_task);
	assert_int_equal(st.nr_bad_records, c->want.nr_bad_records);
	assert_int_equal(st.nr_module_loads, c->want.nr_module_loads);
	assert_int_equal(st.nr_chains, c->want.nr_chains);
	assert_int_equal(st.nr_bt_lost_no_mapping, c->want.nr_bt_lost_no_mapping);
	assert_int_equal(st.nr_bt_truncated, c->want.nr_bt_truncated);
	assert_int_equal(st.nr_bt_aborted, c->want.nr_bt_aborted);
	assert_int_equal(st.nr_lost_sideband, c->want.nr_lost_sideband);
	assert_int_equal(st.throttled, c->want.throttled);
	assert_int_equal(st.nr_cpus, 2);
	assert_int_equal(st.nr_lost_ring_cpu[0], c->want.nr_lost_ring);
	assert_int_equal(st.nr_samples_cpu[0] + st.nr_samples_cpu[1],
			 c->want.nr_samples);
	kop_stats_release(&st);
	for (size_t i = 0; i < 4 && c->cookies[i].cookie; i++) {
		const struct cookie_want *w = &c->cookies[i];
		struct kop_dcookie_info info;

		assert_int_equal(kop_dcookie_lookup(fx->s, w->cookie, &info), 0);
		assert_int_equal(info.kind, w->kind);
		assert_string_equal(info.path, w->path);
		if (w->kind == KOP_IMAGE_ANON)
			assert_int_equal(info.start, w->start);
		else
			assert_int_equal(info.dev, makedev(8, 1));
	}
}

int main(void)
{
	struct CMUnitTest tests[sizeof(cases) / sizeof(cases[0])];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tests[n++] = (struct CMUnitTest){ cases[i].name, run_case,
			fx_setup, fx_teardown, (void *)&cases[i] };
	return _cmocka_run_group_tests("kmod", tests, n, NULL, NULL);
}
