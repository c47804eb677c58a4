/* DWARF unwinding of sampled user stacks (see kop_unwind.h). Why here and
 * not at report time, as perf does: the sync thread already holds the
 * process's mappings at the sample's moment, so the walk needs nothing
 * later, and only its few pcs go on; the 8 KiB copy is dropped at once.
 *
 * One room past 800 lines: libdw's callbacks, the files, the per-process
 * state and the fast path all work on the private cache (struct cached,
 * struct ufile) kept here; the rows the fast path applies are
 * kop_unwind_rows.c's. */
#include "config.h"
#include "kop_unwind.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kop_unwind_rows.h"
#include "op_proto.h"
#include "op_vdso.h"

/* Processes whose libdw state is kept: a system-wide session samples a
 * few busy processes and many that run a moment; the least recently
 * unwound goes first. */
#define NR_CACHED 64

/* How far above the sampled sp a read still counts as the stack's: a
 * frame there that the copy does not reach means the copy was short. */
#define STACK_REACH (16ULL << 20)

/* What a walk reads: the sample being unwound, in DWARF numbering. */
struct walk_state {
	Dwarf_Word regs[KOP_UNWIND_NR_REGS];
	const unsigned char *stack;
	uint64_t sp, stack_size;
	bool past_copy;		/* a read above the copy, in the stack */
	/* the frame callback's */
	struct cached *c;
	uint64_t *pcs;
	size_t nr, max;
	uint64_t last_pc;
	bool last_activation;
	bool last_no_cfi;	/* the last frame has no unwind table: its
				 * caller, if any, is libdw's frame-pointer
				 * guess */
	unsigned int nr_fp;	/* frames found by that guess */
};

/* Whether a pc has an unwind table entry, remembered: libdw does not say
 * when it fell back to the frame pointer, so each frame is asked, and a
 * process runs the same few hundred pcs again and again. */
#define NR_FDE_MEMO 256

struct cached {
	pid_t tgid;
	uint64_t gen;		/* kop_task.gen it was built from; 0: free */
	uint64_t used;		/* kop_unwind.clock at its last walk */
	Dwfl *dwfl;
	bool attached;
	struct walk_state *ws;	/* the Dwfl's callback argument */
	uint64_t memo_pc[NR_FDE_MEMO];	/* pc + 1; 0: empty */
	int8_t memo_cfi[NR_FDE_MEMO];	/* cfi_at() of it */
};

/* An ELF file, opened once for every process that maps it: each
 * process's Dwfl module takes a reference to the same Elf (libelf counts
 * them), so a new process costs no open, no read of the headers and no
 * section table per library, only its own Dwfl. */
struct ufile {
	uint64_t cookie;	/* 0: a free slot */
	Elf *elf;		/* our reference; NULL: not to be had (kept,
				 * so that it is not tried at every build) */
	uint64_t vaddr, end;	/* first PT_LOAD's page, last one's end */
	bool exec;		/* ET_EXEC: at its own addresses */
	bool cfi_tried;
	Dwarf_CFI *cfi;		/* its .eh_frame, for the fast path; lazy */
	char name[80];		/* the module's name (its path's end) */
};

/* Separate debug files known to have no .debug_frame, by build-id. */
#define NR_DBG 64

struct dbg_verdict {
	uint64_t key;		/* a hash of the build-id; 0: none */
	bool frame;		/* has a .debug_frame */
};

/* Files kept open: a busy system maps a few hundred. A build that finds
 * the table half full empties it (the Dwfls keep their references). */
#define NR_FILES 512

struct kop_unwind {
	struct kop_dcookies *dc;
	const struct op_logger *lg;
	const struct op_sessdir *sd;	/* files under it: through it; read-only */
	struct cached cache[NR_CACHED];
	uint64_t clock;
	struct ufile files[NR_FILES];	/* open addressing by cookie */
	size_t nr_files;
	unsigned char *vdso;	/* our own vDSO's image, copied */
	Elf *vdso_elf;		/* read from there */
	bool vdso_tried;
	bool logged_report;	/* a module failed to report: said once */
	struct kop_unwind_stats st;
	struct kop_uw_rows *rows;	/* the fast path's */
	struct kop_dcookie_info *info;	/* get_file()'s scratch */
	bool no_fast;		/* every walk by libdw (tests, benchmarks) */
	struct dbg_verdict dbg[NR_DBG];	/* find_debuginfo()'s */
	char *debuginfo_path;
	Dwfl_Callbacks cb;
};

/* perf's x86_64 register order in a record (KOP_UNWIND_REGS_MASK's bits
 * ascending) to DWARF's: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip */
static const unsigned char dwarf_of_perf[KOP_UNWIND_NR_REGS] = {
	/* ax */ 0, /* bx */ 3, /* cx */ 2, /* dx */ 1, /* si */ 4,
	/* di */ 5, /* bp */ 6, /* sp */ 7, /* ip */ 16,
	8, 9, 10, 11, 12, 13, 14, 15,
};
#define DWARF_SP 7
#define DWARF_IP 16

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

bool kop_unwind_parse(const struct perf_event_header *h, size_t fixed,
		      struct kop_user_regs *u)
{
	const unsigned char *p = (const unsigned char *)h + fixed;
	const unsigned char *end = (const unsigned char *)h + h->size;
	uint64_t nr, size;

	memset(u, 0, sizeof(*u));
	/* the callchain: nr, then nr pcs */
	if (fixed > h->size || (size_t)(end - p) < 8)
		return false;
	memcpy(&nr, p, 8);
	p += 8;
	if (nr > (uint64_t)(end - p) / 8)
		return false;
	p += nr * 8;
	/* regs_user: abi, then the registers when there are any */
	if ((size_t)(end - p) < 8)
		return false;
	memcpy(&u->abi, p, 8);
	p += 8;
	if (u->abi != PERF_SAMPLE_REGS_ABI_NONE) {
		if ((size_t)(end - p) < 8 * KOP_UNWIND_NR_REGS)
			return false;
		u->regs = p;
		p += 8 * KOP_UNWIND_NR_REGS;
	}
	/* stack_user: size, the bytes, then how many the kernel filled */
	if ((size_t)(end - p) < 8)
		return false;
	memcpy(&size, p, 8);
	p += 8;
	if (!size)
		return true;
	if (size > (uint64_t)(end - p) || (size_t)(end - p) - size < 8)
		return false;
	u->stack = p;
	memcpy(&u->stack_size, p + size, 8);
	if (u->stack_size > size)
		return false;
	return true;
}

/* ---- libdw's callbacks --------------------------------------------- */

/* A word of a module's file, for an address the stack copy does not
 * hold (a CFI expression reading the code, a PLT). */
static bool read_module(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	GElf_Addr bias;
	Elf *elf;
	size_t phnum, size;
	char *raw;

	if (!mod || !(elf = dwfl_module_getelf(mod, &bias)) ||
	    !(raw = elf_rawfile(elf, &size)) || elf_getphdrnum(elf, &phnum))
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);
		uint64_t off;

		if (!ph || ph->p_type != PT_LOAD || addr - bias < ph->p_vaddr ||
		    addr - bias + 8 > ph->p_vaddr + ph->p_filesz)
			continue;
		off = ph->p_offset + (addr - bias - ph->p_vaddr);
		if (off > size || size - off < 8)
			return false;
		memcpy(result, raw + off, 8);
		return true;
	}
	return false;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	struct walk_state *w = arg;

	if (addr >= w->sp && addr - w->sp <= w->stack_size &&
	    w->stack_size - (addr - w->sp) >= 8) {
		memcpy(result, w->stack + (addr - w->sp), 8);
		return true;
	}
	if (read_module(dwfl, addr, result))
		return true;
	if (addr >= w->sp && addr - w->sp < STACK_REACH)
		w->past_copy = true;
	return false;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl; (void)arg; (void)thread_argp;
	return 0;	/* only asked for by tid */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl; (void)tid;
	*thread_argp = arg;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct walk_state *w = thread_arg;

	if (!dwfl_thread_state_registers(thread, 0, KOP_UNWIND_NR_REGS, w->regs))
		return false;
	dwfl_thread_state_register_pc(thread, w->regs[DWARF_IP]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* Has the module of pc an unwind table entry for it: 1 yes, 0 no, -1 no
 * module holds pc. .eh_frame first, then .debug_frame, as libdw looks. */
static int cfi_at(Dwfl *dwfl, Dwarf_Addr pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;
	Dwarf_Frame *fr;

	if (!mod)
		return -1;
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &fr) == 0) {
		free(fr);
		return 1;
	}
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &fr) == 0) {
		free(fr);
		return 1;
	}
	return 0;
}

static int cfi_memo(struct cached *c, Dwarf_Addr pc)
{
	size_t i = (size_t)((pc * 0x9e3779b97f4a7c15ULL) >> 56) % NR_FDE_MEMO;

	if (c->memo_pc[i] != pc + 1) {
		c->memo_cfi[i] = (int8_t)cfi_at(c->dwfl, pc);
		c->memo_pc[i] = pc + 1;
	}
	return c->memo_cfi[i];
}

static int frame_cb(Dwfl_Frame *frame, void *arg)
{
	struct walk_state *w = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	w->nr_fp += w->last_no_cfi;
	w->last_pc = pc;
	w->last_activation = activation;
	w->pcs[w->nr++] = pc;
	if (w->nr == w->max)
		return DWARF_CB_ABORT;
	/* libdw unwinds this frame next: by its table, or by a guess */
	w->last_no_cfi = cfi_memo(w->c, pc - (activation ? 0 : 1)) == 0;
	return DWARF_CB_OK;
}

/* ---- files --------------------------------------------------------- */

/* The vDSO is the kernel's, the same image in every 64-bit process of a
 * boot: ours (op_vdso.h), copied once, read as an ELF file in memory. A
 * new reference to it each call. */
static Elf *vdso_elf(struct kop_unwind *u)
{
	const void *img;
	size_t size;

	if (u->vdso_elf)
		return elf_begin(-1, ELF_C_READ_MMAP, u->vdso_elf);
	if (u->vdso_tried)
		return NULL;
	u->vdso_tried = true;
	if (!(img = op_vdso_image(&size)) || !(u->vdso = malloc(size)))
		return NULL;
	memcpy(u->vdso, img, size);
	u->vdso_elf = elf_memory((char *)u->vdso, size);
	return u->vdso_elf ? elf_begin(-1, ELF_C_READ_MMAP, u->vdso_elf) : NULL;
}

/* A file read whole (mapped, or read in when it cannot be), so that its
 * descriptor can be closed: a system-wide session meets thousands. A
 * copy kept in the session is opened beneath it: a link in the store
 * (someone's, in place of a copy the keeper refused to write through)
 * is not followed. */
static Elf *open_file(const struct op_sessdir *sd, const char *path)
{
	int fd = sd && op_sd_rel(sd, path) ? op_sd_open(sd, path, O_RDONLY, 0) :
		 open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	/* FDREAD reads in what is not mapped, and lets go of fd */
	if (elf && (elf_kind(elf) != ELF_K_ELF || elf_cntl(elf, ELF_C_FDREAD))) {
		elf_end(elf);
		elf = NULL;
	}
	close(fd);
	return elf;
}

/* Where f's segments lie relative to its load bias; false when it has
 * none to load (or is no executable nor shared object). */
static bool file_layout(struct ufile *f)
{
	GElf_Ehdr eh;
	size_t phnum;
	bool first = true;

	if (!gelf_getehdr(f->elf, &eh) || elf_getphdrnum(f->elf, &phnum) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		return false;
	f->exec = eh.e_type == ET_EXEC;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(f->elf, (int)i, &mem);

		if (!ph || ph->p_type != PT_LOAD)
			continue;
		if (first)
			f->vaddr = ph->p_vaddr & -(ph->p_align ? ph->p_align : 1);
		first = false;
		if (ph->p_vaddr + ph->p_memsz > f->end)
			f->end = ph->p_vaddr + ph->p_memsz;
	}
	return !first && f->end > f->vaddr;
}

static void file_drop(struct ufile *f)
{
	if (f->cfi)
		dwarf_cfi_end(f->cfi);
	if (f->elf)
		elf_end(f->elf);
	memset(f, 0, sizeof(*f));
}

/* The file of cookie, opened at its first use. NULL when it cannot be
 * had: a file gone or not ELF, an anonymous region other than the vDSO. */
static struct ufile *get_file(struct kop_unwind *u, uint64_t cookie,
			      struct kop_dcookie_info *info)
{
	size_t i = (size_t)(cookie * 0x9e3779b97f4a7c15ULL >> 55) % NR_FILES;
	struct ufile *f = NULL;
	size_t len;

	for (size_t p = 0; p < NR_FILES && !f; p++, i = (i + 1) % NR_FILES) {
		if (u->files[i].cookie == cookie)
			return u->files[i].elf ? &u->files[i] : NULL;
		if (!u->files[i].cookie)
			f = &u->files[i];
	}
	if (!f)
		return NULL;	/* full: build() empties it */
	u->nr_files++;
	f->cookie = cookie;
	if (kop_dcookies_lookup(u->dc, cookie, info))
		return NULL;
	if (info->kind == KOP_IMAGE_ANON)
		f->elf = op_is_vdso_name(info->path) ? vdso_elf(u) : NULL;
	else
		f->elf = open_file(u->sd, info->path);
	len = strlen(info->path);
	snprintf(f->name, sizeof(f->name), "%s",
		 info->path + (len < sizeof(f->name) ? 0 : len - sizeof(f->name) + 1));
	if (f->elf && !file_layout(f)) {
		elf_end(f->elf);
		f->elf = NULL;
	}
	if (!f->elf) {
		u->st.nr_build_fail++;
		if (info->kind == KOP_IMAGE_FILE && !u->logged_report) {
			u->logged_report = true;
			op_log(u->lg, OP_LOG_INFO,
			       "kmod: unwind: cannot read %s as ELF (its frames end chains; said once)",
			       info->path);
		}
		return NULL;
	}
	return f;
}

/* libdwfl asks for a module's Elf: one more reference to the file's. */
static int find_elf_shared(Dwfl_Module *mod, void **userdata,
			   const char *modname, Dwarf_Addr base,
			   char **file_name, Elf **elfp)
{
	struct ufile *f = *userdata;

	(void)mod; (void)modname; (void)base;
	*file_name = NULL;
	*elfp = f && f->elf ? elf_begin(-1, ELF_C_READ_MMAP, f->elf) : NULL;
	return -1;
}

/* ---- per-process state --------------------------------------------- */

static void drop(struct cached *c)
{
	if (c->dwfl)
		dwfl_end(c->dwfl);
	free(c->ws);
	memset(c, 0, sizeof(*c));
}

/* Where mapping m puts its file f: its load bias (mapping start less its
 * file offset: the layout every linker gives an executable segment,
 * p_vaddr and p_offset alike within it; an ET_EXEC at its own
 * addresses). */
static uint64_t map_bias(const struct ufile *f, const struct kop_map *m)
{
	return f->exec ? 0 : (m->pgoff & KOP_MAP_ANON) ? m->start :
	       m->start - m->pgoff;
}

/* Report one mapping of k: its file at the load bias (mapping start less
 * its file offset: the layout every linker gives an executable segment,
 * p_vaddr and p_offset alike within it; an ET_EXEC at its own
 * addresses), the Elf taken at once, while the file's entry holds it. */
static void report_map(struct kop_unwind *u, Dwfl *dwfl,
		       const struct kop_map *m, struct kop_dcookie_info *info)
{
	struct ufile *f = get_file(u, m->cookie, info);
	uint64_t bias;
	Dwfl_Module *mod;
	void **ud;

	if (!f)
		return;
	bias = map_bias(f, m);
	mod = dwfl_report_module(dwfl, f->name, bias + f->vaddr, bias + f->end);
	if (!mod)
		return;
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = f;
}

/* After the report: each module takes its Elf now, while the file table
 * holds it (it may be emptied by a later build); from then on its
 * userdata is the unwinder, for find_debuginfo(). */
static int take_elf(Dwfl_Module *mod, void **ud, const char *name,
		    Dwarf_Addr start, void *arg)
{
	Dwarf_Addr bias;

	(void)name; (void)start;
	(void)dwfl_module_getelf(mod, &bias);
	*ud = arg;
	return DWARF_CB_OK;
}

/* Does the ELF file open on fd have a .debug_frame? Section headers only:
 * nothing is decompressed. */
static bool has_debug_frame(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	if (!elf)
		return false;
	if (elf_kind(elf) == ELF_K_ELF && !elf_getshdrstrndx(elf, &shstrndx)) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
			const char *name = sh ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;

			found = name && (!strcmp(name, ".debug_frame") ||
					 !strcmp(name, ".zdebug_frame"));
		}
	}
	elf_end(elf);
	return found;
}

/* A module's separate debug file, found by build-id in the local
 * directories only (dwfl_standard_find_debuginfo could start a debuginfod
 * client), and only when it has a .debug_frame: libdw asks for it when a
 * pc has no .eh_frame entry, and opening it decompresses every debug
 * section (4 MB for libc6-dbg's libc), in every process anew, for nothing
 * when the file has no unwind table of its own (Debian's -dbg files have
 * none). The verdict is kept by build-id: asked again, a file without
 * one costs nothing. */
static int find_debuginfo(Dwfl_Module *mod, void **ud, const char *modname,
			  Dwarf_Addr base, const char *file_name,
			  const char *debuglink, GElf_Word crc,
			  char **debuginfo_file_name)
{
	struct kop_unwind *u = *ud;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr);
	uint64_t key = 0xcbf29ce484222325ULL;
	struct dbg_verdict *v = NULL;
	int fd;

	for (int i = 0; i < len; i++)
		key = (key ^ bits[i]) * 0x100000001b3ULL;
	if (u && len > 0) {
		v = &u->dbg[key % NR_DBG];
		if (v->key == key && !v->frame)
			return -1;
	}
	fd = dwfl_build_id_find_debuginfo(mod, ud, modname, base, file_name,
					  debuglink, crc, debuginfo_file_name);
	if (fd >= 0 && !has_debug_frame(fd)) {
		close(fd);
		free(*debuginfo_file_name);
		*debuginfo_file_name = NULL;
		fd = -1;
		if (v) {
			v->key = key;
			v->frame = false;
		}
	}
	return fd;
}

static int build(struct kop_unwind *u, struct cached *c, struct kop_task *k)
{
	struct kop_dcookie_info *info = malloc(sizeof(*info));
	uint64_t seen[64];
	size_t nr_seen = 0;

	c->ws = calloc(1, sizeof(*c->ws));
	c->dwfl = dwfl_begin(&u->cb);
	if (!info || !c->ws || !c->dwfl) {
		free(info);
		drop(c);
		return -ENOMEM;
	}
	c->tgid = k->tgid;
	c->gen = k->gen;
	if (u->nr_files >= NR_FILES / 2) {
		/* start the file table again, keeping none open (the
		 * Dwfls keep what they use): at most NR_FILES / 2 files
		 * are new to one build */
		for (size_t j = 0; j < NR_FILES; j++)
			file_drop(&u->files[j]);
		u->nr_files = 0;
	}
	dwfl_report_begin(c->dwfl);
	for (size_t i = 0; i < k->nr_maps; i++) {
		const struct kop_map *m = &k->maps[i];
		bool dup = false;

		/* a file mapped twice executable is one module, at its
		 * first (lowest) mapping */
		for (size_t j = 0; j < nr_seen && !dup; j++)
			dup = seen[j] == m->cookie;
		if (dup)
			continue;
		if (nr_seen < sizeof(seen) / sizeof(seen[0]))
			seen[nr_seen++] = m->cookie;
		report_map(u, c->dwfl, m, info);
	}
	free(info);
	dwfl_report_end(c->dwfl, NULL, NULL);
	dwfl_getmodules(c->dwfl, take_elf, u, 0);
	c->attached = dwfl_attach_state(c->dwfl, NULL, k->tgid, &thread_cbs,
					c->ws);
	u->st.nr_builds++;
	return 0;
}

static struct cached *lookup(struct kop_unwind *u, struct kop_task *k)
{
	struct cached *victim = &u->cache[0];
	uint64_t t0;

	for (size_t i = 0; i < NR_CACHED; i++) {
		struct cached *c = &u->cache[i];

		if (c->gen == k->gen && c->tgid == k->tgid && c->dwfl)
			return c;
		if (c->used < victim->used)
			victim = c;
	}
	t0 = now_ns();
	drop(victim);
	if (build(u, victim, k))
		return NULL;
	u->st.build_ns += now_ns() - t0;
	return victim;
}

/* Why a walk that failed ended at its last frame. A frame with no
 * unwind table first: libdw then tries the frame pointer, whose failure
 * may read anywhere. */
static enum kop_unwind_end why(struct cached *c, const struct walk_state *w)
{
	switch (cfi_memo(c, w->last_pc - (w->last_activation ? 0 : 1))) {
	case -1:
		return KOP_UNWIND_NO_MODULE;
	case 0:
		return KOP_UNWIND_NO_CFI;
	default:
		return w->past_copy ? KOP_UNWIND_SHORT_STACK : KOP_UNWIND_BAD_FRAME;
	}
}

/* ---- the fast path ------------------------------------------------- */

static Dwarf_CFI *file_cfi(struct ufile *f)
{
	if (!f->cfi_tried) {
		f->cfi_tried = true;
		f->cfi = dwarf_getcfi_elf(f->elf);
	}
	return f->cfi;
}

/* The walk by the kept rows (kop_unwind_rows.h), from the task's own
 * mappings, with no Dwfl. false when a frame needs libdw (no row, a row
 * that is not plain, a read outside the copy, a pc in no file): the
 * sample is then walked again by libdw from the start, so that how a walk
 * ends is always decided by one of the two alone. */
static bool walk_fast(struct kop_unwind *u, struct kop_task *k,
		      const struct kop_user_regs *ur, uint64_t *pcs,
		      size_t max, size_t *nr, enum kop_unwind_end *end)
{
	uint64_t regs[KOP_UNWIND_NR_REGS], sp, size;
	uint32_t set = (1u << KOP_UNWIND_NR_REGS) - 1;
	bool initial = true;
	size_t n = 0;

	for (size_t i = 0; i < KOP_UNWIND_NR_REGS; i++)
		memcpy(&regs[dwarf_of_perf[i]], ur->regs + 8 * i, 8);
	sp = regs[DWARF_SP];
	size = ur->stack ? ur->stack_size : 0;
	for (;;) {
		/* a return address is looked up at the call, before it */
		uint64_t at = regs[DWARF_IP] - !initial, bias;
		const struct kop_map *m;
		const struct kop_uw_row *row;
		struct ufile *f;

		pcs[n++] = regs[DWARF_IP];
		if (n == max) {
			*end = KOP_UNWIND_DEPTH;
			break;
		}
		if (!(m = kop_task_lookup(k, at)) ||
		    !(f = get_file(u, m->cookie, u->info)))
			return false;
		bias = map_bias(f, m);
		if (at - bias < f->vaddr || at - bias >= f->end || !file_cfi(f))
			return false;
		row = kop_uw_rows_get(u->rows, m->cookie, f->cfi, at - bias);
		if (!row || !row->simple)
			return false;
		switch (kop_uw_row_apply(row, regs, &set, ur->stack, sp, size)) {
		case KOP_UW_NEXT:
			initial = false;
			continue;
		case KOP_UW_END:
			*end = KOP_UNWIND_DONE;
			break;
		case KOP_UW_SLOW:
			return false;
		}
		break;
	}
	*nr = n;
	return true;
}

size_t kop_unwind_walk(struct kop_unwind *u, struct kop_task *k, pid_t tid,
		       const struct kop_user_regs *ur, uint64_t *pcs,
		       size_t max, enum kop_unwind_end *end,
		       unsigned int *nr_fp)
{
	uint64_t t0 = now_ns();
	struct walk_state *w;
	struct cached *c;
	size_t n;
	int rc;

	*end = KOP_UNWIND_BAD_FRAME;
	*nr_fp = 0;
	if (!ur->regs || ur->abi != PERF_SAMPLE_REGS_ABI_64 || !max)
		return 0;
	if (!u->no_fast && walk_fast(u, k, ur, pcs, max, &n, end)) {
		u->st.nr_walks++;
		u->st.nr_fast++;
		u->st.nr_pcs += n;
		u->st.walk_ns += now_ns() - t0;
		return n;
	}
	c = lookup(u, k);
	if (!c)
		return 0;
	c->used = ++u->clock;
	w = c->ws;
	for (size_t i = 0; i < KOP_UNWIND_NR_REGS; i++)
		memcpy(&w->regs[dwarf_of_perf[i]], ur->regs + 8 * i, 8);
	w->stack = ur->stack;
	w->stack_size = ur->stack ? ur->stack_size : 0;
	w->sp = w->regs[DWARF_SP];
	w->past_copy = false;
	w->c = c;
	w->pcs = pcs;
	w->nr = 0;
	w->last_no_cfi = false;
	w->nr_fp = 0;
	w->max = max;
	w->last_pc = w->regs[DWARF_IP];
	w->last_activation = true;
	if (!c->attached) {
		/* no module to take the architecture from: the pc alone */
		pcs[w->nr++] = w->regs[DWARF_IP];
		*end = KOP_UNWIND_NO_MODULE;
	} else {
		rc = dwfl_getthread_frames(c->dwfl, tid > 0 ? tid : k->tgid,
					   frame_cb, w);
		/* a return address that cannot be read ends the walk as
		 * if it were the outermost frame: past the copy, it is not */
		if (rc == 0 && w->past_copy)
			*end = KOP_UNWIND_SHORT_STACK;
		else if (rc == 0)
			*end = KOP_UNWIND_DONE;
		else if (w->nr == max)
			*end = KOP_UNWIND_DEPTH;
		else if (w->nr == 0)
			pcs[w->nr++] = w->regs[DWARF_IP];
		else
			*end = why(c, w);
	}
	*nr_fp = w->nr_fp;
	u->st.nr_walks++;
	u->st.nr_pcs += w->nr;
	u->st.walk_ns += now_ns() - t0;
	return w->nr;
}

struct kop_unwind *kop_unwind_new(struct kop_dcookies *dc,
				  const struct op_logger *lg)
{
	struct kop_unwind *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->dc = dc;
	u->lg = lg;
	u->rows = kop_uw_rows_new();
	u->info = malloc(sizeof(*u->info));
	if (!u->rows || !u->info) {
		kop_unwind_free(u);
		return NULL;
	}
	elf_version(EV_CURRENT);
	/* separate debug files (.debug_frame) by build-id, locally only:
	 * dwfl_standard_find_debuginfo could start a debuginfod client */
	u->debuginfo_path = strdup("-:.debug:/usr/lib/debug");
	if (!u->debuginfo_path) {
		kop_unwind_free(u);
		return NULL;
	}
	u->cb.find_elf = find_elf_shared;
	u->cb.find_debuginfo = find_debuginfo;
	u->cb.section_address = dwfl_offline_section_address;
	u->cb.debuginfo_path = &u->debuginfo_path;
	return u;
}

void kop_unwind_set_session(struct kop_unwind *u, const struct op_sessdir *sd)
{
	u->sd = sd;
}

void kop_unwind_free(struct kop_unwind *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < NR_CACHED; i++)
		drop(&u->cache[i]);
	for (size_t i = 0; i < NR_FILES; i++)
		file_drop(&u->files[i]);
	if (u->vdso_elf)
		elf_end(u->vdso_elf);
	free(u->vdso);
	free(u->debuginfo_path);
	kop_uw_rows_free(u->rows);
	free(u->info);
	free(u);
}

void kop_unwind_set_fast(struct kop_unwind *u, bool on)
{
	u->no_fast = !on;
}

void kop_unwind_get_stats(const struct kop_unwind *u,
			  struct kop_unwind_stats *st)
{
	*st = u->st;
}
