/* Which sample files a report reads and how they fall into columns.
 *
 * A report selects sample files with a profile specification (pp_spec.h),
 * classifies them into "classes" (columns) along the one axis on which they
 * differ once --merge has been applied (cpu, tid, tgid, event, unit mask;
 * for XML along several at once, as OProfile's XML allows), and sums each
 * (application, image) pair's counts per class. Reading a sample file
 * costs one pass over its distinct offsets (odb_for_each): the work
 * depends on distinct addresses, never on the number of samples.
 *
 * Three rooms: selecting (pp_fileset.c), classifying (pp_classify.c) and
 * loading (pp_profile.c).
 *
 * Ownership: a pp_profile owns every string and array hanging off it;
 * pp_profile_release frees them all.
 */
#ifndef PP_PROFILE_H
#define PP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_cgroups.h"
#include "op_log.h"
#include "op_names.h"
#include "op_sums.h"

struct pp_spec;

struct pp_merge {
	bool cpu, lib, tid, tgid, unitmask, container;
};

/* Parse --merge's "lib,cpu,tid,tgid,unitmask,container,all" (also
 * "unit-mask"); tgid merges tid too, as in OProfile, and container
 * (files separated by container are a process's).
 * Returns 0 or -EINVAL with *bad at the offending token inside text. */
int pp_merge_parse(const char *text, struct pp_merge *m, const char **bad);

enum pp_axis {
	PP_AXIS_NONE,
	PP_AXIS_EVENT,
	PP_AXIS_UNITMASK,
	PP_AXIS_TGID,
	PP_AXIS_TID,
	PP_AXIS_CPU,
	PP_AXIS_CONTAINER,	/* --separate=container's files (a TGID, TID
				 * "all"), by their process's container */
	PP_AXIS_MULTI,		/* several at once: XML only, pp_classify_multi() */
};

/* One column. */
struct pp_class {
	char label[96];		/* "cpu:0", "tid:42", "TIMER:1000000" */
	char longname[160];	/* "Samples on CPU 0"... "" for the event axis */
	char event[64];
	unsigned long count;
	unsigned int unit_mask;
	long value;		/* the axis value (-1: "all") */
};

/* One selected sample file. */
struct pp_sfile {
	struct op_sfname name;
	char *path;		/* absolute */
	const struct op_sessdir *sd;	/* path is read through it: its
					 * fileset's */
	size_t rel;		/* path + rel: the name under the session,
				 * "{root}/..." or "{kern}/..." */
	unsigned int cls;	/* class index, set by pp_classify */
	/* the session's integrity record of the file (op_sums.h), when
	 * the session has one that lists it; sum.rel is not set */
	struct op_sum sum;
	bool has_sum;
	/* what pp_sfile_open() found: 0 not opened yet, 1 read (and
	 * matching its sum), else the error it gave, which the next opens
	 * return at once; named_bad: a reader has said so and counted it */
	int verdict;
	bool named_bad;
};

/* Sample files selected for one report, before classification. */
struct pp_fileset {
	struct pp_sfile *files;
	size_t nr_files, alloc_files;
	size_t nr_unnamed;	/* files under the session whose name did not parse */
	char *first_unnamed;
	size_t nr_foreign;	/* files whose application is neither {root}
				 * nor {kern}: not read, as in OProfile */
	size_t nr_no_tgid;	/* container: asked, files not separated by
				 * thread (no process to name one by) */
	char **containers;	/* container: the ones selected, "NAME (cgroup
				 * PATH)", each once */
	size_t nr_containers, alloc_containers;
	struct op_cgroups cgroups;	/* the first session's processes'
					 * cgroups, pids in their namespaces,
					 * and who mapped its kept images */
	char **sessions;	/* session directories read */
	size_t nr_sessions, alloc_sessions;
	/* the session directory they lie in, opened for reading: every file
	 * of it is read through this (op_sessdir.h), no link followed out;
	 * malloc'd so that the files may point at it wherever fs moves */
	struct op_sessdir *sd;
	enum pp_axis axis;
	struct pp_class *classes;
	size_t nr_classes;
};

/* The session directory opreport uses: dir when given, else ./oprofile_data
 * when it exists, else /var/lib/oprofile. Malloc'd, NULL on ENOMEM. */
char *pp_session_dir_default(const char *dir);

/* Select the sample files of session_dir matching spec, in the order of
 * their paths (strcmp), which is the order OProfile's opreport reads them
 * in: its summary lists an application's images as it first meets them.
 * Returns 0 (maybe
 * with no file: the caller says "no matching samples"), -ENOENT when no
 * selected session directory exists (no session), or -errno. */
int pp_fileset_select(struct pp_fileset *fs, const char *session_dir,
		      const struct pp_spec *spec, const struct op_logger *lg);

/* As pp_fileset_select, with the call-graph arc files ({cg}, name.cg set)
 * as well: opreport -c classifies them with the others. */
int pp_fileset_select_cg(struct pp_fileset *fs, const char *session_dir,
			 const struct pp_spec *spec, const struct op_logger *lg);

/* Classify fs's files into columns after merging, by OProfile's rules:
 * one axis (event, tgid, tid or cpu; a single class is the event's), and
 * tgid with tid only when every class's tgid equals its tid. Returns 0, or
 * -EDOM when the files differ along two axes otherwise (err holds
 * OProfile's explanation: the shown axis and its values, the conflicting
 * axis, a suggestion; several lines, no final newline), or -ENOMEM. */
int pp_classify(struct pp_fileset *fs, const struct pp_merge *merge,
		char *err, size_t errlen);

/* Classify as OProfile's XML report does when the files differ along
 * several axes: one column per distinct (tgid, tid, unit mask, event,
 * count, cpu) left after merging, in that order with "all" after every
 * number, so that a thread's columns are neighbours. fs->axis becomes
 * PP_AXIS_MULTI; a column's tgid, tid and cpu are those of its files.
 * Returns 0 or -ENOMEM. */
int pp_classify_multi(struct pp_fileset *fs, const struct pp_merge *merge);

void pp_fileset_release(struct pp_fileset *fs);

/* Open a selected file read-only and check it against the session's
 * integrity record: -EBADMSG when it does not match (the file changed
 * after the daemon wrote it), else odb_open()'s result. */
int pp_sfile_open(const struct pp_sfile *f, odb_t *db);

/* A reader met f refused by pp_sfile_open(): true the first time (the
 * reader then says so and counts it), false once a reader has. Like the
 * verdict, a cache beside the file, not part of what it is. */
bool pp_sfile_first_bad(const struct pp_sfile *f);

/* Why pp_sfile_open() failed. */
const char *pp_sfile_strerror(int err);

/* One (application, image) pair with its counts per class and per offset.
 * offs[] is sorted; counts is nr_addrs x nr_classes, row-major. */
struct pp_image {
	struct op_img app;	/* with --merge=lib: equal to img */
	struct op_img img;
	uint64_t *total;	/* [nr_classes] */
	uint64_t *offs;
	uint64_t *counts;
	size_t nr_addrs;
	uint64_t mtime;		/* from the first file's header */
	bool have_header;
	/* the application as OProfile's opreport names it in its sample
	 * file names, the part before {dep} with {root} or {kern} left out
	 * ("/usr/bin/ls", "/ext4"); with --merge=lib the image's, an
	 * anonymous one as "NAME (tgid:N range:S-E)". Its summary breaks
	 * ties between applications by it. */
	char *app_key;
	/* where OProfile's summary first meets this image: the first class
	 * holding one of its files, and the index in fs.files of that
	 * class's first one */
	unsigned int first_cls;
	size_t first_file;
};

struct pp_header_info {
	bool valid;
	uint32_t cpu_type;
	double cpu_speed;
};

struct pp_profile {
	struct pp_fileset fs;
	struct pp_image *images;
	size_t nr_images, alloc_images;
	uint64_t *total;	/* [nr_classes] over everything selected */
	struct pp_header_info hdr;
	size_t nr_bad_files;	/* refused by pp_sfile_open (named through
				 * the logger): unreadable, or damaged */
};

/* Read every classified file of fs (taken over by p) into images. An arc
 * file adds no count: its caller's and callee's images are listed, with
 * the caller's application, and its name's images are marked kernel or not
 * from its header; pp_callgraph reads its arcs. With
 * exclude_dependent, files whose image differs from their application are
 * skipped. Without want_addrs only the totals are kept (nr_addrs is 0: the
 * image summary needs no more). Corrupt files are logged with their name
 * and reason, counted in nr_bad_files and skipped. Returns 0 or -ENOMEM. */
int pp_profile_load(struct pp_profile *p, struct pp_fileset *fs,
		    const struct pp_merge *merge, bool exclude_dependent,
		    bool want_addrs, const struct op_logger *lg);

void pp_profile_release(struct pp_profile *p);

/* True when a and b name the same image. */
bool pp_img_equal(const struct op_img *a, const struct op_img *b);

#endif /* PP_PROFILE_H */
