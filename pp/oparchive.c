/* oparchive: a session with everything needed to read it elsewhere. The
 * selected sample files, the session's stats and call-chain store, each
 * binary opreport would read for them with its separate debug file, JIT
 * maps and the kernel's symbols are copied into one directory laid out as
 * OProfile's oparchive lays it out (pp_archive.h), which `opreport
 * archive:DIR` (ours and OProfile's) and `opexport archive:DIR` read. This
 * file is the command line and the order of the steps; the copying is
 * pp_archive_write.c's. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_chains.h"
#include "op_config.h"
#include "op_grow.h"
#include "op_log.h"
#include "op_names.h"
#include "op_sessdir.h"
#include "op_stats.h"
#include "pp_cmdline.h"
#include "pp_archive.h"
#include "pp_archive_write.h"
#include "pp_profile.h"
#include "pp_spec.h"
#include "pp_symbols.h"

static const char exit_help[] =
	"\nProfile specification: as opreport's: [session:NAME,...] "
	"[session-exclude:...]\n  [image:PATH,...] [image-exclude:...] "
	"[lib-image:...] [event:NAME,...] [count:N,...]\n  [unit-mask:N,...] "
	"[cpu:N|A-B,...] [tgid:...] [tid:...] [archive:DIR]\n"
	"\nThe archive is read back with: opreport archive:DIR, opexport "
	"archive:DIR\n"
	"\nExit status: 0 ok, 1 bad option, 2 bad profile specification, 3 no "
	"session,\n  4 no matching sample files, 7 cannot write the archive (or "
	"its directory\n  exists and is not empty), 8 out of memory\n";

struct cmdline {
	struct pp_cmdline cmd;
	char *output;
	int exclude_dependent, list_files;
};

/* The archive directory must be new or empty: an archive written over
 * another would mix two sessions' samples and binaries. (OProfile's
 * oparchive writes into it whatever it holds.) A first look, before the
 * session is read: nothing is created yet. Returns an exit status. */
static int check_output_dir(const char *dir)
{
	char *real = realpath(dir, NULL);
	struct stat sb;

	if (real && !strcmp(real, "/")) {
		free(real);
		fprintf(stderr, "oparchive: invalid --output-directory: /\n");
		return PP_EXIT_USAGE;
	}
	free(real);
	if (lstat(dir, &sb)) {
		if (errno == ENOENT)
			return PP_EXIT_OK;
		fprintf(stderr, "oparchive: cannot use %s: %s\n", dir, strerror(errno));
		return PP_EXIT_OUTPUT;
	}
	/* a link: refused, by name, when it is opened */
	if (!S_ISDIR(sb.st_mode) && !S_ISLNK(sb.st_mode)) {
		fprintf(stderr, "oparchive: %s exists and is not a directory\n", dir);
		return PP_EXIT_OUTPUT;
	}
	return PP_EXIT_OK;
}

/* Open the archive directory as a writer's (made 0755 when new), and
 * check that it is empty, through the descriptor the archive is then
 * written beneath. A link in it is named. Returns an exit status. */
static int open_output_dir(struct op_sessdir *out, const char *dir)
{
	char err[PATH_MAX + 256], why[PATH_MAX + 128];
	struct dirent *de;
	bool empty = true;
	DIR *d;

	if (op_sessdir_open(out, dir, OP_SD_WRITE | OP_SD_CREATE, err, sizeof(err))) {
		fprintf(stderr, "oparchive: archive directory refused: %s\n", err);
		return PP_EXIT_OUTPUT;
	}
	d = op_sd_opendir(out, ".");
	if (!d) {
		fprintf(stderr, "oparchive: cannot read %s: %s\n", dir, strerror(errno));
		return PP_EXIT_OUTPUT;
	}
	while ((de = readdir(d))) {
		struct stat sb;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		empty = false;
		if (!fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) &&
		    S_ISLNK(sb.st_mode))
			fprintf(stderr, "oparchive: %s\n",
				op_sd_explain(out, de->d_name, -ELOOP, why, sizeof(why)));
	}
	closedir(d);
	if (!empty) {
		fprintf(stderr, "oparchive: %s exists and is not empty: give a new "
			"or empty directory\n  (an archive written into another "
			"would mix two sessions)\n", dir);
		return PP_EXIT_OUTPUT;
	}
	return PP_EXIT_OK;
}

/* With --exclude-dependent, only the files of an application's own
 * image (OProfile's rule: libraries, kernel and modules are left out). */
static bool wanted(const struct pp_sfile *f, bool exclude_dependent)
{
	return !exclude_dependent || pp_img_equal(&f->name.image, &f->name.dep);
}

/* The images a set of files needs, each once. */
struct img_set {
	const struct op_img **v;
	size_t n, cap;
};

static int img_set_add(struct img_set *s, const struct op_img *img)
{
	const struct op_img **v;

	if (!img->path)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (pp_img_equal(s->v[i], img))
			return 0;
	if (s->n == s->cap) {
		v = op_grow(s->v, s->n + 1, &s->cap, 64, sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
	}
	s->v[s->n++] = img;
	return 0;
}

static bool is_kallsyms(const struct op_img *img)
{
	return img->kind == OP_IMG_KERN ||
	       (img->kind == OP_IMG_FILE && !strcmp(img->path, "/proc/kallsyms"));
}

/* The session name of a file: the directory under samples/ it is in. */
static void session_of(const struct pp_sfile *f, char *buf, size_t len)
{
	size_t end = f->rel;
	size_t start;

	while (end && f->path[end - 1] == '/')
		end--;
	start = end;
	while (start && f->path[start - 1] != '/')
		start--;
	snprintf(buf, len, "%.*s", (int)(end - start), f->path + start);
}

/* Copy one image's file: a binary, or an anonymous region's JIT map.
 * Returns 0, -ENOENT when it cannot be read (warned), -EIO or -ENOMEM. */
static int put_image(struct pp_archive_writer *w, const struct op_img *img,
		     const struct pp_report_opts *o)
{
	char *src, dest[PATH_MAX];
	int ret;

	if (img->kind == OP_IMG_ANON) {
		snprintf(dest, sizeof(dest), "/tmp/perf-%d.map", (int)img->anon_tgid);
		if (asprintf(&src, "%s%s", o->root ? o->root : "", dest) < 0)
			return -ENOMEM;
		ret = pp_archive_put(w, NULL, src, dest);
		free(src);
		/* most anonymous regions have no map: nothing to say */
		return ret == -EIO ? -EIO : 0;
	}
	src = pp_locate_binary(img->path, o->root, o->image_path);
	if (!src)
		return -ENOMEM;
	ret = pp_archive_put_binary(w, src, img->path, o->debug_dirs);
	if (ret && ret != -EIO)
		op_log(w->lg, OP_LOG_WARN, "%s could not be read (%s): its samples "
		       "are archived without symbols", src, strerror(-ret));
	free(src);
	return ret;
}

/* Everything but the sample files: each session's stats and chain store,
 * the daemon's log. */
static int put_sessions(struct pp_archive_writer *w, const struct pp_fileset *fs,
			const char *session_dir)
{
	char src[PATH_MAX], dest[PATH_MAX];
	int ret = 0;

	for (size_t i = 0; !ret && i < fs->nr_sessions; i++) {
		const char *name = strrchr(fs->sessions[i], '/');

		name = name ? name + 1 : fs->sessions[i];
		snprintf(src, sizeof(src), "%s/" OP_STATS_DIR, fs->sessions[i]);
		snprintf(dest, sizeof(dest), PP_ARCHIVE_SESSION_DIR "/samples/%s/" OP_STATS_DIR,
			 name);
		ret = pp_archive_put_tree(w, fs->sd, src, dest);
		snprintf(src, sizeof(src), "%s/" OP_CHAINS_DIR, fs->sessions[i]);
		snprintf(dest, sizeof(dest), PP_ARCHIVE_SESSION_DIR "/samples/%s/"
			 OP_CHAINS_DIR, name);
		if (!ret)
			ret = pp_archive_put_tree(w, fs->sd, src, dest);
	}
	for (const char *const *log = (const char *const[]){ "oprofiled.log",
		"operf.log", NULL }; !ret && *log; log++) {
		snprintf(src, sizeof(src), "%s/samples/%s", session_dir, *log);
		snprintf(dest, sizeof(dest), PP_ARCHIVE_SESSION_DIR "/samples/%s", *log);
		ret = pp_archive_put(w, fs->sd, src, dest) == -EIO ? -EIO : 0;
	}
	return ret;
}

/* Copy or list the archive. Returns an exit status. */
static int archive(struct pp_archive_writer *w, const struct pp_fileset *fs,
		   const char *session_dir, const struct pp_report_opts *o,
		   bool exclude_dependent)
{
	struct img_set imgs = { 0 };
	char session[NAME_MAX + 1], dest[PATH_MAX], *saved = NULL;
	struct stat sb;
	bool kernel = false;
	int ret = 0;

	for (size_t i = 0; !ret && i < fs->nr_files; i++) {
		const struct pp_sfile *f = &fs->files[i];

		if (!wanted(f, exclude_dependent))
			continue;
		session_of(f, session, sizeof(session));
		snprintf(dest, sizeof(dest), PP_ARCHIVE_SESSION_DIR "/samples/%s/%s",
			 session, f->path + f->rel);
		ret = pp_archive_put(w, f->sd, f->path, dest);
		if (ret && ret != -EIO) {
			op_log(w->lg, OP_LOG_WARN, "cannot read %s: %s", f->path,
			       pp_sfile_strerror(ret));
			ret = 0;
		}
		if (!ret && (img_set_add(&imgs, &f->name.dep) ||
			     img_set_add(&imgs, &f->name.image) ||
			     img_set_add(&imgs, &f->name.cg)))
			ret = -ENOMEM;
	}
	if (!ret)
		ret = put_sessions(w, fs, session_dir);
	for (size_t i = 0; !ret && i < imgs.n; i++) {
		if (is_kallsyms(imgs.v[i]))
			kernel = true;
		else if (put_image(w, imgs.v[i], o) == -EIO)
			ret = -EIO;
		else if (w->list && ferror(w->list))
			ret = -EIO;
	}
	for (size_t i = 0; !ret && kernel && !saved && i < fs->nr_sessions; i++) {
		if (asprintf(&saved, "%s/stats/kallsyms", fs->sessions[i]) < 0) {
			saved = NULL;
			ret = -ENOMEM;
		} else if (op_sd_stat(fs->sd, saved, &sb) || !S_ISREG(sb.st_mode)) {
			free(saved);
			saved = NULL;
		}
	}
	if (!ret && kernel) {
		ret = pp_archive_put_kallsyms(w, fs->sd, saved, o->kallsyms ? o->kallsyms :
					      "/proc/kallsyms");
		if (ret && ret != -EIO)
			op_log(w->lg, OP_LOG_WARN, "no kernel symbols to archive (%s): "
			       "kernel samples are archived without symbols",
			       strerror(-ret));
		ret = ret == -EIO ? -EIO : 0;
	}
	free(saved);
	free(imgs.v);
	if (ret == -ENOMEM) {
		fprintf(stderr, "oparchive: out of memory\n");
		return PP_EXIT_NOMEM;
	}
	return ret ? PP_EXIT_OUTPUT : PP_EXIT_OK;
}

/* Select the files to archive into fs. Returns an exit status. */
static int select_files(struct pp_fileset *fs, const char *session_dir,
			const struct pp_spec *spec, bool exclude_dependent,
			const struct op_logger *lg)
{
	size_t n = 0;
	int ret;

	/* the {cg} files too: the archive's call graph is the session's */
	ret = pp_select_files("oparchive", session_dir, spec, true, NULL, false,
			      fs, lg);
	if (ret)
		return ret;
	for (size_t i = 0; i < fs->nr_files; i++)
		n += wanted(&fs->files[i], exclude_dependent);
	if (!n) {
		fprintf(stderr, "oparchive: no sample file matches%s%s in %s\n"
			"  run opcontrol --dump, or check the profile specification\n",
			spec->text && *spec->text ? " " : "",
			spec->text ? spec->text : "", session_dir);
		pp_fileset_release(fs);
		return PP_EXIT_NO_SAMPLES;
	}
	return PP_EXIT_OK;
}

int main(int argc, const char **argv)
{
	struct cmdline cl = { .cmd = {
		.name = "oparchive", .exit_help = exit_help,
		.usage = "-o DIR [options] [profile specification]",
		.verbose_help = "name each file copied",
	} };
	struct poptOption options[] = {
		{ "output-directory", 'o', POPT_ARG_STRING, &cl.output, 0,
		  "the archive directory (new or empty)", "DIR" },
		{ "exclude-dependent", 'x', POPT_ARG_NONE, &cl.exclude_dependent, 0,
		  "leave out libraries, kernel and modules of each application", NULL },
		{ "list-files", 'l', POPT_ARG_NONE, &cl.list_files, 0,
		  "only list the files the archive needs", NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, cl.cmd.rows, 0, NULL, NULL },
		POPT_TABLEEND
	};
	struct op_logger lg = { op_log_to_stderr, (void *)"oparchive", OP_LOG_WARN };
	struct pp_archive_writer w = { .lg = &lg };
	struct pp_report_opts given = { 0 }, o;
	struct pp_archive arch = { 0 };
	struct pp_spec spec = { 0 };
	struct pp_fileset fs = { 0 };
	struct op_sessdir out = { .fd = -1 };
	char *session_dir = NULL, *root_debug = NULL;
	const char *dir;
	int status = PP_EXIT_OK;
	bool usage_help = true, have_fs = false;

	status = pp_cmdline_start(&cl.cmd, argc, argv, options);
	if (status || cl.cmd.done)
		goto out;
	if (cl.cmd.opts.verbose)
		lg.max = OP_LOG_INFO;
	usage_help = false;
	if (!cl.list_files && !cl.output) {
		fprintf(stderr, "oparchive: requires --output-directory (-o DIR)\n");
		status = PP_EXIT_USAGE;
		goto out;
	}
	if (!cl.list_files) {
		status = check_output_dir(cl.output);
		if (status)
			goto out;
	}
	if (pp_spec_is_diff(cl.cmd.nargs, cl.cmd.args)) {
		fprintf(stderr, "oparchive: differential profiles are not allowed\n");
		status = PP_EXIT_SPEC;
		goto out;
	}
	session_dir = pp_session_dir_default(cl.cmd.opts.session_dir);
	if (!session_dir ||
	    pp_cmdline_paths(&cl.cmd.opts, NULL, &given, &root_debug)) {
		status = PP_EXIT_NOMEM;
		goto out;
	}
	dir = session_dir;
	status = pp_cmdline_source("oparchive", cl.cmd.nargs, cl.cmd.args,
				   &given, &spec, &arch, &o, &dir);
	if (status)
		goto out;
	if (!spec.archive && !cl.cmd.opts.session_dir)
		fprintf(stderr, "Using %s/samples/ for session-dir\n", dir);
	status = select_files(&fs, dir, &spec, cl.exclude_dependent, &lg);
	if (status)
		goto out;
	have_fs = true;
	if (cl.list_files) {
		w.list = stdout;
	} else {
		status = open_output_dir(&out, cl.output);
		if (status)
			goto out;
		w.dir = cl.output;
		w.out = &out;
	}
	if (!cl.list_files && strcmp(dir, OP_DEFAULT_SESSION_DIR))
		fprintf(stderr, "oparchive: the session in %s is archived at the "
			"default place, %s%s\n", dir, cl.output,
			PP_ARCHIVE_SESSION_DIR);
	status = archive(&w, &fs, dir, &o, cl.exclude_dependent);
	if (cl.list_files && (ferror(stdout) | fflush(stdout))) {
		fprintf(stderr, "oparchive: error writing the list\n");
		status = PP_EXIT_OUTPUT;
	}
out:
	if (status == PP_EXIT_USAGE && usage_help)
		fputs(exit_help, stderr);
	if (have_fs)
		pp_fileset_release(&fs);
	pp_archive_writer_release(&w);
	op_sessdir_close(&out);
	pp_archive_release(&arch);
	pp_spec_release(&spec);
	free(session_dir);
	free(root_debug);
	free(cl.output);
	pp_cmdline_end(&cl.cmd);
	return status;
}
