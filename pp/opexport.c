/* opexport: a session's profile for other tools: pprof (go tool pprof,
 * Pyroscope, Parca), folded stacks, a flame-graph SVG. Sessions and
 * profile specifications are opreport's (pp_spec, pp_profile), symbols are
 * named by opreport's symbol view; this file is the command line and the
 * order of the steps, the work is in pp_export*.c. */
#include "config.h"

#include <errno.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_config.h"
#include "op_log.h"
#include "pp_cmdline.h"
#include "pp_archive.h"
#include "pp_export.h"
#include "pp_profile.h"
#include "pp_spec.h"
#include "pp_symview.h"

static const char exit_help[] =
	"\nFormats: pprof (gzip'd profile.proto), folded (\"frame;frame count\" "
	"lines, root first),\n  flamegraph (an SVG). Stacks are whole call "
	"chains when the session was recorded\n  with --callgraph, else one "
	"frame per sample.\n"
	"\nProfile specification: as opreport's: [session:NAME,...] "
	"[session-exclude:...]\n  [image:PATH,...] [image-exclude:...] "
	"[lib-image:...] [event:NAME,...] [count:N,...]\n  [unit-mask:N,...] "
	"[cpu:N|A-B,...] [tgid:...] [tid:...]\n"
	"  [archive:DIR]  (an oparchive directory: its session and binaries)\n"
	"\nExit status: 0 ok, 1 bad option, 2 bad profile specification, 3 no "
	"session,\n  4 nothing matches, 6 an unreadable or corrupt sample file "
	"or chain store\n  (the output covers the rest), 7 cannot write the "
	"output, 8 out of memory\n";

enum format { FMT_PPROF, FMT_FOLDED, FMT_FLAMEGRAPH };

struct cmdline {
	struct pp_cmdline cmd;
	char *format, *output, *merge;
	char *vmlinux, *kallsyms, *debug_dirs, *jit_dir, *demangle, *title;
};

static int parse_format(const char *s, enum format *f)
{
	if (!s || !strcmp(s, "pprof"))
		*f = FMT_PPROF;
	else if (!strcmp(s, "folded"))
		*f = FMT_FOLDED;
	else if (!strcmp(s, "flamegraph") || !strcmp(s, "svg"))
		*f = FMT_FLAMEGRAPH;
	else
		return -EINVAL;
	return 0;
}

/* Select and load. With archive:, *o becomes the archive's options,
 * pointing into arch. Returns an exit status. */
static int build(struct pp_export *x, struct pp_spec *spec,
		 const char *session_dir, int argc, const char *const *argv,
		 const struct pp_merge *merge, struct pp_report_opts *o,
		 struct pp_archive *arch, const struct op_logger *lg)
{
	struct pp_fileset fs;
	int ret;

	ret = pp_cmdline_source("opexport", argc, argv, o, spec, arch, o,
				&session_dir);
	if (ret)
		return ret;
	ret = pp_select_files("opexport", session_dir, spec, false, session_dir,
			      true, &fs, lg);
	if (ret)
		return ret;
	ret = pp_export_load(x, &fs, spec, merge, lg);
	if (ret == -ENOMEM) {
		fprintf(stderr, "opexport: out of memory\n");
		return PP_EXIT_NOMEM;
	}
	if (ret)	/* named through the logger */
		return PP_EXIT_BAD_FILE;
	if (!x->nr_stacks) {
		fprintf(stderr, "opexport: no %ssample matches%s%s in %s\n",
			x->nr_bad_files ? "readable " : "", argc ? " " : "",
			argc ? spec->text : "", session_dir);
		return x->nr_bad_files ? PP_EXIT_BAD_FILE : PP_EXIT_NO_SAMPLES;
	}
	return PP_EXIT_OK;
}

int main(int argc, const char **argv)
{
	struct cmdline cl = { .cmd = {
		.name = "opexport", .exit_help = exit_help,
		.usage = "--format=pprof|folded|flamegraph [-o FILE] "
			 "[options] [profile specification]",
	} };
	struct poptOption options[] = {
		{ "format", 'F', POPT_ARG_STRING, &cl.format, 0,
		  "pprof (the default), folded or flamegraph", "FORMAT" },
		{ "output-file", 'o', POPT_ARG_STRING, &cl.output, 0,
		  "write to FILE (default: standard output)", "FILE" },
		{ "merge", 'm', POPT_ARG_STRING, &cl.merge, 0,
		  "merge along lib,cpu,tid,tgid,unitmask,all (no cpu, pid or tid labels)", "LIST" },
		{ "title", 0, POPT_ARG_STRING, &cl.title, 0,
		  "the flame graph's title", "TEXT" },
		{ "demangle", 'D', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, &cl.demangle, 0,
		  "C++ names: none, or normal (the default; smart is normal)", "none|normal|smart" },
		{ "vmlinux", 'k', POPT_ARG_STRING, &cl.vmlinux, 0,
		  "kernel symbols from this vmlinux (default /proc/kallsyms)", "FILE" },
		{ "kallsyms", 0, POPT_ARG_STRING, &cl.kallsyms, 0,
		  "kernel symbols from this kallsyms file", "FILE" },
		{ "debug-dir", 0, POPT_ARG_STRING, &cl.debug_dirs, 0,
		  "separate debug file directories (libdwfl path)", "PATH" },
		{ "jit-dir", 0, POPT_ARG_STRING, &cl.jit_dir, 0,
		  "where perf-PID.map files are (default /tmp)", "DIR" },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, cl.cmd.rows, 0, NULL, NULL },
		POPT_TABLEEND
	};
	struct op_logger lg = { op_log_to_stderr, (void *)"opexport", OP_LOG_WARN };
	struct pp_report_opts o = { 0 };
	struct pp_report_status st = { 0 };
	struct pp_merge merge = { 0 };
	struct pp_spec spec = { 0 };
	struct pp_archive arch = { 0 };
	struct pp_export x;
	const char *bad = NULL;
	char *session_dir = NULL, *root_debug = NULL;
	enum format fmt = FMT_PPROF;
	FILE *out = stdout;
	int rc = 0, status = PP_EXIT_OK;

	pp_export_init(&x);
	status = pp_cmdline_start(&cl.cmd, argc, argv, options);
	if (status || cl.cmd.done)
		goto out;
	if (cl.cmd.opts.verbose)
		lg.max = OP_LOG_DEBUG;
	if (parse_format(cl.format, &fmt)) {
		fprintf(stderr, "opexport: unknown --format=%s (use pprof, folded "
			"or flamegraph)\n", cl.format);
		status = PP_EXIT_USAGE;
		goto out;
	}
	if (cl.merge && pp_merge_parse(cl.merge, &merge, &bad)) {
		fprintf(stderr, "opexport: unknown --merge value at '%s' "
			"(use lib,cpu,tid,tgid,unitmask,all)\n", bad);
		status = PP_EXIT_USAGE;
		goto out;
	}
	o.demangle = true;
	if (cl.demangle && !strcmp(cl.demangle, "none")) {
		o.demangle = false;
	} else if (cl.demangle && *cl.demangle && strcmp(cl.demangle, "normal") &&
		   strcmp(cl.demangle, "smart")) {
		fprintf(stderr, "opexport: --demangle takes none, normal or smart\n");
		status = PP_EXIT_USAGE;
		goto out;
	}
	o.vmlinux = cl.vmlinux;
	o.kallsyms = cl.kallsyms;
	o.jit_dir = cl.jit_dir;
	if (pp_cmdline_paths(&cl.cmd.opts, cl.debug_dirs, &o, &root_debug)) {
		status = PP_EXIT_NOMEM;
		goto out;
	}
	session_dir = pp_session_dir_default(cl.cmd.opts.session_dir);
	if (!session_dir) {
		status = PP_EXIT_NOMEM;
		goto out;
	}
	status = build(&x, &spec, session_dir, cl.cmd.nargs, cl.cmd.args,
		       &merge, &o, &arch, &lg);
	if (status)
		goto out;
	if (pp_export_symbolize(&x, &o, &lg, &st)) {
		fprintf(stderr, "opexport: out of memory\n");
		status = PP_EXIT_NOMEM;
		goto out;
	}
	if (cl.output) {
		out = fopen(cl.output, "w");
		if (!out) {
			fprintf(stderr, "opexport: cannot write %s: %s\n", cl.output,
				strerror(errno));
			out = stdout;
			status = PP_EXIT_OUTPUT;
			goto out;
		}
	}
	switch (fmt) {
	case FMT_PPROF:
		rc = pp_export_pprof(&x, out);
		break;
	case FMT_FOLDED:
		rc = pp_export_folded(&x, out);
		break;
	case FMT_FLAMEGRAPH:
		rc = pp_export_flamegraph(&x, out, cl.title ? cl.title :
					  x.has_chains ? "Flame graph" :
					  "Flame graph (flat profile)");
		break;
	}
	if (rc == -ENOMEM) {
		fprintf(stderr, "opexport: out of memory\n");
		status = PP_EXIT_NOMEM;
	}
	if (rc == -EIO || ferror(out) | (out != stdout ? fclose(out) : fflush(out))) {
		fprintf(stderr, "opexport: error writing %s\n",
			cl.output ? cl.output : "the standard output");
		status = PP_EXIT_OUTPUT;
	}
	out = stdout;
	if (!status && x.nr_bad_files) {
		fprintf(stderr, "opexport: %zu sample file(s) or chain store(s) could "
			"not be read; the export covers the others\n", x.nr_bad_files);
		status = PP_EXIT_BAD_FILE;
	}
out:
	if (status == PP_EXIT_USAGE)
		fputs(exit_help, stderr);
	pp_export_release(&x);
	pp_spec_release(&spec);
	pp_archive_release(&arch);
	pp_report_status_release(&st);
	free(session_dir);
	free(root_debug);
	free(cl.format);
	free(cl.output);
	free(cl.merge);
	free(cl.vmlinux);
	free(cl.kallsyms);
	free(cl.debug_dirs);
	free(cl.jit_dir);
	free(cl.demangle);
	free(cl.title);
	pp_cmdline_end(&cl.cmd);
	return status;
}
