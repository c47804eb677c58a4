/* opreport: OProfile's report command over opsampler sessions. This file is
 * only the command line: options through popt, the exit statuses, and the
 * order of the steps; the work is in pp_spec, pp_profile, pp_symbols and
 * pp_report. */
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
#include "pp_callgraph.h"
#include "pp_profile.h"
#include "pp_report.h"
#include "pp_session.h"
#include "pp_spec.h"

static const char exit_help[] =
	"\nProfile specification: [session:NAME,...] [session-exclude:...] "
	"[image:PATH,...] [image-exclude:...]\n  [lib-image:...] [event:NAME,...] "
	"[count:N,...] [unit-mask:N,...] [cpu:N|A-B,...] [tgid:...] [tid:...]\n"
	"  [archive:DIR]  (an oparchive directory: its session and binaries)\n"
	"  Differential report: opreport [options] { SPEC } { SPEC }\n"
	"\nExit status: 0 ok, 1 bad option or option combination, or sample "
	"files that differ\n  along two axes (use --merge), 2 bad profile "
	"specification, 3 no session,\n  4 no matching sample files, 5 unused, "
	"6 an unreadable or corrupt sample file\n  (the report covers the "
	"others), 7 cannot write the output, 8 out of memory\n";

struct cmdline {
	struct pp_cmdline cmd;
	char *merge;
	char *sort;
	char *output;
	char *include_symbols;
	char *exclude_symbols;
	char *vmlinux;
	char *kallsyms;
	char *debug_dirs;
	char *jit_dir;
	char *demangle;
	double threshold;
	int symbols, debug_info, details, xml, exclude_dependent;
	int global_percent, long_filenames, show_address, accumulated;
	int no_header, reverse, callgraph, dynamic_symbols;
};

/* OProfile's refusals of options that mean nothing together (its
 * opreport's check_options), in its words, all of them before exiting 1.
 * --details implies --symbols there. */
static bool options_conflict(const struct cmdline *cl, bool diff)
{
	bool symbols = cl->symbols || cl->details || cl->callgraph, bad = false;

#define REFUSE(cond, msg) do { if (cond) { fputs(msg "\n", stderr); bad = true; } } while (0)
	REFUSE(cl->callgraph && cl->details, "--callgraph is incompatible with --details");
	REFUSE(cl->callgraph && diff, "differential profiles are incompatible with --callgraph");
	REFUSE(cl->xml && cl->accumulated, "--accumulated is incompatible with --xml");
	REFUSE(cl->xml && cl->global_percent, "--global_percent is incompatible with --xml");
	REFUSE(cl->details && diff, "differential profiles are incompatible with --details");
	REFUSE(!symbols && diff, "different profiles are meaningless without --symbols");
	REFUSE(!symbols && cl->show_address, "--show-address is meaningless without --symbols");
	REFUSE(!symbols && (cl->debug_info || cl->accumulated),
	       "--debug-info and --accumulated are meaningless without --symbols");
	REFUSE(!symbols && (cl->include_symbols || cl->exclude_symbols),
	       "--exclude-symbols and --include-symbols are meaningless without --symbols");
	REFUSE(!symbols && cl->sort && !cl->xml && strstr(cl->sort, "vma"),
	       "--sort=vma is meaningless without --symbols");
	REFUSE(cl->global_percent && symbols && !cl->details && !cl->callgraph,
	       "--global-percent is meaningless with --symbols and without "
	       "--details or --callgraph");
#undef REFUSE
	return bad;
}

static int parse_sort(const char *s, struct pp_report_opts *o)
{
	const char *p = s;

	o->nr_sort = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		enum pp_sort_key k;

#define IS(x) (len == strlen(x) && !strncmp(p, x, len))
		if (IS("sample"))
			k = PP_SORT_SAMPLE;
		else if (IS("vma"))
			k = PP_SORT_VMA;
		else if (IS("symbol"))
			k = PP_SORT_SYMBOL;
		else if (IS("debug"))
			k = PP_SORT_DEBUG;
		else if (IS("image"))
			k = PP_SORT_IMAGE;
		else if (IS("app-name"))
			k = PP_SORT_APP;
		else {
			fprintf(stderr, "opreport: unknown sort key '%.*s' in --sort=%s "
				"(use vma,sample,symbol,debug,image,app-name)\n", (int)len, p, s);
			return -EINVAL;
		}
#undef IS
		if (o->nr_sort == sizeof(o->sort) / sizeof(o->sort[0])) {
			fprintf(stderr, "opreport: too many sort keys in --sort=%s\n", s);
			return -EINVAL;
		}
		o->sort[o->nr_sort++] = k;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

struct one_report {
	struct pp_spec spec;
	struct pp_profile prof;
	struct pp_symview *view;
	/* the options the report uses (with archive:, pointing into arch) */
	struct pp_report_opts opts;
	struct pp_archive arch;
};

/* The session directory opreport reads, and how OProfile's opreport names
 * it in its messages (with its default's trailing slash). */
struct session_names {
	const char *dir;
	const char *op_dir;
	const char *argv0;
	bool given;		/* --session-dir was given */
};

/* Select, classify, load and resolve one profile. Returns an exit status. */
static int build_report(struct one_report *r, const struct session_names *sn,
			int argc, const char *const *argv,
			const struct pp_merge *merge,
			const struct pp_report_opts *opts,
			const struct op_logger *lg,
			struct pp_report_status *st)
{
	const char *session_dir = sn->dir, *op_dir = sn->op_dir;
	const struct pp_report_opts *o = &r->opts;
	struct pp_fileset fs;
	char err[512];
	int ret;

	ret = pp_cmdline_source("opreport", argc, argv, opts, &r->spec,
				&r->arch, &r->opts, &session_dir);
	if (ret)
		return ret;
	if (r->spec.archive)
		op_dir = PP_ARCHIVE_SESSION_DIR "/";
	if (!sn->given)
		fprintf(stderr, "Using %s/samples/ for samples directory.\n", op_dir);
	ret = pp_select_files("opreport", session_dir, &r->spec, o->callgraph,
			      op_dir, true, &fs, lg);
	if (ret)
		return ret;
	ret = pp_classify(&fs, merge, err, sizeof(err));
	/* OProfile's XML takes files that differ along several axes at once
	 * (arrange_profiles: identify_xml_classes checks no axis) */
	if (ret == -EDOM && o->xml)
		ret = pp_classify_multi(&fs, merge);
	if (ret) {
		/* OProfile's fatal errors are prefixed by its argv[0] */
		if (ret == -EDOM)
			fprintf(stderr, "%s error: %s\n", sn->argv0, err);
		else
			fprintf(stderr, "opreport: %s\n", strerror(-ret));
		pp_fileset_release(&fs);
		return ret == -EDOM ? PP_EXIT_USAGE : PP_EXIT_NOMEM;
	}
	ret = pp_profile_load(&r->prof, &fs, merge, o->exclude_dependent,
			      o->symbols || o->details, lg);
	if (ret) {
		fprintf(stderr, "opreport: %s\n", strerror(-ret));
		return PP_EXIT_NOMEM;
	}
	if (!r->prof.nr_images) {
		fprintf(stderr, "opreport: no readable sample file matches%s%s\n",
			argc ? " " : "", argc ? r->spec.text : "");
		return r->prof.nr_bad_files ? PP_EXIT_BAD_FILE : PP_EXIT_NO_SAMPLES;
	}
	r->view = pp_symview_build(&r->prof, o, lg, st);
	if (!r->view) {
		fprintf(stderr, "opreport: out of memory\n");
		return PP_EXIT_NOMEM;
	}
	return PP_EXIT_OK;
}

static void release_report(struct one_report *r)
{
	pp_symview_free(r->view);
	pp_profile_release(&r->prof);
	pp_spec_release(&r->spec);
	pp_archive_release(&r->arch);
}

int main(int argc, const char **argv)
{
	struct cmdline cl = { .cmd = { .name = "opreport", .exit_help = exit_help } };
	struct poptOption options[] = {
		{ "symbols", 'l', POPT_ARG_NONE, &cl.symbols, 0, "list per-symbol information", NULL },
		{ "debug-info", 'g', POPT_ARG_NONE, &cl.debug_info, 0, "add source file and line", NULL },
		{ "details", 'd', POPT_ARG_NONE, &cl.details, 0, "per-address lines under each symbol", NULL },
		{ "xml", 'X', POPT_ARG_NONE, &cl.xml, 0, "XML output (OProfile's schema 3.1)", NULL },
		{ "exclude-dependent", 'x', POPT_ARG_NONE, &cl.exclude_dependent, 0,
		  "leave out libraries, kernel and modules of each application", NULL },
		{ "global-percent", '%', POPT_ARG_NONE, &cl.global_percent, 0,
		  "percentages of the whole profile in dependent-image blocks and -d lines", NULL },
		{ "long-filenames", 'f', POPT_ARG_NONE, &cl.long_filenames, 0, "full paths", NULL },
		{ "threshold", 't', POPT_ARG_DOUBLE, &cl.threshold, 0,
		  "hide lines below this percentage", "PERCENT" },
		{ "sort", 's', POPT_ARG_STRING, &cl.sort, 0,
		  "sort keys: vma,sample,symbol,debug,image,app-name", "KEYS" },
		{ "reverse-sort", 'r', POPT_ARG_NONE, &cl.reverse, 0, "reverse the sort", NULL },
		{ "accumulated", 'a', POPT_ARG_NONE, &cl.accumulated, 0,
		  "add cumulated samples and percent columns", NULL },
		{ "no-header", 'n', POPT_ARG_NONE, &cl.no_header, 0, "no header lines or column titles", NULL },
		{ "output-file", 'o', POPT_ARG_STRING, &cl.output, 0, "write to FILE", "FILE" },
		{ "merge", 'm', POPT_ARG_STRING, &cl.merge, 0,
		  "merge along lib,cpu,tid,tgid,unitmask,container,all", "LIST" },
		{ "show-address", 'w', POPT_ARG_NONE, &cl.show_address, 0, "add the vma column", NULL },
		{ "include-symbols", 'i', POPT_ARG_STRING, &cl.include_symbols, 0,
		  "only these symbols", "NAME,..." },
		{ "exclude-symbols", 'e', POPT_ARG_STRING, &cl.exclude_symbols, 0,
		  "leave out these symbols", "NAME,..." },
		{ "demangle", 'D', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, &cl.demangle, 0,
		  "C++ names: none, or normal (the default; smart is normal)", "none|normal|smart" },
		{ "vmlinux", 'k', POPT_ARG_STRING, &cl.vmlinux, 0,
		  "kernel symbols from this vmlinux (default /proc/kallsyms)", "FILE" },
		{ "kallsyms", 0, POPT_ARG_STRING, &cl.kallsyms, 0,
		  "kernel symbols from this kallsyms file", "FILE" },
		{ "debug-dir", 0, POPT_ARG_STRING, &cl.debug_dirs, 0,
		  "separate debug file directories (libdwfl path, default " PP_DEBUG_DIRS ")", "PATH" },
		{ "jit-dir", 0, POPT_ARG_STRING, &cl.jit_dir, 0,
		  "where perf-PID.map files are (default /tmp)", "DIR" },
		{ "dynamic-symbols", 0, POPT_ARG_NONE, &cl.dynamic_symbols, 0,
		  "name samples of binaries without .symtab by their .dynsym functions "
		  "(OProfile shows one line per such binary)", NULL },
		{ "callgraph", 'c', POPT_ARG_NONE, &cl.callgraph, 0,
		  "callers and callees of each symbol (implies --symbols)", NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, cl.cmd.rows, 0, NULL, NULL },
		POPT_TABLEEND
	};
	struct op_logger lg = { op_log_to_stderr, (void *)"opreport", OP_LOG_WARN };
	struct pp_report_opts o = { 0 };
	struct pp_merge merge = { 0 };
	struct pp_report_status st = { .err = stderr };
	struct one_report ra = { 0 }, rb = { 0 };
	char **incl = NULL, **excl = NULL, *session_dir = NULL, *title = NULL;
	char *root_debug = NULL;
	size_t title_len = 1, nr_bad_arcs = 0;
	FILE *out = stdout;
	int rc, status = PP_EXIT_OK;
	bool is_diff = false;
	bool usage_help = true;	/* OProfile's own refusals come alone */
	const char *bad = NULL;
	int a0 = 0, an = 0, b0 = 0, bn = 0;
	char err[256], cwd[PATH_MAX], op_dir[PATH_MAX + 16];
	struct session_names sn = { 0 };

	status = pp_cmdline_start(&cl.cmd, argc, argv, options);
	if (status)
		usage_help = false;	/* popt's words alone */
	if (status || cl.cmd.done)
		goto out_popt;
	if (cl.cmd.opts.verbose)
		lg.max = OP_LOG_DEBUG;
	if (cl.merge && pp_merge_parse(cl.merge, &merge, &bad)) {
		fprintf(stderr, "opreport: unknown --merge value at '%s' "
			"(use lib,cpu,tid,tgid,unitmask,container,all)\n", bad);
		status = PP_EXIT_USAGE;
		goto out_popt;
	}
	if (merge.lib && cl.exclude_dependent &&
	    !strstr(cl.merge ? cl.merge : "", "all")) {
		fputs("--merge=lib is meaningless with --exclude-dependent\n", stderr);
		usage_help = false;
		status = PP_EXIT_USAGE;
		goto out_popt;
	}
	if (cl.threshold < 0 || cl.threshold > 100) {
		fprintf(stderr, "opreport: --threshold must be a percentage (0-100)\n");
		status = PP_EXIT_USAGE;
		goto out_popt;
	}
	/* XML always lists symbols, as OProfile's does */
	o.symbols = cl.symbols || cl.details || cl.debug_info || cl.xml ||
		    cl.callgraph;
	o.callgraph = cl.callgraph;
	o.debug_info = cl.debug_info;
	o.details = cl.details;
	o.xml = cl.xml;
	o.exclude_dependent = cl.exclude_dependent;
	o.global_percent = cl.global_percent;
	o.long_filenames = cl.long_filenames;
	o.show_address = cl.show_address;
	o.accumulated = cl.accumulated;
	o.no_header = cl.no_header;
	o.reverse = cl.reverse;
	o.dynamic_symbols = cl.dynamic_symbols;
	o.threshold = cl.threshold;
	o.vmlinux = cl.vmlinux;
	o.kallsyms = cl.kallsyms;
	if (pp_cmdline_paths(&cl.cmd.opts, cl.debug_dirs, &o, &root_debug)) {
		status = PP_EXIT_NOMEM;
		goto out_popt;
	}
	o.jit_dir = cl.jit_dir;
	o.demangle = true;	/* OProfile's default: --demangle=normal */
	if (cl.demangle) {
		if (!strcmp(cl.demangle, "none")) {
			o.demangle = false;
		} else if (!strcmp(cl.demangle, "normal") || !strcmp(cl.demangle, "smart") ||
			   !*cl.demangle) {
			o.demangle = true;
		} else {
			fprintf(stderr, "opreport: --demangle takes none, normal or smart\n");
			status = PP_EXIT_USAGE;
			goto out_popt;
		}
	}
	o.merge_text = cl.merge;
	if (cl.sort && cl.xml) {
		/* XML's order groups each application's images */
		fprintf(stderr, "opreport: warning: sort options ignored because "
			"they are incompatible with --xml\n");
	} else if (cl.sort && parse_sort(cl.sort, &o)) {
		status = PP_EXIT_USAGE;
		goto out_popt;
	}
	if (cl.include_symbols) {
		incl = pp_split_list(cl.include_symbols);
		o.include_symbols = incl;
	}
	if (cl.exclude_symbols) {
		excl = pp_split_list(cl.exclude_symbols);
		o.exclude_symbols = excl;
	}
	for (int i = 0; i < argc; i++)
		title_len += strlen(argv[i]) + 1;
	title = calloc(1, title_len + 16);
	if (!title) {
		status = PP_EXIT_NOMEM;
		goto out_popt;
	}
	{
		const char *base = strrchr(argv[0], '/');

		strcat(title, base ? base + 1 : argv[0]);
		strcat(title, " ");
		for (int i = 1; i < argc; i++) {
			strcat(title, argv[i]);
			strcat(title, " ");
		}
	}
	o.title = title;
	session_dir = pp_session_dir_default(cl.cmd.opts.session_dir);
	if (!session_dir) {
		status = PP_EXIT_NOMEM;
		goto out_popt;
	}
	if (pp_spec_split_diff(cl.cmd.nargs, cl.cmd.args, &is_diff, &a0, &an, &b0, &bn,
			       err, sizeof(err))) {
		fprintf(stderr, "opreport: bad profile specification: %s\n", err);
		status = PP_EXIT_SPEC;
		goto out_popt;
	}
	if (is_diff && cl.xml) {
		fprintf(stderr, "opreport: differential profiles are incompatible "
			"with --xml\n");
		status = PP_EXIT_USAGE;
		goto out_popt;
	}
	usage_help = false;
	if (options_conflict(&cl, is_diff)) {
		status = PP_EXIT_USAGE;
		goto out_popt;
	}
	if (!is_diff) {
		a0 = 0;
		an = cl.cmd.nargs;
	}
	sn.dir = session_dir;
	sn.argv0 = argv[0];
	sn.given = cl.cmd.opts.session_dir != NULL;
	if (sn.given) {
		sn.op_dir = cl.cmd.opts.session_dir;
	} else if (strcmp(session_dir, OP_DEFAULT_SESSION_DIR)) {
		/* ./oprofile_data, which OProfile names from the cwd */
		if (!getcwd(cwd, sizeof(cwd)))
			cwd[0] = '\0';
		snprintf(op_dir, sizeof(op_dir), "%s/" OP_OPERF_DIR, cwd);
		sn.op_dir = op_dir;
	} else {
		sn.op_dir = OP_DEFAULT_SESSION_DIR "/";
	}
	status = build_report(&ra, &sn, an, cl.cmd.args + a0, &merge, &o, &lg, &st);
	if (status)
		goto out_reports;
	if (is_diff) {
		status = build_report(&rb, &sn, bn, cl.cmd.args + b0, &merge, &o,
				      &lg, &st);
		if (status)
			goto out_reports;
	}
	o.spec_text = ra.spec.text;
	if (cl.output) {
		out = fopen(cl.output, "w");
		if (!out) {
			fprintf(stderr, "opreport: cannot write %s: %s\n", cl.output,
				strerror(errno));
			status = PP_EXIT_OUTPUT;
			goto out_reports;
		}
	}
	pp_report_event_notes(stderr, &ra.prof);
	if (is_diff)
		rc = pp_report_diff(out, &ra.prof, ra.view, &rb.prof, rb.view, &o);
	else if (o.callgraph)
		rc = pp_callgraph_print(out, &ra.prof, ra.view, &o, &merge, &lg,
					&nr_bad_arcs);
	else
		rc = pp_report_print(out, &ra.prof, ra.view, &o);
	if (rc == -EOPNOTSUPP) {
		fprintf(stderr, "opreport: --callgraph with --xml is not supported "
			"yet for threads or processes (--separate=thread, "
			"--merge=tid, tgid or all)\n");
		status = PP_EXIT_USAGE;
	} else if (rc) {
		fprintf(stderr, "opreport: %s\n", strerror(-rc));
		status = PP_EXIT_NOMEM;
	}
	if (ferror(out) | (out != stdout ? fclose(out) : fflush(out))) {
		fprintf(stderr, "opreport: error writing %s\n",
			cl.output ? cl.output : "the report");
		status = PP_EXIT_OUTPUT;
	}
	if (!status && (ra.prof.nr_bad_files || rb.prof.nr_bad_files || nr_bad_arcs)) {
		fprintf(stderr, "opreport: %zu sample file(s) could not be read; "
			"the report covers the others\n",
			ra.prof.nr_bad_files + rb.prof.nr_bad_files + nr_bad_arcs);
		status = PP_EXIT_BAD_FILE;
	}

out_reports:
	release_report(&ra);
	release_report(&rb);
	pp_report_status_release(&st);
out_popt:
	if (status == PP_EXIT_USAGE && usage_help)
		fputs(exit_help, stderr);
	free(session_dir);
	free(title);
	free(root_debug);
	pp_free_list(incl);
	pp_free_list(excl);
	/* popt hands string arguments over to the caller */
	free(cl.merge);
	free(cl.sort);
	free(cl.output);
	free(cl.include_symbols);
	free(cl.exclude_symbols);
	free(cl.vmlinux);
	free(cl.kallsyms);
	free(cl.debug_dirs);
	free(cl.jit_dir);
	free(cl.demangle);
	pp_cmdline_end(&cl.cmd);
	return status;
}
