/* opreport's output: the image summary, symbol lists (-l, -g, -d), XML and
 * the differential report, laid out column for column like OProfile 1.x's
 * opreport so that scripts written for it keep working.
 *
 * The symbol view it prints (pp_symview.h), the session's warnings and
 * header (pp_session.h) and the percentage format (pp_format.h) are the
 * shared core's, in pp/core/: every tool prints them.
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

#include "pp_options.h"
#include "pp_profile.h"
#include "pp_symview.h"

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

#endif /* PP_REPORT_H */
