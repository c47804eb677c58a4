/* The command-line steps every post-processing command shares: popt over
 * argv, a bad option said as "NAME: OPTION: REASON", the words that are
 * not options (the profile specification), and --version (OProfile's
 * shape, op_version.h) and --help answered. */
#ifndef PP_CMDLINE_H
#define PP_CMDLINE_H

#include <popt.h>

/* Parse pc's command line. *args and *nargs get the other words (never
 * NULL). version and help point at the flags popt sets; when one is set it
 * is answered on stdout (help followed by exit_help, which may be NULL).
 * Returns 0 to go on, 1 when --version or --help was answered, -1 after
 * saying on stderr which option was bad. */
int pp_cmdline_parse(poptContext pc, const char *name, const char *argv0,
		     const int *version, const int *help,
		     const char *exit_help, const char ***args, int *nargs);

struct pp_spec;

/* "NAME: no session found in DIR/samples", with the session: names the
 * specification asked for when it named some, and how to get a session:
 * what every command says when the selection found no session. */
void pp_say_no_session(const char *name, const char *session_dir,
		       const struct pp_spec *spec);

#endif /* PP_CMDLINE_H */
