/* The differential report: two profiles' symbols side by side, with the
 * change of each one's share, as OProfile's opreport prints
 * `opreport -l { A } { B }`. */
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
#include "pp_session.h"
#include "pp_symbols.h"
#include "pp_symview.h"

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
		pp_put_col(out, "samples", 9);
		pp_put_col(out, "%", 9);
		pp_put_col(out, "diff %", 10);
		/* -l: [image] [app] symbol as in the symbol list; summary:
		 * [app] image */
		if (o->symbols && image_col)
			pp_put_col(out, "image name", 25);
		if (app_col)
			pp_put_col(out, "app name", 25);
		fputs(o->symbols ? "symbol name\n" : "image name\n", out);
	}
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *r = &rows[i];
		const char *img;
		double pa = pp_percent(r->na, ta), pb = pp_percent(r->nb, tb);

		if (o->threshold > 0 && pa < o->threshold && pb < o->threshold)
			continue;
		snprintf(num, sizeof(num), "%" PRIu64, r->nb);
		pp_put_col(out, num, 9);
		pp_format_percent(pct, sizeof(pct), pb);
		fprintf(out, "%7s  ", pct);
		if (!r->na)
			snprintf(diff, sizeof(diff), "+++");
		else if (!r->nb)
			snprintf(diff, sizeof(diff), "---");
		else
			snprintf(diff, sizeof(diff), "%+.4f", (pb - pa) * 100.0 / pa);
		pp_put_col(out, diff, 10);
		img = o->long_filenames ? row_img(r) :
			(r->b ? vb->img_names[r->b->image] : va->img_names[r->a->image]);
		if (o->symbols && image_col)
			pp_put_col(out, img, 25);
		if (app_col)
			pp_put_col(out, o->long_filenames ? row_app(r) :
				(r->b ? vb->app_names[r->b->image] :
				 va->app_names[r->a->image]), 25);
		fprintf(out, "%s\n", o->symbols ? row_name(r) : img);
	}
	free(rows);
	return 0;
}

