/* The cgroups of a session's processes, for naming the container samples
 * ran in. The daemon writes samples/NAME/stats/cgroups (kmod reads each
 * process's /proc/PID/cgroup when it learns of its exec), the report tools
 * read it: a sample file separated by thread (its TGID) is then in that
 * process's cgroup. One line a process image, in the order they were met:
 *
 *   TGID ROOT CGROUP
 *
 * ROOT 1 when the process saw another root than the daemon's (a container's
 * mount namespace, a chroot), else 0; CGROUP the cgroup v2 path ("/" for
 * the root). A TGID met again (a new exec, a reused pid) has a later line,
 * which wins. OProfile's tools do not read the file.
 */
#ifndef OP_CGROUPS_H
#define OP_CGROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct op_sessdir;

#define OP_CGROUPS_FILE "cgroups"

struct op_cgroup {
	pid_t tgid;
	bool other_root;
	char *path;		/* the cgroup, as /proc/PID/cgroup has it */
	char *name;		/* its readable name (op_cgroup_name()) */
};

struct op_cgroups {
	struct op_cgroup *v;	/* sorted by tgid, one per tgid (the last) */
	size_t n;
};

/* Read dir/stats/OP_CGROUPS_FILE (dir a session: samples/NAME) beneath sd
 * (op_sessdir.h; NULL: by path). A missing file is an empty set; malformed
 * lines are skipped. 0, -ENOMEM, or the open's -errno (a symbolic link
 * where the file should be: -ELOOP). */
int op_cgroups_read(const struct op_sessdir *sd, const char *dir,
		    struct op_cgroups *c);
const struct op_cgroup *op_cgroups_find(const struct op_cgroups *c, pid_t tgid);
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

#endif /* OP_CGROUPS_H */
