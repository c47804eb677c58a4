/* opexport's model: a session as distinct stacks with counts, the shape
 * that pprof, folded stacks and flame graphs all want, built once and
 * written by one room per format (pp_export_pprof.c, pp_export_folded.c,
 * pp_export_flame.c).
 *
 * A stack is a list of locations, innermost first, each a distinct (image,
 * sample-file offset) named by a function and a source line once
 * symbolized. With call graphs the stacks are the session's own aggregate of
 * whole chains (libop/op_chains.h), never re-assembled from arcs; without,
 * each sampled address is a stack of one frame. A stack also carries its
 * key: the event and the cpu, tgid and tid the session separated it by
 * (OP_SF_ALL where it did not, or where --merge merged them).
 *
 * The model is plain arrays, filled through pp_export_add_*() by the
 * loader, or by tests that need no session. Work follows distinct stacks
 * and distinct addresses, never samples.
 *
 * Ownership: a pp_export owns every string and array hanging off it;
 * pp_export_release() frees them all.
 */
#ifndef PP_EXPORT_H
#define PP_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "op_cgroups.h"
#include "op_log.h"
#include "op_names.h"
#include "pp_profile.h"
#include "pp_options.h"
#include "pp_symview.h"

#define PP_XNONE UINT32_MAX

/* How a frame is drawn: code of the process's own executable, of a
 * library (or any other mapping), or of the kernel and its modules. */
enum pp_xkind {
	PP_XKIND_USER,
	PP_XKIND_LIB,
	PP_XKIND_KERNEL,
};

struct pp_ximage {
	struct op_img img;	/* owned; a kernel is OP_IMG_KERN */
	char *name;		/* full name as opreport prints it */
	char *build_id;		/* lowercase hex, or NULL */
	uint64_t mtime;		/* of the samples' binary, 0: unknown */
	uint64_t max_off;	/* highest offset sampled */
	bool has_functions, has_lines;
};

struct pp_xfunc {
	uint32_t image;
	char *name;		/* demangled unless asked otherwise */
	char *system_name;	/* as in the symbol table */
	char *file;		/* source file, or NULL */
	int start_line;
};

struct pp_xloc {
	uint32_t image;
	uint64_t off;		/* as the sample file holds it */
	uint64_t vma;		/* as opreport prints it (symbolized) */
	uint32_t func;		/* PP_XNONE until symbolized */
	int line;		/* 0: unknown */
};

struct pp_xevent {
	char *name;		/* "TIMER", "CPU_CLK_UNHALTED" */
	unsigned long count;	/* the period: ns for TIMER, else events */
	unsigned int unit_mask;
};

struct pp_xkey {
	uint32_t event;
	int cpu, tgid, tid;	/* OP_SF_ALL: not separated */
};

struct pp_xstack {
	uint32_t key;
	uint32_t app;		/* the process's executable image, PP_XNONE */
	uint32_t nr;		/* frames */
	size_t first;		/* into frames[] */
	uint64_t count;
};

struct pp_export {
	struct pp_ximage *images;
	size_t nr_images;
	struct pp_xloc *locs;
	size_t nr_locs;
	struct pp_xfunc *funcs;
	size_t nr_funcs;
	uint32_t *frames;	/* location indices, each stack innermost first */
	size_t nr_frames;
	struct pp_xstack *stacks;
	size_t nr_stacks;
	struct pp_xevent *events;
	size_t nr_events;
	struct pp_xkey *keys;
	size_t nr_keys;
	bool has_chains;	/* stacks are whole chains */
	bool sep_cpu, sep_tgid, sep_tid;	/* some key has a value */
	uint32_t cpu_type;	/* from the first sample file's header */
	int64_t time_nanos;	/* when profiling started, 0: unknown */
	int64_t duration_nanos;	/* until the last dump or stop, 0: unknown */
	size_t nr_bad_files;	/* refused, named through the logger */
	char **sessions;	/* the session directories read */
	size_t nr_sessions;
	struct op_cgroups cgroups;	/* the first session's processes'
					 * cgroups: pprof's container and
					 * cgroup labels, by tgid */

	/* lookups: open addressing, index + 1 in each slot, 0 empty */
	uint32_t *loc_slots, *stack_slots;
	size_t loc_cap, stack_cap;
	size_t alloc_locs, alloc_frames, alloc_stacks, alloc_funcs;
};

void pp_export_init(struct pp_export *x);
void pp_export_release(struct pp_export *x);

/* The index of an image, event or key, added when new (img is copied).
 * PP_XNONE on ENOMEM. */
uint32_t pp_export_image(struct pp_export *x, const struct op_img *img);
uint32_t pp_export_event(struct pp_export *x, const char *name,
			 unsigned long count, unsigned int unit_mask);
uint32_t pp_export_key(struct pp_export *x, uint32_t event, int cpu,
		       int tgid, int tid);
/* The index of the location (image, off); PP_XNONE on ENOMEM. */
uint32_t pp_export_loc(struct pp_export *x, uint32_t image, uint64_t off);
/* Add count to the stack locs[0..nr) (innermost first) under key and
 * app; equal stacks add up. 0 or -ENOMEM. */
int pp_export_add_stack(struct pp_export *x, uint32_t key, uint32_t app,
			const uint32_t *locs, uint32_t nr, uint64_t count);
/* A function of image named name (system_name, file may be NULL): its
 * index, PP_XNONE on ENOMEM. Not shared: the symbolizer keeps one per
 * symbol. */
uint32_t pp_export_func(struct pp_export *x, uint32_t image, const char *name,
			const char *system_name, const char *file,
			int start_line);

/* How a frame of image i is drawn in a stack whose executable is app. */
enum pp_xkind pp_export_kind(const struct pp_export *x, uint32_t image,
			     uint32_t app);

/* Load the stacks of a selected (not yet classified) fileset, which x
 * takes over, spec being the specification that selected it: whole chains
 * from each session's store when every session has one, else each file's
 * addresses, said once through lg. Corrupt sample files and chain stores
 * (a counts file odb refuses, a chain naming an unlisted image, a count of
 * an unlisted chain) are named through lg and counted in nr_bad_files; a
 * store whose chain list cannot be read at all is -EINVAL, named too.
 * Returns 0, -ENOMEM or -EINVAL. */
int pp_export_load(struct pp_export *x, struct pp_fileset *fs,
		   const struct pp_spec *spec, const struct pp_merge *merge,
		   const struct op_logger *lg);

/* Name every location: functions (demangled when o->demangle), source
 * lines and build-ids, reading binaries as opreport -l does (o's root,
 * image path, debug directories, kallsyms or vmlinux; the saved kernel
 * symbols of a single session). Missing binaries are warned about once,
 * through lg; their locations are named "[IMAGE]". 0 or -ENOMEM. */
int pp_export_symbolize(struct pp_export *x, const struct pp_report_opts *o,
			const struct op_logger *lg, struct pp_report_status *st);

/* Folded stacks: stacks by frame names, root first, equal ones merged,
 * sorted by name. names[first..first+nr) root first; kinds alike. */
/* Folded stacks, root first. A process's stack in a container (known
 * when the session gives its process: separated by container or by
 * thread) starts at a frame "container:NAME" of its own; with
 * --separate=container every process's does (its cgroup's name). */
struct pp_fold {
	const char **names;	/* borrowed from the model, or roots' */
	uint8_t *kinds;		/* enum pp_xkind */
	struct pp_fold_line {
		size_t first;
		uint32_t nr;
		uint64_t count;
	} *lines;
	size_t nr_lines;
	uint64_t total;
	char **roots;		/* the containers' frames, owned */
	size_t nr_roots;
};
int pp_export_fold(const struct pp_export *x, struct pp_fold *f);
void pp_fold_release(struct pp_fold *f);

/* The writers. Each returns 0, -ENOMEM, or -EIO when out failed. */

/* gzip'd pprof profile.proto. */
int pp_export_pprof(const struct pp_export *x, FILE *out);

/* "frame;frame;frame count" lines, root first, one per distinct stack;
 * kernel frames carry flamegraph.pl's "_[k]" suffix. */
int pp_export_folded(const struct pp_export *x, FILE *out);

/* A self-contained SVG flame graph titled title. */
int pp_export_flamegraph(const struct pp_export *x, FILE *out,
			 const char *title);

#endif /* PP_EXPORT_H */
