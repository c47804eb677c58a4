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
	struct pp_cmdline cmd;
	char *output_dir;
	char *search_dirs;
	char *base_dirs;
	char *include_file;
	char *exclude_file;
	char *include_symbols;
	char *exclude_symbols;
	char *objdump_params;
	char *merge;
	char *debug_dirs;
	char *demangle;
	double threshold;
	int source, assembly, exclude_dependent;
};

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
	struct pp_fileset fs;
	char err[512];
	int ret;

	ret = pp_cmdline_source("opannotate", argc, argv, o, spec, arch, o,
				&session_dir);
	if (ret)
		return ret;
	if (!dir_given && !spec->archive)
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
		return ret == -EDOM ? PP_EXIT_USAGE : PP_EXIT_NOMEM;
	}
	ret = pp_profile_load(prof, &fs, merge, o->exclude_dependent, true, lg);
	if (ret) {
		fprintf(stderr, "opannotate: %s\n", strerror(-ret));
		return PP_EXIT_NOMEM;
	}
	if (!prof->nr_images) {
		fprintf(stderr, "opannotate: no readable sample file matches%s%s\n",
			argc ? " " : "", argc ? spec->text : "");
		return prof->nr_bad_files ? PP_EXIT_BAD_FILE : PP_EXIT_NO_SAMPLES;
	}
	*view = pp_symview_build(prof, o, lg, st);
	if (!*view) {
		fprintf(stderr, "opannotate: out of memory\n");
		return PP_EXIT_NOMEM;
	}
	return PP_EXIT_OK;
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
	struct cmdline cl = { .cmd = { .name = "opannotate", .exit_help = exit_help } };
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
		{ "debug-dir", 0, POPT_ARG_STRING, &cl.debug_dirs, 0,
		  "separate debug file directories (libdwfl path, default " PP_DEBUG_DIRS ")", "PATH" },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, cl.cmd.rows, 0, NULL, NULL },
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
	const char *bad = NULL;
	char *session_dir = NULL, *cmdline = NULL, *root_debug = NULL;
	bool usage_help = true, annot_built = false;
	int rc, status = PP_EXIT_OK;

	status = pp_cmdline_start(&cl.cmd, argc, argv, options);
	if (status || cl.cmd.done)
		goto out_popt;
	if (cl.cmd.opts.verbose)
		lg.max = OP_LOG_DEBUG;
	if (cl.merge && pp_merge_parse(cl.merge, &merge, &bad)) {
		fprintf(stderr, "opannotate: unknown --merge value at '%s' "
			"(use cpu,tid,tgid,unitmask,all)\n", bad);
		status = PP_EXIT_USAGE;
		goto out_popt;
	}
	merge.lib = true;
	if (cl.threshold < 0 || cl.threshold > 100) {
		fprintf(stderr, "opannotate: --threshold must be a percentage (0-100)\n");
		status = PP_EXIT_USAGE;
		goto out_popt;
	}
	if (pp_spec_is_diff(cl.cmd.nargs, cl.cmd.args)) {
		fputs("differential profiles not allowed\n", stderr);
		usage_help = false;
		status = PP_EXIT_USAGE;
		goto out_popt;
	}
	if (options_conflict(&cl)) {
		usage_help = false;
		status = PP_EXIT_USAGE;
		goto out_popt;
	}
	if (cl.objdump_params) {
		fprintf(stderr, "opannotate: --objdump-params: the disassembly is "
			"capstone's, in process; objdump is not run\n");
		usage_help = false;
		status = PP_EXIT_USAGE;
		goto out_popt;
	}
	ro.symbols = ro.details = true;
	ro.exclude_dependent = cl.exclude_dependent;
	if (pp_cmdline_paths(&cl.cmd.opts, cl.debug_dirs, &ro, &root_debug)) {
		status = PP_EXIT_NOMEM;
		goto out_popt;
	}
	ro.demangle = true;
	if (cl.demangle) {
		if (!strcmp(cl.demangle, "none")) {
			ro.demangle = false;
		} else if (strcmp(cl.demangle, "normal") && strcmp(cl.demangle, "smart") &&
			   *cl.demangle) {
			fprintf(stderr, "opannotate: --demangle takes none, normal or smart\n");
			status = PP_EXIT_USAGE;
			goto out_popt;
		}
	}
	ao.source = cl.source;
	ao.assembly = cl.assembly;
	ao.threshold = cl.threshold;
	ao.output_dir = cl.output_dir;
	ao.search_dirs = pp_split_list(cl.search_dirs);
	ao.base_dirs = pp_split_list(cl.base_dirs);
	ao.include_files = pp_split_list(cl.include_file);
	ao.exclude_files = pp_split_list(cl.exclude_file);
	ao.include_symbols = pp_split_list(cl.include_symbols);
	ao.exclude_symbols = pp_split_list(cl.exclude_symbols);
	cmdline = join_argv(argc, argv);
	session_dir = pp_session_dir_default(cl.cmd.opts.session_dir);
	if (!cmdline || !session_dir) {
		status = PP_EXIT_NOMEM;
		goto out_popt;
	}
	ao.command_line = cmdline;
	usage_help = false;
	status = load(session_dir, cl.cmd.opts.session_dir != NULL,
		      cl.cmd.nargs, cl.cmd.args, &merge, &ro, &arch, &lg, &spec,
		      &prof, &view, &st);
	if (status)
		goto out_report;
	if (pp_annot_build(&annot, &prof, view, &ao)) {
		status = PP_EXIT_NOMEM;
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
		status = PP_EXIT_NO_BINARY;
	} else if (rc == -ENODATA) {
		fprintf(stderr, "opannotate: selected image set doesn't contain any "
			"of the selected symbols\n");
		status = PP_EXIT_NO_SAMPLES;
	} else if (rc == -ENOMEM) {
		fprintf(stderr, "opannotate: out of memory\n");
		status = PP_EXIT_NOMEM;
	} else if (rc) {
		status = PP_EXIT_OUTPUT;
	}
	if (ferror(stdout) | fflush(stdout)) {
		fprintf(stderr, "opannotate: error writing the output\n");
		status = PP_EXIT_OUTPUT;
	}
	if (!status && prof.nr_bad_files) {
		fprintf(stderr, "opannotate: %zu sample file(s) could not be read; "
			"the output covers the others\n", prof.nr_bad_files);
		status = PP_EXIT_BAD_FILE;
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
	if (status == PP_EXIT_USAGE && usage_help)
		fputs(exit_help, stderr);
	pp_free_list(ao.search_dirs);
	pp_free_list(ao.base_dirs);
	pp_free_list(ao.include_files);
	pp_free_list(ao.exclude_files);
	pp_free_list(ao.include_symbols);
	pp_free_list(ao.exclude_symbols);
	free(session_dir);
	free(cmdline);
	free(root_debug);
	free(cl.output_dir);
	free(cl.search_dirs);
	free(cl.base_dirs);
	free(cl.include_file);
	free(cl.exclude_file);
	free(cl.include_symbols);
	free(cl.exclude_symbols);
	free(cl.objdump_params);
	free(cl.merge);
	free(cl.debug_dirs);
	free(cl.demangle);
	pp_cmdline_end(&cl.cmd);
	return status;
}
