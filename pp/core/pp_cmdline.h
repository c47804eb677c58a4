/* The command line every post-processing tool shares: the options they
 * all take (one popt table, included in each tool's), their exit
 * statuses, popt over argv, a bad option said as "NAME: OPTION: REASON",
 * the words that are not options (the profile specification), --version
 * (OProfile's shape, op_version.h) and --help answered, comma lists, and
 * the selection of sample files. Every tool reads its argv through
 * pp_cmdline_start() and its specification (archive: too) through
 * pp_cmdline_source(). To add an option every tool takes: a field in
 * struct pp_common_opts and a row in pp_cmdline_common() (pp_cmdline.c). */
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

/* One tool's command line as it is read. The tool fills the first four
 * fields, includes rows in its own popt table
 *	{ NULL, 0, POPT_ARG_INCLUDE_TABLE, cl.rows, 0, NULL, NULL },
 * and calls pp_cmdline_start(); opts then holds the common options, args
 * the words that are not options. pp_cmdline_end() frees what popt gave. */
struct pp_cmdline {
	const char *name;		/* the tool, in popt and in messages */
	const char *usage;		/* after the name in --help's usage line
					 * (NULL: "[options] [profile specification]") */
	const char *verbose_help;	/* what --verbose adds (NULL: "more messages") */
	const char *exit_help;		/* printed after --help, or NULL */
	struct pp_common_opts opts;
	struct poptOption rows[PP_COMMON_ROWS];
	poptContext pc;
	const char **args;		/* never NULL once started */
	int nargs;
	bool done;			/* --version or --help answered */
};

/* Read argv with table (the tool's own, which includes cl->rows): the
 * common rows filled, popt run over it, --version or --help answered on
 * stdout (help followed by cl->exit_help; cl->done set: nothing more to
 * do). Returns PP_EXIT_OK, or PP_EXIT_USAGE after saying on stderr which
 * option was bad ("NAME: OPTION: REASON"), or on ENOMEM. Call
 * pp_cmdline_end() in every case:
 *	status = pp_cmdline_start(&cl, argc, argv, options);
 *	if (status || cl.done)
 *		goto out;
 */
int pp_cmdline_start(struct pp_cmdline *cl, int argc, const char **argv,
		     const struct poptOption *table);
void pp_cmdline_end(struct pp_cmdline *cl);

struct pp_spec;
struct pp_archive;

/* Where the profile comes from: the specification parsed from the words
 * that are not options (argv[0..argc)), saying "NAME: bad profile
 * specification: WHY" on stderr when it is bad, and, when it names
 * archive:DIR, the archive read as every tool reads one
 * (pp_archive_opts()): *o becomes given with the
 * archive's binaries, debug files and kallsyms, pointing into arch, and
 * *session_dir the archive's session directory. Without archive:, *o is
 * given and *session_dir is left as it was. 0, PP_EXIT_SPEC or
 * PP_EXIT_NOMEM; release spec (and pp_archive_release() arch) either way. */
int pp_cmdline_source(const char *name, int argc, const char *const *argv,
		      const struct pp_report_opts *given, struct pp_spec *spec,
		      struct pp_archive *arch, struct pp_report_opts *o,
		      const char **session_dir);

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
