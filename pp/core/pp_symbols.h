/* Symbols and source lines of one image, for opreport -l/-g/-d.
 *
 * Three sources, one shape: a table of symbols sorted by start address and
 * looked up by binary search, so naming N distinct sample addresses costs
 * O(N log S) whatever the number of samples.
 *   - ELF files through libdwfl: .symtab, from the file itself or a
 *     separate debug file found by build-id or .gnu_debuglink under the
 *     debug directories (default /usr/lib/debug); .dynsym only when no
 *     .symtab is found. Sample offsets are file offsets:
 *     pp_symtab_off_to_vma() maps them through the PT_LOAD headers.
 *   - the kernel from a kallsyms file: addresses relative to _text for the
 *     kernel image, relative to the module's lowest symbol for a module.
 *   - anonymous regions from a JIT map (/tmp/perf-PID.map: "START SIZE
 *     name", hex): addresses relative to the region start.
 * Addresses in a pp_sym are in the space that opreport prints (ELF virtual
 * addresses for files, offsets for the kernel and anonymous regions).
 *
 * The symbols, their aliases and their extents are OProfile 1.x's (its
 * libutil++/op_bfd.cpp), so that the same session names the same symbols:
 *   - .symtab: every symbol of an executable section but section symbols,
 *     ".L" labels and ARM mapping symbols; an unnamed one is "??SECTION".
 *     A symbol reaches the next one (st_size is not used) or the end of its
 *     section when the next one is in another section; the last reaches
 *     everything above it. Of aliases at one address the first of the
 *     table wins after, in order, "Letext" and "??" names, local ones,
 *     names starting with '_' and weak ones have lost.
 *   - kallsyms: every line from _text to _etext, each reaching the next;
 *     of aliases the last line wins (the earlier ones reach nothing).
 *   - .dynsym and JIT maps, which OProfile does not read: functions with
 *     their st_size (a zero size reaches the next symbol), aliases as for
 *     .symtab.
 */
#ifndef PP_SYMBOLS_H
#define PP_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_log.h"
#include "op_kernel.h"
#include "op_sessdir.h"

struct pp_sym {
	uint64_t start;
	uint64_t size;		/* never 0 after loading: extended to the next symbol */
	char *name;
};

struct pp_load_seg {
	uint64_t offset, filesz, vaddr;
};

struct pp_symtab {
	struct pp_sym *syms;	/* sorted by start, no duplicates */
	size_t nr_syms;
	struct pp_load_seg *segs;
	size_t nr_segs;
	void *dwfl;		/* Dwfl *, for source lines; NULL without */
	void *mod;		/* Dwfl_Module * */
	uint64_t bias;		/* dwfl address = vma + bias */
	bool is_elf;
	/* ELF: no .symtab in the file or a debug file, the symbols are its
	 * .dynsym (and .gnu_debugdata's), which OProfile never reads */
	bool dynsym_only;
	/* The symbols cover part of the image's code only (.dynsym, a JIT
	 * map, a module's kallsyms lines): its samples outside them are not
	 * left out as OProfile leaves out those outside a full table. */
	bool partial;
	/* Names parsed from a text file (kallsyms: 120k of them) live in a few
	 * large blocks owned here rather than one allocation each; NULL when
	 * every name is its own allocation. */
	void *name_blocks;
};

/* Where separate debug files are looked for unless a reader says
 * otherwise (--debug-dir): libdwfl's debuginfo path, beside the binary,
 * in a .debug directory beside it, and under /usr/lib/debug. */
#define PP_DEBUG_DIRS ":.debug:" PP_DEBUG_ROOT_DIR
#define PP_DEBUG_ROOT_DIR "/usr/lib/debug"

/* PP_DEBUG_DIRS below root (--root, an archive): separate debug files live
 * under the same root as their binaries. malloc'd, NULL on ENOMEM. */
char *pp_debug_dirs_under(const char *root);

/* Load the symbols of an ELF file. debug_dirs is a libdwfl debuginfo path
 * (PP_DEBUG_DIRS style, NULL for PP_DEBUG_DIRS). Returns 0, -ENOENT
 * (missing), -ENOEXEC (not ELF), -ENOMEM. A file without symbols loads with
 * nr_syms 0. */
int pp_symtab_load_elf(struct pp_symtab *st, const char *path,
		       const char *debug_dirs, const struct op_logger *lg);

/* The vDSO's symbols from its ELF image at path (op_vdso.h): its .dynsym,
 * which is all the kernel leaves it, taken as a whole table (named without
 * --dynamic-symbols: OProfile never names the vDSO's functions), and of
 * aliases the one perf names (__vdso_clock_gettime, not its weak
 * clock_gettime). Returns as pp_symtab_load_elf(). */
int pp_symtab_load_vdso(struct pp_symtab *st, const char *path,
			const struct op_logger *lg);

/* The same, for a path that may lie in the session directory sd (a copy
 * the daemon kept there, SESSION_DIR/kept/...): it, and a debug file
 * beside it, are then opened beneath sd, no link followed (op_sessdir.h;
 * -ELOOP for a link on the way). sd NULL, or a path outside it: as
 * pp_symtab_load_elf(). */
int pp_symtab_load_elf_sd(struct pp_symtab *st, const struct op_sessdir *sd,
			  const char *path, const char *debug_dirs,
			  const struct op_logger *lg);

/* Kernel symbols from a kallsyms-format file. module NULL: the kernel (text
 * symbols without a [module] suffix, relative to _text); else the module's
 * symbols relative to its lowest one. 0, -ENOENT, -ENODATA (no _text or no
 * symbol of the module), -ENOMEM. */
int pp_symtab_load_kallsyms(struct pp_symtab *st, const char *path,
			    const char *module);

/* The same for n kernel images from one read of the file (the kernel
 * formats /proc/kallsyms anew on every read, ~35 ms for 120k lines):
 * modules[i] NULL for the kernel, else a module name. tabs[i] and status[i]
 * get what pp_symtab_load_kallsyms() would return for modules[i]. */
void pp_symtab_load_kallsyms_set(const char *path, size_t n,
				 const char *const *modules,
				 struct pp_symtab *tabs, int *status);

/* As pp_symtab_load_kallsyms_set, calling each(line, each_ctx) too with
 * every line of the file, in order (its return value is ignored): a
 * second reader of the same lines need not make the kernel format the
 * file again. */
void pp_symtab_load_kallsyms_each(const struct op_sessdir *sd, const char *path, size_t n,
				  const char *const *modules,
				  struct pp_symtab *tabs, int *status,
				  op_ksym_fn each, void *each_ctx);

/* Symbols of an anonymous region [start, end) from a JIT map file; lines
 * that do not parse are skipped and counted in *nr_bad (may be NULL). */
int pp_symtab_load_perfmap(struct pp_symtab *st, const char *path,
			   uint64_t start, uint64_t end, size_t *nr_bad);

/* Map a sample offset to the printed address: for ELF through PT_LOAD
 * (offsets outside every segment are returned unchanged), else identity. */
uint64_t pp_symtab_off_to_vma(const struct pp_symtab *st, uint64_t off);

/* The symbol containing vma, or NULL. */
const struct pp_sym *pp_symtab_lookup(const struct pp_symtab *st, uint64_t vma);

/* Source file (basename unless long_names) and line of vma; false when
 * there is no line information. *file points into libdw's data or buf. */
bool pp_symtab_line(const struct pp_symtab *st, uint64_t vma,
		    const char **file, int *line);

/* The same, with the compilation directory a relative *file is relative
 * to in *comp_dir (NULL when *file is absolute or none is recorded):
 * binutils joins the two, so OProfile names such a file by the whole
 * path. */
bool pp_symtab_line_dir(const struct pp_symtab *st, uint64_t vma,
			const char **file, int *line, const char **comp_dir);

/* The build-id of an ELF table's file as lowercase hex into buf (at least
 * 2 * 20 + 1 bytes for the usual SHA-1 ids; a longer id is cut). Returns
 * its length in bytes, 0 when the file has none or st is not ELF. */
size_t pp_symtab_build_id(const struct pp_symtab *st, char *buf, size_t len);

/* The separate debug file found for an ELF table's binary (by build-id
 * under the debug directories, or by its .gnu_debuglink), or NULL when it
 * has none or st is not ELF; *debuglink (may be NULL) gets the binary's
 * .gnu_debuglink name or NULL. Both strings live as long as st. Looks the
 * debug file up on the first call, which costs reading its DWARF. */
const char *pp_symtab_debug_file(const struct pp_symtab *st,
				 const char **debuglink);

void pp_symtab_release(struct pp_symtab *st);

/* Demangle a C++ name through the C++ runtime's __cxa_demangle when it can
 * be loaded; returns a malloc'd string or NULL (not mangled, or no
 * demangler here). */
char *pp_demangle(const char *name);

#endif /* PP_SYMBOLS_H */
