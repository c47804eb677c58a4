/* opexport's reading side: a session's stacks into the model
 * (pp_export.h), from the call-chain store when the session has one and
 * from the flat sample files otherwise, then every distinct location named
 * through opreport's own symbol view, so both commands name an address
 * alike. The chain store is outside data: a chain or a count that points
 * at nothing is counted and named, never followed. */
#include "config.h"
#include "pp_export.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "odb.h"
#include "op_chains.h"
#include "op_grow.h"
#include "pp_spec.h"
#include "pp_symbols.h"

/* ---- flat sample files ---- */

static int merged(int v, bool m)
{
	return m ? OP_SF_ALL : v;
}

static int load_flat(struct pp_export *x, struct pp_fileset *fs,
		     const struct pp_merge *merge, const struct op_logger *lg)
{
	struct pp_profile p;
	uint32_t *keys = NULL;
	size_t nc;
	int ret;

	ret = pp_classify_multi(fs, merge);
	if (ret)
		return ret;
	ret = pp_profile_load(&p, fs, merge, false, true, lg);
	if (ret)
		goto out;
	nc = p.fs.nr_classes ? p.fs.nr_classes : 1;
	keys = malloc(nc * sizeof(*keys));
	if (!keys) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t c = 0; c < nc; c++)
		keys[c] = PP_XNONE;
	/* a class's key: its first file's fields, less what was merged */
	for (size_t i = 0; i < p.fs.nr_files; i++) {
		const struct pp_sfile *f = &p.fs.files[i];
		uint32_t ev;

		if (keys[f->cls] != PP_XNONE)
			continue;
		ev = pp_export_event(x, f->name.event, f->name.count,
				     merge->unitmask ? 0 : f->name.unit_mask);
		if (ev == PP_XNONE)
			goto err_nomem;
		keys[f->cls] = pp_export_key(x, ev, merged(f->name.cpu, merge->cpu),
					     merged(f->name.tgid, merge->tgid),
					     merged(f->name.tid, merge->tid));
		if (keys[f->cls] == PP_XNONE)
			goto err_nomem;
	}
	for (size_t i = 0; i < p.nr_images; i++) {
		const struct pp_image *im = &p.images[i];
		uint32_t img = pp_export_image(x, &im->img);
		uint32_t app = pp_export_image(x, &im->app);

		if (img == PP_XNONE || app == PP_XNONE)
			goto err_nomem;
		if (!x->images[img].mtime)
			x->images[img].mtime = im->mtime;
		for (size_t j = 0; j < im->nr_addrs; j++) {
			uint32_t loc = PP_XNONE;

			for (size_t c = 0; c < nc; c++) {
				uint64_t n = im->counts[j * nc + c];

				if (!n || keys[c] == PP_XNONE)
					continue;
				if (loc == PP_XNONE)
					loc = pp_export_loc(x, img, im->offs[j]);
				if (loc == PP_XNONE ||
				    pp_export_add_stack(x, keys[c], app, &loc, 1, n))
					goto err_nomem;
			}
		}
	}
	x->cpu_type = p.hdr.cpu_type;
	x->nr_bad_files += p.nr_bad_files;
	goto out;

err_nomem:
	ret = -ENOMEM;
out:
	free(keys);
	/* the sessions stay with the model; the rest goes */
	x->sessions = p.fs.sessions;
	x->nr_sessions = p.fs.nr_sessions;
	p.fs.sessions = NULL;
	p.fs.nr_sessions = 0;
	pp_profile_release(&p);
	return ret;
}

/* ---- the call-chain store ---- */

struct chains {
	const struct op_sessdir *sd;	/* the session's, dir read through it */
	const char *dir;
	const struct op_chain_images *ims;
	uint32_t *img_map;		/* store image ID - 1 -> model image */
	struct op_chain_tree tree;
	bool *bad;			/* node ID - 1 -> names an unlisted image */
	struct op_chain_frame *frames;	/* a chain's, tree.max_depth of them */
	size_t nr_bad;			/* nodes naming unlisted images */
	struct op_sums sums;		/* the session's integrity record */
};

/* Mark the nodes that name an image the list does not hold, and those
 * under them: their counts are refused. */
static int mark_bad(struct chains *c)
{
	const struct op_chain_tree *t = &c->tree;

	c->bad = calloc(t->nr ? t->nr : 1, sizeof(*c->bad));
	c->frames = malloc((t->max_depth ? t->max_depth : 1) * sizeof(*c->frames));
	if (!c->bad || !c->frames)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr; i++) {
		const struct op_chain_node *n = &t->node[i];

		if (n->parent ? !n->image || n->image > c->ims->nr ||
				c->bad[n->parent - 1] :
				n->image > c->ims->nr) {
			c->bad[i] = true;
			c->nr_bad++;
		}
	}
	return 0;
}

/* "EVENT.COUNT.UNITMASK.TGID.TID.CPU" into n's fields (event malloc'd).
 * 0 or -EINVAL. */
static int parse_counts_name(const char *name, struct op_sfname *n)
{
	const char *dots[5], *p = name + strlen(name);
	int *seps[3] = { &n->tgid, &n->tid, &n->cpu };
	char *end;

	for (int i = 4; i >= 0; i--) {
		while (p > name && p[-1] != '.')
			p--;
		if (p == name)
			return -EINVAL;
		dots[i] = --p;
	}
	if (dots[0] == name)
		return -EINVAL;
	n->count = strtoul(dots[0] + 1, &end, 10);
	if (end != dots[1])
		return -EINVAL;
	n->unit_mask = (unsigned int)strtoul(dots[1] + 1, &end, 10);
	if (end != dots[2])
		return -EINVAL;
	for (int i = 0; i < 3; i++) {
		const char *s = dots[i + 2] + 1;
		const char *e = i < 2 ? dots[i + 3] : s + strlen(s);

		if ((size_t)(e - s) == 3 && !strncmp(s, "all", 3)) {
			*seps[i] = OP_SF_ALL;
			continue;
		}
		*seps[i] = (int)strtol(s, &end, 10);
		if (end != e || e == s)
			return -EINVAL;
	}
	n->event = strndup(name, (size_t)(dots[0] - name));
	return n->event ? 0 : -ENOMEM;
}

struct count_ctx {
	struct pp_export *x;
	struct chains *c;
	const struct pp_spec *spec;
	struct op_sfname name;		/* image and dep set per chain */
	uint32_t key;
	uint32_t *locs;
	size_t alloc_locs;
	size_t nr_unknown;		/* counts of chains not listed */
	int err;
};

static int count_one(uint64_t id, uint64_t count, void *vctx)
{
	struct count_ctx *k = vctx;
	struct chains *c = k->c;
	const struct op_chain_frame *f = c->frames;
	uint32_t node = op_chain_key_node(&c->tree, id), nr, app;

	nr = node && !c->bad[node - 1] ?
	     op_chain_frames(&c->tree, node, c->frames, &app) : 0;
	if (!nr) {
		k->nr_unknown++;
		return 0;
	}
	/* as a sample file would be named: the image the sample fell in,
	 * under its application */
	k->name.image = c->ims->img[f[0].image - 1];
	k->name.dep = app ? c->ims->img[app - 1] : k->name.image;
	if (!pp_spec_match_file(k->spec, &k->name))
		return 0;
	if (nr > k->alloc_locs) {
		uint32_t *v = op_grow(k->locs, nr, &k->alloc_locs, 16, sizeof(*v));

		if (!v)
			goto err_nomem;
		k->locs = v;
	}
	for (uint32_t i = 0; i < nr; i++) {
		k->locs[i] = pp_export_loc(k->x, c->img_map[f[i].image - 1],
					   f[i].offset);
		if (k->locs[i] == PP_XNONE)
			goto err_nomem;
	}
	if (pp_export_add_stack(k->x, k->key, app ? c->img_map[app - 1] : PP_XNONE,
				k->locs, nr, count))
		goto err_nomem;
	return 0;

err_nomem:
	k->err = -ENOMEM;
	return 1;
}

static int load_counts_file(struct pp_export *x, struct chains *c,
			    const char *name, const struct pp_spec *spec,
			    const struct pp_merge *merge,
			    const struct op_logger *lg)
{
	struct count_ctx k = { .x = x, .c = c, .spec = spec };
	char *path;
	odb_t db;
	uint32_t ev;
	int ret;

	if (asprintf(&path, "%s/%s", c->dir, name) < 0)
		return -ENOMEM;
	ret = parse_counts_name(name, &k.name);
	if (ret == -EINVAL) {
		op_log(lg, OP_LOG_WARN, "%s is not a chain counts file: skipped", path);
		free(path);
		return 0;
	}
	if (ret)
		goto out;
	ret = odb_open(&db, c->sd, path, ODB_RDONLY);
	if (!ret) {
		char rel[PATH_MAX];
		const struct op_sum *e;

		snprintf(rel, sizeof(rel), OP_CHAINS_DIR "/%s", name);
		e = op_sums_find(&c->sums, rel);
		if (e && op_sum_check(e, &db)) {
			odb_close(&db);
			ret = -EBADMSG;
		}
	}
	if (ret) {
		op_log(lg, OP_LOG_ERR, "cannot read chain counts %s: %s", path,
		       pp_sfile_strerror(ret));
		x->nr_bad_files++;
		ret = 0;
		goto out;
	}
	if (!x->cpu_type)
		x->cpu_type = db.header->cpu_type;
	ev = pp_export_event(x, k.name.event, k.name.count,
			     merge->unitmask ? 0 : k.name.unit_mask);
	k.key = ev == PP_XNONE ? PP_XNONE :
		pp_export_key(x, ev, merged(k.name.cpu, merge->cpu),
			      merged(k.name.tgid, merge->tgid),
			      merged(k.name.tid, merge->tid));
	if (k.key == PP_XNONE) {
		odb_close(&db);
		ret = -ENOMEM;
		goto out;
	}
	odb_for_each(&db, count_one, &k);
	odb_close(&db);
	ret = k.err;
	if (!ret && k.nr_unknown) {
		op_log(lg, OP_LOG_ERR, "corrupt chain store: %s counts %zu chain(s) "
		       "that %s/" OP_CHAINS_LIST " does not hold (or that name unlisted images)",
		       path, k.nr_unknown, c->dir);
		x->nr_bad_files++;
	}
out:
	free(k.locs);
	free(k.name.event);
	free(path);
	return ret;
}

static int load_store(struct pp_export *x, const struct op_sessdir *sd,
		      const char *session,
		      const struct pp_spec *spec, const struct pp_merge *merge,
		      const struct op_logger *lg)
{
	struct op_chain_images ims;
	struct chains c = { .sd = sd, .ims = &ims };
	char *dir;
	DIR *d = NULL;
	struct dirent *de;
	struct stat sb;
	uint64_t end;
	int ret;

	if (asprintf(&dir, "%s/" OP_CHAINS_DIR, session) < 0)
		return -ENOMEM;
	c.dir = dir;
	/* a bad or missing record was said by the sample files' selection */
	if (op_sums_read(sd, session, &c.sums, NULL) == -ENOMEM) {
		free(dir);
		return -ENOMEM;
	}
	/* the two lists as the daemon left them: every chain hangs on them,
	 * so a changed one refuses the store whole */
	for (int i = 0; i < 2; i++) {
		const char *rel = i ? OP_CHAINS_DIR "/" OP_CHAINS_LIST :
				  OP_CHAINS_DIR "/" OP_CHAINS_IMAGES;
		const struct op_sum *e = op_sums_find(&c.sums, rel);
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", session, rel);
		if (e && (ret = op_sum_check_file(e, sd, path))) {
			op_log(lg, OP_LOG_ERR, "cannot read the chain store's list %s: %s",
			       path, pp_sfile_strerror(ret));
			x->nr_bad_files++;
			op_sums_release(&c.sums);
			free(dir);
			return ret == -ENOMEM ? ret : -EINVAL;
		}
	}
	ret = op_chains_read_images(sd, dir, &ims);
	if (ret) {
		char path[PATH_MAX], why[PATH_MAX + 64];

		snprintf(path, sizeof(path), "%s/" OP_CHAINS_IMAGES, dir);
		op_log(lg, OP_LOG_ERR, "cannot read the chain store's images %s: %s",
		       path, op_sd_explain(sd, path, ret, why, sizeof(why)));
		op_sums_release(&c.sums);
		free(dir);
		return ret == -ENOMEM ? ret : -EINVAL;
	}
	c.img_map = malloc((ims.nr ? ims.nr : 1) * sizeof(*c.img_map));
	if (!c.img_map) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ims.nr; i++) {
		c.img_map[i] = pp_export_image(x, &ims.img[i]);
		if (c.img_map[i] == PP_XNONE) {
			ret = -ENOMEM;
			goto out;
		}
	}
	ret = op_chains_load(sd, dir, &c.tree, &end);
	if (!ret)
		ret = mark_bad(&c);
	if (ret) {
		op_log(lg, OP_LOG_ERR, "cannot read the chain store %s/" OP_CHAINS_LIST ": %s", dir,
		       ret == -EINVAL ? "not a chain file (bad magic)" : strerror(-ret));
		if (ret != -ENOMEM)
			ret = -EINVAL;
		goto out;
	}
	{
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/" OP_CHAINS_LIST, dir);
		/* a torn last record is what a crash leaves: said, not fatal */
		if (!op_sd_stat(sd, path, &sb) && (uint64_t)sb.st_size > end)
			op_log(lg, OP_LOG_WARN, "%s: %llu byte(s) after the last "
			       "complete record left out", path,
			       (unsigned long long)(sb.st_size - end));
	}
	if (c.nr_bad) {
		op_log(lg, OP_LOG_ERR, "corrupt chain store: %zu frame(s) of %s/" OP_CHAINS_LIST
		       " name images %s/" OP_CHAINS_IMAGES " does not list, or are "
		       "under one that does",
		       c.nr_bad, dir, dir);
		x->nr_bad_files++;
	}
	d = op_sd_opendir(sd, dir);
	if (!d) {
		char why[PATH_MAX + 64];

		ret = -errno;
		op_log(lg, OP_LOG_ERR, "cannot read %s: %s", dir,
		       op_sd_explain(sd, dir, ret, why, sizeof(why)));
		ret = ret == -ENOMEM ? ret : -EINVAL;
		goto out;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, OP_CHAINS_IMAGES) ||
		    !strcmp(de->d_name, OP_CHAINS_LIST))
			continue;
		ret = load_counts_file(x, &c, de->d_name, spec, merge, lg);
		if (ret)
			break;
	}
	closedir(d);
out:
	free(c.img_map);
	free(c.frames);
	free(c.bad);
	op_chain_tree_release(&c.tree);
	op_chain_images_release(&ims);
	op_sums_release(&c.sums);
	free(dir);
	return ret;
}

/* A store of whole chains in session; one behind a link is refused,
 * said, and read as none. */
static bool has_store(const struct op_sessdir *sd, const char *session,
		      const struct op_logger *lg)
{
	char path[PATH_MAX], why[PATH_MAX + 64];
	struct stat st;
	int ret;

	snprintf(path, sizeof(path), "%s/" OP_CHAINS_DIR "/" OP_CHAINS_LIST, session);
	ret = op_sd_stat(sd, path, &st);
	if (!ret && S_ISLNK(st.st_mode))
		ret = -ELOOP;
	if (ret == -ELOOP)
		op_log(lg, OP_LOG_WARN, "the call-chain store is not read: %s",
		       op_sd_explain(sd, path, ret, why, sizeof(why)));
	return !ret;
}

/* ---- when ---- */

/* The wall-clock time of a daemon log line ("YYYY-MM-DD HH:MM:SS.mmm",
 * local time, as op_log_to_file writes it), in ns; 0 when it has none. */
static int64_t log_time(const char *line)
{
	struct tm tm = { 0 };
	int ms = 0;
	time_t t;

	if (sscanf(line, "%d-%d-%d %d:%d:%d.%d", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) != 7)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t == (time_t)-1)
		return 0;
	return (int64_t)t * 1000000000 + (int64_t)ms * 1000000;
}

/* When the current session's profiling started and for how long it ran,
 * from the daemon's log beside it: its last "profiling started", to the
 * last dump or stop after that. Saved sessions keep no log of their own:
 * both stay 0. */
static void session_times(struct pp_export *x, const struct op_sessdir *sd,
			  const char *session)
{
	const char *base = strrchr(session, '/');
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	int64_t start = 0, stop = 0;
	FILE *f;

	if (!base || strcmp(base, "/current"))
		return;
	snprintf(path, sizeof(path), "%.*s/oprofiled.log", (int)(base - session),
		 session);
	f = op_sd_fopen(sd, path, "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		if (strstr(line, " profiling started")) {
			start = log_time(line);
			stop = 0;
		} else if (start && (strstr(line, " stats (dump)") ||
				     strstr(line, " profiling stopped"))) {
			stop = log_time(line);
		}
	}
	free(line);
	fclose(f);
	x->time_nanos = start;
	if (start && stop > start)
		x->duration_nanos = stop - start;
}

int pp_export_load(struct pp_export *x, struct pp_fileset *fs,
		   const struct pp_spec *spec, const struct pp_merge *merge,
		   const struct op_logger *lg)
{
	bool chains = fs->nr_sessions > 0;
	int ret = 0;

	for (size_t i = 0; i < fs->nr_sessions; i++) {
		if (has_store(fs->sd, fs->sessions[i], lg))
			continue;
		op_log(lg, OP_LOG_WARN, "%s has no call chains (not recorded with "
		       "--callgraph): exporting flat profiles, one frame a sample",
		       fs->sessions[i]);
		chains = false;
		break;
	}
	if (fs->nr_sessions) {
		session_times(x, fs->sd, fs->sessions[0]);
		ret = op_cgroups_read(fs->sd, fs->sessions[0], &x->cgroups);
		if (ret)
			return ret;
	}
	if (!chains)
		return load_flat(x, fs, merge, lg);
	x->has_chains = true;
	for (size_t i = 0; i < fs->nr_sessions && !ret; i++)
		ret = load_store(x, fs->sd, fs->sessions[i], spec, merge, lg);
	/* the flat files' headers say which kind of event the chains count */
	for (size_t i = 0; !ret && !x->cpu_type && i < fs->nr_files; i++) {
		odb_t db;

		if (pp_sfile_open(&fs->files[i], &db))
			continue;
		x->cpu_type = db.header->cpu_type;
		odb_close(&db);
	}
	x->sessions = fs->sessions;
	x->nr_sessions = fs->nr_sessions;
	fs->sessions = NULL;
	fs->nr_sessions = 0;
	pp_fileset_release(fs);
	return ret;
}

/* ---- naming ---- */

static int off_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* The function for samples of image i that no symbol names. */
static uint32_t unnamed_func(struct pp_export *x, uint32_t i, uint32_t *slot)
{
	char *s, *name;

	if (*slot != PP_XNONE)
		return *slot;
	s = op_img_display(&x->images[i].img, 0);
	if (!s || asprintf(&name, "[%s]", s) < 0) {
		free(s);
		return PP_XNONE;
	}
	*slot = pp_export_func(x, i, name, NULL, NULL, 0);
	free(s);
	free(name);
	return *slot;
}

static int name_image(struct pp_export *x, uint32_t i, const struct pp_symtab *st,
		      const uint32_t *locs, size_t n, bool demangle)
{
	struct pp_ximage *im = &x->images[i];
	uint32_t *sym_func = NULL, unnamed = PP_XNONE;
	char id[129];

	if (st && !st->nr_syms)
		st = NULL;
	if (st && pp_symtab_build_id(st, id, sizeof(id))) {
		im->build_id = strdup(id);
		if (!im->build_id)
			return -ENOMEM;
	}
	if (st) {
		sym_func = malloc(st->nr_syms * sizeof(*sym_func));
		if (!sym_func)
			return -ENOMEM;
		for (size_t k = 0; k < st->nr_syms; k++)
			sym_func[k] = PP_XNONE;
	}
	for (size_t j = 0; j < n; j++) {
		struct pp_xloc *l = &x->locs[locs[j]];
		const struct pp_sym *sym = NULL;
		const char *file;
		int line;

		if (st) {
			l->vma = pp_symtab_off_to_vma(st, l->off);
			sym = pp_symtab_lookup(st, l->vma);
		}
		/* every location gets a function, so pprof never tries to
		 * name what we could not */
		im->has_functions = true;
		if (!sym) {
			l->func = unnamed_func(x, i, &unnamed);
			if (l->func == PP_XNONE)
				goto err_nomem;
			continue;
		}
		if (sym_func[sym - st->syms] == PP_XNONE) {
			char *dm = demangle ? pp_demangle(sym->name) : NULL;

			file = NULL;
			line = 0;
			pp_symtab_line(st, sym->start, &file, &line);
			sym_func[sym - st->syms] =
				pp_export_func(x, i, dm ? dm : sym->name, sym->name,
					       file, line);
			free(dm);
			if (sym_func[sym - st->syms] == PP_XNONE)
				goto err_nomem;
		}
		l->func = sym_func[sym - st->syms];
		if (pp_symtab_line(st, l->vma, &file, &line)) {
			l->line = line;
			im->has_lines = true;
		}
	}
	free(sym_func);
	return 0;

err_nomem:
	free(sym_func);
	return -ENOMEM;
}

int pp_export_symbolize(struct pp_export *x, const struct pp_report_opts *o,
			const struct op_logger *lg, struct pp_report_status *st)
{
	size_t n = x->nr_images, max = 1;
	struct pp_profile p = { 0 };
	struct pp_report_opts so = *o;
	struct pp_symview *v = NULL;
	uint64_t one_total = 1, *ones = NULL;
	uint32_t **img_locs = NULL;
	size_t *nr = NULL;
	int ret = -ENOMEM;

	/* opreport's symbol view over the model's images, each its own
	 * application, its sampled offsets those of its locations */
	p.images = calloc(n ? n : 1, sizeof(*p.images));
	img_locs = calloc(n ? n : 1, sizeof(*img_locs));
	nr = calloc(n ? n : 1, sizeof(*nr));
	if (!p.images || !img_locs || !nr)
		goto out;
	for (size_t i = 0; i < x->nr_locs; i++)
		nr[x->locs[i].image]++;
	for (size_t i = 0; i < n; i++) {
		img_locs[i] = malloc((nr[i] ? nr[i] : 1) * sizeof(**img_locs));
		p.images[i].offs = malloc((nr[i] ? nr[i] : 1) * sizeof(uint64_t));
		if (!img_locs[i] || !p.images[i].offs)
			goto out;
		if (nr[i] > max)
			max = nr[i];
		nr[i] = 0;
	}
	for (size_t i = 0; i < x->nr_locs; i++) {
		uint32_t im = x->locs[i].image;

		img_locs[im][nr[im]] = (uint32_t)i;
		p.images[im].offs[nr[im]++] = x->locs[i].off;
	}
	ones = malloc(max * sizeof(*ones));
	if (!ones)
		goto out;
	for (size_t j = 0; j < max; j++)
		ones[j] = 1;
	for (size_t i = 0; i < n; i++) {
		struct pp_image *im = &p.images[i];

		im->img = x->images[i].img;
		im->app = x->images[i].img;
		im->nr_addrs = nr[i];
		qsort(im->offs, nr[i], sizeof(*im->offs), off_cmp);
		im->counts = ones;
		im->total = &one_total;
		im->mtime = x->images[i].mtime;
		im->have_header = true;
	}
	p.nr_images = n;
	p.fs.sessions = x->sessions;
	p.fs.nr_sessions = x->nr_sessions;
	so.symbols = true;
	so.details = false;
	so.debug_info = false;
	so.demangle = false;	/* names are demangled below, per function */
	v = pp_symview_build(&p, &so, lg, st);
	if (!v)
		goto out;
	for (size_t i = 0; i < n; i++) {
		ret = name_image(x, (uint32_t)i, pp_symview_symtab(v, i),
				 img_locs[i], nr[i], o->demangle);
		if (ret)
			goto out;
	}
	ret = 0;
out:
	pp_symview_free(v);
	for (size_t i = 0; p.images && i < n; i++) {
		free(p.images[i].offs);
		if (img_locs)
			free(img_locs[i]);
	}
	free(p.images);
	free(img_locs);
	free(nr);
	free(ones);
	return ret;
}
