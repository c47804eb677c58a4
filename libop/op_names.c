/* Sample-file names. The daemon writes a file per (image, dependent image,
 * event, separation key) and opreport finds them again by parsing the names,
 * so building and parsing live together here and are exact inverses.
 *
 * Ordinary paths come out exactly as OProfile writes them:
 *   {root}/usr/bin/foo/{dep}/{root}/usr/bin/foo/TIMER.100000.0.all.all.all
 * Everything that could be ambiguous or unsafe as a path component is
 * escaped, component by component:
 *   '%', control characters (< 0x20, 0x7f)   -> %XX (two upper-case hex digits)
 *   a leading '{'                            -> %7B (the markers {root},
 *                                               {kern}, {dep}, {anon:..} are
 *                                               the only components starting
 *                                               with '{')
 *   "." and ".."                             -> %2E, %2E%2E
 *   an empty component ("a//b", trailing /)  -> %-
 *   a component longer than 255 bytes        -> split into pieces of at most
 *                                               255 bytes, each but the last
 *                                               ending in %+ (continued)
 * A kernel image named by a path is filed under {root} as OProfile 1.x's
 * operf files it: {root}/proc/kallsyms, which parses back as the kernel,
 * or {root}/boot/vmlinux-..., which parses back as a file (the sample
 * file's header flags it as the kernel); names without '/' (modules,
 * "no-vmlinux") go under {kern}: a module "ext4" is {kern}/ext4. (Sessions
 * of ours from before this layout filed the kernel as
 * {kern}/%-/proc/kallsyms, a name no longer accepted.) The
 * event name also escapes '.', the field separator of the last component;
 * an anonymous region's name also escapes '/' and '}'.
 *
 * So no component built is empty, ".", ".." or too long, and the name stays
 * below the directory it is relative to. Parsing decodes leniently, then
 * rebuilds and compares: a name is accepted only in the one form the builder
 * makes, which is what makes parse(build(x)) == x and build(parse(s)) == s.
 */
#include "config.h"
#include "op_names.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "op_grow.h"

#define OP_NAME_MAX 255		/* a file-name component */

/* A growable string; a failed allocation sticks in ->oom. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_grow(struct sbuf *b, size_t more)
{
	char *s;

	if (b->oom || b->len + more + 1 <= b->cap)
		return;
	s = op_grow(b->s, b->len + more + 1, &b->cap, 64, 1);
	if (!s) {
		b->oom = true;
		return;
	}
	b->s = s;
}

static void sb_addn(struct sbuf *b, const char *s, size_t n)
{
	sb_grow(b, n);
	if (b->oom)
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_add(struct sbuf *b, const char *s)
{
	sb_addn(b, s, strlen(s));
}

static void sb_addc(struct sbuf *b, char c)
{
	sb_addn(b, &c, 1);
}

static void sb_addf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void sb_addf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		sb_addn(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

enum esc_kind {
	ESC_PATH,	/* a component of a file path or kernel name */
	ESC_EVENT,	/* an event name: also '.' */
	ESC_ANON,	/* an anonymous region name inside {anon:...}: also '/', '}' */
};

static bool needs_escape(unsigned char c, size_t pos, enum esc_kind kind)
{
	if (c == '%' || c < 0x20 || c == 0x7f)
		return true;
	if (pos == 0 && c == '{' && kind != ESC_ANON)
		return true;
	switch (kind) {
	case ESC_PATH:
		return c == '/';
	case ESC_EVENT:
		return c == '.' || c == '/';
	case ESC_ANON:
		return c == '/' || c == '}';
	}
	return false;
}

/* Escape n bytes of s (one logical component) into b. */
static void escape(struct sbuf *b, const char *s, size_t n, enum esc_kind kind)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i;

	if (kind == ESC_PATH && n == 0) {
		sb_add(b, "%-");
		return;
	}
	if (kind == ESC_PATH && ((n == 1 && s[0] == '.') ||
				 (n == 2 && s[0] == '.' && s[1] == '.'))) {
		sb_add(b, n == 1 ? "%2E" : "%2E%2E");
		return;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (needs_escape(c, i, kind)) {
			sb_addc(b, '%');
			sb_addc(b, hex[c >> 4]);
			sb_addc(b, hex[c & 15]);
		} else {
			sb_addc(b, (char)c);
		}
	}
}

/* Append "/" (unless first) + the escaped component e (length n), split
 * into pieces of at most OP_NAME_MAX bytes. A split never falls inside a %XX
 * escape and never leaves a last piece shorter than 3 bytes (which could
 * read "." or ".."). */
static void add_component_at(struct sbuf *b, const char *e, size_t n, bool first)
{
	while (n > OP_NAME_MAX) {
		size_t p = OP_NAME_MAX - 2;

		if (n - p < 3)
			p = n - 3;
		if (e[p - 1] == '%')
			p -= 1;
		else if (e[p - 2] == '%')
			p -= 2;
		if (!first)
			sb_addc(b, '/');
		first = false;
		sb_addn(b, e, p);
		sb_add(b, "%+");
		e += p;
		n -= p;
	}
	if (!first)
		sb_addc(b, '/');
	sb_addn(b, e, n);
}

static void add_component(struct sbuf *b, const char *e, size_t n)
{
	add_component_at(b, e, n, false);
}

/* Append "/" + one escaped logical component made of raw bytes s[0..n). */
static void add_raw_component(struct sbuf *b, const char *s, size_t n,
			      enum esc_kind kind)
{
	struct sbuf e = { 0 };

	escape(&e, s, n, kind);
	if (e.oom)
		b->oom = true;
	else
		add_component(b, e.s ? e.s : "", e.len);
	free(e.s);
}

/* Append the components of s split on '/'. */
static void add_path(struct sbuf *b, const char *s)
{
	for (;;) {
		const char *slash = strchr(s, '/');
		size_t n = slash ? (size_t)(slash - s) : strlen(s);

		add_raw_component(b, s, n, ESC_PATH);
		if (!slash)
			break;
		s = slash + 1;
	}
}

static int add_image(struct sbuf *b, const struct op_img *img, bool first)
{
	if (!img->path)
		return -EINVAL;
	switch (img->kind) {
	case OP_IMG_FILE:
		if (img->path[0] != '/')
			return -EINVAL;
		sb_add(b, first ? "{root}" : "/{root}");
		add_path(b, img->path + 1);
		return 0;
	case OP_IMG_KERN:
		if (img->path[0] == '/') {
			/* the kernel by its path, as operf files it */
			sb_add(b, first ? "{root}" : "/{root}");
			add_path(b, img->path + 1);
			return 0;
		}
		sb_add(b, first ? "{kern}" : "/{kern}");
		add_path(b, img->path);
		return 0;
	case OP_IMG_ANON: {
		struct sbuf e = { 0 };

		if (img->anon_tgid < 0)
			return -EINVAL;
		sb_add(&e, "{anon:");
		escape(&e, img->path, strlen(img->path), ESC_ANON);
		sb_addc(&e, '}');
		if (e.oom) {
			free(e.s);
			return -ENOMEM;
		}
		add_component_at(b, e.s, e.len, first);
		free(e.s);
		sb_addf(b, "/%d.0x%" PRIx64 ".0x%" PRIx64, (int)img->anon_tgid,
			img->anon_start, img->anon_end);
		return 0;
	}
	}
	return -EINVAL;
}

static void add_field(struct sbuf *b, int v)
{
	if (v == OP_SF_ALL)
		sb_add(b, ".all");
	else
		sb_addf(b, ".%d", v);
}

char *op_sfname_build(const struct op_sfname *n)
{
	struct sbuf b = { 0 };
	struct sbuf ev = { 0 };
	int ret;

	if (!n || !n->event || !*n->event || n->tgid < OP_SF_ALL ||
	    n->tid < OP_SF_ALL || n->cpu < OP_SF_ALL) {
		errno = EINVAL;
		return NULL;
	}
	/* the application first, the image the samples fell in after {dep},
	 * as OProfile's daemon names them */
	ret = add_image(&b, &n->dep, true);
	if (!ret) {
		sb_add(&b, "/{dep}");
		ret = add_image(&b, &n->image, false);
	}
	if (!ret && n->cg.path) {
		sb_add(&b, "/{cg}");
		ret = add_image(&b, &n->cg, false);
	}
	if (ret) {
		free(b.s);
		errno = -ret;
		return NULL;
	}
	escape(&ev, n->event, strlen(n->event), ESC_EVENT);
	if (!ev.oom) {
		sb_grow(&ev, 80);
		sb_addf(&ev, ".%lu.%u", n->count, n->unit_mask);
		add_field(&ev, n->tgid);
		add_field(&ev, n->tid);
		add_field(&ev, n->cpu);
	}
	if (ev.oom) {
		b.oom = true;
	} else {
		add_component(&b, ev.s, ev.len);
	}
	free(ev.s);
	if (b.oom) {
		free(b.s);
		errno = ENOMEM;
		return NULL;
	}
	return b.s;
}

/* --- parsing --- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode an escaped string of n bytes into a malloc'd string. Lenient about
 * form (the caller rebuilds and compares), strict about what cannot be
 * represented: a bad escape or an escaped NUL. */
static char *unescape(const char *s, size_t n)
{
	char *out, *o;
	size_t i;

	if (n == 2 && s[0] == '%' && s[1] == '-')
		return strdup("");
	out = malloc(n + 1);
	if (!out)
		return NULL;
	o = out;
	for (i = 0; i < n; i++) {
		if (s[i] == '%') {
			int hi, lo;

			if (i + 2 >= n)
				goto err;
			hi = hexval(s[i + 1]);
			lo = hexval(s[i + 2]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				goto err;
			*o++ = (char)(hi << 4 | lo);
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
err:
	free(out);
	errno = EINVAL;
	return NULL;
}

/* The logical components of a name: pieces joined across %+ splits. */
struct comps {
	char **v;
	size_t nr, alloc;
};

/* Room for one more component in c: 0 or -ENOMEM. */
static int comps_room(struct comps *c)
{
	char **v;

	if (c->nr < c->alloc)
		return 0;
	v = op_grow(c->v, c->nr + 1, &c->alloc, 16, sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->v = v;
	return 0;
}

static void comps_free(struct comps *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		free(c->v[i]);
	free(c->v);
	c->v = NULL;
	c->nr = c->alloc = 0;
}

static int comps_split(const char *rel, struct comps *c)
{
	struct sbuf cur = { 0 };
	const char *s = rel;

	c->v = NULL;
	c->nr = c->alloc = 0;
	for (;;) {
		const char *slash = strchr(s, '/');
		size_t n = slash ? (size_t)(slash - s) : strlen(s);
		bool cont = n >= 2 && s[n - 2] == '%' && s[n - 1] == '+';

		sb_addn(&cur, s, cont ? n - 2 : n);
		if (!cont || !slash) {
			if (cont || cur.oom)	/* a continuation with nothing after */
				goto err;
			if (comps_room(c))
				goto err;
			c->v[c->nr++] = cur.s ? cur.s : strdup("");
			if (!c->v[c->nr - 1])
				goto err;
			memset(&cur, 0, sizeof(cur));
		}
		if (!slash)
			break;
		s = slash + 1;
	}
	return 0;
err:
	free(cur.s);
	comps_free(c);
	return -EINVAL;
}

/* Parse a decimal number without sign, spaces or leading zeros. */
static bool parse_ulong(const char *s, size_t n, unsigned long max,
			unsigned long *out)
{
	unsigned long v = 0;
	size_t i;

	if (n == 0 || (n > 1 && s[0] == '0'))
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > (max - (unsigned long)(s[i] - '0')) / 10)
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	*out = v;
	return true;
}

static bool parse_hex64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n < 3 || s[0] != '0' || s[1] != 'x' || n > 18)
		return false;
	for (i = 2; i < n; i++) {
		int d = hexval(s[i]);

		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return true;
}

static bool parse_sep(const char *s, size_t n, int *out)
{
	unsigned long v;

	if (n == 3 && !memcmp(s, "all", 3)) {
		*out = OP_SF_ALL;
		return true;
	}
	if (!parse_ulong(s, n, INT_MAX, &v))
		return false;
	*out = (int)v;
	return true;
}

/* Parse one image starting at component *i, stopping before "{dep}" (if
 * stop_at_dep) or before the last component. */
/* The image in components [*i, the first `stop` after it), or up to the
 * event's component when stop is NULL; *i is left at its end. Marker
 * components cannot be path components: those are escaped. */
static int parse_image(const struct comps *c, size_t *i, const char *stop,
		       struct op_img *img)
{
	size_t end, k;
	const char *first = c->v[*i];
	struct sbuf path = { 0 };

	if (stop) {
		for (end = *i; end < c->nr && strcmp(c->v[end], stop); end++)
			;
		if (end == c->nr)
			return -EINVAL;
	} else {
		end = c->nr - 1;
	}
	if (*i >= end)
		return -EINVAL;

	if (!strcmp(first, "{root}") || !strcmp(first, "{kern}")) {
		img->kind = first[1] == 'r' ? OP_IMG_FILE : OP_IMG_KERN;
		if (*i + 1 >= end)
			return -EINVAL;
		if (img->kind == OP_IMG_FILE)
			sb_addc(&path, '/');
		for (k = *i + 1; k < end; k++) {
			char *d = unescape(c->v[k], strlen(c->v[k]));

			if (!d) {
				free(path.s);
				return -EINVAL;
			}
			if (k > *i + 1)
				sb_addc(&path, '/');
			sb_add(&path, d);
			free(d);
		}
		if (path.oom || !path.s) {
			free(path.s);
			return path.oom ? -ENOMEM : -EINVAL;
		}
		img->path = path.s;
		/* the kernel under {root} by the name of its symbol file; a
		 * kernel named by its vmlinux path reads as a file, and the
		 * sample file's header (is_kernel) says what it is */
		if (img->kind == OP_IMG_FILE && !strcmp(img->path, OP_KALLSYMS_IMAGE))
			img->kind = OP_IMG_KERN;
	} else if (!strncmp(first, "{anon:", 6)) {
		size_t len = strlen(first);
		const char *r, *dot1, *dot2;
		unsigned long tgid;

		if (len < 7 || first[len - 1] != '}' || *i + 2 != end)
			return -EINVAL;
		img->kind = OP_IMG_ANON;
		img->path = unescape(first + 6, len - 7);
		if (!img->path)
			return -EINVAL;
		r = c->v[*i + 1];
		dot1 = strchr(r, '.');
		dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
		if (!dot2 || !parse_ulong(r, (size_t)(dot1 - r), INT_MAX, &tgid) ||
		    !parse_hex64(dot1 + 1, (size_t)(dot2 - dot1 - 1), &img->anon_start) ||
		    !parse_hex64(dot2 + 1, strlen(dot2 + 1), &img->anon_end))
			return -EINVAL;
		img->anon_tgid = (pid_t)tgid;
	} else {
		return -EINVAL;
	}
	*i = end;
	return 0;
}

static int parse_event(const char *s, struct op_sfname *n)
{
	const char *f[6];
	size_t len[6];
	unsigned long um;
	int k;

	f[0] = s;
	for (k = 1; k < 6; k++) {
		const char *dot = strchr(f[k - 1], '.');

		if (!dot)
			return -EINVAL;
		len[k - 1] = (size_t)(dot - f[k - 1]);
		f[k] = dot + 1;
	}
	len[5] = strlen(f[5]);
	if (strchr(f[5], '.') || len[0] == 0)
		return -EINVAL;
	n->event = unescape(f[0], len[0]);
	if (!n->event)
		return -EINVAL;
	if (!parse_ulong(f[1], len[1], ULONG_MAX, &n->count) ||
	    !parse_ulong(f[2], len[2], UINT_MAX, &um) ||
	    !parse_sep(f[3], len[3], &n->tgid) ||
	    !parse_sep(f[4], len[4], &n->tid) ||
	    !parse_sep(f[5], len[5], &n->cpu))
		return -EINVAL;
	n->unit_mask = (unsigned int)um;
	return 0;
}

void op_sfname_release(struct op_sfname *n)
{
	if (!n)
		return;
	free(n->image.path);
	free(n->dep.path);
	free(n->cg.path);
	free(n->event);
	memset(n, 0, sizeof(*n));
}

int op_sfname_parse(const char *rel, struct op_sfname *n)
{
	struct comps c;
	size_t i = 0;
	bool cg = false;
	char *again;
	int ret;

	memset(n, 0, sizeof(*n));
	if (!rel || comps_split(rel, &c))
		return -EINVAL;
	ret = -EINVAL;
	if (c.nr < 5)
		goto err_comps;
	ret = parse_image(&c, &i, "{dep}", &n->dep);
	if (ret)
		goto err_release;
	i++;	/* {dep} */
	ret = -EINVAL;
	if (i >= c.nr)
		goto err_release;
	for (size_t k = i; k + 1 < c.nr; k++)
		if (!strcmp(c.v[k], "{cg}"))
			cg = true;
	ret = parse_image(&c, &i, cg ? "{cg}" : NULL, &n->image);
	if (ret)
		goto err_release;
	if (cg) {
		i++;	/* {cg} */
		ret = -EINVAL;
		if (i + 1 >= c.nr)
			goto err_release;
		ret = parse_image(&c, &i, NULL, &n->cg);
		if (ret)
			goto err_release;
	}
	ret = parse_event(c.v[c.nr - 1], n);
	if (ret)
		goto err_release;
	/* accept only the one form the builder makes */
	again = op_sfname_build(n);
	if (!again) {
		ret = errno == ENOMEM ? -ENOMEM : -EINVAL;
		goto err_release;
	}
	ret = strcmp(again, rel) ? -EINVAL : 0;
	free(again);
	if (ret)
		goto err_release;
	comps_free(&c);
	return 0;

err_release:
	op_sfname_release(n);
err_comps:
	comps_free(&c);
	return ret;
}

char *op_img_display(const struct op_img *img, int long_name)
{
	const char *name;
	char *out;

	if (!img || !img->path) {
		errno = EINVAL;
		return NULL;
	}
	if (img->kind == OP_IMG_ANON) {
		if (asprintf(&out, "%s (tgid:%d range:0x%" PRIx64 "-0x%" PRIx64 ")",
			     img->path, (int)img->anon_tgid, img->anon_start,
			     img->anon_end) < 0) {
			errno = ENOMEM;
			return NULL;
		}
		return out;
	}
	name = img->path;
	if (!long_name) {
		const char *slash = strrchr(name, '/');

		if (slash && slash[1])
			name = slash + 1;
	}
	out = strdup(name);
	if (!out)
		errno = ENOMEM;
	return out;
}

int op_img_is_kernel(const struct op_img *img)
{
	return img->kind == OP_IMG_KERN &&
	       (img->path[0] == '/' || !strcmp(img->path, "vmlinux") ||
		!strcmp(img->path, "no-vmlinux"));
}

static int walk(const struct op_sessdir *sd, const char *root, const char *rel,
		int depth, op_sfname_walk_fn fn, void *ctx)
{
	char path[PATH_MAX * 2];
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (depth > 64)
		return 0;
	snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
	d = op_sd_opendir(sd, path);
	if (!d)
		return depth ? 0 : -errno;
	while (!ret && (de = readdir(d))) {
		char sub[PATH_MAX * 2], full[PATH_MAX * 3];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!depth && !strcmp(de->d_name, "stats"))
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "",
			 de->d_name);
		snprintf(full, sizeof(full), "%s/%s", root, sub);
		/* of the directory read, not by the path: a link is a link */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISDIR(st.st_mode))
			ret = walk(sd, root, sub, depth + 1, fn, ctx);
		else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
			ret = fn(sub, full, ctx);
	}
	closedir(d);
	return ret;
}

int op_sfname_walk(const struct op_sessdir *sd, const char *dir,
		   op_sfname_walk_fn fn, void *ctx)
{
	return walk(sd, dir, "", 0, fn, ctx);
}

char *op_img_name(const struct op_img *img)
{
	struct sbuf b = { 0 };
	int ret = add_image(&b, img, true);

	if (!ret && b.oom)
		ret = -ENOMEM;
	if (ret) {
		free(b.s);
		errno = -ret;
		return NULL;
	}
	return b.s;
}

int op_img_parse(const char *s, struct op_img *img)
{
	struct comps c;
	size_t i = 0;
	char *again;
	int ret;

	memset(img, 0, sizeof(*img));
	if (!s || !*s || comps_split(s, &c))
		return -EINVAL;
	/* parse_image() stops before the event component: give it one */
	ret = -ENOMEM;
	if (comps_room(&c))
		goto err_comps;
	c.v[c.nr] = strdup("E");
	if (!c.v[c.nr])
		goto err_comps;
	c.nr++;
	ret = parse_image(&c, &i, NULL, img);
	if (ret)
		goto err_img;
	again = op_img_name(img);
	ret = again && !strcmp(again, s) ? 0 : -EINVAL;
	free(again);
	if (ret)
		goto err_img;
	comps_free(&c);
	return 0;

err_img:
	free(img->path);
	memset(img, 0, sizeof(*img));
err_comps:
	comps_free(&c);
	return ret;
}
