/* The command-line steps every post-processing command shares: popt over
 * argv, a bad option said as "NAME: OPTION: REASON", the words that are
 * not options (the profile specification), --version (OProfile's shape,
 * op_version.h) and --help answered, and the selection of sample files. */
#ifndef PP_CMDLINE_H
#define PP_CMDLINE_H

#include <popt.h>
#include <stdbool.h>

#include "op_log.h"

/* Parse pc's command line. *args and *nargs get the other words (never
 * NULL). version and help point at the flags popt sets; when one is set it
 * is answered on stdout (help followed by exit_help, which may be NULL).
 * Returns 0 to go on, 1 when --version or --help was answered, -1 after
 * saying on stderr which option was bad. */
int pp_cmdline_parse(poptContext pc, const char *name, const char *argv0,
		     const int *version, const int *help,
		     const char *exit_help, const char ***args, int *nargs);

struct pp_spec;
struct pp_fileset;

/* The exit statuses every post-processing command gives alike. */
enum pp_exit {
	PP_EXIT_NO_SESSION = 3,	/* no session directory / session */
	PP_EXIT_NO_SAMPLES = 4,	/* no sample file matches */
	PP_EXIT_NOMEM = 8,
};

/* Select the sample files of spec in session_dir (with the {cg} arc files
 * when with_cg), as every command does: OProfile's warnings about each
 * session read on stderr when warn_dir is not NULL (the session directory
 * as its lost-samples warning names it), and NAME's messages when there
 * is no session, it cannot be read, or (need_files) no file matches.
 * Returns 0 with *fs filled, or an exit status with *fs released. */
int pp_select_files(const char *name, const char *session_dir,
		    const struct pp_spec *spec, bool with_cg,
		    const char *warn_dir, bool need_files,
		    struct pp_fileset *fs, const struct op_logger *lg);

/* "NAME: no session found in DIR/samples", with the session: names the
 * specification asked for when it named some, and how to get a session:
 * what every command says when the selection found no session. */
void pp_say_no_session(const char *name, const char *session_dir,
		       const struct pp_spec *spec);

#endif /* PP_CMDLINE_H */
