/* Session paths, --separate, and daemonrc load/save with reported
 * (not fatal) unknown keys. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "op_config.h"
#include "testutil.h"

static void test_paths_default(void **state)
{
	struct op_paths p;

	assert_int_equal(op_paths_init(&p, NULL), 0);
	assert_string_equal(p.session_dir, "/var/lib/oprofile");
	assert_string_equal(p.daemonrc, "/var/lib/oprofile/daemonrc");
	assert_string_equal(p.lock_file, "/var/lib/oprofile/lock");
	assert_string_equal(p.ctl_socket, "/var/lib/oprofile/opd_ctl");
	assert_string_equal(p.samples_dir, "/var/lib/oprofile/samples");
	assert_string_equal(p.current_dir, "/var/lib/oprofile/samples/current");
	assert_string_equal(p.log_file, "/var/lib/oprofile/samples/oprofiled.log");
}

static void test_paths_custom(void **state)
{
	struct op_paths p;
	char *big = malloc(PATH_MAX + 10);

	assert_int_equal(op_paths_init(&p, "/tmp/my session//"), 0);
	assert_string_equal(p.session_dir, "/tmp/my session");
	assert_string_equal(p.current_dir, "/tmp/my session/samples/current");
	assert_int_equal(op_paths_init(&p, "/"), 0);
	assert_string_equal(p.session_dir, "/");
	assert_string_equal(p.daemonrc, "/daemonrc");
	assert_string_equal(p.log_file, "/samples/oprofiled.log");

	assert_int_equal(op_paths_init(&p, "relative/dir"), -EINVAL);
	assert_int_equal(op_paths_init(&p, ""), -EINVAL);

	/* the socket must fit sockaddr_un's 108 bytes */
	memset(big, 'x', 120);
	big[0] = '/';
	big[100] = '\0';
	assert_int_equal(op_paths_init(&p, big), -ENAMETOOLONG);
	/* operf has no socket: a deep directory is fine, its log its own */
	assert_int_equal(op_paths_init_operf(&p, big), 0);
	assert_string_equal(p.ctl_socket, "");
	assert_non_null(strstr(p.log_file, "x/samples/operf.log"));
	assert_int_equal(op_paths_init_operf(&p, "relative"), -EINVAL);
	big[100] = 'x';
	big[90] = '\0';
	assert_int_equal(op_paths_init(&p, big), 0);
	/* every path must fit PATH_MAX */
	memset(big, 'y', PATH_MAX + 5);
	big[0] = '/';
	big[PATH_MAX + 5] = '\0';
	assert_int_equal(op_paths_init(&p, big), -ENAMETOOLONG);
	big[PATH_MAX - 10] = '\0';
	assert_int_equal(op_paths_init(&p, big), -ENAMETOOLONG);
	assert_string_equal(p.session_dir, "");	/* cleared on failure */
	free(big);
}

static const struct {
	const char *spec;
	int ret;
	unsigned int flags;
	int bad_at;	/* offset of *bad on error */
	const char *canon;
} seps[] = {
	{ "none", 0, 0, 0, "none" },
	{ "lib", 0, OP_SEP_LIB, 0, "lib" },
	{ "library", 0, OP_SEP_LIB, 0, "lib" },
	/* kernel implies lib, as OProfile's opcontrol documents it */
	{ "kernel", 0, OP_SEP_LIB | OP_SEP_KERNEL, 0, "lib,kernel" },
	{ "kernel,lib", 0, OP_SEP_LIB | OP_SEP_KERNEL, 0, "lib,kernel" },
	{ "thread", 0, OP_SEP_THREAD, 0, "thread" },
	{ "cpu", 0, OP_SEP_CPU, 0, "cpu" },
	{ "cpu,lib", 0, OP_SEP_CPU | OP_SEP_LIB, 0, "lib,cpu" },
	{ "thread,cpu", 0, OP_SEP_THREAD | OP_SEP_CPU, 0, "thread,cpu" },
	{ "lib,kernel,thread,cpu", 0, OP_SEP_ALL, 0, "all" },
	{ "all", 0, OP_SEP_ALL, 0, "all" },
	/* ours: by process, reported by container */
	{ "container", 0, OP_SEP_CONTAINER, 0, "container" },
	{ "container,cpu", 0, OP_SEP_CONTAINER | OP_SEP_CPU, 0, "cpu,container" },
	{ "none,cpu", 0, OP_SEP_CPU, 0, "cpu" },
	{ "", -EINVAL, 0, 0, NULL },
	{ "foo", -EINVAL, 0, 0, NULL },
	{ "lib,foo", -EINVAL, 0, 4, NULL },
	{ "lib,", -EINVAL, 0, 4, NULL },
	{ ",lib", -EINVAL, 0, 0, NULL },
	{ "lib,,cpu", -EINVAL, 0, 4, NULL },
	{ "LIB", -EINVAL, 0, 0, NULL },
	{ "lib cpu", -EINVAL, 0, 0, NULL },
	{ "cpu,libx", -EINVAL, 0, 4, NULL },
};

static void test_separate(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(seps) / sizeof(seps[0]); i++) {
		unsigned int flags = 0xdead;
		const char *bad = NULL;
		char buf[64];
		int ret = op_separate_parse(seps[i].spec, &flags, &bad);

		if (ret != seps[i].ret)
			fail_msg("'%s': got %d", seps[i].spec, ret);
		if (ret) {
			assert_int_equal(flags, 0xdead);
			assert_ptr_equal(bad, seps[i].spec + seps[i].bad_at);
			continue;
		}
		assert_int_equal(flags, seps[i].flags);
		op_separate_format(flags, buf, sizeof(buf));
		assert_string_equal(buf, seps[i].canon);
		/* the canonical text parses back to the same flags */
		assert_int_equal(op_separate_parse(buf, &flags, NULL), 0);
		assert_int_equal(flags, seps[i].flags);
	}
}

static void test_separate_format_small(void **state)
{
	char buf[6];

	op_separate_format(OP_SEP_THREAD | OP_SEP_CPU, buf, sizeof(buf));
	assert_true(strlen(buf) < sizeof(buf));
	op_separate_format(OP_SEP_CPU, buf, 4);
	assert_string_equal(buf, "cpu");
	op_separate_format(0, buf, 1);
	assert_string_equal(buf, "");
}

/* A logger that keeps every message, one per line. */
struct logbuf {
	char text[8192];
	int nr;
};

static void log_fn(void *ctx, enum op_log_level level, const char *msg)
{
	struct logbuf *b = ctx;
	size_t len = strlen(b->text);

	snprintf(b->text + len, sizeof(b->text) - len, "%d %s\n", level, msg);
	b->nr++;
}

struct fixture {
	char *dir;
	char *rc;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->dir = tu_mkdtemp();
	if (!f->dir)
		return -1;
	f->rc = tu_path(f->dir, "daemonrc");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	tu_rm_rf(f->dir);
	free(f->dir);
	free(f->rc);
	free(f);
	return 0;
}

static void test_defaults(void **state)
{
	struct fixture *f = *state;
	struct logbuf lb = { 0 };
	struct op_logger lg = { log_fn, &lb, OP_LOG_DEBUG };
	struct op_settings s;

	memset(&s, 0x5a, sizeof(s));
	assert_int_equal(op_settings_load(&s, NULL, f->rc, &lg), 0);	/* missing file */
	assert_int_equal(lb.nr, 0);
	assert_int_equal(s.nr_events, 1);
	assert_string_equal(s.events[0], "default");
	assert_int_equal(s.separate, 0);
	assert_int_equal(s.buffer_size, 0);	/* the default, more with chains */
	assert_int_equal(s.buffer_watershed, 0);	/* a quarter of it */
	assert_int_equal(s.cpu_buffer_size, 0);	/* sized from the rate */
	assert_string_equal(s.vmlinux, "");
	assert_false(s.no_vmlinux);
	assert_string_equal(s.image, "");
	assert_false(s.verbose);
	assert_int_equal(s.callgraph_depth, 0);
	assert_int_equal(s.unwind_stack, 0);	/* frame pointers */
}

static void test_save_load(void **state)
{
	struct fixture *f = *state;
	struct logbuf lb = { 0 };
	struct op_logger lg = { log_fn, &lb, OP_LOG_DEBUG };
	struct op_settings s, back;
	struct stat st;

	op_settings_default(&s);
	s.nr_events = 2;
	strcpy(s.events[0], "CPU_CLK_UNHALTED:100000:0:1:1");
	strcpy(s.events[1], "TIMER:1000000:0:1:0");
	s.separate = OP_SEP_LIB | OP_SEP_CPU;
	s.callgraph_depth = 12;
	s.unwind_stack = 16384;
	s.buffer_size = 1 << 20;
	s.buffer_watershed = 1 << 18;
	s.cpu_buffer_size = 1 << 21;
	strcpy(s.vmlinux, "/boot/vmlinux with space=and equals");
	strcpy(s.image, "/usr/bin/foo,/usr/lib/libbar.so");
	s.verbose = true;
	s.pid = 4242;
	strcpy(s.cpus, "0,2-3");
	s.flight_seconds = 30;
	assert_int_equal(op_settings_save(&s, NULL, f->rc), 0);
	assert_int_equal(stat(f->rc, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);

	assert_int_equal(op_settings_load(&back, NULL, f->rc, &lg), 0);
	assert_int_equal(lb.nr, 0);
	assert_memory_equal(&s, &back, sizeof(s));

	/* --no-vmlinux is VMLINUX=none, as OProfile writes it */
	s.no_vmlinux = true;
	memset(s.vmlinux, 0, sizeof(s.vmlinux));
	s.separate = OP_SEP_ALL;
	assert_int_equal(op_settings_save(&s, NULL, f->rc), 0);
	assert_int_equal(op_settings_load(&back, NULL, f->rc, &lg), 0);
	assert_memory_equal(&s, &back, sizeof(s));
	assert_int_equal(lb.nr, 0);
	/* SEPARATE_CONTAINER, ours, round-trips too */
	s.separate = OP_SEP_CONTAINER | OP_SEP_CPU;
	assert_int_equal(op_settings_save(&s, NULL, f->rc), 0);
	assert_int_equal(op_settings_load(&back, NULL, f->rc, &lg), 0);
	assert_memory_equal(&s, &back, sizeof(s));
	assert_int_equal(lb.nr, 0);
	s.separate = OP_SEP_ALL;

	/* values that cannot be written are refused, the file kept */
	strcpy(s.image, "a\nNR_CHOSEN=0");
	assert_int_equal(op_settings_save(&s, NULL, f->rc), -EINVAL);
	s.image[0] = '\0';
	s.nr_events = 0;
	assert_int_equal(op_settings_save(&s, NULL, f->rc), -EINVAL);
	s.nr_events = 1;
	s.no_vmlinux = false;
	strcpy(s.vmlinux, "none");
	assert_int_equal(op_settings_save(&s, NULL, f->rc), -EINVAL);
	assert_int_equal(op_settings_load(&back, NULL, f->rc, &lg), 0);
	assert_true(back.no_vmlinux);
	/* no temporary file left behind */
	{
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | wc -l) = 1", f->dir);
		assert_int_equal(system(cmd), 0);
	}
	/* a directory that does not exist */
	{
		char *p = tu_path(f->dir, "nodir/daemonrc");

		s.vmlinux[0] = '\0';
		assert_int_equal(op_settings_save(&s, NULL, p), -ENOENT);
		free(p);
	}
}

/* opcontrol --cpu's and oprofiled --cpus's syntax, perf's -C */
static void test_cpu_list(void **state)
{
	static const struct {
		const char *text;
		int want;
		const char *cpus;	/* want 0: the CPUs set, as a string of digits */
		size_t bad_at;		/* want != 0: where *bad points */
	} cases[] = {
		{ "0", 0, "0", 0 },
		{ "1,3", 0, "13", 0 },
		{ "0-2,5", 0, "0125", 0 },
		{ "2-2", 0, "2", 0 },
		{ "", -EINVAL, NULL, 0 },
		{ "a", -EINVAL, NULL, 0 },
		{ "1,", -EINVAL, NULL, 2 },
		{ "3-1", -EINVAL, NULL, 0 },
		{ "1-", -EINVAL, NULL, 1 },
		{ "1;2", -EINVAL, NULL, 1 },
		{ "-1", -EINVAL, NULL, 0 },
		{ "99999", -ERANGE, NULL, 0 },
		{ "0-99999999999999999999999", -ERANGE, NULL, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cpu_set_t set;
		const char *bad = NULL;
		char got[16] = "";
		size_t n = 0;

		assert_int_equal(op_cpu_list_parse(cases[i].text, &set, &bad), cases[i].want);
		if (cases[i].want) {
			assert_ptr_equal(bad, cases[i].text + cases[i].bad_at);
			continue;
		}
		for (int c = 0; c < 10; c++)
			if (CPU_ISSET(c, &set))
				got[n++] = (char)('0' + c);
		assert_string_equal(got, cases[i].cpus);
		assert_int_equal(CPU_COUNT(&set), (int)strlen(cases[i].cpus));
	}
	(void)state;
}

/* one check for opcontrol, oprofiled and kmod; 0 is the default */
static const struct buffers_case {
	unsigned long words, watershed, cpu;
	int want;
	const char *msg;
} buffers_cases[] = {
	{ 0, 0, 0, 0, NULL },
	{ OP_DEFAULT_BUFFER_WORDS, OP_DEFAULT_BUFFER_WORDS / 4,
	  OP_DEFAULT_CPU_BUFFER_BYTES, 0, NULL },
	{ OP_MIN_BUFFER_WORDS, OP_MIN_BUFFER_WORDS - 1, 4096, 0, NULL },
	{ OP_MIN_BUFFER_WORDS - 1, 0, 0, -EINVAL, "--buffer-size=1023 is out of range" },
	{ OP_MAX_BUFFER_WORDS + 1, 0, 0, -EINVAL, "is out of range" },
	{ 131072, 200000, 0, -EINVAL,
	  "--buffer-watershed (200000) must be smaller than --buffer-size (131072)" },
	{ 4096, 4096, 0, -EINVAL, "must be smaller" },
	{ 0, OP_DEFAULT_BUFFER_WORDS, 0, -EINVAL, "must be smaller" },
	{ 0, 0, 5000, -EINVAL, "--cpu-buffer-size=5000 must be a power of two" },
	{ 0, 0, 2048, -EINVAL, "--cpu-buffer-size=2048" },
	{ 0, 0, OP_MAX_CPU_BUFFER_BYTES * 2, -EINVAL, "--cpu-buffer-size" },
};

static void test_buffers_check(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(buffers_cases) / sizeof(buffers_cases[0]); i++) {
		const struct buffers_case *c = &buffers_cases[i];
		char err[256] = "";

		assert_int_equal(op_buffers_check(c->words, c->watershed, c->cpu,
						  err, sizeof(err)), c->want);
		if (c->msg)
			assert_non_null(strstr(err, c->msg));
	}
	assert_int_equal(op_default_watershed(OP_DEFAULT_BUFFER_WORDS),
			 OP_DEFAULT_BUFFER_WORDS / 4);
}

static void test_oprofile_file(void **state)
{
	static const char rc[] =
		"SESSION_DIR=/var/lib/oprofile\n"
		"CHOSEN_EVENTS_0=CPU_CLK_UNHALTED:100000:0:1:1\n"
		"NR_CHOSEN=1\n"
		"SEPARATE_LIB=1\n"
		"SEPARATE_KERNEL=0\n"
		"SEPARATE_THREAD=0\n"
		"SEPARATE_CPU=1\n"
		"VMLINUX=none\n"
		"IMAGE_FILTER=\n"
		"CPU_BUFFER_SIZE=0\n"
		"BUF_SIZE=65536\n"
		"BUF_WATERSHED=\n"
		"CALLGRAPH=0\n"
		"KERNEL_RANGE=ffffffff81000000,ffffffff82000000\n"
		"XENIMAGE=none\n";
	struct fixture *f = *state;
	struct logbuf lb = { 0 };
	struct op_logger lg = { log_fn, &lb, OP_LOG_DEBUG };
	struct op_settings s;

	assert_int_equal(tu_write_file(f->rc, rc, strlen(rc)), 0);
	assert_int_equal(op_settings_load(&s, NULL, f->rc, &lg), 0);
	assert_int_equal(s.nr_events, 1);
	assert_string_equal(s.events[0], "CPU_CLK_UNHALTED:100000:0:1:1");
	assert_int_equal(s.separate, OP_SEP_LIB | OP_SEP_CPU);
	assert_true(s.no_vmlinux);
	assert_int_equal(s.buffer_size, 65536);
	/* OProfile writes 0 and empty for "use the default": 0 is ours
	 * too (rings sized from the rate); empty is reported, kept */
	assert_int_equal(s.cpu_buffer_size, 0);
	assert_int_equal(s.buffer_watershed, 0);
	assert_int_equal(lb.nr, 1);
	assert_non_null(strstr(lb.text, ":12: bad value for BUF_WATERSHED ''"));
}

static void test_bad_lines(void **state)
{
	static const char rc[] =
		"# comment\n"
		"\n"
		"   \t\n"
		"FOO=bar\n"				/* 4 */
		"SEPARATE_CPU=1\r\n"			/* CRLF is fine */
		"no equals sign\n"			/* 6 */
		"=value\n"				/* 7 */
		"SEPARATE_LIB=2\n"			/* 8 */
		"BUF_SIZE=-5\n"				/* 9 */
		"BUF_SIZE=99999999999999999999999\n"	/* 10 */
		"CHOSEN_EVENTS_9=X:1:0:1:1\n"		/* 11 */
		"CHOSEN_EVENTS_x=X:1:0:1:1\n"		/* 12 */
		"CHOSEN_EVENTS_01=X:1:0:1:1\n"		/* 13 */
		"CHOSEN_EVENTS_0=\n"			/* 14 */
		"CHOSEN_EVENTS_0=TIMER:1:0:1:1\n"
		"VERBOSE=yes\n"				/* 16 */
		"  BUF_WATERSHED=100\n"
		"lowercase=1\n";			/* 18 */
	struct fixture *f = *state;
	struct logbuf lb = { 0 };
	struct op_logger lg = { log_fn, &lb, OP_LOG_DEBUG };
	struct op_settings s;

	assert_int_equal(tu_write_file(f->rc, rc, strlen(rc)), 0);
	assert_int_equal(op_settings_load(&s, NULL, f->rc, &lg), 0);
	assert_int_equal(s.separate, OP_SEP_CPU);
	assert_int_equal(s.buffer_size, 0);
	assert_int_equal(s.buffer_watershed, 100);
	assert_int_equal(s.nr_events, 1);
	assert_string_equal(s.events[0], "TIMER:1:0:1:1");
	assert_false(s.verbose);
	assert_int_equal(lb.nr, 12);
	assert_non_null(strstr(lb.text, "1 config: "));
	assert_non_null(strstr(lb.text, "daemonrc:4: unknown key FOO, ignored"));
	assert_non_null(strstr(lb.text, ":6: not a KEY=VALUE line: 'no equals sign'"));
	assert_non_null(strstr(lb.text, ":7: not a KEY=VALUE line: '=value'"));
	assert_non_null(strstr(lb.text, ":8: bad value for SEPARATE_LIB '2'"));
	assert_non_null(strstr(lb.text, ":9: bad value for BUF_SIZE '-5'"));
	assert_non_null(strstr(lb.text, ":10: bad value for BUF_SIZE"));
	assert_non_null(strstr(lb.text, ":11: bad event index in CHOSEN_EVENTS_9"));
	assert_non_null(strstr(lb.text, ":12: bad event index"));
	assert_non_null(strstr(lb.text, ":13: bad event index"));
	assert_non_null(strstr(lb.text, ":14: bad value for CHOSEN_EVENTS_0 ''"));
	assert_non_null(strstr(lb.text, ":16: bad value for VERBOSE 'yes'"));
	assert_non_null(strstr(lb.text, ":18: unknown key lowercase"));

	/* a NULL logger is fine too */
	assert_int_equal(op_settings_load(&s, NULL, f->rc, NULL), 0);
}

static void test_event_count_mismatch(void **state)
{
	static const char gap[] =
		"CHOSEN_EVENTS_0=A:1:0:1:1\n"
		"CHOSEN_EVENTS_2=C:1:0:1:1\n";
	static const char fewer[] =
		"NR_CHOSEN=1\n"
		"CHOSEN_EVENTS_0=A:1:0:1:1\n"
		"CHOSEN_EVENTS_1=B:1:0:1:1\n";
	static const char none[] = "NR_CHOSEN=0\n";
	struct fixture *f = *state;
	struct logbuf lb = { 0 };
	struct op_logger lg = { log_fn, &lb, OP_LOG_DEBUG };
	struct op_settings s;

	assert_int_equal(tu_write_file(f->rc, gap, strlen(gap)), 0);
	assert_int_equal(op_settings_load(&s, NULL, f->rc, &lg), 0);
	assert_int_equal(s.nr_events, 1);
	assert_non_null(strstr(lb.text, "CHOSEN_EVENTS_1 missing"));

	lb.nr = 0;
	lb.text[0] = '\0';
	assert_int_equal(tu_write_file(f->rc, fewer, strlen(fewer)), 0);
	assert_int_equal(op_settings_load(&s, NULL, f->rc, &lg), 0);
	assert_int_equal(s.nr_events, 1);
	assert_string_equal(s.events[0], "A:1:0:1:1");
	assert_int_equal(lb.nr, 1);
	assert_non_null(strstr(lb.text, "NR_CHOSEN=1 but 2 events given"));

	lb.nr = 0;
	assert_int_equal(tu_write_file(f->rc, none, strlen(none)), 0);
	assert_int_equal(op_settings_load(&s, NULL, f->rc, &lg), 0);
	assert_int_equal(s.nr_events, 1);
	assert_string_equal(s.events[0], "default");
	assert_int_equal(lb.nr, 1);
}

static void test_unreadable(void **state)
{
	struct fixture *f = *state;
	struct logbuf lb = { 0 };
	struct op_logger lg = { log_fn, &lb, OP_LOG_DEBUG };
	struct op_settings s;
	static const char junk[] = "BUF_SIZE=7\n\0\0binary\nBUF_WATERSHED=3";

	/* a directory where the file should be: an error, reported */
	assert_int_equal(op_settings_load(&s, NULL, f->dir, &lg), -EISDIR);
	(void)junk;
	assert_int_equal(tu_write_file(f->rc, junk, sizeof(junk) - 1), 0);
	lb.nr = 0;
	lb.text[0] = '\0';
	assert_int_equal(op_settings_load(&s, NULL, f->rc, &lg), 0);
	assert_int_equal(s.buffer_size, 7);
	assert_int_equal(s.buffer_watershed, 3);	/* no final newline */
	assert_int_equal(lb.nr, 1);
	assert_non_null(strstr(lb.text, ":2: NUL byte in line"));
}

/* The flight ring: rate * window * record, plus the slack, rounded up to
 * a power of two pages; a window past the cap is refused with what it
 * would need. */
static void test_flight_ring_bytes(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	char err[512] = "";
	size_t bytes = 0;

	(void)state;
	/* 10 s at 10 kHz of 32 bytes: 3.2 MB, 4 MB with the slack: 4 MiB */
	assert_int_equal(op_flight_ring_bytes(10, 10000, 32, &bytes, err, sizeof(err)), 0);
	assert_int_equal(bytes, 4UL << 20);
	/* a tiny window still takes a page */
	assert_int_equal(op_flight_ring_bytes(1, 1, 32, &bytes, err, sizeof(err)), 0);
	assert_int_equal(bytes, (size_t)page);
	/* an hour at 100 kHz: refused, saying what it needs and the limit */
	assert_int_equal(op_flight_ring_bytes(3600, 100000, 32, &bytes, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "13732.9 MiB per CPU ring"));
	assert_non_null(strstr(err, "limit of 256 MiB"));
	assert_int_equal(op_flight_ring_bytes(0, 1000, 32, &bytes, err, sizeof(err)), -EINVAL);
	assert_int_equal(op_flight_ring_bytes(3601, 1000, 32, &bytes, err, sizeof(err)), -EINVAL);
	/* call chains make records longer; a stack copy more so: its size
	 * word, the copy and the bytes filled, the abi and 17 registers */
	assert_int_equal(op_flight_record_bytes(0, 0), 40);
	assert_int_equal(op_flight_record_bytes(16, 0), 40 + 8 * 20);
	assert_int_equal(op_flight_record_bytes(16, 8192), 40 + 8 * 20 + 8 * 18 + 8 + 8192 + 8);
	assert_int_equal(op_flight_record_bytes(0, 8192), 40);
}

/* --unwind=fp|dwarf[,STACK_BYTES] */
static void test_unwind_parse(void **state)
{
	char err[256], buf[32];
	unsigned int stack = 1;
	bool capped = true;

	(void)state;
	assert_int_equal(op_unwind_parse("fp", &stack, &capped, err, sizeof(err)), 0);
	assert_int_equal(stack, 0);
	assert_false(capped);
	assert_int_equal(op_unwind_parse("dwarf", &stack, &capped, err, sizeof(err)), 0);
	assert_int_equal(stack, OP_UNWIND_DEFAULT_STACK);
	assert_int_equal(op_unwind_parse("dwarf,4096", &stack, &capped, err, sizeof(err)), 0);
	assert_int_equal(stack, 4096);
	/* rounded up to the kernel's multiple of 8; cut to its limit */
	assert_int_equal(op_unwind_parse("dwarf,1001", &stack, &capped, err, sizeof(err)), 0);
	assert_int_equal(stack, 1008);
	assert_false(capped);
	assert_int_equal(op_unwind_parse("dwarf,1000000", &stack, &capped, err, sizeof(err)), 0);
	assert_int_equal(stack, OP_UNWIND_MAX_STACK);
	assert_true(capped);
	for (const char *const *bad = (const char *const[]){ "", "lbr", "dwarf,",
	     "dwarf,0", "dwarf,-8", "dwarf,12k", "dwarf,99999999999999999999",
	     "dwarf8192", "fp,8", NULL }; *bad; bad++) {
		err[0] = '\0';
		assert_int_equal(op_unwind_parse(*bad, &stack, &capped, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "--unwind="));
	}
	op_unwind_format(0, buf, sizeof(buf));
	assert_string_equal(buf, "fp");
	op_unwind_format(8192, buf, sizeof(buf));
	assert_string_equal(buf, "dwarf,8192");
}

static void test_session_names(void **state)
{
	char err[256], name[64];

	(void)state;
	assert_int_equal(op_session_name_check("run1", err, sizeof(err)), 0);
	assert_int_equal(op_session_name_check("", err, sizeof(err)), -EINVAL);
	assert_int_equal(op_session_name_check("a/b", err, sizeof(err)), -EINVAL);
	assert_int_equal(op_session_name_check("current", err, sizeof(err)), -EINVAL);
	assert_int_equal(op_session_name_check("a\tb", err, sizeof(err)), -EINVAL);
	op_snapshot_default_name(0, name, sizeof(name));
	assert_int_equal(strlen(name), strlen("snapshot-19700101-000000"));
	assert_int_equal(strncmp(name, "snapshot-19", 11), 0);
	assert_int_equal(op_session_name_check(name, err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_default),
		cmocka_unit_test(test_paths_custom),
		cmocka_unit_test(test_separate),
		cmocka_unit_test(test_separate_format_small),
		cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_load, setup, teardown),
		cmocka_unit_test(test_buffers_check),
		cmocka_unit_test(test_cpu_list),
		cmocka_unit_test(test_flight_ring_bytes),
		cmocka_unit_test(test_unwind_parse),
		cmocka_unit_test(test_session_names),
		cmocka_unit_test_setup_teardown(test_oprofile_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_count_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable, setup, teardown),
	};

	return cmocka_run_group_tests_name("op_config", tests, NULL, NULL);
}
