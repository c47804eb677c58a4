/* Classification of the selected files into columns (classes), after
 * --merge, by OProfile's rules, and its refusals in its words. */
#include "config.h"
#include "pp_profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_grow.h"

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
			m->tgid = m->tid = m->container = true;
		else if (IS("container"))
			m->container = true;
		else if (IS("unitmask") || IS("unit-mask"))
			m->unitmask = true;
		else if (IS("all"))
			m->lib = m->cpu = m->tid = m->tgid = m->unitmask =
				m->container = true;
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

static const char *pp_axis_name(enum pp_axis axis)
{
	switch (axis) {
	case PP_AXIS_EVENT: return "event";
	case PP_AXIS_UNITMASK: return "unitmask";
	case PP_AXIS_TGID: return "tgid";
	case PP_AXIS_TID: return "tid";
	case PP_AXIS_CPU: return "cpu";
	case PP_AXIS_CONTAINER: return "container";
	case PP_AXIS_MULTI: return "multiple";
	case PP_AXIS_NONE: break;
	}
	return "none";
}

/* The fields of a file that classification looks at, merged ones cleared. */
struct class_key {
	const char *event;
	unsigned long count;
	long um, tgid, tid, cpu, ctr;
};

#define MERGED (-2L)

/* The containers of a fileset's container-separated files: their names,
 * sorted, each once; a file's key holds the index of its own. */
struct ctr_names {
	const struct op_cgroups *cg;
	char **v;
	size_t n;
};

/* A file separated by container: its process's container's name (the
 * cgroup's, "/" for the root one, "unknown" when the session does not
 * say); NULL for any other file. */
static const char *file_ctr(const struct pp_sfile *f, const struct op_cgroups *cg)
{
	const struct op_cgroup *c;

	if (f->name.tgid == OP_SF_ALL || f->name.tid != OP_SF_ALL)
		return NULL;
	c = op_cgroups_find(cg, f->name.tgid);
	return !c ? "unknown" : *c->name ? c->name : "/";
}

static long ctr_index(const struct ctr_names *cn, const char *name)
{
	size_t lo = 0, hi = cn->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(cn->v[mid], name);

		if (!c)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return OP_SF_ALL;
}

static struct class_key file_key(const struct pp_sfile *f,
				 const struct pp_merge *m,
				 const struct ctr_names *cn)
{
	const char *ctr = cn ? file_ctr(f, cn->cg) : NULL;
	struct class_key k = {
		.event = f->name.event,
		.count = f->name.count,
		.um = m->unitmask ? MERGED : (long)f->name.unit_mask,
		.tgid = m->tgid ? MERGED : f->name.tgid,
		.tid = m->tid ? MERGED : f->name.tid,
		.cpu = m->cpu ? MERGED : f->name.cpu,
		.ctr = OP_SF_ALL,
	};

	if (ctr) {
		/* a process's file: the process is only a way to its
		 * container, which the file is classed by */
		k.tgid = MERGED;
		k.ctr = m->container ? MERGED : ctr_index(cn, ctr);
	}
	return k;
}

static int str_qcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* cn for fs: the distinct containers of its container-separated files. */
static int ctr_names_init(struct ctr_names *cn, const struct pp_fileset *fs)
{
	size_t k = 0;

	cn->cg = &fs->cgroups;
	cn->n = 0;
	cn->v = malloc((fs->nr_files ? fs->nr_files : 1) * sizeof(*cn->v));
	if (!cn->v)
		return -ENOMEM;
	for (size_t i = 0; i < fs->nr_files; i++) {
		const char *name = file_ctr(&fs->files[i], cn->cg);

		if (name)
			cn->v[cn->n++] = (char *)name;
	}
	if (cn->n)
		qsort(cn->v, cn->n, sizeof(*cn->v), str_qcmp);
	for (size_t i = 0; i < cn->n; i++)
		if (!k || strcmp(cn->v[k - 1], cn->v[i]))
			cn->v[k++] = cn->v[i];
	cn->n = k;
	return 0;
}

static long key_value(const struct class_key *k, enum pp_axis axis)
{
	switch (axis) {
	case PP_AXIS_UNITMASK: return k->um;
	case PP_AXIS_TGID: return k->tgid;
	case PP_AXIS_TID: return k->tid;
	case PP_AXIS_CPU: return k->cpu;
	case PP_AXIS_CONTAINER: return k->ctr;
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

/* A process's or thread's class named beside OProfile's words: its own
 * id in its PID namespace where that differs, and its container when it
 * saw another root (OProfile's line alone for any other process, so that
 * both opreports print the same). */
static void describe_pid(char *buf, size_t len, const char *what,
			 const char *v, const struct ctr_names *cn, long tgid,
			 long id, bool thread)
{
	const struct op_cgroup *c = cn && tgid >= 0 ? op_cgroups_find(cn->cg, (pid_t)tgid) : NULL;
	pid_t nsid = cn && id >= 0 ? op_cgroups_nsid(cn->cg, (pid_t)id) : 0;
	const char *name = c && c->other_root ? (*c->name ? c->name : "/") : NULL;

	if (nsid && name)
		snprintf(buf, len, "%s %s (%s %d in container %s)", what, v,
			 thread ? "tid" : "pid", (int)nsid, name);
	else if (nsid)
		snprintf(buf, len, "%s %s (%s %d in its PID namespace)", what, v,
			 thread ? "tid" : "pid", (int)nsid);
	else if (name)
		snprintf(buf, len, "%s %s (container %s)", what, v, name);
	else
		snprintf(buf, len, "%s %s", what, v);
}

static void class_describe(struct pp_class *c, enum pp_axis axis,
			   const struct ctr_names *cn, long tgid)
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
		describe_pid(c->longname, sizeof(c->longname),
			     "Processes with a thread ID of", v, cn, tgid,
			     c->value, true);
		break;
	case PP_AXIS_TGID:
		snprintf(c->label, sizeof(c->label), "tgid:%s", v);
		describe_pid(c->longname, sizeof(c->longname),
			     "Processes with a thread group ID of", v, cn,
			     c->value, c->value, false);
		break;
	case PP_AXIS_CONTAINER: {
		const char *name = cn && c->value >= 0 && (size_t)c->value < cn->n ?
				   cn->v[c->value] : "all";
		const char *path = NULL;

		for (size_t i = 0; cn && i < cn->cg->n && !path; i++)
			if (!strcmp(*cn->cg->v[i].name ? cn->cg->v[i].name : "/", name))
				path = cn->cg->v[i].path;
		/* the name alone: the column is 17 wide */
		snprintf(c->label, sizeof(c->label), "%s", name);
		if (path)
			snprintf(c->longname, sizeof(c->longname),
				 "Samples in container %s (cgroup %s)", name, path);
		else
			snprintf(c->longname, sizeof(c->longname),
				 "Samples in container %s", name);
		break;
	}
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
			   const struct pp_merge *merge,
			   const struct ctr_names *cn, enum pp_axis axis,
			   struct pp_class **out, size_t *nr)
{
	struct pp_class *classes = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < fs->nr_files; i++) {
		const struct pp_sfile *f = &fs->files[i];
		struct class_key k = file_key(f, merge, cn);
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
			if (n == cap) {
				struct pp_class *v = op_grow(classes, n + 1, &cap, 8,
							     sizeof(*v));

				if (!v) {
					free(classes);
					return -ENOMEM;
				}
				classes = v;
			}
			memmove(&classes[lo + 1], &classes[lo],
				(n - lo) * sizeof(*classes));
			class_describe(&c, axis, cn, f->name.tgid);
			classes[lo] = c;
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
	case PP_AXIS_CONTAINER: return "specify container: or --merge container";
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
		c = field_cmp(a->ctr, b->ctr);
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
	case PP_AXIS_CONTAINER: v = k->ctr; break;
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
	bool vary[PP_AXIS_CONTAINER + 1] = { false };
	enum pp_axis axis = PP_AXIS_NONE;
	struct ctr_names cn;
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
	if (ctr_names_init(&cn, fs))
		return -ENOMEM;
	t = malloc(fs->nr_files * sizeof(*t));
	if (!t) {
		free(cn.v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < fs->nr_files; i++)
		t[i] = file_key(&fs->files[i], merge, &cn);
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
		if (t[i].ctr != t[0].ctr)
			vary[PP_AXIS_CONTAINER] = true;
	}
	/* OProfile's event axis holds the unit mask too; columns that differ
	 * only by unit mask are labelled by it here */
	if (vary[PP_AXIS_EVENT] && vary[PP_AXIS_UNITMASK]) {
		axes_error(t, n, PP_AXIS_EVENT, PP_AXIS_UNITMASK, err, errlen);
		free(t);
		free(cn.v);
		return -EDOM;
	}
	for (int a = PP_AXIS_EVENT; a <= PP_AXIS_CONTAINER; a++) {
		if (!vary[a])
			continue;
		if (!allow_axes(t, n, axis, (enum pp_axis)a)) {
			axes_error(t, n, axis, (enum pp_axis)a, err, errlen);
			free(t);
			free(cn.v);
			return -EDOM;
		}
		axis = (enum pp_axis)a;
	}
	free(t);
	fs->axis = axis;
	ret = collect_classes(fs, merge, &cn, axis, &fs->classes, &fs->nr_classes);
	if (ret) {
		free(cn.v);
		return ret;
	}
	/* class indices once every class is known */
	for (size_t i = 0; i < fs->nr_files; i++) {
		struct class_key k = file_key(&fs->files[i], merge, &cn);
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
	free(cn.v);
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
		keys[i] = file_key(&fs->files[i], merge, NULL);
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
		struct class_key k = file_key(&fs->files[i], merge, NULL);
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
			class_describe(c, PP_AXIS_MULTI, NULL, OP_SF_ALL);
		}
	}
	free(keys);
	return 0;
}
