/* opannotate: OProfile's source and assembly annotation over opsampler
 * sessions. This file is only the command line: options through popt,
 * OProfile's refusals of options that mean nothing together, the exit
 * statuses and the order of the steps; selection and symbols are
 * opreport's (pp_spec, pp_profile, pp_report's symbol view), the output
 * is pp_annotate's. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_config.h"
#include "op_log.h"
#include "pp_cmdline.h"
#include "pp_annotate.h"
#include "pp_archive.h"
#include "pp_profile.h"
#include "pp_spec.h"
#include "pp_symview.h"

/* Exit statuses, listed in --help; opreport's numbering. */
enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,		/* bad option, option value or combination */
	EXIT_SPEC = 2,		/* bad profile specification */
	EXIT_NO_SESSION = 3,	/* no session directory / session */
	EXIT_NO_SAMPLES = 4,	/* no sample file or symbol matches */
	EXIT_NO_BINARY = 5,	/* nothing annotated: binaries not found */
	EXIT_BAD_FILE = 6,	/* a sample file was unreadable (output printed) */
	EXIT_OUTPUT = 7,	/* cannot write the output */
	EXIT_NOMEM = 8,
};

static const char exit_help[] =
	"\nProfile specification: [session:NAME,...] [session-exclude:...] "
	"[image:PATH,...] [image-exclude:...]\n  [lib-image:...] [event:NAME,...] "
	"[count:N,...] [unit-mask:N,...] [cpu:N|A-B,...] [tgid:...] [tid:...]\n"
	"  [archive:DIR]\n"
	"\nExit status: 0 ok, 1 bad option or option combination, 2 bad profile\n"
	"  specification, 3 no session, 4 no matching sample files or symbols,\n"
	"  5 nothing annotated because the binaries were not found, 6 an unreadable or corrupt sample file (the output covers the others),\n"
	"  7 cannot write the output, 8 out of memory\n";

struct cmdline {
	char *session_dir;
	char *output_dir;
	char *search_dirs;
	char *base_dirs;
	char *include_file;
	char *exclude_file;
	char *include_symbols;
	char *exclude_symbols;
	char *objdump_params;
	char *merge;
	char *image_path;
	char *root;
	char *debug_dirs;
	char *demangle;
	double threshold;
	int source, assembly, exclude_dependent, verbose, help, version;
};

static char **split_list(const char *s)
{
	size_t n = 1, i = 0;
	char **v, *dup, *tok, *save = NULL;

	if (!s)
		return NULL;
	for (const char *p = s; *p; p++)
		n += *p == ',';
	v = calloc(n + 1, sizeof(*v));
	dup = strdup(s);
	if (!v || !dup) {
		free(v);
		free(dup);
		return NULL;
	}
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		v[i++] = strdup(tok);
	free(dup);
	return v;
}

static void free_list(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* OProfile's refusals (its opannotate's handle_options), in its words. */
static bool options_conflict(const struct cmdline *cl)
{
	bool bad = false;

#define REFUSE(cond, msg) do { if (cond) { fputs(msg "\n", stderr); bad = true; } } while (0)
	REFUSE(!cl->source && !cl->assembly,
	       "you must specify at least --source or --assembly");
	REFUSE(cl->objdump_params && !cl->assembly,
	       "--objdump-params is meaningless without --assembly");
	REFUSE(!cl->search_dirs && cl->base_dirs,
	       "--base-dirs is useless unless you specify an alternative source "
	       "location with --search-dirs");
	REFUSE(cl->assembly && cl->output_dir,
	       "--output-dir is meaningless with --assembly");
	REFUSE(cl->assembly && (cl->include_file || cl->exclude_file),
	       "--exclude[include]-file options not supported with --assembly");
#undef REFUSE
	return bad;
}

/* The session, selected, classified, loaded and resolved into a view, as
 * opreport reads one. Returns an exit status. */
static int load(const char *session_dir, bool dir_given, int argc,
		const char *const *argv, const struct pp_merge *merge,
		struct pp_report_opts *o, struct pp_archive *arch,
		const struct op_logger *lg, struct pp_spec *spec,
		struct pp_profile *prof, struct pp_symview **view,
		struct pp_report_status *st)
{
	struct pp_report_opts given = *o;
	struct pp_fileset fs;
	char err[512];
	int ret;

	ret = pp_spec_parse(argc, argv, spec, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "opannotate: bad profile specification: %s\n", err);
		return ret == -ENOMEM ? EXIT_NOMEM : EXIT_SPEC;
	}
	if (spec->archive) {
		/* the session and binaries of an oparchive directory, read as
		 * opreport and opexport read them (o points into arch) */
		if (pp_archive_opts(arch, spec->archive, &given, o))
			return EXIT_NOMEM;
		session_dir = arch->session_dir;
		dir_given = true;
	}
	if (!dir_given)
		fprintf(stderr, "Using %s/samples/ for session-dir\n", session_dir);
	ret = pp_select_files("opannotate", session_dir, spec, false, session_dir,
			      true, &fs, lg);
	if (ret)
		return ret;
	ret = pp_classify(&fs, merge, err, sizeof(err));
	if (ret) {
		if (ret == -EDOM)
			fprintf(stderr, "opannotate: %s\n", err);
		else
			fprintf(stderr, "opannotate: %s\n", strerror(-ret));
		pp_fileset_release(&fs);
		return ret == -EDOM ? EXIT_USAGE : EXIT_NOMEM;
	}
	ret = pp_profile_load(prof, &fs, merge, o->exclude_dependent, true, lg);
	if (ret) {
		fprintf(stderr, "opannotate: %s\n", strerror(-ret));
		return EXIT_NOMEM;
	}
	if (!prof->nr_images) {
		fprintf(stderr, "opannotate: no readable sample file matches%s%s\n",
			argc ? " " : "", argc ? spec->text : "");
		return prof->nr_bad_files ? EXIT_BAD_FILE : EXIT_NO_SAMPLES;
	}
	*view = pp_symview_build(prof, o, lg, st);
	if (!*view) {
		fprintf(stderr, "opannotate: out of memory\n");
		return EXIT_NOMEM;
	}
	return EXIT_OK;
}

static char *join_argv(int argc, const char **argv)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	for (int i = 0; s && i < argc; i++) {
		strcat(s, argv[i]);
		strcat(s, " ");
	}
	return s;
}

int main(int argc, const char **argv)
{
	struct cmdline cl = { 0 };
	struct poptOption options[] = {
		{ "source", 's', POPT_ARG_NONE, &cl.source, 0, "output annotated source", NULL },
		{ "assembly", 'a', POPT_ARG_NONE, &cl.assembly, 0,
		  "output annotated disassembly (with --source: source lines interleaved)", NULL },
		{ "output-dir", 'o', POPT_ARG_STRING, &cl.output_dir, 0,
		  "write a tree of annotated source files under DIR", "DIR" },
		{ "search-dirs", 'd', POPT_ARG_STRING, &cl.search_dirs, 0,
		  "directories to look for source files in", "DIR,..." },
		{ "base-dirs", 'b', POPT_ARG_STRING, &cl.base_dirs, 0,
		  "source path prefixes to strip before searching --search-dirs", "DIR,..." },
		{ "include-file", 0, POPT_ARG_STRING, &cl.include_file, 0,
		  "only these source files (globs on path components)", "FILE,..." },
		{ "exclude-file", 0, POPT_ARG_STRING, &cl.exclude_file, 0,
		  "leave out these source files", "FILE,..." },
		{ "include-symbols", 'i', POPT_ARG_STRING, &cl.include_symbols, 0,
		  "only these symbols", "NAME,..." },
		{ "exclude-symbols", 'e', POPT_ARG_STRING, &cl.exclude_symbols, 0,
		  "leave out these symbols", "NAME,..." },
		{ "threshold", 't', POPT_ARG_DOUBLE, &cl.threshold, 0,
		  "only files (or, with --assembly, symbols) with at least this "
		  "percentage of the samples", "PERCENT" },
		{ "exclude-dependent", 'x', POPT_ARG_NONE, &cl.exclude_dependent, 0,
		  "leave out libraries, kernel and modules of each application", NULL },
		{ "merge", 'm', POPT_ARG_STRING, &cl.merge, 0,
		  "merge along cpu,tid,tgid,unitmask,all", "LIST" },
		{ "demangle", 'D', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, &cl.demangle, 0,
		  "C++ names: none, or normal (the default; smart is normal)", "none|normal|smart" },
		{ "objdump-params", 0, POPT_ARG_STRING, &cl.objdump_params, 0,
		  "refused: the disassembly is done in process, not by objdump", "PARAMS" },
		{ "session-dir", 0, POPT_ARG_STRING, &cl.session_dir, 0,
		  "session directory (default ./oprofile_data if present, else /var/lib/oprofile)", "DIR" },
		{ "image-path", 'p', POPT_ARG_STRING, &cl.image_path, 0,
		  "directories to look for binaries in", "DIR,..." },
		{ "root", 'R', POPT_ARG_STRING, &cl.root, 0, "prefix of binary paths", "DIR" },
		{ "debug-dir", 0, POPT_ARG_STRING, &cl.debug_dirs, 0,
		  "separate debug file directories (libdwfl path, default :.debug:/usr/lib/debug)", "PATH" },
		{ "verbose", 'V', POPT_ARG_NONE, &cl.verbose, 0, "more messages", NULL },
		{ "help", '?', POPT_ARG_NONE, &cl.help, 0, "show this help", NULL },
		{ "version", 'v', POPT_ARG_NONE, &cl.version, 0, "show version", NULL },
		POPT_TABLEEND
	};
	struct op_logger lg = { op_log_to_stderr, (void *)"opannotate", OP_LOG_WARN };
	struct pp_report_opts ro = { 0 };
	struct pp_annot_opts ao = { 0 };
	struct pp_merge merge = { .lib = true };	/* OProfile's: always */
	struct pp_report_status st = { 0 };
	struct pp_archive arch = { 0 };
	struct pp_spec spec = { 0 };
	struct pp_profile prof = { 0 };
	struct pp_symview *view = NULL;
	struct pp_annot annot = { 0 };
	const char **args, *bad = NULL;
	char *session_dir = NULL, *cmdline = NULL, *root_debug = NULL;
	bool usage_help = true, annot_built = false;
	poptContext pc;
	int nargs = 0, rc, status = EXIT_OK;

	pc = poptGetContext("opannotate", argc, argv, options, 0);
	poptSetOtherOptionHelp(pc, "[options] [profile specification]");
	rc = pp_cmdline_parse(pc, "opannotate", argv[0], &cl.version, &cl.help,
			      exit_help, &args, &nargs);
	if (rc < 0) {
		status = EXIT_USAGE;
		goto out_popt;
	}
	if (rc > 0)
		goto out_popt;
	if (cl.verbose)
		lg.max = OP_LOG_DEBUG;
	if (cl.merge && pp_merge_parse(cl.merge, &merge, &bad)) {
		fprintf(stderr, "opannotate: unknown --merge value at '%s' "
			"(use cpu,tid,tgid,unitmask,all)\n", bad);
		status = EXIT_USAGE;
		goto out_popt;
	}
	merge.lib = true;
	if (cl.threshold < 0 || cl.threshold > 100) {
		fprintf(stderr, "opannotate: --threshold must be a percentage (0-100)\n");
		status = EXIT_USAGE;
		goto out_popt;
	}
	for (int i = 0; i < nargs; i++) {
		if (!strcmp(args[i], "{") || !strcmp(args[i], "}")) {
			fputs("differential profiles not allowed\n", stderr);
			usage_help = false;
			status = EXIT_USAGE;
			goto out_popt;
		}
	}
	if (options_conflict(&cl)) {
		usage_help = false;
		status = EXIT_USAGE;
		goto out_popt;
	}
	if (cl.objdump_params) {
		fprintf(stderr, "opannotate: --objdump-params: the disassembly is "
			"capstone's, in process; objdump is not run\n");
		usage_help = false;
		status = EXIT_USAGE;
		goto out_popt;
	}
	ro.symbols = ro.details = true;
	ro.exclude_dependent = cl.exclude_dependent;
	ro.image_path = cl.image_path;
	ro.root = cl.root;
	ro.debug_dirs = cl.debug_dirs;
	if (!cl.debug_dirs && cl.root) {
		if (asprintf(&root_debug, ":.debug:%s/usr/lib/debug", cl.root) < 0) {
			status = EXIT_NOMEM;
			goto out_popt;
		}
		ro.debug_dirs = root_debug;
	}
	ro.demangle = true;
	if (cl.demangle) {
		if (!strcmp(cl.demangle, "none")) {
			ro.demangle = false;
		} else if (strcmp(cl.demangle, "normal") && strcmp(cl.demangle, "smart") &&
			   *cl.demangle) {
			fprintf(stderr, "opannotate: --demangle takes none, normal or smart\n");
			status = EXIT_USAGE;
			goto out_popt;
		}
	}
	ao.source = cl.source;
	ao.assembly = cl.assembly;
	ao.threshold = cl.threshold;
	ao.output_dir = cl.output_dir;
	ao.search_dirs = split_list(cl.search_dirs);
	ao.base_dirs = split_list(cl.base_dirs);
	ao.include_files = split_list(cl.include_file);
	ao.exclude_files = split_list(cl.exclude_file);
	ao.include_symbols = split_list(cl.include_symbols);
	ao.exclude_symbols = split_list(cl.exclude_symbols);
	cmdline = join_argv(argc, argv);
	session_dir = pp_session_dir_default(cl.session_dir);
	if (!cmdline || !session_dir) {
		status = EXIT_NOMEM;
		goto out_popt;
	}
	ao.command_line = cmdline;
	usage_help = false;
	status = load(session_dir, cl.session_dir != NULL, nargs, args, &merge,
		      &ro, &arch, &lg, &spec, &prof, &view, &st);
	if (status)
		goto out_report;
	if (pp_annot_build(&annot, &prof, view, &ao)) {
		status = EXIT_NOMEM;
		goto out_report;
	}
	annot_built = true;
	if (!annot.have_lines && !ao.assembly)
		op_log(&lg, OP_LOG_WARN, "no debug information available for any "
		       "binary selected, and --assembly not requested");
	if (ao.assembly)
		rc = pp_annotate_assembly(stdout, &annot, &ao, &lg);
	else
		rc = pp_annotate_source(stdout, &annot, &ao, &lg);
	if (st.nr_missing && (rc == -ENODATA || (!ao.assembly && !annot.have_lines))) {
		fprintf(stderr, "opannotate: %zu binar%s not found (see the warnings "
			"above; --root or --image-path?): nothing to annotate\n",
			st.nr_missing, st.nr_missing == 1 ? "y" : "ies");
		status = EXIT_NO_BINARY;
	} else if (rc == -ENODATA) {
		fprintf(stderr, "opannotate: selected image set doesn't contain any "
			"of the selected symbols\n");
		status = EXIT_NO_SAMPLES;
	} else if (rc == -ENOMEM) {
		fprintf(stderr, "opannotate: out of memory\n");
		status = EXIT_NOMEM;
	} else if (rc) {
		status = EXIT_OUTPUT;
	}
	if (ferror(stdout) | fflush(stdout)) {
		fprintf(stderr, "opannotate: error writing the output\n");
		status = EXIT_OUTPUT;
	}
	if (!status && prof.nr_bad_files) {
		fprintf(stderr, "opannotate: %zu sample file(s) could not be read; "
			"the output covers the others\n", prof.nr_bad_files);
		status = EXIT_BAD_FILE;
	}

out_report:
	if (annot_built)
		pp_annot_release(&annot);
	pp_symview_free(view);
	pp_profile_release(&prof);
	pp_spec_release(&spec);
	pp_report_status_release(&st);
	pp_archive_release(&arch);
out_popt:
	if (status == EXIT_USAGE && usage_help)
		fputs(exit_help, stderr);
	free_list(ao.search_dirs);
	free_list(ao.base_dirs);
	free_list(ao.include_files);
	free_list(ao.exclude_files);
	free_list(ao.include_symbols);
	free_list(ao.exclude_symbols);
	free(session_dir);
	free(cmdline);
	free(root_debug);
	free(cl.session_dir);
	free(cl.output_dir);
	free(cl.search_dirs);
	free(cl.base_dirs);
	free(cl.include_file);
	free(cl.exclude_file);
	free(cl.include_symbols);
	free(cl.exclude_symbols);
	free(cl.objdump_params);
	free(cl.merge);
	free(cl.image_path);
	free(cl.root);
	free(cl.debug_dirs);
	free(cl.demangle);
	poptFreeContext(pc);
	return status;
}
