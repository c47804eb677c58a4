/* Events: the user's "NAME:COUNT:UNITMASK:KERNEL:USER" specifications turned
 * into perf_event_attr through libpfm4, with the timer-mode fallback.
 *
 * "default" is the CPU's cycles event when a hardware PMU exists here and
 * the cpu-clock software event ("timer mode") otherwise. Names are accepted
 * as OProfile and perf spell them where they can be mapped: CPU_CLK_UNHALTED
 * and cycles, INST_RETIRED and instructions, cpu-clock and TIMER.
 *
 * Timer mode: the sample-file event name is "TIMER", the count is the
 * sampling period in nanoseconds, and the sample-file header's cpu_type is
 * ODB_CPU_TIMER_INT. Hardware events are named, numbered and described as
 * OProfile's own table for the CPU's generic type does (AMD64 generic,
 * Intel architectural perfmon), so that OProfile's tools read our sample
 * files: on AMD, instructions are RETIRED_INSTRUCTIONS (0xc0) and cycles
 * CPU_CLK_UNHALTED (0x76); on Intel, INST_RETIRED and CPU_CLK_UNHALTED
 * (0x3c).
 */
#ifndef OP_EVENTS_H
#define OP_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct op_event_spec {
	char name[64];
	unsigned long count;	/* 0: the event's default */
	unsigned int unit_mask;
	bool kernel;		/* count in kernel mode (default 1) */
	bool user;		/* count in user mode (default 1) */
};

struct op_event {
	struct op_event_spec spec;	/* as resolved: canonical name, count filled */
	struct perf_event_attr attr;	/* ready for perf_event_open, disabled */
	bool timer;			/* cpu-clock software event */
	uint32_t event_number;		/* for the file header: OProfile's number for the
					 * event on cpu_type, the raw event select of
					 * a libpfm4 event, 0 for timer mode and events
					 * OProfile's tables lack */
	uint32_t cpu_type;		/* sample-file header cpu_type */
	char description[256];		/* for report headers */
	unsigned long min_count;	/* smallest count accepted */
};

/* Parse "NAME[:COUNT[:UNITMASK[:KERNEL[:USER]]]]" or "default". Returns 0 or
 * -EINVAL with *bad pointing at the offending field inside text. */
int op_event_spec_parse(const char *text, struct op_event_spec *spec,
			const char **bad);

/* The libpfm4 name behind one of the names OProfile and perf users type
 * ("cycles", "INST_RETIRED", ...), or NULL for timer mode and names libpfm4
 * takes as they are. */
const char *op_event_pfm_name(const char *name);

/* An event's text parsed (op_event_spec_parse()) and resolved for this
 * machine, as every command that takes an event reads one: 0 with *ev (and
 * *spec, the parse, when spec is not NULL). Or -EINVAL when text does not
 * parse, with *bad (when not NULL) pointing at the offending field and err
 * saying 'bad event specification "TEXT" at "FIELD"'; else, *bad NULL:
 *   -ENOENT   unknown event name
 *   -ENODEV   a hardware event on a machine without a usable PMU (err says
 *             so and how to use cpu-clock instead)
 *   -ERANGE   count below the event's minimum (err names the minimum)
 *   -EINVAL   a unit mask on an event that takes none
 * with a message (no trailing newline) in err. */
int op_event_resolve_text(const char *text, struct op_event_spec *spec,
			  struct op_event *ev, const char **bad,
			  char *err, size_t errlen);

/* True when a hardware PMU can count cycles here (probes perf_event_open;
 * OPSAMPLER_PMU=off in the environment makes it false, so that a machine
 * with a PMU can run the timer path: op_perf_probe_pmu()). */
bool op_event_have_pmu(void);

/* OProfile's event number and unit mask for the event it calls name on
 * cpu_type (OProfile 1.4's tables for AMD64 generic and Intel's
 * architectural perfmon: cycles, instructions, branches and branch misses),
 * as a sample-file header carries them. Returns 0, or -ENOENT when
 * OProfile's table for cpu_type has no such event: such events are written
 * with event number 0, which OProfile's tools report as "Unknown event"
 * while reading their counts. */
int op_event_oprofile_number(uint32_t cpu_type, const char *name,
			     uint32_t *number, uint32_t *unit_mask);

/* The description of a sample-file event name into buf, for report
 * headers: OProfile's wording for the session's cpu_type (its event lists
 * differ: x86-64/generic says "CPU Clocks not Halted" where
 * i386/arch_perfmon says "Clock cycles when not halted"), else libpfm4's.
 * Returns 0, -ENOENT for a name nobody here knows, or -EIO when libpfm4
 * cannot start. */
int op_event_describe(uint32_t cpu_type, const char *name, char *buf, size_t len);

/* A sample-file header's cpu_type as OProfile names it: "AMD64 generic"
 * for the "CPU: " line, "x86-64/generic" (architecture/processor) for XML.
 * NULL for a cpu_type this libop never writes. */
const char *op_cpu_type_name(uint32_t cpu_type);
const char *op_cpu_type_id(uint32_t cpu_type);

/* The most samples a second one CPU can take of ev, for sizing the flight
 * recorder's rings: a clock event's 1e9 / period; any other event as fast
 * as the kernel lets an event sample (kernel.perf_event_max_sample_rate,
 * read from proc_root/sys/..., 100000 when it cannot be read), since a
 * count of cycles or misses says nothing of how often it is reached. */
double op_event_max_rate(const struct op_event *ev, const char *proc_root);

/* True when a sample file's event name is a hardware event that OProfile's
 * tables or perf's generic names know (cycles, instructions, branches). */
bool op_event_name_is_hardware(const char *name);

/* True when ev counts with the hardware PMU (not a software event). */
bool op_event_is_hardware(const struct op_event *ev);

/* Format a resolved event back as a spec string for --events/daemonrc. */
void op_event_format(const struct op_event *ev, char *buf, size_t len);

#endif /* OP_EVENTS_H */
