/* Directories of a session: made, emptied, removed. Each returns 0 or
 * -errno. */
#ifndef OPD_FS_H
#define OPD_FS_H

/* mkdir -p: every missing directory of path, mode 0755. */
int opd_mkdir_p(const char *path);

/* Remove name under dirfd and everything below it, never following a
 * symlink; a name that does not exist is not an error. */
int opd_rm_rf_at(int dirfd, const char *name);

/* Remove everything in the directory fd (which is consumed: closed). */
int opd_rm_dir_contents(int fd);

#endif /* OPD_FS_H */
