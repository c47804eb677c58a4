/* The command line the post-processing commands share (see pp_cmdline.h):
 * one place for the options they all take and how they read options and
 * answer --version and --help, so that opreport, opexport, opannotate,
 * oparchive, opgprof and optop cannot drift apart. */
#include "config.h"
#include "pp_cmdline.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_config.h"
#include "op_version.h"
#include "pp_archive.h"
#include "pp_profile.h"
#include "pp_session.h"
#include "pp_spec.h"
#include "pp_symbols.h"

/* rows: the common options, pointing into c */
static void pp_cmdline_common(struct poptOption rows[PP_COMMON_ROWS],
			      struct pp_common_opts *c, const char *verbose_help)
{
	const struct poptOption common[PP_COMMON_ROWS] = {
		{ "session-dir", 0, POPT_ARG_STRING, &c->session_dir, 0,
		  "session directory (default ./" OP_OPERF_DIR " if present, else "
		  OP_DEFAULT_SESSION_DIR ")", "DIR" },
		{ "image-path", 'p', POPT_ARG_STRING, &c->image_path, 0,
		  "directories to look for binaries in", "DIR,..." },
		{ "root", 'R', POPT_ARG_STRING, &c->root, 0, "prefix of binary paths", "DIR" },
		{ "verbose", 'V', POPT_ARG_NONE, &c->verbose, 0,
		  verbose_help ? verbose_help : "more messages", NULL },
		{ "help", '?', POPT_ARG_NONE, &c->help, 0, "show this help", NULL },
		{ "version", 'v', POPT_ARG_NONE, &c->version, 0, "show version", NULL },
		POPT_TABLEEND
	};

	memcpy(rows, common, sizeof(common));
}

int pp_cmdline_start(struct pp_cmdline *cl, int argc, const char **argv,
		     const struct poptOption *table)
{
	static const char *empty[] = { NULL };
	int rc;

	cl->args = empty;
	cl->nargs = 0;
	cl->done = false;
	pp_cmdline_common(cl->rows, &cl->opts, cl->verbose_help);
	cl->pc = poptGetContext(cl->name, argc, argv, table, 0);
	if (!cl->pc) {
		fprintf(stderr, "%s: out of memory\n", cl->name);
		return PP_EXIT_USAGE;
	}
	poptSetOtherOptionHelp(cl->pc, cl->usage ? cl->usage :
			       "[options] [profile specification]");
	while ((rc = poptGetNextOpt(cl->pc)) > 0)
		;
	if (rc < -1) {
		fprintf(stderr, "%s: %s: %s\n", cl->name,
			poptBadOption(cl->pc, POPT_BADOPTION_NOALIAS), poptStrerror(rc));
		return PP_EXIT_USAGE;
	}
	if (poptPeekArg(cl->pc))
		cl->args = poptGetArgs(cl->pc);
	while (cl->args[cl->nargs])
		cl->nargs++;
	cl->done = cl->opts.version || cl->opts.help;
	if (cl->opts.version) {
		op_print_version(argv[0]);
	} else if (cl->opts.help) {
		poptPrintHelp(cl->pc, stdout, 0);
		if (cl->exit_help)
			fputs(cl->exit_help, stdout);
	}
	return PP_EXIT_OK;
}

void pp_cmdline_end(struct pp_cmdline *cl)
{
	/* popt hands string arguments over to the caller */
	free(cl->opts.session_dir);
	free(cl->opts.image_path);
	free(cl->opts.root);
	if (cl->pc)
		poptFreeContext(cl->pc);
	cl->pc = NULL;
}

/* The profile specification of argv[0..argc), or "NAME: bad profile
 * specification: WHY" on stderr: 0, PP_EXIT_SPEC or PP_EXIT_NOMEM. */
static int pp_cmdline_spec(const char *name, int argc, const char *const *argv,
			   struct pp_spec *spec)
{
	char err[512];
	int ret = pp_spec_parse(argc, argv, spec, err, sizeof(err));

	if (!ret)
		return 0;
	fprintf(stderr, "%s: bad profile specification: %s\n", name, err);
	return ret == -ENOMEM ? PP_EXIT_NOMEM : PP_EXIT_SPEC;
}

int pp_cmdline_source(const char *name, int argc, const char *const *argv,
		      const struct pp_report_opts *given, struct pp_spec *spec,
		      struct pp_archive *arch, struct pp_report_opts *o,
		      const char **session_dir)
{
	struct pp_report_opts in = *given;
	int ret = pp_cmdline_spec(name, argc, argv, spec);

	*o = in;
	if (ret || !spec->archive)
		return ret;
	/* the session and binaries of an oparchive directory (o points
	 * into arch) */
	char warn[PATH_MAX + 256] = "";

	if (pp_archive_opts(arch, spec->archive, &in, o, warn, sizeof(warn)))
		return PP_EXIT_NOMEM;
	if (*warn)
		fprintf(stderr, "%s: warning: %s\n", name, warn);
	*session_dir = arch->session_dir;
	return 0;
}

int pp_cmdline_paths(const struct pp_common_opts *c, const char *debug_dirs,
		     struct pp_report_opts *o, char **owned)
{
	*owned = NULL;
	o->root = c->root;
	o->image_path = c->image_path;
	o->debug_dirs = debug_dirs;
	if (!debug_dirs && c->root) {
		*owned = pp_debug_dirs_under(c->root);
		if (!*owned)
			return -ENOMEM;
		o->debug_dirs = *owned;
	}
	return 0;
}

char **pp_split_list(const char *s)
{
	size_t n = 1, i = 0;
	char **v, *dup, *tok, *save = NULL;

	if (!s)
		return NULL;
	for (const char *p = s; *p; p++)
		n += *p == ',';
	v = calloc(n + 1, sizeof(*v));
	dup = strdup(s);
	if (!v || !dup)
		goto err_nomem;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		v[i] = strdup(tok);
		if (!v[i++])
			goto err_nomem;
	}
	free(dup);
	return v;

err_nomem:
	free(dup);
	pp_free_list(v);
	errno = ENOMEM;
	return NULL;
}

void pp_free_list(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* "NAME: no session found in DIR/samples", with the session: names the
 * specification asked for when it named some, and how to get a session:
 * what every command says when the selection found no session. */
static void pp_say_no_session(const char *name, const char *session_dir,
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
		pp_session_warnings(stderr, fs->sd, fs->sessions[i], warn_dir);
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
