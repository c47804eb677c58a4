/* The kernel symbols a session needs, saved with it (see opd_ksyms.h).
 *
 * Cost: one read of kallsyms and one pass over the kernel sample files'
 * distinct offsets per dump, O(S + N log S) for S symbols and N offsets;
 * nothing per sample.
 */
#include "config.h"
#include "opd_ksyms.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "odb.h"
#include "op_afile.h"
#include "op_grow.h"
#include "op_kernel.h"
#include "op_names.h"

/* One kernel image with samples: the kernel (module NULL) or a module. */
struct ktarget {
	char *module;
	uint64_t *offs;
	size_t nr_offs, alloc_offs;
	/* its kallsyms text symbols, in file order, then sorted */
	struct ksym *syms;
	size_t nr_syms, alloc_syms;
};

struct ksym {
	uint64_t addr;
	size_t name_off;	/* into the name pool */
	unsigned int name_len;
	unsigned int seq;	/* file order, to keep aliases in it */
	char type;
	bool keep;
};

struct ksyms {
	struct ktarget *t;
	size_t nr, alloc;
	char *pool;
	size_t pool_len, pool_alloc;
	/* _text, _stext, _etext of the kernel, as read */
	struct op_ksym_line special[3];
	bool have_special[3];
	/* a session with arcs: the order of the kernel's names, which
	 * opreport -c numbers them in (op_kernel.h) */
	bool have_arcs;
	struct op_kwalk walk;
	struct op_korder order;
	const struct op_sessdir *sd;	/* the session's files, through it */
	size_t order_alloc;
};

static const char *const special_name[3] = { "_text", "_stext", "_etext" };

static struct ktarget *target_get(struct ksyms *k, const struct op_img *img)
{
	const char *module = op_img_is_kernel(img) ? NULL : img->path;
	struct ktarget *t;

	for (size_t i = 0; i < k->nr; i++)
		if ((!module && !k->t[i].module) ||
		    (module && k->t[i].module && !strcmp(module, k->t[i].module)))
			return &k->t[i];
	if (k->nr == k->alloc) {
		t = op_grow(k->t, k->nr + 1, &k->alloc, 4, sizeof(*t));
		if (!t)
			return NULL;
		k->t = t;
	}
	t = &k->t[k->nr];
	memset(t, 0, sizeof(*t));
	if (module && !(t->module = strdup(module)))
		return NULL;
	k->nr++;
	return t;
}

static int target_add(struct ktarget *t, uint64_t off)
{
	if (t->nr_offs == t->alloc_offs) {
		uint64_t *v = op_grow(t->offs, t->nr_offs + 1, &t->alloc_offs, 256,
				sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->offs = v;
	}
	t->offs[t->nr_offs++] = off;
	return 0;
}

static int add_off(uint64_t key, uint64_t count, void *arg)
{
	(void)count;
	return target_add(arg, key);
}

/* An arc's kernel ends: its key is caller offset << 32 | callee offset,
 * as OProfile's daemon keys it. */
struct arc_ends {
	struct ktarget *from, *to;	/* NULL: not a kernel image */
};

static int add_arc(uint64_t key, uint64_t count, void *arg)
{
	struct arc_ends *e = arg;
	int ret = 0;

	(void)count;
	if (e->from)
		ret = target_add(e->from, key >> 32);
	if (!ret && e->to)
		ret = target_add(e->to, key & 0xffffffffu);
	return ret;
}

/* A sample file: its offsets join its kernel image's; an arc file's
 * kernel ends join theirs (opreport -c names callers and callees that
 * hold no sample of their own). A kernel named by its vmlinux path has a
 * file's name, and the header says it is the kernel. Files that do not
 * open are the report's business, not ours. */
static int collect_file(const char *rel, const char *full, void *arg)
{
	struct ksyms *k = arg;
	struct op_sfname n;
	struct ktarget *t;
	odb_t db;
	int ret = 0;

	if (op_sfname_parse(rel, &n))
		return 0;
	if ((n.image.kind == OP_IMG_ANON && !n.cg.path) ||
	    odb_open(&db, k->sd, full, ODB_RDONLY))
		goto out;
	op_img_mark_kernel(&n.image, db.header->is_kernel);
	if (n.cg.path) {
		struct arc_ends e = { NULL, NULL };

		k->have_arcs = true;

		op_img_mark_kernel(&n.cg, db.header->cg_to_is_kernel);
		/* both exist before either pointer is kept: target_get
		 * moves the array when it adds one */
		if ((n.image.kind == OP_IMG_KERN && !target_get(k, &n.image)) ||
		    (n.cg.kind == OP_IMG_KERN && !target_get(k, &n.cg)))
			ret = -ENOMEM;
		if (!ret && n.image.kind == OP_IMG_KERN)
			e.from = target_get(k, &n.image);
		if (!ret && n.cg.kind == OP_IMG_KERN)
			e.to = target_get(k, &n.cg);
		if (!ret && (e.from || e.to))
			ret = odb_for_each(&db, add_arc, &e);
	} else if (n.image.kind == OP_IMG_KERN) {
		t = target_get(k, &n.image);
		ret = t ? odb_for_each(&db, add_off, t) : -ENOMEM;
	}
	odb_close(&db);
out:
	op_sfname_release(&n);
	return ret;
}

static struct ktarget *target_of_line(struct ksyms *k,
				      const struct op_ksym_line *l)
{
	for (size_t i = 0; i < k->nr; i++) {
		const char *m = k->t[i].module;

		if (!l->mod ? !m :
		    m && strlen(m) == l->mod_len && !memcmp(m, l->mod, l->mod_len))
			return &k->t[i];
	}
	return NULL;
}

static int add_sym(struct ksyms *k, struct ktarget *t,
		   const struct op_ksym_line *l)
{
	struct ksym *s;

	if (t->nr_syms == t->alloc_syms) {
		s = op_grow(t->syms, t->nr_syms + 1, &t->alloc_syms, 1024,
				sizeof(*s));
		if (!s)
			return -ENOMEM;
		t->syms = s;
	}
	if (k->pool_alloc - k->pool_len < l->name_len) {
		char *p = op_grow(k->pool, k->pool_len + l->name_len,
				  &k->pool_alloc, 1 << 20, 1);

		if (!p)
			return -ENOMEM;
		k->pool = p;
	}
	s = &t->syms[t->nr_syms];
	s->addr = l->addr;
	s->name_off = k->pool_len;
	s->name_len = (unsigned int)l->name_len;
	s->seq = (unsigned int)t->nr_syms;
	s->type = l->type;
	s->keep = false;
	memcpy(k->pool + k->pool_len, l->name, l->name_len);
	k->pool_len += l->name_len;
	t->nr_syms++;
	return 0;
}

/* One more of the kernel's lines in opreport -c's order. */
static int order_add(struct ksyms *k, const struct op_ksym_line *l)
{
	struct op_korder *o = &k->order;

	if (o->n == OP_KORDER_MAX)
		return -E2BIG;
	if (o->n == k->order_alloc) {
		/* two arrays of one capacity, updated once both have grown */
		size_t na = k->order_alloc, na_off = k->order_alloc;
		uint64_t *h = op_grow(o->hash, o->n + 1, &na, 65536, sizeof(*h));
		uint32_t *off;

		if (!h)
			return -ENOMEM;
		o->hash = h;
		off = op_grow(o->off, o->n + 1, &na_off, 65536, sizeof(*off));
		if (!off)
			return -ENOMEM;
		o->off = off;
		k->order_alloc = na;
	}
	o->hash[o->n] = op_kname_hash(l->name, l->name_len);
	o->off[o->n++] = (uint32_t)(l->addr - k->walk.text);
	return 0;
}

static int kallsyms_line(const struct op_ksym_line *l, void *arg)
{
	struct ksyms *k = arg;
	struct ktarget *t;
	int ret;

	if (k->have_arcs && op_kwalk_line(&k->walk, l) && (ret = order_add(k, l)))
		return ret;
	if (!l->addr)
		return 0;
	for (int i = 0; i < 3; i++)
		if (op_ksym_is(l, special_name[i])) {
			k->special[i] = *l;
			k->special[i].name = special_name[i];
			k->have_special[i] = true;
		}
	if (!op_ksym_is_text(l->type))
		return 0;
	t = target_of_line(k, l);
	return t ? add_sym(k, t, l) : 0;
}

static int read_kallsyms(struct ksyms *k, const char *proc_root)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/kallsyms", proc_root) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	return op_kallsyms_each(NULL, path, kallsyms_line, k, NULL);
}

/* The kernel first, then the modules by name: the file does not depend on
 * the order of the directory walk. */
static int target_cmp(const void *a, const void *b)
{
	const struct ktarget *x = a, *y = b;

	if (!x->module || !y->module)
		return !!x->module - !!y->module;
	return strcmp(x->module, y->module);
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Keep every alias at the address of the symbol holding addr (the last
 * one starting at or below it). */
static void keep_at(struct ktarget *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr_syms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return;
	for (size_t i = lo; i-- && t->syms[i].addr == t->syms[lo - 1].addr;)
		t->syms[i].keep = true;
}

static void write_line(FILE *f, uint64_t addr, char type, const char *name,
		       size_t len, const char *module)
{
	fprintf(f, "%016" PRIx64 " %c %.*s", addr, type, (int)len, name);
	if (module)
		fprintf(f, "\t[%s]", module);
	fputc('\n', f);
}

/* The kept symbols of t, each run of them followed by an end line where
 * the next symbol starts. */
static void write_target(FILE *f, const struct ksyms *k, const struct ktarget *t)
{
	for (size_t i = 0; i < t->nr_syms; i++) {
		const struct ksym *s = &t->syms[i];

		if (!s->keep)
			continue;
		write_line(f, s->addr, s->type, k->pool + s->name_off,
			   s->name_len, t->module);
		if (i + 1 < t->nr_syms && !t->syms[i + 1].keep &&
		    t->syms[i + 1].addr != s->addr)
			write_line(f, t->syms[i + 1].addr, OP_KSYM_END, "-", 1,
				   t->module);
	}
}

static int write_file(const struct ksyms *k, const char *samples_dir)
{
	char dir[4096], final[4200];
	struct op_afile a;
	FILE *f;
	int ret;

	if ((size_t)snprintf(dir, sizeof(dir), "%s/stats", samples_dir) >=
	    sizeof(dir))
		return -ENAMETOOLONG;
	ret = op_sd_mkdirs(k->sd, dir, 0755);
	if (ret)
		return ret;
	snprintf(final, sizeof(final), "%s/kallsyms", dir);
	ret = op_afile_open(&a, k->sd, final);
	if (ret)
		return ret;
	f = a.f;
	fprintf(f, "%s\n", OP_KSYMS_SAVED_HEADER);
	for (int i = 0; i < 3; i++)
		if (k->have_special[i] && !op_ksym_is_text(k->special[i].type))
			write_line(f, k->special[i].addr, k->special[i].type,
				   special_name[i], strlen(special_name[i]), NULL);
	for (size_t i = 0; i < k->nr; i++)
		write_target(f, k, &k->t[i]);
	return op_afile_commit(&a, false);
}

static void ksyms_release(struct ksyms *k)
{
	for (size_t i = 0; i < k->nr; i++) {
		free(k->t[i].module);
		free(k->t[i].offs);
		free(k->t[i].syms);
	}
	free(k->t);
	free(k->pool);
	op_korder_release(&k->order);
}

int opd_ksyms_save(const struct op_sessdir *sd, const char *samples_dir,
		   const char *proc_root)
{
	struct ksyms k;
	uint64_t text;
	int ret;

	memset(&k, 0, sizeof(k));
	k.sd = sd;
	ret = op_sfname_walk(sd, samples_dir, collect_file, &k);
	if (ret || !k.nr)
		goto out;
	qsort(k.t, k.nr, sizeof(*k.t), target_cmp);
	ret = read_kallsyms(&k, proc_root);
	if (ret)
		goto out;
	text = k.have_special[0] ? k.special[0].addr : k.special[1].addr;
	if ((!k.have_special[0] && !k.have_special[1]) || !k.have_special[2]) {
		ret = -ENODATA;
		goto out;
	}
	for (size_t i = 0; i < k.nr; i++) {
		struct ktarget *t = &k.t[i];
		uint64_t base;

		if (!t->nr_syms)
			continue;
		/* kallsyms is sorted but for a few runs: check first */
		for (size_t j = 1; j < t->nr_syms; j++)
			if (t->syms[j - 1].addr > t->syms[j].addr) {
				qsort(t->syms, t->nr_syms, sizeof(*t->syms), ksym_cmp);
				break;
			}
		/* a module's offsets are relative to its lowest symbol */
		base = t->module ? t->syms[0].addr : text;
		if (t->module) {
			keep_at(t, base);
		} else {
			for (int s = 0; s < 3; s++)
				if (k.have_special[s])
					keep_at(t, k.special[s].addr);
		}
		for (size_t j = 0; j < t->nr_offs; j++)
			keep_at(t, base + t->offs[j]);
	}
	ret = write_file(&k, samples_dir);
	if (!ret && k.have_arcs) {
		ret = op_korder_write(sd, samples_dir, &k.order);
	} else if (!ret) {
		char path[4200];

		snprintf(path, sizeof(path), "%s/%s", samples_dir, OP_KORDER_FILE);
		op_sd_unlink(sd, path);	/* an earlier copy's */
	}
out:
	ksyms_release(&k);
	return ret;
}
