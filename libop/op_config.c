/* Session paths, --separate and the daemonrc file: what opcontrol --setup
 * decides and oprofiled and opreport need to agree on, kept in one place so
 * that no program hard-codes a path or a key.
 *
 * daemonrc uses OProfile's key names, so a file written by either tool's
 * opcontrol means the same to the other where the settings overlap:
 *   NR_CHOSEN=1
 *   CHOSEN_EVENTS_0=CPU_CLK_UNHALTED:100000:0:1:1
 *   SEPARATE_LIB=0 SEPARATE_KERNEL=0 SEPARATE_THREAD=0 SEPARATE_CPU=0
 *   VMLINUX=none            (none: --no-vmlinux; empty: not given)
 *   IMAGE_FILTER=           CALLGRAPH=0  VERBOSE=0
 *   BUF_SIZE=0  BUF_WATERSHED=0  CPU_BUFFER_SIZE=0    (0: the default)
 *   PROFILE_PID=0  PROFILE_CPUS=     (ours: opcontrol --pid and --cpu)
 *   FLIGHT_RECORDER=0                (ours: opcontrol --flight-recorder)
 *   UNWIND=fp                        (ours: --unwind, fp or dwarf,BYTES)
 *   KEEP_MAX_MB=1024                 (ours: opcontrol --keep-max)
 * BUF_WATERSHED=0 (as OProfile's opcontrol may write it) means the default.
 * Keys OProfile writes that mean nothing here (SESSION_DIR, KERNEL_RANGE,
 * XENIMAGE, ...) are accepted silently; anything else is reported through
 * the logger with the file and line, and skipped.
 */
#include "config.h"
#include "op_config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "op_afile.h"

static int join(char *out, size_t len, const char *dir, const char *name)
{
	int n = snprintf(out, len, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int paths_fill(struct op_paths *p, const char *session_dir,
		      const char *log_name)
{
	size_t len;
	int ret;

	memset(p, 0, sizeof(*p));
	if (!session_dir)
		session_dir = OP_DEFAULT_SESSION_DIR;
	if (session_dir[0] != '/')
		return -EINVAL;
	len = strlen(session_dir);
	if (len >= sizeof(p->session_dir))
		return -ENAMETOOLONG;
	memcpy(p->session_dir, session_dir, len + 1);
	/* "/a/b//" -> "/a/b"; "/" stays "/" */
	while (len > 1 && p->session_dir[len - 1] == '/')
		p->session_dir[--len] = '\0';

	ret = join(p->daemonrc, sizeof(p->daemonrc), p->session_dir, "daemonrc");
	if (!ret)
		ret = join(p->lock_file, sizeof(p->lock_file), p->session_dir, "lock");
	if (!ret)
		ret = join(p->ctl_socket, sizeof(p->ctl_socket), p->session_dir, "opd_ctl");
	if (!ret)
		ret = join(p->samples_dir, sizeof(p->samples_dir), p->session_dir, "samples");
	if (!ret)
		ret = join(p->current_dir, sizeof(p->current_dir), p->samples_dir, "current");
	if (!ret)
		ret = join(p->log_file, sizeof(p->log_file), p->samples_dir, log_name);
	if (!ret)
		ret = join(p->keep_dir, sizeof(p->keep_dir), p->session_dir, OP_KEEP_DIR);
	if (ret)
		memset(p, 0, sizeof(*p));
	return ret;
}

int op_paths_init(struct op_paths *p, const char *session_dir)
{
	struct sockaddr_un sun;
	int ret = paths_fill(p, session_dir, "oprofiled.log");

	if (!ret && strlen(p->ctl_socket) >= sizeof(sun.sun_path)) {
		memset(p, 0, sizeof(*p));
		ret = -ENAMETOOLONG;
	}
	return ret;
}

int op_paths_init_operf(struct op_paths *p, const char *session_dir)
{
	int ret = paths_fill(p, session_dir, "operf.log");

	if (!ret)
		p->ctl_socket[0] = '\0';
	return ret;
}

static const struct {
	const char *name;
	unsigned int flags;
} sep_names[] = {
	{ "none", 0 },
	{ "lib", OP_SEP_LIB },
	{ "library", OP_SEP_LIB },
	{ "kernel", OP_SEP_KERNEL | OP_SEP_LIB },	/* implies lib, as in OProfile */
	{ "thread", OP_SEP_THREAD },
	{ "cpu", OP_SEP_CPU },
	{ "container", OP_SEP_CONTAINER },
	{ "all", OP_SEP_ALL },
};

int op_separate_parse(const char *spec, unsigned int *flags, const char **bad)
{
	const char *s = spec;
	unsigned int f = 0;

	if (bad)
		*bad = spec;
	if (!spec || !*spec)
		return -EINVAL;
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t n = comma ? (size_t)(comma - s) : strlen(s), k;

		for (k = 0; k < sizeof(sep_names) / sizeof(sep_names[0]); k++)
			if (strlen(sep_names[k].name) == n && !strncmp(s, sep_names[k].name, n))
				break;
		if (k == sizeof(sep_names) / sizeof(sep_names[0])) {
			if (bad)
				*bad = s;
			return -EINVAL;
		}
		f |= sep_names[k].flags;
		if (!comma)
			break;
		s = comma + 1;
	}
	*flags = f;
	if (bad)
		*bad = NULL;
	return 0;
}

void op_separate_format(unsigned int flags, char *buf, size_t len)
{
	static const struct {
		unsigned int flag;
		const char *name;
	} order[] = {
		{ OP_SEP_LIB, "lib" }, { OP_SEP_KERNEL, "kernel" },
		{ OP_SEP_THREAD, "thread" }, { OP_SEP_CPU, "cpu" },
		{ OP_SEP_CONTAINER, "container" },
	};
	size_t used = 0, k;

	if (!len)
		return;
	buf[0] = '\0';
	flags &= OP_SEP_ALL | OP_SEP_CONTAINER;
	if (flags == 0 || (flags & OP_SEP_ALL) == OP_SEP_ALL) {
		snprintf(buf, len, "%s", flags ? "all" : "none");
		return;
	}
	for (k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		int n;

		if (!(flags & order[k].flag))
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", order[k].name);
		if (n < 0 || (size_t)n >= len - used)
			return;	/* truncated, still terminated */
		used += (size_t)n;
	}
}

int op_cpu_buffer_check(unsigned long bytes, char *err, size_t errlen)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long pg = page > 0 ? (unsigned long)page : 4096;

	if (!bytes)
		return 0;
	if (bytes < pg || bytes % pg || (bytes & (bytes - 1)) ||
	    bytes > OP_MAX_CPU_BUFFER_BYTES) {
		snprintf(err, errlen, "--cpu-buffer-size=%lu must be a power of two "
			 "of at least one page (%lu bytes) and at most %lu bytes",
			 bytes, pg, OP_MAX_CPU_BUFFER_BYTES);
		return -EINVAL;
	}
	return 0;
}

int op_buffers_check(unsigned long words, unsigned long watershed,
		     unsigned long cpu_bytes, char *err, size_t errlen)
{
	if (!words)
		words = OP_DEFAULT_BUFFER_WORDS;
	if (!watershed)
		watershed = op_default_watershed(words);
	if (words < OP_MIN_BUFFER_WORDS || words > OP_MAX_BUFFER_WORDS) {
		snprintf(err, errlen, "--buffer-size=%lu is out of range (%lu to %lu)",
			 words, OP_MIN_BUFFER_WORDS, OP_MAX_BUFFER_WORDS);
		return -EINVAL;
	}
	if (watershed >= words) {
		snprintf(err, errlen, "--buffer-watershed (%lu) must be smaller "
			 "than --buffer-size (%lu)", watershed, words);
		return -EINVAL;
	}
	return op_cpu_buffer_check(cpu_bytes, err, errlen);
}

size_t op_flight_record_bytes(unsigned int callgraph_depth,
			      unsigned int unwind_stack)
{
	/* header, ip, pid/tid, time: kop_ring.h's kop_sample_rec; then the
	 * cgroup id, which samples carry where the kernel gives it (kmod's
	 * kop_cgroup.c): sized for it either way */
	size_t bytes = 32 + 8;

	if (callgraph_depth)
		bytes += 8 * (1 + 1 + (size_t)callgraph_depth + 2);
	/* the abi and 17 registers (kop_unwind.h); the copy's size, the
	 * copy and how much of it the kernel filled */
	if (callgraph_depth && unwind_stack)
		bytes += 8 * (1 + 17) + 8 + (size_t)unwind_stack + 8;
	return bytes;
}

int op_unwind_parse(const char *spec, unsigned int *stack, bool *capped,
		    char *err, size_t errlen)
{
	unsigned long long n;
	char *end;

	*capped = false;
	if (!strcmp(spec, "fp")) {
		*stack = 0;
		return 0;
	}
	if (!strcmp(spec, "dwarf")) {
		*stack = OP_UNWIND_DEFAULT_STACK;
		return 0;
	}
	if (strncmp(spec, "dwarf,", 6) || !isdigit((unsigned char)spec[6])) {
		snprintf(err, errlen, "--unwind=%s: expected fp, dwarf or "
			 "dwarf,STACK_BYTES", spec);
		return -EINVAL;
	}
	errno = 0;
	n = strtoull(spec + 6, &end, 10);
	if (*end || errno || !n) {
		snprintf(err, errlen, "--unwind=%s: the stack size must be a "
			 "number of bytes, 8 to %u", spec, OP_UNWIND_MAX_STACK);
		return -EINVAL;
	}
	if (n > OP_UNWIND_MAX_STACK) {
		n = OP_UNWIND_MAX_STACK;
		*capped = true;
	}
	*stack = (unsigned int)((n + 7) & ~7ULL);
	return 0;
}

void op_unwind_format(unsigned int stack, char *buf, size_t len)
{
	if (stack)
		snprintf(buf, len, "dwarf,%u", stack);
	else
		snprintf(buf, len, "fp");
}

int op_flight_ring_bytes(unsigned int seconds, double rate_hz,
			 size_t record_bytes, size_t *bytes, char *err,
			 size_t errlen)
{
	long page = sysconf(_SC_PAGESIZE);
	double need;
	size_t ring = page > 0 ? (size_t)page : 4096;

	if (!seconds || seconds > OP_FLIGHT_MAX_SECONDS) {
		snprintf(err, errlen, "--flight-recorder=%u: the window is 1 to %u seconds (0 turns the recorder off)",
			 seconds, OP_FLIGHT_MAX_SECONDS);
		return -EINVAL;
	}
	need = (double)seconds * rate_hz * (double)record_bytes *
	       (100 + OP_FLIGHT_SLACK_PCT) / 100;
	while ((double)ring < need && ring <= OP_FLIGHT_MAX_RING_BYTES)
		ring *= 2;
	if (ring > OP_FLIGHT_MAX_RING_BYTES) {
		snprintf(err, errlen, "--flight-recorder=%u: at %.0f samples a second per CPU of %zu bytes each, "
			 "the window needs %.1f MiB per CPU ring (%zu MiB as a power of two), more than the "
			 "limit of %lu MiB per CPU: shorten the window or lower the event's rate",
			 seconds, rate_hz, record_bytes, need / (1 << 20),
			 ring >> 20, OP_FLIGHT_MAX_RING_BYTES >> 20);
		return -E2BIG;
	}
	*bytes = ring;
	return 0;
}

int op_session_name_check(const char *name, char *err, size_t errlen)
{
	if (!*name) {
		snprintf(err, errlen, "a session needs a name");
		return -EINVAL;
	}
	if (strchr(name, '/') || strstr(name, "..") || !strcmp(name, ".")) {
		snprintf(err, errlen, "a session name cannot contain '/' or '..'");
		return -EINVAL;
	}
	if (!strcmp(name, "current")) {
		snprintf(err, errlen, "\"current\" is the live session");
		return -EINVAL;
	}
	if (strlen(name) > NAME_MAX) {
		snprintf(err, errlen, "the session name is longer than %d bytes", NAME_MAX);
		return -EINVAL;
	}
	for (const char *p = name; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			snprintf(err, errlen, "the session name contains a control character");
			return -EINVAL;
		}
	}
	return 0;
}

void op_snapshot_default_name(time_t t, char *buf, size_t len)
{
	struct tm tm;

	localtime_r(&t, &tm);
	if (!strftime(buf, len, "snapshot-%Y%m%d-%H%M%S", &tm) && len)
		buf[0] = '\0';
}

int op_cpu_list_parse(const char *text, cpu_set_t *set, const char **bad)
{
	const char *p = text;

	CPU_ZERO(set);
	*bad = text;
	if (!*p)
		return -EINVAL;
	for (;;) {
		unsigned long lo, hi;
		char *end;

		*bad = p;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		lo = strtoul(p, &end, 10);
		hi = lo;
		if (errno)
			return -ERANGE;
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9') {
				*bad = end;
				return -EINVAL;
			}
			hi = strtoul(end + 1, &end, 10);
			if (errno)
				return -ERANGE;
			if (hi < lo)
				return -EINVAL;
		}
		if (hi >= CPU_SETSIZE)
			return -ERANGE;
		for (unsigned long c = lo; c <= hi; c++)
			CPU_SET(c, set);
		if (!*end)
			return 0;
		if (*end != ',') {
			*bad = end;
			return -EINVAL;
		}
		p = end + 1;
	}
}

void op_settings_default(struct op_settings *s)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->events[0], sizeof(s->events[0]), "default");
	s->nr_events = 1;
	s->buffer_size = 0;	/* OP_DEFAULT_BUFFER_WORDS, more with chains */
	s->buffer_watershed = 0;	/* a quarter of the buffer */
	s->cpu_buffer_size = 0;	/* sized from the events' rates */
	s->keep_mb = OP_DEFAULT_KEEP_MB;
}

/* Where a daemonrc line is, for messages. */
struct rc_line {
	const struct op_logger *lg;
	const char *path;
	unsigned int nr;
};

static void rc_warn(const struct rc_line *at, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void rc_warn(const struct rc_line *at, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	op_log(at->lg, OP_LOG_WARN, "config: %s:%u: %s, ignored", at->path, at->nr, what);
}

static bool parse_num(const char *v, unsigned long min, unsigned long max,
		      unsigned long *out)
{
	unsigned long n = 0;

	if (!*v)
		return false;
	for (; *v; v++) {
		if (*v < '0' || *v > '9' || n > (ULONG_MAX - (unsigned long)(*v - '0')) / 10)
			return false;
		n = n * 10 + (unsigned long)(*v - '0');
	}
	if (n < min || n > max)
		return false;
	*out = n;
	return true;
}

static bool copy_value(char *dst, size_t len, const char *v)
{
	size_t n = strlen(v);

	if (n >= len)
		return false;
	memcpy(dst, v, n + 1);
	return true;
}

static const char *const ignored_keys[] = {
	"SESSION_DIR", "KERNEL_RANGE", "XENIMAGE", "XEN_RANGE", "CPU_TYPE",
	"EVENT_NUM", "ACTIVE_DOMAINS", "NR_CHOSEN_UNITS",
};

struct rc_state {
	bool events_seen;
	unsigned int max_event;		/* highest CHOSEN_EVENTS_N + 1 */
	uint32_t events_set;		/* bit N: CHOSEN_EVENTS_N seen */
	long nr_chosen;			/* -1: not given */
};

static void apply(struct op_settings *s, struct rc_state *st,
		  const struct rc_line *at, const char *key, const char *v)
{
	static const struct {
		const char *key;
		unsigned int flag;
	} seps[] = {
		{ "SEPARATE_LIB", OP_SEP_LIB }, { "SEPARATE_KERNEL", OP_SEP_KERNEL },
		{ "SEPARATE_THREAD", OP_SEP_THREAD }, { "SEPARATE_CPU", OP_SEP_CPU },
		{ "SEPARATE_CONTAINER", OP_SEP_CONTAINER },
	};
	unsigned long n;
	size_t k;

	if (!strncmp(key, "CHOSEN_EVENTS_", 14)) {
		if (!parse_num(key + 14, 0, OP_MAX_EVENTS - 1, &n) ||
		    (key[14] == '0' && key[15])) {
			rc_warn(at, "bad event index in %s", key);
			return;
		}
		if (!*v || !copy_value(s->events[n], sizeof(s->events[n]), v)) {
			rc_warn(at, "bad value for %s '%s'", key, v);
			return;
		}
		st->events_seen = true;
		st->events_set |= 1u << n;
		if (n + 1 > st->max_event)
			st->max_event = (unsigned int)n + 1;
		return;
	}
	if (!strcmp(key, "NR_CHOSEN")) {
		if (!parse_num(v, 0, OP_MAX_EVENTS, &n))
			rc_warn(at, "bad value for %s '%s'", key, v);
		else
			st->nr_chosen = (long)n;
		return;
	}
	for (k = 0; k < sizeof(seps) / sizeof(seps[0]); k++) {
		if (strcmp(key, seps[k].key))
			continue;
		if (!parse_num(v, 0, 1, &n))
			rc_warn(at, "bad value for %s '%s'", key, v);
		else if (n)
			s->separate |= seps[k].flag;
		else
			s->separate &= ~seps[k].flag;
		return;
	}
	if (!strcmp(key, "UNWIND")) {
		char why[128];
		bool capped;

		if (op_unwind_parse(v, &s->unwind_stack, &capped, why, sizeof(why)))
			rc_warn(at, "bad value for %s '%s'", key, v);
	} else if (!strcmp(key, "CALLGRAPH")) {
		if (!parse_num(v, 0, 1024, &n))
			rc_warn(at, "bad value for %s '%s'", key, v);
		else
			s->callgraph_depth = (unsigned int)n;
	} else if (!strcmp(key, "BUF_SIZE")) {
		if (!parse_num(v, 0, ULONG_MAX, &s->buffer_size))
			rc_warn(at, "bad value for %s '%s'", key, v);
	} else if (!strcmp(key, "BUF_WATERSHED")) {
		if (!parse_num(v, 0, ULONG_MAX, &s->buffer_watershed))
			rc_warn(at, "bad value for %s '%s'", key, v);
	} else if (!strcmp(key, "CPU_BUFFER_SIZE")) {
		if (!parse_num(v, 0, ULONG_MAX, &s->cpu_buffer_size))
			rc_warn(at, "bad value for %s '%s'", key, v);
	} else if (!strcmp(key, "VMLINUX")) {
		if (!strcmp(v, "none")) {
			s->no_vmlinux = true;
			s->vmlinux[0] = '\0';
		} else if (copy_value(s->vmlinux, sizeof(s->vmlinux), v)) {
			s->no_vmlinux = false;
		} else {
			rc_warn(at, "value too long for %s", key);
		}
	} else if (!strcmp(key, "IMAGE_FILTER")) {
		if (!copy_value(s->image, sizeof(s->image), v))
			rc_warn(at, "value too long for %s", key);
	} else if (!strcmp(key, "PROFILE_PID")) {
		if (!parse_num(v, 0, INT32_MAX, &n))
			rc_warn(at, "bad value for %s '%s'", key, v);
		else
			s->pid = (pid_t)n;
	} else if (!strcmp(key, "PROFILE_CPUS")) {
		cpu_set_t set;
		const char *bad;

		if (*v && op_cpu_list_parse(v, &set, &bad))
			rc_warn(at, "bad value for %s '%s'", key, v);
		else if (!copy_value(s->cpus, sizeof(s->cpus), v))
			rc_warn(at, "value too long for %s", key);
	} else if (!strcmp(key, "FLIGHT_RECORDER")) {
		if (!parse_num(v, 0, OP_FLIGHT_MAX_SECONDS, &n))
			rc_warn(at, "bad value for %s '%s'", key, v);
		else
			s->flight_seconds = (unsigned int)n;
	} else if (!strcmp(key, "KEEP_MAX_MB")) {
		if (!parse_num(v, 0, OP_MAX_KEEP_MB, &n))
			rc_warn(at, "bad value for %s '%s'", key, v);
		else
			s->keep_mb = (unsigned int)n;
	} else if (!strcmp(key, "VERBOSE")) {
		if (!parse_num(v, 0, 1, &n))
			rc_warn(at, "bad value for %s '%s'", key, v);
		else
			s->verbose = n;
	} else {
		for (k = 0; k < sizeof(ignored_keys) / sizeof(ignored_keys[0]); k++)
			if (!strcmp(key, ignored_keys[k]))
				return;
		rc_warn(at, "unknown key %s", key);
	}
}

int op_settings_load(struct op_settings *s, const struct op_sessdir *sd, const char *path,
		     const struct op_logger *lg)
{
	struct rc_state st = { .nr_chosen = -1 };
	struct rc_line at = { lg, path, 0 };
	char *line = NULL;
	size_t cap = 0;
	struct stat sb;
	ssize_t len;
	FILE *f;
	int ret = 0;

	op_settings_default(s);
	f = op_sd_fopen(sd, path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		op_log(lg, OP_LOG_ERR, "config: cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
		fclose(f);
		op_log(lg, OP_LOG_ERR, "config: cannot read %s: %s", path, strerror(EISDIR));
		return -EISDIR;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *key = line, *eq;

		at.nr++;
		if ((size_t)len != strlen(line)) {
			rc_warn(&at, "NUL byte in line");
			continue;
		}
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		while (*key == ' ' || *key == '\t')
			key++;
		if (!*key || *key == '#')
			continue;
		eq = strchr(key, '=');
		if (!eq || eq == key) {
			rc_warn(&at, "not a KEY=VALUE line: '%s'", key);
			continue;
		}
		*eq = '\0';
		apply(s, &st, &at, key, eq + 1);
	}
	if (ferror(f)) {
		ret = -EIO;
		op_log(lg, OP_LOG_ERR, "config: cannot read %s", path);
	}
	free(line);
	fclose(f);

	if (st.events_seen || st.nr_chosen >= 0) {
		unsigned int nr = st.events_seen ? st.max_event : 0, i;

		for (i = 0; i < nr; i++)
			if (!(st.events_set & (1u << i)))
				break;
		if (i < nr)
			op_log(lg, OP_LOG_WARN, "config: %s: CHOSEN_EVENTS_%u missing, "
			       "using the %u events before it", path, i, i);
		nr = i;
		if (st.nr_chosen >= 0 && (unsigned long)st.nr_chosen != nr) {
			op_log(lg, OP_LOG_WARN, "config: %s: NR_CHOSEN=%ld but %u events given, "
			       "using %u", path, st.nr_chosen,
			       nr, st.nr_chosen < nr ? (unsigned int)st.nr_chosen : nr);
			if ((unsigned long)st.nr_chosen < nr)
				nr = (unsigned int)st.nr_chosen;
		}
		if (nr == 0) {
			op_log(lg, OP_LOG_WARN, "config: %s: no events, using the default", path);
			snprintf(s->events[0], sizeof(s->events[0]), "default");
			nr = 1;
		}
		s->nr_events = nr;
	}
	return ret;
}

static bool has_newline(const char *s)
{
	return strchr(s, '\n') || strchr(s, '\r');
}

int op_settings_save(const struct op_settings *s, const struct op_sessdir *sd,
		     const char *path)
{
	struct op_afile a;
	unsigned int i;
	char unwind[32];
	FILE *f;
	int ret;

	if (s->nr_events < 1 || s->nr_events > OP_MAX_EVENTS ||
	    has_newline(s->vmlinux) || has_newline(s->image) ||
	    has_newline(s->cpus) || s->pid < 0 ||
	    (!s->no_vmlinux && !strcmp(s->vmlinux, "none")))
		return -EINVAL;
	for (i = 0; i < s->nr_events; i++)
		if (!s->events[i][0] || has_newline(s->events[i]) ||
		    !memchr(s->events[i], '\0', sizeof(s->events[i])))
			return -EINVAL;

	ret = op_afile_open(&a, sd, path);
	if (ret)
		return ret;
	f = a.f;
	fprintf(f, "# written by opcontrol; KEY=VALUE, one per line\n");
	fprintf(f, "NR_CHOSEN=%u\n", s->nr_events);
	for (i = 0; i < s->nr_events; i++)
		fprintf(f, "CHOSEN_EVENTS_%u=%s\n", i, s->events[i]);
	fprintf(f, "SEPARATE_LIB=%d\n", !!(s->separate & OP_SEP_LIB));
	fprintf(f, "SEPARATE_KERNEL=%d\n", !!(s->separate & OP_SEP_KERNEL));
	fprintf(f, "SEPARATE_THREAD=%d\n", !!(s->separate & OP_SEP_THREAD));
	fprintf(f, "SEPARATE_CPU=%d\n", !!(s->separate & OP_SEP_CPU));
	fprintf(f, "SEPARATE_CONTAINER=%d\n", !!(s->separate & OP_SEP_CONTAINER));
	fprintf(f, "CALLGRAPH=%u\n", s->callgraph_depth);
	op_unwind_format(s->unwind_stack, unwind, sizeof(unwind));
	fprintf(f, "UNWIND=%s\n", unwind);
	fprintf(f, "BUF_SIZE=%lu\n", s->buffer_size);
	fprintf(f, "BUF_WATERSHED=%lu\n", s->buffer_watershed);
	fprintf(f, "CPU_BUFFER_SIZE=%lu\n", s->cpu_buffer_size);
	fprintf(f, "VMLINUX=%s\n", s->no_vmlinux ? "none" : s->vmlinux);
	fprintf(f, "IMAGE_FILTER=%s\n", s->image);
	fprintf(f, "VERBOSE=%d\n", s->verbose ? 1 : 0);
	fprintf(f, "PROFILE_PID=%d\n", (int)s->pid);
	fprintf(f, "PROFILE_CPUS=%s\n", s->cpus);
	fprintf(f, "FLIGHT_RECORDER=%u\n", s->flight_seconds);
	fprintf(f, "KEEP_MAX_MB=%u\n", s->keep_mb);
	return op_afile_commit(&a, true);
}
