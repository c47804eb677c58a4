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

bool op_kallsyms_parse_line(const char *line, struct op_ksym_line *l);

/* Read the kallsyms-format file at path, calling fn(line, ctx) for every
 * line that parses (a line longer than the reader's buffer is skipped
 * whole); malformed lines are counted in *nr_bad (may be NULL). A non-zero
 * return from fn stops the read and is returned. Returns 0, -errno when
 * the file does not open, -EIO on a read error. */
typedef int (*op_ksym_fn)(const struct op_ksym_line *l, void *ctx);
int op_kallsyms_each(const char *path, op_ksym_fn fn, void *ctx,
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

/* True for the symbol types that name code: t, T, w, W. */
static inline bool op_ksym_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

#endif /* OP_KERNEL_H */
