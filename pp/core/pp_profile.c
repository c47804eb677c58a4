/* Sample-file selection, classification into columns and loading: the part
 * of opreport that turns a session directory into per-image histograms.
 * Everything after this works on distinct addresses only. */
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
#include "op_config.h"
#include "pp_spec.h"

int pp_merge_parse(const char *text, struct pp_merge *m, const char **bad)
{
	const char *p = text;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

#define IS(s) (len == strlen(s) && !strncmp(p, s, len))
		if (IS("lib"))
			m->lib = true;
		else if (IS("cpu"))
			m->cpu = true;
		else if (IS("tid"))
			m->tid = true;
		else if (IS("tgid"))	/* as OProfile: a thread is in its group */
			m->tgid = m->tid = true;
		else if (IS("unitmask") || IS("unit-mask"))
			m->unitmask = true;
		else if (IS("all"))
			m->lib = m->cpu = m->tid = m->tgid = m->unitmask = true;
		else {
			if (bad)
				*bad = p;
			return -EINVAL;
		}
#undef IS
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

const char *pp_axis_name(enum pp_axis axis)
{
	switch (axis) {
	case PP_AXIS_EVENT: return "event";
	case PP_AXIS_UNITMASK: return "unitmask";
	case PP_AXIS_TGID: return "tgid";
	case PP_AXIS_TID: return "tid";
	case PP_AXIS_CPU: return "cpu";
	case PP_AXIS_MULTI: return "multiple";
	case PP_AXIS_NONE: break;
	}
	return "none";
}

char *pp_session_dir_default(const char *dir)
{
	struct stat st;

	if (dir)
		return strdup(dir);
	if (!stat("oprofile_data", &st) && S_ISDIR(st.st_mode))
		return realpath("oprofile_data", NULL);
	return strdup(OP_DEFAULT_SESSION_DIR);
}

static int fileset_add(struct pp_fileset *fs, struct op_sfname *n,
		       const char *path, size_t rel)
{
	struct pp_sfile *v;

	if (fs->nr_files % 64 == 0) {
		v = realloc(fs->files, (fs->nr_files + 64) * sizeof(*v));
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
	fs->nr_files++;
	return 0;
}

/* One file of a session's walk. */
struct walk_ctx {
	struct pp_fileset *fs;
	const struct pp_spec *spec;
	bool with_cg;
};

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
	if ((n.cg.path && !w->with_cg) || !pp_spec_match_file(w->spec, &n)) {
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
	int ret = op_sums_read(dir, &sums, &bad_line);

	if (ret == -ENOENT)
		return;		/* a running session's, or OProfile's */
	if (ret) {
		if (ret == -EINVAL)
			op_log(lg, OP_LOG_WARN, "%s/%s: line %zu is not \"SUM NODES "
			       "LEN FILE\": the sample files are not checked",
			       dir, OP_SUMS_FILE, bad_line);
		else
			op_log(lg, OP_LOG_WARN, "cannot read %s/%s: %s: the sample "
			       "files are not checked", dir, OP_SUMS_FILE,
			       strerror(-ret));
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
	err = odb_open(db, f->path, ODB_RDONLY);
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
	if (err == -EBADMSG)
		return "it does not match the session's integrity record "
		       "(" OP_SUMS_FILE "): it changed after the daemon wrote it";
	return odb_strerror(err);
}

static int fileset_select(struct pp_fileset *fs, const char *session_dir,
			  const struct pp_spec *spec, bool with_cg,
			  const struct op_logger *lg)
{
	char samples[PATH_MAX];
	DIR *d;
	struct dirent *de;
	size_t first;
	int ret = 0;

	memset(fs, 0, sizeof(*fs));
	snprintf(samples, sizeof(samples), "%s/samples", session_dir);
	d = opendir(samples);
	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		char dir[PATH_MAX * 2];
		struct stat st;
		char **v;

		if (de->d_name[0] == '.')
			continue;
		if (!pp_spec_match_session(spec, de->d_name))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", samples, de->d_name);
		if (lstat(dir, &st) || !S_ISDIR(st.st_mode))
			continue;
		v = realloc(fs->sessions, (fs->nr_sessions + 1) * sizeof(*v));
		if (!v) {
			ret = -ENOMEM;
			break;
		}
		fs->sessions = v;
		fs->sessions[fs->nr_sessions] = strdup(dir);
		if (!fs->sessions[fs->nr_sessions]) {
			ret = -ENOMEM;
			break;
		}
		fs->nr_sessions++;
		first = fs->nr_files;
		ret = op_sfname_walk(dir, walk_file,
				     &(struct walk_ctx){ .fs = fs, .spec = spec,
							 .with_cg = with_cg });
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
	free(fs->classes);
	memset(fs, 0, sizeof(*fs));
}

/* The fields of a file that classification looks at, merged ones cleared. */
struct class_key {
	const char *event;
	unsigned long count;
	long um, tgid, tid, cpu;
};

#define MERGED (-2L)

static struct class_key file_key(const struct pp_sfile *f,
				 const struct pp_merge *m)
{
	struct class_key k = {
		.event = f->name.event,
		.count = f->name.count,
		.um = m->unitmask ? MERGED : (long)f->name.unit_mask,
		.tgid = m->tgid ? MERGED : f->name.tgid,
		.tid = m->tid ? MERGED : f->name.tid,
		.cpu = m->cpu ? MERGED : f->name.cpu,
	};
	return k;
}

static long key_value(const struct class_key *k, enum pp_axis axis)
{
	switch (axis) {
	case PP_AXIS_UNITMASK: return k->um;
	case PP_AXIS_TGID: return k->tgid;
	case PP_AXIS_TID: return k->tid;
	case PP_AXIS_CPU: return k->cpu;
	default: return 0;
	}
}

/* A tgid, tid, cpu or unit-mask field in OProfile's class order: numbers
 * up, then "all". */
static int field_cmp(long a, long b)
{
	if (a == b)
		return 0;
	if (a == OP_SF_ALL)
		return 1;
	if (b == OP_SF_ALL)
		return -1;
	return a < b ? -1 : 1;
}

static int class_cmp(const struct pp_class *a, const struct pp_class *b,
		     enum pp_axis axis)
{
	if (axis == PP_AXIS_EVENT) {
		int c = strcmp(a->event, b->event);

		if (c)
			return c;
		return (a->count > b->count) - (a->count < b->count);
	}
	return field_cmp(a->value, b->value);
}

static void class_describe(struct pp_class *c, enum pp_axis axis)
{
	char v[32];

	if (c->value < 0)
		snprintf(v, sizeof(v), "all");
	else
		snprintf(v, sizeof(v), "%ld", c->value);
	switch (axis) {
	case PP_AXIS_CPU:
		snprintf(c->label, sizeof(c->label), "cpu:%s", v);
		snprintf(c->longname, sizeof(c->longname), "Samples on CPU %s", v);
		break;
	case PP_AXIS_TID:
		snprintf(c->label, sizeof(c->label), "tid:%s", v);
		snprintf(c->longname, sizeof(c->longname),
			 "Processes with a thread ID of %s", v);
		break;
	case PP_AXIS_TGID:
		snprintf(c->label, sizeof(c->label), "tgid:%s", v);
		snprintf(c->longname, sizeof(c->longname),
			 "Processes with a thread group ID of %s", v);
		break;
	case PP_AXIS_UNITMASK:
		snprintf(c->label, sizeof(c->label), "unitmask:0x%02x",
			 c->unit_mask);
		snprintf(c->longname, sizeof(c->longname),
			 "Samples with a unit mask of 0x%02x", c->unit_mask);
		break;
	case PP_AXIS_EVENT:
	case PP_AXIS_NONE:
	case PP_AXIS_MULTI:
		snprintf(c->label, sizeof(c->label), "%s:%lu", c->event, c->count);
		c->longname[0] = '\0';
		break;
	}
}

/* The distinct classes of fs's files along axis, sorted and described,
 * into a new array *out of *nr. Returns 0 or -ENOMEM. */
static int collect_classes(const struct pp_fileset *fs,
			   const struct pp_merge *merge, enum pp_axis axis,
			   struct pp_class **out, size_t *nr)
{
	struct pp_class *classes = NULL;
	size_t n = 0;

	for (size_t i = 0; i < fs->nr_files; i++) {
		const struct pp_sfile *f = &fs->files[i];
		struct class_key k = file_key(f, merge);
		struct pp_class c;
		size_t lo = 0, hi = n;

		memset(&c, 0, sizeof(c));
		snprintf(c.event, sizeof(c.event), "%s", k.event);
		c.count = k.count;
		c.unit_mask = f->name.unit_mask;
		c.value = key_value(&k, axis);
		/* classes are kept sorted: binary search, insert if new */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (class_cmp(&classes[mid], &c, axis) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == n || class_cmp(&classes[lo], &c, axis)) {
			struct pp_class *v = realloc(classes, (n + 1) * sizeof(*v));

			if (!v) {
				free(classes);
				return -ENOMEM;
			}
			classes = v;
			memmove(&v[lo + 1], &v[lo], (n - lo) * sizeof(*v));
			class_describe(&c, axis);
			v[lo] = c;
			n++;
		}
	}
	*out = classes;
	*nr = n;
	return 0;
}

/* What to do about an axis that is shown, in OProfile's words. A unit mask
 * is part of OProfile's event axis. */
static const char *axis_suggestion(enum pp_axis axis)
{
	switch (axis) {
	case PP_AXIS_EVENT:
	case PP_AXIS_UNITMASK:
		return "specify event:, count: or unitmask: (see also --merge=unitmask)";
	case PP_AXIS_TGID: return "specify tgid: or --merge tgid";
	case PP_AXIS_TID: return "specify tid: or --merge tid";
	case PP_AXIS_CPU: return "specify cpu: or --merge cpu";
	case PP_AXIS_NONE:
	case PP_AXIS_MULTI:
		break;
	}
	return "";
}

/* OProfile's order of classes in a text report: cpu, tgid, tid, unit mask
 * ("all" after every number), then the event by name and its count
 * compared as text, as its templates hold them. */
static int template_cmp(const struct class_key *a, const struct class_key *b)
{
	int c = field_cmp(a->cpu, b->cpu);
	char x[24], y[24];

	if (!c)
		c = field_cmp(a->tgid, b->tgid);
	if (!c)
		c = field_cmp(a->tid, b->tid);
	if (!c)
		c = field_cmp(a->um, b->um);
	if (!c)
		c = strcmp(a->event, b->event);
	if (c)
		return c;
	snprintf(x, sizeof(x), "%lu", a->count);
	snprintf(y, sizeof(y), "%lu", b->count);
	return strcmp(x, y);
}

static int template_qcmp(const void *a, const void *b)
{
	return template_cmp(a, b);
}

/* A template's name on the axis shown, as OProfile names its classes. */
static void template_name(const struct class_key *k, enum pp_axis axis,
			  char *buf, size_t len)
{
	const char *tag = pp_axis_name(axis);
	long v;

	switch (axis) {
	case PP_AXIS_TGID: v = k->tgid; break;
	case PP_AXIS_TID: v = k->tid; break;
	case PP_AXIS_CPU: v = k->cpu; break;
	default:
		snprintf(buf, len, "%s:%lu", k->event, k->count);
		return;
	}
	if (v < 0)
		snprintf(buf, len, "%s:all", tag);
	else
		snprintf(buf, len, "%s:%ld", tag, v);
}

/* The refusal of files that differ along two axes, worded as OProfile's
 * opreport words it: the first five distinct names on the axis shown, in
 * the classes' order, the number of classes beyond five (OProfile counts
 * classes there, not names), the axis that conflicts, and how to narrow or
 * merge the first. */
static void axes_error(const struct class_key *t, size_t n, enum pp_axis shown,
		       enum pp_axis conflict, char *err, size_t errlen)
{
	char names[5][96], name[96];
	size_t nr_names = 0, len;

	snprintf(err, errlen, "Already displaying results for parameter %s "
		 "with values:\n", shown == PP_AXIS_UNITMASK ? "event" :
		 pp_axis_name(shown));
	for (size_t i = 0; i < n && nr_names < 5; i++) {
		bool seen = false;

		template_name(&t[i], shown, name, sizeof(name));
		for (size_t j = 0; j < nr_names; j++)
			seen |= !strcmp(names[j], name);
		if (seen)
			continue;
		memcpy(names[nr_names++], name, sizeof(name));
		len = strlen(err);
		snprintf(err + len, errlen - len, "%s,", name);
	}
	len = strlen(err);
	if (nr_names == 5)
		snprintf(err + len, errlen - len, " and %zu more,", n - 5);
	len = strlen(err);
	snprintf(err + len, errlen - len, "\nwhich conflicts with parameter %s.\n"
		 "Suggestion: %s", pp_axis_name(conflict), axis_suggestion(shown));
}

/* OProfile's rule for a second axis: only tgid and tid go together, and
 * only when every class's tgid is its tid (one thread per process), so
 * that either names the columns. */
static bool allow_axes(const struct class_key *t, size_t n, enum pp_axis shown,
		       enum pp_axis next)
{
	if (shown == PP_AXIS_NONE)
		return true;
	if ((shown != PP_AXIS_TGID && shown != PP_AXIS_TID) ||
	    (next != PP_AXIS_TGID && next != PP_AXIS_TID))
		return false;
	for (size_t i = 0; i < n; i++)
		if (t[i].tgid != t[i].tid)
			return false;
	return true;
}

int pp_classify(struct pp_fileset *fs, const struct pp_merge *merge,
		char *err, size_t errlen)
{
	bool vary[PP_AXIS_CPU + 1] = { false };
	enum pp_axis axis = PP_AXIS_NONE;
	struct class_key *t;
	size_t n = 0;
	int ret;

	free(fs->classes);
	fs->classes = NULL;
	fs->nr_classes = 0;
	if (!fs->nr_files)
		return 0;
	/* OProfile's classes: the distinct templates left after merging,
	 * each compared with the first */
	t = malloc(fs->nr_files * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < fs->nr_files; i++)
		t[i] = file_key(&fs->files[i], merge);
	qsort(t, fs->nr_files, sizeof(*t), template_qcmp);
	for (size_t i = 0; i < fs->nr_files; i++)
		if (!n || template_cmp(&t[n - 1], &t[i]))
			t[n++] = t[i];
	for (size_t i = 1; i < n; i++) {
		if (strcmp(t[i].event, t[0].event) || t[i].count != t[0].count)
			vary[PP_AXIS_EVENT] = true;
		if (t[i].um != t[0].um)
			vary[PP_AXIS_UNITMASK] = true;
		if (t[i].tgid != t[0].tgid)
			vary[PP_AXIS_TGID] = true;
		if (t[i].tid != t[0].tid)
			vary[PP_AXIS_TID] = true;
		if (t[i].cpu != t[0].cpu)
			vary[PP_AXIS_CPU] = true;
	}
	/* OProfile's event axis holds the unit mask too; columns that differ
	 * only by unit mask are labelled by it here */
	if (vary[PP_AXIS_EVENT] && vary[PP_AXIS_UNITMASK]) {
		axes_error(t, n, PP_AXIS_EVENT, PP_AXIS_UNITMASK, err, errlen);
		free(t);
		return -EDOM;
	}
	for (int a = PP_AXIS_EVENT; a <= PP_AXIS_CPU; a++) {
		if (!vary[a])
			continue;
		if (!allow_axes(t, n, axis, (enum pp_axis)a)) {
			axes_error(t, n, axis, (enum pp_axis)a, err, errlen);
			free(t);
			return -EDOM;
		}
		axis = (enum pp_axis)a;
	}
	free(t);
	fs->axis = axis;
	ret = collect_classes(fs, merge, axis, &fs->classes, &fs->nr_classes);
	if (ret)
		return ret;
	/* class indices once every class is known */
	for (size_t i = 0; i < fs->nr_files; i++) {
		struct class_key k = file_key(&fs->files[i], merge);
		struct pp_class c;

		memset(&c, 0, sizeof(c));
		snprintf(c.event, sizeof(c.event), "%s", k.event);
		c.count = k.count;
		c.value = key_value(&k, axis);
		size_t lo = 0, hi = fs->nr_classes;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (class_cmp(&fs->classes[mid], &c, axis) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		fs->files[i].cls = (unsigned int)lo;	/* present: inserted above */
	}
	return 0;
}

static int multi_key_cmp(const struct class_key *a, const struct class_key *b)
{
	int c = field_cmp(a->tgid, b->tgid);

	if (!c)
		c = field_cmp(a->tid, b->tid);
	if (!c)
		c = (a->um > b->um) - (a->um < b->um);
	if (!c)
		c = strcmp(a->event, b->event);
	if (!c)
		c = (a->count > b->count) - (a->count < b->count);
	if (!c)
		c = field_cmp(a->cpu, b->cpu);
	return c;
}

static int multi_qcmp(const void *a, const void *b)
{
	return multi_key_cmp(a, b);
}

int pp_classify_multi(struct pp_fileset *fs, const struct pp_merge *merge)
{
	struct class_key *keys;
	size_t n = 0;

	free(fs->classes);
	fs->classes = NULL;
	fs->nr_classes = 0;
	fs->axis = PP_AXIS_MULTI;
	if (!fs->nr_files)
		return 0;
	keys = malloc(fs->nr_files * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < fs->nr_files; i++)
		keys[i] = file_key(&fs->files[i], merge);
	qsort(keys, fs->nr_files, sizeof(*keys), multi_qcmp);
	for (size_t i = 0; i < fs->nr_files; i++)
		if (!n || multi_key_cmp(&keys[n - 1], &keys[i]))
			keys[n++] = keys[i];
	fs->classes = calloc(n, sizeof(*fs->classes));
	if (!fs->classes) {
		free(keys);
		return -ENOMEM;
	}
	fs->nr_classes = n;
	for (size_t i = 0; i < fs->nr_files; i++) {
		struct class_key k = file_key(&fs->files[i], merge);
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (multi_key_cmp(&keys[mid], &k) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		fs->files[i].cls = (unsigned int)lo;
		/* the unit mask a class shows is its first file's, as
		 * collect_classes() takes it */
		if (!fs->classes[lo].label[0]) {
			struct pp_class *c = &fs->classes[lo];

			snprintf(c->event, sizeof(c->event), "%s", k.event);
			c->count = k.count;
			c->unit_mask = fs->files[i].name.unit_mask;
			c->value = -1;
			class_describe(c, PP_AXIS_MULTI);
		}
	}
	free(keys);
	return 0;
}

bool pp_img_equal(const struct op_img *a, const struct op_img *b)
{
	if (a->kind != b->kind || strcmp(a->path, b->path))
		return false;
	if (a->kind == OP_IMG_ANON)
		return a->anon_tgid == b->anon_tgid &&
		       a->anon_start == b->anon_start &&
		       a->anon_end == b->anon_end;
	return true;
}

/* Raw (offset, class, count) triples gathered per image before sorting. */
struct raw {
	uint64_t off;
	uint64_t count;
	uint32_t cls;
};

struct loading {
	struct raw *v;
	size_t n, alloc;
};

struct add_ctx {
	struct loading *ld;		/* NULL: totals only */
	uint32_t cls;
	uint64_t sum;
	int err;
};

static int add_one(uint64_t key, uint64_t count, void *vctx)
{
	struct add_ctx *ctx = vctx;
	struct loading *ld = ctx->ld;

	if (!ld) {
		ctx->sum += count;
		return 0;
	}
	if (ld->n == ld->alloc) {
		size_t na = ld->alloc ? ld->alloc * 2 : 256;
		struct raw *v = realloc(ld->v, na * sizeof(*v));

		if (!v) {
			ctx->err = -ENOMEM;
			return 1;
		}
		ld->v = v;
		ld->alloc = na;
	}
	ld->v[ld->n].off = key;
	ld->v[ld->n].count = count;
	ld->v[ld->n].cls = ctx->cls;
	ld->n++;
	ctx->sum += count;
	return 0;
}

static int raw_cmp(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

static int find_image(struct pp_profile *p, struct loading **lds,
		      const struct op_img *app, const struct op_img *img,
		      size_t *idx)
{
	size_t nc = p->fs.nr_classes;
	struct pp_image *v;
	struct loading *l;

	for (size_t i = 0; i < p->nr_images; i++)
		if (pp_img_equal(&p->images[i].img, img) &&
		    pp_img_equal(&p->images[i].app, app)) {
			*idx = i;
			return 0;
		}
	v = realloc(p->images, (p->nr_images + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->images = v;
	l = realloc(*lds, (p->nr_images + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	*lds = l;
	memset(&l[p->nr_images], 0, sizeof(*l));
	v = &p->images[p->nr_images];
	memset(v, 0, sizeof(*v));
	v->app = *app;
	v->img = *img;
	v->first_cls = UINT_MAX;
	v->total = calloc(nc, sizeof(*v->total));
	if (!v->total)
		return -ENOMEM;
	*idx = p->nr_images++;
	return 0;
}

/* The application of f (with lib: its image) as OProfile's opreport names
 * it, from the sample file's name: the path between {root}/ or {kern}/ and
 * /{dep}/, "/" first; an anonymous image "NAME (tgid:T range:S-E)" from
 * {anon:NAME}/T.S.E. A name without those parts (a test's) falls back to
 * the image's long name. Malloc'd, NULL on ENOMEM. */
static char *sfile_app_key(const struct pp_sfile *f, bool lib)
{
	const char *rel = f->path + f->rel;
	const char *dep = strstr(rel, "/{dep}/");
	const char *s, *end, *close, *dot1, *dot2;
	char *key;

	if (!dep || (strncmp(rel, "{root}/", 7) && strncmp(rel, "{kern}/", 7)))
		return op_img_display(lib ? &f->name.image : &f->name.dep, true);
	if (!lib)
		return strndup(rel + 6, (size_t)(dep - (rel + 6)));
	s = dep + 7;
	/* the event's part is last: call-graph files are never selected */
	end = strrchr(s, '/');
	if (!strncmp(s, "{root}/", 7) || !strncmp(s, "{kern}/", 7))
		return strndup(s + 6, (size_t)(end - (s + 6)));
	close = strstr(s, "}/");
	dot1 = close ? memchr(close + 2, '.', (size_t)(end - (close + 2))) : NULL;
	dot2 = dot1 ? memchr(dot1 + 1, '.', (size_t)(end - (dot1 + 1))) : NULL;
	if (strncmp(s, "{anon:", 6) || !dot2)
		return op_img_display(&f->name.image, true);
	if (asprintf(&key, "%.*s (tgid:%.*s range:%.*s-%.*s)",
		     (int)(close - (s + 6)), s + 6,
		     (int)(dot1 - (close + 2)), close + 2,
		     (int)(dot2 - (dot1 + 1)), dot1 + 1,
		     (int)(end - (dot2 + 1)), dot2 + 1) < 0)
		return NULL;
	return key;
}

/* Sort one image's triples and fold them into offs[] and counts[][]. */
static int image_finish(struct pp_image *im, struct loading *ld, size_t nc)
{
	size_t n = 0;

	bool sorted = true;

	/* odb_for_each hands keys over in order: one file per image arrives
	 * sorted already */
	for (size_t i = 1; i < ld->n && sorted; i++)
		if (ld->v[i].off < ld->v[i - 1].off)
			sorted = false;
	if (!sorted)
		qsort(ld->v, ld->n, sizeof(*ld->v), raw_cmp);
	for (size_t i = 0; i < ld->n; i++)
		if (!i || ld->v[i].off != ld->v[i - 1].off)
			n++;
	im->offs = malloc((n ? n : 1) * sizeof(*im->offs));
	im->counts = calloc((n ? n : 1) * nc, sizeof(*im->counts));
	if (!im->offs || !im->counts)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < ld->n; i++) {
		if (!i || ld->v[i].off != ld->v[i - 1].off)
			im->offs[n++] = ld->v[i].off;
		im->counts[(n - 1) * nc + ld->v[i].cls] += ld->v[i].count;
	}
	im->nr_addrs = n;
	free(ld->v);
	memset(ld, 0, sizeof(*ld));
	return 0;
}

int pp_profile_load(struct pp_profile *p, struct pp_fileset *fs,
		    const struct pp_merge *merge, bool exclude_dependent,
		    bool want_addrs, const struct op_logger *lg)
{
	struct loading *lds = NULL;
	size_t nc;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	p->fs = *fs;
	memset(fs, 0, sizeof(*fs));
	nc = p->fs.nr_classes ? p->fs.nr_classes : 1;
	p->total = calloc(nc, sizeof(*p->total));
	if (!p->total)
		return -ENOMEM;
	for (size_t i = 0; i < p->fs.nr_files; i++) {
		struct pp_sfile *f = &p->fs.files[i];
		const struct op_img *app = merge->lib ? &f->name.image : &f->name.dep;
		struct add_ctx ctx = { .cls = f->cls };
		struct pp_image *im;
		odb_t db;
		size_t idx;
		int err;

		if (exclude_dependent && (!pp_img_equal(&f->name.image, &f->name.dep) ||
					  (f->name.cg.path &&
					   !pp_img_equal(&f->name.cg, &f->name.image))))
			continue;
		err = pp_sfile_open(f, &db);
		if (err) {
			op_log(lg, OP_LOG_ERR, "cannot read sample file %s: %s",
			       f->path, pp_sfile_strerror(err));
			p->nr_bad_files++;
			pp_sfile_first_bad(f);
			continue;
		}
		/* OProfile's operf names the kernel by a path, under {root}:
		 * "/proc/kallsyms" or the --vmlinux file; only the header
		 * tells it from a binary. Its offsets are the kernel's, so it
		 * is read as the kernel, by the name it was given. */
		op_img_mark_kernel(&f->name.image, db.header->is_kernel);
		if (f->name.cg.path) {
			/* an arc file counts no sample: its two images are
			 * listed (no sample either) so that their symbols
			 * are loaded with the others' */
			op_img_mark_kernel(&f->name.cg, db.header->cg_to_is_kernel);
			odb_close(&db);
			ret = find_image(p, &lds, app, &f->name.image, &idx);
			if (!ret)
				ret = find_image(p, &lds, app, &f->name.cg, &idx);
			if (ret)
				goto err_load;
			continue;
		}
		ret = find_image(p, &lds, app, &f->name.image, &idx);
		if (ret) {
			odb_close(&db);
			goto err_load;
		}
		im = &p->images[idx];
		if (!im->app_key) {
			im->app_key = sfile_app_key(f, merge->lib);
			if (!im->app_key) {
				odb_close(&db);
				ret = -ENOMEM;
				goto err_load;
			}
		}
		/* files come sorted: a class's first file is its first met */
		if (f->cls < im->first_cls) {
			im->first_cls = f->cls;
			im->first_file = i;
		}
		if (!im->have_header) {
			im->have_header = true;
			im->mtime = db.header->mtime;
		}
		if (!p->hdr.valid) {
			p->hdr.valid = true;
			p->hdr.cpu_type = db.header->cpu_type;
			p->hdr.cpu_speed = db.header->cpu_speed;
		}
		if (want_addrs) {
			ctx.ld = &lds[idx];
			odb_for_each(&db, add_one, &ctx);
		} else {
			/* totals only: every node counts, keys do not matter */
			uint32_t n = odb_nr_nodes(&db);

			for (uint32_t k = 1; k <= n; k++)
				ctx.sum += db.nodes[k].value;
		}
		odb_close(&db);
		if (ctx.err) {
			ret = ctx.err;
			goto err_load;
		}
		im->total[f->cls] += ctx.sum;
		p->total[f->cls] += ctx.sum;
	}
	for (size_t i = 0; i < p->nr_images; i++) {
		ret = image_finish(&p->images[i], &lds[i], nc);
		if (ret)
			goto err_load;
	}
	free(lds);
	return 0;

err_load:
	for (size_t i = 0; i < p->nr_images; i++)
		free(lds[i].v);
	free(lds);
	return ret;
}

void pp_profile_release(struct pp_profile *p)
{
	for (size_t i = 0; i < p->nr_images; i++) {
		free(p->images[i].total);
		free(p->images[i].app_key);
		free(p->images[i].offs);
		free(p->images[i].counts);
	}
	free(p->images);
	free(p->total);
	pp_fileset_release(&p->fs);
	memset(p, 0, sizeof(*p));
}
