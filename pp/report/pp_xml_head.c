/* The head of OProfile's XML, which opreport -X and opreport -c -X share:
 * <profile> with its attributes, <options>, <setup> and <classes>, as
 * OProfile's xml_utils writes them, and the escaping every element uses.
 * Its bodies are pp_xml.c's and callgraph/pp_callgraph_xml.c's. */
#include "config.h"
#include "pp_report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "odb.h"
#include "op_events.h"
#include "op_names.h"
#include "pp_report_rooms.h"

void pp_xml_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			if ((unsigned char)*s < 0x20)
				fprintf(out, "&#%d;", *s);
			else
				fputc(*s, out);
		}
	}
}

void pp_xml_attr(FILE *out, const char *name, const char *value)
{
	fprintf(out, " %s=\"", name);
	pp_xml_escape(out, value);
	fputc('"', out);
}

void pp_xml_class_field(const struct pp_profile *p, size_t cls, bool tgid,
			char *buf, size_t len)
{
	bool found = false;
	int val = 0;

	for (size_t i = 0; i < p->fs.nr_files; i++) {
		const struct pp_sfile *f = &p->fs.files[i];
		int fv = tgid ? f->name.tgid : f->name.tid;

		if (f->cls != cls)
			continue;
		if (found && fv != val) {
			snprintf(buf, len, "%s", "");
			return;
		}
		found = true;
		val = fv;
	}
	if (val == OP_SF_ALL)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%d", val);
}

static void xml_header(FILE *out, const struct pp_profile *p,
		       const struct pp_report_opts *o, size_t nr_cpus)
{
	const char *id = op_cpu_type_id(p->hdr.cpu_type);
	const char *slash;
	char buf[64];

	if (!id)
		id = "invalid cpu type";
	slash = strchr(id, '/');
	fputs("<?xml version=\"1.0\" ?>\n", out);
	fputs("<profile  schemaversion=\"3.1\"", out);
	snprintf(buf, sizeof(buf), "%.*s", slash ? (int)(slash - id) : (int)strlen(id), id);
	pp_xml_attr(out, "cputype", buf);
	fputc('\n', out);
	if (slash) {
		pp_xml_attr(out, "processor", slash + 1);
		fputc('\n', out);
	}
	if (nr_cpus > 1)
		fprintf(out, " separatedcpus=\"%zu\"\n", nr_cpus);
	fprintf(out, " mhz=\"%.2f\"\n", p->hdr.cpu_speed);
	pp_xml_attr(out, "title", o->title ? o->title : "opreport ");
	fputs(">\n", out);
	/* the options OProfile records, in its order */
	fputs("<options ", out);
	if (o->spec_text && *o->spec_text) {
		char *s = strdup(o->spec_text);

		for (char *q = s; q && *q; q++)
			if (*q == ' ')
				*q = ',';
		pp_xml_attr(out, "session", s ? s : o->spec_text);
		free(s);
	}
	if (o->debug_info)
		pp_xml_attr(out, "debuginfo", "true");
	if (o->details)
		pp_xml_attr(out, "details", "true");
	if (o->image_path)
		pp_xml_attr(out, "imagepath", o->image_path);
	if (o->merge_text)
		pp_xml_attr(out, "merge", o->merge_text);
	if (o->exclude_dependent)
		pp_xml_attr(out, "excludedependent", "true");
	for (int pass = 0; pass < 2; pass++) {
		char *const *list = pass ? o->include_symbols : o->exclude_symbols;

		if (!list || !*list)
			continue;
		fprintf(out, " %s=\"", pass ? "includesymbols" : "excludesymbols");
		for (size_t i = 0; list[i]; i++) {
			if (i)
				fputc(',', out);
			pp_xml_escape(out, list[i]);
		}
		fputc('"', out);
	}
	fputs("/>\n", out);
}

/* The CPU of class c's files, -1 for "all" or when --merge=cpu folds them:
 * the class's own value along the CPU axis, else the CPU its files share
 * (a single CPU selected, or another axis). */
static long class_cpu(const struct pp_profile *p, size_t c, bool merged)
{
	if (merged)
		return -1;
	if (p->fs.axis == PP_AXIS_CPU)
		return p->fs.classes[c].value;
	for (size_t i = 0; i < p->fs.nr_files; i++)
		if (p->fs.files[i].cls == c)
			return p->fs.files[i].name.cpu == OP_SF_ALL ? -1 :
			       p->fs.files[i].name.cpu;
	return -1;
}

/* The XML before its body: <profile>, <options>, <setup> and <classes>;
 * sets h->subclasses and h->sub[] (allocated by the caller) for the
 * counts that follow, and h->by_thread when the body is <process> and
 * <thread> elements rather than <binary> ones. 0 or -ENOMEM. */
static int prologue(FILE *out, const struct pp_profile *p,
		    const struct pp_report_opts *o, size_t nc,
		    struct pp_xml_head *h)
{
	bool timer = p->hdr.cpu_type == ODB_CPU_TIMER_INT;
	char tid0[24];
	long *cpu_of = calloc(nc ? nc : 1, sizeof(*cpu_of));	/* per column: class_cpu() */
	/* per column: its event's index among the distinct event names,
	 * in column order (its <eventsetup> id) */
	size_t *ev_of = calloc(nc ? nc : 1, sizeof(*ev_of));
	size_t nr_cpus = 1, nr_events = 0;
	bool nonzero_masks = false;
	struct pp_merge merge = { 0 };

	h->by_thread = p->fs.axis == PP_AXIS_TID || p->fs.axis == PP_AXIS_TGID;
	if (!cpu_of || !ev_of) {
		free(cpu_of);
		free(ev_of);
		return -ENOMEM;
	}
	if (o->merge_text)
		pp_merge_parse(o->merge_text, &merge, NULL);
	/* as OProfile's identify_xml_classes: the highest CPU of any class
	 * plus one, so a session split by CPU counts as separated even with
	 * one CPU selected, unless that CPU is 0 */
	for (size_t c = 0; c < p->fs.nr_classes; c++) {
		const struct pp_class *k = &p->fs.classes[c];
		long cpu = class_cpu(p, c, merge.cpu);

		cpu_of[c] = cpu;
		ev_of[c] = nr_events;
		for (size_t d = 0; d < c; d++)
			if (!strcmp(p->fs.classes[d].event, k->event)) {
				ev_of[c] = ev_of[d];
				break;
			}

		if (cpu >= 0 && (size_t)cpu + 1 > nr_cpus)
			nr_cpus = (size_t)cpu + 1;
		if (k->unit_mask)
			nonzero_masks = true;
		if (ev_of[c] + 1 > nr_events)
			nr_events = ev_of[c] + 1;
	}
	h->subclasses = nr_cpus > 1 || nr_events > 1 || nonzero_masks;
	/* as OProfile's build_subclasses: one "cN" per distinct cpu (when
	 * separated), event and unit mask, numbered in column order, so
	 * that the columns of different threads share names */
	for (size_t c = 0, nr_sub = 0; c < nc; c++) {
		size_t d;

		for (d = 0; d < c; d++)
			if ((nr_cpus <= 1 || cpu_of[d] == cpu_of[c]) &&
			    ev_of[d] == ev_of[c] &&
			    p->fs.classes[d].unit_mask == p->fs.classes[c].unit_mask)
				break;
		h->sub[c] = d < c ? h->sub[d] : nr_sub++;
	}
	/* across several axes, threads as OProfile decides: when the first
	 * column's tid is separated (or merged) */
	if (p->fs.axis == PP_AXIS_MULTI && nc) {
		pp_xml_class_field(p, 0, false, tid0, sizeof(tid0));
		h->by_thread = merge.tid || strcmp(tid0, "all");
	}

	xml_header(out, p, o, nr_cpus);
	fputs("<setup>\n", out);
	for (size_t c = 0, id = 0; c < p->fs.nr_classes; c++) {
		const struct pp_class *k = &p->fs.classes[c];

		/* one setup per distinct event name, however many columns */
		if (ev_of[c] != id)
			continue;
		id++;
		if (timer) {
			fprintf(out, "<timersetup  rtcinterrupts=\"%lu\"/>\n", k->count);
			continue;
		}
		fprintf(out, "<eventsetup  id=\"%zu\"", id - 1);
		pp_xml_attr(out, "eventname", k->event);
		fprintf(out, " unitmask=\"%u\" setupcount=\"%lu\"/>\n",
			k->unit_mask, k->count);
	}
	fputs("</setup>\n\n", out);
	if (h->subclasses) {
		fputs("<classes>\n", out);
		for (size_t c = 0, next = 0; c < nc; c++) {
			const struct pp_class *k = &p->fs.classes[c];

			if (h->sub[c] != next)
				continue;	/* named by an earlier column */
			next++;
			fprintf(out, "<class  name=\"c%zu\"", h->sub[c]);
			if (nr_cpus > 1 && cpu_of[c] >= 0)
				fprintf(out, " cpu=\"%ld\"", cpu_of[c]);
			else if (nr_cpus > 1)
				fputs(" cpu=\"all\"", out);
			if (nr_events > 1)
				fprintf(out, " event=\"%zu\"", ev_of[c]);
			if (nonzero_masks)
				fprintf(out, " mask=\"%u\"", k->unit_mask);
			fputs("/>\n", out);
		}
		fputs("</classes>\n", out);
	}
	free(cpu_of);
	free(ev_of);
	return 0;
}

int pp_xml_prologue(FILE *out, const struct pp_profile *p,
		    const struct pp_symview *v, const struct pp_report_opts *o,
		    struct pp_xml_head *h)
{
	int ret;

	memset(h, 0, sizeof(*h));
	h->sub = calloc(v->nc ? v->nc : 1, sizeof(*h->sub));
	if (!h->sub)
		return -ENOMEM;
	ret = prologue(out, p, o, v->nc, h);
	if (ret)
		pp_xml_head_release(h);
	return ret;
}

void pp_xml_head_release(struct pp_xml_head *h)
{
	free(h->sub);
	h->sub = NULL;
}
