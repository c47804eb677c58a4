/* The symbol view every tool reads a profile through: each image's
 * binary found (--root, --image-path, archive:), its symbol table loaded
 * (ELF, kallsyms or the vmlinux, a JIT map), and the profile's addresses
 * gathered into one entry per symbol, with OProfile's warnings about
 * images that are missing, unusable or newer than their samples. Built
 * once by pp_symview_build(), read-only afterwards: the report's
 * formatters, the call graph, the exports and opannotate read its fields
 * below. */
#ifndef PP_SYMVIEW_H
#define PP_SYMVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "op_log.h"
#include "pp_options.h"
#include "pp_profile.h"
#include "pp_symbols.h"

/* The name of an entry outside every symbol of its image. */
#define NO_SYMBOLS "(no symbols)"

/* What building a view warned about, beyond its text. */
struct pp_report_status {
	/* OProfile's warnings about images, in its words (opreport: stderr);
	 * NULL: through the logger */
	FILE *err;
	size_t nr_missing;	/* images not found (warned) */
	size_t nr_changed;	/* binaries newer than their samples (warned) */
	bool explained_mtime;	/* OProfile's second line about it, once */
	char **warned;		/* paths already warned about: once per report */
	size_t nr_warned, alloc_warned;
};

/* Free the status's list of warned paths. */
void pp_report_status_release(struct pp_report_status *st);

struct pp_symview;

/* Build the view: resolve every image's addresses into symbols (only when
 * opts->symbols or details or xml; else one entry per image). Warnings
 * about missing, unusable or changed images go to st->err as OProfile's
 * opreport words and orders them, once per image; others to lg. */
struct pp_symview *pp_symview_build(const struct pp_profile *p,
				    const struct pp_report_opts *opts,
				    const struct op_logger *lg,
				    struct pp_report_status *st);
void pp_symview_free(struct pp_symview *v);

/* The symbol table the view loaded for p->images[image] (the binary found
 * by --root and --image-path, kallsyms or the vmlinux, a JIT map), for
 * readers that name addresses the view does not (opexport's call chains).
 * NULL when none loaded or the view was built without symbols. */
const struct pp_symtab *pp_symview_symtab(const struct pp_symview *v,
					  size_t image);

/* The symbol table of one image, found and loaded as the view loads it
 * (the binary by --root and --image-path, kallsyms or the vmlinux, a JIT
 * map), for readers that keep tables across profiles (optop). A kallsyms
 * image costs a read of the file each call: keep the table. 0, or -errno
 * as pp_symtab_load_elf() and the others give it (-ENOENT: no binary
 * found); *st is then empty. Warns only through lg. */
int pp_symview_load_tab(struct pp_symtab *st, const struct op_img *img,
			const struct pp_report_opts *o, const struct op_logger *lg);

/* ---- the view's insides ---- */

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
	size_t nr_entries, alloc_entries;
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
	 * its table (pp_klines.h); NULL if not read */
	struct klines *klines;
	/* -c from the session's saved kernel symbols: the order of the
	 * kernel's names (op_kernel.h), else NULL */
	struct op_korder *korder;
};

#endif /* PP_SYMVIEW_H */
