/* opannotate's output: source files and disassembly with the samples of
 * each line and instruction, laid out as OProfile 1.x's opannotate lays
 * them out so that the same session reads the same.
 *
 * The annotation is built once from a symbol view (pp_symview.h, built
 * with symbols and details): the symbols kept by the symbol filter, each
 * sampled address's source line (libdw, as opreport -g finds them), and
 * the totals that every percentage is of (the kept symbols' samples, as
 * OProfile's). Source output reads the files the debug information names
 * (relocated by --base-dirs and --search-dirs); assembly output
 * disassembles the binaries in process (pp_annotate_asm.c, capstone).
 *
 * Layout facts (OProfile's pp/opannotate.cpp):
 *   a line's samples  per class "%6llu %s" (count, then the percent in
 *                     OProfile's format_percent: 7 wide, 4 decimals,
 *                     "100.000", a bare "0", 1e-04 style below 0.001),
 *                     then two spaces per extra class and " :"; a line
 *                     without samples has as many blanks and " :"
 *   a function        "NAME total: COUNTS" in a C comment after the line
 *                     of its first address (several on one line: "A
 *                     COUNTS, B COUNTS, total: COUNTS")
 *   a file            a comment with "Total samples for file : \"PATH\""
 *                     before it (after it in --output-dir's files)
 *   files             by their highest share of any class, descending
 */
#ifndef PP_ANNOTATE_H
#define PP_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "op_log.h"
#include "pp_profile.h"

struct pp_symview;
struct pp_symtab;

struct pp_annot_opts {
	bool source, assembly;
	double threshold;		/* percent; 0: everything */
	const char *output_dir;		/* -o: a tree of files; NULL: out */
	char **search_dirs;		/* NULL-terminated lists, or NULL */
	char **base_dirs;
	char **include_files;		/* globs on path components */
	char **exclude_files;
	char **include_symbols;		/* exact names */
	char **exclude_symbols;
	const char *command_line;	/* argv joined, each word + ' ' */
};

/* One source line's samples. */
struct pp_annot_line {
	const char *file;		/* libdw's string, or the view's */
	int line;
	size_t seq;			/* first met (OProfile's name id) */
	uint64_t *counts;		/* [nc] */
};

/* A kept symbol: an entry of the view and where its first address is. */
struct pp_annot_sym {
	size_t entry;			/* index into v->entries */
	const char *file;		/* NULL: no line information */
	int line;
	size_t seq;			/* first met, as pp_annot_line's */
};

/* The annotation's model. Owns its arrays; the strings are the view's
 * (and its symbol tables'), so the view must outlive it. */
struct pp_annot {
	const struct pp_profile *p;
	const struct pp_symview *v;
	size_t nc;
	uint64_t *total;		/* [nc]: the kept symbols' samples */
	struct pp_annot_sym *syms;	/* view order (image, then address) */
	size_t nr_syms;
	struct pp_annot_line *lines;	/* sorted by (file, line) */
	size_t nr_lines;
	bool have_lines;		/* some address had line information */
	uint64_t *counts_block;		/* the lines' counts live here */
	/* relative names joined with their compilation directory, as
	 * binutils names them: (libdw's name, directory) -> owned path */
	struct pp_annot_join {
		const char *src, *dir;
		char *path;
	} *joins;
	size_t nr_joins, alloc_joins;
};

/* The source line of vma in st, the file named as binutils names it
 * (a relative name joined with its compilation directory). *file points
 * into libdw's data or into a's joined names. */
bool pp_annot_line_of(struct pp_annot *a, const struct pp_symtab *st,
		      uint64_t vma, const char **file, int *line);

/* Build the model from a view built with symbols and details. Returns 0
 * or -ENOMEM. */
int pp_annot_build(struct pp_annot *a, const struct pp_profile *p,
		   const struct pp_symview *v, const struct pp_annot_opts *o);
void pp_annot_release(struct pp_annot *a);

/* The comment block that opens the output (and ends --output-dir's
 * files): command line, interpretation, CPU and event lines. */
void pp_annot_info(FILE *out, const struct pp_annot *a,
		   const struct pp_annot_opts *o);

/* "%6llu PERCENT" per class; with pad (a line's columns, before " :"),
 * the blanks OProfile puts after several classes, which a total's have
 * not. buf must hold 24 bytes per class. */
void pp_annot_counts(char *buf, size_t len, const struct pp_annot *a,
		     const uint64_t *counts, bool pad);

/* The blanks and " :" of a line without samples. */
const char *pp_annot_fill(const struct pp_annot *a, char *buf, size_t len);

/* --source alone: every selected file annotated to out, or into
 * o->output_dir. Warnings (unreadable files, refusals) go to lg. Returns
 * 0, or -errno when the output directory cannot be made. */
int pp_annotate_source(FILE *out, const struct pp_annot *a,
		       const struct pp_annot_opts *o, const struct op_logger *lg);

/* --assembly (with --source: the source lines interleaved): the kept
 * symbols of each image at or above the threshold, disassembled. Returns
 * 0, -ENODATA when no symbol was shown (the caller says so), -ENOMEM. */
int pp_annotate_assembly(FILE *out, struct pp_annot *a,
			 const struct pp_annot_opts *o,
			 const struct op_logger *lg);

#endif /* PP_ANNOTATE_H */
