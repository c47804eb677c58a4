/* What every tool says about a session before its report, in OProfile's
 * words: the warnings about how it was sampled, and the header lines. */
#ifndef PP_SESSION_H
#define PP_SESSION_H

#include <stdio.h>

#include "pp_options.h"
#include "pp_profile.h"

/* OProfile's warnings about one session read (buffer overflows,
 * throttling, lost samples), written to err as its opreport writes them
 * while it lists the sample files: before any report or refusal. After
 * them, for a session our daemon wrote, our own summary of what was lost
 * (each loss once, with its share of all samples), which OProfile's
 * warnings do not give. samples_dir is the session (samples/NAME),
 * session_dir the session directory as OProfile would name it in the
 * lost-samples warning; both read through sd (op_sessdir.h), the
 * fileset's. */
void pp_session_warnings(FILE *err, const struct op_sessdir *sd,
			 const char *samples_dir, const char *session_dir);

/* On err, after the warnings: a note when the profile holds several
 * hardware events sampled at once, whose columns a virtual machine's PMU
 * has been seen to skew (OProfile's opreport has no word for it). */
void pp_report_event_notes(FILE *err, const struct pp_profile *p);

/* The header lines every report opens with: the CPU, one line per
 * distinct event (or timer mode), and the classes' names when the columns
 * are not events. */
void pp_report_header(FILE *out, const struct pp_profile *p,
		      const struct pp_report_opts *opts);

#endif /* PP_SESSION_H */
