/* The running kernel's layout: its text range from kallsyms and the loaded
 * modules from /proc/modules. kmod uses it to tell kernel samples apart and
 * to notice module loads; the daemon uses it to name kernel images.
 *
 * proc_root is a parameter ("/proc" in production) so that tests can feed
 * fixtures. A missing modules file is normal (a kernel without loadable
 * module support) and yields no modules; a missing or unreadable kallsyms,
 * or one without a text range (kptr_restrict), is an error.
 */
#ifndef OP_KERNEL_H
#define OP_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_log.h"
#include "op_sessdir.h"

struct op_kmodule {
	char name[64];
	uint64_t start;		/* [start, end) */
	uint64_t end;
};

struct op_kernel_map {
	uint64_t text_start;	/* _text (or _stext) */
	uint64_t text_end;	/* _etext */
	struct op_kmodule *modules;	/* sorted by start */
	size_t nr_modules;
};

/* Read PROC_ROOT/kallsyms and PROC_ROOT/modules into km (zeroed first).
 * Malformed lines are counted and reported once through lg, not fatal.
 * Returns 0, -ENOENT/-EACCES for kallsyms, -ENODATA when kallsyms shows no
 * text range, -ENOMEM. */
int op_kernel_map_read(struct op_kernel_map *km, const char *proc_root,
		       const struct op_logger *lg);

/* Re-read only the modules; returns 1 if the set changed, 0 if not, or
 * -errno. */
int op_kernel_map_reread_modules(struct op_kernel_map *km,
				 const char *proc_root,
				 const struct op_logger *lg);

/* The module containing pc, or NULL. */
const struct op_kmodule *op_kernel_map_find_module(const struct op_kernel_map *km,
						  uint64_t pc);

/* True when pc is in the kernel's text range. */
int op_kernel_map_in_text(const struct op_kernel_map *km, uint64_t pc);

void op_kernel_map_release(struct op_kernel_map *km);

/* One kallsyms line: "ADDR TYPE NAME[\t[MODULE]]". name and mod point into
 * the line and are not terminated (their lengths are); mod is NULL for the
 * kernel's own symbols. The file has 100k+ lines and the kernel makes it up
 * on every read, so this is a hand parser with no allocation. False for a
 * malformed line. */
struct op_ksym_line {
	uint64_t addr;
	char type;
	const char *name, *mod;
	size_t name_len, mod_len;
};

/* Read the kallsyms-format file at path, calling fn(line, ctx) for every
 * line that parses (a line longer than the reader's buffer is skipped
 * whole); malformed lines are counted in *nr_bad (may be NULL). A non-zero
 * return from fn stops the read and is returned. A session's copy is read
 * through its sd (op_sessdir.h); sd NULL: path as given (/proc/kallsyms,
 * --kallsyms). Returns 0, -errno when the file does not open, -EIO on a
 * read error. */
typedef int (*op_ksym_fn)(const struct op_ksym_line *l, void *ctx);
int op_kallsyms_each(const struct op_sessdir *sd, const char *path, op_ksym_fn fn, void *ctx,
		     unsigned long *nr_bad);

/* True for the kernel's own symbol (no [module]) of that name. */
bool op_ksym_is(const struct op_ksym_line *l, const char *name);

/* The kernel's text range as kallsyms marks it: _text (or _stext when
 * there is no _text) to _etext. Note each line, then read the range. */
struct op_ksym_range {
	uint64_t text, stext, etext;
	bool have_text, have_stext, have_etext;
};

void op_ksym_range_note(struct op_ksym_range *r, const struct op_ksym_line *l);

/* The start of the text: 0 and false when kallsyms named neither. */
bool op_ksym_range_start(const struct op_ksym_range *r, uint64_t *start);

/* The type of a line that ends the symbol before it without starting one.
 * The kernel never writes it; a session's saved kernel symbols do, since
 * they hold only the symbols that were sampled (see opd_ksyms.h). */
#define OP_KSYM_END '-'

/* The first line of a session's saved kernel symbols: those holding a
 * sample or an end of a call-graph arc, which opreport -c can name its
 * kernel callers and callees from. (Copies that start otherwise hold the
 * sampled symbols only.) */
#define OP_KSYMS_SAVED_HEADER \
	"# kernel symbols sampled in this session, and the ends of its arcs (opsampler oprofiled)"

/* The kernel's lines as OProfile's kallsyms reader keeps them: every line
 * from the first whose name is a prefix of "_text" (with an address) up to
 * the one whose name is a prefix of "_etext", aliases and data included.
 * OProfile's opreport -c meets every one of their names, which numbers
 * them; ties in its call graph follow those numbers. */
struct op_kwalk {
	bool in, done;
	uint64_t text;		/* the first line's address */
};

/* True when l, the next line of a kallsyms file, is one of those lines
 * (its offset is l->addr - w->text); sets w->done at the end. */
bool op_kwalk_line(struct op_kwalk *w, const struct op_ksym_line *l);

/* The order in which opreport -c meets the kernel's names, saved with a
 * call-graph session (stats/kallsyms.order) so that a report can number
 * names as OProfile does from the saved kernel symbols alone: one record
 * per line op_kwalk_line() keeps, in kallsyms' order, the 40-bit hash of
 * its name (op_kname_hash()) and its offset from the first line. Layout:
 * the 8-byte magic, a u64 count, then count records of 5 hash bytes and a
 * u32 offset, little endian. */
#define OP_KORDER_FILE "stats/kallsyms.order"
#define OP_KORDER_MAGIC "OPKORD1\n"
#define OP_KORDER_MAX (1u << 24)

uint64_t op_kname_hash(const char *name, size_t len);

struct op_korder {
	uint64_t *hash;
	uint32_t *off;
	size_t n;
};

/* Write dir/stats/kallsyms.order (temporary + rename), dir reached
 * through sd (op_sessdir.h). 0 or -errno. */
int op_korder_write(const struct op_sessdir *sd, const char *dir,
		    const struct op_korder *k);

/* Read dir/stats/kallsyms.order: 0, -ENOENT, -EINVAL (not one), -errno. */
int op_korder_read(const struct op_sessdir *sd, const char *dir, struct op_korder *k);

void op_korder_release(struct op_korder *k);

/* True for the symbol types that name code: t, T, w, W. */
static inline bool op_ksym_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

#endif /* OP_KERNEL_H */
