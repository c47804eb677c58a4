/* fuzz-sources: libop/op_names.c libop/op_sessdir.c libop/op_sessdir_dir.c */
/* The sample-file name parser and builder on arbitrary bytes.
 *  - parse(x): refused, or build(parse(x)) == x, and x is safe (no empty,
 *    ".", ".." or over-long component, relative);
 *  - the same bytes cut into fields (image, dep, event, numbers): build
 *    gives a safe name that parses back to the same fields (a path under
 *    {root} reads back as the kernel when it is /proc/kallsyms, else as a
 *    file: the sample file's header tells a vmlinux apart). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "op_names.h"

static void check_safe(const char *name)
{
	const char *s = name;

	if (name[0] == '/')
		abort();
	for (;;) {
		const char *slash = strchr(s, '/');
		size_t n = slash ? (size_t)(slash - s) : strlen(s);

		if (n == 0 || n > 255 || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.'))
			abort();
		if (!slash)
			break;
		s = slash + 1;
	}
}

static int same_img(const struct op_img *a, const struct op_img *b)
{
	enum op_img_kind want = a->kind;

	/* one name for a path under {root}: /proc/kallsyms is the kernel,
	 * any other path a file */
	if (want != OP_IMG_ANON && a->path[0] == '/')
		want = strcmp(a->path, OP_KALLSYMS_IMAGE) ? OP_IMG_FILE : OP_IMG_KERN;
	if (want != b->kind || strcmp(a->path, b->path))
		return 0;
	return a->kind != OP_IMG_ANON || (a->anon_tgid == b->anon_tgid &&
		a->anon_start == b->anon_start && a->anon_end == b->anon_end);
}

/* Next field of the input: up to a 0xff byte or the end. */
static char *field(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *s = *p, *e = s;
	char *out, *o;

	while (e < end && *e != 0xff)
		e++;
	out = malloc((size_t)(e - s) + 1);
	if (!out)
		abort();
	for (o = out; s < e; s++)
		if (*s)		/* no NUL inside a C string */
			*o++ = (char)*s;
	*o = '\0';
	*p = e < end ? e + 1 : e;
	return out;
}

static void build_side(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct op_sfname n, back;
	uint8_t k;
	char *name;

	if (size < 4)
		return;
	k = *p++;
	memset(&n, 0, sizeof(n));
	n.image.kind = (enum op_img_kind)(k % 3);
	n.dep.kind = (enum op_img_kind)((k / 3) % 3);
	n.image.path = field(&p, end);
	n.dep.path = field(&p, end);
	n.event = field(&p, end);
	n.image.anon_tgid = k;
	n.image.anon_start = (uint64_t)k << 12;
	n.image.anon_end = size;
	n.count = size * 1000;
	n.unit_mask = k;
	n.tgid = k & 1 ? OP_SF_ALL : (int)k;
	n.tid = k & 2 ? OP_SF_ALL : (int)size;
	n.cpu = k & 4 ? OP_SF_ALL : 3;
	name = op_sfname_build(&n);
	if (!name) {
		/* only a relative file path or an empty event may be refused */
		if (errno != EINVAL || (*n.event &&
		    (n.image.kind != OP_IMG_FILE || n.image.path[0] == '/') &&
		    (n.dep.kind != OP_IMG_FILE || n.dep.path[0] == '/')))
			abort();
	} else {
		check_safe(name);
		if (op_sfname_parse(name, &back))
			abort();
		if (!same_img(&n.image, &back.image) || !same_img(&n.dep, &back.dep) ||
		    strcmp(n.event, back.event) || n.count != back.count ||
		    n.unit_mask != back.unit_mask || n.tgid != back.tgid ||
		    n.tid != back.tid || n.cpu != back.cpu)
			abort();
		op_sfname_release(&back);
		free(name);
	}
	free(n.image.path);
	free(n.dep.path);
	free(n.event);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct op_sfname n;

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	if (op_sfname_parse(s, &n) == 0) {
		char *again = op_sfname_build(&n);

		if (!again || strcmp(again, s))
			abort();
		check_safe(s);
		free(again);
		op_sfname_release(&n);
	} else if (n.event || n.image.path || n.dep.path) {
		abort();
	}
	free(s);
	build_side(data, size);
	return 0;
}
