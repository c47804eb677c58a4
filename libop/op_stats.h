/* The files of a session's stats/ directory (samples/NAME/stats/), one
 * decimal number each, in OProfile's layout: our daemon writes them
 * (daemon/opd_stats.c), opcontrol --status and every report read them
 * (pp/core/pp_session.c), as OProfile's tools read theirs. The names are
 * OProfile's where it has one, so that its opreport reads ours. */
#ifndef OP_STATS_H
#define OP_STATS_H

#define OP_STATS_DIR			"stats"

/* written by our daemon */
#define OP_STAT_TOTAL_SAMPLES		"total_samples"
#define OP_STAT_KERNEL_SAMPLES		"kernel_samples"
#define OP_STAT_ANON_SAMPLES		"anon_samples"
#define OP_STAT_EVENT_LOST_OVERFLOW	"event_lost_overflow"
#define OP_STAT_LOST_NO_MAPPING		"lost_no_mapping"
#define OP_STAT_LOST_SAMPLEFILE		"lost_samplefile"
#define OP_STAT_LOST_RECORDS_BY_KERNEL	"lost_records_by_kernel"
#define OP_STAT_BAD_ESCAPE		"bad_escape"
#define OP_STAT_SAMPLES_WRITTEN		"samples_written"
#define OP_STAT_FILTERED_BY_IMAGE	"filtered_by_image"
#define OP_STAT_LOST_NO_TASK		"lost_no_task"	/* ours alone */
#define OP_STAT_CALLGRAPH_CHAINS	"callgraph_chains"
#define OP_STAT_CALLGRAPH_ARCS		"callgraph_arcs"
#define OP_STAT_LOST_BT_NO_MAPPING	"lost_bt_no_mapping"	/* operf's name */
#define OP_STAT_BACKTRACE_TRUNCATED	"backtrace_truncated"
#define OP_STAT_BACKTRACE_ABORTED	"backtrace_aborted"	/* OProfile's name */
#define OP_STAT_CALLGRAPH_CHAINS_LOST	"callgraph_chains_lost"
#define OP_STAT_CALLGRAPH_ARCS_LOST	"callgraph_arcs_lost"
#define OP_STAT_LOST_SIDEBAND		"lost_sideband_records"
#define OP_STAT_CALLGRAPH_DEPTH		"callgraph_depth"
/* --unwind=dwarf (ours): chains whose user part ended early, one reason
 * each; the unwinder's activity; the stack copy's size (a setting, 0 for
 * frame pointers) */
#define OP_STAT_UNWIND_NO_CFI		"unwind_no_cfi"
#define OP_STAT_UNWIND_SHORT_STACK	"unwind_short_stack"
#define OP_STAT_UNWIND_BAD_FRAME	"unwind_bad_frame"
#define OP_STAT_UNWIND_DONE		"unwind_done"
#define OP_STAT_UNWIND_FP_FALLBACK	"unwind_fp_fallback"
#define OP_STAT_UNWIND_WALKS		"unwind_walks"
#define OP_STAT_UNWIND_PCS		"unwind_pcs"
#define OP_STAT_UNWIND_NS		"unwind_ns"
#define OP_STAT_UNWIND_STACK		"unwind_stack_bytes"
/* binaries of processes that see another root (a container), each image
 * counted once: not openable as mapped (no copy, perhaps no symbols),
 * kept in the session dir's kept/, not kept for its bound, not kept for
 * an error */
#define OP_STAT_IMAGES_UNRESOLVED	"images_unresolved"
#define OP_STAT_IMAGES_KEPT		"images_kept"
#define OP_STAT_IMAGES_NOT_KEPT_SPACE	"images_not_kept_no_space"
#define OP_STAT_IMAGES_NOT_KEPT		"images_not_kept"
/* processes whose cgroup (their container's name) could not be read */
#define OP_STAT_CGROUP_UNREAD		"cgroup_unread"
/* processes and threads in another PID namespace whose id there (their
 * pid in their container) could not be read */
#define OP_STAT_NSPID_UNREAD		"nspid_unread"
/* processes whose samples were taken in more than one cgroup (moved
 * while running), each process image counted once: reports name each by
 * the cgroup of its last; not a loss */
#define OP_STAT_CGROUP_MOVED		"cgroup_moved"

/* The counters of lost samples, each loss counted once at the stage that
 * lost it: their sum is what a session lost (the same list that
 * pp/core/pp_session.c weighs in its summary, and the keys of oprofiled's
 * status reply); for an initializer: { OP_STATS_SAMPLE_LOSSES }. */
#define OP_STATS_SAMPLE_LOSSES \
	OP_STAT_EVENT_LOST_OVERFLOW, OP_STAT_LOST_RECORDS_BY_KERNEL, \
	OP_STAT_LOST_NO_TASK, OP_STAT_LOST_NO_MAPPING, \
	OP_STAT_LOST_SAMPLEFILE, OP_STAT_BAD_ESCAPE
/* per CPU, in stats/cpuN/ */
#define OP_STAT_CPU_LOST_OVERFLOW	"sample_lost_overflow"
#define OP_STAT_CPU_RECEIVED		"sample_received"
/* the throttled events: a directory in OProfile's sessions, a file in
 * ours; its being there is what OProfile's opreport warns of */
#define OP_STAT_THROTTLED		"throttled"

/* written by OProfile's operf alone; its opreport sums them, with ours of
 * the same names, against total_samples */
#define OP_STAT_LOST_INVALID_DOMAIN	"lost_invalid_domain"
#define OP_STAT_LOST_KERNEL		"lost_kernel"
#define OP_STAT_LOST_NO_APP_KERNEL	"lost_no_app_for_kernel_sample"
#define OP_STAT_LOST_NO_APP_USER	"lost_no_app_for_user_sample"
#define OP_STAT_LOST_INVALID_HV		"lost_invalid_hypervisor_addr"

#endif /* OP_STATS_H */
