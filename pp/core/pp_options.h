/* What a report is asked for: opreport's options (and those of the other
 * readers that share its views: opexport, the call graph), once parsed.
 * The command-line programs fill one; the views and formatters only read
 * it. */
#ifndef PP_OPTIONS_H
#define PP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

struct op_sessdir;

enum pp_sort_key {
	PP_SORT_SAMPLE,
	PP_SORT_VMA,
	PP_SORT_SYMBOL,
	PP_SORT_DEBUG,
	PP_SORT_IMAGE,
	PP_SORT_APP,
};

struct pp_report_opts {
	bool symbols, debug_info, details, xml;
	bool exclude_dependent, global_percent, long_filenames;
	bool show_address, accumulated, no_header, reverse, demangle;
	bool dynamic_symbols;		/* name samples by .dynsym (see pp_symbols.h) */
	bool callgraph;			/* -c: arc files too (pp_callgraph.h) */
	double threshold;		/* percent; 0: none */
	enum pp_sort_key sort[6];
	size_t nr_sort;			/* 0: by samples */
	char **include_symbols;		/* NULL-terminated, or NULL */
	char **exclude_symbols;
	const char *image_path;		/* comma list of directories */
	const char *root;		/* prefix for binaries, or NULL */
	const char *archive;		/* archive:DIR read, its real path, which
					 * warnings put before an image's name */
	const char *vmlinux;		/* kernel symbols from this ELF */
	const char *kallsyms;		/* default /proc/kallsyms */
	const char *debug_dirs;		/* libdwfl debuginfo path, NULL: default */
	const char *jit_dir;		/* where perf-PID.map live, default /tmp */
	const char *vdso;		/* the vDSO's ELF image, which names the
					 * functions of [vdso] regions (a
					 * session's saved copy); NULL: they are
					 * named by the region, as OProfile names
					 * them */
	const char *title;		/* command line, for XML */
	const char *spec_text;		/* profile specification, for XML */
	const char *merge_text;		/* --merge as given, for XML, or NULL */
	/* the session read (the profile's fileset sets it, pp_symview_build):
	 * a binary named under it, a copy the daemon kept there, is found
	 * and opened through it, no link followed (op_sessdir.h) */
	const struct op_sessdir *sd;
};

#endif /* PP_OPTIONS_H */
