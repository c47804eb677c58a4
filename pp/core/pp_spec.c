/* Profile specification parser: the words after opreport's options. Kept
 * apart from the report so that the malformed cases can be tested as a
 * table, and so the differential report can parse its two halves alike. */
#include "config.h"
#include "pp_spec.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_cgroups.h"
#include "op_grow.h"
#include "op_names.h"

static int spec_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int spec_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static void strlist_release(struct pp_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void pp_spec_release(struct pp_spec *s)
{
	strlist_release(&s->session);
	strlist_release(&s->session_exclude);
	strlist_release(&s->image);
	strlist_release(&s->image_exclude);
	strlist_release(&s->lib_image);
	strlist_release(&s->event);
	strlist_release(&s->container);
	free(s->count.v);
	free(s->unit_mask.v);
	free(s->cpu.v);
	free(s->tgid.v);
	free(s->tid.v);
	free(s->archive);
	free(s->text);
	memset(s, 0, sizeof(*s));
}

/* Split value on commas into l; word is the whole word for messages. */
static int parse_strlist(struct pp_strlist *l, const char *value,
			 const char *word, char *err, size_t errlen)
{
	const char *p = value;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char **v;

		if (len == 0)
			return spec_error(err, errlen,
					  "empty element in '%s'", word);
		if (l->n == l->cap) {
			v = op_grow(l->v, l->n + 1, &l->cap, 4, sizeof(*v));
			if (!v)
				return -ENOMEM;
			l->v = v;
		}
		l->v[l->n] = strndup(p, len);
		if (!l->v[l->n])
			return -ENOMEM;
		l->n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

static int parse_number(const char *p, size_t len, unsigned long *out)
{
	char buf[32];
	char *end;

	if (len == 0 || len >= sizeof(buf) || !isdigit((unsigned char)p[0]))
		return -EINVAL;
	memcpy(buf, p, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtoul(buf, &end, 0);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

static int parse_rangelist(struct pp_rangelist *l, const char *value,
			   const char *word, char *err, size_t errlen)
{
	const char *p = value;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		const char *dash = memchr(p, '-', len);
		struct pp_range r, *v;

		if (len == 0)
			return spec_error(err, errlen,
					  "empty element in '%s'", word);
		if (dash) {
			if (parse_number(p, (size_t)(dash - p), &r.lo) ||
			    parse_number(dash + 1, len - (size_t)(dash - p) - 1, &r.hi))
				return spec_error(err, errlen,
						  "bad range '%.*s' in '%s'",
						  (int)len, p, word);
			if (r.hi < r.lo)
				return spec_error(err, errlen,
						  "reversed range '%.*s' in '%s'",
						  (int)len, p, word);
		} else {
			if (parse_number(p, len, &r.lo))
				return spec_error(err, errlen,
						  "bad number '%.*s' in '%s'",
						  (int)len, p, word);
			r.hi = r.lo;
		}
		if (l->n == l->cap) {
			v = op_grow(l->v, l->n + 1, &l->cap, 4, sizeof(*v));
			if (!v)
				return -ENOMEM;
			l->v = v;
		}
		l->v[l->n++] = r;
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

enum tag_kind { TAG_STR, TAG_RANGE, TAG_SESSION };

struct tag_desc {
	const char *name;
	enum tag_kind kind;
	size_t off;
};

#define STR_TAG(n, f) { n, TAG_STR, offsetof(struct pp_spec, f) }
#define RANGE_TAG(n, f) { n, TAG_RANGE, offsetof(struct pp_spec, f) }

static const struct tag_desc tags[] = {
	{ "session", TAG_SESSION, offsetof(struct pp_spec, session) },
	{ "session-exclude", TAG_SESSION, offsetof(struct pp_spec, session_exclude) },
	STR_TAG("image", image),
	STR_TAG("image-exclude", image_exclude),
	STR_TAG("lib-image", lib_image),
	STR_TAG("event", event),
	STR_TAG("container", container),
	RANGE_TAG("count", count),
	RANGE_TAG("unit-mask", unit_mask),
	RANGE_TAG("cpu", cpu),
	RANGE_TAG("tgid", tgid),
	RANGE_TAG("tid", tid),
};

/* A session name is one directory under samples/: no '/', not "." or "..". */
static int check_sessions(const struct pp_strlist *l, const char *word,
			  char *err, size_t errlen)
{
	for (size_t i = 0; i < l->n; i++) {
		if (strchr(l->v[i], '/') || !strcmp(l->v[i], ".") ||
		    !strcmp(l->v[i], ".."))
			return spec_error(err, errlen,
					  "bad session name '%s' in '%s'",
					  l->v[i], word);
	}
	return 0;
}

static int parse_word(struct pp_spec *s, const char *word, char *err,
		      size_t errlen)
{
	const char *colon = strchr(word, ':');
	size_t tlen;

	if (!*word)
		return spec_error(err, errlen, "empty word in profile specification");
	if (!colon || word[0] == '/') {
		/* a bare word is an image, as OProfile has it */
		s->image.given = true;
		return parse_strlist(&s->image, word, word, err, errlen);
	}
	tlen = (size_t)(colon - word);
	if (tlen == 7 && !strncmp(word, "archive", 7)) {
		if (s->archive)
			return spec_error(err, errlen,
					  "tag 'archive' given twice at '%s'", word);
		if (!colon[1])
			return spec_error(err, errlen, "empty value in '%s'", word);
		/* as OProfile: the archive's real path, which must exist */
		s->archive = realpath(colon + 1, NULL);
		if (!s->archive)
			return errno == ENOMEM ? -ENOMEM :
			       spec_error(err, errlen, "cannot use archive %s: %s",
					  colon + 1, strerror(errno));
		return 0;
	}
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		const struct tag_desc *t = &tags[i];
		void *field = (char *)s + t->off;
		int ret;

		if (strlen(t->name) != tlen || strncmp(t->name, word, tlen))
			continue;
		if (!colon[1])
			return spec_error(err, errlen, "empty value in '%s'", word);
		if (t->kind == TAG_RANGE) {
			struct pp_rangelist *l = field;

			if (l->given)
				return spec_error(err, errlen,
						  "tag '%s' given twice at '%s'",
						  t->name, word);
			l->given = true;
			return parse_rangelist(l, colon + 1, word, err, errlen);
		}
		struct pp_strlist *l = field;

		if (l->given)
			return spec_error(err, errlen,
					  "tag '%s' given twice at '%s'",
					  t->name, word);
		l->given = true;
		ret = parse_strlist(l, colon + 1, word, err, errlen);
		if (!ret && t->kind == TAG_SESSION)
			ret = check_sessions(l, word, err, errlen);
		return ret;
	}
	return spec_error(err, errlen, "unknown tag '%.*s' in '%s'",
			  (int)tlen, word, word);
}

int pp_spec_parse(int argc, const char *const *argv, struct pp_spec *s,
		  char *err, size_t errlen)
{
	size_t textlen = 1;
	int ret;

	memset(s, 0, sizeof(*s));
	for (int i = 0; i < argc; i++)
		textlen += strlen(argv[i]) + 1;
	s->text = calloc(1, textlen);
	if (!s->text)
		return -ENOMEM;
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(s->text, " ");
		strcat(s->text, argv[i]);
		ret = parse_word(s, argv[i], err, errlen);
		if (ret) {
			if (ret == -ENOMEM)
				spec_error(err, errlen, "out of memory");
			pp_spec_release(s);
			return ret;
		}
	}
	return 0;
}

static bool glob_match(const char *pattern, const char *name)
{
	if (!fnmatch(pattern, name, 0))
		return true;
	if (!strchr(pattern, '/')) {
		const char *base = strrchr(name, '/');

		if (base && !fnmatch(pattern, base + 1, 0))
			return true;
	}
	return false;
}

static bool strlist_match(const struct pp_strlist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (glob_match(l->v[i], name))
			return true;
	return false;
}

static bool range_match(const struct pp_rangelist *l, long value)
{
	if (!l->given)
		return true;
	if (value < 0)		/* "all": not separated on this field */
		return false;
	for (size_t i = 0; i < l->n; i++)
		if ((unsigned long)value >= l->v[i].lo &&
		    (unsigned long)value <= l->v[i].hi)
			return true;
	return false;
}

/* An image by its name, or, kept from a container, by the path the
 * container knew it by (op_kept_path()), which is what reports show. */
static bool img_match(const struct pp_strlist *l, const char *name)
{
	const char *kept;

	if (strlist_match(l, name))
		return true;
	kept = op_kept_path(name, NULL);
	return kept && strlist_match(l, kept);
}

bool pp_spec_match_cgroup(const struct pp_spec *s, const char *name,
			  const char *path)
{
	if (!s->container.given)
		return true;
	return (*name && strlist_match(&s->container, name)) ||
	       strlist_match(&s->container, path);
}

bool pp_spec_match_session(const struct pp_spec *s, const char *name)
{
	if (s->session.given) {
		if (!strlist_match(&s->session, name))
			return false;
	} else if (strcmp(name, "current")) {
		return false;
	}
	return !strlist_match(&s->session_exclude, name);
}

static bool same_img(const struct op_img *a, const struct op_img *b)
{
	return a->kind == b->kind && !strcmp(a->path, b->path) &&
	       a->anon_tgid == b->anon_tgid && a->anon_start == b->anon_start;
}

bool pp_spec_match_file(const struct pp_spec *s, const struct op_sfname *n)
{
	if (s->image.given && !img_match(&s->image, n->dep.path))
		return false;
	if (img_match(&s->image_exclude, n->dep.path))
		return false;
	if (s->lib_image.given) {
		if (same_img(&n->image, &n->dep) ||
		    !img_match(&s->lib_image, n->image.path))
			return false;
	}
	if (s->event.given && !strlist_match(&s->event, n->event))
		return false;
	if (!range_match(&s->count, (long)n->count))
		return false;
	if (!range_match(&s->unit_mask, (long)n->unit_mask))
		return false;
	if (!range_match(&s->cpu, n->cpu))
		return false;
	if (!range_match(&s->tgid, n->tgid))
		return false;
	return range_match(&s->tid, n->tid);
}

bool pp_spec_is_diff(int argc, const char *const *argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "{") || !strcmp(argv[i], "}"))
			return true;
	return false;
}

int pp_spec_split_diff(int argc, const char *const *argv, bool *is_diff,
		       int *a0, int *an, int *b0, int *bn,
		       char *err, size_t errlen)
{
	int open = -1, nr_groups = 0;
	int starts[2] = { 0, 0 }, lens[2] = { 0, 0 };

	*is_diff = pp_spec_is_diff(argc, argv);
	if (!*is_diff)
		return 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "{")) {
			if (open >= 0)
				return spec_error(err, errlen,
						  "nested '{' at word %d", i + 1);
			if (nr_groups == 2)
				return spec_error(err, errlen,
						  "more than two '{ }' groups");
			open = i;
		} else if (!strcmp(argv[i], "}")) {
			if (open < 0)
				return spec_error(err, errlen,
						  "'}' without '{' at word %d", i + 1);
			starts[nr_groups] = open + 1;
			lens[nr_groups] = i - open - 1;
			nr_groups++;
			open = -1;
		} else if (open < 0) {
			return spec_error(err, errlen,
					  "'%s' outside '{ }' in a differential specification",
					  argv[i]);
		}
	}
	if (open >= 0)
		return spec_error(err, errlen, "'{' without '}'");
	if (nr_groups != 2)
		return spec_error(err, errlen,
				  "a differential report needs two '{ }' groups");
	*a0 = starts[0];
	*an = lens[0];
	*b0 = starts[1];
	*bn = lens[1];
	return 0;
}
