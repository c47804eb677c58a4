/* opreport's formatters. The symbol view is built once from the per-image
 * histograms (distinct addresses only), then printed as text, XML or a
 * differential report; the layout follows OProfile 1.x column for column. */
#include "config.h"
#include "pp_report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "odb.h"
#include "op_events.h"
#include "op_names.h"
#include "pp_symbols.h"
#include "pp_symview.h"

#define NO_SYMBOLS "(no symbols)"
#define NO_LOCATION "(no location information)"

void pp_format_percent(char *buf, size_t len, double value)
{
	if (value == 0.0) {
		snprintf(buf, len, "0");
		return;
	}
	for (int prec = 4; prec >= 0; prec--) {
		int n = snprintf(buf, len, "%.*f", prec, value);

		if (n <= 7)
			return;
	}
}

static double percent(uint64_t n, uint64_t total)
{
	return total ? (double)n * 100.0 / (double)total : 0.0;
}

/* A left-aligned column: the text, padded to width, or followed by one
 * space when it does not fit (as OProfile does). */
static void put_col(FILE *out, const char *s, int width)
{
	static const char spaces[] = "                                ";
	size_t len = strlen(s);

	fwrite(s, 1, len, out);
	if (len < (size_t)width && (size_t)width - len < sizeof(spaces))
		fwrite(spaces, 1, (size_t)width - len, out);
	else if (len < (size_t)width)
		fprintf(out, "%*s", width - (int)len, "");
	else
		fputc(' ', out);
}

/* ---- building the view ---- */

/* An image's name as OProfile's reports print it; the long one is the
 * name its sample file gives, a module's as "/NAME" ({kern}/NAME). */
static char *img_name(const struct op_img *img, bool long_name)
{
	char *s;

	if (long_name && img->kind == OP_IMG_KERN && img->path[0] != '/') {
		if (asprintf(&s, "/%s", img->path) < 0)
			return NULL;
		return s;
	}
	s = op_img_display(img, long_name);
	return s ? s : strdup(img->path ? img->path : "?");
}

/* Where the binary of a FILE image is read from: --root prefix, then the
 * --image-path directories by basename. Returns a malloc'd path. */
static char *locate_binary(const char *path, const struct pp_report_opts *o)
{
	char buf[PATH_MAX * 2];
	const char *base = strrchr(path, '/');

	snprintf(buf, sizeof(buf), "%s%s", o->root ? o->root : "", path);
	if (!access(buf, F_OK) || !o->image_path)
		return strdup(buf);
	base = base ? base + 1 : path;
	for (const char *p = o->image_path; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char cand[PATH_MAX * 2];

		snprintf(cand, sizeof(cand), "%.*s/%s", (int)len, p, base);
		if (len && !access(cand, F_OK))
			return strdup(cand);
		if (!comma)
			break;
		p = comma + 1;
	}
	return strdup(buf);
}

/* True the first time path is seen in this report (it is then recorded). */
static bool first_warning(struct pp_report_status *st, const char *path)
{
	char **v;

	for (size_t i = 0; i < st->nr_warned; i++)
		if (!strcmp(st->warned[i], path))
			return false;
	v = realloc(st->warned, (st->nr_warned + 1) * sizeof(*v));
	if (!v)
		return true;
	st->warned = v;
	v[st->nr_warned] = strdup(path);
	if (v[st->nr_warned])
		st->nr_warned++;
	return true;
}

void pp_report_status_release(struct pp_report_status *st)
{
	for (size_t i = 0; i < st->nr_warned; i++)
		free(st->warned[i]);
	free(st->warned);
	st->warned = NULL;
	st->nr_warned = 0;
}

/* Existence and mtime of a binary, warned about once. Returns 0 or
 * -ENOENT. */
static int check_binary(const char *path, uint64_t mtime,
			const struct op_logger *lg, struct pp_report_status *st)
{
	struct stat sb;

	if (stat(path, &sb)) {
		if (first_warning(st, path)) {
			op_log(lg, OP_LOG_WARN,
			       "%s could not be found: its samples count, without symbols",
			       path);
			st->nr_missing++;
		}
		return -ENOENT;
	}
	if (mtime && (uint64_t)sb.st_mtime != mtime && first_warning(st, path)) {
		op_log(lg, OP_LOG_WARN,
		       "the last modified time of %s does not match its sample files: "
		       "the binary changed since profiling and symbols may be wrong",
		       path);
		st->nr_changed++;
	}
	return 0;
}

static int load_tab(struct img_tab *t, const struct pp_image *im,
		    const struct pp_report_opts *o, const struct op_logger *lg,
		    struct pp_report_status *st)
{
	const struct op_img *img = &im->img;
	char buf[PATH_MAX * 2];

	switch (img->kind) {
	case OP_IMG_FILE: {
		char *path = locate_binary(img->path, o);

		if (!path)
			return -ENOMEM;
		if (check_binary(path, im->mtime, lg, st)) {
			free(path);
			return -ENOENT;
		}
		t->status = pp_symtab_load_elf(&t->st, path, o->debug_dirs, lg);
		if (t->status)
			op_log(lg, OP_LOG_WARN, "no symbols for %s: %s", path,
			       t->status == -ENOEXEC ? "not an ELF file" :
			       strerror(-t->status));
		free(path);
		return t->status;
	}
	case OP_IMG_KERN:
		/* only the kernel with --vmlinux comes here: kallsyms tables
		 * are loaded together by load_tabs() */
		t->status = pp_symtab_load_elf(&t->st, o->vmlinux, o->debug_dirs, lg);
		if (!t->status && t->st.nr_segs) {
			/* kernel offsets are relative to the text start */
			uint64_t base = UINT64_MAX;

			for (size_t i = 0; i < t->st.nr_segs; i++)
				if (t->st.segs[i].vaddr < base)
					base = t->st.segs[i].vaddr;
			for (size_t i = 0; i < t->st.nr_syms; i++)
				t->st.syms[i].start -= base;
			t->st.nr_segs = 0;
			t->st.bias += base;
		}
		if (t->status)
			op_log(lg, OP_LOG_WARN, "no kernel symbols for %s: %s",
			       img->path, strerror(-t->status));
		return t->status;
	case OP_IMG_ANON:
		snprintf(buf, sizeof(buf), "%s%s/perf-%d.map",
			 o->root ? o->root : "", o->jit_dir ? o->jit_dir : "/tmp",
			 (int)img->anon_tgid);
		/* the name gives the region's last byte */
		t->status = pp_symtab_load_perfmap(&t->st, buf, img->anon_start,
						   img->anon_end + 1, NULL);
		return t->status;
	}
	return -EINVAL;
}

/* Symbols of img come from kallsyms (every module, and the kernel unless
 * --vmlinux names its ELF file). */
static bool from_kallsyms(const struct op_img *img, const struct pp_report_opts *o)
{
	return img->kind == OP_IMG_KERN && !(op_img_is_kernel(img) && o->vmlinux);
}

/* The kallsyms tables of a report, loaded by one read of the file on a
 * thread of their own: the kernel formats /proc/kallsyms anew on every
 * read, about half of a system-wide opreport -l, which the ELF tables'
 * loading on the main thread now overlaps. */
struct kallsyms_job {
	const char *path;
	size_t n;
	const char **modules;	/* NULL: the kernel */
	struct pp_symtab *tabs;
	int *status;
};

static void *kallsyms_job_run(void *arg)
{
	struct kallsyms_job *j = arg;

	pp_symtab_load_kallsyms_set(j->path, j->n, j->modules, j->tabs, j->status);
	return NULL;
}

static char *tab_key(const struct op_img *img)
{
	char *k = NULL;

	if (img->kind == OP_IMG_ANON) {
		if (asprintf(&k, "a%d:%" PRIx64 ":%s", (int)img->anon_tgid,
			     img->anon_start, img->path) < 0)
			return NULL;
	} else if (asprintf(&k, "%c%s", img->kind == OP_IMG_FILE ? 'f' : 'k',
			    img->path) < 0) {
		return NULL;
	}
	return k;
}

static struct pp_entry *new_entry(struct pp_symview *v)
{
	struct pp_entry *e;

	if (v->nr_entries % 256 == 0) {
		e = realloc(v->entries, (v->nr_entries + 256) * sizeof(*e));
		if (!e)
			return NULL;
		v->entries = e;
	}
	e = &v->entries[v->nr_entries];
	memset(e, 0, sizeof(*e));
	e->counts = calloc(v->nc, sizeof(*e->counts));
	if (!e->counts)
		return NULL;
	v->nr_entries++;
	return e;
}

static int entry_add_addr(struct pp_entry *e, size_t idx)
{
	if (e->nr_addrs == e->alloc_addrs) {
		size_t na = e->alloc_addrs ? e->alloc_addrs * 2 : 8;
		size_t *a = realloc(e->addrs, na * sizeof(*a));

		if (!a)
			return -ENOMEM;
		e->addrs = a;
		e->alloc_addrs = na;
	}
	e->addrs[e->nr_addrs++] = idx;
	return 0;
}

/* The row of an image's samples that no symbol names, named as OProfile
 * names the symbol it makes up for an image without symbols: the image's
 * full name. */
static char *unsymbolized_name(const struct op_img *img)
{
	return img_name(img, true);
}

static int build_image(struct pp_symview *v, const struct pp_profile *p,
		       size_t i, const struct pp_report_opts *o)
{
	const struct pp_image *im = &p->images[i];
	const struct pp_symtab *st = NULL;
	size_t *sym_entry = NULL, none = SIZE_MAX;
	size_t nsyms = 0;

	if (!o->symbols && !o->details) {
		/* image level: one entry from the image's totals */
		struct pp_entry *e = new_entry(v);

		if (!e)
			return -ENOMEM;
		e->image = i;
		e->name = strdup(NO_SYMBOLS);
		if (!e->name)
			return -ENOMEM;
		for (size_t c = 0; c < v->nc; c++) {
			e->counts[c] = im->total[c];
			e->sum += im->total[c];
		}
		return 0;
	}
	if (v->img_tab[i] != SIZE_MAX && !v->tabs[v->img_tab[i]].status)
		st = &v->tabs[v->img_tab[i]].st;
	/* as OProfile: symbols it would not read count as none */
	if (st && (!st->nr_syms || (st->dynsym_only && !o->dynamic_symbols)))
		st = NULL;
	if (st) {
		nsyms = st->nr_syms;
		sym_entry = malloc((nsyms ? nsyms : 1) * sizeof(*sym_entry));
		if (!sym_entry)
			return -ENOMEM;
		for (size_t k = 0; k < nsyms; k++)
			sym_entry[k] = SIZE_MAX;
	}
	v->vmas[i] = malloc((im->nr_addrs ? im->nr_addrs : 1) * sizeof(uint64_t));
	if (!v->vmas[i])
		goto err_nomem;
	for (size_t j = 0; j < im->nr_addrs; j++) {
		uint64_t vma = st ? pp_symtab_off_to_vma(st, im->offs[j]) : im->offs[j];
		const struct pp_sym *sym = st ? pp_symtab_lookup(st, vma) : NULL;
		size_t *slot = sym ? &sym_entry[sym - st->syms] : &none;
		struct pp_entry *e;

		v->vmas[i][j] = vma;
		/* as OProfile: samples outside every symbol of a full table
		 * (.plt, padding, headers) are in no row and no total */
		if (!sym && st && !st->partial)
			continue;
		if (*slot == SIZE_MAX) {
			e = new_entry(v);
			if (!e)
				goto err_nomem;
			e->image = i;
			e->sym = sym;
			e->vma = sym ? sym->start : 0;
			if (sym && o->demangle)
				e->name = pp_demangle(sym->name);
			if (!e->name)
				e->name = sym ? strdup(sym->name) :
					  unsymbolized_name(&im->img);
			if (!e->name)
				goto err_nomem;
			if (o->debug_info && st)
				pp_symtab_line(st, e->vma, &e->src, &e->line);
			*slot = v->nr_entries - 1;
		}
		e = &v->entries[*slot];
		for (size_t c = 0; c < v->nc; c++) {
			e->counts[c] += im->counts[j * v->nc + c];
			e->sum += im->counts[j * v->nc + c];
		}
		if (o->details && entry_add_addr(e, j))
			goto err_nomem;
	}
	free(sym_entry);
	return 0;

err_nomem:
	free(sym_entry);
	return -ENOMEM;
}

/* True when every sampled address of the images reading kallsyms table k
 * (the k-th of job) falls in one of its symbols. */
static bool ksyms_cover(const struct pp_symview *v, const struct pp_profile *p,
			const size_t *tab_of_job, size_t k,
			const struct pp_symtab *st)
{
	for (size_t i = 0; i < p->nr_images; i++) {
		const struct pp_image *im = &p->images[i];

		if (v->img_tab[i] != tab_of_job[k])
			continue;
		for (size_t j = 0; j < im->nr_addrs; j++)
			if (!pp_symtab_lookup(st, pp_symtab_off_to_vma(st, im->offs[j])))
				return false;
	}
	return true;
}

/* The session's own copy of the sampled kernel symbols (written by the
 * daemon when collection stops, see daemon/opd_ksyms.h), when the report
 * reads one session and no kallsyms file was named. Malloc'd, or NULL. */
static char *session_ksyms(const struct pp_profile *p,
			   const struct pp_report_opts *o)
{
	char *path;

	/* -c: the copy names sampled symbols, not the callers of arcs */
	if (o->kallsyms || o->callgraph || p->fs.nr_sessions != 1)
		return NULL;
	if (asprintf(&path, "%s/stats/kallsyms", p->fs.sessions[0]) < 0)
		return NULL;
	if (access(path, R_OK)) {
		free(path);
		return NULL;
	}
	return path;
}

/* Load every table: kallsyms ones on a thread (one read of the file for
 * the kernel and all modules), the others here meanwhile. The kallsyms
 * tables come from the session's saved copy when it names every sampled
 * kernel address, else from /proc/kallsyms (or --kallsyms). Warnings come
 * in table order whichever thread loaded the table. 0 or -ENOMEM. */
static int load_tabs(struct pp_symview *v, const struct pp_profile *p,
		     const size_t *tab_image, const struct pp_report_opts *o,
		     const struct op_logger *lg, struct pp_report_status *st)
{
	const char *kallsyms = o->kallsyms ? o->kallsyms : "/proc/kallsyms";
	char *saved = session_ksyms(p, o);
	struct kallsyms_job job = { .path = saved ? saved : kallsyms };
	size_t nt = v->nr_tabs ? v->nr_tabs : 1;
	size_t *tab_of_job = malloc(nt * sizeof(*tab_of_job));
	pthread_t thread;
	bool threaded = false;
	size_t k = 0;

	job.modules = malloc(nt * sizeof(*job.modules));
	job.tabs = calloc(nt, sizeof(*job.tabs));
	job.status = calloc(nt, sizeof(*job.status));
	if (!job.modules || !job.tabs || !job.status || !tab_of_job) {
		free(job.modules);
		free(job.tabs);
		free(job.status);
		free(tab_of_job);
		free(saved);
		return -ENOMEM;
	}
	for (size_t t = 0; t < v->nr_tabs; t++) {
		const struct op_img *img = &p->images[tab_image[t]].img;

		if (from_kallsyms(img, o)) {
			tab_of_job[job.n] = t;
			job.modules[job.n++] = op_img_is_kernel(img) ? NULL : img->path;
		}
	}
	if (job.n)
		threaded = !pthread_create(&thread, NULL, kallsyms_job_run, &job);
	if (job.n && !threaded)
		kallsyms_job_run(&job);
	for (size_t t = 0; t < v->nr_tabs; t++) {
		const struct pp_image *im = &p->images[tab_image[t]];

		if (!from_kallsyms(&im->img, o))
			load_tab(&v->tabs[t], im, o, lg, st);
	}
	if (threaded)
		pthread_join(thread, NULL);
	for (size_t j = 0; saved && j < job.n; j++) {
		if (!job.status[j] &&
		    ksyms_cover(v, p, tab_of_job, j, &job.tabs[j]))
			continue;
		/* samples since the last stop, or a copy without this image */
		for (size_t i = 0; i < job.n; i++)
			pp_symtab_release(&job.tabs[i]);
		job.path = kallsyms;
		kallsyms_job_run(&job);
		break;
	}
	for (size_t t = 0; t < v->nr_tabs; t++) {
		const struct op_img *img = &p->images[tab_image[t]].img;

		if (!from_kallsyms(img, o))
			continue;
		v->tabs[t].st = job.tabs[k];
		v->tabs[t].status = job.status[k++];
		if (v->tabs[t].status)
			op_log(lg, OP_LOG_WARN, "no kernel symbols for %s: %s",
			       img->path, strerror(-v->tabs[t].status));
	}
	free(job.modules);
	free(job.tabs);
	free(job.status);
	free(tab_of_job);
	free(saved);
	return 0;
}

struct pp_symview *pp_symview_build(const struct pp_profile *p,
				    const struct pp_report_opts *o,
				    const struct op_logger *lg,
				    struct pp_report_status *st)
{
	struct pp_symview *v = calloc(1, sizeof(*v));
	size_t n = p->nr_images;
	bool want_syms = o->symbols || o->details;
	size_t *tab_image = NULL;	/* per table: the first image using it */

	if (!v)
		return NULL;
	v->nc = p->fs.nr_classes ? p->fs.nr_classes : 1;
	v->nr_images = n;
	v->img_tab = malloc((n ? n : 1) * sizeof(*v->img_tab));
	v->vmas = calloc(n ? n : 1, sizeof(*v->vmas));
	v->img_names = calloc(n ? n : 1, sizeof(char *));
	v->app_names = calloc(n ? n : 1, sizeof(char *));
	v->img_long = calloc(n ? n : 1, sizeof(char *));
	v->app_long = calloc(n ? n : 1, sizeof(char *));
	v->tabs = calloc(n ? n : 1, sizeof(*v->tabs));
	tab_image = malloc((n ? n : 1) * sizeof(*tab_image));
	if (!v->img_tab || !v->vmas || !v->img_names || !v->app_names ||
	    !v->img_long || !v->app_long || !v->tabs || !tab_image)
		goto err_view;
	for (size_t i = 0; i < n; i++) {
		const struct pp_image *im = &p->images[i];

		v->img_tab[i] = SIZE_MAX;
		v->img_names[i] = img_name(&im->img, o->long_filenames);
		v->app_names[i] = img_name(&im->app, o->long_filenames);
		v->img_long[i] = img_name(&im->img, true);
		v->app_long[i] = img_name(&im->app, true);
		if (!v->img_names[i] || !v->app_names[i] || !v->img_long[i] ||
		    !v->app_long[i])
			goto err_view;
		if (!pp_img_equal(&im->img, &im->app))
			v->separated = true;
		if (i && strcmp(v->img_long[i], v->img_long[0]))
			v->multiple_images = true;
		if (i && strcmp(v->app_long[i], v->app_long[0]))
			v->multiple_apps = true;
	}
	if (!v->separated)
		v->multiple_apps = false;
	/* symbol tables, one per distinct binary; FILE images are checked
	 * (missing, changed) even for the summary */
	for (size_t i = 0; i < n; i++) {
		const struct pp_image *im = &p->images[i];
		char *key;
		size_t t;

		if (!want_syms && im->img.kind != OP_IMG_FILE)
			continue;
		key = tab_key(&im->img);
		if (!key)
			goto err_view;
		for (t = 0; t < v->nr_tabs; t++)
			if (!strcmp(v->tabs[t].key, key))
				break;
		if (t == v->nr_tabs) {
			v->tabs[v->nr_tabs++].key = key;
			tab_image[t] = i;
		} else {
			free(key);
		}
		v->img_tab[i] = t;
	}
	if (want_syms && load_tabs(v, p, tab_image, o, lg, st))
		goto err_view;
	/* the summary reads no binary and, as OProfile's, warns about none */
	for (size_t t = 0; !want_syms && t < v->nr_tabs; t++)
		v->tabs[t].status = -ENODATA;
	free(tab_image);
	tab_image = NULL;
	for (size_t i = 0; i < n; i++)
		if (build_image(v, p, i, o))
			goto err_view;
	v->total = calloc(v->nc, sizeof(*v->total));
	if (!v->total)
		goto err_view;
	for (size_t i = 0; i < v->nr_entries; i++)
		for (size_t c = 0; c < v->nc; c++)
			v->total[c] += v->entries[i].counts[c];
	return v;

err_view:
	free(tab_image);
	pp_symview_free(v);
	errno = ENOMEM;
	return NULL;
}

void pp_symview_free(struct pp_symview *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->nr_entries; i++) {
		free(v->entries[i].name);
		free(v->entries[i].counts);
		free(v->entries[i].addrs);
	}
	free(v->entries);
	free(v->total);
	for (size_t i = 0; i < v->nr_tabs; i++) {
		free(v->tabs[i].key);
		pp_symtab_release(&v->tabs[i].st);
	}
	free(v->tabs);
	free(v->img_tab);
	for (size_t i = 0; i < v->nr_images; i++) {
		if (v->vmas)
			free(v->vmas[i]);
		if (v->img_names)
			free(v->img_names[i]);
		if (v->app_names)
			free(v->app_names[i]);
		if (v->img_long)
			free(v->img_long[i]);
		if (v->app_long)
			free(v->app_long[i]);
	}
	free(v->vmas);
	free(v->img_names);
	free(v->app_names);
	free(v->img_long);
	free(v->app_long);
	free(v);
}

const struct pp_symtab *pp_symview_symtab(const struct pp_symview *v,
					  size_t image)
{
	size_t t;

	if (image >= v->nr_images)
		return NULL;
	t = v->img_tab[image];
	if (t == SIZE_MAX || v->tabs[t].status)
		return NULL;
	return &v->tabs[t].st;
}

/* ---- header ---- */

/* OProfile's three warnings about how a session was sampled, on stderr
 * before anything else, for each session read that holds any file. Its
 * rules are kept as they are, quirks included, so that both opreports warn
 * about the same sessions in the same words:
 *   - buffer overflows: event_lost_overflow is read, and when it is 0 the
 *     cpuN/sample_lost_overflow files in directory order until one is not
 *     0; a positive value warns (a missing file stops the search);
 *   - throttling: whenever stats/throttled exists, even empty;
 *   - lost samples: operf's lost_* counters summed against total_samples,
 *     warned above one in ten thousand, pointing at operf's log. */
static const char *const operf_lost_stats[] = {
	"lost_invalid_domain", "lost_kernel", "lost_samplefile",
	"lost_no_mapping", "lost_no_app_for_kernel_sample",
	"lost_no_app_for_user_sample", "lost_bt_no_mapping",
	"lost_invalid_hypervisor_addr", "lost_records_by_kernel",
};

/* A stats number as OProfile reads it: -1 (all ones) when the file is
 * missing or holds no number. */
static unsigned long read_op_stat(const char *stats, const char *name)
{
	char path[PATH_MAX * 2];
	unsigned long v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", stats, name);
	f = fopen(path, "re");
	if (!f)
		return (unsigned long)-1;
	if (fscanf(f, "%lu", &v) != 1)
		v = (unsigned long)-1;
	fclose(f);
	return v;
}

static bool overflowed(const char *stats)
{
	int ret = (int)(uint32_t)read_op_stat(stats, "event_lost_overflow");
	struct dirent *de;
	DIR *d = opendir(stats);

	if (!d)
		return false;
	while (!ret && (de = readdir(d))) {
		char name[300];
		int cpu;

		if (sscanf(de->d_name, "cpu%d", &cpu) != 1)
			continue;
		snprintf(name, sizeof(name), "%s/sample_lost_overflow", de->d_name);
		ret = (int)(uint32_t)read_op_stat(stats, name);
	}
	closedir(d);
	return ret > 0;
}

/* Our daemon's loss counters, which OProfile's warnings above do not
 * weigh: each lost sample counted once, at the stage that lost it, and
 * its share of every sample the kernel took (those lost before the
 * daemon's total_samples are added to it). Only for sessions our daemon
 * wrote: it alone writes lost_no_task. */
static void our_losses(FILE *err, const char *stats)
{
	static const struct {
		const char *name;
		bool upstream;		/* lost before total_samples counted it */
	} ctrs[] = {
		{ "event_lost_overflow", true },
		{ "lost_records_by_kernel", true },
		{ "lost_no_task", true },
		{ "lost_no_mapping", false },
		{ "lost_samplefile", false },
		{ "bad_escape", true },	/* a sequence the decoder dropped */
	};
	unsigned long v[sizeof(ctrs) / sizeof(ctrs[0])];
	unsigned long total = read_op_stat(stats, "total_samples");
	unsigned long lost = 0, all;
	const char *sep = "";

	if (total == (unsigned long)-1 ||
	    read_op_stat(stats, "lost_no_task") == (unsigned long)-1)
		return;
	all = total;
	for (size_t i = 0; i < sizeof(ctrs) / sizeof(ctrs[0]); i++) {
		v[i] = read_op_stat(stats, ctrs[i].name);
		if (v[i] == (unsigned long)-1)
			v[i] = 0;
		lost += v[i];
		if (ctrs[i].upstream)
			all += v[i];
	}
	if (!lost)
		return;
	fprintf(err, "\nWARNING: %lu of %lu samples (%.4f%%) were lost while profiling:",
		lost, all, percent(lost, all));
	for (size_t i = 0; i < sizeof(ctrs) / sizeof(ctrs[0]); i++) {
		if (!v[i])
			continue;
		fprintf(err, "%s %s %lu", sep, ctrs[i].name, v[i]);
		sep = ",";
	}
	fputc('\n', err);
}

void pp_session_warnings(FILE *err, const char *samples_dir,
			 const char *session_dir)
{
	char *real = realpath(samples_dir, NULL);
	char stats[PATH_MAX * 2], throttled[PATH_MAX * 2];
	unsigned long total, lost = 0;
	struct dirent *de;
	bool any = false;
	DIR *d;

	if (!real)
		return;
	d = opendir(real);
	while (d && !any && (de = readdir(d)))
		any = strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	snprintf(stats, sizeof(stats), "%s/stats", real);
	snprintf(throttled, sizeof(throttled), "%s/stats/throttled", real);
	free(real);
	if (!any)
		return;
	if (overflowed(stats))
		fputs("WARNING! The OProfile kernel driver reports sample buffer "
		      "overflows.\nSuch overflows can result in incorrect sample "
		      "attribution, invalid sample\nfiles and other symptoms.  "
		      "See the oprofiled.log for details.\nYou should adjust your "
		      "sampling frequency to eliminate (or at least minimize)\n"
		      "these overflows.\n", err);
	d = opendir(throttled);
	if (d) {
		fprintf(err, "\nWARNING! Some of the events were throttled. "
			"Throttling occurs when\nthe initial sample rate is too "
			"high, causing an excessive number of\ninterrupts.  "
			"Decrease the sampling frequency. Check the directory\n"
			"%s\nfor the throttled event names.\n\n", throttled);
		closedir(d);
	}
	total = read_op_stat(stats, "total_samples");
	if (total != (unsigned long)-1) {
		for (size_t i = 0; i < sizeof(operf_lost_stats) / sizeof(operf_lost_stats[0]); i++) {
			unsigned long v = read_op_stat(stats, operf_lost_stats[i]);

			if (v != (unsigned long)-1)
				lost += v;
		}
		if (lost > (unsigned int)(0.0001 * (double)total))
			fprintf(err, "\nWARNING: Lost samples detected! See %s/samples/"
				"operf.log for details.\n", session_dir);
	}
	/* ours last, so that OProfile's text comes first and whole */
	our_losses(err, stats);
}

void pp_report_header(FILE *out, const struct pp_profile *p,
		      const struct pp_report_opts *opts)
{
	const char *cpu = op_cpu_type_name(p->hdr.cpu_type);
	bool timer = p->hdr.cpu_type == ODB_CPU_TIMER_INT;

	/* OProfile's words for a cpu_type it does not know; no speed when
	 * the header has none */
	fprintf(out, "CPU: %s", cpu ? cpu : "invalid cpu type");
	if (p->hdr.cpu_speed > 0)
		fprintf(out, ", speed %g MHz (estimated)", p->hdr.cpu_speed);
	fputc('\n', out);
	if (timer) {
		fprintf(out, "Profiling through timer interrupt\n");
	} else {
		/* one line per distinct event */
		for (size_t c = 0; c < p->fs.nr_classes; c++) {
			const struct pp_class *k = &p->fs.classes[c];
			char desc[256];
			bool seen = false;

			for (size_t d = 0; d < c; d++)
				if (!strcmp(p->fs.classes[d].event, k->event) &&
				    p->fs.classes[d].count == k->count)
					seen = true;
			if (seen)
				continue;
			/* an event no table here knows is described by its
			 * name (OProfile would print only "Unknown event") */
			if (op_event_describe(p->hdr.cpu_type, k->event, desc,
					      sizeof(desc)))
				snprintf(desc, sizeof(desc), "%s", k->event);
			fprintf(out, "Counted %s events (%s) with a unit mask of "
				"0x%02x (%s) count %lu\n", k->event, desc,
				k->unit_mask,
				k->unit_mask ? "multiple flags" : "No unit mask",
				k->count);
		}
	}
	if (p->fs.axis != PP_AXIS_NONE && p->fs.axis != PP_AXIS_EVENT)
		for (size_t c = 0; c < p->fs.nr_classes; c++)
			fprintf(out, "%s\n", p->fs.classes[c].longname);
}

/* ---- image summary ---- */

struct app_row {
	size_t first;		/* images of this app: idx[first .. first+n) */
	size_t n;
	uint64_t *total;
};

/* OProfile's summary (pp/opreport.cpp) sorts applications and the images
 * under each stably by the first column alone, descending, or ascending
 * with -r; what stays tied keeps the order it had: applications by name
 * (a std::map's), an application's images as its summary first met them:
 * the application's own first, then the others class by class, each
 * class's in the order of their files' paths. -r reverses no tie. */
static int cmp_first_col(uint64_t a, uint64_t b, bool reverse)
{
	int c = (a < b) - (a > b);

	return reverse ? -c : c;
}

static uint64_t image_sum(const struct pp_image *im, size_t nc)
{
	uint64_t s = 0;

	for (size_t c = 0; c < nc; c++)
		s += im->total[c];
	return s;
}

/* Images grouped by application (in name order), then in summary order. */
static int img_cmp(const void *a, const void *b, void *vctx)
{
	const struct pp_report_opts *o = vctx;
	const struct pp_image *x = *(const struct pp_image *const *)a;
	const struct pp_image *y = *(const struct pp_image *const *)b;
	bool main_x = pp_img_equal(&x->img, &x->app);
	bool main_y = pp_img_equal(&y->img, &y->app);
	int c = strcmp(x->app_key, y->app_key);

	if (c)
		return c;
	c = cmp_first_col(x->total[0], y->total[0], o->reverse);
	if (c)
		return c;
	if (main_x != main_y)
		return main_x ? -1 : 1;
	if (x->first_cls != y->first_cls)
		return x->first_cls < y->first_cls ? -1 : 1;
	return (x->first_file > y->first_file) - (x->first_file < y->first_file);
}

static void print_class_header(FILE *out, const struct pp_profile *p,
			       const char *prefix)
{
	size_t nc = p->fs.nr_classes ? p->fs.nr_classes : 1;

	fputs(prefix, out);
	for (size_t c = 0; c < nc; c++) {
		const char *l = p->fs.nr_classes ? p->fs.classes[c].label : "samples";

		if (strlen(l) > 17)
			fprintf(out, "%.14s...|", l);
		else
			fprintf(out, "%17s|", l);
	}
	fputc('\n', out);
	fputs(prefix, out);
	for (size_t c = 0; c < nc; c++)
		fputs("  samples|      %|", out);
	fputc('\n', out);
	fputs(prefix, out);
	for (size_t c = 0; c < nc; c++)
		fputs("------------------", out);
	fputc('\n', out);
}

static void print_count_cols(FILE *out, const uint64_t *counts,
			     const uint64_t *totals, size_t nc)
{
	char pct[32];

	for (size_t c = 0; c < nc; c++) {
		pp_format_percent(pct, sizeof(pct), percent(counts[c], totals[c]));
		fprintf(out, "%9" PRIu64 " %7s ", counts[c], pct);
	}
}

static bool below_threshold(const uint64_t *counts, const uint64_t *totals,
			    size_t nc, double threshold)
{
	if (threshold <= 0)
		return false;
	for (size_t c = 0; c < nc; c++)
		if (percent(counts[c], totals[c]) >= threshold)
			return false;
	return true;
}

static int print_summary(FILE *out, const struct pp_profile *p,
			 const struct pp_symview *v,
			 const struct pp_report_opts *o)
{
	size_t n = p->nr_images, nc = v->nc, nr_apps = 0;
	const struct pp_image **ims = malloc((n ? n : 1) * sizeof(*ims));
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	struct app_row *apps = calloc(n ? n : 1, sizeof(*apps));
	uint64_t *app_totals = calloc((n ? n : 1) * nc, sizeof(uint64_t));
	bool deps = v->separated && !o->exclude_dependent;

	if (!ims || !idx || !apps || !app_totals) {
		free(ims);
		free(idx);
		free(apps);
		free(app_totals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		ims[i] = &p->images[i];
	if (n)
		qsort_r(ims, n, sizeof(*ims), img_cmp, (void *)o);
	for (size_t i = 0; i < n; i++) {
		struct app_row *a;

		idx[i] = (size_t)(ims[i] - p->images);
		if (!i || strcmp(ims[i]->app_key, ims[i - 1]->app_key)) {
			a = &apps[nr_apps];
			a->first = i;
			a->total = &app_totals[nr_apps * nc];
			nr_apps++;
		}
		a = &apps[nr_apps - 1];
		a->n++;
		for (size_t c = 0; c < nc; c++)
			a->total[c] += ims[i]->total[c];
	}
	/* a stable sort: ties stay in name order */
	for (size_t i = 1; i < nr_apps; i++) {
		struct app_row t = apps[i];
		size_t j = i;

		while (j > 0 && cmp_first_col(apps[j - 1].total[0], t.total[0],
					      o->reverse) > 0) {
			apps[j] = apps[j - 1];
			j--;
		}
		apps[j] = t;
	}
	/* -n hides the column titles too, as OProfile's opreport does */
	if (!o->no_header)
		print_class_header(out, p, "");
	for (size_t a = 0; a < nr_apps; a++) {
		const struct app_row *r = &apps[a];

		/* as OProfile's opreport: the threshold weighs applications
		 * by the first column alone and keeps every dependent image
		 * of an application it shows */
		if (below_threshold(r->total, p->total, 1, o->threshold))
			continue;
		print_count_cols(out, r->total, p->total, nc);
		fprintf(out, "%s\n", v->app_names[idx[r->first]]);
		/* as OProfile: no block when it would only repeat the
		 * application's own image (an application sampled only in a
		 * library still gets one) */
		if (!deps || (r->n == 1 && pp_img_equal(&p->images[idx[r->first]].img,
							&p->images[idx[r->first]].app)))
			continue;
		if (!o->no_header)
			print_class_header(out, p, "\t");
		for (size_t k = 0; k < r->n; k++) {
			const struct pp_image *im = &p->images[idx[r->first + k]];
			const uint64_t *tot = o->global_percent ? p->total : r->total;

			if (!image_sum(im, nc))
				continue;
			fputc('\t', out);
			print_count_cols(out, im->total, tot, nc);
			fprintf(out, "%s\n", v->img_names[idx[r->first + k]]);
		}
	}
	free(ims);
	free(idx);
	free(apps);
	free(app_totals);
	return 0;
}

/* ---- symbol list ---- */

struct sym_sort_ctx {
	const struct pp_symview *v;
	const struct pp_report_opts *o;
};

/* The source file of a -g entry as OProfile compares it: by basename
 * unless -f, "" without one. */
static const char *debug_key(const struct pp_entry *e, bool long_names)
{
	const char *slash;

	if (!e->src)
		return "";
	slash = long_names ? NULL : strrchr(e->src, '/');
	return slash ? slash + 1 : e->src;
}

static int entry_key_cmp(const struct sym_sort_ctx *ctx, enum pp_sort_key k,
			 const struct pp_entry *x, const struct pp_entry *y)
{
	int c;

	switch (k) {
	case PP_SORT_SAMPLE:	/* the first column alone, descending */
		return (x->counts[0] < y->counts[0]) - (x->counts[0] > y->counts[0]);
	case PP_SORT_IMAGE:
		return strcmp(ctx->v->img_names[x->image], ctx->v->img_names[y->image]);
	case PP_SORT_APP:
		return strcmp(ctx->v->app_names[x->image], ctx->v->app_names[y->image]);
	case PP_SORT_SYMBOL:
		return strcmp(x->name, y->name);
	case PP_SORT_DEBUG:
		c = strcmp(debug_key(x, ctx->o->long_filenames),
			   debug_key(y, ctx->o->long_filenames));
		return c ? c : (x->line > y->line) - (x->line < y->line);
	case PP_SORT_VMA:
		return (x->vma > y->vma) - (x->vma < y->vma);
	}
	return 0;
}

/* OProfile's order of symbol rows (libpp/symbol_sort.cpp): the --sort keys,
 * then the others in the order sample, image, app-name, symbol, debug, vma,
 * every one reversed by -r; rows equal in all keep the order they were
 * built in (OProfile's sort is stable). */
static int entry_cmp(const void *a, const void *b, void *vctx)
{
	static const enum pp_sort_key all[] = {
		PP_SORT_SAMPLE, PP_SORT_IMAGE, PP_SORT_APP, PP_SORT_SYMBOL,
		PP_SORT_DEBUG, PP_SORT_VMA,
	};
	const struct sym_sort_ctx *ctx = vctx;
	const struct pp_entry *x = *(const struct pp_entry *const *)a;
	const struct pp_entry *y = *(const struct pp_entry *const *)b;
	int c = 0;

	for (size_t k = 0; k < ctx->o->nr_sort && !c; k++)
		c = entry_key_cmp(ctx, ctx->o->sort[k], x, y);
	for (size_t k = 0; k < sizeof(all) / sizeof(all[0]) && !c; k++) {
		bool given = false;

		for (size_t u = 0; u < ctx->o->nr_sort; u++)
			given |= ctx->o->sort[u] == all[k];
		if (!given)
			c = entry_key_cmp(ctx, all[k], x, y);
	}
	if (ctx->o->reverse)
		c = -c;
	return c ? c : (x > y) - (x < y);
}

static bool name_in(char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

/* The entries to print, sorted, filtered by -i/-e and the threshold. */
static const struct pp_entry **selected_entries(const struct pp_profile *p,
						const struct pp_symview *v,
						const struct pp_report_opts *o,
						size_t *nr)
{
	const struct pp_entry **sel = malloc((v->nr_entries ? v->nr_entries : 1) *
					     sizeof(*sel));
	struct sym_sort_ctx ctx = { v, o };
	size_t n = 0;

	if (!sel)
		return NULL;
	for (size_t i = 0; i < v->nr_entries; i++) {
		const struct pp_entry *e = &v->entries[i];

		if (o->include_symbols && !name_in(o->include_symbols, e->name))
			continue;
		if (name_in(o->exclude_symbols, e->name))
			continue;
		if (below_threshold(e->counts, v->total, v->nc, o->threshold))
			continue;
		sel[n++] = e;
	}
	if (n)
		qsort_r(sel, n, sizeof(*sel), entry_cmp, &ctx);
	*nr = n;
	return sel;
}

static void format_line(char *buf, size_t len, const char *src, int line,
			bool long_names)
{
	const char *base;

	if (!src) {
		snprintf(buf, len, NO_LOCATION);
		return;
	}
	base = long_names ? NULL : strrchr(src, '/');
	snprintf(buf, len, "%s:%d", base ? base + 1 : src, line);
}

static void print_sym_cols(FILE *out, const uint64_t *counts,
			   const uint64_t *totals, uint64_t *cum, size_t nc,
			   bool accumulated, bool last_bare)
{
	char num[32], pct[32];

	for (size_t c = 0; c < nc; c++) {
		snprintf(num, sizeof(num), "%" PRIu64, counts[c]);
		put_col(out, num, 9);
		if (accumulated) {
			cum[c] += counts[c];
			snprintf(num, sizeof(num), "%" PRIu64, cum[c]);
			put_col(out, num, 14);
		}
		pp_format_percent(pct, sizeof(pct), percent(counts[c], totals[c]));
		if (last_bare && c + 1 == nc && !accumulated) {
			fprintf(out, "%7s", pct);
			continue;
		}
		fprintf(out, "%7s  ", pct);
		if (accumulated) {
			pp_format_percent(pct, sizeof(pct), percent(cum[c], totals[c]));
			fprintf(out, "%7s    ", pct);
		}
	}
}

/* The column-title line of -l and -d ("samples  %  image name ..."). */
static void print_symbol_titles(FILE *out, const struct pp_report_opts *o,
				size_t nc, bool image_col, bool app_col)
{
	if (o->show_address || o->details)
		put_col(out, "vma", 9);
	for (size_t c = 0; c < nc; c++) {
		put_col(out, "samples", 9);
		if (o->accumulated)
			put_col(out, "cum. samples", 14);
		put_col(out, "%", 9);
		if (o->accumulated)
			put_col(out, "cum. %", 11);
	}
	if (o->debug_info)
		put_col(out, "linenr info", 28);
	if (image_col)
		put_col(out, "image name", 25);
	if (app_col)
		put_col(out, "app name", 25);
	fputs("symbol name\n", out);
}

/* OProfile's "app name" column: shown when some column (class) holds
 * samples of more than one application. */
static bool several_apps(const struct pp_profile *p, const struct pp_symview *v)
{
	for (size_t c = 0; c < v->nc; c++) {
		const char *first = NULL;

		for (size_t i = 0; i < p->nr_images; i++) {
			if (!p->images[i].total[c])
				continue;
			if (!first)
				first = v->app_long[i];
			else if (strcmp(first, v->app_long[i]))
				return true;
		}
	}
	return false;
}

static int print_symbols(FILE *out, const struct pp_profile *p,
			 const struct pp_symview *v,
			 const struct pp_report_opts *o)
{
	size_t nr, nc = v->nc;
	const struct pp_entry **sel = selected_entries(p, v, o, &nr);
	uint64_t *cum = calloc(nc, sizeof(*cum));
	uint64_t *dcum = calloc(nc, sizeof(*dcum));
	bool vma_col = o->show_address || o->details;
	bool image_col = false;
	bool app_col = several_apps(p, v);
	char buf[PATH_MAX + 32];

	if (!sel || !cum || !dcum) {
		free(sel);
		free(cum);
		free(dcum);
		return -ENOMEM;
	}
	/* as OProfile: "image name" when a listed symbol lies outside its
	 * application's own image (a library, the kernel) */
	for (size_t i = 0; i < nr && !image_col; i++)
		image_col = !pp_img_equal(&p->images[sel[i]->image].img,
					  &p->images[sel[i]->image].app);
	if (!o->no_header)
		print_symbol_titles(out, o, nc, image_col, app_col);
	for (size_t i = 0; i < nr; i++) {
		const struct pp_entry *e = sel[i];

		if (vma_col) {
			snprintf(buf, sizeof(buf), "%08" PRIx64, e->vma);
			put_col(out, buf, 9);
		}
		print_sym_cols(out, e->counts, v->total, cum, nc,
			       o->accumulated, false);
		if (o->debug_info) {
			format_line(buf, sizeof(buf), e->src, e->line,
				    o->long_filenames);
			put_col(out, buf, 28);
		}
		if (image_col)
			put_col(out, v->img_names[e->image], 25);
		if (app_col)
			put_col(out, v->app_names[e->image], 25);
		fprintf(out, "%s\n", e->name);
		if (!o->details)
			continue;
		memset(dcum, 0, nc * sizeof(*dcum));
		for (size_t k = 0; k < e->nr_addrs; k++) {
			size_t j = e->addrs[k];
			const struct pp_image *im = &p->images[e->image];
			const struct pp_symtab *st = NULL;

			fprintf(out, "  %08" PRIx64 " ", v->vmas[e->image][j]);
			/* -%: against the whole profile, not the symbol */
			print_sym_cols(out, &im->counts[j * nc],
				       o->global_percent ? v->total : e->counts,
				       dcum, nc, o->accumulated, !o->debug_info);
			if (o->debug_info) {
				const char *src = NULL;
				int line = 0;

				if (v->img_tab[e->image] != SIZE_MAX &&
				    !v->tabs[v->img_tab[e->image]].status)
					st = &v->tabs[v->img_tab[e->image]].st;
				if (st)
					pp_symtab_line(st, v->vmas[e->image][j],
						       &src, &line);
				format_line(buf, sizeof(buf), src, line,
					    o->long_filenames);
				fputs(buf, out);
			}
			fputc('\n', out);
		}
	}
	free(sel);
	free(cum);
	free(dcum);
	return 0;
}

/* ---- XML ----
 *
 * OProfile's schema 3.1 as its xml_utils writes it. Symbols are always
 * listed (opreport -X resolves symbols with or without -l), sorted by
 * application, image, then address, so that each application's symbols
 * come together: one <binary> per application with its own symbols, then a
 * <module> per dependent image. When the columns are threads or processes
 * the body is <process>/<thread> elements instead, with every image of a
 * thread as a <module>. <classes> names the columns only when they differ
 * by cpu, event or unit mask; counts of zero are left out everywhere.
 */

static void xml_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			if ((unsigned char)*s < 0x20)
				fprintf(out, "&#%d;", *s);
			else
				fputc(*s, out);
		}
	}
}

/* ` name="value"`, escaped */
static void xml_attr(FILE *out, const char *name, const char *value)
{
	fprintf(out, " %s=\"", name);
	xml_escape(out, value);
	fputc('"', out);
}

struct xml_ctx {
	FILE *out;
	const struct pp_profile *p;
	const struct pp_symview *v;
	const struct pp_report_opts *o;
	const struct pp_entry **sel;	/* in XML order */
	size_t nr;
	size_t nc;
	bool subclasses;		/* <count class="cN"> */
	size_t *sub;			/* per column: its N in "cN" */
	/* per view entry: the entry whose idref it shares (itself unless
	 * selected with another of the same image and symbol name), and that
	 * entry's idref, or SIZE_MAX before it is written */
	size_t *rep;
	size_t *id_of;
	bool *written;			/* per idref, for the tables */
	size_t next_id;
	/* -d: per idref, its <detaildata> elements so far (written into the
	 * <detailtable> at the end) and how many */
	FILE **det;
	char **det_text;
	size_t *det_len;
	size_t *nr_det;
};

/* The counts of classes [lo, hi] that are not zero. Returns true when it
 * wrote one. */
static bool xml_counts(const struct xml_ctx *x, const uint64_t *counts,
		       size_t lo, size_t hi)
{
	bool any = false;

	for (size_t c = lo; c <= hi; c++) {
		if (!counts[c])
			continue;
		any = true;
		if (x->subclasses)
			fprintf(x->out, "<count  class=\"c%zu\">\n", x->sub[c]);
		else
			fputs("<count>\n", x->out);
		fprintf(x->out, "%" PRIu64 "</count>\n", counts[c]);
	}
	return any;
}

static bool has_counts(const uint64_t *counts, size_t lo, size_t hi)
{
	for (size_t c = lo; c <= hi; c++)
		if (counts[c])
			return true;
	return false;
}

/* -g: the source line of address j of e's image as attributes of its
 * <detaildata>, as OProfile writes them: line= whenever the address has
 * one, file= only when it differs from the file of the symbol's start (an
 * inlined function from a header, say) and that one is known. */
static void xml_detail_line(const struct xml_ctx *x, FILE *f,
			    const struct pp_entry *e, size_t j)
{
	size_t t = x->v->img_tab[e->image];
	const char *src = NULL;
	int line = 0;

	if (t == SIZE_MAX || x->v->tabs[t].status ||
	    !pp_symtab_line(&x->v->tabs[t].st, x->v->vmas[e->image][j], &src, &line) ||
	    !src)
		return;
	if (e->src && strcmp(e->src, src))
		xml_attr(f, "file", src);
	fprintf(f, " line=\"%d\"", line);
}

/* -d: the <detaildata> of e's addresses for classes [lo, hi] appended to
 * its idref's list, as OProfile's XML generator numbers them: one element
 * per address and class with samples, ids counting on from the symbol's
 * earlier ones, the address as a vma and the count's class always named
 * (empty without <classes>). */
static void xml_details(struct xml_ctx *x, const struct pp_entry *e,
			size_t id, size_t lo, size_t hi)
{
	const uint64_t *counts = x->p->images[e->image].counts;
	FILE *f = x->det[id];

	if (!f) {
		f = open_memstream(&x->det_text[id], &x->det_len[id]);
		if (!f)
			return;
		x->det[id] = f;
	}
	for (size_t k = 0; k < e->nr_addrs; k++) {
		size_t j = e->addrs[k];

		for (size_t c = lo; c <= hi; c++) {
			if (!counts[j * x->nc + c])
				continue;
			fprintf(f, "<detaildata  id=\"%zu\"  vmaoffset=\"%08" PRIx64 "\"",
				x->nr_det[id]++, x->v->vmas[e->image][j]);
			if (x->o->debug_info)
				xml_detail_line(x, f, e, j);
			fputs(">\n", f);
			if (x->subclasses)
				fprintf(f, "<count  class=\"c%zu\">\n", x->sub[c]);
			else
				fputs("<count  class=\"\">\n", f);
			fprintf(f, "%" PRIu64 "</count>\n</detaildata>\n",
				counts[j * x->nc + c]);
		}
	}
}

/* One <symbol>, numbered the first time its image and name are written;
 * with -d it points at its <detaildata> through detaillo and detailhi. */
static void xml_symbol(struct xml_ctx *x, const struct pp_entry *e,
		       size_t lo, size_t hi)
{
	size_t k = x->rep[e - x->v->entries], id;

	if (!has_counts(e->counts, lo, hi))
		return;
	if (x->id_of[k] == SIZE_MAX)
		x->id_of[k] = x->next_id++;
	id = x->id_of[k];
	fprintf(x->out, "<symbol  idref=\"%zu\"", id);
	if (x->o->details) {
		size_t det_lo = x->nr_det[id];

		xml_details(x, e, id, lo, hi);
		if (x->nr_det[id] > det_lo)
			fprintf(x->out, " detaillo=\"%zu\" detailhi=\"%zu\"",
				det_lo, x->nr_det[id] - 1);
	}
	fputs(">\n", x->out);
	xml_counts(x, e->counts, lo, hi);
	fputs("</symbol>\n", x->out);
}

static bool is_own_image(const struct xml_ctx *x, const struct pp_entry *e)
{
	return !strcmp(x->v->img_long[e->image], x->v->app_long[e->image]);
}

/* Symbols sel[from, to) of one image as a <module> for classes [lo, hi]:
 * its summary is the sum of its symbols, as OProfile's is. */
static void xml_module(struct xml_ctx *x, size_t from, size_t to,
		       size_t lo, size_t hi, uint64_t *sum)
{
	const struct pp_entry *first = x->sel[from];

	memset(sum, 0, x->nc * sizeof(*sum));
	for (size_t i = from; i < to; i++)
		for (size_t c = lo; c <= hi; c++)
			sum[c] += x->sel[i]->counts[c];
	if (!has_counts(sum, lo, hi))
		return;
	fputs("<module ", x->out);
	xml_attr(x->out, "name", x->v->img_long[first->image]);
	fputs(">\n", x->out);
	xml_counts(x, sum, lo, hi);
	for (size_t i = from; i < to; i++)
		xml_symbol(x, x->sel[i], lo, hi);
	fputs("</module>\n", x->out);
}

/* End of the run of sel from i with the same image. */
static size_t image_run_end(const struct xml_ctx *x, size_t i, size_t end)
{
	size_t j = i + 1;

	while (j < end && !strcmp(x->v->img_long[x->sel[j]->image],
				  x->v->img_long[x->sel[i]->image]) &&
	       !strcmp(x->v->app_long[x->sel[j]->image],
		       x->v->app_long[x->sel[i]->image]))
		j++;
	return j;
}

static void xml_binaries(struct xml_ctx *x, uint64_t *sum)
{
	size_t hi = x->nc - 1;

	for (size_t i = 0, j; i < x->nr; i = j) {
		const char *app = x->v->app_long[x->sel[i]->image];

		for (j = i; j < x->nr && !strcmp(x->v->app_long[x->sel[j]->image], app); j++)
			;
		fputs("<binary ", x->out);
		xml_attr(x->out, "name", app);
		fputs(">\n", x->out);
		memset(sum, 0, x->nc * sizeof(*sum));
		for (size_t k = i; k < j; k++)
			if (is_own_image(x, x->sel[k]))
				for (size_t c = 0; c < x->nc; c++)
					sum[c] += x->sel[k]->counts[c];
		xml_counts(x, sum, 0, hi);
		for (size_t k = i; k < j; k++)
			if (is_own_image(x, x->sel[k]))
				xml_symbol(x, x->sel[k], 0, hi);
		for (size_t k = i, m; k < j; k = m) {
			m = image_run_end(x, k, j);
			if (!is_own_image(x, x->sel[k]))
				xml_module(x, k, m, 0, hi, sum);
		}
		fputs("</binary>\n", x->out);
	}
}

/* The value of a sample-file name field common to a class's files:
 * "all", a number, or "" when its files differ (the field was merged). */
static void class_field(const struct pp_profile *p, size_t cls, bool tgid,
			char *buf, size_t len)
{
	bool found = false;
	int val = 0;

	for (size_t i = 0; i < p->fs.nr_files; i++) {
		const struct pp_sfile *f = &p->fs.files[i];
		int fv = tgid ? f->name.tgid : f->name.tid;

		if (f->cls != cls)
			continue;
		if (found && fv != val) {
			snprintf(buf, len, "%s", "");
			return;
		}
		found = true;
		val = fv;
	}
	if (val == OP_SF_ALL)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%d", val);
}

static long field_num(const char *s)
{
	if (!*s)
		return -2;	/* merged */
	if (!strcmp(s, "all"))
		return -1;
	return strtol(s, NULL, 10);
}

static int tgid_cmp(const void *a, const void *b, void *vctx)
{
	const char (*tgid)[24] = vctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	long tx = field_num(tgid[x]), ty = field_num(tgid[y]);

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return (x > y) - (x < y);
}

/* Columns are threads (or processes): one <process> per thread group with
 * a <thread> per run of columns with the same tid, as OProfile writes
 * --separate=thread sessions. Columns along one axis are one per thread;
 * along several (PP_AXIS_MULTI) they come sorted by tgid and tid, a
 * thread's columns split by cpu, event or unit mask side by side. */
static int xml_processes(struct xml_ctx *x, uint64_t *sum)
{
	size_t nc = x->nc;
	char (*tgid)[24] = calloc(nc, sizeof(*tgid));
	char (*tid)[24] = calloc(nc, sizeof(*tid));
	size_t *ord = calloc(nc, sizeof(*ord));
	uint64_t *psum = calloc(nc, sizeof(*psum));

	if (!tgid || !tid || !ord || !psum) {
		free(tgid);
		free(tid);
		free(ord);
		free(psum);
		return -ENOMEM;
	}
	for (size_t c = 0; c < nc; c++) {
		class_field(x->p, c, true, tgid[c], sizeof(tgid[c]));
		class_field(x->p, c, false, tid[c], sizeof(tid[c]));
		ord[c] = c;
	}
	/* columns by thread group, then in their own order (already so
	 * across several axes, "all" last as OProfile orders them) */
	if (x->p->fs.axis != PP_AXIS_MULTI)
		qsort_r(ord, nc, sizeof(*ord), tgid_cmp, tgid);
	for (size_t a = 0, b; a < nc; a = b) {
		const char *name = NULL;
		bool any = false;

		for (b = a; b < nc && !strcmp(tgid[ord[b]], tgid[ord[a]]); b++)
			;
		memset(psum, 0, nc * sizeof(*psum));
		for (size_t i = 0; i < x->nr; i++)
			for (size_t k = a; k < b; k++) {
				psum[ord[k]] += x->sel[i]->counts[ord[k]];
				if (!name && x->sel[i]->counts[ord[k]])
					name = x->v->app_long[x->sel[i]->image];
			}
		for (size_t k = a; k < b; k++)
			any |= psum[ord[k]] != 0;
		if (!any)
			continue;	/* as OProfile: no empty process */
		fputs("<process ", x->out);
		xml_attr(x->out, "pid", tgid[ord[a]]);
		xml_attr(x->out, "name", name ? name : "");
		fputs(">\n", x->out);
		for (size_t k = a; k < b; k++)
			xml_counts(x, psum, ord[k], ord[k]);
		for (size_t k = a, t; k < b; k = t) {
			/* columns ord[k, t): contiguous, one thread */
			size_t lo = ord[k], hi;

			for (t = k + 1; t < b && !strcmp(tid[ord[t]], tid[lo]); t++)
				;
			hi = ord[t - 1];
			if (!has_counts(psum, lo, hi))
				continue;
			fputs("<thread ", x->out);
			xml_attr(x->out, "tid", tid[lo]);
			fputs(">\n", x->out);
			xml_counts(x, psum, lo, hi);
			for (size_t i = 0, m; i < x->nr; i = m) {
				m = image_run_end(x, i, x->nr);
				xml_module(x, i, m, lo, hi, sum);
			}
			fputs("</thread>\n", x->out);
		}
		fputs("</process>\n", x->out);
	}
	free(tgid);
	free(tid);
	free(ord);
	free(psum);
	return 0;
}

struct xml_sort_ctx {
	const struct pp_symview *v;
	const struct pp_report_opts *o;
	const struct pp_entry **sel;	/* for xml_key_cmp */
};

/* The symbol name as read from the image, not demangled. */
static const char *raw_name(const struct pp_entry *e)
{
	return e->sym ? e->sym->name : e->name;
}

/* Positions in sel by image (full name) and raw symbol name, then
 * position. */
static int xml_key_cmp(const void *a, const void *b, void *vctx)
{
	const struct xml_sort_ctx *ctx = vctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct pp_entry *x = ctx->sel[i], *y = ctx->sel[j];
	int c = strcmp(ctx->v->img_long[x->image], ctx->v->img_long[y->image]);

	if (!c)
		c = strcmp(raw_name(x), raw_name(y));
	if (!c)
		c = (i > j) - (i < j);
	return c;
}

/* OProfile numbers symbols by image and name (xml_get_symbol_index keys
 * its table on "image:symbol"): a library's symbol sampled under two
 * applications is one <symboldata>, its <detaildata> counted across both.
 * Point each selected entry at the first in XML order with its key. */
static int xml_share_ids(struct xml_ctx *x, struct xml_sort_ctx *ctx)
{
	size_t *pos = malloc((x->nr ? x->nr : 1) * sizeof(*pos));

	if (!pos)
		return -ENOMEM;
	for (size_t i = 0; i < x->v->nr_entries; i++)
		x->rep[i] = i;
	for (size_t i = 0; i < x->nr; i++)
		pos[i] = i;
	ctx->sel = x->sel;
	if (x->nr)
		qsort_r(pos, x->nr, sizeof(*pos), xml_key_cmp, ctx);
	for (size_t i = 0, first = 0; i < x->nr; i++) {
		const struct pp_entry *e = x->sel[pos[i]], *f = x->sel[pos[first]];

		if (strcmp(x->v->img_long[e->image], x->v->img_long[f->image]) ||
		    strcmp(raw_name(e), raw_name(f)))
			first = i;
		x->rep[e - x->v->entries] = (size_t)(x->sel[pos[first]] - x->v->entries);
	}
	free(pos);
	return 0;
}

/* OProfile's XML order: application, image (base names unless -f), then
 * its remaining keys in their order: address, samples, name. */
/* OProfile's XML order: its opreport sorts by app-name and image before
 * its default keys (sample, symbol, debug, vma), every one reversed by -r,
 * so that an application's images come together. */
static int xml_entry_cmp(const void *a, const void *b, void *vctx)
{
	static const enum pp_sort_key keys[] = {
		PP_SORT_APP, PP_SORT_IMAGE, PP_SORT_SAMPLE, PP_SORT_SYMBOL,
		PP_SORT_DEBUG, PP_SORT_VMA,
	};
	const struct xml_sort_ctx *ctx = vctx;
	const struct sym_sort_ctx sc = { ctx->v, ctx->o };
	const struct pp_entry *x = *(const struct pp_entry *const *)a;
	const struct pp_entry *y = *(const struct pp_entry *const *)b;
	int c = 0;

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]) && !c; k++)
		c = entry_key_cmp(&sc, keys[k], x, y);
	if (ctx->o->reverse)
		c = -c;
	/* one order whatever the names: full names, then view order */
	if (!c)
		c = strcmp(ctx->v->app_long[x->image], ctx->v->app_long[y->image]);
	if (!c)
		c = strcmp(ctx->v->img_long[x->image], ctx->v->img_long[y->image]);
	if (!c)
		c = (x > y) - (x < y);
	return c;
}

static void xml_header(const struct xml_ctx *x, size_t nr_cpus)
{
	const struct pp_profile *p = x->p;
	const struct pp_report_opts *o = x->o;
	const char *id = op_cpu_type_id(p->hdr.cpu_type);
	const char *slash;
	char buf[64];

	if (!id)
		id = "invalid cpu type";
	slash = strchr(id, '/');
	fputs("<?xml version=\"1.0\" ?>\n", x->out);
	fputs("<profile  schemaversion=\"3.1\"", x->out);
	snprintf(buf, sizeof(buf), "%.*s", slash ? (int)(slash - id) : (int)strlen(id), id);
	xml_attr(x->out, "cputype", buf);
	fputc('\n', x->out);
	if (slash) {
		xml_attr(x->out, "processor", slash + 1);
		fputc('\n', x->out);
	}
	if (nr_cpus > 1)
		fprintf(x->out, " separatedcpus=\"%zu\"\n", nr_cpus);
	fprintf(x->out, " mhz=\"%g\"\n", p->hdr.cpu_speed);
	xml_attr(x->out, "title", o->title ? o->title : "opreport ");
	fputs(">\n", x->out);
	/* the options OProfile records, in its order */
	fputs("<options ", x->out);
	if (o->spec_text && *o->spec_text) {
		char *s = strdup(o->spec_text);

		for (char *q = s; q && *q; q++)
			if (*q == ' ')
				*q = ',';
		xml_attr(x->out, "session", s ? s : o->spec_text);
		free(s);
	}
	if (o->debug_info)
		xml_attr(x->out, "debuginfo", "true");
	if (o->details)
		xml_attr(x->out, "details", "true");
	if (o->image_path)
		xml_attr(x->out, "imagepath", o->image_path);
	if (o->merge_text)
		xml_attr(x->out, "merge", o->merge_text);
	if (o->exclude_dependent)
		xml_attr(x->out, "excludedependent", "true");
	for (int pass = 0; pass < 2; pass++) {
		char *const *list = pass ? o->include_symbols : o->exclude_symbols;

		if (!list || !*list)
			continue;
		fprintf(x->out, " %s=\"", pass ? "includesymbols" : "excludesymbols");
		for (size_t i = 0; list[i]; i++) {
			if (i)
				fputc(',', x->out);
			xml_escape(x->out, list[i]);
		}
		fputc('"', x->out);
	}
	fputs("/>\n", x->out);
}

/* -X -d: the machine code of e's symbol as a <bytes> element (upper-case
 * hex, as OProfile's xml_utils::output_symbol_bytes), for symbols of ELF
 * files whose whole extent is in the file; nothing for the kernel, modules,
 * anonymous regions and samples outside every symbol. The extent runs to
 * the next symbol of the same segment, padding included, as OProfile's
 * op_bfd::symbol_size measures it; the last symbol keeps its own size. */
static void xml_symbol_bytes(const struct xml_ctx *x, const struct pp_entry *e,
			     size_t id)
{
	const struct pp_image *im = &x->p->images[e->image];
	size_t t = x->v->img_tab[e->image];
	const struct pp_symtab *st;
	unsigned char *buf;
	char *path;
	int fd;
	ssize_t n = -1;

	if (!e->sym || im->img.kind != OP_IMG_FILE || t == SIZE_MAX ||
	    x->v->tabs[t].status || !e->sym->size || e->sym->size > (1u << 24))
		return;
	st = &x->v->tabs[t].st;
	for (size_t i = 0; i < st->nr_segs; i++) {
		const struct pp_load_seg *g = &st->segs[i];
		const struct pp_sym *next = e->sym + 1;
		uint64_t size = e->sym->size;

		if (e->sym->start < g->vaddr ||
		    e->sym->start + e->sym->size > g->vaddr + g->filesz)
			continue;
		if (next < st->syms + st->nr_syms && next->start > e->sym->start &&
		    next->start <= g->vaddr + g->filesz && next->start - e->sym->start < (1u << 24))
			size = next->start - e->sym->start;
		path = locate_binary(im->img.path, x->o);
		buf = malloc(size);
		fd = path && buf ? open(path, O_RDONLY | O_CLOEXEC) : -1;
		if (fd >= 0) {
			n = pread(fd, buf, size,
				  (off_t)(e->sym->start - g->vaddr + g->offset));
			close(fd);
		}
		if (n == (ssize_t)size) {
			fprintf(x->out, "<bytes  id=\"%zu\">\n", id);
			for (size_t k = 0; k < size; k++)
				fprintf(x->out, "%02X", buf[k]);
			fputs("</bytes>\n", x->out);
		}
		free(buf);
		free(path);
		return;
	}
}

/* The CPU of class c's files, -1 for "all" or when --merge=cpu folds them:
 * the class's own value along the CPU axis, else the CPU its files share
 * (a single CPU selected, or another axis). */
static long class_cpu(const struct pp_profile *p, size_t c, bool merged)
{
	if (merged)
		return -1;
	if (p->fs.axis == PP_AXIS_CPU)
		return p->fs.classes[c].value;
	for (size_t i = 0; i < p->fs.nr_files; i++)
		if (p->fs.files[i].cls == c)
			return p->fs.files[i].name.cpu == OP_SF_ALL ? -1 :
			       p->fs.files[i].name.cpu;
	return -1;
}

/* The XML before its body: <profile>, <options>, <setup> and <classes>;
 * sets x->subclasses and x->sub[] (allocated by the caller) for the
 * counts that follow, and *by_thread when the body is <process> and
 * <thread> elements rather than <binary> ones. 0 or -ENOMEM. */
static int xml_prologue(struct xml_ctx *x, bool *by_thread)
{
	const struct pp_profile *p = x->p;
	const struct pp_report_opts *o = x->o;
	FILE *out = x->out;
	bool timer = p->hdr.cpu_type == ODB_CPU_TIMER_INT;
	char tid0[24];
	long *cpu_of = calloc(x->nc ? x->nc : 1, sizeof(*cpu_of));	/* per column: class_cpu() */
	/* per column: its event's index among the distinct event names,
	 * in column order (its <eventsetup> id) */
	size_t *ev_of = calloc(x->nc ? x->nc : 1, sizeof(*ev_of));
	size_t nr_cpus = 1, nr_events = 0;
	bool nonzero_masks = false;
	struct pp_merge merge = { 0 };

	*by_thread = p->fs.axis == PP_AXIS_TID || p->fs.axis == PP_AXIS_TGID;
	if (!cpu_of || !ev_of) {
		free(cpu_of);
		free(ev_of);
		return -ENOMEM;
	}
	if (o->merge_text)
		pp_merge_parse(o->merge_text, &merge, NULL);
	/* as OProfile's identify_xml_classes: the highest CPU of any class
	 * plus one, so a session split by CPU counts as separated even with
	 * one CPU selected, unless that CPU is 0 */
	for (size_t c = 0; c < p->fs.nr_classes; c++) {
		const struct pp_class *k = &p->fs.classes[c];
		long cpu = class_cpu(p, c, merge.cpu);

		cpu_of[c] = cpu;
		ev_of[c] = nr_events;
		for (size_t d = 0; d < c; d++)
			if (!strcmp(p->fs.classes[d].event, k->event)) {
				ev_of[c] = ev_of[d];
				break;
			}

		if (cpu >= 0 && (size_t)cpu + 1 > nr_cpus)
			nr_cpus = (size_t)cpu + 1;
		if (k->unit_mask)
			nonzero_masks = true;
		if (ev_of[c] + 1 > nr_events)
			nr_events = ev_of[c] + 1;
	}
	x->subclasses = nr_cpus > 1 || nr_events > 1 || nonzero_masks;
	/* as OProfile's build_subclasses: one "cN" per distinct cpu (when
	 * separated), event and unit mask, numbered in column order, so
	 * that the columns of different threads share names */
	for (size_t c = 0, nr_sub = 0; c < x->nc; c++) {
		size_t d;

		for (d = 0; d < c; d++)
			if ((nr_cpus <= 1 || cpu_of[d] == cpu_of[c]) &&
			    ev_of[d] == ev_of[c] &&
			    p->fs.classes[d].unit_mask == p->fs.classes[c].unit_mask)
				break;
		x->sub[c] = d < c ? x->sub[d] : nr_sub++;
	}
	/* across several axes, threads as OProfile decides: when the first
	 * column's tid is separated (or merged) */
	if (p->fs.axis == PP_AXIS_MULTI && x->nc) {
		class_field(p, 0, false, tid0, sizeof(tid0));
		*by_thread = merge.tid || strcmp(tid0, "all");
	}

	xml_header(x, nr_cpus);
	fputs("<setup>\n", out);
	for (size_t c = 0, id = 0; c < p->fs.nr_classes; c++) {
		const struct pp_class *k = &p->fs.classes[c];

		/* one setup per distinct event name, however many columns */
		if (ev_of[c] != id)
			continue;
		id++;
		if (timer) {
			fprintf(out, "<timersetup  rtcinterrupts=\"%lu\"/>\n", k->count);
			continue;
		}
		fprintf(out, "<eventsetup  id=\"%zu\"", id - 1);
		xml_attr(out, "eventname", k->event);
		fprintf(out, " unitmask=\"%u\" setupcount=\"%lu\"/>\n",
			k->unit_mask, k->count);
	}
	fputs("</setup>\n\n", out);
	if (x->subclasses) {
		fputs("<classes>\n", out);
		for (size_t c = 0, next = 0; c < x->nc; c++) {
			const struct pp_class *k = &p->fs.classes[c];

			if (x->sub[c] != next)
				continue;	/* named by an earlier column */
			next++;
			fprintf(out, "<class  name=\"c%zu\"", x->sub[c]);
			if (nr_cpus > 1 && cpu_of[c] >= 0)
				fprintf(out, " cpu=\"%ld\"", cpu_of[c]);
			else if (nr_cpus > 1)
				fputs(" cpu=\"all\"", out);
			if (nr_events > 1)
				fprintf(out, " event=\"%zu\"", ev_of[c]);
			if (nonzero_masks)
				fprintf(out, " mask=\"%u\"", k->unit_mask);
			fputs("/>\n", out);
		}
		fputs("</classes>\n", out);
	}
	free(cpu_of);
	free(ev_of);
	return 0;
}

static int print_xml(FILE *out, const struct pp_profile *p,
		     const struct pp_symview *v, const struct pp_report_opts *o)
{
	struct xml_ctx x = { .out = out, .p = p, .v = v, .o = o, .nc = v->nc };
	struct xml_sort_ctx sctx = { v, o, NULL };
	bool by_thread = false;
	uint64_t *sum = calloc(x.nc, sizeof(*sum));
	int ret = 0;

	x.sel = selected_entries(p, v, o, &x.nr);
	x.rep = malloc((v->nr_entries ? v->nr_entries : 1) * sizeof(*x.rep));
	x.sub = calloc(x.nc ? x.nc : 1, sizeof(*x.sub));
	x.id_of = malloc((v->nr_entries ? v->nr_entries : 1) * sizeof(*x.id_of));
	x.written = calloc(v->nr_entries ? v->nr_entries : 1, sizeof(*x.written));
	if (o->details) {
		size_t n = v->nr_entries ? v->nr_entries : 1;

		x.det = calloc(n, sizeof(*x.det));
		x.det_text = calloc(n, sizeof(*x.det_text));
		x.det_len = calloc(n, sizeof(*x.det_len));
		x.nr_det = calloc(n, sizeof(*x.nr_det));
		if (!x.det || !x.det_text || !x.det_len || !x.nr_det) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (!x.sel || !x.rep || !x.sub || !x.id_of ||
	    !x.written || !sum) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < v->nr_entries; i++)
		x.id_of[i] = SIZE_MAX;
	if (x.nr)
		qsort_r(x.sel, x.nr, sizeof(*x.sel), xml_entry_cmp, &sctx);
	ret = xml_share_ids(&x, &sctx);
	if (ret)
		goto out;
	ret = xml_prologue(&x, &by_thread);
	if (ret)
		goto out;
	if (by_thread)
		ret = xml_processes(&x, sum);
	else
		xml_binaries(&x, sum);
	if (ret)
		goto out;

	/* each idref once, from the first of its entries in XML order */
	fputs("<symboltable>\n", out);
	for (size_t i = 0; i < x.nr; i++) {
		const struct pp_entry *e = x.sel[i];
		size_t id = x.id_of[x.rep[e - v->entries]];

		if (id == SIZE_MAX || x.written[id])
			continue;
		x.written[id] = true;
		fprintf(out, "<symboldata  id=\"%zu\"  name=\"", id);
		xml_escape(out, e->name);
		fputc('"', out);
		/* -g: the symbol's source, full path, before its address */
		if (o->debug_info && e->src) {
			xml_attr(out, "file", e->src);
			fprintf(out, " line=\"%d\"", e->line);
		}
		fprintf(out, "  startingaddr=\"%08" PRIx64 "\"/>\n", e->vma);
	}
	fputs("</symboltable>\n", out);
	if (o->details) {
		/* each symbol's per-address counts, in idref order */
		fputs("<detailtable>\n", out);
		for (size_t i = 0; i < x.next_id; i++) {
			if (!x.det[i])
				continue;
			fclose(x.det[i]);
			x.det[i] = NULL;
			if (!x.nr_det[i])
				continue;
			fprintf(out, "<symboldetails  id=\"%zu\">\n", i);
			fwrite(x.det_text[i], 1, x.det_len[i], out);
			fputs("</symboldetails>\n", out);
		}
		fputs("</detailtable>\n", out);
		/* the code of each symbol, in symbol-table order */
		fputs("<bytestable>\n", out);
		memset(x.written, 0, v->nr_entries * sizeof(*x.written));
		for (size_t i = 0; i < x.nr; i++) {
			size_t id = x.id_of[x.rep[x.sel[i] - v->entries]];

			if (id == SIZE_MAX || x.written[id])
				continue;
			x.written[id] = true;
			xml_symbol_bytes(&x, x.sel[i], id);
		}
		fputs("</bytestable>\n", out);
	}
	fputs("</profile>\n", out);
out:
	free(x.sel);
	free(x.rep);
	free(x.sub);
	free(x.id_of);
	free(x.written);
	for (size_t i = 0; x.det && i < v->nr_entries; i++) {
		if (x.det[i])
			fclose(x.det[i]);
		free(x.det_text[i]);
	}
	free(x.det);
	free(x.det_text);
	free(x.det_len);
	free(x.nr_det);
	free(sum);
	return ret;
}

int pp_xml_prologue(FILE *out, const struct pp_profile *p,
		    const struct pp_symview *v, const struct pp_report_opts *o,
		    struct pp_xml_head *h)
{
	struct xml_ctx x = { .out = out, .p = p, .v = v, .o = o, .nc = v->nc };
	int ret;

	memset(h, 0, sizeof(*h));
	x.sub = calloc(x.nc ? x.nc : 1, sizeof(*x.sub));
	if (!x.sub)
		return -ENOMEM;
	ret = xml_prologue(&x, &h->by_thread);
	if (ret) {
		free(x.sub);
		return ret;
	}
	h->subclasses = x.subclasses;
	h->sub = x.sub;
	return 0;
}

void pp_xml_head_release(struct pp_xml_head *h)
{
	free(h->sub);
	h->sub = NULL;
}

void pp_xml_attr(FILE *out, const char *name, const char *value)
{
	xml_attr(out, name, value);
}

void pp_xml_escape(FILE *out, const char *s)
{
	xml_escape(out, s);
}

int pp_report_print(FILE *out, const struct pp_profile *p,
		    const struct pp_symview *v,
		    const struct pp_report_opts *o)
{
	if (o->xml)
		return print_xml(out, p, v, o);
	if (!o->no_header)
		pp_report_header(out, p, o);
	if (o->symbols || o->details)
		return print_symbols(out, p, v, o);
	return print_summary(out, p, v, o);
}

/* ---- differential ---- */

struct diff_row {
	const struct pp_entry *a, *b;
	const struct pp_symview *va, *vb;
	uint64_t na, nb;
};

static const char *row_img(const struct diff_row *r)
{
	return r->b ? r->vb->img_long[r->b->image] : r->va->img_long[r->a->image];
}

static const char *row_app(const struct diff_row *r)
{
	return r->b ? r->vb->app_long[r->b->image] : r->va->app_long[r->a->image];
}

static const char *row_name(const struct diff_row *r)
{
	return r->b ? r->b->name : r->a->name;
}

static int diff_key_cmp(const struct diff_row *x, const struct diff_row *y)
{
	int c = strcmp(row_app(x), row_app(y));

	if (!c)
		c = strcmp(row_img(x), row_img(y));
	if (!c)
		c = strcmp(row_name(x), row_name(y));
	return c;
}

static int diff_key_qcmp(const void *a, const void *b)
{
	return diff_key_cmp(a, b);
}

static int diff_out_cmp(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	int c = (x->nb < y->nb) - (x->nb > y->nb);

	if (!c)
		c = (x->na < y->na) - (x->na > y->na);
	return c ? c : diff_key_cmp(x, y);
}

static uint64_t sum_all(const uint64_t *v, size_t n)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s;
}

int pp_report_diff(FILE *out, const struct pp_profile *a,
		   const struct pp_symview *va, const struct pp_profile *b,
		   const struct pp_symview *vb,
		   const struct pp_report_opts *o)
{
	size_t na = va->nr_entries, nb = vb->nr_entries, n = 0;
	struct diff_row *rows = calloc(na + nb + 1, sizeof(*rows));
	uint64_t ta = sum_all(va->total, va->nc), tb = sum_all(vb->total, vb->nc);
	bool image_col = va->multiple_images || vb->multiple_images || !o->symbols;
	bool app_col = va->multiple_apps || vb->multiple_apps;
	char pct[32], num[32], diff[32];

	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < na; i++) {
		rows[n].a = &va->entries[i];
		rows[n].va = va;
		rows[n].vb = vb;
		rows[n].na = va->entries[i].sum;
		n++;
	}
	for (size_t i = 0; i < nb; i++) {
		rows[n].b = &vb->entries[i];
		rows[n].va = va;
		rows[n].vb = vb;
		rows[n].nb = vb->entries[i].sum;
		n++;
	}
	/* pair rows with the same (app, image, symbol) */
	if (n)
		qsort(rows, n, sizeof(*rows), diff_key_qcmp);
	{
		size_t k = 0;

		for (size_t i = 0; i < n; i++) {
			if (k && !diff_key_cmp(&rows[k - 1], &rows[i])) {
				if (rows[i].a) {
					rows[k - 1].a = rows[i].a;
					rows[k - 1].na += rows[i].na;
				}
				if (rows[i].b) {
					rows[k - 1].b = rows[i].b;
					rows[k - 1].nb += rows[i].nb;
				}
				continue;
			}
			rows[k++] = rows[i];
		}
		n = k;
	}
	if (n)
		qsort(rows, n, sizeof(*rows), diff_out_cmp);
	if (!o->no_header) {
		pp_report_header(out, b, o);
		put_col(out, "samples", 9);
		put_col(out, "%", 9);
		put_col(out, "diff %", 10);
		/* -l: [image] [app] symbol as in the symbol list; summary:
		 * [app] image */
		if (o->symbols && image_col)
			put_col(out, "image name", 25);
		if (app_col)
			put_col(out, "app name", 25);
		fputs(o->symbols ? "symbol name\n" : "image name\n", out);
	}
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *r = &rows[i];
		const char *img;
		double pa = percent(r->na, ta), pb = percent(r->nb, tb);

		if (o->threshold > 0 && pa < o->threshold && pb < o->threshold)
			continue;
		snprintf(num, sizeof(num), "%" PRIu64, r->nb);
		put_col(out, num, 9);
		pp_format_percent(pct, sizeof(pct), pb);
		fprintf(out, "%7s  ", pct);
		if (!r->na)
			snprintf(diff, sizeof(diff), "+++");
		else if (!r->nb)
			snprintf(diff, sizeof(diff), "---");
		else
			snprintf(diff, sizeof(diff), "%+.4f", (pb - pa) * 100.0 / pa);
		put_col(out, diff, 10);
		img = o->long_filenames ? row_img(r) :
			(r->b ? vb->img_names[r->b->image] : va->img_names[r->a->image]);
		if (o->symbols && image_col)
			put_col(out, img, 25);
		if (app_col)
			put_col(out, o->long_filenames ? row_app(r) :
				(r->b ? vb->app_names[r->b->image] :
				 va->app_names[r->a->image]), 25);
		fprintf(out, "%s\n", o->symbols ? row_name(r) : img);
	}
	free(rows);
	return 0;
}
