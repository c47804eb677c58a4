/* Which images a view finds, and OProfile's warnings about those it
 * cannot find or use (pp_symview.h; the view's rooms share
 * pp_symview_rooms.h). */
#include "config.h"
#include "pp_symview_rooms.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "op_grow.h"
#include "op_names.h"
#include "op_sessdir.h"
#include "pp_archive.h"
#include "pp_debuginfod.h"

/* True the first time path is seen in this report (it is then recorded). */
static bool first_warning(struct pp_report_status *st, const char *path)
{
	char **v;

	for (size_t i = 0; i < st->nr_warned; i++)
		if (!strcmp(st->warned[i], path))
			return false;
	if (st->nr_warned == st->alloc_warned) {
		v = op_grow(st->warned, st->nr_warned + 1, &st->alloc_warned, 16,
			    sizeof(*v));
		if (!v)
			return true;
		st->warned = v;
	}
	st->warned[st->nr_warned] = strdup(path);
	if (st->warned[st->nr_warned])
		st->nr_warned++;
	return true;
}

void pp_report_status_release(struct pp_report_status *st)
{
	for (size_t i = 0; i < st->nr_warned; i++)
		free(st->warned[i]);
	free(st->warned);
	st->warned = NULL;
	st->nr_warned = st->alloc_warned = 0;
}

/* ---- OProfile's warnings about images ----
 *
 * Worded, ordered and sent as OProfile's opreport sends them (its
 * image_errors.cpp and op_header.cpp), to st->err: before it reads any
 * image, every image it cannot find, in name order, once per report:
 * binaries, kernel modules (OProfile looks for "/NAME", or NAME.ko along
 * --image-path) and anonymous regions other than "anon" and "[vdso]";
 * then, image by image in the same order, one it found that it cannot
 * read as a binary, or whose mtime is not its samples'. Where OProfile
 * says nothing (a --vmlinux or kallsyms table we cannot read), ours
 * still warns through the logger.
 */

/* One of OProfile's warnings: "warning: MSG" on st->err, or through the
 * logger when the caller gave no stream. */
static void __attribute__((format(printf, 3, 4)))
image_warning(const struct op_logger *lg, const struct pp_report_status *st,
	      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (st->err) {
		fputs("warning: ", st->err);
		vfprintf(st->err, fmt, ap);
		fputc('\n', st->err);
	} else {
		op_vlog(lg, OP_LOG_WARN, fmt, ap);
	}
	va_end(ap);
}

/* The image of name (its long name) as OProfile finds it: a malloc'd
 * path, or NULL. An anonymous region is never found. */
char *pp_symview_find_image(const struct op_img *img, const char *name,
			    const struct pp_report_opts *o)
{
	char *path, *ko;

	if (img->kind == OP_IMG_ANON)
		return NULL;
	path = pp_locate_binary(name, o->root, o->image_path);
	if (path && o->sd && op_sd_rel(o->sd, path)) {
		/* in the session (a kept copy): through it, a link refused
		 * (pp_symview_session_link() names it) */
		struct stat sb;

		if (!op_sd_stat(o->sd, path, &sb) && S_ISREG(sb.st_mode))
			return path;
		free(path);
		return NULL;
	}
	if (path && pp_readable_file(path))
		return path;
	free(path);
	if (img->kind != OP_IMG_KERN || op_img_is_kernel(img) || !o->image_path)
		return NULL;
	if (asprintf(&ko, "%s.ko", name) < 0)
		return NULL;
	path = pp_locate_binary(ko, o->root, o->image_path);
	free(ko);
	if (path && pp_readable_file(path))
		return path;
	free(path);
	return NULL;
}

void pp_symview_session_link(const struct op_img *img, const char *name,
			     const struct pp_report_opts *o,
			     const struct op_logger *lg)
{
	char *path, why[PATH_MAX + 128];
	struct stat sb;
	int ret;

	if (!o->sd || img->kind != OP_IMG_FILE)
		return;
	path = pp_locate_binary(name, o->root, o->image_path);
	if (!path || !op_sd_rel(o->sd, path)) {
		free(path);
		return;
	}
	ret = op_sd_stat(o->sd, path, &sb);
	if (ret == -ELOOP || (!ret && S_ISLNK(sb.st_mode)))
		op_log(lg, OP_LOG_WARN, "%s", op_sd_explain(o->sd, path, -ELOOP, why,
							    sizeof(why)));
	free(path);
}

bool pp_symview_image_found(const struct op_img *img, const char *name,
			    const struct pp_report_opts *o)
{
	char *path = pp_symview_find_image(img, name, o);
	bool found = path != NULL;

	free(path);
	return found;
}

/* Regions OProfile knows have no file, and does not warn about. */
static bool never_found(const char *name)
{
	return !strncmp(name, "anon ", 5) || !strcmp(name, "/no-vmlinux") ||
	       !strncmp(name, "[vdso]", 6) || !strncmp(name, "[hypervisor_bucket]", 19);
}

/* An image's name as OProfile has it, for its order: the name in the
 * sample file's, where an anonymous region's '/' is %2F (ours prints the
 * region's real name: tests/interop/README.md, [anon-escape]). */
static char *oprofile_name(const struct pp_symview *v, const struct pp_profile *p,
			   size_t i)
{
	const char *name = v->img_long[i];
	size_t n = 0;
	char *out, *q;

	if (p->images[i].img.kind != OP_IMG_ANON)
		return strdup(name);
	for (const char *c = name; *c; c++)
		n += *c == '/' ? 3 : 1;
	out = malloc(n + 1);
	if (!out)
		return NULL;
	q = out;
	for (const char *c = name; *c; c++) {
		if (*c == '/') {
			memcpy(q, "%2F", 3);
			q += 3;
		} else {
			*q++ = *c;
		}
	}
	*q = '\0';
	return out;
}

static int cmp_name(const void *a, const void *b, void *vctx)
{
	char *const *keys = vctx;

	return strcmp(keys[*(const size_t *)a], keys[*(const size_t *)b]);
}

/* The first image of each long name in *out, sorted as OProfile lists
 * them: by its name, in byte order. Returns how many, or -ENOMEM. */
long pp_symview_images_by_name(const struct pp_symview *v,
			       const struct pp_profile *p, size_t **out)
{
	size_t nr = v->nr_images ? v->nr_images : 1;
	size_t *ord = malloc(nr * sizeof(*ord));
	char **keys = calloc(nr, sizeof(*keys));
	size_t n = 0;

	if (!ord || !keys)
		goto err_nomem;
	for (size_t i = 0; i < v->nr_images; i++) {
		size_t k;

		for (k = 0; k < n; k++)
			if (!strcmp(v->img_long[ord[k]], v->img_long[i]))
				break;
		if (k < n)
			continue;
		keys[i] = oprofile_name(v, p, i);
		if (!keys[i])
			goto err_nomem;
		ord[n++] = i;
	}
	qsort_r(ord, n, sizeof(*ord), cmp_name, keys);
	for (size_t i = 0; i < v->nr_images; i++)
		free(keys[i]);
	free(keys);
	*out = ord;
	return (long)n;

err_nomem:
	for (size_t i = 0; keys && i < v->nr_images; i++)
		free(keys[i]);
	free(keys);
	free(ord);
	return -ENOMEM;
}

/* The images OProfile cannot find. */
void pp_symview_warn_missing(const struct pp_symview *v,
			     const struct pp_profile *p, const size_t *ord,
			     size_t n, const struct pp_report_opts *o,
			     const struct op_logger *lg,
			     struct pp_report_status *st)
{
	const char *archive = o->archive ? o->archive : "";

	for (size_t k = 0; k < n; k++) {
		const char *name = v->img_long[ord[k]];
		char *shown;

		if (never_found(name) || pp_symview_image_found(&p->images[ord[k]].img, name, o))
			continue;
		if (asprintf(&shown, "%s%s", archive, name) < 0)
			continue;
		if (first_warning(st, shown)) {
			image_warning(lg, st, "%s could not be found.", shown);
			st->nr_missing++;
		}
		free(shown);
	}
}

/* The binaries OProfile found but cannot read, or whose mtime differs
 * from their samples' (the file's real path, once each; the second line
 * once per run). */
void pp_symview_warn_unusable(const struct pp_symview *v,
			      const struct pp_profile *p, const size_t *ord,
			      size_t n, const struct pp_report_opts *o,
			      const struct op_logger *lg,
			      struct pp_report_status *st)
{
	const char *archive = o->archive ? o->archive : "";

	for (size_t k = 0; k < n; k++) {
		const struct pp_image *im = &p->images[ord[k]];
		const char *name = v->img_long[ord[k]];
		size_t t = v->img_tab[ord[k]];
		char *path, *real, *shown;
		struct stat sb;

		if (im->img.kind != OP_IMG_FILE || t == SIZE_MAX)
			continue;
		path = pp_symview_find_image(&im->img, name, o);
		if (!path)
			continue;
		if (v->tabs[t].status) {
			if (asprintf(&shown, "%s%s", archive, name) >= 0) {
				if (first_warning(st, shown))
					image_warning(lg, st, "%s is not in a usable binary format.",
						      shown);
				free(shown);
			}
			free(path);
			continue;
		}
		real = realpath(path, NULL);
		if (real) {
			free(path);
			path = real;
		}
		if (stat(path, &sb) || (uint64_t)sb.st_mtime == im->mtime ||
		    !first_warning(st, path)) {
			free(path);
			continue;
		}
		if (!im->mtime) {
			image_warning(lg, st, "could not check that the binary file %s has "
				      "not been modified since the profile was taken. "
				      "Results may be inaccurate.", path);
		} else {
			image_warning(lg, st, "the last modified time of the binary file "
				      "does not match that of the sample file for %s", path);
			if (st->err && !st->explained_mtime)
				fputs("Either this is the wrong binary or the binary has been "
				      "modified since the sample file was created.\n", st->err);
			st->explained_mtime = true;
			st->nr_changed++;
		}
		free(path);
	}
}

/* Binaries read without a symbol table (stripped, no debug file found
 * here nor, with DEBUGINFOD_URLS, at a server): each named once, with the
 * build-id its debug file is found by, so the user knows what to install.
 * Ours alone: OProfile says nothing. */
void pp_symview_warn_no_symbols(const struct pp_symview *v,
				const struct pp_profile *p, const size_t *ord,
				size_t n, const struct pp_report_opts *o,
				struct pp_report_status *st)
{
	const char *archive = o->archive ? o->archive : "";

	for (size_t k = 0; k < n; k++) {
		const struct pp_image *im = &p->images[ord[k]];
		size_t t = v->img_tab[ord[k]];
		char bid[41 * 2], *key, *seen;

		if (im->img.kind != OP_IMG_FILE || t == SIZE_MAX || v->tabs[t].status ||
		    !v->tabs[t].st.is_elf || !v->tabs[t].st.dynsym_only)
			continue;
		if (asprintf(&key, "%s%s", archive, v->img_long[ord[k]]) < 0)
			continue;
		pp_symtab_build_id(&v->tabs[t].st, bid, sizeof(bid));
		/* its own key: the same image may have had another warning */
		if (asprintf(&seen, "no symbols: %s", key) >= 0) {
			if (first_warning(st, seen))
				pp_debuginfod_warn_no_symbols(st->err, key, bid);
			free(seen);
		}
		free(key);
	}
}
