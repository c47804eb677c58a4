/* opreport -c: the call graph that OProfile's opreport prints from the arc
 * files ({cg}) of a session, block for block and tie for tie.
 *
 * An arc file holds, for one (application, caller image, callee image,
 * event...) the number of calls seen from a caller offset to a callee
 * offset (key = caller << 32 | callee). The report names both ends by
 * their symbols, sums the arcs per pair of symbols and per class, and
 * prints one block per symbol:
 *
 *     callers, fewest calls first        (indented by two spaces)
 *   the symbol and its own samples
 *     callees and "NAME [self]", most first
 *   a line of 79 dashes
 *
 * Callers' percentages are of all the symbol's callers, callees' of its
 * callees and self (-%: of the whole profile). Blocks are sorted as -l
 * sorts its rows. The symbols are those with samples and every end of an
 * arc, even without samples; -t drops blocks by the symbol's own share and
 * callers and callees by their share of the block, on the first class.
 *
 * Where the order is not decided by counts, OProfile's falls out of its
 * containers: symbols compared by the order in which their image,
 * application and name strings were first seen, and callers and callees
 * put in order by std::sort, which does not keep equal elements in place
 * beyond 16 of them. Both are reproduced (pp_cg_order.c, pp_cg_blocks.c) so that the
 * same session prints the same text.
 */
#ifndef PP_CALLGRAPH_H
#define PP_CALLGRAPH_H

#include <stdio.h>

#include "op_log.h"
#include "pp_options.h"
#include "pp_profile.h"
#include "pp_symview.h"

/* Print the call-graph report of p (loaded from a fileset selected with
 * pp_fileset_select_cg) with the symbols of v. merge is the report's
 * --merge (with lib, an arc's application is its caller's image). Arc
 * files that cannot be read are logged and counted in p's nr_bad_files
 * equivalent *nr_bad. With opts->xml, the graph is written as OProfile's
 * call-graph XML (pp_callgraph_xml.c). Returns 0, -ENOMEM, or -EOPNOTSUPP
 * (XML whose columns are threads or processes; nothing written). */
int pp_callgraph_print(FILE *out, const struct pp_profile *p,
		       const struct pp_symview *v,
		       const struct pp_report_opts *opts,
		       const struct pp_merge *merge,
		       const struct op_logger *lg, size_t *nr_bad);

#endif /* PP_CALLGRAPH_H */
