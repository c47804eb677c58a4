/* Sample-file selection: the files of a session directory that a
 * specification names, each with its parsed name, checked when opened
 * against the session's header. */
#include "config.h"
#include "pp_profile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "odb.h"
#include "op_cgroups.h"
#include "op_config.h"
#include "op_grow.h"
#include "op_stats.h"
#include "pp_spec.h"

char *pp_session_dir_default(const char *dir)
{
	struct stat st;

	if (dir)
		return strdup(dir);
	if (!stat(OP_OPERF_DIR, &st) && S_ISDIR(st.st_mode))
		return realpath(OP_OPERF_DIR, NULL);
	return strdup(OP_DEFAULT_SESSION_DIR);
}

static int fileset_add(struct pp_fileset *fs, struct op_sfname *n,
		       const char *path, size_t rel)
{
	struct pp_sfile *v;

	if (fs->nr_files == fs->alloc_files) {
		v = op_grow(fs->files, fs->nr_files + 1, &fs->alloc_files, 64,
			    sizeof(*v));
		if (!v)
			return -ENOMEM;
		fs->files = v;
	}
	v = &fs->files[fs->nr_files];
	memset(v, 0, sizeof(*v));
	v->path = strdup(path);
	if (!v->path)
		return -ENOMEM;
	v->name = *n;
	v->rel = rel;
	v->sd = fs->sd;
	fs->nr_files++;
	return 0;
}

/* One file of a session's walk. */
struct walk_ctx {
	struct pp_fileset *fs;
	const struct pp_spec *spec;
	bool with_cg;
	const struct op_cgroups *cgroups;	/* container: given */
};

/* container: a file of a process in a selected container (its tgid's
 * cgroup), which is then named in fs->containers. */
static bool container_match(struct walk_ctx *w, const struct op_sfname *n)
{
	const struct op_cgroup *c;
	char *shown, **v;

	if (!w->cgroups)
		return true;
	if (n->tgid == OP_SF_ALL) {
		w->fs->nr_no_tgid++;
		return false;
	}
	c = op_cgroups_find(w->cgroups, n->tgid);
	if (!c || !pp_spec_match_cgroup(w->spec, c->name, c->path))
		return false;
	if (asprintf(&shown, "%s (cgroup %s)", *c->name ? c->name : "/", c->path) < 0)
		return true;
	for (size_t i = 0; i < w->fs->nr_containers; i++)
		if (!strcmp(w->fs->containers[i], shown)) {
			free(shown);
			return true;
		}
	if (w->fs->nr_containers == w->fs->alloc_containers) {
		v = op_grow(w->fs->containers, w->fs->nr_containers + 1,
			    &w->fs->alloc_containers, 8, sizeof(*v));
		if (!v) {
			free(shown);
			return true;
		}
		w->fs->containers = v;
	}
	w->fs->containers[w->fs->nr_containers++] = shown;
	return true;
}

static int walk_file(const char *rel, const char *full, void *arg)
{
	struct walk_ctx *w = arg;
	struct op_sfname n;
	int ret;

	/* as OProfile's opreport: a sample file is filed under a binary
	 * ({root}) or a module ({kern}); it reads nothing else, so an
	 * application part like {anon:...} is left out here too */
	if (strncmp(rel, "{root}/", 7) && strncmp(rel, "{kern}/", 7)) {
		w->fs->nr_foreign++;
		return 0;
	}
	if (op_sfname_parse(rel, &n)) {
		if (!w->fs->nr_unnamed++)
			w->fs->first_unnamed = strdup(full);
		return 0;
	}
	/* call-graph arcs are keyed by pairs of offsets, not offsets: the
	 * flat views never read them, as OProfile's opreport reads them
	 * only with --callgraph */
	if ((n.cg.path && !w->with_cg) || !pp_spec_match_file(w->spec, &n) ||
	    !container_match(w, &n)) {
		op_sfname_release(&n);
		return 0;
	}
	ret = fileset_add(w->fs, &n, full, strlen(full) - strlen(rel));
	if (ret)
		op_sfname_release(&n);
	return ret;
}

static int sfile_path_cmp(const void *a, const void *b)
{
	const struct pp_sfile *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/* The integrity record of session dir for its files from first on. */
static void attach_sums(struct pp_fileset *fs, size_t first, const char *dir,
			const struct op_logger *lg)
{
	struct op_sums sums;
	size_t bad_line = 0;
	int ret = op_sums_read(fs->sd, dir, &sums, &bad_line);

	if (ret == -ENOENT)
		return;		/* a running session's, or OProfile's */
	if (ret) {
		if (ret == -EINVAL) {
			op_log(lg, OP_LOG_WARN, "%s/%s: line %zu is not \"SUM NODES "
			       "LEN FILE\": the sample files are not checked",
			       dir, OP_SUMS_FILE, bad_line);
		} else {
			char path[PATH_MAX * 2 + 16], why[PATH_MAX * 2 + 64];

			snprintf(path, sizeof(path), "%s/%s", dir, OP_SUMS_FILE);
			op_log(lg, OP_LOG_WARN, "cannot read %s: %s: the sample "
			       "files are not checked", path,
			       op_sd_explain(fs->sd, path, ret, why, sizeof(why)));
		}
		return;
	}
	for (size_t i = first; i < fs->nr_files; i++) {
		struct pp_sfile *f = &fs->files[i];
		const struct op_sum *e = op_sums_find(&sums, f->path + f->rel);

		if (e) {
			f->sum = *e;
			f->sum.rel = NULL;
			f->has_sum = true;
		}
	}
	op_sums_release(&sums);
}

int pp_sfile_open(const struct pp_sfile *f, odb_t *db)
{
	/* the verdict is a cache, not part of what the file is: a report
	 * opens an arc file up to three times, and the sum reads it whole */
	struct pp_sfile *m = (struct pp_sfile *)f;
	int err;

	if (f->verdict < 0)
		return f->verdict;
	err = odb_open(db, f->sd, f->path, ODB_RDONLY);
	if (!err && f->has_sum && f->verdict != 1 && op_sum_check(&f->sum, db)) {
		odb_close(db);
		err = -EBADMSG;
	}
	m->verdict = err ? err : 1;
	return err;
}

bool pp_sfile_first_bad(const struct pp_sfile *f)
{
	struct pp_sfile *m = (struct pp_sfile *)f;

	if (f->named_bad)
		return false;
	m->named_bad = true;
	return true;
}

const char *pp_sfile_strerror(int err)
{
	/* the walk enters no link, so the link is the file itself */
	if (err == -ELOOP)
		return "it is a symbolic link: refused, not followed";
	if (err == -EBADMSG)
		return "it does not match the session's integrity record "
		       "(" OP_SUMS_FILE "): it changed after the daemon wrote it";
	return odb_strerror(err);
}

/* A reader's session directory (no check of who owns it); an archive's
 * (archive:DIR) resolved beneath DIR, so that a link on the way to its
 * var/lib/oprofile leads nowhere out of the archive. */
static int open_session(struct op_sessdir *sd, const char *session_dir,
			const struct pp_spec *spec, const struct op_logger *lg)
{
	char why[PATH_MAX + 256];
	struct op_sessdir root;
	int ret;

	if (!spec->archive ||
	    op_sessdir_open(&root, spec->archive, OP_SD_READ, why, sizeof(why)))
		return op_sessdir_open(sd, session_dir, OP_SD_READ, why, sizeof(why));
	if (op_sd_rel(&root, session_dir))
		ret = op_sessdir_sub(&root, session_dir, sd);
	else
		ret = op_sessdir_open(sd, session_dir, OP_SD_READ, why, sizeof(why));
	if (ret == -ELOOP)
		op_log(lg, OP_LOG_ERR, "%s", op_sd_explain(&root, session_dir, ret, why,
							  sizeof(why)));
	op_sessdir_close(&root);
	return ret;
}

static int fileset_select(struct pp_fileset *fs, const char *session_dir,
			  const struct pp_spec *spec, bool with_cg,
			  const struct op_logger *lg)
{
	char samples[PATH_MAX], why[PATH_MAX + 256];
	DIR *d;
	struct dirent *de;
	struct op_cgroups cgroups = { 0 };
	size_t first;
	int ret = 0;

	memset(fs, 0, sizeof(*fs));
	snprintf(samples, sizeof(samples), "%s/samples", session_dir);
	/* a reader: no check of who owns the session (someone else's, a
	 * copied archive, OProfile's own are all read), but nothing in it
	 * is followed out of it */
	fs->sd = malloc(sizeof(*fs->sd));
	if (!fs->sd)
		return -ENOMEM;
	ret = open_session(fs->sd, session_dir, spec, lg);
	if (ret) {
		free(fs->sd);
		fs->sd = NULL;
		return ret == -ELOOP ? ret : -ENOENT;
	}
	d = op_sd_opendir(fs->sd, samples);
	if (!d) {
		ret = -errno;
		if (ret == -ELOOP)
			op_log(lg, OP_LOG_ERR, "%s", op_sd_explain(fs->sd, samples, ret,
								  why, sizeof(why)));
		pp_fileset_release(fs);
		return ret == -ELOOP ? ret : -ENOENT;
	}
	while ((de = readdir(d))) {
		char dir[PATH_MAX * 2];
		struct stat st;
		char **v;

		if (de->d_name[0] == '.')
			continue;
		if (!pp_spec_match_session(spec, de->d_name))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", samples, de->d_name);
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISLNK(st.st_mode)) {
			op_log(lg, OP_LOG_WARN, "%s", op_sd_explain(fs->sd, dir, -ELOOP,
								   why, sizeof(why)));
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		if (fs->nr_sessions == fs->alloc_sessions) {
			v = op_grow(fs->sessions, fs->nr_sessions + 1,
				    &fs->alloc_sessions, 8, sizeof(*v));
			if (!v) {
				ret = -ENOMEM;
				break;
			}
			fs->sessions = v;
		}
		fs->sessions[fs->nr_sessions] = strdup(dir);
		if (!fs->sessions[fs->nr_sessions]) {
			ret = -ENOMEM;
			break;
		}
		fs->nr_sessions++;
		first = fs->nr_files;
		if (spec->container.given || fs->nr_sessions == 1) {
			ret = op_cgroups_read(fs->sd, dir, &cgroups);
			if (ret && spec->container.given)
				break;
			if (ret) {
				/* only names are lost: the report goes on */
				char p[sizeof(dir) + 16];

				snprintf(p, sizeof(p), "%s/" OP_STATS_DIR "/" OP_CGROUPS_FILE,
					 dir);
				op_log(lg, OP_LOG_WARN, "%s; containers are not named",
				       op_sd_explain(fs->sd, p, ret, why, sizeof(why)));
				ret = 0;
			}
		}
		ret = op_sfname_walk(fs->sd, dir, walk_file,
				     &(struct walk_ctx){ .fs = fs, .spec = spec,
							 .with_cg = with_cg,
							 .cgroups = spec->container.given ?
								    &cgroups : NULL });
		/* the first session's names the report's containers */
		if (fs->nr_sessions == 1)
			fs->cgroups = cgroups;
		else
			op_cgroups_release(&cgroups);
		memset(&cgroups, 0, sizeof(cgroups));
		if (ret)
			break;
		attach_sums(fs, first, dir, lg);
	}
	closedir(d);
	/* OProfile's opreport gathers the names into a std::set before it
	 * files them: it meets them sorted, whatever readdir's order */
	if (!ret && fs->nr_files)
		qsort(fs->files, fs->nr_files, sizeof(*fs->files), sfile_path_cmp);
	if (!ret && !fs->nr_sessions)
		ret = -ENOENT;
	if (!ret && fs->nr_unnamed)
		op_log(lg, OP_LOG_WARN,
		       "%zu file(s) under the session are not sample files, e.g. %s",
		       fs->nr_unnamed, fs->first_unnamed ? fs->first_unnamed : "?");
	if (!ret && !fs->nr_files && fs->nr_no_tgid)
		op_log(lg, OP_LOG_WARN, "container: selects processes, and %zu sample "
		       "file(s) name none: the session was not separated by process "
		       "(opcontrol --separate=container or --separate=thread)", fs->nr_no_tgid);
	if (!ret && fs->nr_foreign)
		op_log(lg, OP_LOG_DEBUG, "%zu sample file(s) not under {root} or "
		       "{kern} left out, as OProfile's opreport leaves them",
		       fs->nr_foreign);
	if (ret)
		pp_fileset_release(fs);
	return ret;
}

int pp_fileset_select(struct pp_fileset *fs, const char *session_dir,
		      const struct pp_spec *spec, const struct op_logger *lg)
{
	return fileset_select(fs, session_dir, spec, false, lg);
}

int pp_fileset_select_cg(struct pp_fileset *fs, const char *session_dir,
			 const struct pp_spec *spec, const struct op_logger *lg)
{
	return fileset_select(fs, session_dir, spec, true, lg);
}

void pp_fileset_release(struct pp_fileset *fs)
{
	for (size_t i = 0; i < fs->nr_files; i++) {
		op_sfname_release(&fs->files[i].name);
		free(fs->files[i].path);
	}
	free(fs->files);
	for (size_t i = 0; i < fs->nr_sessions; i++)
		free(fs->sessions[i]);
	free(fs->sessions);
	free(fs->first_unnamed);
	for (size_t i = 0; i < fs->nr_containers; i++)
		free(fs->containers[i]);
	free(fs->containers);
	op_cgroups_release(&fs->cgroups);
	free(fs->classes);
	if (fs->sd) {
		op_sessdir_close(fs->sd);
		free(fs->sd);
	}
	memset(fs, 0, sizeof(*fs));
}
