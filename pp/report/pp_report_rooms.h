/* What opreport's formatters share between their rooms (pp_report.c,
 * pp_select.c, pp_text.c, pp_xml.c, pp_xml_head.c, pp_diff.c); everything
 * else goes through pp_report.h. Not for other readers. */
#ifndef PP_REPORT_ROOMS_H
#define PP_REPORT_ROOMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pp_format.h"
#include "pp_report.h"
#include "pp_symview.h"

#define NO_LOCATION "(no location information)"

/* Sorting symbol entries by OProfile's keys (pp_select.c; text and XML
 * sort by them). */
struct sym_sort_ctx {
	const struct pp_symview *v;
	const struct pp_report_opts *o;
};
int pp_entry_key_cmp(const struct sym_sort_ctx *ctx, enum pp_sort_key k,
		     const struct pp_entry *x, const struct pp_entry *y);
/* No column of counts reaches threshold percent of its total (0: no
 * threshold). */
bool pp_below_threshold(const uint64_t *counts, const uint64_t *totals,
			size_t nc, double threshold);
/* The entries -l shows, in its order and past its threshold and symbol
 * lists; *nr gets their number. malloc'd, NULL with errno. */
const struct pp_entry **pp_selected_entries(const struct pp_profile *p,
					    const struct pp_symview *v,
					    const struct pp_report_opts *o,
					    size_t *nr);

/* The value of a sample-file name field (the tgid, else the tid) common
 * to class cls's files: "all", a number, or "" when its files differ (the
 * field was merged). pp_xml_head.c; the XML body reads it too. */
void pp_xml_class_field(const struct pp_profile *p, size_t cls, bool tgid,
			char *buf, size_t len);

/* The formatters pp_report_print() chooses between. 0 or -errno. */
int pp_print_summary(FILE *out, const struct pp_profile *p,
		     const struct pp_symview *v, const struct pp_report_opts *o);
int pp_print_symbols(FILE *out, const struct pp_profile *p,
		     const struct pp_symview *v, const struct pp_report_opts *o);
int pp_print_xml(FILE *out, const struct pp_profile *p,
		 const struct pp_symview *v, const struct pp_report_opts *o);

#endif /* PP_REPORT_ROOMS_H */
