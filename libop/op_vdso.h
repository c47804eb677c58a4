/* op_vdso.c: the vDSO, the small ELF image the kernel maps into every
 * process ("[vdso]" in its maps), the same for every 64-bit process of a
 * boot. Its own symbol and unwind tables name and unwind the code in it
 * (__vdso_clock_gettime and friends): the unwinder reads them from our
 * own copy, and the daemon saves that copy in the session (OP_VDSO_FILE)
 * so that the reports name its functions later, on any machine. */
#ifndef OP_VDSO_H
#define OP_VDSO_H

#include <stddef.h>

#include "op_stats.h"

/* The session's copy, under samples/SESSION/. */
#define OP_VDSO_FILE OP_STATS_DIR "/vdso"

/* Our own vDSO's image, in place, and its size (what its program and
 * section headers span), or NULL when there is none or it is not a
 * 64-bit ELF image. */
const void *op_vdso_image(size_t *size);

/* True for the name an anonymous region of the vDSO has. */
int op_is_vdso_name(const char *name);

#endif /* OP_VDSO_H */
