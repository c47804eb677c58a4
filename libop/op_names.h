/* Sample-file names: the one place that turns (image, dependent image,
 * event, separation key) into a path under samples/current/ and back. The
 * daemon builds names with it, opreport parses them with it.
 *
 *   {root}/APP/{dep}/{root}/IMAGE/EVENT.COUNT.UNITMASK.TGID.TID.CPU
 *   .../{dep}/{root}/proc/kallsyms/...         the kernel (or {root}/VMLINUX)
 *   .../{dep}/{kern}/NAME/...                  a module, or "no-vmlinux"
 *   .../{dep}/{anon:NAME}/TGID.0xSTART.0xEND/...  anonymous region of a process
 *                                               (END its last byte, as operf)
 *   .../{dep}/{root}/IMAGE/{cg}/{root}/CALLEE/...  call-graph arcs from IMAGE
 *                                               into CALLEE (any image form)
 *
 * "image" is where the samples fell; "dep" is the application they were
 * separated under (--separate=lib,kernel); without separation dep equals
 * image. The application comes first, the image after {dep}: the order
 * OProfile's daemon writes (and its opreport reads), so that a library's
 * samples separated under an application are read as that library's by
 * either tool. TGID, TID and CPU are "all" when --separate does not split
 * on them.
 *
 * Safety: a path that cannot be written as plain components (empty, ".",
 * "..", a component starting with '{', containing '%' or a control char, or
 * longer than a file-name component may be) is escaped in a reversible way,
 * so every name built stays inside the directory it is relative to, and
 * op_sfname_parse(op_sfname_build(x)) == x for every x.
 */
#ifndef OP_NAMES_H
#define OP_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "op_sessdir.h"

/* The kernel's image name when its symbols come from kallsyms (ours and
 * operf's default). */
#define OP_KALLSYMS_IMAGE "/proc/kallsyms"

enum op_img_kind {
	OP_IMG_FILE,	/* a binary by absolute path */
	OP_IMG_KERN,	/* the kernel ("/proc/kallsyms", or the vmlinux path) or a module name */
	OP_IMG_ANON,	/* anonymous memory of one process */
};

struct op_img {
	enum op_img_kind kind;
	char *path;		/* FILE: absolute path; KERN: image name; ANON: region name ("anon", "[vdso]", "[heap]"...) */
	pid_t anon_tgid;	/* ANON only */
	uint64_t anon_start;	/* ANON only: region [start, end], end its last */
	uint64_t anon_end;	/* byte, as OProfile's names give it */
};

#define OP_SF_ALL (-1)	/* a tgid/tid/cpu field that is not separated */

struct op_sfname {
	struct op_img image;
	struct op_img dep;
	char *event;		/* "TIMER", "CPU_CLK_UNHALTED", ... */
	unsigned long count;
	unsigned int unit_mask;
	int tgid, tid, cpu;	/* OP_SF_ALL or a value */
	struct op_img cg;	/* an arc file: the callee's image; .path NULL
				 * for a sample file */
};

/* Build the name relative to samples/current/ into a malloc'd string.
 * Returns NULL and sets errno (EINVAL for a field that cannot be named:
 * a relative FILE path, an empty event). */
char *op_sfname_build(const struct op_sfname *n);

/* Parse a name relative to samples/current/. Fills n with malloc'd strings
 * (release with op_sfname_release). Returns 0 or -EINVAL for a name this
 * module did not build; n is then left released. */
int op_sfname_parse(const char *rel, struct op_sfname *n);

void op_sfname_release(struct op_sfname *n);

/* Call fn(rel, full, ctx) for every regular file under dir (a session's
 * samples directory), depth first: rel relative to dir, full the whole
 * path. The top-level stats/ directory is skipped and symbolic links are
 * not followed (a sample tree holds none; following one could leave the
 * session): a link is handed to fn as a file, which refuses it when it
 * opens it through sd (-ELOOP), and so can say so; a link to a directory
 * is not entered. A non-zero return from fn stops the walk and is
 * returned. dir is reached through sd (op_sessdir.h).
 * Returns 0, or -errno when dir itself cannot be opened. */
typedef int (*op_sfname_walk_fn)(const char *rel, const char *full, void *ctx);
int op_sfname_walk(const struct op_sessdir *sd, const char *dir,
		   op_sfname_walk_fn fn, void *ctx);

/* True for the kernel itself among OP_IMG_KERN images: our sessions name it
 * "/proc/kallsyms" or by its vmlinux path, OProfile's "vmlinux" or
 * "no-vmlinux"; any other kernel image name is a module. (OProfile 1.x's
 * operf files the kernel under {root} by its path, which parses as a FILE:
 * opreport turns it into a KERN image from the sample file's is_kernel.) */
int op_img_is_kernel(const struct op_img *img);

/* A kernel named by its vmlinux path parses as a file (its name is a path
 * under {root}); the sample file's header flag is_kernel says otherwise.
 * Readers that opened the file call this with that flag. */
static inline void op_img_mark_kernel(struct op_img *img, uint32_t is_kernel)
{
	if (img->kind == OP_IMG_FILE && is_kernel)
		img->kind = OP_IMG_KERN;
}

/* Short name of an image as opreport prints it without --long-filenames:
 * basename for files and kernel, "[vdso] (tgid:N range:0x..-0x..)" for
 * anonymous regions. Returns a malloc'd string or NULL with errno set. */
char *op_img_display(const struct op_img *img, int long_name);

/* One image as it stands on either side of {dep} in a sample file's name
 * ("{root}/usr/lib/libc.so.6", "{kern}/ext4", "{anon:[vdso]}/7.0x1000.0x1fff"),
 * for files of our own that name images (the call-chain store). Built with
 * the same escaping, so the string has no newline or control character.
 * op_img_name() returns it malloc'd (NULL with errno); op_img_parse() reads
 * one back into img (paths malloc'd: free img->path) and refuses, with
 * -EINVAL, anything op_img_name() would not have written. */
char *op_img_name(const struct op_img *img);
int op_img_parse(const char *s, struct op_img *img);

#endif /* OP_NAMES_H */
