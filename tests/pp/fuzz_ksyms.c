/* fuzz-sources: pp/core/pp_symbols.c pp/core/pp_symbols_text.c pp/core/pp_debuginfod.c libop/op_kernel.c libop/op_afile.c libop/op_sessdir.c libop/op_sessdir_dir.c libop/op_log.c */
/* fuzz-libs: -ldw -lelf -ldebuginfod -ldl */
/* The kallsyms loader on arbitrary bytes: /proc/kallsyms as the kernel
 * writes it, and the session's saved copy with its end lines (type '-').
 * Whatever the input, each table that loads is sorted, its symbols do not
 * overlap and have a size, a lookup of each symbol's start finds it, and
 * the kernel named twice gets the same table twice. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pp_symbols.h"

static void check(const struct pp_symtab *st)
{
	for (size_t i = 0; i < st->nr_syms; i++) {
		const struct pp_sym *s = &st->syms[i];

		if (!s->size || !s->name)
			abort();
		if (i + 1 < st->nr_syms && (st->syms[i + 1].start <= s->start ||
					    st->syms[i + 1].start - s->start < s->size))
			abort();
		if (pp_symtab_lookup(st, s->start) != s)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const mods[] = { NULL, "mod", NULL, "ext4" };
	struct pp_symtab tabs[4];
	int status[4], fd = memfd_create("kallsyms", 0);
	char path[64];

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	pp_symtab_load_kallsyms_set(path, 4, mods, tabs, status);
	close(fd);
	if (status[0] != status[2])
		abort();
	for (int i = 0; i < 4; i++) {
		if (status[i])
			continue;
		check(&tabs[i]);
		pp_symtab_release(&tabs[i]);
	}
	return 0;
}
