/* Symbol tables for opreport: libdwfl for ELF files (so separate debug
 * files, build-ids and debuglinks are found the way the rest of the system
 * finds them); small parsers for kallsyms and JIT maps in
 * pp_symbols_text.c. All three end in the same sorted array (built here)
 * so lookups are one binary search. */
#include "config.h"
#include "pp_symbols.h"
#include "pp_debuginfod.h"

#include <dlfcn.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_grow.h"
#include "op_kernel.h"
#include "pp_symbols_rooms.h"

/* libdwfl keeps a pointer to its callbacks and to the debuginfo path for
 * the life of the Dwfl: they live here, next to it. */
struct dw_state {
	Dwfl_Callbacks cb;
	char *debuginfo_path;
	Dwfl *dwfl;
	const struct op_sessdir *sd;	/* debug files under it: through it */
};


static int sym_in_cmp(const void *a, const void *b)
{
	const struct sym_in *x = a, *y = b;

	if (x->s.start != y->s.start)
		return x->s.start < y->s.start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return strcmp(x->s.name, y->s.name);
}

/* OProfile's order of preference between ELF aliases (its
 * boring_symbol()): each test, in this order, decides when the two differ
 * in it. */
static int elf_alias_rank(const char *name, int bind)
{
	int rank = 0;

	if (!strcmp(name, "Letext"))
		rank |= 1 << 4;
	if (!strncmp(name, "??", 2))
		rank |= 1 << 3;
	if (bind == STB_LOCAL)
		rank |= 1 << 2;
	if (name[0] == '_')
		rank |= 1 << 1;
	if (bind == STB_WEAK)
		rank |= 1;
	return rank;
}

/* A block of names; blocks are chained, newest first, and never moved, so
 * a name's pointer stays valid until the chain is freed. */
struct name_block {
	struct name_block *next;
	size_t used, cap;
	char data[];
};

#define NAME_BLOCK_BYTES (256 * 1024)

static char *name_block_dup(struct name_block **head, const char *s, size_t len)
{
	struct name_block *b = *head;
	char *p;

	if (!b || b->cap - b->used < len + 1) {
		size_t cap = len + 1 > NAME_BLOCK_BYTES ? len + 1 : NAME_BLOCK_BYTES;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = *head;
		b->used = 0;
		b->cap = cap;
		*head = b;
	}
	p = b->data + b->used;
	memcpy(p, s, len);
	p[len] = '\0';
	b->used += len + 1;
	return p;
}

static void name_blocks_free(struct name_block *b)
{
	while (b) {
		struct name_block *next = b->next;

		free(b);
		b = next;
	}
}

/* Symbols being collected. With blocks set (use_blocks), names go into
 * them; otherwise each is strdup'd. */

int pp_symvec_add_len(struct sym_vec *sv, uint64_t start, uint64_t size,
		      const char *name, size_t len, int rank)
{
	struct sym_in *e;

	if (sv->n == sv->alloc) {
		struct sym_in *v = op_grow(sv->v, sv->n + 1, &sv->alloc, 256,
				sizeof(*v));

		if (!v)
			return -ENOMEM;
		sv->v = v;
	}
	e = &sv->v[sv->n];
	e->s.start = start;
	e->s.size = size;
	e->s.name = sv->use_blocks ? name_block_dup(&sv->blocks, name, len) :
				     strndup(name, len);
	e->rank = rank;
	e->seq = sv->n;
	e->limit = UINT64_MAX;
	e->end = false;
	if (!e->s.name)
		return -ENOMEM;
	sv->n++;
	return 0;
}

int pp_symvec_add(struct sym_vec *sv, uint64_t start, uint64_t size,
		  const char *name, int rank)
{
	return pp_symvec_add_len(sv, start, size, name, strlen(name), rank);
}

/* Forget the name of an entry being dropped. */
void pp_symvec_drop_name(struct sym_vec *sv, size_t i)
{
	if (!sv->use_blocks)
		free(sv->v[i].s.name);
}

void pp_symvec_free(struct sym_vec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		pp_symvec_drop_name(sv, i);
	name_blocks_free(sv->blocks);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

/* Sort by sym_in_cmp. Symbol tables usually come sorted by address
 * already (kallsyms does): then only the runs of aliases at one address
 * need ordering, and the full sort is skipped. */
static void sym_vec_sort(struct sym_vec *sv)
{
	size_t i = 1;

	while (i < sv->n && sv->v[i - 1].s.start <= sv->v[i].s.start)
		i++;
	if (i < sv->n) {
		qsort(sv->v, sv->n, sizeof(*sv->v), sym_in_cmp);
		return;
	}
	for (i = 0; i < sv->n;) {
		size_t j = i + 1;

		while (j < sv->n && sv->v[j].s.start == sv->v[i].s.start)
			j++;
		if (j - i > 1)
			qsort(sv->v + i, j - i, sizeof(*sv->v), sym_in_cmp);
		i = j;
	}
}

/* Sort, drop aliases at one address, give zero-sized symbols the room up to
 * the next one or their own limit (limit bounds the last), drop the end
 * markers, and hand the array to st. */
int pp_symtab_finish(struct pp_symtab *st, struct sym_vec *sv,
		     uint64_t limit)
{
	size_t n = 0;

	sym_vec_sort(sv);
	st->syms = malloc((sv->n ? sv->n : 1) * sizeof(*st->syms));
	if (!st->syms) {
		pp_symvec_free(sv);
		return -ENOMEM;
	}
	bool *end = NULL;
	size_t k = 0;

	for (size_t i = 0; i < sv->n && !end; i++)
		if (sv->v[i].end && !(end = calloc(sv->n, sizeof(*end)))) {
			pp_symvec_free(sv);
			free(st->syms);
			st->syms = NULL;
			return -ENOMEM;
		}
	for (size_t i = 0; i < sv->n; i++) {
		if (n && st->syms[n - 1].start == sv->v[i].s.start) {
			pp_symvec_drop_name(sv, i);
			continue;
		}
		if (end)
			end[n] = sv->v[i].end;
		/* the kept entry's own limit, for the loop below */
		sv->v[n].limit = sv->v[i].limit;
		st->syms[n++] = sv->v[i].s;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t stop = i + 1 < n ? st->syms[i + 1].start : limit;

		if (st->syms[i].size)
			continue;
		if (sv->v[i].limit < stop)
			stop = sv->v[i].limit;
		st->syms[i].size = stop > st->syms[i].start ?
				   stop - st->syms[i].start : 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (end && end[i]) {
			if (!sv->use_blocks)
				free(st->syms[i].name);
			continue;
		}
		st->syms[k++] = st->syms[i];
	}
	free(end);
	n = k;
	st->nr_syms = n;
	st->name_blocks = sv->blocks;
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
	return 0;
}

/* After the local places: a debuginfod server's, when DEBUGINFOD_URLS is
 * set (pp_debuginfod.h), by the module's build-id. */
static int find_debuginfo_remote(Dwfl_Module *mod, char **debuginfo_file_name)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	char *path;
	int n, fd;

	if (!pp_debuginfod_enabled())
		return -1;
	n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (n <= 0)
		return -1;
	fd = pp_debuginfod_find(bits, n, &path);
	if (fd < 0)
		return -1;
	*debuginfo_file_name = path;
	return fd;
}

/* Separate debug files, looked up locally first: by build-id under the
 * debuginfo path (libdwfl's own lookup), else by .gnu_debuglink next to the
 * binary, in its .debug/ directory, or under each absolute directory of the
 * path; then, only when the user set DEBUGINFOD_URLS, a debuginfod
 * server's (dwfl_standard_find_debuginfo would start that client
 * whenever libdebuginfod is installed: a report reads what is on this
 * machine unless told otherwise). */
static int find_debuginfo_local(Dwfl_Module *mod, void **userdata,
				const char *modname, Dwarf_Addr base,
				const char *file_name, const char *debuglink_file,
				GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const struct dw_state *dw = *userdata;
	char dir[PATH_MAX], cand[PATH_MAX * 2];
	const char *slash;
	int fd;

	fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base,
					  file_name, debuglink_file,
					  debuglink_crc, debuginfo_file_name);
	if (fd >= 0)
		return fd;
	if (!debuglink_file || !file_name || !dw)
		return find_debuginfo_remote(mod, debuginfo_file_name);
	slash = strrchr(file_name, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file_name) : 1,
		 slash ? file_name : ".");
	for (const char *p = dw->debuginfo_path; p;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);

		if (!len)
			snprintf(cand, sizeof(cand), "%s/%s", dir, debuglink_file);
		else if (p[0] == '/')
			snprintf(cand, sizeof(cand), "%.*s%s/%s", (int)len, p, dir,
				 debuglink_file);
		else
			snprintf(cand, sizeof(cand), "%s/%.*s/%s", dir, (int)len, p,
				 debuglink_file);
		/* never the binary itself; beside a kept copy, no link */
		if (strcmp(cand, file_name)) {
			fd = dw->sd && op_sd_rel(dw->sd, cand) ?
			     op_sd_open(dw->sd, cand, O_RDONLY, 0) :
			     open(cand, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				*debuginfo_file_name = strdup(cand);
				return fd;
			}
		}
		p = colon ? colon + 1 : NULL;
	}
	return find_debuginfo_remote(mod, debuginfo_file_name);
}

static bool elf_has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	}
	return false;
}

/* Whether libdwfl's symbols for mod come from a .symtab, the file's own
 * (elf) or its debug file's, rather than from .dynsym. */
static bool has_symtab(Dwfl_Module *mod, Elf *elf)
{
	const char *debugfile = NULL;
	bool found = false;
	Elf *delf;
	int fd;

	if (elf_has_symtab(elf))
		return true;
	/* libdwfl looked for the debug file when the file had no .symtab */
	if (!dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL,
			      &debugfile) || !debugfile)
		return false;
	fd = open(debugfile, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	delf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	found = elf_has_symtab(delf);
	elf_end(delf);
	close(fd);
	return found;
}

/* Symbol i of mod into sv when OProfile would take it (see pp_symbols.h):
 * from a .symtab, any symbol of an executable section, reaching the next
 * one or its section's end; from .dynsym, functions with their size. */
/* perf's order instead, for the vDSO (pp_symtab_load_vdso()): a weak
 * name loses first, then one starting with '_', so that the kernel's
 * __vdso_clock_gettime is named, not its weak alias clock_gettime. */
static int perf_alias_rank(const char *name, int bind)
{
	return (bind == STB_WEAK) << 2 | (bind == STB_LOCAL) << 1 | (name[0] == '_');
}

static int add_elf_sym(struct sym_vec *sv, Dwfl_Module *mod, int i,
		       GElf_Addr bias, bool dynsym, bool perf_aliases)
{
	char unnamed[64];
	GElf_Sym sym;
	GElf_Addr addr;
	GElf_Word shndx;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf *selv;
	Dwarf_Addr sbias;
	const char *name;
	size_t shstrndx;
	int type, ret;

	name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &selv,
				       &sbias);
	if (!name || shndx == SHN_UNDEF || !selv)
		return 0;
	scn = elf_getscn(selv, shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
		return 0;
	type = GELF_ST_TYPE(sym.st_info);
	if (dynsym && (!*name || (type != STT_FUNC && type != STT_GNU_IFUNC)))
		return 0;
	if (type == STT_SECTION || type == STT_FILE || !strcmp(name, "$a") ||
	    !strcmp(name, "$t") || !strcmp(name, "$d") || !strcmp(name, "$x") ||
	    !strncmp(name, ".L", 2) || !strcmp(name, "gcc2_compiled."))
		return 0;
	if (!*name) {
		const char *sec = NULL;

		if (!elf_getshdrstrndx(selv, &shstrndx))
			sec = elf_strptr(selv, shstrndx, sh.sh_name);
		snprintf(unnamed, sizeof(unnamed), "??%s", sec ? sec : "");
		name = unnamed;
	}
	ret = pp_symvec_add(sv, addr - bias, dynsym ? sym.st_size : 0, name,
			  perf_aliases ? perf_alias_rank(name, GELF_ST_BIND(sym.st_info)) :
			  elf_alias_rank(name, GELF_ST_BIND(sym.st_info)));
	if (!ret && !dynsym)
		sv->v[sv->n - 1].limit = sh.sh_addr + sh.sh_size + sbias - bias;
	return ret;
}

char *pp_debug_dirs_under(const char *root)
{
	char *dirs;

	if (asprintf(&dirs, ":.debug:%s" PP_DEBUG_ROOT_DIR, root) < 0)
		return NULL;
	return dirs;
}

static int load_elf(struct pp_symtab *st, const struct op_sessdir *sd,
		    const char *path, const char *debug_dirs,
		    const struct op_logger *lg, bool perf_aliases)
{
	struct sym_vec sv = { 0 };
	struct dw_state *dw;
	Dwfl_Module *mod;
	Elf *elf;
	GElf_Addr bias = 0;
	size_t nphdr = 0;
	uint64_t limit = 0;
	int nsyms, ret, fd;

	memset(st, 0, sizeof(*st));
	if (sd && !op_sd_rel(sd, path))
		sd = NULL;
	/* in the session: this descriptor is the file libdwfl reads (it
	 * takes it); elsewhere libdwfl opens path */
	fd = sd ? op_sd_open(sd, path, O_RDONLY, 0) : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sd ? fd : -errno;
	if (!sd) {
		close(fd);
		fd = -1;
	}
	dw = calloc(1, sizeof(*dw));
	if (!dw) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	dw->sd = sd;
	dw->debuginfo_path = strdup(debug_dirs ? debug_dirs : PP_DEBUG_DIRS);
	if (!dw->debuginfo_path) {
		if (fd >= 0)
			close(fd);
		ret = -ENOMEM;
		goto err_dw;
	}
	dw->cb.find_debuginfo = find_debuginfo_local;
	dw->cb.section_address = dwfl_offline_section_address;
	dw->cb.debuginfo_path = &dw->debuginfo_path;
	dw->dwfl = dwfl_begin(&dw->cb);
	if (!dw->dwfl) {
		if (fd >= 0)
			close(fd);
		ret = -ENOMEM;
		goto err_dw;
	}
	mod = dwfl_report_offline(dw->dwfl, path, path, fd);
	dwfl_report_end(dw->dwfl, NULL, NULL);
	if (!mod) {
		op_log(lg, OP_LOG_DEBUG, "symbols: %s: %s", path, dwfl_errmsg(-1));
		ret = -ENOEXEC;
		goto err_dwfl;
	}
	{
		void **ud;

		/* find_debuginfo_local reads the debuginfo path from here */
		if (dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
			*ud = dw;
	}
	elf = dwfl_module_getelf(mod, &bias);
	if (!elf) {
		ret = -ENOEXEC;
		goto err_dwfl;
	}
	st->is_elf = true;
	st->bias = bias;
	if (!elf_getphdrnum(elf, &nphdr) && nphdr) {
		st->segs = calloc(nphdr, sizeof(*st->segs));
		if (!st->segs) {
			ret = -ENOMEM;
			goto err_dwfl;
		}
		for (size_t i = 0; i < nphdr; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			st->segs[st->nr_segs].offset = ph.p_offset;
			st->segs[st->nr_segs].filesz = ph.p_filesz;
			st->segs[st->nr_segs].vaddr = ph.p_vaddr;
			st->nr_segs++;
			if (ph.p_flags & PF_X && ph.p_vaddr + ph.p_memsz > limit)
				limit = ph.p_vaddr + ph.p_memsz;
		}
	}
	nsyms = dwfl_module_getsymtab(mod);
	st->dynsym_only = !has_symtab(mod, elf);
	st->partial = st->dynsym_only;
	for (int i = 1; i < nsyms; i++) {
		ret = add_elf_sym(&sv, mod, i, bias, st->dynsym_only, perf_aliases);
		if (ret)
			goto err_syms;
	}
	ret = pp_symtab_finish(st, &sv, st->dynsym_only ? limit : UINT64_MAX);
	if (ret)
		goto err_dwfl;
	st->dwfl = dw;
	st->mod = mod;
	return 0;

err_syms:
	pp_symvec_free(&sv);
err_dwfl:
	dwfl_end(dw->dwfl);
err_dw:
	free(dw->debuginfo_path);
	free(dw);
	free(st->segs);
	memset(st, 0, sizeof(*st));
	return ret;
}

int pp_symtab_load_elf(struct pp_symtab *st, const char *path,
		       const char *debug_dirs, const struct op_logger *lg)
{
	return load_elf(st, NULL, path, debug_dirs, lg, false);
}

int pp_symtab_load_elf_sd(struct pp_symtab *st, const struct op_sessdir *sd,
			  const char *path, const char *debug_dirs,
			  const struct op_logger *lg)
{
	return load_elf(st, sd, path, debug_dirs, lg, false);
}

int pp_symtab_load_vdso(struct pp_symtab *st, const char *path,
			const struct op_logger *lg)
{
	int ret = load_elf(st, NULL, path, NULL, lg, true);

	/* its .dynsym is all the kernel leaves it */
	st->dynsym_only = false;
	return ret;
}

uint64_t pp_symtab_off_to_vma(const struct pp_symtab *st, uint64_t off)
{
	for (size_t i = 0; i < st->nr_segs; i++) {
		const struct pp_load_seg *s = &st->segs[i];

		if (off >= s->offset && off < s->offset + s->filesz)
			return off - s->offset + s->vaddr;
	}
	return off;
}

const struct pp_sym *pp_symtab_lookup(const struct pp_symtab *st, uint64_t vma)
{
	size_t lo = 0, hi = st->nr_syms;

	/* first symbol starting above vma */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->syms[mid].start <= vma)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (vma - st->syms[lo - 1].start < st->syms[lo - 1].size)
		return &st->syms[lo - 1];
	return NULL;
}

bool pp_symtab_line_dir(const struct pp_symtab *st, uint64_t vma,
			const char **file, int *line, const char **comp_dir)
{
	Dwfl_Line *l;
	const char *src;
	int lineno = 0;

	if (!st->mod)
		return false;
	l = dwfl_module_getsrc(st->mod, vma + st->bias);
	if (!l)
		return false;
	src = dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL);
	if (!src || lineno <= 0)
		return false;
	*file = src;
	*line = lineno;
	if (comp_dir)
		*comp_dir = src[0] == '/' ? NULL : dwfl_line_comp_dir(l);
	return true;
}

bool pp_symtab_line(const struct pp_symtab *st, uint64_t vma,
		    const char **file, int *line)
{
	return pp_symtab_line_dir(st, vma, file, line, NULL);
}

size_t pp_symtab_build_id(const struct pp_symtab *st, char *buf, size_t len)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (!st->mod)
		return 0;
	n = dwfl_module_build_id(st->mod, &bits, &vaddr);
	if (n <= 0)
		return 0;
	for (int i = 0; i < n && (size_t)i * 2 + 2 < len; i++)
		snprintf(buf + i * 2, 3, "%02x", bits[i]);
	return (size_t)n;
}

const char *pp_symtab_debug_file(const struct pp_symtab *st,
				 const char **debuglink)
{
	const char *mainfile = NULL, *debugfile = NULL;
	GElf_Word crc;
	Dwarf_Addr bias;
	Elf *elf;

	if (debuglink)
		*debuglink = NULL;
	if (!st->mod)
		return NULL;
	/* the search for the debug file happens on the first request */
	dwfl_module_getdwarf(st->mod, &bias);
	dwfl_module_info(st->mod, NULL, NULL, NULL, NULL, NULL, &mainfile,
			 &debugfile);
	elf = dwfl_module_getelf(st->mod, &bias);
	if (debuglink && elf)
		*debuglink = dwelf_elf_gnu_debuglink(elf, &crc);
	if (!debugfile || (mainfile && !strcmp(mainfile, debugfile)))
		return NULL;
	return debugfile;
}

void pp_symtab_release(struct pp_symtab *st)
{
	struct dw_state *dw = st->dwfl;

	if (st->name_blocks)
		name_blocks_free(st->name_blocks);
	else
		for (size_t i = 0; i < st->nr_syms; i++)
			free(st->syms[i].name);
	free(st->syms);
	free(st->segs);
	if (dw) {
		dwfl_end(dw->dwfl);
		free(dw->debuginfo_path);
		free(dw);
	}
	memset(st, 0, sizeof(*st));
}

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

char *pp_demangle(const char *name)
{
	/* resolved once per process; the handle stays open for its life */
	static cxa_demangle_fn fn;
	static int tried;
	int status = 0;
	char *out;

	if (strncmp(name, "_Z", 2))
		return NULL;
	if (!tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		tried = 1;
		if (h)
			*(void **)&fn = dlsym(h, "__cxa_demangle");
	}
	if (!fn)
		return NULL;
	out = fn(name, NULL, NULL, &status);
	if (status) {
		free(out);
		return NULL;
	}
	return out;
}
