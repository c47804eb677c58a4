/* opgprof: gmon.out for GNU gprof from one binary's samples and, when the
 * session was recorded with --callgraph, its call-graph arcs. Selection is
 * opreport's (pp_spec, pp_profile) with everything merged, symbols and
 * addresses are its symbol view's; this file is the command line, the
 * choice of the one image, and the arcs; the format is pp_gprof.c's. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "odb.h"
#include "op_grow.h"
#include "op_log.h"
#include "op_names.h"
#include "pp_cmdline.h"
#include "pp_archive.h"
#include "pp_gprof.h"
#include "pp_profile.h"
#include "pp_spec.h"
#include "pp_symbols.h"
#include "pp_symview.h"

static const char exit_help[] =
	"\nProfile specification: as opreport's; it must select one binary "
	"(and one event):\n  [image:PATH,...] [lib-image:...] [event:NAME] "
	"[count:N] [session:NAME,...]\n  [cpu:...] [tgid:...] [tid:...] "
	"[archive:DIR]\n"
	"\nRead the result with: gprof BINARY gmon.out\n"
	"\nExit status: 0 ok, 1 bad option, or not exactly one binary selected, "
	"2 bad profile\n  specification, 3 no session, 4 no matching sample "
	"files, 5 the binary cannot be\n  read, 6 an unreadable sample file, "
	"7 cannot write the output, 8 out of memory\n";

struct cmdline {
	struct pp_cmdline cmd;
	char *output;
	double threshold;
};

/* What was selected and loaded. */
struct gprof_sel {
	struct pp_profile prof;
	bool loaded;
	size_t image;		/* index of the one sampled image */
};

/* Select, classify and load, everything merged as OProfile's opgprof
 * merges. Sets *nr_images to the number of images with samples. Returns an
 * exit status. */
static int load(struct gprof_sel *g, const char *session_dir,
		const struct pp_spec *spec, bool exclude_dependent,
		const struct op_logger *lg, size_t *nr_images)
{
	struct pp_merge merge = { .cpu = true, .lib = true, .tid = true,
				  .tgid = true, .unitmask = true };
	struct pp_fileset fs;
	char err[512];
	int ret;

	*nr_images = 0;
	ret = pp_select_files("opgprof", session_dir, spec, true, NULL, false,
			      &fs, lg);
	if (ret)
		return ret;
	if (!fs.nr_files) {
		pp_fileset_release(&fs);
		return PP_EXIT_OK;
	}
	ret = pp_classify(&fs, &merge, err, sizeof(err));
	if (ret == -EDOM || (!ret && fs.nr_classes > 1)) {
		fprintf(stderr, "opgprof: the selected samples are of several "
			"events: give an event: or count: specification\n");
		pp_fileset_release(&fs);
		return PP_EXIT_USAGE;
	}
	if (ret) {
		pp_fileset_release(&fs);
		return PP_EXIT_NOMEM;
	}
	ret = pp_profile_load(&g->prof, &fs, &merge, exclude_dependent, true, lg);
	if (ret) {
		fprintf(stderr, "opgprof: %s\n", strerror(-ret));
		return PP_EXIT_NOMEM;
	}
	g->loaded = true;
	/* arc files list their images with no samples */
	for (size_t i = 0; i < g->prof.nr_images; i++) {
		if (!g->prof.images[i].total[0])
			continue;
		if (!(*nr_images)++)
			g->image = i;
	}
	return PP_EXIT_OK;
}

static void unload(struct gprof_sel *g)
{
	if (g->loaded)
		pp_profile_release(&g->prof);
	g->loaded = false;
}

/* One image, as OProfile's opgprof finds it: first with dependent images
 * left out ("opgprof /usr/bin/make"), then with them ("opgprof
 * lib-image:/usr/lib/libc.so.6"). Returns an exit status. */
static int select_image(struct gprof_sel *g, const char *session_dir,
			const struct pp_spec *spec, const struct op_logger *lg)
{
	size_t n;
	int status;

	status = load(g, session_dir, spec, true, lg, &n);
	if (status || n == 1)
		return status;
	unload(g);
	status = load(g, session_dir, spec, false, lg, &n);
	if (status)
		return status;
	if (!n) {
		fprintf(stderr, "opgprof: no sample file matches%s%s in %s\n"
			"  run opcontrol --dump, or check the profile specification\n",
			*spec->text ? " " : "", spec->text, session_dir);
		return g->loaded && g->prof.nr_bad_files ? PP_EXIT_BAD_FILE : PP_EXIT_NO_SAMPLES;
	}
	if (n > 1) {
		fprintf(stderr, "opgprof: the profile specification selects %zu "
			"binaries: give exactly one, e.g. image:PATH (and lib-image:PATH "
			"for a library)\n", n);
		return PP_EXIT_USAGE;
	}
	return PP_EXIT_OK;
}

/* The binary's address width, from its ELF class: 4 or 8, 0 when it
 * cannot be read. */
static unsigned int addr_bytes(const char *path)
{
	unsigned int bytes = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf) {
		int cls = gelf_getclass(elf);

		bytes = cls == ELFCLASS64 ? 8 : cls == ELFCLASS32 ? 4 : 0;
		elf_end(elf);
	}
	close(fd);
	return bytes;
}

/* The histogram: the sampled addresses of the image's symbols holding at
 * least threshold percent of its samples (OProfile's --threshold). */
static int histogram(const struct pp_profile *p, const struct pp_symview *v,
		     size_t image, double threshold,
		     struct pp_gmon_sample **out, size_t *nr)
{
	const struct pp_image *im = &p->images[image];
	struct pp_gmon_sample *s;
	uint64_t total = 0;
	size_t n = 0;

	for (size_t i = 0; i < v->nr_entries; i++)
		if (v->entries[i].image == image && v->entries[i].sym)
			total += v->entries[i].sum;
	s = calloc(im->nr_addrs ? im->nr_addrs : 1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < v->nr_entries; i++) {
		const struct pp_entry *e = &v->entries[i];

		if (e->image != image || !e->sym ||
		    (double)e->sum * 100.0 < threshold * (double)total)
			continue;
		for (size_t k = 0; k < e->nr_addrs; k++) {
			size_t j = e->addrs[k];

			s[n].vma = v->vmas[image][j];
			s[n++].count = im->counts[j * v->nc];
		}
	}
	*out = s;
	*nr = n;
	return 0;
}

struct arc_ctx {
	const struct pp_symtab *st;
	struct pp_gmon_arc *v;
	size_t n, alloc;
	int err;
};

static int add_arc(uint64_t key, uint64_t count, void *vctx)
{
	struct arc_ctx *c = vctx;

	if (c->n == c->alloc) {
		struct pp_gmon_arc *v = op_grow(c->v, c->n + 1, &c->alloc, 256,
				sizeof(*v));

		if (!v) {
			c->err = -ENOMEM;
			return 1;
		}
		c->v = v;
	}
	/* an arc file's key: caller offset << 32 | callee offset */
	c->v[c->n].from = pp_symtab_off_to_vma(c->st, key >> 32);
	c->v[c->n].self = pp_symtab_off_to_vma(c->st, key & 0xffffffffu);
	c->v[c->n++].count = count;
	return 0;
}

/* The arcs within the image (caller and callee both in it: gprof knows
 * one binary's addresses). *nr_files gets the number of arc files the
 * session had for the image at all. Returns 0 or -ENOMEM; unreadable
 * files are logged and counted in *nr_bad. */
static int arcs(const struct pp_profile *p, size_t image,
		const struct pp_symtab *st, const struct op_logger *lg,
		struct arc_ctx *c, size_t *nr_files, size_t *nr_bad)
{
	const struct op_img *img = &p->images[image].img;

	c->st = st;
	*nr_files = 0;
	for (size_t i = 0; i < p->fs.nr_files && !c->err; i++) {
		const struct pp_sfile *f = &p->fs.files[i];
		odb_t db;
		int err;

		if (!f->name.cg.path || !pp_img_equal(&f->name.image, img))
			continue;
		++*nr_files;
		if (!pp_img_equal(&f->name.cg, img))
			continue;
		err = pp_sfile_open(f, &db);
		if (err) {
			if (!f->named_bad)	/* else said when loaded */
				op_log(lg, OP_LOG_WARN, "cannot read %s: %s", f->path,
				       pp_sfile_strerror(err));
			++*nr_bad;
			continue;
		}
		odb_for_each(&db, add_arc, c);
		odb_close(&db);
	}
	return c->err;
}

/* Write gmon.out for the selected image. Returns an exit status. */
static int write_gmon(const struct gprof_sel *g, const struct pp_report_opts *o,
		      const char *output, double threshold,
		      const struct op_logger *lg, struct pp_report_status *st)
{
	const struct pp_image *im = &g->prof.images[g->image];
	struct pp_gmon_sample *samples = NULL;
	struct arc_ctx ac = { 0 };
	struct pp_gmon gm = { 0 };
	const struct pp_symtab *tab;
	struct pp_symview *v;
	size_t nr_arc_files = 0, nr_bad = 0;
	char *binary = NULL;
	FILE *out;
	int status = PP_EXIT_OK, ret;

	if (im->img.kind != OP_IMG_FILE || !strcmp(im->img.path, "/proc/kallsyms")) {
		char *name = op_img_display(&im->img, 1);

		fprintf(stderr, "opgprof: %s is not a binary gprof can read "
			"(the kernel, a module or an anonymous region)\n",
			name ? name : "the image");
		free(name);
		return PP_EXIT_NO_BINARY;
	}
	v = pp_symview_build(&g->prof, o, lg, st);
	if (!v)
		return PP_EXIT_NOMEM;
	tab = pp_symview_symtab(v, g->image);
	binary = pp_locate_binary(im->img.path, o->root, o->image_path);
	gm.addr_bytes = binary ? addr_bytes(binary) : 0;
	if (!tab || !tab->is_elf || !gm.addr_bytes) {
		fprintf(stderr, "opgprof: cannot read %s as an ELF binary: gmon.out "
			"would name no function\n", binary ? binary : im->img.path);
		status = PP_EXIT_NO_BINARY;
		goto out;
	}
	if (histogram(&g->prof, v, g->image, threshold, &samples, &gm.nr_samples) ||
	    arcs(&g->prof, g->image, tab, lg, &ac, &nr_arc_files, &nr_bad)) {
		status = PP_EXIT_NOMEM;
		goto out;
	}
	gm.samples = samples;
	gm.arcs = ac.v;
	gm.nr_arcs = ac.n;
	if (!nr_arc_files)
		fprintf(stderr, "opgprof: no call-graph arcs for %s in this session "
			"(record with opcontrol --callgraph):\n  gmon.out has the "
			"histogram only\n", im->img.path);
	out = fopen(output, "w");
	if (!out) {
		fprintf(stderr, "opgprof: cannot write %s: %s\n", output, strerror(errno));
		status = PP_EXIT_OUTPUT;
		goto out;
	}
	ret = pp_gmon_write(out, &gm, lg);
	if (ret == -ENOMEM)
		status = PP_EXIT_NOMEM;
	if ((ret == -EIO) | ferror(out) | fclose(out)) {
		fprintf(stderr, "opgprof: error writing %s\n", output);
		status = PP_EXIT_OUTPUT;
	}
	if (!status && nr_bad)
		status = PP_EXIT_BAD_FILE;
out:
	free(binary);
	free(samples);
	free(ac.v);
	pp_symview_free(v);
	return status;
}

int main(int argc, const char **argv)
{
	struct cmdline cl = { .cmd = { .name = "opgprof", .exit_help = exit_help } };
	struct poptOption options[] = {
		{ "output-filename", 'o', POPT_ARG_STRING, &cl.output, 0,
		  "output file (default gmon.out)", "FILE" },
		{ "threshold", 't', POPT_ARG_DOUBLE, &cl.threshold, 0,
		  "only symbols with at least this percentage of the samples", "PERCENT" },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, cl.cmd.rows, 0, NULL, NULL },
		POPT_TABLEEND
	};
	struct op_logger lg = { op_log_to_stderr, (void *)"opgprof", OP_LOG_WARN };
	struct pp_report_opts given = { 0 }, o;
	struct pp_report_status st = { 0 };
	struct pp_archive arch = { 0 };
	struct pp_spec spec = { 0 };
	struct gprof_sel g = { 0 };
	char *session_dir = NULL, *root_debug = NULL;
	const char *dir;
	int status = PP_EXIT_OK;
	bool usage_help = true;

	status = pp_cmdline_start(&cl.cmd, argc, argv, options);
	if (status || cl.cmd.done)
		goto out;
	if (cl.cmd.opts.verbose)
		lg.max = OP_LOG_DEBUG;
	if (cl.threshold < 0 || cl.threshold > 100) {
		fprintf(stderr, "opgprof: --threshold must be a percentage (0-100)\n");
		status = PP_EXIT_USAGE;
		goto out;
	}
	usage_help = false;
	if (pp_spec_is_diff(cl.cmd.nargs, cl.cmd.args)) {
		fprintf(stderr, "opgprof: differential profiles are not allowed\n");
		status = PP_EXIT_SPEC;
		goto out;
	}
	given.symbols = given.details = true;
	given.demangle = false;		/* gprof names functions itself */
	session_dir = pp_session_dir_default(cl.cmd.opts.session_dir);
	if (!session_dir ||
	    pp_cmdline_paths(&cl.cmd.opts, NULL, &given, &root_debug)) {
		status = PP_EXIT_NOMEM;
		goto out;
	}
	dir = session_dir;
	status = pp_cmdline_source("opgprof", cl.cmd.nargs, cl.cmd.args,
				   &given, &spec, &arch, &o, &dir);
	if (status)
		goto out;
	status = select_image(&g, dir, &spec, &lg);
	if (status)
		goto out;
	status = write_gmon(&g, &o, cl.output ? cl.output : "gmon.out",
			    cl.threshold, &lg, &st);
out:
	if (status == PP_EXIT_USAGE && usage_help)
		fputs(exit_help, stderr);
	unload(&g);
	pp_report_status_release(&st);
	pp_archive_release(&arch);
	pp_spec_release(&spec);
	free(session_dir);
	free(root_debug);
	free(cl.output);
	pp_cmdline_end(&cl.cmd);
	return status;
}
