/* opreport's formatters: the choice between them. The symbol view is
 * built once from the per-image histograms (distinct addresses only,
 * core/pp_symview.c), then printed as text (pp_text.c), XML (pp_xml.c) or
 * a differential report (pp_diff.c); the layout follows OProfile 1.x
 * column for column. */
#include "config.h"
#include "pp_report.h"

#include "pp_report_rooms.h"
#include "pp_session.h"

int pp_report_print(FILE *out, const struct pp_profile *p,
		    const struct pp_symview *v,
		    const struct pp_report_opts *o)
{
	if (o->xml)
		return pp_print_xml(out, p, v, o);
	if (!o->no_header)
		pp_report_header(out, p, o);
	if (o->symbols || o->details)
		return pp_print_symbols(out, p, v, o);
	return pp_print_summary(out, p, v, o);
}
