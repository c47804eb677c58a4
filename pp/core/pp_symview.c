/* The symbol view: for each image of the profile, its binary found (by
 * path, --image-path, --root, build-id or debug link), its symbol table
 * loaded (on threads: libdw is slow and the images are independent), and
 * its sampled addresses turned into entries, one per symbol, with
 * OProfile's warnings about images it could not find or use. Every view
 * of a profile (text, XML, differential, call graph, exports) reads it. */
#include "config.h"
#include "pp_symview.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "odb.h"
#include "op_afile.h"
#include "op_cgroups.h"
#include "op_events.h"
#include "op_grow.h"
#include "op_names.h"
#include "op_vdso.h"
#include "pp_archive.h"
#include "pp_klines.h"
#include "pp_symbols.h"
#include "pp_symview_rooms.h"

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

/* An image's name as a column of a text report shows it: a binary kept
 * from a container by the path the container knew it by (its name in the
 * session is its copy's, which OProfile's tools read: op_cgroups.h), and
 * who ran it, as OProfile shows an anonymous region's process:
 * "/app/prog (container:NAME)". Any other image as img_name() has it. */
static char *shown_name(const struct op_img *img, bool long_name,
			const struct op_cgroups *cg)
{
	const char *rel, *path = img->kind == OP_IMG_FILE && img->path ?
				 op_kept_path(img->path, &rel) : NULL;
	char who[256], *s;

	if (!path)
		return img_name(img, long_name);
	if (!long_name && strrchr(path, '/')[1])
		path = strrchr(path, '/') + 1;
	if (op_cgroups_image_who(cg, rel, who, sizeof(who)))
		return asprintf(&s, "%s (container:%s)", path, who) < 0 ? NULL : s;
	return strdup(path);
}

int pp_symview_load_tab(struct pp_symtab *st, const struct op_img *img,
			const struct pp_report_opts *o, const struct op_logger *lg)
{
	char buf[PATH_MAX * 2];
	int ret;

	switch (img->kind) {
	case OP_IMG_FILE: {
		/* missing or unusable: pp_symview_warn_missing(), pp_symview_warn_unusable() */
		char *path = pp_symview_find_image(img, img->path, o);

		if (!path) {
			pp_symview_session_link(img, img->path, o, lg);
			return -ENOENT;
		}
		ret = pp_symtab_load_elf_sd(st, o->sd, path, o->debug_dirs, lg);
		free(path);
		return ret;
	}
	case OP_IMG_KERN:
		if (!op_img_is_kernel(img) || !o->vmlinux)
			return pp_symtab_load_kallsyms(st, o->kallsyms ? o->kallsyms :
						       "/proc/kallsyms",
						       op_img_is_kernel(img) ? NULL :
						       img->path);
		/* the kernel from --vmlinux */
		ret = pp_symtab_load_elf(st, o->vmlinux, o->debug_dirs, lg);
		if (!ret && st->nr_segs) {
			/* kernel offsets are relative to the text start */
			uint64_t base = UINT64_MAX;

			for (size_t i = 0; i < st->nr_segs; i++)
				if (st->segs[i].vaddr < base)
					base = st->segs[i].vaddr;
			for (size_t i = 0; i < st->nr_syms; i++)
				st->syms[i].start -= base;
			st->nr_segs = 0;
			st->bias += base;
		}
		if (ret)
			op_log(lg, OP_LOG_WARN, "no kernel symbols for %s: %s",
			       img->path, strerror(-ret));
		return ret;
	case OP_IMG_ANON:
		if (op_is_vdso_name(img->path) && o->vdso)
			return pp_symtab_load_vdso(st, o->vdso, lg);
		snprintf(buf, sizeof(buf), "%s%s/perf-%d.map",
			 o->root ? o->root : "", o->jit_dir ? o->jit_dir : "/tmp",
			 (int)img->anon_tgid);
		/* the name gives the region's last byte */
		return pp_symtab_load_perfmap(st, buf, img->anon_start,
					      img->anon_end + 1, NULL);
	}
	return -EINVAL;
}

/* The table of a report's image that is not read from kallsyms (those are
 * loaded together by load_tabs()). */
static int load_tab(struct img_tab *t, const struct pp_image *im,
		    const struct pp_report_opts *o, const struct op_logger *lg)
{
	t->status = pp_symview_load_tab(&t->st, &im->img, o, lg);
	return t->status;
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
	const struct op_sessdir *sd;	/* a session's saved copy: through it */
	const char *path;
	size_t n;
	const char **modules;	/* NULL: the kernel */
	struct pp_symtab *tabs;
	int *status;
	struct klines *klines;	/* -c: the kernel's lines too, or NULL */
};

static void *kallsyms_job_run(void *arg)
{
	struct kallsyms_job *j = arg;

	pp_symtab_load_kallsyms_each(j->sd, j->path, j->n, j->modules, j->tabs,
				     j->status, j->klines ? pp_klines_add : NULL,
				     j->klines);
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

	if (v->nr_entries == v->alloc_entries) {
		e = op_grow(v->entries, v->nr_entries + 1, &v->alloc_entries, 256,
			    sizeof(*e));
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
		size_t *a = op_grow(e->addrs, e->nr_addrs + 1, &e->alloc_addrs, 8,
				sizeof(*a));

		if (!a)
			return -ENOMEM;
		e->addrs = a;
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

/* The arc files' kernel ends, checked against the kallsyms tables. */
struct arc_cover {
	const struct pp_symtab *from, *to;	/* NULL: not checked */
	bool covered;
};

static bool off_in_symbol(const struct pp_symtab *st, uint64_t off)
{
	return pp_symtab_lookup(st, pp_symtab_off_to_vma(st, off)) != NULL;
}

static int arc_covered(uint64_t key, uint64_t count, void *arg)
{
	struct arc_cover *a = arg;

	(void)count;
	if ((a->from && !off_in_symbol(a->from, key >> 32)) ||
	    (a->to && !off_in_symbol(a->to, key & 0xffffffffu))) {
		a->covered = false;
		return 1;
	}
	return 0;
}

/* The table of job for img, when its symbols come from kallsyms. */
static const struct pp_symtab *job_tab(const struct kallsyms_job *job,
				       const struct op_img *img,
				       const struct pp_report_opts *o)
{
	if (!from_kallsyms(img, o))
		return NULL;
	for (size_t j = 0; j < job->n; j++)
		if (op_img_is_kernel(img) ? !job->modules[j] :
		    job->modules[j] && !strcmp(job->modules[j], img->path))
			return job->status[j] ? NULL : &job->tabs[j];
	return NULL;
}

/* -c: true when every kernel end of every arc falls in a symbol of the
 * tables job loaded (the session's saved copy). */
static bool arcs_cover(const struct pp_profile *p, const struct kallsyms_job *job,
		       const struct pp_report_opts *o)
{
	for (size_t i = 0; i < p->fs.nr_files; i++) {
		const struct pp_sfile *f = &p->fs.files[i];
		struct arc_cover a = { .covered = true };
		odb_t db;

		if (!f->name.cg.path)
			continue;
		a.from = job_tab(job, &f->name.image, o);
		a.to = job_tab(job, &f->name.cg, o);
		if ((from_kallsyms(&f->name.image, o) && !a.from) ||
		    (from_kallsyms(&f->name.cg, o) && !a.to))
			return false;	/* an image the copy does not hold */
		if (!a.from && !a.to)
			continue;
		if (pp_sfile_open(f, &db))
			continue;	/* named by the arcs' reader */
		odb_for_each(&db, arc_covered, &a);
		odb_close(&db);
		if (!a.covered)
			return false;
	}
	return true;
}

/* The session's own copy of the sampled kernel symbols (written by the
 * daemon when collection stops, see daemon/opd_ksyms.h), when the report
 * reads one session and no kallsyms file was named; for -c, a copy that
 * holds the arcs' ends too (its first line says so) with the order of the
 * kernel's names (OP_KORDER_FILE), which v->korder gets. Malloc'd, or
 * NULL. */
static char *session_ksyms(struct pp_symview *v, const struct pp_profile *p,
			   const struct pp_report_opts *o)
{
	char *path, line[256];
	FILE *f;
	bool ok;

	if (o->kallsyms || p->fs.nr_sessions != 1)
		return NULL;
	if (asprintf(&path, "%s/stats/kallsyms", p->fs.sessions[0]) < 0)
		return NULL;
	f = op_sd_fopen(p->fs.sd, path, "re");
	ok = f && (!o->callgraph || (fgets(line, sizeof(line), f) &&
				     !strcmp(line, OP_KSYMS_SAVED_HEADER "\n")));
	if (f)
		fclose(f);
	if (ok && o->callgraph) {
		v->korder = calloc(1, sizeof(*v->korder));
		ok = v->korder && !op_korder_read(p->fs.sd, p->fs.sessions[0], v->korder);
		if (!ok) {
			free(v->korder);
			v->korder = NULL;
		}
	}
	if (!ok) {
		free(path);
		return NULL;
	}
	return path;
}

/* -c walks the kernel's lines as OProfile meets them: when job reads
 * kallsyms for the kernel, gather them in the same read (the kernel
 * formats /proc/kallsyms anew each time, half of opreport -c's time when
 * it was read twice). */
static void gather_klines(struct pp_symview *v, struct kallsyms_job *job,
			  const struct pp_report_opts *o)
{
	for (size_t j = 0; o->callgraph && !v->klines && j < job->n; j++)
		if (!job->modules[j])
			v->klines = job->klines = pp_klines_new();
}

static void korder_free(struct pp_symview *v)
{
	if (v->korder)
		op_korder_release(v->korder);
	free(v->korder);
	v->korder = NULL;
}

/* The session's saved vDSO (op_vdso.h), when the report reads one
 * session, as a file of its own that libdw can open by name: read through
 * the session directory (no link followed out of it) into a memfd. Its
 * descriptor, or -1. */
static int session_vdso(const struct pp_profile *p, char *path, size_t len)
{
	unsigned char *buf = NULL;
	size_t n = 0;
	char *saved;
	int fd = -1;

	if (p->fs.nr_sessions != 1 ||
	    asprintf(&saved, "%s/" OP_VDSO_FILE, p->fs.sessions[0]) < 0)
		return -1;
	if (!op_file_read(p->fs.sd, saved, &buf, &n) && n &&
	    (fd = memfd_create("vdso", MFD_CLOEXEC)) >= 0) {
		if (write(fd, buf, n) != (ssize_t)n) {
			close(fd);
			fd = -1;
		} else {
			snprintf(path, len, "/proc/self/fd/%d", fd);
		}
	}
	free(buf);
	free(saved);
	return fd;
}

/* Load every table: kallsyms ones on a thread (one read of the file for
 * the kernel and all modules), the others here meanwhile. The kallsyms
 * tables come from the session's saved copy when it names every sampled
 * kernel address, else from /proc/kallsyms (or --kallsyms). Warnings come
 * in table order whichever thread loaded the table. 0 or -ENOMEM. */
static int load_tabs(struct pp_symview *v, const struct pp_profile *p,
		     const size_t *tab_image, const struct pp_report_opts *o,
		     const struct op_logger *lg)
{
	const char *kallsyms = o->kallsyms ? o->kallsyms : "/proc/kallsyms";
	char *saved = session_ksyms(v, p, o);
	struct pp_report_opts with_vdso = *o;
	char vdso[64];
	int vdso_fd = o->vdso ? -1 : session_vdso(p, vdso, sizeof(vdso));
	struct kallsyms_job job = { .sd = saved ? p->fs.sd : NULL,
				    .path = saved ? saved : kallsyms };
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
		if (vdso_fd >= 0)
			close(vdso_fd);
		return -ENOMEM;
	}
	if (vdso_fd >= 0) {
		with_vdso.vdso = vdso;
		o = &with_vdso;
	}
	for (size_t t = 0; t < v->nr_tabs; t++) {
		const struct op_img *img = &p->images[tab_image[t]].img;

		if (from_kallsyms(img, o)) {
			tab_of_job[job.n] = t;
			job.modules[job.n++] = op_img_is_kernel(img) ? NULL : img->path;
		}
	}
	if (!saved)	/* a saved copy comes with v->korder instead */
		gather_klines(v, &job, o);
	if (job.n)
		threaded = !pthread_create(&thread, NULL, kallsyms_job_run, &job);
	if (job.n && !threaded)
		kallsyms_job_run(&job);
	for (size_t t = 0; t < v->nr_tabs; t++) {
		const struct pp_image *im = &p->images[tab_image[t]];

		if (!from_kallsyms(&im->img, o))
			load_tab(&v->tabs[t], im, o, lg);
	}
	if (threaded)
		pthread_join(thread, NULL);
	for (size_t j = 0; saved && j <= job.n; j++) {
		if (j < job.n ? !job.status[j] &&
				ksyms_cover(v, p, tab_of_job, j, &job.tabs[j]) :
				!o->callgraph || arcs_cover(p, &job, o))
			continue;
		/* samples since the last stop, or a copy without this image
		 * or an arc's end */
		for (size_t i = 0; i < job.n; i++)
			pp_symtab_release(&job.tabs[i]);
		korder_free(v);
		gather_klines(v, &job, o);
		job.sd = NULL;
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
		/* a module OProfile does not find, it has said so */
		if (v->tabs[t].status && !op_img_is_kernel(img) &&
		    !pp_symview_image_found(img, v->img_long[tab_image[t]], o))
			continue;
		if (v->tabs[t].status)
			op_log(lg, OP_LOG_WARN, "no kernel symbols for %s: %s",
			       img->path, strerror(-v->tabs[t].status));
	}
	free(job.modules);
	free(job.tabs);
	free(job.status);
	free(tab_of_job);
	free(saved);
	if (vdso_fd >= 0)
		close(vdso_fd);
	return 0;
}

struct pp_symview *pp_symview_build(const struct pp_profile *p,
				    const struct pp_report_opts *opts,
				    const struct op_logger *lg,
				    struct pp_report_status *st)
{
	/* binaries kept in the session are read through it */
	struct pp_report_opts so = *opts;
	const struct pp_report_opts *o = &so;
	struct pp_symview *v = calloc(1, sizeof(*v));
	size_t n = p->nr_images;
	bool want_syms = o->symbols || o->details;
	size_t *tab_image = NULL;	/* per table: the first image using it */
	size_t *by_name = NULL;		/* pp_symview_images_by_name() */

	if (!so.sd)
		so.sd = p->fs.sd;
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
		v->img_names[i] = shown_name(&im->img, o->long_filenames, &p->fs.cgroups);
		v->app_names[i] = shown_name(&im->app, o->long_filenames, &p->fs.cgroups);
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
	if (want_syms) {
		long nr_names = pp_symview_images_by_name(v, p, &by_name);

		if (nr_names < 0)
			goto err_view;
		pp_symview_warn_missing(v, p, by_name, (size_t)nr_names, o, lg, st);
		if (load_tabs(v, p, tab_image, o, lg))
			goto err_view;
		pp_symview_warn_unusable(v, p, by_name, (size_t)nr_names, o, lg, st);
		pp_symview_warn_no_symbols(v, p, by_name, (size_t)nr_names, o, st);
		free(by_name);
		by_name = NULL;
	}
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
	free(by_name);
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
	pp_klines_free(v->klines);
	korder_free(v);
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

