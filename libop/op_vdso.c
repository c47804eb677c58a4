/* The vDSO's image (see op_vdso.h). */
#include "config.h"
#include "op_vdso.h"

#include <elf.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>

/* Beyond this, the auxiliary vector's pointer is not a vDSO. */
#define VDSO_MAX (1u << 24)

const void *op_vdso_image(size_t *size)
{
	const unsigned char *img = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)img;
	uint64_t end;

	if (!img || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return NULL;
	end = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	for (unsigned int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(img + eh->e_phoff +
						      (size_t)i * eh->e_phentsize);

		if (ph->p_type == PT_LOAD && ph->p_offset + ph->p_filesz > end)
			end = ph->p_offset + ph->p_filesz;
	}
	if (end > VDSO_MAX || end < sizeof(*eh))
		return NULL;
	*size = (size_t)end;
	return img;
}

int op_is_vdso_name(const char *name)
{
	return name && !strcmp(name, "[vdso]");
}
