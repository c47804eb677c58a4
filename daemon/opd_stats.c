/* Stats files and lines. */
#include "config.h"
#include "opd_stats.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_afile.h"
#include "op_stats.h"

static const char *const counter_names[OPD_NR_COUNTERS] = {
	[OPD_TOTAL_SAMPLES] = OP_STAT_TOTAL_SAMPLES,
	[OPD_KERNEL_SAMPLES] = OP_STAT_KERNEL_SAMPLES,
	[OPD_ANON_SAMPLES] = OP_STAT_ANON_SAMPLES,
	[OPD_EVENT_LOST_OVERFLOW] = OP_STAT_EVENT_LOST_OVERFLOW,
	[OPD_LOST_NO_MAPPING] = OP_STAT_LOST_NO_MAPPING,
	[OPD_LOST_SAMPLEFILE] = OP_STAT_LOST_SAMPLEFILE,
	[OPD_LOST_RECORDS_BY_KERNEL] = OP_STAT_LOST_RECORDS_BY_KERNEL,
	[OPD_BAD_ESCAPE] = OP_STAT_BAD_ESCAPE,
	[OPD_SAMPLES_WRITTEN] = OP_STAT_SAMPLES_WRITTEN,
	[OPD_LOST_FILTERED] = OP_STAT_FILTERED_BY_IMAGE,
	[OPD_LOST_NO_TASK] = OP_STAT_LOST_NO_TASK,
	[OPD_CHAINS] = OP_STAT_CALLGRAPH_CHAINS,
	[OPD_ARCS] = OP_STAT_CALLGRAPH_ARCS,
	[OPD_LOST_BT_NO_MAPPING] = OP_STAT_LOST_BT_NO_MAPPING,
	[OPD_BT_TRUNCATED] = OP_STAT_BACKTRACE_TRUNCATED,
	[OPD_BT_ABORTED] = OP_STAT_BACKTRACE_ABORTED,
	[OPD_CHAINS_LOST] = OP_STAT_CALLGRAPH_CHAINS_LOST,
	[OPD_ARCS_LOST] = OP_STAT_CALLGRAPH_ARCS_LOST,
	[OPD_LOST_SIDEBAND] = OP_STAT_LOST_SIDEBAND,
	[OPD_CALLGRAPH_DEPTH] = OP_STAT_CALLGRAPH_DEPTH,
	[OPD_IMAGES_UNRESOLVED] = OP_STAT_IMAGES_UNRESOLVED,
	[OPD_IMAGES_KEPT] = OP_STAT_IMAGES_KEPT,
	[OPD_IMAGES_NOT_KEPT_SPACE] = OP_STAT_IMAGES_NOT_KEPT_SPACE,
	[OPD_IMAGES_NOT_KEPT] = OP_STAT_IMAGES_NOT_KEPT,
	[OPD_UNWIND_NO_CFI] = OP_STAT_UNWIND_NO_CFI,
	[OPD_UNWIND_SHORT_STACK] = OP_STAT_UNWIND_SHORT_STACK,
	[OPD_UNWIND_BAD_FRAME] = OP_STAT_UNWIND_BAD_FRAME,
	[OPD_UNWIND_DONE] = OP_STAT_UNWIND_DONE,
	[OPD_UNWIND_FP_FALLBACK] = OP_STAT_UNWIND_FP_FALLBACK,
	[OPD_UNWIND_WALKS] = OP_STAT_UNWIND_WALKS,
	[OPD_UNWIND_PCS] = OP_STAT_UNWIND_PCS,
	[OPD_UNWIND_NS] = OP_STAT_UNWIND_NS,
	[OPD_UNWIND_STACK] = OP_STAT_UNWIND_STACK,
	[OPD_CGROUP_UNREAD] = OP_STAT_CGROUP_UNREAD,
	[OPD_NSPID_UNREAD] = OP_STAT_NSPID_UNREAD,
	[OPD_CGROUP_MOVED] = OP_STAT_CGROUP_MOVED,
};

static int write_value(const struct op_sessdir *sd, const char *dir, const char *name,
		       uint64_t value)
{
	char path[PATH_MAX];
	struct op_afile a;
	int ret;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = op_afile_open(&a, sd, path);
	if (ret)
		return ret;
	fprintf(a.f, "%llu\n", (unsigned long long)value);
	return op_afile_commit(&a, false);
}

static int make_dir(const struct op_sessdir *sd, const char *path)
{
	return op_sd_mkdirs(sd, path, 0755);
}

int opd_stats_write(const struct opd_stats *st, const struct op_sessdir *sd,
		    const char *current_dir)
{
	char dir[PATH_MAX], sub[PATH_MAX + 32];
	int first = 0, ret;

#define KEEP(expr) do { ret = (expr); if (ret && !first) first = ret; } while (0)
	if (snprintf(dir, sizeof(dir), "%s/" OP_STATS_DIR, current_dir) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	ret = make_dir(sd, dir);
	if (ret)
		return ret;
	for (int i = 0; i < OPD_NR_COUNTERS; i++)
		KEEP(write_value(sd, dir, counter_names[i], st->v[i]));
	for (unsigned int c = 0; c < st->nr_cpus; c++) {
		snprintf(sub, sizeof(sub), "%s/cpu%u", dir, c);
		KEEP(make_dir(sd, sub));
		KEEP(write_value(sd, sub, OP_STAT_CPU_LOST_OVERFLOW, st->cpu_lost_overflow[c]));
		KEEP(write_value(sd, sub, OP_STAT_CPU_RECEIVED, st->cpu_received[c]));
	}
	/* OProfile's opreport warns whenever stats/throttled exists, so it
	 * exists only once an event was throttled */
	if (st->throttled[0]) {
		char names[sizeof(st->throttled)];
		char *save = NULL;

		snprintf(sub, sizeof(sub), "%s/" OP_STAT_THROTTLED, dir);
		KEEP(make_dir(sd, sub));
		memcpy(names, st->throttled, sizeof(names));
		for (char *n = strtok_r(names, ",", &save); n;
		     n = strtok_r(NULL, ",", &save)) {
			if (!strchr(n, '/') && strcmp(n, ".") && strcmp(n, ".."))
				KEEP(write_value(sd, sub, n, 1));
		}
	}
#undef KEEP
	return first;
}

uint64_t opd_stats_value(const struct op_sessdir *sd, const char *dir, const char *name)
{
	char path[PATH_MAX];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = op_sd_fopen(sd, path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

int opd_stats_read(struct opd_stats *st, const struct op_sessdir *sd, const char *current_dir,
		   unsigned int max_cpus)
{
	char dir[PATH_MAX], sub[PATH_MAX + 32];
	struct stat sb;
	unsigned int n = 0;

	memset(st, 0, sizeof(*st));
	if (snprintf(dir, sizeof(dir), "%s/" OP_STATS_DIR, current_dir) >= (int)sizeof(dir) ||
	    op_sd_stat(sd, dir, &sb) || !S_ISDIR(sb.st_mode))
		return 0;
	for (int i = 0; i < OPD_NR_COUNTERS; i++)
		st->v[i] = opd_stats_value(sd, dir, counter_names[i]);
	while (n < max_cpus) {
		snprintf(sub, sizeof(sub), "%s/cpu%u", dir, n);
		if (op_sd_stat(sd, sub, &sb) || !S_ISDIR(sb.st_mode))
			break;
		n++;
	}
	st->cpu_lost_overflow = calloc(n ? n : 1, sizeof(uint64_t));
	st->cpu_received = calloc(n ? n : 1, sizeof(uint64_t));
	if (!st->cpu_lost_overflow || !st->cpu_received) {
		opd_stats_release(st);
		memset(st, 0, sizeof(*st));
		return -ENOMEM;
	}
	st->nr_cpus = n;
	for (unsigned int c = 0; c < n; c++) {
		snprintf(sub, sizeof(sub), "%s/cpu%u", dir, c);
		st->cpu_lost_overflow[c] = opd_stats_value(sd, sub, OP_STAT_CPU_LOST_OVERFLOW);
		st->cpu_received[c] = opd_stats_value(sd, sub, OP_STAT_CPU_RECEIVED);
	}
	return 0;
}

void opd_stats_release(struct opd_stats *st)
{
	free(st->cpu_lost_overflow);
	free(st->cpu_received);
	st->cpu_lost_overflow = NULL;
	st->cpu_received = NULL;
	st->nr_cpus = 0;
}

void opd_stats_log(const struct opd_stats *st, const struct op_logger *lg,
		   const char *why)
{
	char line[1024];
	size_t off = 0;

	for (int i = 0; i < OPD_NR_COUNTERS && off < sizeof(line); i++)
		off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%s=%llu",
					i ? " " : "", counter_names[i],
					(unsigned long long)st->v[i]);
	op_log(lg, OP_LOG_INFO, "stats (%s): %s", why, line);
	for (unsigned int c = 0; c < st->nr_cpus; c++) {
		if (!st->cpu_received[c] && !st->cpu_lost_overflow[c])
			continue;
		op_log(lg, OP_LOG_INFO, "stats (%s): cpu%u " OP_STAT_CPU_RECEIVED
		       "=%llu " OP_STAT_CPU_LOST_OVERFLOW "=%llu",
		       why, c, (unsigned long long)st->cpu_received[c],
		       (unsigned long long)st->cpu_lost_overflow[c]);
	}
	if (st->throttled[0])
		op_log(lg, OP_LOG_WARN, "stats (%s): throttled events: %s", why,
		       st->throttled);
}

void opd_stats_print(const struct opd_stats *st, FILE *f)
{
	for (int i = 0; i < OPD_NR_COUNTERS; i++)
		fprintf(f, "%s %llu\n", counter_names[i],
			(unsigned long long)st->v[i]);
	fprintf(f, OP_STAT_THROTTLED " %s\n", st->throttled[0] ? st->throttled : "none");
}
