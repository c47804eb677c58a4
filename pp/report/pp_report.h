/* opreport's output: the image summary, symbol lists (-l, -g, -d), XML and
 * the differential report, laid out column for column like OProfile 1.x's
 * opreport so that scripts written for it keep working.
 *
 * Layout facts (see ../shared/reference/opreport-output.txt):
 *   summary    per class "%9llu %7s " after a "LABEL|" / "  samples|      %|"
 *              header (labels right-aligned in 17 columns, cut to 14 + "...")
 *              and a dashed line; dependent images tab-indented below
 *   symbols    per class samples left-aligned in 9 then percent in 7 and two
 *              spaces; "linenr info" 28 wide; image and app names 25 wide
 *   percents   fixed with 4 decimals in 7 columns, fewer decimals when that
 *              does not fit ("100.000"), and a bare "0" for zero
 */
#ifndef PP_REPORT_H
#define PP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "op_log.h"
#include "pp_options.h"
#include "pp_profile.h"

/* Result flags of a report, beyond the text. */
struct pp_report_status {
	/* OProfile's warnings about images, in its words (opreport: stderr);
	 * NULL: through the logger */
	FILE *err;
	size_t nr_missing;	/* images not found (warned) */
	size_t nr_changed;	/* binaries newer than their samples (warned) */
	bool explained_mtime;	/* OProfile's second line about it, once */
	char **warned;		/* paths already warned about: once per report */
	size_t nr_warned;
};

/* Free the status's list of warned paths. */
void pp_report_status_release(struct pp_report_status *st);

/* Symbol-level view of a profile, built once and printed by the
 * formatters. Owns its strings and arrays. */
struct pp_symview;
struct pp_symtab;

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

/* Header lines (CPU, event, class names). */
void pp_report_header(FILE *out, const struct pp_profile *p,
		      const struct pp_report_opts *opts);

/* OProfile's warnings about one session read (buffer overflows,
 * throttling, lost samples), written to err as its opreport writes them
 * while it lists the sample files: before any report or refusal. After
 * them, for a session our daemon wrote, our own summary of what was lost
 * (each loss once, with its share of all samples), which OProfile's
 * warnings do not give. samples_dir is the session (samples/NAME), session_dir the session
 * directory as OProfile would name it in the lost-samples warning. */
void pp_session_warnings(FILE *err, const char *samples_dir,
			 const char *session_dir);

/* The whole report in the mode opts selects (summary, -l, XML). */
int pp_report_print(FILE *out, const struct pp_profile *p,
		    const struct pp_symview *v,
		    const struct pp_report_opts *opts);

/* OProfile's XML as other reports write it (opreport -c -X): what comes
 * before the body (<profile> to <classes>), and the names its <count>
 * elements give the columns. */
struct pp_xml_head {
	bool subclasses;	/* <count class="cN">, else <count> */
	size_t *sub;		/* per column: its N (owned) */
	bool by_thread;		/* the body is <process>/<thread> elements */
};

/* Write the XML up to its body and fill h. 0 or -ENOMEM; release h
 * either way. */
int pp_xml_prologue(FILE *out, const struct pp_profile *p,
		    const struct pp_symview *v, const struct pp_report_opts *o,
		    struct pp_xml_head *h);
void pp_xml_head_release(struct pp_xml_head *h);

/* ` name="value"`, value escaped; and an escaped text alone. */
void pp_xml_attr(FILE *out, const char *name, const char *value);
void pp_xml_escape(FILE *out, const char *s);

/* Differential report of b against a (`opreport { A } { B }`). */
int pp_report_diff(FILE *out, const struct pp_profile *a,
		   const struct pp_symview *va, const struct pp_profile *b,
		   const struct pp_symview *vb,
		   const struct pp_report_opts *opts);

/* OProfile's percentage format, into buf (at least 16 bytes). */
void pp_format_percent(char *buf, size_t len, double value);

#endif /* PP_REPORT_H */
