/* The cgroups of a session's processes, for naming the container samples
 * ran in. The daemon writes samples/NAME/stats/cgroups (kmod records each
 * process's /proc/PID/cgroup when it learns of its exec), the report tools
 * read it: a sample file separated by process (its TGID) is then in that
 * process's cgroup. Lines of three kinds, in the order kmod met them:
 *
 *   TGID ROOT CGROUP           a process image
 *   ns ID NSID                 a process's (or thread's) id in its own PID
 *                              namespace, where that is not the daemon's
 *   root TGID DEV INO          the root directory the process of the line
 *                              before (TGID's, ROOT 1) saw, when it is not
 *                              the daemon's: containers that share a
 *                              cgroup differ in it; such a cgroup's
 *                              processes with a root line are named
 *                              NAME+root:MAJ:MIN:INO
 *   image ROOT REL<TAB>CGROUP  an image named after its copy in the
 *                              session's kept/ store (REL: its name below
 *                              the store) was mapped by a process of
 *                              CGROUP
 *
 * ROOT 1 when the process saw another root than the daemon's (a container's
 * mount namespace, a chroot), else 0; CGROUP the cgroup v2 path ("/" for
 * the root). A TGID met again (a new exec, a reused pid, or samples in
 * another cgroup: a move) has a later line, which wins, and forgets an
 * earlier ns line (a move says it again). Lines of a kind a reader does
 * not know are skipped (the first readers knew only processes).
 * OProfile's tools do not read the file.
 */
#ifndef OP_CGROUPS_H
#define OP_CGROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct op_sessdir;

#define OP_CGROUPS_FILE "cgroups"

struct op_cgroup {
	pid_t tgid;
	bool other_root;
	char *path;		/* the cgroup, as /proc/PID/cgroup has it */
	char *name;		/* its readable name (op_cgroup_name()), and
				 * "+root:MAJ:MIN:INO" after it when processes
				 * of other roots share the cgroup */
	size_t line;		/* its line in the file, from 1 */
	uint64_t root_dev, root_ino;	/* other_root: the root it saw (0, 0:
					 * not said) */
};

struct op_cgroup_use {
	char *rel;		/* the image's name below the kept/ store */
	bool other_root;
	char *path, *name;	/* the cgroup and its readable name */
	size_t line;		/* in the file: uses of one image in its order */
};

struct op_cgroup_nsid {
	pid_t id, nsid;
	size_t line;
};

struct op_cgroups {
	struct op_cgroup *v;	/* sorted by tgid, one per tgid (the last) */
	size_t n;
	struct op_cgroup_nsid *ns;	/* sorted by id, one per id (the last) */
	size_t nr_ns;
	struct op_cgroup_use *uses;	/* sorted by rel, then file order */
	size_t nr_uses;
};

/* Read dir/stats/OP_CGROUPS_FILE (dir a session: samples/NAME) beneath sd
 * (op_sessdir.h; NULL: by path). A missing file is an empty set; malformed
 * lines are skipped. 0, -ENOMEM, or the open's -errno (a symbolic link
 * where the file should be: -ELOOP). */
int op_cgroups_read(const struct op_sessdir *sd, const char *dir,
		    struct op_cgroups *c);
const struct op_cgroup *op_cgroups_find(const struct op_cgroups *c, pid_t tgid);
/* The id of process or thread id in its own PID namespace; 0 when it is
 * the daemon's namespace's (or unknown). */
pid_t op_cgroups_nsid(const struct op_cgroups *c, pid_t id);
/* Who mapped the kept image rel, as a report names them: the containers'
 * names (op_cgroup_name(); a process of another root in the root cgroup
 * is "/"), "host" for processes of the daemon's own root, each once,
 * joined by ",", into buf. False (buf empty) when nothing is known. */
bool op_cgroups_image_who(const struct op_cgroups *c, const char *rel,
			  char *buf, size_t len);
void op_cgroups_release(struct op_cgroups *c);

/* A container's name from its cgroup path: docker-ID, libpod-ID,
 * cri-containerd-ID, crio-ID (a scope's, the ID cut to 12 characters),
 * k8s-ID for kubepods/.../podUID/ID, machine-NAME for machine.slice's
 * machine-NAME.scope; else the path's last component. "" for "/" (no
 * container). Into buf (len bytes). */
void op_cgroup_name(const char *path, char *buf, size_t len);

/* One line of the file for f: "TGID ROOT CGROUP\n". A path holding a
 * newline is not written (it could not be read back). */
void op_cgroups_write_line(FILE *f, pid_t tgid, bool other_root,
			    const char *path);
/* "ns ID NSID\n". */
void op_cgroups_write_nsid(FILE *f, pid_t id, pid_t nsid);
/* "root TGID DEV INO\n", right after TGID's process line. */
void op_cgroups_write_root(FILE *f, pid_t tgid, uint64_t dev, uint64_t ino);
/* "image ROOT REL\tCGROUP\n"; not written when rel holds a tab or a
 * newline, or path a newline. */
void op_cgroups_write_image(FILE *f, const char *rel, bool other_root,
			    const char *path);

/* An image named after its copy in a kept/ store (kop_root.c): the path
 * it was mapped by, inside its container, when name is
 * ".../kept/AB/CDEF.../PATH" (a build-id of 8 to 64 bytes, in lowercase
 * hex) or ".../kept/ino/MAJ-MIN-INO/PATH"; else NULL. *rel (if not
 * NULL): where its name below the store starts. Pointers into name. */
const char *op_kept_path(const char *name, const char **rel);

#endif /* OP_CGROUPS_H */
