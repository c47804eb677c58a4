/* What every tool says about a session before its report: OProfile's
 * warnings about how it was sampled (and ours about what it lost), and the
 * header lines (CPU, events, classes) every report opens with. */
#include "config.h"
#include "pp_session.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "odb.h"
#include "op_cgroups.h"
#include "op_events.h"
#include "op_stats.h"
#include "pp_format.h"

/* OProfile's three warnings about how a session was sampled, on stderr
 * before anything else, for each session read that holds any file. Its
 * rules are kept as they are, quirks included, so that both opreports warn
 * about the same sessions in the same words:
 *   - buffer overflows: event_lost_overflow is read, and when it is 0 the
 *     cpuN/sample_lost_overflow files in directory order until one is not
 *     0; a positive value warns (a missing file stops the search);
 *   - throttling: whenever stats/throttled exists, even empty;
 *   - lost samples: operf's lost_* counters summed against total_samples,
 *     warned above one in ten thousand, pointing at operf's log. */
static const char *const operf_lost_stats[] = {
	OP_STAT_LOST_INVALID_DOMAIN, OP_STAT_LOST_KERNEL, OP_STAT_LOST_SAMPLEFILE,
	OP_STAT_LOST_NO_MAPPING, OP_STAT_LOST_NO_APP_KERNEL,
	OP_STAT_LOST_NO_APP_USER, OP_STAT_LOST_BT_NO_MAPPING,
	OP_STAT_LOST_INVALID_HV, OP_STAT_LOST_RECORDS_BY_KERNEL,
};

/* A stats number as OProfile reads it: -1 (all ones) when the file is
 * missing or holds no number. */
static unsigned long read_op_stat(const struct op_sessdir *sd, const char *stats,
				  const char *name)
{
	char path[PATH_MAX * 2];
	unsigned long v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", stats, name);
	f = op_sd_fopen(sd, path, "re");
	if (!f)
		return (unsigned long)-1;
	if (fscanf(f, "%lu", &v) != 1)
		v = (unsigned long)-1;
	fclose(f);
	return v;
}

static bool overflowed(const struct op_sessdir *sd, const char *stats)
{
	int ret = (int)(uint32_t)read_op_stat(sd, stats, OP_STAT_EVENT_LOST_OVERFLOW);
	struct dirent *de;
	DIR *d = op_sd_opendir(sd, stats);

	if (!d)
		return false;
	while (!ret && (de = readdir(d))) {
		char name[300];
		int cpu;

		if (sscanf(de->d_name, "cpu%d", &cpu) != 1)
			continue;
		snprintf(name, sizeof(name), "%s/" OP_STAT_CPU_LOST_OVERFLOW, de->d_name);
		ret = (int)(uint32_t)read_op_stat(sd, stats, name);
	}
	closedir(d);
	return ret > 0;
}

/* One counter of a warning's list, when it is not zero: "NAME V", after a
 * comma from the second on. */
static void list_counter(FILE *err, const char **sep, const char *name,
			 unsigned long v)
{
	if (!v)
		return;
	fprintf(err, "%s %s %lu", *sep, name, v);
	*sep = ",";
}

/* Our daemon's loss counters, which OProfile's warnings above do not
 * weigh: each lost sample counted once, at the stage that lost it, and
 * its share of every sample the kernel took (those lost before the
 * daemon's total_samples are added to it). Only for sessions our daemon
 * wrote: it alone writes lost_no_task. */
static void our_losses(FILE *err, const struct op_sessdir *sd, const char *stats)
{
	static const struct {
		const char *name;
		bool upstream;		/* lost before total_samples counted it */
	} ctrs[] = {
		{ OP_STAT_EVENT_LOST_OVERFLOW, true },
		{ OP_STAT_LOST_RECORDS_BY_KERNEL, true },
		{ OP_STAT_LOST_NO_TASK, true },
		{ OP_STAT_LOST_NO_MAPPING, false },
		{ OP_STAT_LOST_SAMPLEFILE, false },
		{ OP_STAT_BAD_ESCAPE, true },	/* a sequence the decoder dropped */
	};
	unsigned long v[sizeof(ctrs) / sizeof(ctrs[0])];
	unsigned long total = read_op_stat(sd, stats, OP_STAT_TOTAL_SAMPLES);
	unsigned long lost = 0, all;
	const char *sep = "";

	if (total == (unsigned long)-1 ||
	    read_op_stat(sd, stats, OP_STAT_LOST_NO_TASK) == (unsigned long)-1)
		return;
	all = total;
	for (size_t i = 0; i < sizeof(ctrs) / sizeof(ctrs[0]); i++) {
		v[i] = read_op_stat(sd, stats, ctrs[i].name);
		if (v[i] == (unsigned long)-1)
			v[i] = 0;
		lost += v[i];
		if (ctrs[i].upstream)
			all += v[i];
	}
	if (!lost)
		return;
	fprintf(err, "\nWARNING: %lu of %lu samples (%.4f%%) were lost while profiling:",
		lost, all, pp_percent(lost, all));
	for (size_t i = 0; i < sizeof(ctrs) / sizeof(ctrs[0]); i++)
		list_counter(err, &sep, ctrs[i].name, v[i]);
	fputc('\n', err);
}

/* Binaries of processes that saw another root (containers) that the
 * session could not open as mapped, or keep a copy of: their samples are
 * counted, their symbols may be missing. */
static void other_roots(FILE *err, const struct op_sessdir *sd, const char *stats)
{
	static const char *const ctrs[] = {
		OP_STAT_IMAGES_UNRESOLVED, OP_STAT_IMAGES_NOT_KEPT_SPACE,
		OP_STAT_IMAGES_NOT_KEPT,
	};
	unsigned long v[sizeof(ctrs) / sizeof(ctrs[0])];
	const char *sep = "";
	bool any = false;

	for (size_t i = 0; i < sizeof(ctrs) / sizeof(ctrs[0]); i++) {
		v[i] = read_op_stat(sd, stats, ctrs[i]);
		if (v[i] == (unsigned long)-1)
			v[i] = 0;
		any |= v[i] != 0;
	}
	if (!any)
		return;
	fprintf(err, "\nWARNING: binaries of processes in other roots (containers) "
		"were not kept (their samples are counted, their symbols may be "
		"missing):");
	for (size_t i = 0; i < sizeof(ctrs) / sizeof(ctrs[0]); i++)
		list_counter(err, &sep, ctrs[i], v[i]);
	fputc('\n', err);
}

/* What the session lost that is not a sample: parts of call chains (the
 * samples are counted and kept, flat or with a shorter chain) and the
 * kernel's side-band records (a lost mmap or exec can file later samples
 * under a stale image). Each counter as the daemon wrote it, once. */
static void other_losses(FILE *err, const struct op_sessdir *sd, const char *stats)
{
	static const char *const chains[] = {
		OP_STAT_LOST_BT_NO_MAPPING, OP_STAT_BACKTRACE_TRUNCATED,
		OP_STAT_BACKTRACE_ABORTED, OP_STAT_CALLGRAPH_CHAINS_LOST,
		OP_STAT_CALLGRAPH_ARCS_LOST,
		/* --unwind=dwarf: a user part ended early, one reason each */
		OP_STAT_UNWIND_NO_CFI, OP_STAT_UNWIND_SHORT_STACK,
		OP_STAT_UNWIND_BAD_FRAME,
	};
	unsigned long v, cv[sizeof(chains) / sizeof(chains[0])];
	const char *sep = "";
	bool any = false;

	for (size_t i = 0; i < sizeof(chains) / sizeof(chains[0]); i++) {
		cv[i] = read_op_stat(sd, stats, chains[i]);
		if (cv[i] == (unsigned long)-1)
			cv[i] = 0;
		any |= cv[i] != 0;
	}
	if (any) {
		fprintf(err, "\nWARNING: call chains were cut or not kept "
			"(their samples are counted, with what was kept of "
			"the chain):");
		for (size_t i = 0; i < sizeof(chains) / sizeof(chains[0]); i++)
			list_counter(err, &sep, chains[i], cv[i]);
		fputc('\n', err);
	}
	v = read_op_stat(sd, stats, OP_STAT_LOST_SIDEBAND);
	if (v != (unsigned long)-1 && v)
		fprintf(err, "\nWARNING: the kernel lost %lu side-band records "
			"(mmaps, execs, exits): samples after them may be filed "
			"under a stale image (lost_sideband_records)\n", v);
	other_roots(err, sd, stats);
}

/* What the reports could not name of a session with containers (a
 * process that saw another root, or a kept image): processes whose
 * cgroup, and processes or threads whose pid in their PID namespace,
 * could not be read. A session without containers says nothing, as
 * OProfile's opreport says nothing. */
static void container_names(FILE *err, const struct op_sessdir *sd,
			    const char *samples_dir, const char *stats)
{
	unsigned long cg = read_op_stat(sd, stats, OP_STAT_CGROUP_UNREAD);
	unsigned long ns = read_op_stat(sd, stats, OP_STAT_NSPID_UNREAD);
	unsigned long moved = read_op_stat(sd, stats, OP_STAT_CGROUP_MOVED);
	struct op_cgroups c;
	bool containers = false;

	if (moved != (unsigned long)-1 && moved)
		fprintf(err, "\nNOTE: %lu processes were moved to another cgroup "
			"while they were sampled: each is named by the cgroup "
			"of its last samples (cgroup_moved)\n", moved);
	if (cg == (unsigned long)-1)
		cg = 0;
	if (ns == (unsigned long)-1)
		ns = 0;
	if ((!cg && !ns) || op_cgroups_read(sd, samples_dir, &c))
		return;
	containers = c.nr_uses > 0;
	for (size_t i = 0; i < c.n && !containers; i++)
		containers = c.v[i].other_root;
	op_cgroups_release(&c);
	if (!containers)
		return;
	fprintf(err, "\nWARNING: some processes of this session are named by no "
		"container, or by their host pid alone (they ended before the "
		"daemon could read them):");
	if (cg)
		fprintf(err, " %lu processes' cgroups (cgroup_unread)%s", cg,
			ns ? "," : "");
	if (ns)
		fprintf(err, " %lu pids or tids in their PID namespaces "
			"(nspid_unread)", ns);
	fputc('\n', err);
}

void pp_session_warnings(FILE *err, const struct op_sessdir *sd,
			 const char *samples_dir, const char *session_dir)
{
	char stats[PATH_MAX * 2], throttled[PATH_MAX * 2], why[PATH_MAX * 2 + 64];
	unsigned long total, lost = 0;
	struct dirent *de;
	struct stat st;
	bool any = false;
	DIR *d;

	d = op_sd_opendir(sd, samples_dir);
	while (d && !any && (de = readdir(d)))
		any = strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	snprintf(stats, sizeof(stats), "%s/" OP_STATS_DIR, samples_dir);
	snprintf(throttled, sizeof(throttled), "%s/" OP_STATS_DIR "/" OP_STAT_THROTTLED, samples_dir);
	if (!any)
		return;
	/* a link where the stats are: not read through, said */
	if (!op_sd_stat(sd, stats, &st) && S_ISLNK(st.st_mode))
		fprintf(err, "WARNING: %s\n", op_sd_explain(sd, stats, -ELOOP, why,
							   sizeof(why)));
	if (overflowed(sd, stats))
		fputs("WARNING! The OProfile kernel driver reports sample buffer "
		      "overflows.\nSuch overflows can result in incorrect sample "
		      "attribution, invalid sample\nfiles and other symptoms.  "
		      "See the oprofiled.log for details.\nYou should adjust your "
		      "sampling frequency to eliminate (or at least minimize)\n"
		      "these overflows.\n", err);
	d = op_sd_opendir(sd, throttled);
	if (d) {
		fprintf(err, "\nWARNING! Some of the events were throttled. "
			"Throttling occurs when\nthe initial sample rate is too "
			"high, causing an excessive number of\ninterrupts.  "
			"Decrease the sampling frequency. Check the directory\n"
			"%s\nfor the throttled event names.\n\n", throttled);
		closedir(d);
	}
	total = read_op_stat(sd, stats, OP_STAT_TOTAL_SAMPLES);
	if (total != (unsigned long)-1) {
		for (size_t i = 0; i < sizeof(operf_lost_stats) / sizeof(operf_lost_stats[0]); i++) {
			unsigned long v = read_op_stat(sd, stats, operf_lost_stats[i]);

			if (v != (unsigned long)-1)
				lost += v;
		}
		if (lost > (unsigned int)(0.0001 * (double)total))
			fprintf(err, "\nWARNING: Lost samples detected! See %s/samples/"
				"operf.log for details.\n", session_dir);
	}
	/* ours last, so that OProfile's text comes first and whole */
	our_losses(err, sd, stats);
	other_losses(err, sd, stats);
	container_names(err, sd, samples_dir, stats);
	{
		/* a session with call chains: say so, as --status does; OProfile's
		 * opreport has no word for it */
		unsigned long depth = read_op_stat(sd, stats, OP_STAT_CALLGRAPH_DEPTH);
		unsigned long stack = read_op_stat(sd, stats, OP_STAT_UNWIND_STACK);

		if (depth && depth != (unsigned long)-1 && stack &&
		    stack != (unsigned long)-1)
			fprintf(err, "\nNOTE: call chains were collected, to a depth of %lu: "
				"opreport -c shows them (user part by DWARF unwinding "
				"of %lu-byte stack copies)\n", depth, stack);
		else if (depth && depth != (unsigned long)-1)
			fprintf(err, "\nNOTE: call chains were collected, to a depth of %lu: "
				"opreport -c shows them (user part by frame pointers)\n",
				depth);
	}
}

void pp_report_event_notes(FILE *err, const struct pp_profile *p)
{
	size_t nr_hw = 0;

	if (p->hdr.cpu_type == ODB_CPU_TIMER_INT)
		return;
	for (size_t c = 0; c < p->fs.nr_classes; c++) {
		bool seen = false;

		for (size_t d = 0; d < c; d++)
			seen = seen || !strcmp(p->fs.classes[d].event, p->fs.classes[c].event);
		if (!seen && op_event_name_is_hardware(p->fs.classes[c].event))
			nr_hw++;
	}
	if (nr_hw > 1)
		fprintf(err, "\nNOTE: %zu hardware events were sampled at once: on a virtual "
			"machine's PMU this has been seen to skew a column toward the others'\n"
			"shape; check one against a session of that event alone "
			"(opcontrol(1), EVENTS)\n", nr_hw);
}

void pp_report_header(FILE *out, const struct pp_profile *p,
		      const struct pp_report_opts *opts)
{
	const char *cpu = op_cpu_type_name(p->hdr.cpu_type);
	bool timer = p->hdr.cpu_type == ODB_CPU_TIMER_INT;

	/* OProfile's words for a cpu_type it does not know; no speed when
	 * the header has none */
	fprintf(out, "CPU: %s", cpu ? cpu : "invalid cpu type");
	if (p->hdr.cpu_speed > 0)
		fprintf(out, ", speed %g MHz (estimated)", p->hdr.cpu_speed);
	fputc('\n', out);
	/* container: named only when asked for (OProfile has no such line) */
	for (size_t i = 0; i < p->fs.nr_containers; i++)
		fprintf(out, "Container: %s\n", p->fs.containers[i]);
	if (timer) {
		fprintf(out, "Profiling through timer interrupt\n");
	} else {
		/* one line per distinct event */
		for (size_t c = 0; c < p->fs.nr_classes; c++) {
			const struct pp_class *k = &p->fs.classes[c];
			char desc[256];
			bool seen = false;

			for (size_t d = 0; d < c; d++)
				if (!strcmp(p->fs.classes[d].event, k->event) &&
				    p->fs.classes[d].count == k->count)
					seen = true;
			if (seen)
				continue;
			/* an event no table here knows is described by its
			 * name (OProfile would print only "Unknown event") */
			if (op_event_describe(p->hdr.cpu_type, k->event, desc,
					      sizeof(desc)))
				snprintf(desc, sizeof(desc), "%s", k->event);
			fprintf(out, "Counted %s events (%s) with a unit mask of "
				"0x%02x (%s) count %lu\n", k->event, desc,
				k->unit_mask,
				k->unit_mask ? "multiple flags" : "No unit mask",
				k->count);
		}
	}
	if (p->fs.axis != PP_AXIS_NONE && p->fs.axis != PP_AXIS_EVENT)
		for (size_t c = 0; c < p->fs.nr_classes; c++)
			fprintf(out, "%s\n", p->fs.classes[c].longname);
}
