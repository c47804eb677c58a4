/* The running kernel's layout, read from PROC_ROOT/kallsyms and
 * PROC_ROOT/modules. kallsyms is large (100k+ lines); we only want three
 * symbols, so it is scanned line by line with a fixed buffer and no
 * allocation per line. Both files are outside data: malformed lines are
 * counted and reported once, never fatal. */
#include "config.h"
#include "op_kernel.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_afile.h"
#include "op_grow.h"

static FILE *open_under(const char *proc_root, const char *name)
{
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s/%s", proc_root, name);

	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return fopen(path, "re");
}

/* Skip the rest of a line that did not fit in the buffer. */
static void skip_long_line(FILE *f, const char *line)
{
	int c;

	if (strchr(line, '\n'))
		return;
	while ((c = getc(f)) != EOF && c != '\n')
		;
}

static bool op_kallsyms_parse_line(const char *p, struct op_ksym_line *l)
{
	uint64_t a = 0;
	int digits = 0;

	for (;; p++, digits++) {
		unsigned int c = (unsigned char)*p, v;

		if (c >= '0' && c <= '9')
			v = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = (c | 0x20) - 'a' + 10;
		else
			break;
		if (digits == 16)
			return false;
		a = a << 4 | v;
	}
	if (!digits || p[0] != ' ' || !p[1] || p[1] == ' ' || p[2] != ' ')
		return false;
	l->addr = a;
	l->type = p[1];
	l->name = p + 3;
	l->name_len = strcspn(l->name, " \t\n");
	if (!l->name_len)
		return false;
	p = l->name + l->name_len;
	p += strspn(p, " \t");
	l->mod = NULL;
	l->mod_len = 0;
	if (*p == '[') {
		l->mod = p + 1;
		l->mod_len = strcspn(l->mod, "]\n");
		if (l->mod[l->mod_len] != ']' || !l->mod_len)
			return false;
	}
	return true;
}

bool op_ksym_is(const struct op_ksym_line *l, const char *name)
{
	return !l->mod && l->name_len == strlen(name) &&
	       !memcmp(l->name, name, l->name_len);
}

void op_ksym_range_note(struct op_ksym_range *r, const struct op_ksym_line *l)
{
	if (op_ksym_is(l, "_text")) {
		r->text = l->addr;
		r->have_text = true;
	} else if (op_ksym_is(l, "_stext")) {
		r->stext = l->addr;
		r->have_stext = true;
	} else if (op_ksym_is(l, "_etext")) {
		r->etext = l->addr;
		r->have_etext = true;
	}
}

bool op_ksym_range_start(const struct op_ksym_range *r, uint64_t *start)
{
	*start = r->have_text ? r->text : r->have_stext ? r->stext : 0;
	return r->have_text || r->have_stext;
}

int op_kallsyms_each(const struct op_sessdir *sd, const char *path, op_ksym_fn fn,
		     void *ctx, unsigned long *nr_bad)
{
	char line[1024];
	FILE *f = sd ? op_sd_fopen(sd, path, "re") : fopen(path, "re");
	int ret = 0;

	if (!f)
		return -errno;
	/* the kernel fills one read with as many lines as fit */
	setvbuf(f, NULL, _IOFBF, 256 * 1024);
	while (!ret && fgets(line, sizeof(line), f)) {
		struct op_ksym_line l;

		skip_long_line(f, line);
		if (!op_kallsyms_parse_line(line, &l)) {
			if (nr_bad)
				(*nr_bad)++;
			continue;
		}
		ret = fn(&l, ctx);
	}
	if (!ret && ferror(f))
		ret = -EIO;
	fclose(f);
	return ret;
}

static int note_range(const struct op_ksym_line *l, void *ctx)
{
	op_ksym_range_note(ctx, l);
	return 0;
}

static int read_kallsyms(struct op_kernel_map *km, const char *proc_root,
			 const struct op_logger *lg)
{
	char path[4096];
	struct op_ksym_range r = { 0 };
	uint64_t text = 0, etext;
	unsigned long nr_bad = 0;
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/kallsyms", proc_root) >=
	    sizeof(path))
		ret = -ENAMETOOLONG;
	else
		ret = op_kallsyms_each(NULL, path, note_range, &r, &nr_bad);
	if (ret) {
		op_log(lg, OP_LOG_ERR, "kernel: cannot read %s/kallsyms: %s",
		       proc_root, strerror(-ret));
		return ret;
	}
	if (nr_bad)
		op_log(lg, OP_LOG_WARN,
		       "kernel: %s/kallsyms: %lu malformed lines ignored",
		       proc_root, nr_bad);
	op_ksym_range_start(&r, &text);
	etext = r.etext;
	if (!text || !etext || etext <= text) {
		op_log(lg, OP_LOG_ERR,
		       "kernel: %s/kallsyms shows no text range (kptr_restrict?)",
		       proc_root);
		return -ENODATA;
	}
	km->text_start = text;
	km->text_end = etext;
	return 0;
}

static int cmp_module(const void *a, const void *b)
{
	const struct op_kmodule *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Parse PROC_ROOT/modules into a new sorted array. A missing file is a
 * kernel without loadable modules: no modules, not an error. */
static int read_modules(const char *proc_root, const struct op_logger *lg,
			struct op_kmodule **out, size_t *nr_out)
{
	char line[1024];
	struct op_kmodule *mods = NULL;
	size_t nr = 0, cap = 0;
	unsigned long nr_bad = 0;
	FILE *f = open_under(proc_root, "modules");

	*out = NULL;
	*nr_out = 0;
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		char name[64], state[32], deps[512];
		unsigned long long size, addr;
		int refs;

		skip_long_line(f, line);
		/* "name size refcount deps state address [taint]" */
		if (sscanf(line, "%63s %llu %d %511s %31s %llx", name, &size,
			   &refs, deps, state, &addr) != 6 || !size || !addr ||
		    addr + size < addr) {
			nr_bad++;
			continue;
		}
		if (nr == cap) {
			struct op_kmodule *n = op_grow(mods, nr + 1, &cap, 32,
						       sizeof(*n));

			if (!n) {
				free(mods);
				fclose(f);
				return -ENOMEM;
			}
			mods = n;
		}
		memset(&mods[nr], 0, sizeof(mods[nr]));
		snprintf(mods[nr].name, sizeof(mods[nr].name), "%s", name);
		mods[nr].start = addr;
		mods[nr].end = addr + size;
		nr++;
	}
	fclose(f);
	if (nr_bad)
		op_log(lg, OP_LOG_WARN,
		       "kernel: %s/modules: %lu malformed lines ignored",
		       proc_root, nr_bad);
	if (nr)
		qsort(mods, nr, sizeof(*mods), cmp_module);
	*out = mods;
	*nr_out = nr;
	return 0;
}

int op_kernel_map_read(struct op_kernel_map *km, const char *proc_root,
		       const struct op_logger *lg)
{
	int err;

	memset(km, 0, sizeof(*km));
	err = read_kallsyms(km, proc_root, lg);
	if (err)
		return err;
	err = read_modules(proc_root, lg, &km->modules, &km->nr_modules);
	if (err) {
		op_log(lg, OP_LOG_ERR, "kernel: cannot read %s/modules: %s",
		       proc_root, strerror(-err));
		memset(km, 0, sizeof(*km));
	}
	return err;
}

int op_kernel_map_reread_modules(struct op_kernel_map *km,
				 const char *proc_root,
				 const struct op_logger *lg)
{
	struct op_kmodule *mods;
	size_t nr;
	int changed;
	int err = read_modules(proc_root, lg, &mods, &nr);

	if (err)
		return err;
	changed = nr != km->nr_modules ||
		  (nr && memcmp(mods, km->modules, nr * sizeof(*mods)));
	free(km->modules);
	km->modules = mods;
	km->nr_modules = nr;
	return changed;
}

const struct op_kmodule *op_kernel_map_find_module(const struct op_kernel_map *km,
						  uint64_t pc)
{
	size_t lo = 0, hi = km->nr_modules;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct op_kmodule *m = &km->modules[mid];

		if (pc < m->start)
			hi = mid;
		else if (pc >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

int op_kernel_map_in_text(const struct op_kernel_map *km, uint64_t pc)
{
	return pc >= km->text_start && pc < km->text_end;
}

void op_kernel_map_release(struct op_kernel_map *km)
{
	if (!km)
		return;
	free(km->modules);
	memset(km, 0, sizeof(*km));
}

/* OProfile's test for _text and _etext: the line's name is a prefix. */
static bool name_prefix_of(const struct op_ksym_line *l, const char *s)
{
	return l->name_len && l->name_len <= strlen(s) &&
	       !strncmp(l->name, s, l->name_len);
}

bool op_kwalk_line(struct op_kwalk *w, const struct op_ksym_line *l)
{
	if (w->done)
		return false;
	if (!w->in) {
		if (!name_prefix_of(l, "_text") || !l->addr)
			return false;
		w->in = true;
		w->text = l->addr;
		return true;
	}
	if (name_prefix_of(l, "_etext")) {
		w->done = true;
		return false;
	}
	return true;
}

uint64_t op_kname_hash(const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3ull;
	return (h ^ (h >> 40)) & ((1ull << 40) - 1);
}

#define KORDER_REC 9

int op_korder_write(const struct op_sessdir *sd, const char *dir,
		    const struct op_korder *k)
{
	char path[4096];
	unsigned char rec[KORDER_REC];
	uint64_t n = k->n;
	struct op_afile a;
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, OP_KORDER_FILE) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	ret = op_afile_open(&a, sd, path);
	if (ret)
		return ret;
	fwrite(OP_KORDER_MAGIC, 1, 8, a.f);
	fwrite(&n, sizeof(n), 1, a.f);
	for (size_t i = 0; i < k->n; i++) {
		for (int b = 0; b < 5; b++)
			rec[b] = (unsigned char)(k->hash[i] >> (8 * b));
		memcpy(rec + 5, &k->off[i], 4);
		fwrite(rec, 1, sizeof(rec), a.f);
	}
	return op_afile_commit(&a, false);
}

int op_korder_read(const struct op_sessdir *sd, const char *dir, struct op_korder *k)
{
	char path[4096], magic[8];
	unsigned char rec[KORDER_REC];
	uint64_t n;
	struct stat st;
	FILE *f;
	int ret = 0;

	memset(k, 0, sizeof(*k));
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, OP_KORDER_FILE) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	f = op_sd_fopen(sd, path, "re");
	if (!f)
		return -errno;
	if (fstat(fileno(f), &st) || fread(magic, 1, 8, f) != 8 ||
	    memcmp(magic, OP_KORDER_MAGIC, 8) || fread(&n, sizeof(n), 1, f) != 1 ||
	    n > OP_KORDER_MAX || (uint64_t)st.st_size != 16 + n * KORDER_REC) {
		fclose(f);
		return -EINVAL;
	}
	k->hash = malloc((n ? n : 1) * sizeof(*k->hash));
	k->off = malloc((n ? n : 1) * sizeof(*k->off));
	if (!k->hash || !k->off)
		ret = -ENOMEM;
	for (uint64_t i = 0; !ret && i < n; i++) {
		uint64_t h = 0;

		if (fread(rec, 1, sizeof(rec), f) != sizeof(rec)) {
			ret = -EINVAL;
			break;
		}
		for (int b = 0; b < 5; b++)
			h |= (uint64_t)rec[b] << (8 * b);
		k->hash[i] = h;
		memcpy(&k->off[i], rec + 5, 4);
	}
	fclose(f);
	if (ret) {
		op_korder_release(k);
		return ret;
	}
	k->n = (size_t)n;
	return 0;
}

void op_korder_release(struct op_korder *k)
{
	free(k->hash);
	free(k->off);
	memset(k, 0, sizeof(*k));
}
