/* The session's counters, gathered from kmod, the decoder, the sampler and
 * the file cache into one snapshot, then written where each reader looks:
 * samples/current/stats/ (one decimal number per file, OProfile's layout,
 * read by opreport), the daemon log, and the status reply.
 */
#ifndef OPD_STATS_H
#define OPD_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "op_log.h"
#include "op_sessdir.h"

enum opd_counter_id {
	OPD_TOTAL_SAMPLES,		/* samples received by the daemon */
	OPD_KERNEL_SAMPLES,
	OPD_ANON_SAMPLES,
	OPD_EVENT_LOST_OVERFLOW,	/* event-buffer overflow (kmod) */
	OPD_LOST_NO_MAPPING,		/* unknown image, kernel pc outside text and modules */
	OPD_LOST_SAMPLEFILE,
	OPD_LOST_RECORDS_BY_KERNEL,	/* PERF_RECORD_LOST: the sum of the
					 * per-CPU sample_lost_overflow */
	OPD_BAD_ESCAPE,			/* bad stream sequences */
	OPD_SAMPLES_WRITTEN,		/* counts that reached a file */
	OPD_LOST_FILTERED,		/* outside --image (not a loss: asked for) */
	OPD_LOST_NO_TASK,		/* user sample of a process kmod never knew */
	/* call chains (--callgraph); a chain's loss is not a sample's */
	OPD_CHAINS,			/* samples written with their chain */
	OPD_ARCS,			/* arc counts that reached an arc file */
	OPD_LOST_BT_NO_MAPPING,		/* chains cut at a caller in no mapping */
	OPD_BT_TRUNCATED,		/* chains that filled the depth */
	OPD_BT_ABORTED,			/* chains the record could not hold */
	OPD_CHAINS_LOST,		/* chains the chain store could not keep */
	OPD_ARCS_LOST,			/* arcs no arc file could take */
	OPD_LOST_SIDEBAND,		/* side-band records the kernel lost
					 * (mmaps, execs, exits: not samples) */
	OPD_CALLGRAPH_DEPTH,		/* --callgraph: a setting, 0 is off */
	/* images of processes that see another root (kop_root.c) */
	OPD_IMAGES_UNRESOLVED,		/* not openable as mapped */
	OPD_IMAGES_KEPT,		/* a copy in the store */
	OPD_IMAGES_NOT_KEPT_SPACE,	/* the store's bound */
	OPD_IMAGES_NOT_KEPT,		/* a copy failed */
	/* --unwind=dwarf: chains whose user part ended early, one reason
	 * each, then the unwinder's activity */
	OPD_UNWIND_NO_CFI,		/* a frame with no unwind table */
	OPD_UNWIND_SHORT_STACK,		/* a frame past the stack copy */
	OPD_UNWIND_BAD_FRAME,		/* an impossible frame */
	OPD_UNWIND_DONE,		/* user parts unwound to the end */
	OPD_UNWIND_FP_FALLBACK,		/* ... some frames by frame pointer */
	OPD_UNWIND_WALKS,		/* user parts unwound */
	OPD_UNWIND_PCS,			/* pcs they found */
	OPD_UNWIND_NS,			/* time the sync thread spent on them */
	OPD_UNWIND_STACK,		/* --unwind: a setting, 0 is frame
					 * pointers, else the stack copy's bytes */
	OPD_CGROUP_UNREAD,		/* a process's cgroup unreadable */
	OPD_NSPID_UNREAD,		/* an id in a PID namespace unreadable */
	OPD_CGROUP_MOVED,		/* a process's samples in two cgroups */
	OPD_NR_COUNTERS
};

struct opd_stats {
	uint64_t v[OPD_NR_COUNTERS];
	unsigned int nr_cpus;
	uint64_t *cpu_lost_overflow;	/* nr_cpus entries: ring losses, a
					 * breakdown of LOST_RECORDS_BY_KERNEL */
	uint64_t *cpu_received;		/* nr_cpus entries */
	char throttled[512];		/* comma list of throttled event names, "" if none */
};

/* A setting among the counters: not summed across daemons or windows. */
static inline int opd_counter_is_setting(int id)
{
	return id == OPD_CALLGRAPH_DEPTH || id == OPD_UNWIND_STACK;
}

/* Every dir below is reached through sd (op_sessdir.h).
 *
 * Write dir/stats/ (created, old per-CPU entries replaced). Each file is
 * written whole (temporary + rename) so a crash leaves old or new values.
 * Returns 0 or the first -errno. */
int opd_stats_write(const struct opd_stats *st, const struct op_sessdir *sd,
		    const char *current_dir);

/* The number in dir/name (dir a stats/ directory), 0 when there is none
 * or it does not read as one. */
uint64_t opd_stats_value(const struct op_sessdir *sd, const char *dir, const char *name);

/* Read what a daemon left in current_dir/stats/: each counter, and the
 * per-CPU ones of cpu0/ on up to the first missing (at most max_cpus).
 * A counter with no readable file reads 0. 0 or -ENOMEM (*st zeroed,
 * nothing to release, when there is no stats/ at all). */
int opd_stats_read(struct opd_stats *st, const struct op_sessdir *sd, const char *current_dir,
		   unsigned int max_cpus);

/* Free the per-CPU counters of a snapshot or of what opd_stats_read()
 * read; st stays usable (no CPUs). */
void opd_stats_release(struct opd_stats *st);

/* Log the figures at level INFO, prefixed with why ("dump", "exit"). */
void opd_stats_log(const struct opd_stats *st, const struct op_logger *lg,
		   const char *why);

/* Append "KEY VALUE\n" lines to f. */
void opd_stats_print(const struct opd_stats *st, FILE *f);

#endif /* OPD_STATS_H */
