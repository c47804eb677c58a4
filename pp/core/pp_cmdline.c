/* The command-line steps the post-processing commands share (see
 * pp_cmdline.h): one place for how they read options and answer --version
 * and --help, so that opreport, opexport, opannotate, oparchive and
 * opgprof cannot drift apart. */
#include "config.h"
#include "pp_cmdline.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "op_version.h"
#include "pp_profile.h"
#include "pp_session.h"
#include "pp_spec.h"

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

void pp_say_no_session(const char *name, const char *session_dir,
		       const struct pp_spec *spec)
{
	fprintf(stderr, "%s: no session found in %s/samples", name, session_dir);
	if (spec && spec->session.given) {
		fputs(" named", stderr);
		for (size_t i = 0; i < spec->session.n; i++)
			fprintf(stderr, "%s %s", i ? "," : "", spec->session.v[i]);
		fputs(" (session:)", stderr);
	}
	fputs("\n  profile with opcontrol --start/--stop first, or give "
	      "--session-dir\n", stderr);
}

int pp_select_files(const char *name, const char *session_dir,
		    const struct pp_spec *spec, bool with_cg,
		    const char *warn_dir, bool need_files,
		    struct pp_fileset *fs, const struct op_logger *lg)
{
	bool any_spec = spec->text && *spec->text;
	int ret;

	ret = with_cg ? pp_fileset_select_cg(fs, session_dir, spec, lg)
		      : pp_fileset_select(fs, session_dir, spec, lg);
	for (size_t i = 0; !ret && warn_dir && i < fs->nr_sessions; i++)
		pp_session_warnings(stderr, fs->sessions[i], warn_dir);
	if (ret == -ENOENT) {
		pp_say_no_session(name, session_dir, spec);
		return PP_EXIT_NO_SESSION;
	}
	if (ret) {
		fprintf(stderr, "%s: cannot read %s: %s\n", name, session_dir,
			strerror(-ret));
		return ret == -ENOMEM ? PP_EXIT_NOMEM : PP_EXIT_NO_SESSION;
	}
	if (need_files && !fs->nr_files) {
		fprintf(stderr, "%s: no sample file matches%s%s in %s\n"
			"  run opcontrol --dump, or check the profile specification\n",
			name, any_spec ? " " : "", any_spec ? spec->text : "",
			session_dir);
		pp_fileset_release(fs);
		return PP_EXIT_NO_SAMPLES;
	}
	return 0;
}
