/* The symbol view's insides, shared by the formatters (pp_text.c,
 * pp_xml.c, pp_diff.c), the call graph of pp_callgraph.c and the exports;
 * everything else goes through pp_report.h. Built by pp_symview_build()
 * in pp_symview.c, read-only afterwards. */
#ifndef PP_SYMVIEW_H
#define PP_SYMVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_symbols.h"

struct pp_entry {
	size_t image;			/* index into p->images */
	const struct pp_sym *sym;	/* NULL: samples outside every symbol */
	char *name;			/* printed symbol name (owned) */
	uint64_t vma;			/* symbol start, or first sampled address */
	uint64_t *counts;		/* [nc] */
	uint64_t sum;
	size_t *addrs;			/* indices into the image's offs (details) */
	size_t nr_addrs, alloc_addrs;
	const char *src;		/* -g: source file of vma, or NULL */
	int line;
};

struct img_tab {
	char *key;
	struct pp_symtab st;
	int status;			/* 0 loaded, else -errno */
};

struct klines;
struct op_korder;

struct pp_symview {
	size_t nc;
	size_t nr_images;
	struct pp_entry *entries;
	size_t nr_entries;
	/* per class: the samples of the entries, which OProfile's
	 * percentages are of (it leaves out samples outside every symbol) */
	uint64_t *total;
	struct img_tab *tabs;
	size_t nr_tabs;
	size_t *img_tab;		/* per image: index into tabs or SIZE_MAX */
	uint64_t **vmas;		/* per image: vma of each address */
	char **img_names;		/* per image: printed image name */
	char **app_names;
	char **img_long;		/* per image: full name (XML, diff key) */
	char **app_long;
	bool multiple_apps, multiple_images, separated;
	/* -c: the kernel's kallsyms lines, gathered in the same read as
	 * its table (pp_cg_order.c walks them); NULL if not read */
	struct klines *klines;
	/* -c from the session's saved kernel symbols: the order of the
	 * kernel's names (op_kernel.h), else NULL */
	struct op_korder *korder;
};

#endif /* PP_SYMVIEW_H */
