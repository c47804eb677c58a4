/* OProfile's XML report (-X): the setup, the classes, the processes,
 * threads and modules (or binaries) with their counts, the symbol table,
 * and with -d the details and bytes tables, as OProfile's xml_utils writes
 * them, so that the same session gives the same document. */
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
#include "op_sessdir.h"
#include "pp_archive.h"
#include "pp_report_rooms.h"
#include "pp_symbols.h"
#include "pp_symview.h"

/* ---- XML ----
 *
 * OProfile's schema 3.1 as its xml_utils writes it. Symbols are always
 * listed (opreport -X resolves symbols with or without -l), sorted by
 * application, image, then address, so that each application's symbols
 * come together: one <binary> per application with its own symbols, then a
 * <module> per dependent image. When the columns are threads or processes
 * the body is <process>/<thread> elements instead, with the images of a
 * thread as <module>s, grouped as xml_thread_modules() says. <classes>
 * names the columns only when they differ by cpu, event or unit mask;
 * counts of zero are left out everywhere.
 */

struct xml_ctx {
	FILE *out;
	const struct pp_profile *p;
	const struct pp_symview *v;
	const struct pp_report_opts *o;
	const struct pp_entry **sel;	/* in XML order */
	size_t nr;
	size_t nc;
	bool subclasses;		/* <count class="cN"> */
	const size_t *sub;		/* per column: its N in "cN" (head's) */
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
		pp_xml_attr(f, "file", src);
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

static void add_counts(uint64_t *sum, const uint64_t *counts, size_t lo, size_t hi)
{
	for (size_t c = lo; c <= hi; c++)
		sum[c] += counts[c];
}

/* A <module> for classes [lo, hi] with the count sum, listing the
 * symbols of sel[from, to) sampled in those classes. */
static void xml_module_write(struct xml_ctx *x, size_t from, size_t to,
			     size_t lo, size_t hi, const uint64_t *sum)
{
	const struct pp_entry *first = x->sel[from];

	fputs("<module ", x->out);
	pp_xml_attr(x->out, "name", x->v->img_long[first->image]);
	fputs(">\n", x->out);
	xml_counts(x, sum, lo, hi);
	for (size_t i = from; i < to; i++)
		xml_symbol(x, x->sel[i], lo, hi);
	fputs("</module>\n", x->out);
}

/* Symbols sel[from, to) of one image as a <module> for classes [lo, hi]:
 * its summary is the sum of its symbols, as OProfile's is. */
static void xml_module(struct xml_ctx *x, size_t from, size_t to,
		       size_t lo, size_t hi, uint64_t *sum)
{
	memset(sum, 0, x->nc * sizeof(*sum));
	for (size_t i = from; i < to; i++)
		add_counts(sum, x->sel[i]->counts, lo, hi);
	if (has_counts(sum, lo, hi))
		xml_module_write(x, from, to, lo, hi, sum);
}

/* The <module>s of the thread of classes [lo, hi], grouped as OProfile's
 * xml_utils groups them. It walks every selected symbol in XML order, the
 * same walk for every thread: a symbol sampled in the thread opens a
 * module when its image is not that of the thread's last module, and the
 * first symbol of another image, sampled in the thread or not, ends the
 * symbols the module lists. Later symbols of the last module's image
 * still add to its count. So when another image's symbols sort between
 * two of the thread's (two programs of one base name, say), the thread
 * keeps one module, counts both and lists the first. */
static void xml_thread_modules(struct xml_ctx *x, size_t lo, size_t hi,
			       uint64_t *sum)
{
	size_t from = SIZE_MAX, to = SIZE_MAX;

	for (size_t i = 0; i <= x->nr; i++) {
		const struct pp_entry *e = i < x->nr ? x->sel[i] : NULL;

		if (e && from != SIZE_MAX &&
		    !strcmp(x->v->img_long[e->image],
			    x->v->img_long[x->sel[from]->image])) {
			add_counts(sum, e->counts, lo, hi);
			continue;
		}
		if (from != SIZE_MAX && to == SIZE_MAX)
			to = i;
		if (e && !has_counts(e->counts, lo, hi))
			continue;
		if (from != SIZE_MAX)
			xml_module_write(x, from, to, lo, hi, sum);
		if (!e)
			break;
		from = i;
		to = SIZE_MAX;
		memset(sum, 0, x->nc * sizeof(*sum));
		add_counts(sum, e->counts, lo, hi);
	}
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
		pp_xml_attr(x->out, "name", app);
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
		pp_xml_class_field(x->p, c, true, tgid[c], sizeof(tgid[c]));
		pp_xml_class_field(x->p, c, false, tid[c], sizeof(tid[c]));
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
		pp_xml_attr(x->out, "pid", tgid[ord[a]]);
		pp_xml_attr(x->out, "name", name ? name : "");
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
			pp_xml_attr(x->out, "tid", tid[lo]);
			fputs(">\n", x->out);
			xml_counts(x, psum, lo, hi);
			xml_thread_modules(x, lo, hi, sum);
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
		c = pp_entry_key_cmp(&sc, keys[k], x, y);
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
		path = pp_locate_binary(im->img.path, x->o->root,
					 x->o->image_path);
		buf = malloc(size);
		/* an archive's binary beneath the archive, no link
		 * followed out of it (pp_archive.h) */
		if (!path || !buf)
			fd = -1;
		else if (x->o->sd && op_sd_rel(x->o->sd, path))
			fd = op_sd_open(x->o->sd, path, O_RDONLY, 0);
		else
			fd = open(path, O_RDONLY | O_CLOEXEC);
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

int pp_print_xml(FILE *out, const struct pp_profile *p,
		     const struct pp_symview *v, const struct pp_report_opts *o)
{
	struct xml_ctx x = { .out = out, .p = p, .v = v, .o = o, .nc = v->nc };
	struct xml_sort_ctx sctx = { v, o, NULL };
	struct pp_xml_head head = { 0 };
	uint64_t *sum = calloc(x.nc, sizeof(*sum));
	int ret = 0;

	x.sel = pp_selected_entries(p, v, o, &x.nr);
	x.rep = malloc((v->nr_entries ? v->nr_entries : 1) * sizeof(*x.rep));
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
	if (!x.sel || !x.rep || !x.id_of ||
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
	ret = pp_xml_prologue(out, p, v, o, &head);
	if (ret)
		goto out;
	x.subclasses = head.subclasses;
	x.sub = head.sub;
	if (head.by_thread)
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
		pp_xml_escape(out, e->name);
		fputc('"', out);
		/* -g: the symbol's source, full path, before its address */
		if (o->debug_info && e->src) {
			pp_xml_attr(out, "file", e->src);
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
	pp_xml_head_release(&head);
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
