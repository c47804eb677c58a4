/* The symbol tables read from text: kallsyms (the kernel and its modules,
 * as OProfile's kallsyms reader keeps them) and JIT maps (perf-PID.map),
 * into the sorted array pp_symbols.c builds for every table. */
#include "config.h"
#include "pp_symbols.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_kernel.h"
#include "pp_symbols_rooms.h"

/* One kernel image being collected from a kallsyms file. */
struct ksym_target {
	const char *module;	/* NULL: the kernel */
	size_t module_len;
	struct sym_vec sv;
	uint64_t base;		/* module: its lowest symbol */
	int status;
};

/* Add one line's symbol to t; of aliases the last line wins, as in
 * OProfile, where each line reaches the next and the earlier aliases
 * reach nothing. A module's base is its lowest symbol. */
static void ksym_add(struct ksym_target *t, const struct op_ksym_line *l)
{
	bool end = l->type == OP_KSYM_END;
	struct sym_in *e;

	if (t->status)
		return;
	if (t->module && !end && l->addr < t->base)
		t->base = l->addr;
	t->status = pp_symvec_add_len(&t->sv, l->addr, 0, l->name, l->name_len,
				    end ? INT_MAX : 0);
	if (t->status)
		return;
	e = &t->sv.v[t->sv.n - 1];
	e->end = end;
	e->seq = UINT64_MAX - e->seq;
}

/* Make t's table: addresses relative to base, the kernel's symbols before
 * _text dropped, the last symbol extended to limit. */
static int ksym_finish(struct ksym_target *t, struct pp_symtab *st,
		       bool have_text, uint64_t text, uint64_t etext)
{
	struct sym_vec *sv = &t->sv;
	uint64_t base = t->module ? t->base : text, last = 0;
	size_t k = 0;

	if (t->status) {
		pp_symvec_free(sv);
		return t->status;
	}
	if ((!t->module && !have_text) || (t->module && !sv->n)) {
		pp_symvec_free(sv);
		return -ENODATA;
	}
	for (size_t i = 0; i < sv->n; i++) {
		if (sv->v[i].s.start < base) {
			pp_symvec_drop_name(sv, i);
			continue;
		}
		sv->v[i].s.start -= base;
		if (sv->v[i].s.start > last)
			last = sv->v[i].s.start;
		sv->v[k++] = sv->v[i];
	}
	sv->n = k;
	/* a module's extent is not in kallsyms: its last symbol gets a page */
	if (t->module) {
		st->partial = true;
		return pp_symtab_finish(st, sv, last + 4096);
	}
	return pp_symtab_finish(st, sv, etext > base ? etext - base : 0);
}

/* The images being collected from one read of a kallsyms file. */
struct ksym_set {
	struct ksym_target *t;
	size_t n;
	size_t kernel;		/* the first kernel target, or n */
	size_t last;		/* the module target of the line before */
	struct op_ksym_range range;
	op_ksym_fn each;	/* another reader of every line, or NULL */
	void *each_ctx;
};

static int ksym_set_line(const struct op_ksym_line *l, void *arg)
{
	struct ksym_set *ks = arg;
	struct ksym_target *t = ks->t;
	size_t i, n = ks->n;

	if (ks->each)
		(void)ks->each(l, ks->each_ctx);
	op_ksym_range_note(&ks->range, l);
	if (!op_ksym_is_text(l->type) && l->type != OP_KSYM_END)
		return 0;
	if (!l->mod) {
		/* every kernel target (a differential report may name the
		 * kernel twice: "vmlinux" and "/proc/kallsyms") */
		for (i = ks->kernel; i < n; i++)
			if (!t[i].module)
				ksym_add(&t[i], l);
		return 0;
	}
	/* a module's lines come together: try the last one first */
	i = ks->last;
	if (i == n || !t[i].module || t[i].module_len != l->mod_len ||
	    memcmp(t[i].module, l->mod, l->mod_len)) {
		for (i = 0; i < n; i++)
			if (t[i].module && t[i].module_len == l->mod_len &&
			    !memcmp(t[i].module, l->mod, l->mod_len))
				break;
	}
	ks->last = i;
	if (i < n)
		ksym_add(&t[i], l);
	return 0;
}

void pp_symtab_load_kallsyms_set(const char *path, size_t n,
				 const char *const *modules,
				 struct pp_symtab *tabs, int *status)
{
	pp_symtab_load_kallsyms_each(NULL, path, n, modules, tabs, status, NULL, NULL);
}

void pp_symtab_load_kallsyms_each(const struct op_sessdir *sd, const char *path, size_t n,
				  const char *const *modules,
				  struct pp_symtab *tabs, int *status,
				  op_ksym_fn each, void *each_ctx)
{
	struct ksym_set ks = { .n = n, .kernel = n, .last = n, .each = each,
			       .each_ctx = each_ctx };
	uint64_t text;
	bool have_text;
	int err;

	for (size_t i = 0; i < n; i++) {
		memset(&tabs[i], 0, sizeof(tabs[i]));
		status[i] = -ENOMEM;
	}
	ks.t = calloc(n ? n : 1, sizeof(*ks.t));
	if (!ks.t)
		return;
	for (size_t i = 0; i < n; i++) {
		ks.t[i].module = modules[i];
		ks.t[i].module_len = modules[i] ? strlen(modules[i]) : 0;
		ks.t[i].sv.use_blocks = true;
		ks.t[i].base = UINT64_MAX;
		if (!modules[i] && ks.kernel == n)
			ks.kernel = i;
	}
	err = op_kallsyms_each(sd, path, ksym_set_line, &ks, NULL);
	have_text = op_ksym_range_start(&ks.range, &text);
	for (size_t i = 0; i < n; i++) {
		if (err) {
			status[i] = err;
			pp_symvec_free(&ks.t[i].sv);
			continue;
		}
		status[i] = ksym_finish(&ks.t[i], &tabs[i], have_text, text,
					ks.range.etext);
	}
	free(ks.t);
}

int pp_symtab_load_kallsyms(struct pp_symtab *st, const char *path,
			    const char *module)
{
	int status;

	pp_symtab_load_kallsyms_set(path, 1, &module, st, &status);
	return status;
}

int pp_symtab_load_perfmap(struct pp_symtab *st, const char *path,
			   uint64_t start, uint64_t end, size_t *nr_bad)
{
	struct sym_vec sv = { 0 };
	char line[4096];
	size_t bad = 0;
	FILE *f;
	int ret;

	memset(st, 0, sizeof(*st));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, sz;
		int pos = 0;
		size_t len;

		if (sscanf(line, "%llx %llx %n", &a, &sz, &pos) < 2 || !pos) {
			bad++;
			continue;
		}
		len = strlen(line + pos);
		while (len && (line[pos + len - 1] == '\n' ||
			       line[pos + len - 1] == '\r'))
			line[pos + --len] = '\0';
		if (!len) {
			bad++;
			continue;
		}
		if (a < start || a >= end)
			continue;
		ret = pp_symvec_add(&sv, a - start, sz, line + pos, 0);
		if (ret) {
			fclose(f);
			pp_symvec_free(&sv);
			return ret;
		}
	}
	fclose(f);
	if (nr_bad)
		*nr_bad = bad;
	st->partial = true;
	return pp_symtab_finish(st, &sv, end - start);
}
