/* kmod unit tests: the real sync code driven through kop_source_ops with
 * in-memory rings of the exact perf layout. Each case writes records into
 * the rings of a 2-CPU fake source, syncs, stops, and compares the event
 * stream word by word (and the counters) with what it expects. */
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

#include "fake_ring.h"
#include "kop.h"
#include "kop_evbuf.h"
#include "kop_task.h"
#include "op_kernel.h"
#include "op_proto.h"
#include "stream_walk.h"
#include "testutil.h"

#define ESC OP_ESCAPE_CODE
#define CPU(n) ESC, OP_CPU_SWITCH, (n)
#define CTX(tid, app, tgid) ESC, OP_CTX_SWITCH, (tid), (app), ESC, OP_CTX_TGID, (tgid)
#define USER ESC, OP_USER_ENTER
#define KERN ESC, OP_KERNEL_ENTER
#define COOKIE(c) ESC, OP_COOKIE_SWITCH, (c)
#define DROPPED(n) ESC, OP_DROPPED, (n)
#define COUNT(n) ESC, OP_SAMPLE_COUNT, (n)
#define MODLOAD ESC, OP_MODULE_LOADED
#define END 0x5a5a5a5a5a5a5a5aULL

#define KTEXT 0xffffffff81000000ULL
static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 t do_something\n"
	"ffffffff82000000 T _etext\n"
	"ffffffffc0002000 t mod_fn\t[ext4]\n";

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

struct fixture {
	const struct kcase *c;
	char *dir;
	struct fake_src src;
	struct kop_session *s;
	char log[4096];
};

static void capture(void *ctx, enum op_log_level level, const char *msg)
{
	struct fixture *fx = ctx;
	size_t n = strlen(fx->log);

	snprintf(fx->log + n, sizeof(fx->log) - n, "%s\n", msg);
}

static void write_under(const char *dir, const char *name, const char *text)
{
	char *p = tu_path(dir, name);

	assert_int_equal(tu_write_file(p, text, strlen(text)), 0);
	free(p);
}

static void proc_add(const char *dir, const struct step *st)
{
	char name[64], *p;

	snprintf(name, sizeof(name), "%u", st->pid);
	p = tu_path(dir, name);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	snprintf(name, sizeof(name), "%u/maps", st->pid);
	write_under(dir, name, st->name);
	if (st->exe) {
		snprintf(name, sizeof(name), "%u/exe", st->pid);
		p = tu_path(dir, name);
		assert_int_equal(symlink(st->exe, p), 0);
		free(p);
	}
}

static void proc_rm(const char *dir, uint32_t pid)
{
	char name[64], *p;

	snprintf(name, sizeof(name), "%u", pid);
	p = tu_path(dir, name);
	assert_int_equal(tu_rm_rf(p), 0);
	free(p);
}

static struct perf_event_attr cpu_clock(void)
{
	struct perf_event_attr a = { 0 };

	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;
	return a;
}

static int fx_setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->c = *state;
	fx->dir = tu_mkdtemp();
	assert_non_null(fx->dir);
	write_under(fx->dir, "kallsyms", kallsyms);
	fx->src.nr_cpus = 2;
	*state = fx;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fixture *fx = *state;

	kop_session_free(fx->s);
	for (int i = 0; i < fx->src.nr_rings; i++)
		assert_null(fx->src.rings[i].mem);	/* every ring unmapped */
	tu_rm_rf(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

static void fx_start(struct fixture *fx, const struct perf_event_attr *ev,
		     unsigned int nr_ev, size_t evbuf_words, unsigned int callgraph)
{
	struct kop_config cfg = {
		.events = ev, .nr_events = nr_ev, .pid = -1,
		.cpu_buffer_size = 16384, .evbuf_words = evbuf_words,
		.callgraph_depth = callgraph,
		.sync_interval_ms = 600000, .proc_root = fx->dir,
		.ops = &fake_ops, .ops_ctx = &fx->src,
		.log = { capture, fx, OP_LOG_DEBUG },
	};

	assert_int_equal(kop_session_new(&cfg, &fx->s), 0);
	assert_int_equal(kop_session_start(fx->s), 0);
}

/* the fixture's rings on each CPU: the one event's, then the side-band one */
#define SIDEBAND_RING 1

static void put_ring(struct fixture *fx, int cpu, unsigned int ring,
		     const void *rec, size_t size)
{
	struct fake_ring *r = fake_find(&fx->src, cpu, ring);

	assert_non_null(r);
	assert_true(fake_write(r, rec, size));
}

static void put(struct fixture *fx, int cpu, const void *rec, size_t size)
{
	struct fake_ring *r = fake_find(&fx->src, cpu, 0);

	assert_non_null(r);
	assert_true(fake_write(r, rec, size));
}

static void drain(struct fixture *fx)
{
	uint64_t buf[4096];

	while (kop_evbuf_read(fx->s, buf, 4096, 0) > 0)
		;
}

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
		proc_add(fx->dir, st);
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

/* ---- the event buffer's read contract ---- */

static void test_read_never_splits(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr ev = cpu_clock();
	unsigned char rec[4096];
	uint64_t buf[64];
	ssize_t n;

	fx_start(fx, &ev, 1, 0, 0);
	put_ring(fx, 0, SIDEBAND_RING, rec, fake_mmap2(rec, 42, 0x1000, 0x1000, 0, 8, 1, 9, "/bin/z", 1));
	put(fx, 0, rec, fake_sample(rec, false, 42, 42, 2, 0x1008));
	put(fx, 0, rec, fake_sample(rec, false, 42, 42, 3, 0x1008));
	assert_int_equal(kop_session_sync(fx->s), 0);
	/* CPU(0) is 3 words, CTX 4 + TGID 3: max 5 takes only CPU_SWITCH */
	assert_int_equal(kop_evbuf_read(fx->s, buf, KOP_EVBUF_MIN_READ - 1, 0), -EINVAL);
	n = kop_evbuf_read(fx->s, buf, 5, 0);
	assert_int_equal(n, 3);
	assert_int_equal(buf[1], OP_CPU_SWITCH);
	n = kop_evbuf_read(fx->s, buf, 6, 0);
	assert_int_equal(n, 4);		/* CTX_SWITCH, not half of TGID */
	assert_int_equal(buf[1], OP_CTX_SWITCH);
	n = kop_evbuf_read(fx->s, buf, 6, 0);
	assert_int_equal(n, 3 + 2);	/* CTX_TGID, USER_ENTER */
	/* COOKIE_SWITCH 3, then SAMPLE_COUNT 2 (3) and its sample (2): a
	 * read of 7 stops after the cookie, not between count and sample */
	n = kop_evbuf_read(fx->s, buf, 7, 0);
	assert_int_equal(n, 3);
	assert_int_equal(buf[1], OP_COOKIE_SWITCH);
	n = kop_evbuf_read(fx->s, buf, KOP_EVBUF_MIN_READ, 0);
	assert_int_equal(n, 3 + 2);
	assert_int_equal(buf[1], OP_SAMPLE_COUNT);
	assert_int_equal(buf[2], 2);
	assert_int_equal(buf[3], 8);
	/* nothing left: a timed read times out with 0 */
	assert_int_equal(kop_evbuf_read(fx->s, buf, 64, 20), 0);
	assert_int_equal(kop_session_stop(fx->s), 0);
	assert_int_equal(kop_evbuf_read(fx->s, buf, 64, -1), -EPIPE);
}

/* A read of less than all stops at a mark the writer set at the end of a
 * whole sample, not after a walk over the words; compaction keeps the
 * marks on the same words. */
static void test_read_cuts_at_marks(void **state)
{
	struct kop_evbuf b;
	uint64_t *got = malloc(40000 * sizeof(*got)), buf[5000];
	size_t nr_got = 0, w = 0;
	ssize_t n;

	(void)state;
	assert_non_null(got);
	assert_int_equal(kop_evbuf_init(&b, 30000, 1), 0);
	pthread_mutex_lock(&b.lock);
	for (; w < 12000; w++) {	/* samples: offset, event 0 */
		assert_true(kop_evbuf_room(&b, 2));
		kop_evbuf_put(&b, w);
		kop_evbuf_put(&b, 0);
		kop_evbuf_mark(&b);
	}
	pthread_mutex_unlock(&b.lock);
	assert_true(b.nr_marks > 8);
	for (int i = 0; i < 3; i++) {
		n = kop_evbuf_read_words(&b, buf, 5000, 0);
		/* marks at 2048, 4096...: the last that fits, not 5000 */
		assert_int_equal(n, 2 * KOP_EVBUF_MARK_STEP);
		assert_int_equal(n % 2, 0);
		memcpy(got + nr_got, buf, (size_t)n * sizeof(*buf));
		nr_got += (size_t)n;
	}
	/* more than the room at the end: the writer compacts */
	pthread_mutex_lock(&b.lock);
	for (; w < 18000; w++) {
		assert_true(kop_evbuf_room(&b, 2));
		kop_evbuf_put(&b, w);
		kop_evbuf_put(&b, 0);
		kop_evbuf_mark(&b);
	}
	pthread_mutex_unlock(&b.lock);
	while ((n = kop_evbuf_read_words(&b, buf, 5000, 0)) > 0) {
		assert_int_equal(n % 2, 0);
		memcpy(got + nr_got, buf, (size_t)n * sizeof(*buf));
		nr_got += (size_t)n;
	}
	assert_int_equal(nr_got, 2 * w);
	for (size_t i = 0; i < w; i++) {
		assert_int_equal(got[2 * i], i);
		assert_int_equal(got[2 * i + 1], 0);
	}
	assert_int_equal(b.nr_marks, 0);
	kop_evbuf_release(&b);
	free(got);
}

struct reader_arg {
	struct kop_session *s;
	ssize_t n;
	uint64_t buf[64];
};

static void *blocking_reader(void *p)
{
	struct reader_arg *a = p;

	a->n = kop_evbuf_read(a->s, a->buf, 64, -1);
	return NULL;
}

static void test_blocking_read_wakes_at_sync_end(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr ev = cpu_clock();
	unsigned char rec[4096];
	struct reader_arg a = { 0 };
	pthread_t t;

	fx_start(fx, &ev, 1, 0, 0);
	a.s = fx->s;
	assert_int_equal(pthread_create(&t, NULL, blocking_reader, &a), 0);
	put(fx, 1, rec, fake_sample(rec, true, 0, 0, 2, KTEXT + 4));
	assert_int_equal(kop_session_sync(fx->s), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(a.n, 3 + 7 + 2 + 2);
	assert_int_equal(a.buf[2], 1);
	assert_int_equal(a.buf[a.n - 2], KTEXT + 4);
}

/* ---- build-ids ---- */

static size_t mmap2_bid(void *buf, uint32_t pid, uint64_t addr,
			const char *name, uint8_t fill, uint64_t time)
{
	unsigned char *p = buf;
	size_t n = fake_mmap2(buf, pid, addr, 0x1000, 0, 0, 0, 0, name, time);
	struct perf_event_header h;

	memcpy(&h, p, sizeof(h));
	h.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	memcpy(p, &h, sizeof(h));
	memset(p + 8 + 32, 0, 24);
	p[8 + 32] = 20;			/* build_id_size */
	memset(p + 8 + 36, fill, 20);	/* build_id */
	return n;
}

/* MMAP2 with a build-id (no dev/ino) names the same cookie as /proc's
 * (dev, ino) entry for the same file, and adopts the build-id; another
 * build-id at the same path is another file. */
static void test_build_id_cookies(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr ev = cpu_clock();
	char *lib = tu_path(fx->dir, "lib.so"), maps[512];
	unsigned char rec[4096];
	struct stat st;
	struct kop_dcookie_info info;
	struct step pa = { PROC_ADD, 0, 220, .name = maps, .exe = NULL };
	uint64_t got[256];
	ssize_t n;

	assert_int_equal(tu_write_file(lib, "x", 1), 0);
	assert_int_equal(stat(lib, &st), 0);
	snprintf(maps, sizeof(maps), "00400000-00401000 r-xp 00000000 %02x:%02x %llu %s\n",
		 major(st.st_dev), minor(st.st_dev),
		 (unsigned long long)st.st_ino, lib);
	proc_add(fx->dir, &pa);
	fx_start(fx, &ev, 1, 0, 0);
	put_ring(fx, 0, SIDEBAND_RING, rec, mmap2_bid(rec, 220, 0x500000, lib, 0xaa, 10));
	put_ring(fx, 0, SIDEBAND_RING, rec, mmap2_bid(rec, 220, 0x600000, "/no/such/file", 0xbb, 11));
	put_ring(fx, 0, SIDEBAND_RING, rec, mmap2_bid(rec, 220, 0x700000, lib, 0xcc, 12));
	put(fx, 0, rec, fake_sample(rec, false, 220, 220, 20, 0x400010));
	put(fx, 0, rec, fake_sample(rec, false, 220, 220, 21, 0x500010));
	put(fx, 0, rec, fake_sample(rec, false, 220, 220, 22, 0x600010));
	put(fx, 0, rec, fake_sample(rec, false, 220, 220, 23, 0x700010));
	assert_int_equal(kop_session_stop(fx->s), 0);
	n = kop_evbuf_read(fx->s, got, 256, 0);
	{
		const uint64_t want[] = { CPU(0), CTX(220, 0, 220), USER,
			COOKIE(1), COUNT(2), 0x10, 0, COOKIE(2), 0x10, 0,
			COOKIE(3), 0x10, 0 };

		assert_int_equal(n, sizeof(want) / sizeof(want[0]));
		assert_memory_equal(got, want, sizeof(want));
	}
	assert_int_equal(kop_dcookie_lookup(fx->s, 1, &info), 0);
	assert_string_equal(info.path, lib);
	assert_int_equal(info.ino, st.st_ino);
	assert_int_equal(info.build_id_size, 20);
	assert_int_equal(info.build_id[19], 0xaa);
	assert_int_equal(kop_dcookie_lookup(fx->s, 2, &info), 0);
	assert_string_equal(info.path, "/no/such/file");
	assert_int_equal(info.ino, 0);
	assert_int_equal(info.build_id[0], 0xbb);
	assert_int_equal(kop_dcookie_lookup(fx->s, 3, &info), 0);
	assert_string_equal(info.path, lib);
	assert_int_equal(info.build_id[0], 0xcc);
	assert_int_equal(kop_dcookie_lookup(fx->s, 4, &info), -ENOENT);
	assert_int_equal(kop_dcookie_lookup(fx->s, OP_NO_COOKIE, &info), -ENOENT);
	free(lib);
}

/* The tests' stream walker must refuse what the decoder would count as
 * bad, or the checks built on it prove nothing. */
static void test_stream_walk(void **state)
{
	static const uint64_t good[] = { CPU(1), CTX(7, 3, 6), USER, COOKIE(4),
					  0x10, 0, DROPPED(5), KERN, KTEXT, 1 };
	static const uint64_t unknown[] = { CPU(0), 0x10, 0, ESC, OP_NR_CODES, 0x10, 0 };
	static const uint64_t cut_escape[] = { 0x10, 0, ESC, OP_CTX_SWITCH, 7 };
	static const uint64_t cut_sample[] = { CPU(0), 0x10 };
	struct stream_state st = { 0 };
	size_t bad = 0;

	assert_int_equal(stream_walk(&st, good, sizeof(good) / sizeof(good[0]),
				     NULL, NULL, &bad), 0);
	assert_int_equal(st.cpu, 1);
	assert_int_equal(st.tid, 7);
	assert_int_equal(st.app, 3);
	assert_int_equal(st.tgid, 6);
	assert_int_equal(st.cookie, 4);
	assert_true(st.kernel);
	assert_int_equal(st.nr_samples, 2);
	assert_int_equal(st.nr_dropped, 5);

	memset(&st, 0, sizeof(st));
	assert_int_equal(stream_walk(&st, unknown, sizeof(unknown) / sizeof(unknown[0]),
				     NULL, NULL, &bad), -EINVAL);
	assert_int_equal(bad, 5);
	assert_int_equal(st.nr_samples, 1);
	assert_int_equal(stream_walk(&st, cut_escape, sizeof(cut_escape) / sizeof(cut_escape[0]),
				     NULL, NULL, &bad), -EINVAL);
	assert_int_equal(bad, 2);
	assert_int_equal(stream_walk(&st, cut_sample, sizeof(cut_sample) / sizeof(cut_sample[0]),
				     NULL, NULL, &bad), -EINVAL);
	assert_int_equal(bad, 3);
	(void)state;
}

/* ---- garbage in the rings ---- */

/* Records of every type and random bodies, sizes and misc bits, as a
 * confused or hostile ring could hold: the sync must count, skip, keep
 * going, and write a stream that decodes. */
static void test_garbage_records(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr ev = cpu_clock();
	unsigned char rec[4096];
	uint32_t x = 2463534242u;
	uint64_t buf[4096];
	ssize_t n;
	struct kop_stats st;
	struct stream_state walk = { 0 };
	unsigned long nr_written = 0;

	fx_start(fx, &ev, 1, 0, 0);
	for (int round = 0; round < 20; round++) {
		for (unsigned int ring = 0; ring < 2; ring++) {
			struct fake_ring *r = fake_find(&fx->src, round & 1, ring);

			for (;;) {
				struct perf_event_header h;
				size_t size;

				x ^= x << 13, x ^= x >> 17, x ^= x << 5;
				size = 8 + 8 * (x % 40);
				for (size_t i = 0; i < size; i++) {
					x ^= x << 13, x ^= x >> 17, x ^= x << 5;
					rec[i] = (unsigned char)x;
				}
				h.type = x % 24;
				h.misc = (uint16_t)(x >> 8);
				h.size = (uint16_t)size;
				memcpy(rec, &h, sizeof(h));
				if (!fake_write(r, rec, size))
					break;
				nr_written++;
			}
		}
		assert_int_equal(kop_session_sync(fx->s), 0);
		while ((n = kop_evbuf_read(fx->s, buf, 4096, 0)) > 0)
			assert_int_equal(stream_walk(&walk, buf, (size_t)n,
						     NULL, NULL, NULL), 0);
	}
	assert_int_equal(kop_stats_get(fx->s, &st), 0);
	assert_true(nr_written > 1000);
	assert_true(st.nr_bad_records > 0);
	kop_stats_release(&st);
	/* and it still works */
	put(fx, 0, rec, fake_sample(rec, true, 0, 0, UINT64_MAX - 1, KTEXT));
	assert_int_equal(kop_session_stop(fx->s), 0);
	assert_int_equal(kop_stats_get(fx->s, &st), 0);
	assert_true(st.nr_kernel_samples > 0);
	kop_stats_release(&st);
}

/* ---- what is asked of the kernel ---- */

static void test_attrs_and_offline_cpu(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr ev[2] = { cpu_clock(), cpu_clock() };
	struct fake_ring *r;

	ev[1].config = PERF_COUNT_SW_TASK_CLOCK;
	fx->src.nr_cpus = 3;
	fx->src.offline = 1UL << 1;
	fx_start(fx, ev, 2, 0, 0);
	/* cpus 0 and 2: two events and the side-band ring each */
	assert_int_equal(fx->src.nr_rings, 6);
	assert_null(fake_find(&fx->src, 1, 0));
	r = fake_find(&fx->src, 2, 0);
	assert_non_null(r);
	assert_true(r->enabled);
	/* no CPU (the ring is the CPU's) and no PERIOD (a sample counts one) */
	assert_int_equal(r->attr.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME);
	assert_true(r->attr.sample_id_all && r->attr.use_clockid &&
		    r->attr.watermark && r->attr.disabled);
	assert_false(r->attr.context_switch);
	assert_int_equal(r->attr.clockid, CLOCK_MONOTONIC);
	assert_int_equal(r->attr.wakeup_watermark, 16384 / 4);
	assert_false(r->attr.mmap2 || r->attr.comm || r->attr.task);
	assert_int_equal(r->attr.sample_period, 1000000);
	r = fake_find(&fx->src, 2, 1);
	assert_non_null(r);
	assert_int_equal(r->attr.config, PERF_COUNT_SW_TASK_CLOCK);
	assert_false(r->attr.mmap2 || r->attr.comm || r->attr.task ||
		     r->attr.context_switch);
	/* side-band: a dummy event waking on every record */
	r = fake_find(&fx->src, 2, 2);
	assert_non_null(r);
	assert_int_equal(r->attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(r->attr.config, PERF_COUNT_SW_DUMMY);
	assert_true(r->attr.mmap2 && r->attr.comm && r->attr.comm_exec &&
		    r->attr.task && r->attr.build_id && r->attr.sample_id_all &&
		    r->attr.use_clockid);
	assert_true(r->attr.watermark);
	assert_int_equal(r->attr.wakeup_watermark, 1);
	assert_int_equal(r->len, 4096 + 4096);
	r = fake_find(&fx->src, 2, 1);
	assert_int_equal(kop_session_pause(fx->s), 0);
	assert_false(r->enabled);
	assert_int_equal(kop_session_resume(fx->s), 0);
	assert_true(r->enabled);
	assert_int_equal(kop_session_stop(fx->s), 0);
	assert_false(r->enabled);
}

/* Rings of size 0 are sized from the busiest event's rate: a second of
 * its samples, chains included, 512 KiB to 8 MiB; a given size is kept. */
static void test_auto_ring_size(void **state)
{
	static const struct {
		uint64_t period;
		bool freq;
		unsigned int depth;
		size_t cpu_buffer_size;
		const char *want;
	} cases[] = {
		{ 1000000, false, 0, 0, "kmod: 512 KiB rings per CPU" },	/* 1 kHz */
		{ 10000, false, 0, 0, "kmod: 4096 KiB rings per CPU" },	/* 100 kHz x 32 B */
		{ 10000, false, 32, 0, "kmod: 8192 KiB rings per CPU" },	/* capped */
		{ 100000, false, 8, 0, "kmod: 2048 KiB rings per CPU" },	/* 10 kHz x 128 B */
		{ 50000, true, 0, 0, "kmod: 2048 KiB rings per CPU" },	/* -F 50000 */
		{ 10000, false, 0, 65536, NULL },			/* given */
	};
	struct fixture *fx = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct perf_event_attr ev = cpu_clock();
		struct kop_config cfg = {
			.events = &ev, .nr_events = 1, .pid = -1,
			.proc_root = fx->dir, .ops = &fake_ops, .ops_ctx = &fx->src,
			.log = { capture, fx, OP_LOG_DEBUG },
			.callgraph_depth = cases[i].depth,
			.cpu_buffer_size = cases[i].cpu_buffer_size,
		};

		if (cases[i].freq) {
			ev.freq = 1;
			ev.sample_freq = cases[i].period;
		} else {
			ev.sample_period = cases[i].period;
		}
		fx->log[0] = '\0';
		assert_int_equal(kop_session_new(&cfg, &fx->s), 0);
		if (cases[i].want) {
			if (!strstr(fx->log, cases[i].want))
				fail_msg("case %zu: want '%s', log: %s", i,
					 cases[i].want, fx->log);
		} else {
			assert_null(strstr(fx->log, "rings per CPU"));
		}
		kop_session_free(fx->s);
		fx->s = NULL;
	}
}

static void test_open_failure_is_reported(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr ev = cpu_clock();
	struct kop_config cfg = {
		.events = &ev, .nr_events = 1, .pid = -1,
		.proc_root = fx->dir, .ops = &fake_ops, .ops_ctx = &fx->src,
		.log = { capture, fx, OP_LOG_DEBUG },
	};

	fx->src.fail_open_errno = EACCES;
	assert_int_equal(kop_session_new(&cfg, &fx->s), 0);
	assert_int_equal(kop_session_start(fx->s), -EACCES);
	assert_non_null(strstr(fx->log, "cannot open event 0"));
	assert_non_null(strstr(fx->log, "on cpu 0"));
	cfg.cpu_buffer_size = 12345;
	kop_session_free(fx->s);
	fx->s = NULL;
	assert_int_equal(kop_session_new(&cfg, &fx->s), -EINVAL);
	assert_null(fx->s);
}

/* A cpu mask opens only its CPUs' rings; a CPU the machine lacks, or a
 * mask of offline CPUs only, is refused with a message. */
static void test_cpu_mask(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr ev = cpu_clock();
	cpu_set_t cpus;
	struct kop_config cfg = {
		.events = &ev, .nr_events = 1, .pid = -1, .cpus = &cpus,
		.proc_root = fx->dir, .ops = &fake_ops, .ops_ctx = &fx->src,
		.log = { capture, fx, OP_LOG_DEBUG },
	};

	fx->src.nr_cpus = 4;
	fx->src.offline = 1UL << 3;
	CPU_ZERO(&cpus);
	CPU_SET(4, &cpus);
	assert_int_equal(kop_session_new(&cfg, &fx->s), -EINVAL);
	assert_non_null(strstr(fx->log, "cpu 4 was chosen"));

	CPU_ZERO(&cpus);
	CPU_SET(3, &cpus);
	assert_int_equal(kop_session_new(&cfg, &fx->s), 0);
	assert_int_equal(kop_session_start(fx->s), -ENODEV);
	assert_non_null(strstr(fx->log, "none of the chosen cpus is online"));
	kop_session_free(fx->s);
	fx->s = NULL;

	CPU_ZERO(&cpus);
	CPU_SET(1, &cpus);
	CPU_SET(3, &cpus);
	assert_int_equal(kop_session_new(&cfg, &fx->s), 0);
	CPU_ZERO(&cpus);	/* the session keeps its own copy */
	assert_int_equal(kop_session_start(fx->s), 0);
	/* cpu 1's event and side-band rings, nothing of 0, 2 or offline 3 */
	assert_int_equal(fx->src.nr_rings, 2);
	assert_non_null(fake_find(&fx->src, 1, 0));
	assert_null(fake_find(&fx->src, 0, 0));
	assert_null(fake_find(&fx->src, 2, 0));
	assert_int_equal(kop_session_stop(fx->s), 0);
}

/* ---- op_kernel: kallsyms and modules fixtures ---- */

struct kernel_case {
	const char *name;
	const char *kallsyms;	/* NULL: no file */
	const char *modules;	/* NULL: no file (normal) */
	int want_err;
	uint64_t text_start, text_end;
	size_t nr_modules;
	const char *first_module;
};

static const struct kernel_case kernel_cases[] = {
	{ "no modules file is normal", kallsyms, NULL, 0, KTEXT, 0xffffffff82000000ULL, 0, NULL },
	{ "modules sorted by address, malformed lines skipped", kallsyms,
	  "zlib 4096 0 - Live 0xffffffffc0200000\n"
	  "junk\n"
	  "ext4 8192 1 - Live 0xffffffffc0001000 (E)\n",
	  0, KTEXT, 0xffffffff82000000ULL, 2, "ext4" },
	{ "_stext when there is no _text",
	  "ffffffff81001000 T _stext\nffffffff81800000 T _etext\n", "",
	  0, 0xffffffff81001000ULL, 0xffffffff81800000ULL, 0, NULL },
	{ "kptr_restrict zeros give no text range",
	  "0000000000000000 T _text\n0000000000000000 T _etext\n", NULL,
	  -ENODATA, 0, 0, 0, NULL },
	{ "no kallsyms is an error", NULL, NULL, -ENOENT, 0, 0, 0, NULL },
};

static void test_kernel_map(void **state)
{
	struct fixture *fx = *state;
	struct op_kernel_map km;
	struct op_logger lg = { capture, fx, OP_LOG_DEBUG };
	char *p = tu_path(fx->dir, "kallsyms");

	for (size_t i = 0; i < sizeof(kernel_cases) / sizeof(kernel_cases[0]); i++) {
		const struct kernel_case *c = &kernel_cases[i];
		char *m = tu_path(fx->dir, "modules");

		unlink(p);
		unlink(m);
		free(m);
		if (c->kallsyms)
			write_under(fx->dir, "kallsyms", c->kallsyms);
		if (c->modules)
			write_under(fx->dir, "modules", c->modules);
		if (op_kernel_map_read(&km, fx->dir, &lg) != c->want_err)
			fail_msg("%s: wrong result", c->name);
		if (c->want_err)
			continue;
		assert_int_equal(km.text_start, c->text_start);
		assert_int_equal(km.text_end, c->text_end);
		assert_int_equal(km.nr_modules, c->nr_modules);
		if (c->first_module) {
			assert_string_equal(km.modules[0].name, c->first_module);
			assert_int_equal(km.modules[0].end - km.modules[0].start, 8192);
			assert_ptr_equal(op_kernel_map_find_module(&km, 0xffffffffc0001fffULL),
					 &km.modules[0]);
			assert_null(op_kernel_map_find_module(&km, 0xffffffffc0003000ULL));
		}
		assert_true(op_kernel_map_in_text(&km, c->text_start));
		assert_false(op_kernel_map_in_text(&km, c->text_end));
		op_kernel_map_release(&km);
	}
	/* a module appears: reread says it changed, then that it did not */
	write_under(fx->dir, "kallsyms", kallsyms);
	assert_int_equal(op_kernel_map_read(&km, fx->dir, &lg), 0);
	write_under(fx->dir, "modules", "ext4 8192 1 - Live 0xffffffffc0001000\n");
	assert_int_equal(op_kernel_map_reread_modules(&km, fx->dir, &lg), 1);
	assert_int_equal(op_kernel_map_reread_modules(&km, fx->dir, &lg), 0);
	assert_int_equal(km.nr_modules, 1);
	op_kernel_map_release(&km);
	free(p);
}

/* ---- the task table's mapping replacement ---- */

static void test_task_map_overlaps(void **state)
{
	struct kop_task k = { 0 };
	const struct kop_map *m;

	assert_int_equal(kop_task_map(&k, 0x1000, 0x5000, 0, 1), 0);
	assert_int_equal(kop_task_map(&k, 0x8000, 0x9000, 0, 2), 0);
	/* punch a hole in the first: head and tail survive, tail's offset moves */
	assert_int_equal(kop_task_map(&k, 0x2000, 0x3000, 0x10000, 3), 0);
	assert_int_equal(k.nr_maps, 4);
	m = kop_task_lookup(&k, 0x1fff);
	assert_int_equal(m->cookie, 1);
	assert_int_equal(kop_task_lookup(&k, 0x2000)->cookie, 3);
	m = kop_task_lookup(&k, 0x3000);
	assert_int_equal(m->cookie, 1);
	assert_int_equal(m->pgoff, 0x2000);
	assert_null(kop_task_lookup(&k, 0x6000));
	/* cover everything */
	assert_int_equal(kop_task_map(&k, 0x0, 0x10000, 0, 4), 0);
	assert_int_equal(k.nr_maps, 1);
	assert_int_equal(kop_task_lookup(&k, 0x8000)->cookie, 4);
	assert_int_equal(kop_task_map(&k, 0x10, 0x10, 0, 5), -EINVAL);
	free(k.maps);
	free(k.starts);
	(void)state;
}

int main(void)
{
	struct CMUnitTest tests[sizeof(cases) / sizeof(cases[0]) + 14];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tests[n++] = (struct CMUnitTest){ cases[i].name, run_case,
			fx_setup, fx_teardown, (void *)&cases[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
		test_read_never_splits, fx_setup, fx_teardown);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
		test_blocking_read_wakes_at_sync_end, fx_setup, fx_teardown);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
		test_garbage_records, fx_setup, fx_teardown);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
		test_build_id_cookies, fx_setup, fx_teardown);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
		test_attrs_and_offline_cpu, fx_setup, fx_teardown);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
		test_open_failure_is_reported, fx_setup, fx_teardown);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
		test_auto_ring_size, fx_setup, fx_teardown);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
		test_cpu_mask, fx_setup, fx_teardown);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
		test_kernel_map, fx_setup, fx_teardown);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_task_map_overlaps);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_stream_walk);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_read_cuts_at_marks);
	return _cmocka_run_group_tests("kmod", tests, n, NULL, NULL);
}
