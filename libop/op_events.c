/* Events: the user's "NAME:COUNT:UNITMASK:KERNEL:USER" turned into a
 * perf_event_attr. libpfm4 knows every event name and its encoding; this
 * file adds what OProfile users expect on top of it: OProfile's names for
 * the common events, a default count and a safe minimum per event, and the
 * timer-mode fallback (the cpu-clock software event) for machines, most VMs,
 * whose hardware PMU cannot be opened even though libpfm4 recognises the CPU.
 */
#include "config.h"
#include "op_events.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfmon/pfmlib_perf_event.h>

#include "odb.h"
#include "op_perf.h"

/* OProfile 1.x's cpu_type numbers for the sample-file header (its
 * op_cpu_type enum, which 1.0 renumbered when it dropped old CPUs: 0.9
 * had 10 and 52 here): timer mode is ODB_CPU_TIMER_INT (4 in both);
 * hardware events are labelled with the generic type of the CPU's vendor,
 * as operf labels a CPU it has no model-specific events for. */
#define OP_CPU_ARCH_PERFMON 41	/* Intel architectural perfmon */
#define OP_CPU_AMD64_GENERIC 69	/* AMD64 generic */

#define OP_TIMER_DEFAULT_NS 1000000UL	/* 1 kHz per CPU */
#define OP_TIMER_MIN_NS 10000UL		/* 10 us: below this the kernel throttles */
#define OP_HW_DEFAULT_COUNT 100000UL
#define OP_HW_MIN_CYCLES 6000UL		/* OProfile's floor for its cycle events */
#define OP_HW_MIN_OTHER 500UL
#define OP_SW_DEFAULT_COUNT 1000UL

/* Names OProfile and perf users type, mapped onto the event that encodes
 * them: NULL for timer mode, else a perf generic hardware event, whose
 * name in sample files is OProfile's for this CPU (op_oprofile_events). */
struct op_event_alias {
	const char *alias;
	const char *pfm_name;	/* NULL: timer mode */
	uint64_t perf_config;	/* the PERF_TYPE_HARDWARE config pfm_name encodes */
	unsigned long min_count;
};

static const struct op_event_alias op_event_aliases[] = {
	{ "TIMER", NULL, 0, OP_TIMER_MIN_NS },
	{ "cpu-clock", NULL, 0, OP_TIMER_MIN_NS },
	{ "CPU_CLK_UNHALTED", "perf::PERF_COUNT_HW_CPU_CYCLES", PERF_COUNT_HW_CPU_CYCLES, OP_HW_MIN_CYCLES },
	{ "cycles", "perf::PERF_COUNT_HW_CPU_CYCLES", PERF_COUNT_HW_CPU_CYCLES, OP_HW_MIN_CYCLES },
	{ "cpu-cycles", "perf::PERF_COUNT_HW_CPU_CYCLES", PERF_COUNT_HW_CPU_CYCLES, OP_HW_MIN_CYCLES },
	{ "INST_RETIRED", "perf::PERF_COUNT_HW_INSTRUCTIONS", PERF_COUNT_HW_INSTRUCTIONS, OP_HW_MIN_CYCLES },
	{ "RETIRED_INSTRUCTIONS", "perf::PERF_COUNT_HW_INSTRUCTIONS", PERF_COUNT_HW_INSTRUCTIONS, OP_HW_MIN_CYCLES },
	{ "instructions", "perf::PERF_COUNT_HW_INSTRUCTIONS", PERF_COUNT_HW_INSTRUCTIONS, OP_HW_MIN_CYCLES },
	{ "BR_INST_RETIRED", "perf::PERF_COUNT_HW_BRANCH_INSTRUCTIONS", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, OP_HW_MIN_OTHER },
	{ "RETIRED_BRANCH_INSTRUCTIONS", "perf::PERF_COUNT_HW_BRANCH_INSTRUCTIONS", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, OP_HW_MIN_OTHER },
	{ "branches", "perf::PERF_COUNT_HW_BRANCH_INSTRUCTIONS", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, OP_HW_MIN_OTHER },
	{ "branch-instructions", "perf::PERF_COUNT_HW_BRANCH_INSTRUCTIONS", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, OP_HW_MIN_OTHER },
	{ "BR_MISS_PRED_RETIRED", "perf::PERF_COUNT_HW_BRANCH_MISSES", PERF_COUNT_HW_BRANCH_MISSES, OP_HW_MIN_OTHER },
	{ "RETIRED_MISPREDICTED_BRANCH_INSTRUCTIONS", "perf::PERF_COUNT_HW_BRANCH_MISSES", PERF_COUNT_HW_BRANCH_MISSES, OP_HW_MIN_OTHER },
	{ "branch-misses", "perf::PERF_COUNT_HW_BRANCH_MISSES", PERF_COUNT_HW_BRANCH_MISSES, OP_HW_MIN_OTHER },
};

/* OProfile's own events for the two generic x86 CPU types, as its 1.4.0
 * tables give them (events/x86-64/generic/events and
 * events/i386/arch_perfmon/events; tests/libop/test_events.c checks these
 * rows against the tarball in ../shared/peers): a sample file's header
 * carries the number and unit mask, so that OProfile's tools name the
 * event, and its file name carries the name, so that both tools' event:
 * specifications select it. perf_config is the generic hardware event
 * (PERF_TYPE_HARDWARE) that counts the same thing. */
struct op_oprofile_event {
	uint32_t cpu_type;
	const char *name;
	uint32_t number;
	uint32_t unit_mask;
	const char *description;
	uint64_t perf_config;
};

static const struct op_oprofile_event op_oprofile_events[] = {
	{ OP_CPU_AMD64_GENERIC, "CPU_CLK_UNHALTED", 0x76, 0, "CPU Clocks not Halted", PERF_COUNT_HW_CPU_CYCLES },
	{ OP_CPU_AMD64_GENERIC, "RETIRED_INSTRUCTIONS", 0xc0, 0, "Retired Instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ OP_CPU_AMD64_GENERIC, "RETIRED_BRANCH_INSTRUCTIONS", 0xc2, 0, "Retired Branch Instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ OP_CPU_AMD64_GENERIC, "RETIRED_MISPREDICTED_BRANCH_INSTRUCTIONS", 0xc3, 0, "Retired Mispredicted Branch Instructions", PERF_COUNT_HW_BRANCH_MISSES },
	{ OP_CPU_ARCH_PERFMON, "CPU_CLK_UNHALTED", 0x3c, 0, "Clock cycles when not halted", PERF_COUNT_HW_CPU_CYCLES },
	{ OP_CPU_ARCH_PERFMON, "INST_RETIRED", 0xc0, 0, "number of instructions retired", PERF_COUNT_HW_INSTRUCTIONS },
	{ OP_CPU_ARCH_PERFMON, "BR_INST_RETIRED", 0xc4, 0, "number of branch instructions retired", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ OP_CPU_ARCH_PERFMON, "BR_MISS_PRED_RETIRED", 0xc5, 0, "number of mispredicted branches retired (precise)", PERF_COUNT_HW_BRANCH_MISSES },
};

#define OP_NR_OPROFILE_EVENTS (sizeof(op_oprofile_events) / sizeof(op_oprofile_events[0]))

/* Does row stand for what key gives of an event (its cpu_type aside)? */
typedef bool (*op_row_match)(const struct op_oprofile_event *row,
			     const struct op_oprofile_event *key);

/* the same generic hardware event */
static bool same_config(const struct op_oprofile_event *row,
			const struct op_oprofile_event *key)
{
	return row->perf_config == key->perf_config;
}

/* the same raw event select and unit mask */
static bool same_number(const struct op_oprofile_event *row,
			const struct op_oprofile_event *key)
{
	return row->number == key->number && row->unit_mask == key->unit_mask;
}

static bool same_name(const struct op_oprofile_event *row,
		      const struct op_oprofile_event *key)
{
	return !strcmp(row->name, key->name);
}

/* The row of key's cpu_type that match says is key's, or NULL. */
static const struct op_oprofile_event *
op_oprofile_find(const struct op_oprofile_event *key, op_row_match match)
{
	for (size_t i = 0; i < OP_NR_OPROFILE_EVENTS; i++)
		if (op_oprofile_events[i].cpu_type == key->cpu_type &&
		    match(&op_oprofile_events[i], key))
			return &op_oprofile_events[i];
	return NULL;
}

/* The row of cpu_type for a generic hardware event, or NULL. */
static const struct op_oprofile_event *op_oprofile_by_config(uint32_t cpu_type,
							     uint64_t config)
{
	const struct op_oprofile_event key = { .cpu_type = cpu_type,
					       .perf_config = config };

	return op_oprofile_find(&key, same_config);
}

/* The row of cpu_type for a raw event select and unit mask, or NULL. */
static const struct op_oprofile_event *op_oprofile_by_number(uint32_t cpu_type,
							     uint32_t number,
							     uint32_t unit_mask)
{
	const struct op_oprofile_event key = { .cpu_type = cpu_type,
					       .number = number,
					       .unit_mask = unit_mask };

	return op_oprofile_find(&key, same_number);
}

/* The row of cpu_type named name, or NULL. */
static const struct op_oprofile_event *op_oprofile_by_name(uint32_t cpu_type,
							   const char *name)
{
	const struct op_oprofile_event key = { .cpu_type = cpu_type, .name = name };

	return op_oprofile_find(&key, same_name);
}

int op_event_oprofile_number(uint32_t cpu_type, const char *name,
			     uint32_t *number, uint32_t *unit_mask)
{
	const struct op_oprofile_event *e = op_oprofile_by_name(cpu_type, name);

	if (!e)
		return -ENOENT;
	*number = e->number;
	*unit_mask = e->unit_mask;
	return 0;
}

/* The cpu_type values written above, named as OProfile names them
 * (op_cpu_type.c): pretty name, then "arch/processor" for XML. */
static const struct {
	uint32_t cpu_type;
	const char *pretty;
	const char *id;
} op_cpu_names[] = {
	{ ODB_CPU_TIMER_INT, "CPU with timer interrupt", "timer" },
	{ OP_CPU_ARCH_PERFMON, "Intel Architectural Perfmon", "i386/arch_perfmon" },
	{ OP_CPU_AMD64_GENERIC, "AMD64 generic", "x86-64/generic" },
};

const char *op_cpu_type_name(uint32_t cpu_type)
{
	for (size_t i = 0; i < sizeof(op_cpu_names) / sizeof(op_cpu_names[0]); i++)
		if (op_cpu_names[i].cpu_type == cpu_type)
			return op_cpu_names[i].pretty;
	return NULL;
}

const char *op_cpu_type_id(uint32_t cpu_type)
{
	for (size_t i = 0; i < sizeof(op_cpu_names) / sizeof(op_cpu_names[0]); i++)
		if (op_cpu_names[i].cpu_type == cpu_type)
			return op_cpu_names[i].id;
	return NULL;
}

static const struct op_event_alias *op_event_find_alias(const char *name)
{
	for (size_t i = 0; i < sizeof(op_event_aliases) / sizeof(op_event_aliases[0]); i++) {
		/* OProfile's upper-case names are matched without case */
		if (!strcasecmp(op_event_aliases[i].alias, name))
			return &op_event_aliases[i];
	}
	return NULL;
}

const char *op_event_pfm_name(const char *name)
{
	const struct op_event_alias *alias = op_event_find_alias(name);

	return alias ? alias->pfm_name : NULL;
}

/* A field of a spec: [start, end). */
static int op_parse_ulong(const char *start, const char *end, unsigned long max,
			  unsigned long *out)
{
	char buf[32];
	char *stop;
	size_t len = (size_t)(end - start);
	unsigned long long v;

	if (len == 0 || len >= sizeof(buf) || *start == '-' || *start == '+' ||
	    isspace((unsigned char)*start))
		return -EINVAL;
	memcpy(buf, start, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoull(buf, &stop, 0);
	if (errno || *stop || v > max)
		return -EINVAL;
	*out = (unsigned long)v;
	return 0;
}

static bool op_event_name_char(char c)
{
	/* no '.': it separates the fields of a sample-file name */
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

int op_event_spec_parse(const char *text, struct op_event_spec *spec,
			const char **bad)
{
	const char *field[5], *field_end[5];
	const char *p = text;
	unsigned int nr_fields = 0;
	unsigned long v;

	*bad = text;
	memset(spec, 0, sizeof(*spec));
	spec->kernel = true;
	spec->user = true;
	if (!text)
		return -EINVAL;

	for (;;) {
		const char *colon = strchr(p, ':');
		const char *end = colon ? colon : p + strlen(p);

		if (nr_fields == 5) {
			*bad = p;
			return -EINVAL;
		}
		field[nr_fields] = p;
		field_end[nr_fields] = end;
		nr_fields++;
		if (!colon)
			break;
		p = colon + 1;
	}

	if (field[0] == field_end[0] ||
	    (size_t)(field_end[0] - field[0]) >= sizeof(spec->name)) {
		*bad = field[0];
		return -EINVAL;
	}
	for (p = field[0]; p < field_end[0]; p++) {
		if (!op_event_name_char(*p)) {
			*bad = p;
			return -EINVAL;
		}
	}
	memcpy(spec->name, field[0], (size_t)(field_end[0] - field[0]));
	spec->name[field_end[0] - field[0]] = '\0';
	if (nr_fields > 1) {
		if (op_parse_ulong(field[1], field_end[1], ULONG_MAX, &v) || v == 0) {
			*bad = field[1];
			return -EINVAL;
		}
		spec->count = v;
	}
	if (nr_fields > 2) {
		if (op_parse_ulong(field[2], field_end[2], UINT_MAX, &v)) {
			*bad = field[2];
			return -EINVAL;
		}
		spec->unit_mask = (unsigned int)v;
	}
	for (unsigned int i = 3; i < nr_fields; i++) {
		if (field_end[i] - field[i] != 1 ||
		    (field[i][0] != '0' && field[i][0] != '1')) {
			*bad = field[i];
			return -EINVAL;
		}
		if (i == 3)
			spec->kernel = field[i][0] == '1';
		else
			spec->user = field[i][0] == '1';
	}
	if (!spec->kernel && !spec->user) {
		*bad = field[3];
		return -EINVAL;
	}
	return 0;
}

bool op_event_have_pmu(void)
{
	return op_perf_probe_pmu() == 0;
}

static uint32_t op_hw_cpu_type(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	uint32_t type = OP_CPU_ARCH_PERFMON;

	if (!f)
		return type;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "vendor_id", 9)) {
			if (strstr(line, "AuthenticAMD") || strstr(line, "HygonGenuine"))
				type = OP_CPU_AMD64_GENERIC;
			break;
		}
	}
	fclose(f);
	return type;
}

static void op_event_fill_attr(struct op_event *ev)
{
	struct perf_event_attr *a = &ev->attr;

	a->size = sizeof(*a);
	a->sample_period = ev->spec.count;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
	a->disabled = 1;
	a->exclude_kernel = !ev->spec.kernel;
	a->exclude_user = !ev->spec.user;
	a->exclude_hv = 1;
	a->freq = 0;
}

double op_event_max_rate(const struct op_event *ev, const char *proc_root)
{
	const struct perf_event_attr *a = &ev->attr;
	double cap = 100000;
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_max_sample_rate",
		 proc_root ? proc_root : "/proc");
	f = fopen(path, "re");
	if (f) {
		unsigned long v;

		if (fscanf(f, "%lu", &v) == 1 && v)
			cap = (double)v;
		fclose(f);
	}
	if (a->freq)
		return a->sample_freq < cap ? (double)a->sample_freq : cap;
	if (a->type == PERF_TYPE_SOFTWARE && a->sample_period &&
	    (a->config == PERF_COUNT_SW_CPU_CLOCK ||
	     a->config == PERF_COUNT_SW_TASK_CLOCK)) {
		double rate = 1e9 / (double)a->sample_period;

		return rate < cap ? rate : cap;
	}
	return cap;
}

static int op_event_resolve_timer(const struct op_event_spec *spec,
				  struct op_event *ev, char *err, size_t errlen)
{
	if (spec->unit_mask) {
		snprintf(err, errlen, "event TIMER (cpu-clock) takes no unit mask, got 0x%x",
			 spec->unit_mask);
		return -EINVAL;
	}
	ev->spec = *spec;
	snprintf(ev->spec.name, sizeof(ev->spec.name), "TIMER");
	ev->min_count = OP_TIMER_MIN_NS;
	if (!ev->spec.count)
		ev->spec.count = OP_TIMER_DEFAULT_NS;
	if (ev->spec.count < ev->min_count) {
		snprintf(err, errlen,
			 "count %lu for event TIMER (cpu-clock) is below the minimum %lu ns",
			 ev->spec.count, ev->min_count);
		return -ERANGE;
	}
	ev->timer = true;
	ev->event_number = 0;
	ev->cpu_type = ODB_CPU_TIMER_INT;
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	op_event_fill_attr(ev);
	snprintf(ev->description, sizeof(ev->description),
		 "timer mode: cpu-clock software event, one sample every %lu ns per CPU",
		 ev->spec.count);
	return 0;
}

static bool op_attr_is_hardware(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	       a->type == PERF_TYPE_RAW || a->type >= PERF_TYPE_MAX;
}

/* Resolve a parsed spec for this machine (op_event_resolve_text() says
 * what it returns). */
static int op_event_resolve(const struct op_event_spec *spec,
			    struct op_event *ev, char *err, size_t errlen)
{
	const struct op_event_alias *alias;
	const struct op_oprofile_event *row = NULL;
	const char *pfm_name = spec->name;
	struct op_event_spec s = *spec;
	pfm_perf_encode_arg_t arg;
	pfm_event_info_t info;
	char *fstr = NULL;
	int ret;

	memset(ev, 0, sizeof(*ev));
	if (errlen)
		err[0] = '\0';

	if (!strcmp(s.name, "default")) {
		if (op_event_have_pmu())
			snprintf(s.name, sizeof(s.name), "CPU_CLK_UNHALTED");
		else
			snprintf(s.name, sizeof(s.name), "TIMER");
	}

	alias = op_event_find_alias(s.name);
	if (alias && !alias->pfm_name)
		return op_event_resolve_timer(&s, ev, err, errlen);
	if (alias)
		pfm_name = alias->pfm_name;

	ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		snprintf(err, errlen, "events: cannot initialise libpfm4: %s",
			 pfm_strerror(ret));
		return -EIO;
	}

	memset(&arg, 0, sizeof(arg));
	arg.attr = &ev->attr;
	arg.fstr = &fstr;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(pfm_name, PFM_PLM0 | PFM_PLM3,
					PFM_OS_PERF_EVENT_EXT, &arg);
	free(fstr);
	if (ret != PFM_SUCCESS) {
		memset(ev, 0, sizeof(*ev));
		if (ret == PFM_ERR_NOTFOUND) {
			snprintf(err, errlen,
				 "unknown event %s (ophelp lists the events of this machine)",
				 s.name);
			return -ENOENT;
		}
		snprintf(err, errlen, "cannot encode event %s: %s", s.name,
			 pfm_strerror(ret));
		return -EINVAL;
	}
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (pfm_get_event_info(arg.idx, PFM_OS_PERF_EVENT_EXT, &info) != PFM_SUCCESS)
		info.name = NULL;

	/* perf's cpu-clock reached through a libpfm4 name is timer mode too */
	if (ev->attr.type == PERF_TYPE_SOFTWARE &&
	    ev->attr.config == PERF_COUNT_SW_CPU_CLOCK) {
		memset(&ev->attr, 0, sizeof(ev->attr));
		return op_event_resolve_timer(&s, ev, err, errlen);
	}

	ev->spec = s;
	snprintf(ev->spec.name, sizeof(ev->spec.name), "%s", info.name ? info.name : s.name);

	if (op_attr_is_hardware(&ev->attr)) {
		if (!op_event_have_pmu()) {
			char name[64];

			snprintf(name, sizeof(name), "%s", s.name);
			memset(ev, 0, sizeof(*ev));
			snprintf(err, errlen,
				 "event %s needs a hardware PMU and there is no usable PMU here "
				 "(a VM?); use the cpu-clock software event instead, e.g. "
				 "--event=cpu-clock:%lu",
				 name, OP_TIMER_DEFAULT_NS);
			return -ENODEV;
		}
		ev->min_count = alias ? alias->min_count : OP_HW_MIN_OTHER;
		if (!ev->spec.count)
			ev->spec.count = OP_HW_DEFAULT_COUNT;
		ev->cpu_type = op_hw_cpu_type();
		if (ev->attr.type == PERF_TYPE_RAW) {
			/* x86 event select: bits 0-7, AMD's extension in 32-35 */
			ev->event_number = (uint32_t)((ev->attr.config & 0xff) |
						      ((ev->attr.config >> 24) & 0xf00));
			if (s.unit_mask)
				ev->attr.config = (ev->attr.config & ~0xff00ULL) |
						  ((uint64_t)(s.unit_mask & 0xff) << 8);
			row = op_oprofile_by_number(ev->cpu_type, ev->event_number,
						    s.unit_mask);
		} else if (ev->attr.type == PERF_TYPE_HARDWARE) {
			/* OProfile's number, or none: OProfile's tables have no
			 * event 0, so its tools say "Unknown event" and still
			 * read the counts */
			row = op_oprofile_by_config(ev->cpu_type, ev->attr.config);
			ev->event_number = row ? row->number : 0;
		} else {
			/* cache events and other PMUs: nothing in OProfile's
			 * tables counts them */
			ev->event_number = 0;
		}
	} else {
		/* task-clock counts ns like cpu-clock; the other software
		 * events count occurrences (faults, switches); OProfile's
		 * tables have none of them */
		bool ns = ev->attr.config == PERF_COUNT_SW_TASK_CLOCK;

		ev->min_count = ns ? OP_TIMER_MIN_NS : 1;
		if (!ev->spec.count)
			ev->spec.count = ns ? OP_TIMER_DEFAULT_NS : OP_SW_DEFAULT_COUNT;
		ev->cpu_type = op_hw_cpu_type();
		ev->event_number = 0;
	}
	if (row)
		snprintf(ev->spec.name, sizeof(ev->spec.name), "%s", row->name);
	if (s.unit_mask && ev->attr.type != PERF_TYPE_RAW) {
		snprintf(err, errlen, "event %s takes no unit mask, got 0x%x",
			 ev->spec.name, s.unit_mask);
		memset(ev, 0, sizeof(*ev));
		return -EINVAL;
	}
	if (ev->spec.count < ev->min_count) {
		snprintf(err, errlen, "count %lu for event %s is below the minimum %lu",
			 ev->spec.count, ev->spec.name, ev->min_count);
		return -ERANGE;
	}
	op_event_fill_attr(ev);
	snprintf(ev->description, sizeof(ev->description), "%s",
		 row ? row->description : info.desc ? info.desc : ev->spec.name);
	return 0;
}

int op_event_resolve_text(const char *text, struct op_event_spec *spec,
			  struct op_event *ev, const char **bad,
			  char *err, size_t errlen)
{
	struct op_event_spec one;
	const char *where;
	int ret;

	if (!spec)
		spec = &one;
	if (bad)
		*bad = NULL;
	ret = op_event_spec_parse(text, spec, &where);
	if (ret) {
		if (bad)
			*bad = where;
		snprintf(err, errlen, "bad event specification \"%s\" at \"%s\"",
			 text, where);
		return ret;
	}
	return op_event_resolve(spec, ev, err, errlen);
}

int op_event_describe(uint32_t cpu_type, const char *name, char *buf, size_t len)
{
	const struct op_oprofile_event *row = op_oprofile_by_name(cpu_type, name);
	const struct op_event_alias *alias = op_event_find_alias(name);
	pfm_event_info_t info;
	int idx;

	/* the other vendor's OProfile name (INST_RETIRED in an AMD session)
	 * in its own table's words; a perf name ("cycles") as the row that
	 * counts the same */
	for (size_t i = 0; !row && i < OP_NR_OPROFILE_EVENTS; i++)
		if (!strcmp(op_oprofile_events[i].name, name))
			row = &op_oprofile_events[i];
	if (!row && alias && alias->pfm_name)
		row = op_oprofile_by_config(cpu_type, alias->perf_config);
	if (row) {
		snprintf(buf, len, "%s", row->description);
		return 0;
	}
	if (!strcmp(name, "TIMER")) {
		snprintf(buf, len, "cpu-clock software event (timer mode), count in ns");
		return 0;
	}
	if (pfm_initialize() != PFM_SUCCESS)
		return -EIO;
	idx = pfm_find_event(name);
	if (idx < 0)
		return -ENOENT;
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &info) != PFM_SUCCESS ||
	    !info.desc)
		return -ENOENT;
	snprintf(buf, len, "%s", info.desc);
	return 0;
}

bool op_event_name_is_hardware(const char *name)
{
	for (size_t i = 0; i < OP_NR_OPROFILE_EVENTS; i++)
		if (!strcmp(op_oprofile_events[i].name, name))
			return true;
	return op_event_pfm_name(name) != NULL;
}

bool op_event_is_hardware(const struct op_event *ev)
{
	return !ev->timer && op_attr_is_hardware(&ev->attr);
}

void op_event_format(const struct op_event *ev, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%lu:%u:%d:%d", ev->spec.name, ev->spec.count,
		 ev->spec.unit_mask, ev->spec.kernel ? 1 : 0, ev->spec.user ? 1 : 0);
}
