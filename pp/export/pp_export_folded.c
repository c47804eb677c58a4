/* opexport --format=folded: Brendan Gregg's folded stacks, the input of
 * flamegraph.pl, speedscope and most flame-graph tools: one line per
 * distinct stack of frame names, root first, ';' between frames, then a
 * space and the samples. Kernel frames end in "_[k]", the mark
 * flamegraph.pl --color=java and stackcollapse-perf.pl use for them. */
#include "config.h"
#include "pp_export.h"

#include <errno.h>
#include <inttypes.h>

/* A name may hold neither ';' (the separator) nor a newline: they would
 * cut the line where no frame ends. C++ names hold neither; anything else
 * becomes '_'. A trailing space would be read as the count's. */
static void put_frame(FILE *out, const char *name, int kind)
{
	for (const char *p = name; *p; p++)
		fputc(*p == ';' || *p == '\n' || *p == '\r' ? '_' : *p, out);
	if (kind == PP_XKIND_KERNEL)
		fputs("_[k]", out);
}

int pp_export_folded(const struct pp_export *x, FILE *out)
{
	struct pp_fold f;
	int ret = pp_export_fold(x, &f);

	if (ret)
		return ret;
	for (size_t i = 0; i < f.nr_lines; i++) {
		const struct pp_fold_line *l = &f.lines[i];

		for (uint32_t k = 0; k < l->nr; k++) {
			if (k)
				fputc(';', out);
			put_frame(out, f.names[l->first + k], f.kinds[l->first + k]);
		}
		fprintf(out, " %" PRIu64 "\n", l->count);
	}
	pp_fold_release(&f);
	return ferror(out) ? -EIO : 0;
}
