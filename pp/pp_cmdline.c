/* The command-line steps the post-processing commands share (see
 * pp_cmdline.h): one place for how they read options and answer --version
 * and --help, so that opreport, opexport, opannotate, oparchive and
 * opgprof cannot drift apart. */
#include "config.h"
#include "pp_cmdline.h"

#include <stdio.h>

#include "op_version.h"

int pp_cmdline_parse(poptContext pc, const char *name, const char *argv0,
		     const int *version, const int *help,
		     const char *exit_help, const char ***args, int *nargs)
{
	static const char *empty[] = { NULL };
	int rc;

	*args = empty;
	*nargs = 0;
	while ((rc = poptGetNextOpt(pc)) > 0)
		;
	if (rc < -1) {
		fprintf(stderr, "%s: %s: %s\n", name,
			poptBadOption(pc, POPT_BADOPTION_NOALIAS), poptStrerror(rc));
		return -1;
	}
	if (poptPeekArg(pc))
		*args = poptGetArgs(pc);
	while ((*args)[*nargs])
		(*nargs)++;
	if (*version) {
		op_print_version(argv0);
		return 1;
	}
	if (*help) {
		poptPrintHelp(pc, stdout, 0);
		if (exit_help)
			fputs(exit_help, stdout);
		return 1;
	}
	return 0;
}
