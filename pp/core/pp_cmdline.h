/* The command line every post-processing tool shares: the options they
 * all take (one popt table, included in each tool's), their exit
 * statuses, popt over argv, a bad option said as "NAME: OPTION: REASON",
 * the words that are not options (the profile specification), --version
 * (OProfile's shape, op_version.h) and --help answered, comma lists, and
 * the selection of sample files. To add an option every tool takes: a
 * field in struct pp_common_opts and a row in pp_cmdline_common(). */
#ifndef PP_CMDLINE_H
#define PP_CMDLINE_H

#include <popt.h>
#include <stdbool.h>

#include "op_log.h"
#include "pp_options.h"

/* The exit statuses of every post-processing tool; each lists in its
 * --help those it gives, and what more its 1 and 5 mean. */
enum pp_exit {
	PP_EXIT_OK = 0,
	PP_EXIT_USAGE = 1,	/* bad option, option value or combination */
	PP_EXIT_SPEC = 2,	/* bad profile specification */
	PP_EXIT_NO_SESSION = 3,	/* no session directory / session */
	PP_EXIT_NO_SAMPLES = 4,	/* no sample file (or symbol) matches */
	PP_EXIT_NO_BINARY = 5,	/* a binary it needs cannot be read */
	PP_EXIT_BAD_FILE = 6,	/* a sample file was unreadable (output printed) */
	PP_EXIT_OUTPUT = 7,	/* cannot write the output */
	PP_EXIT_NOMEM = 8,
};

/* The options every tool takes, as popt leaves them. */
struct pp_common_opts {
	char *session_dir;	/* --session-dir DIR */
	char *image_path;	/* --image-path, -p DIR,... */
	char *root;		/* --root, -R DIR */
	int verbose;		/* --verbose, -V */
	int help;		/* --help, -? */
	int version;		/* --version, -v */
};

/* The rows of the common options, and the table's end. */
#define PP_COMMON_ROWS 7

/* Fill rows with the common options, pointing into c, for the tool's own
 * table to include:
 *	{ NULL, 0, POPT_ARG_INCLUDE_TABLE, rows, 0, NULL, NULL },
 * --help lists them after the tool's own. verbose_help says what
 * --verbose adds (NULL: "more messages"). */
void pp_cmdline_common(struct poptOption rows[PP_COMMON_ROWS],
		       struct pp_common_opts *c, const char *verbose_help);

/* Parse pc's command line. *args and *nargs get the other words (never
 * NULL). When c->version or c->help is set, it is answered on stdout (help
 * followed by exit_help, which may be NULL). Returns 0 to go on, 1 when
 * --version or --help was answered, -1 after saying on stderr which
 * option was bad. */
int pp_cmdline_parse(poptContext pc, const char *name, const char *argv0,
		     const struct pp_common_opts *c,
		     const char *exit_help, const char ***args, int *nargs);

struct pp_spec;

/* Parse the profile specification from the words that are not options
 * (argv[0..argc)), saying "NAME: bad profile specification: WHY" on stderr
 * when it is bad. 0, PP_EXIT_SPEC or PP_EXIT_NOMEM; release spec either
 * way. */
int pp_cmdline_spec(const char *name, int argc, const char *const *argv,
		    struct pp_spec *spec);

/* Fill o's paths from the common options: o->root, o->image_path, and
 * o->debug_dirs: debug_dirs (the tool's --debug-dir) when given, else
 * PP_DEBUG_DIRS under --root when that is given (separate debug files
 * live under the same root as their binaries), else NULL (PP_DEBUG_DIRS).
 * *owned gets the string made here, or NULL: free it once o is no longer
 * used. 0 or -ENOMEM. */
int pp_cmdline_paths(const struct pp_common_opts *c, const char *debug_dirs,
		     struct pp_report_opts *o, char **owned);

/* A comma list ("a,b,c") split into a NULL-terminated array of malloc'd
 * strings (empty items dropped); NULL when s is NULL, or with errno on
 * ENOMEM. pp_free_list() frees one (NULL: nothing). */
char **pp_split_list(const char *s);
void pp_free_list(char **v);

struct pp_spec;
struct pp_fileset;

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

#endif /* PP_CMDLINE_H */
