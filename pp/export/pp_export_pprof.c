/* opexport --format=pprof: the model as pprof's profile.proto (pp/profile.proto,
 * compiled by protoc-c), gzip'd by zlib as go tool pprof expects it.
 *
 * Sample files keep each address as an offset in its file, not as the
 * address the process used, so the profile lays each image out on its
 * own: image i is mapped from file offset 0 at (i + 1) << 36, and a
 * location's address is that base plus its file offset. pprof's own rule
 * (file offset = address - memory_start + file_offset) then gives back the
 * sampled offset exactly, which is what a symbolizer that reads the
 * binary by its build-id needs; the names, files and lines we resolved
 * ride along, so pprof never has to. */
#include "config.h"
#include "pp_export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "odb.h"
#include "op_grow.h"
#include "profile.pb-c.h"

#define IMAGE_SPAN_SHIFT 36

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

/* ---- the string table ---- */

struct strtab {
	char **v;		/* borrowed strings, v[0] = "" */
	size_t n, alloc;
	uint32_t *slots;	/* index + 1, 0 empty */
	size_t cap;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int strtab_rehash(struct strtab *t)
{
	size_t nc = t->cap ? t->cap * 2 : 1024;
	uint32_t *s = calloc(nc, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = str_hash(t->v[i]) & (nc - 1);

		while (s[j])
			j = (j + 1) & (nc - 1);
		s[j] = (uint32_t)(i + 1);
	}
	free(t->slots);
	t->slots = s;
	t->cap = nc;
	return 0;
}

/* The index of s, -1 when absent. */
static int64_t strtab_find(const struct strtab *t, const char *s)
{
	if (!t->cap)
		return -1;
	for (size_t j = str_hash(s) & (t->cap - 1); t->slots[j];
	     j = (j + 1) & (t->cap - 1))
		if (!strcmp(t->v[t->slots[j] - 1], s))
			return t->slots[j] - 1;
	return -1;
}

/* The index of s (which must outlive the table), -1 on ENOMEM. */
static int64_t strtab_add(struct strtab *t, const char *s)
{
	size_t j;

	if ((t->n + 1) * 2 > t->cap && strtab_rehash(t))
		return -1;
	for (j = str_hash(s) & (t->cap - 1); t->slots[j]; j = (j + 1) & (t->cap - 1))
		if (!strcmp(t->v[t->slots[j] - 1], s))
			return t->slots[j] - 1;
	if (t->n == t->alloc) {
		char **v = op_grow(t->v, t->n + 1, &t->alloc, 1024,
				sizeof(*v));

		if (!v)
			return -1;
		t->v = v;
	}
	t->v[t->n] = (char *)s;
	t->slots[j] = (uint32_t)++t->n;
	return (int64_t)(t->n - 1);
}

/* ---- gzip'd output ---- */

struct gz_sink {
	ProtobufCBuffer base;	/* first: protobuf-c calls through it */
	z_stream z;
	FILE *out;
	int err;
	unsigned char buf[65536];
};

static void gz_drain(struct gz_sink *g, int flush)
{
	do {
		g->z.next_out = g->buf;
		g->z.avail_out = sizeof(g->buf);
		if (deflate(&g->z, flush) == Z_STREAM_ERROR) {
			g->err = -EIO;
			return;
		}
		if (fwrite(g->buf, 1, sizeof(g->buf) - g->z.avail_out, g->out) !=
		    sizeof(g->buf) - g->z.avail_out)
			g->err = -EIO;
	} while (g->z.avail_out == 0 && !g->err);
}

static void gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct gz_sink *g = (struct gz_sink *)b;

	if (g->err)
		return;
	g->z.next_in = (unsigned char *)data;
	g->z.avail_in = (uInt)len;
	gz_drain(g, Z_NO_FLUSH);
}

/* ---- the profile ---- */

/* What a value of an event's column counts. */
static void event_value_type(const struct pp_xevent *e, uint32_t cpu_type,
			     const char **type, const char **unit)
{
	if (!strcmp(e->name, "TIMER") || cpu_type == ODB_CPU_TIMER_INT) {
		*type = "cpu";
		*unit = "nanoseconds";
	} else {
		*type = e->name;
		*unit = "count";
	}
}

static const char *mapping_name(const struct pp_ximage *im, char **owned)
{
	*owned = NULL;
	switch (im->img.kind) {
	case OP_IMG_FILE:
		return im->img.path;
	case OP_IMG_KERN:
		/* the names pprof and perf know the kernel and modules by */
		if (op_img_is_kernel(&im->img))
			return "[kernel.kallsyms]";
		if (asprintf(owned, "[%s]", im->img.path) < 0)
			*owned = NULL;
		return *owned;
	case OP_IMG_ANON:
		return im->name;
	}
	return im->name;
}

struct pb {
	pb_profile prof;
	struct strtab st;
	pb_value_type *types;		/* sample types, then the period type */
	pb_value_type **type_ptrs;
	pb_mapping *maps;
	pb_mapping **map_ptrs;
	char **map_names;		/* owned names, per mapping */
	pb_function *funcs;
	pb_function **func_ptrs;
	pb_location *locs;
	pb_location **loc_ptrs;
	pb_line *lines;
	pb_line **line_ptrs;
	pb_sample *samples;
	pb_sample **sample_ptrs;
	uint64_t *loc_ids;		/* every sample's, one after another */
	int64_t *values;
	pb_label *labels;
	pb_label **label_ptrs;
	char **numbers;			/* label values, owned */
	size_t nr_numbers, alloc_numbers;
	int64_t comment;
};

static void pb_release(struct pb *b, size_t nr_maps)
{
	free(b->st.v);
	free(b->st.slots);
	free(b->types);
	free(b->type_ptrs);
	for (size_t i = 0; b->map_names && i < nr_maps; i++)
		free(b->map_names[i]);
	free(b->map_names);
	free(b->maps);
	free(b->map_ptrs);
	free(b->funcs);
	free(b->func_ptrs);
	free(b->locs);
	free(b->loc_ptrs);
	free(b->lines);
	free(b->line_ptrs);
	free(b->samples);
	free(b->sample_ptrs);
	free(b->loc_ids);
	free(b->values);
	free(b->labels);
	free(b->label_ptrs);
	for (size_t i = 0; i < b->nr_numbers; i++)
		free(b->numbers[i]);
	free(b->numbers);
}

/* The string-table index of the decimal v. Labels are strings, not
 * pprof's numeric labels: those read a 0 without a unit as no label at
 * all (cpu 0 would vanish), and Pyroscope and Parca keep strings only. */
static int64_t number_str(struct pb *b, long v)
{
	char buf[32], *s, **n;
	int64_t i;

	snprintf(buf, sizeof(buf), "%ld", v);
	i = strtab_find(&b->st, buf);
	if (i >= 0)
		return i;
	if (b->nr_numbers == b->alloc_numbers) {
		n = op_grow(b->numbers, b->nr_numbers + 1, &b->alloc_numbers, 16,
			    sizeof(*n));
		if (!n)
			return -1;
		b->numbers = n;
	}
	s = strdup(buf);
	if (!s)
		return -1;
	i = strtab_add(&b->st, s);
	if (i < 0) {
		free(s);
		return -1;
	}
	b->numbers[b->nr_numbers++] = s;
	return i;
}

#define STR(b, s) ({ int64_t i_ = strtab_add(&(b)->st, (s)); if (i_ < 0) goto err_nomem; i_; })

static int pb_build(struct pb *b, const struct pp_export *x)
{
	size_t nv = 1 + x->nr_events, nl = 0;
	/* cpu, pid, tid; and a process's container and cgroup */
	size_t nr_labels = (size_t)x->sep_cpu + x->sep_tgid + x->sep_tid +
			   (x->sep_tgid && x->cgroups.n ? 2 : 0);
	pb_profile *p = &b->prof;

	perftools__profiles__profile__init(p);
	if (strtab_add(&b->st, "") != 0)
		goto err_nomem;
	b->types = calloc(nv + 1, sizeof(*b->types));
	b->type_ptrs = calloc(nv, sizeof(*b->type_ptrs));
	b->maps = calloc(x->nr_images + 1, sizeof(*b->maps));
	b->map_ptrs = calloc(x->nr_images + 1, sizeof(*b->map_ptrs));
	b->map_names = calloc(x->nr_images + 1, sizeof(*b->map_names));
	b->funcs = calloc(x->nr_funcs + 1, sizeof(*b->funcs));
	b->func_ptrs = calloc(x->nr_funcs + 1, sizeof(*b->func_ptrs));
	b->locs = calloc(x->nr_locs + 1, sizeof(*b->locs));
	b->loc_ptrs = calloc(x->nr_locs + 1, sizeof(*b->loc_ptrs));
	b->lines = calloc(x->nr_locs + 1, sizeof(*b->lines));
	b->line_ptrs = calloc(x->nr_locs + 1, sizeof(*b->line_ptrs));
	b->samples = calloc(x->nr_stacks + 1, sizeof(*b->samples));
	b->sample_ptrs = calloc(x->nr_stacks + 1, sizeof(*b->sample_ptrs));
	b->loc_ids = calloc(x->nr_frames + 1, sizeof(*b->loc_ids));
	b->values = calloc(x->nr_stacks * nv + 1, sizeof(*b->values));
	b->labels = calloc(x->nr_stacks * nr_labels + 1, sizeof(*b->labels));
	b->label_ptrs = calloc(x->nr_stacks * nr_labels + 1, sizeof(*b->label_ptrs));
	if (!b->types || !b->type_ptrs || !b->maps || !b->map_ptrs ||
	    !b->map_names || !b->funcs || !b->func_ptrs || !b->locs ||
	    !b->loc_ptrs || !b->lines || !b->line_ptrs || !b->samples ||
	    !b->sample_ptrs || !b->loc_ids || !b->values || !b->labels ||
	    !b->label_ptrs)
		goto err_nomem;

	/* sample types: samples, then one column per event */
	for (size_t i = 0; i < nv; i++) {
		const char *type = "samples", *unit = "count";

		if (i)
			event_value_type(&x->events[i - 1], x->cpu_type, &type, &unit);
		perftools__profiles__value_type__init(&b->types[i]);
		b->types[i].type = STR(b, type);
		b->types[i].unit = STR(b, unit);
		b->type_ptrs[i] = &b->types[i];
	}
	p->n_sample_type = nv;
	p->sample_type = b->type_ptrs;
	if (x->nr_events) {
		/* the period: the first event's, by the same names */
		perftools__profiles__value_type__init(&b->types[nv]);
		b->types[nv].type = b->types[1].type;
		b->types[nv].unit = b->types[1].unit;
		p->period_type = &b->types[nv];
		p->period = (int64_t)x->events[0].count;
		p->default_sample_type = b->types[1].type;
	}
	p->time_nanos = x->time_nanos;
	p->duration_nanos = x->duration_nanos;
	if (!x->has_chains) {
		b->comment = STR(b, "opexport: no call chains in the session, "
			     "one frame per sample");
		p->n_comment = 1;
		p->comment = &b->comment;
	}

	for (size_t i = 0; i < x->nr_images; i++) {
		const struct pp_ximage *im = &x->images[i];
		pb_mapping *m = &b->maps[i];
		const char *name = mapping_name(im, &b->map_names[i]);

		if (!name)
			goto err_nomem;
		perftools__profiles__mapping__init(m);
		m->id = i + 1;
		m->memory_start = (uint64_t)(i + 1) << IMAGE_SPAN_SHIFT;
		m->memory_limit = m->memory_start + ((im->max_off + 4096) & ~4095ULL);
		m->file_offset = 0;
		m->filename = STR(b, name);
		m->build_id = im->build_id ? STR(b, im->build_id) : 0;
		m->has_functions = im->has_functions;
		m->has_filenames = im->has_lines;
		m->has_line_numbers = im->has_lines;
		b->map_ptrs[i] = m;
	}
	p->n_mapping = x->nr_images;
	p->mapping = b->map_ptrs;

	for (size_t i = 0; i < x->nr_funcs; i++) {
		const struct pp_xfunc *f = &x->funcs[i];
		pb_function *pf = &b->funcs[i];

		perftools__profiles__function__init(pf);
		pf->id = i + 1;
		pf->name = STR(b, f->name);
		pf->system_name = STR(b, f->system_name);
		pf->filename = f->file ? STR(b, f->file) : 0;
		pf->start_line = f->start_line;
		b->func_ptrs[i] = pf;
	}
	p->n_function = x->nr_funcs;
	p->function = b->func_ptrs;

	for (size_t i = 0; i < x->nr_locs; i++) {
		const struct pp_xloc *l = &x->locs[i];
		pb_location *pl = &b->locs[i];

		perftools__profiles__location__init(pl);
		pl->id = i + 1;
		pl->mapping_id = l->image + 1;
		pl->address = ((uint64_t)(l->image + 1) << IMAGE_SPAN_SHIFT) + l->off;
		if (l->func != PP_XNONE) {
			perftools__profiles__line__init(&b->lines[i]);
			b->lines[i].function_id = l->func + 1;
			b->lines[i].line = l->line;
			b->line_ptrs[i] = &b->lines[i];
			pl->n_line = 1;
			pl->line = &b->line_ptrs[i];
		}
		b->loc_ptrs[i] = pl;
	}
	p->n_location = x->nr_locs;
	p->location = b->loc_ptrs;

	for (size_t i = 0; i < x->nr_stacks; i++) {
		const struct pp_xstack *s = &x->stacks[i];
		const struct pp_xkey *k = &x->keys[s->key];
		pb_sample *ps = &b->samples[i];
		int64_t *v = b->values + i * nv;
		struct { bool on; const char *key; int val; } lab[3] = {
			{ x->sep_cpu, "cpu", k->cpu },
			{ x->sep_tgid, "pid", k->tgid },
			{ x->sep_tid, "tid", k->tid },
		};

		perftools__profiles__sample__init(ps);
		for (uint32_t f = 0; f < s->nr; f++)
			b->loc_ids[s->first + f] = x->frames[s->first + f] + 1;
		ps->n_location_id = s->nr;
		ps->location_id = b->loc_ids + s->first;
		v[0] = (int64_t)s->count;
		v[1 + k->event] = (int64_t)(s->count * x->events[k->event].count);
		ps->n_value = nv;
		ps->value = v;
		ps->label = b->label_ptrs + nl;
		for (int j = 0; j < 3; j++) {
			pb_label *pl = &b->labels[nl];

			if (!lab[j].on || lab[j].val == OP_SF_ALL)
				continue;
			perftools__profiles__label__init(pl);
			pl->key = STR(b, lab[j].key);
			pl->str = number_str(b, lab[j].val);
			if (pl->str < 0)
				goto err_nomem;
			b->label_ptrs[nl++] = pl;
			ps->n_label++;
		}
		if (x->sep_tgid && k->tgid != OP_SF_ALL) {
			const struct op_cgroup *c = op_cgroups_find(&x->cgroups, k->tgid);
			const char *cv[2][2] = {
				{ "container", c ? c->name : "" },
				{ "cgroup", c ? c->path : "" },
			};

			for (int j = 0; c && j < 2; j++) {
				pb_label *pl = &b->labels[nl];

				if (!*cv[j][1])
					continue;	/* the root cgroup: no container */
				perftools__profiles__label__init(pl);
				pl->key = STR(b, cv[j][0]);
				pl->str = STR(b, cv[j][1]);
				b->label_ptrs[nl++] = pl;
				ps->n_label++;
			}
		}
		b->sample_ptrs[i] = ps;
	}
	p->n_sample = x->nr_stacks;
	p->sample = b->sample_ptrs;
	p->n_string_table = b->st.n;
	p->string_table = b->st.v;
	return 0;

err_nomem:
	return -ENOMEM;
}

int pp_export_pprof(const struct pp_export *x, FILE *out)
{
	struct pb b;
	struct gz_sink *g;
	int ret;

	memset(&b, 0, sizeof(b));
	ret = pb_build(&b, x);
	if (ret)
		goto out;
	g = calloc(1, sizeof(*g));
	if (!g) {
		ret = -ENOMEM;
		goto out;
	}
	g->base.append = gz_append;
	g->out = out;
	/* 15 + 16: a gzip wrapper, not zlib's. The fastest level, as Go's
	 * own profile writer uses: deflate at the default level was a third
	 * of the export's time, for a file a few per cent smaller */
	if (deflateInit2(&g->z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		ret = -ENOMEM;
		goto out;
	}
	perftools__profiles__profile__pack_to_buffer(&b.prof, &g->base);
	g->z.next_in = NULL;
	g->z.avail_in = 0;
	if (!g->err)
		gz_drain(g, Z_FINISH);
	ret = g->err;
	deflateEnd(&g->z);
	free(g);
out:
	pb_release(&b, x->nr_images);
	return ret;
}
