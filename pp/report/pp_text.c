/* The text report: the image summary (applications, their dependent
 * images), and the symbol list of -l, -g, -d, in OProfile's columns,
 * orders and thresholds. */
#include "config.h"
#include "pp_report.h"

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
#include <sys/stat.h>
#include <unistd.h>

#include "odb.h"
#include "op_events.h"
#include "op_names.h"
#include "pp_report_rooms.h"
#include "pp_symbols.h"
#include "pp_symview.h"

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
		pp_format_percent(pct, sizeof(pct), pp_percent(counts[c], totals[c]));
		fprintf(out, "%9" PRIu64 " %7s ", counts[c], pct);
	}
}

int pp_print_summary(FILE *out, const struct pp_profile *p,
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
		if (pp_below_threshold(r->total, p->total, 1, o->threshold))
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
		pp_put_col(out, num, 9);
		if (accumulated) {
			cum[c] += counts[c];
			snprintf(num, sizeof(num), "%" PRIu64, cum[c]);
			pp_put_col(out, num, 14);
		}
		pp_format_percent(pct, sizeof(pct), pp_percent(counts[c], totals[c]));
		if (last_bare && c + 1 == nc && !accumulated) {
			fprintf(out, "%7s", pct);
			continue;
		}
		fprintf(out, "%7s  ", pct);
		if (accumulated) {
			pp_format_percent(pct, sizeof(pct), pp_percent(cum[c], totals[c]));
			fprintf(out, "%7s    ", pct);
		}
	}
}

/* The column-title line of -l and -d ("samples  %  image name ..."). */
static void print_symbol_titles(FILE *out, const struct pp_report_opts *o,
				size_t nc, bool image_col, bool app_col)
{
	if (o->show_address || o->details)
		pp_put_col(out, "vma", 9);
	for (size_t c = 0; c < nc; c++) {
		pp_put_col(out, "samples", 9);
		if (o->accumulated)
			pp_put_col(out, "cum. samples", 14);
		pp_put_col(out, "%", 9);
		if (o->accumulated)
			pp_put_col(out, "cum. %", 11);
	}
	if (o->debug_info)
		pp_put_col(out, "linenr info", 28);
	if (image_col)
		pp_put_col(out, "image name", 25);
	if (app_col)
		pp_put_col(out, "app name", 25);
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

int pp_print_symbols(FILE *out, const struct pp_profile *p,
			 const struct pp_symview *v,
			 const struct pp_report_opts *o)
{
	size_t nr, nc = v->nc;
	const struct pp_entry **sel = pp_selected_entries(p, v, o, &nr);
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
			pp_put_col(out, buf, 9);
		}
		print_sym_cols(out, e->counts, v->total, cum, nc,
			       o->accumulated, false);
		if (o->debug_info) {
			format_line(buf, sizeof(buf), e->src, e->line,
				    o->long_filenames);
			pp_put_col(out, buf, 28);
		}
		if (image_col)
			pp_put_col(out, v->img_names[e->image], 25);
		if (app_col)
			pp_put_col(out, v->app_names[e->image], 25);
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

