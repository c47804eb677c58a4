/* opannotate's model and its source output: which symbols are kept, the
 * samples of each source line, and the annotated files. A room of its own
 * because it reads what opreport never reads (the sources) and lays out
 * what opreport never prints; the selection, symbols and lines are
 * opreport's (pp_profile, pp_symview, pp_symbols). */
#include "config.h"

#include "pp_annotate.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_grow.h"
#include "op_sessdir.h"
#include "pp_session.h"
#include "pp_symview.h"

/* OProfile's count column is 6 wide; its percent column 7 */
#define COUNT_WIDTH 6
#define PERCENT_WIDTH 7

/* ---- formatting ---- */

/* OProfile's format_percent() with 2 integer and 4 fraction digits,
 * which its opannotate uses (opreport's columns are pp_format_percent's):
 * right-aligned in 7, "100.000" cut from "100.0000", a bare "0", and
 * 1.0e-04 style for the smallest shares. */
static void annot_percent(char *buf, size_t len, double v)
{
	size_t n;

	if (v == 0.0) {
		snprintf(buf, len, "%*s", PERCENT_WIDTH, "0");
		return;
	}
	if (fabs(v) > .001)
		snprintf(buf, len, "%*.4f", PERCENT_WIDTH, v);
	else
		snprintf(buf, len, "%*.1e", PERCENT_WIDTH, v);
	n = strlen(buf);
	if (!strncmp(buf, "100.", 4) && n)
		buf[n - 1] = '\0';
}

void pp_annot_counts(char *buf, size_t len, const struct pp_annot *a,
		     const uint64_t *counts, bool pad)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t c = 0; c < a->nc && used < len; c++) {
		char pc[32];
		double r = a->total[c] ? (double)counts[c] * 100.0 / (double)a->total[c] : 0.0;
		int n;

		annot_percent(pc, sizeof(pc), r);
		n = snprintf(buf + used, len - used, "%*llu %s", COUNT_WIDTH,
			     (unsigned long long)counts[c], pc);
		if (n < 0)
			return;
		used += (size_t)n;
	}
	/* a line's columns are as wide as the blank ones (pp_annot_fill()),
	 * two spaces a column after the first; a total's are not padded */
	for (size_t c = 1; pad && c < a->nc && used + 2 < len; c++) {
		memcpy(buf + used, "  ", 3);
		used += 2;
	}
}

const char *pp_annot_fill(const struct pp_annot *a, char *buf, size_t len)
{
	size_t n = a->nc * (COUNT_WIDTH + 1 + PERCENT_WIDTH) +
		   (a->nc - 1) * 2;

	if (n + 3 > len)
		n = len - 3;
	memset(buf, ' ', n);
	memcpy(buf + n, " :", 3);
	return buf;
}

void pp_annot_info(FILE *out, const struct pp_annot *a,
		   const struct pp_annot_opts *o)
{
	struct pp_report_opts ro = { 0 };
	char *hdr = NULL, *line, *save = NULL;
	size_t hdr_len = 0;
	FILE *m;

	fprintf(out, "/* \n * Command line: %s\n * \n", o->command_line);
	fputs(" * Interpretation of command line:\n", out);
	if (!o->assembly) {
		fputs(" * Output annotated source file with samples\n", out);
		if (o->threshold != 0)
			fprintf(out, " * Output files where samples count reach "
				"%g%% of the samples\n", o->threshold);
		else
			fputs(" * Output all files\n", out);
	} else {
		fputs(" * Output annotated assembly listing with samples\n", out);
	}
	fputs(" * \n", out);
	/* opreport's header lines (CPU, events, classes), each in the
	 * comment */
	m = open_memstream(&hdr, &hdr_len);
	if (m) {
		pp_report_header(m, a->p, &ro);
		fclose(m);
		for (line = strtok_r(hdr, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			fprintf(out, " * %s\n", line);
		free(hdr);
	}
	fputs(" */\n", out);
}

/* ---- the model ---- */

bool pp_annot_line_of(struct pp_annot *a, const struct pp_symtab *st,
		      uint64_t vma, const char **file, int *line)
{
	const char *src, *dir;
	struct pp_annot_join *j;
	char *path;

	if (!pp_symtab_line_dir(st, vma, &src, line, &dir))
		return false;
	*file = src;
	/* (a relative directory, as reproducible builds record, is kept
	 * out: the name is then as good as the join) */
	if (!dir || dir[0] != '/')
		return true;
	for (size_t i = a->nr_joins; i-- > 0;) {
		if (a->joins[i].src == src && a->joins[i].dir == dir) {
			*file = a->joins[i].path;
			return true;
		}
	}
	if (a->nr_joins == a->alloc_joins) {
		j = op_grow(a->joins, a->nr_joins + 1, &a->alloc_joins, 16,
			    sizeof(*j));
		if (!j)
			return true;
		a->joins = j;
	}
	if (asprintf(&path, "%s/%s", dir, src) < 0)
		return true;
	a->joins[a->nr_joins++] = (struct pp_annot_join){ src, dir, path };
	*file = path;
	return true;
}

static int cmp_line(const void *x, const void *y)
{
	const struct pp_annot_line *a = x, *b = y;
	int c = strcmp(a->file, b->file);

	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static bool in_list(char *const *list, const char *s)
{
	for (size_t i = 0; list && list[i]; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

/* OProfile's symbol filter: exact names, exclusion first */
static bool symbol_kept(const struct pp_annot_opts *o, const char *name)
{
	if (in_list(o->exclude_symbols, name))
		return false;
	return !o->include_symbols || !o->include_symbols[0] ||
	       in_list(o->include_symbols, name);
}

int pp_annot_build(struct pp_annot *a, const struct pp_profile *p,
		   const struct pp_symview *v, const struct pp_annot_opts *o)
{
	size_t nr_addrs = 0, seq = 0, k = 0;
	uint64_t *counts;

	memset(a, 0, sizeof(*a));
	a->p = p;
	a->v = v;
	a->nc = v->nc;
	a->total = calloc(a->nc, sizeof(*a->total));
	a->syms = calloc(v->nr_entries ? v->nr_entries : 1, sizeof(*a->syms));
	if (!a->total || !a->syms)
		goto err_nomem;
	for (size_t i = 0; i < v->nr_entries; i++) {
		const struct pp_entry *e = &v->entries[i];

		if (!symbol_kept(o, e->name))
			continue;
		a->syms[a->nr_syms++].entry = i;
		nr_addrs += e->nr_addrs;
		for (size_t c = 0; c < a->nc; c++)
			a->total[c] += e->counts[c];
	}
	a->lines = calloc(nr_addrs ? nr_addrs : 1, sizeof(*a->lines));
	counts = calloc((nr_addrs ? nr_addrs : 1) * a->nc, sizeof(*counts));
	if (!a->lines || !counts) {
		free(counts);
		goto err_nomem;
	}
	/* every sampled address's line, in the order OProfile meets them:
	 * image by image, symbol by symbol, the symbol's first address
	 * before its samples (its names' ids order files of equal share) */
	for (size_t s = 0; s < a->nr_syms; s++) {
		struct pp_annot_sym *as = &a->syms[s];
		const struct pp_entry *e = &v->entries[as->entry];
		const struct pp_image *im = &p->images[e->image];
		const struct pp_symtab *st = pp_symview_symtab(v, e->image);

		if (!st || !e->sym)
			continue;
		if (!pp_annot_line_of(a, st, e->vma, &as->file, &as->line))
			as->file = NULL;
		as->seq = seq++;
		for (size_t j = 0; j < e->nr_addrs; j++) {
			size_t idx = e->addrs[j];
			struct pp_annot_line *l = &a->lines[k];

			if (!pp_annot_line_of(a, st, v->vmas[e->image][idx],
					      &l->file, &l->line))
				continue;
			l->seq = seq++;
			l->counts = counts + k * a->nc;
			memcpy(l->counts, im->counts + idx * a->nc,
			       a->nc * sizeof(*counts));
			k++;
		}
	}
	/* one record per (file, line); counts stay in the first's slot */
	qsort(a->lines, k, sizeof(*a->lines), cmp_line);
	for (size_t i = 0; i < k; i++) {
		struct pp_annot_line *last = a->nr_lines ? &a->lines[a->nr_lines - 1] : NULL;

		if (last && last->line == a->lines[i].line &&
		    !strcmp(last->file, a->lines[i].file)) {
			for (size_t c = 0; c < a->nc; c++)
				last->counts[c] += a->lines[i].counts[c];
			continue;
		}
		a->lines[a->nr_lines++] = a->lines[i];
	}
	a->have_lines = a->nr_lines > 0;
	a->counts_block = counts;
	return 0;

err_nomem:
	pp_annot_release(a);
	return -ENOMEM;
}

void pp_annot_release(struct pp_annot *a)
{
	free(a->total);
	free(a->syms);
	free(a->lines);
	free(a->counts_block);
	for (size_t i = 0; i < a->nr_joins; i++)
		free(a->joins[i].path);
	free(a->joins);
	memset(a, 0, sizeof(*a));
}

/* ---- source files ---- */

struct annot_file {
	const char *name;
	size_t first, n;		/* its lines: a->lines[first .. first+n) */
	size_t seq;			/* first met, itself or one of its symbols */
	double share;			/* highest share of any class */
	uint64_t *total;		/* [nc] */
};

static int cmp_file(const void *x, const void *y)
{
	const struct annot_file *a = x, *b = y;

	/* OProfile sorts (share, name id) ascending and reads it backward */
	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	return (a->seq < b->seq) - (a->seq > b->seq);
}

/* The symbols whose first address is on one line, in view order. */
static size_t syms_at(const struct pp_annot *a, const char *file, int line,
		      size_t *out, size_t max)
{
	size_t n = 0;

	for (size_t s = 0; s < a->nr_syms; s++) {
		const struct pp_annot_sym *as = &a->syms[s];

		if (as->file && as->line == line && !strcmp(as->file, file)) {
			if (n < max)
				out[n] = s;
			n++;
		}
	}
	return n;
}

static const uint64_t *sym_counts(const struct pp_annot *a, size_t s)
{
	return a->v->entries[a->syms[s].entry].counts;
}

static const char *sym_name(const struct pp_annot *a, size_t s)
{
	return a->v->entries[a->syms[s].entry].name;
}

/* " / * NAME total: COUNTS * /" (without the spaces inside the comment
 * marks), or several symbols with their sum */
static void put_sym_annotation(FILE *out, const struct pp_annot *a,
			       const size_t *syms, size_t n, char *buf, size_t len)
{
	uint64_t *sum;

	if (!n)
		return;
	sum = calloc(a->nc, sizeof(*sum));
	fputs(" /* ", out);
	for (size_t i = 0; i < n; i++) {
		pp_annot_counts(buf, len, a, sym_counts(a, syms[i]), false);
		fprintf(out, "%s%s%s%s", sym_name(a, syms[i]),
			n == 1 ? " total: " : " ", buf, n == 1 ? "" : ", ");
		for (size_t c = 0; sum && c < a->nc; c++)
			sum[c] += sym_counts(a, syms[i])[c];
	}
	if (n > 1 && sum) {
		pp_annot_counts(buf, len, a, sum, false);
		fprintf(out, "total: %s", buf);
	}
	fputs(" */", out);
	free(sum);
}

static void put_file_info(FILE *out, const struct pp_annot *a,
			  const struct annot_file *f, char *buf, size_t len)
{
	pp_annot_counts(buf, len, a, f->total, false);
	fprintf(out, "/* \n * Total samples for file : \"%s\"\n * \n * %s\n */\n\n",
		f->name, buf);
	/* OProfile's "<credited to line zero>" line: libdw's lines are never
	 * 0 here, so the line stays empty */
	fputc('\n', out);
}

static void annotate_file(FILE *out, FILE *in, const struct pp_annot *a,
			  const struct annot_file *f, bool header)
{
	size_t len = a->nc * 32 + 16, nr_at = 0, cap = 16;
	char *buf = malloc(len), *fill = malloc(len), *text = NULL;
	size_t *at = malloc(cap * sizeof(*at));
	size_t text_cap = 0, li = f->first, end = f->first + f->n;
	ssize_t got;

	if (!buf || !fill || !at)
		goto out;
	pp_annot_fill(a, fill, len);
	if (header)
		put_file_info(out, a, f, buf, len);
	if (in) {
		for (int line = 1; (got = getline(&text, &text_cap, in)) >= 0; line++) {
			if (got && text[got - 1] == '\n')
				text[--got] = '\0';
			while (li < end && a->lines[li].line < line)
				li++;
			if (li < end && a->lines[li].line == line) {
				pp_annot_counts(buf, len, a, a->lines[li].counts, true);
				fprintf(out, "%s :", buf);
			} else {
				fputs(fill, out);
			}
			fwrite(text, 1, (size_t)got, out);
			nr_at = syms_at(a, f->name, line, at, cap);
			if (nr_at > cap) {
				size_t *n2 = op_grow(at, nr_at, &cap, 16, sizeof(*at));

				if (n2)
					at = n2;
				nr_at = syms_at(a, f->name, line, at, cap);
			}
			put_sym_annotation(out, a, at, nr_at < cap ? nr_at : cap, buf, len);
			fputc('\n', out);
		}
	} else {
		/* no source: the file's symbols, at least, by line */
		for (size_t s = 0; s < a->nr_syms; s++) {
			if (!a->syms[s].file || strcmp(a->syms[s].file, f->name))
				continue;
			put_sym_annotation(out, a, &s, 1, buf, len);
			fputc('\n', out);
		}
	}
	if (!header)
		put_file_info(out, a, f, buf, len);
out:
	free(text);
	free(buf);
	free(fill);
	free(at);
}

static char *real_or_same(const char *path)
{
	char *r = realpath(path, NULL);

	return r ? r : strdup(path);
}

/* Where the debug information's file is read from, as OProfile finds it:
 * an absolute name loses the first --base-dirs prefix it has, then each
 * --search-dirs is tried with it; else the name itself (from the cwd when
 * relative). Malloc'd. */
static char *locate_source(const char *name, const struct pp_annot_opts *o)
{
	const char *file = name;

	if (name[0] == '/') {
		for (size_t i = 0; o->base_dirs && o->base_dirs[i]; i++) {
			char *base = real_or_same(o->base_dirs[i]);
			size_t n = base ? strlen(base) : 0;

			if (base && !strncmp(name, base, n)) {
				file = name + n;
				free(base);
				break;
			}
			free(base);
		}
	}
	for (size_t i = 0; o->search_dirs && o->search_dirs[i]; i++) {
		char *cand, *abs;

		if (asprintf(&cand, "%s/%s", o->search_dirs[i], file) < 0)
			return NULL;
		abs = real_or_same(cand);
		free(cand);
		if (abs && !access(abs, R_OK))
			return abs;
		free(abs);
	}
	return real_or_same(name);
}

static bool glob_any(char *const *pats, const char *s)
{
	for (size_t i = 0; pats && pats[i]; i++)
		if (fnmatch(pats[i], s, 0) != FNM_NOMATCH)
			return true;
	return false;
}

/* OProfile's path filter: an excluded directory component or base name
 * excludes, an included base name or directory component includes, and
 * without --include-file everything else is included. */
static bool file_kept(const struct pp_annot_opts *o, const char *path)
{
	const char *base = strrchr(path, '/');
	char *dir = strdup(path), *slash;
	bool kept = !o->include_files || !o->include_files[0];
	bool decided = false;

	base = base ? base + 1 : path;
	if (!dir)
		return kept;
	if (glob_any(o->exclude_files, base)) {
		kept = false;
		decided = true;
	}
	for (int pass = 0; pass < 2 && !decided; pass++) {
		char *const *pats = pass ? o->include_files : o->exclude_files;

		if (pass && glob_any(o->include_files, base)) {
			kept = true;
			break;
		}
		strcpy(dir, path);
		while ((slash = strrchr(dir, '/')) && slash != dir) {
			const char *comp;

			*slash = '\0';
			comp = strrchr(dir, '/');
			comp = comp ? comp + 1 : dir;
			if (glob_any(pats, comp)) {
				kept = pass == 1;
				decided = true;
				break;
			}
		}
	}
	free(dir);
	return kept;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* One file of --output-dir's tree: the file with the per-file comment and
 * the command's comment after it, under dir (absolute, ending in '/') at
 * the source's own path, created beneath sd (dir's descriptor) with no
 * link followed. OProfile's refusals: names that climb out of the
 * directory, and the source itself. */
static void write_tree_file(FILE *in, const struct pp_annot *a,
			    const struct annot_file *f, const char *source,
			    const struct pp_annot_opts *o, const char *dir,
			    const struct op_sessdir *sd, const struct op_logger *lg)
{
	char *joined, *path, why[PATH_MAX + 64];
	const char *rel;
	FILE *out;
	int ret;

	if (asprintf(&joined, "%s%s", dir, source) < 0)
		return;
	path = real_or_same(joined);
	free(joined);
	if (!path)
		return;
	if (strstr(path, "/../")) {
		if (in)
			op_log(lg, OP_LOG_WARN, "refusing to create non-canonical filename %s", path);
		goto out;
	}
	if (strncmp(path, dir, strlen(dir))) {
		if (in)
			op_log(lg, OP_LOG_WARN, "refusing to create file %s outside of "
			       "output directory %s", path, dir);
		goto out;
	}
	if (same_file(path, source)) {
		op_log(lg, OP_LOG_WARN, "input and output files are identical: %s", path);
		goto out;
	}
	/* path beneath dir, relative to sd ("dir//usr/..." for an absolute
	 * source) */
	for (rel = path + strlen(dir); *rel == '/'; rel++)
		;
	ret = op_sd_mkparents(sd, rel, 0755);
	if (ret) {
		op_log(lg, OP_LOG_WARN, "unable to create the directories of %s: %s",
		       path, op_sd_explain(sd, rel, ret, why, sizeof(why)));
		goto out;
	}
	out = op_sd_fopen(sd, rel, "w");
	if (!out) {
		op_log(lg, OP_LOG_WARN, "unable to open output file %s: %s", path,
		       op_sd_explain(sd, rel, -errno, why, sizeof(why)));
		goto out;
	}
	annotate_file(out, in, a, f, false);
	pp_annot_info(out, a, o);
	if (ferror(out) | fclose(out))
		op_log(lg, OP_LOG_WARN, "error writing %s", path);
out:
	free(path);
}

/* The files with samples, ordered as OProfile lists them, those below
 * the threshold left out. *nr set; NULL with -ENOMEM in *err. */
static struct annot_file *select_files(const struct pp_annot *a, double threshold,
				       size_t *nr, int *err)
{
	struct annot_file *files = calloc(a->nr_lines ? a->nr_lines : 1, sizeof(*files));
	size_t n = 0, kept = 0;

	*err = 0;
	if (!files) {
		*err = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < a->nr_lines; i++) {
		struct annot_file *f = n ? &files[n - 1] : NULL;

		if (!f || strcmp(f->name, a->lines[i].file)) {
			f = &files[n++];
			f->name = a->lines[i].file;
			f->first = i;
			f->seq = a->lines[i].seq;
			f->total = calloc(a->nc, sizeof(*f->total));
			if (!f->total) {
				*err = -ENOMEM;
				break;
			}
		}
		f->n++;
		if (a->lines[i].seq < f->seq)
			f->seq = a->lines[i].seq;
		for (size_t c = 0; c < a->nc; c++)
			f->total[c] += a->lines[i].counts[c];
	}
	for (size_t i = 0; i < n && !*err; i++) {
		struct annot_file *f = &files[i];

		/* a symbol met first names its file first */
		for (size_t s = 0; s < a->nr_syms; s++)
			if (a->syms[s].file && !strcmp(a->syms[s].file, f->name) &&
			    a->syms[s].seq < f->seq)
				f->seq = a->syms[s].seq;
		for (size_t c = 0; c < a->nc; c++) {
			double r = a->total[c] ? (double)f->total[c] / (double)a->total[c] : 0.0;

			if (r > f->share)
				f->share = r;
		}
	}
	qsort(files, n, sizeof(*files), cmp_file);
	for (size_t i = 0; i < n; i++) {
		if (!*err && files[i].share >= threshold / 100.0) {
			files[kept++] = files[i];
			continue;
		}
		free(files[i].total);
	}
	*nr = kept;
	return files;
}

int pp_annotate_source(FILE *out, const struct pp_annot *a,
		       const struct pp_annot_opts *o, const struct op_logger *lg)
{
	struct op_sessdir sd = { .fd = -1 };
	struct annot_file *files;
	char *dir = NULL;
	size_t nr = 0;
	int ret;

	if (o->output_dir) {
		char why[PATH_MAX + 256], *real;

		/* a writer's directory, as oparchive's: checked (owner, nobody
		 * else writing, parents), made 0755 when new, and every file
		 * created beneath it, no link followed */
		ret = op_sessdir_open(&sd, o->output_dir, OP_SD_WRITE | OP_SD_CREATE,
				      why, sizeof(why));
		if (ret) {
			op_log(lg, OP_LOG_ERR, "output directory refused: %s", why);
			return ret;
		}
		real = realpath(o->output_dir, NULL);
		if (!real || !strcmp(real, "/")) {
			ret = real ? -EINVAL : -errno;
			if (real)
				op_log(lg, OP_LOG_ERR, "output path of / would over-write the "
				       "source files");
			else
				op_log(lg, OP_LOG_ERR, "unable to use %s directory: %s",
				       o->output_dir, strerror(-ret));
			free(real);
			op_sessdir_close(&sd);
			return ret;
		}
		ret = asprintf(&dir, "%s/", real);
		free(real);
		if (ret < 0) {
			op_sessdir_close(&sd);
			return -ENOMEM;
		}
	} else {
		pp_annot_info(out, a, o);
	}
	files = select_files(a, o->threshold, &nr, &ret);
	for (size_t i = 0; files && !ret && i < nr; i++) {
		char *source = locate_source(files[i].name, o);
		FILE *in;

		if (!source) {
			ret = -ENOMEM;
			break;
		}
		if (!file_kept(o, source)) {
			free(source);
			continue;
		}
		in = fopen(source, "r");
		if (!in && *source)
			op_log(lg, OP_LOG_WARN, "unable to open for reading: %s: %s",
			       source, strerror(errno));
		if (*source) {
			if (dir)
				write_tree_file(in, a, &files[i], source, o, dir, &sd, lg);
			else
				annotate_file(out, in, a, &files[i], true);
		}
		if (in)
			fclose(in);
		free(source);
	}
	for (size_t i = 0; files && i < nr; i++)
		free(files[i].total);
	free(files);
	free(dir);
	op_sessdir_close(&sd);
	return ret;
}
