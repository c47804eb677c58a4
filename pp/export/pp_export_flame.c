/* opexport --format=flamegraph: a flame graph as one self-contained SVG
 * (no script, no font or style from elsewhere), laid out as flamegraph.pl
 * lays out folded stacks: the root at the bottom, each frame as wide as
 * its samples, callees above callers, siblings in name order. Each frame
 * is a rectangle with its name as text (cut to fit) and a <title> that
 * browsers show as a tooltip. Colour says where the code lives: warm for
 * the executable, blue for libraries, green for the kernel.
 *
 * The tree comes from the folded lines, sorted root first by name, so one
 * pass merges their common prefixes (flamegraph.pl's flow()). */
#include "config.h"
#include "pp_export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "op_grow.h"

#define IMAGE_WIDTH 1200.0
#define FRAME_HEIGHT 16
#define PAD_X 10.0
#define PAD_TOP 56
#define PAD_BOTTOM 24
#define FONT_SIZE 12
#define CHAR_WIDTH (FONT_SIZE * 0.59)
/* frames narrower than this many pixels are left out, as flamegraph.pl's
 * --minwidth default: they could not be seen or pointed at */
#define MIN_WIDTH 0.1

struct node {
	const char *name;
	int kind;
	uint32_t depth;		/* 0: the root "all" */
	uint64_t start, width;	/* in samples */
};

struct flame {
	struct node *v;
	size_t n, alloc;
	uint32_t max_depth;
};

static int node_open(struct flame *fl, const char *name, int kind,
		     uint32_t depth, uint64_t start)
{
	if (fl->n == fl->alloc) {
		struct node *v = op_grow(fl->v, fl->n + 1, &fl->alloc, 1024,
				sizeof(*v));

		if (!v)
			return -ENOMEM;
		fl->v = v;
	}
	fl->v[fl->n++] = (struct node){ name, kind, depth, start, 0 };
	if (depth > fl->max_depth)
		fl->max_depth = depth;
	return 0;
}

static bool same_frame(const struct pp_fold *f, const struct pp_fold_line *a,
		       const struct pp_fold_line *b, uint32_t k)
{
	return !strcmp(f->names[a->first + k], f->names[b->first + k]) &&
	       f->kinds[a->first + k] == f->kinds[b->first + k];
}

/* Frames of the folded lines as nodes; open[] holds, per depth, the node
 * still growing. */
static int flow(struct flame *fl, const struct pp_fold *f)
{
	size_t *open = NULL, nr_open = 0;
	uint64_t x = 0;
	uint32_t deepest = 0;
	int ret = 0;

	for (size_t i = 0; i < f->nr_lines; i++)
		if (f->lines[i].nr > deepest)
			deepest = f->lines[i].nr;
	open = malloc((deepest + 1) * sizeof(*open));
	if (!open)
		return -ENOMEM;
	ret = node_open(fl, "all", PP_XKIND_USER, 0, 0);
	open[nr_open++] = 0;
	for (size_t i = 0; !ret && i < f->nr_lines; i++) {
		const struct pp_fold_line *l = &f->lines[i];
		const struct pp_fold_line *prev = i ? &f->lines[i - 1] : NULL;
		uint32_t common = 0;

		while (prev && common < l->nr && common < prev->nr &&
		       same_frame(f, l, prev, common))
			common++;
		/* close what the previous line had beyond the common part */
		while (nr_open > 1 + common) {
			struct node *nd = &fl->v[open[--nr_open]];

			nd->width = x - nd->start;
		}
		for (uint32_t k = common; !ret && k < l->nr; k++) {
			ret = node_open(fl, f->names[l->first + k],
					f->kinds[l->first + k], k + 1, x);
			open[nr_open++] = fl->n - 1;
		}
		x += l->count;
	}
	while (nr_open) {
		struct node *nd = &fl->v[open[--nr_open]];

		nd->width = x - nd->start;
	}
	free(open);
	return ret;
}

/* Text for XML: markup characters escaped; control characters and bytes
 * outside ASCII (symbol names are ASCII; a stray byte would make the
 * document ill-formed) as '?'. At most max characters, ".." marking a
 * cut. */
static void put_xml(FILE *out, const char *s, size_t max)
{
	size_t len = strlen(s), n = 0;
	bool cut = len > max;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++, n++) {
		if (cut && n + 2 >= max) {
			fputs("..", out);
			return;
		}
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			fputc(*p < 0x20 || *p >= 0x7f ? '?' : *p, out);
		}
	}
}

/* A colour of kind's family, varied by the name so that neighbours
 * differ, the same name always the same. */
static void frame_colour(char *buf, size_t len, const char *name, int kind)
{
	uint32_t h = 2166136261u;
	double v;

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	v = (h % 1000) / 1000.0;
	switch (kind) {
	case PP_XKIND_KERNEL:
		snprintf(buf, len, "rgb(%d,%d,%d)", 70 + (int)(60 * v),
			 180 + (int)(50 * v), 70 + (int)(40 * v));
		break;
	case PP_XKIND_LIB:
		snprintf(buf, len, "rgb(%d,%d,%d)", 80 + (int)(60 * v),
			 150 + (int)(50 * v), 215 + (int)(30 * v));
		break;
	default:
		snprintf(buf, len, "rgb(%d,%d,%d)", 225 + (int)(30 * v),
			 80 + (int)(110 * v), 40 + (int)(30 * v));
	}
}

static const char *const kind_names[] = { "executable", "library", "kernel" };

int pp_export_flamegraph(const struct pp_export *x, FILE *out,
			 const char *title)
{
	struct pp_fold f;
	struct flame fl = { 0 };
	double scale;
	int height, ret;
	size_t nr_hidden = 0;
	char colour[32];

	ret = pp_export_fold(x, &f);
	if (ret)
		return ret;
	ret = flow(&fl, &f);
	if (ret)
		goto out;
	height = PAD_TOP + (int)(fl.max_depth + 1) * FRAME_HEIGHT + PAD_BOTTOM;
	scale = f.total ? (IMAGE_WIDTH - 2 * PAD_X) / (double)f.total : 0;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%.0f\" height=\"%d\" viewBox=\"0 0 %.0f %d\">\n",
		IMAGE_WIDTH, height, IMAGE_WIDTH, height);
	fprintf(out, "<style>text { font-family: Verdana, sans-serif; font-size: %dpx; "
		"fill: rgb(0,0,0); } rect:hover { stroke: rgb(0,0,0); "
		"stroke-width: 0.5; }</style>\n", FONT_SIZE);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%d\" "
		"fill=\"rgb(248,248,240)\"/>\n", IMAGE_WIDTH, height);
	fputs("<text x=\"600\" y=\"22\" text-anchor=\"middle\" "
	      "style=\"font-size: 16px\">", out);
	put_xml(out, title ? title : "Flame graph", 200);
	fputs("</text>\n", out);
	fprintf(out, "<text x=\"%.0f\" y=\"42\">%" PRIu64 " samples%s. Colours: ",
		PAD_X, f.total, x->has_chains ? "" :
		" (no call chains in the session: one frame per sample)");
	for (int k = 0; k < 3; k++) {
		frame_colour(colour, sizeof(colour), "", k);
		fprintf(out, "<tspan style=\"fill: %s\">&#9632;</tspan> %s%s", colour,
			kind_names[k], k < 2 ? ", " : "");
	}
	fputs("</text>\n", out);
	for (size_t i = 0; i < fl.n; i++) {
		const struct node *nd = &fl.v[i];
		double w = (double)nd->width * scale;
		double rx = PAD_X + (double)nd->start * scale;
		int y = height - PAD_BOTTOM - (int)(nd->depth + 1) * FRAME_HEIGHT;
		size_t chars;

		if (w < MIN_WIDTH) {
			nr_hidden++;
			continue;
		}
		frame_colour(colour, sizeof(colour), nd->name, nd->kind);
		fputs("<g><title>", out);
		put_xml(out, nd->name, SIZE_MAX);
		fprintf(out, " (%s): %" PRIu64 " samples, %.2f%%</title>",
			nd->depth ? kind_names[nd->kind] : "everything", nd->width,
			f.total ? 100.0 * (double)nd->width / (double)f.total : 0.0);
		fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
			"fill=\"%s\" rx=\"2\" ry=\"2\"/>", rx, y, w,
			FRAME_HEIGHT - 1, nd->depth ? colour : "rgb(200,200,200)");
		chars = w > 6 ? (size_t)((w - 6) / CHAR_WIDTH) : 0;
		if (chars >= 3) {
			fprintf(out, "<text x=\"%.2f\" y=\"%d\">", rx + 3,
				y + FRAME_HEIGHT - 4);
			put_xml(out, nd->name, chars);
			fputs("</text>", out);
		}
		fputs("</g>\n", out);
	}
	if (nr_hidden)
		fprintf(out, "<!-- %zu frame(s) narrower than %.1f px left out -->\n",
			nr_hidden, MIN_WIDTH);
	fputs("</svg>\n", out);
	ret = ferror(out) ? -EIO : 0;
out:
	free(fl.v);
	pp_fold_release(&f);
	return ret;
}
