/* oparchive's copying: a session's files, its binaries with their debug
 * files and the kernel's symbols into an archive directory laid out as
 * core/pp_archive.h says. A file is copied by reading it, not by
 * copy_file_range(): /proc/kallsyms reports a size of 0. */
#include "config.h"
#include "pp_archive_write.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_grow.h"
#include "op_kernel.h"
#include "pp_symbols.h"

static int write_error(struct pp_archive_writer *w, const char *what,
		       const char *path, int err)
{
	op_log(w->lg, OP_LOG_ERR, "cannot %s %s: %s", what, path, strerror(err));
	if (!w->err)
		w->err = -err;
	return -EIO;
}

/* A link met in the archive directory: refused, named, w->err set. */
static int refused(struct pp_archive_writer *w, const char *rel, int err)
{
	char why[PATH_MAX + 128];

	op_log(w->lg, OP_LOG_ERR, "cannot write the archive: %s",
	       op_sd_explain(w->out, rel, err, why, sizeof(why)));
	if (!w->err)
		w->err = err;
	return -EIO;
}

/* With --list-files: print src once. */
static int list_source(struct pp_archive_writer *w, const char *src)
{
	char **v;

	for (size_t i = 0; i < w->nr_seen; i++)
		if (!strcmp(w->seen[i], src))
			return 0;
	if (w->nr_seen == w->alloc_seen) {
		v = op_grow(w->seen, w->nr_seen + 1, &w->alloc_seen, 64, sizeof(*v));
		if (!v)
			return -ENOMEM;
		w->seen = v;
	}
	w->seen[w->nr_seen] = strdup(src);
	if (!w->seen[w->nr_seen])
		return -ENOMEM;
	w->nr_seen++;
	fprintf(w->list, "%s\n", src);
	w->nr_files++;
	return 0;
}

static int copy_fd(int in, int out)
{
	char buf[1 << 16];

	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf)), done = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return 0;
		while (done < n) {
			ssize_t m = write(out, buf + done, (size_t)(n - done));

			if (m < 0 && errno == EINTR)
				continue;
			if (m < 0)
				return -errno;
			done += m;
		}
	}
}

int pp_archive_put(struct pp_archive_writer *w, const struct op_sessdir *sd,
		   const char *src, const char *dest)
{
	char path[PATH_MAX];
	struct timespec times[2];
	const char *rel;
	struct stat sb;
	int in, out, ret;

	/* a session's file through its sd: no link followed out of it */
	in = sd ? op_sd_open(sd, src, O_RDONLY | O_NONBLOCK, 0)
		: open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return sd ? in : -errno;
	if (fstat(in, &sb) || !S_ISREG(sb.st_mode)) {
		close(in);
		return -EINVAL;
	}
	if (w->list) {
		close(in);
		return list_source(w, src) ? -EIO : 0;
	}
	if (snprintf(path, sizeof(path), "%s%s", w->dir, dest) >= (int)sizeof(path)) {
		close(in);
		return write_error(w, "create", dest, ENAMETOOLONG);
	}
	/* beneath the archive's descriptor: dest without its leading '/' */
	rel = dest + strspn(dest, "/");
	ret = op_sd_mkparents(w->out, rel, 0755);
	if (ret) {
		close(in);
		return op_sd_refused(ret) ? refused(w, rel, ret) :
		       write_error(w, "create the directories of", path, -ret);
	}
	out = op_sd_open(w->out, rel, O_WRONLY | O_CREAT | O_EXCL,
			 (sb.st_mode & 07777) | S_IWUSR);
	if (out == -EEXIST) {
		struct stat there;

		close(in);
		/* a link someone put there: refused; else met before (one
		 * image behind several sample files) */
		if (!op_sd_stat(w->out, rel, &there) && S_ISLNK(there.st_mode))
			return refused(w, rel, -ELOOP);
		return 0;
	}
	if (out < 0) {
		close(in);
		return op_sd_refused(out) ? refused(w, rel, out) :
		       write_error(w, "create", path, -out);
	}
	ret = copy_fd(in, out);
	close(in);
	if (ret) {
		close(out);
		return write_error(w, "copy to", path, -ret);
	}
	times[0] = sb.st_atim;
	times[1] = sb.st_mtim;
	if (futimens(out, times))
		op_log(w->lg, OP_LOG_WARN, "cannot keep the mtime of %s: %s", path,
		       strerror(errno));
	if (close(out))
		return write_error(w, "write", path, errno);
	op_log(w->lg, OP_LOG_INFO, "%s -> %s", src, path);
	w->nr_files++;
	return 0;
}

int pp_archive_put_tree(struct pp_archive_writer *w, const struct op_sessdir *sd,
			const char *src_dir, const char *dest_dir)
{
	DIR *d = op_sd_opendir(sd, src_dir);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		if (errno == ELOOP) {
			char why[PATH_MAX + 64];

			op_log(w->lg, OP_LOG_WARN, "%s: not archived",
			       op_sd_explain(sd, src_dir, -ELOOP, why, sizeof(why)));
		}
		return 0;
	}
	while (!ret && (de = readdir(d))) {
		char src[PATH_MAX], dest[PATH_MAX];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(src, sizeof(src), "%s/%s", src_dir, de->d_name) >= (int)sizeof(src) ||
		    snprintf(dest, sizeof(dest), "%s/%s", dest_dir, de->d_name) >= (int)sizeof(dest)) {
			ret = write_error(w, "create", dest_dir, ENAMETOOLONG);
			break;
		}
		if (de->d_type == DT_DIR) {
			ret = pp_archive_put_tree(w, sd, src, dest);
		} else if (de->d_type == DT_REG || de->d_type == DT_UNKNOWN ||
			   de->d_type == DT_LNK) {
			ret = pp_archive_put(w, sd, src, dest);
			if (ret == -ELOOP) {
				char why[PATH_MAX + 64];

				op_log(w->lg, OP_LOG_WARN, "%s: not archived",
				       op_sd_explain(sd, src, ret, why, sizeof(why)));
			}
			ret = ret == -EIO ? -EIO : 0;
		}
	}
	closedir(d);
	return ret;
}

int pp_archive_put_binary(struct pp_archive_writer *w, const char *src,
			  const char *dest, const char *debug_dirs)
{
	struct pp_symtab st;
	const char *debug, *link = NULL, *slash;
	char path[PATH_MAX], id[2 * 64 + 1];
	int ret;

	ret = pp_archive_put(w, NULL, src, dest);
	if (ret)
		return ret;
	if (pp_symtab_load_elf(&st, src, debug_dirs, w->lg))
		return 0;	/* not ELF: no debug file to look for */
	debug = pp_symtab_debug_file(&st, &link);
	slash = strrchr(dest, '/');
	if (debug && link && !strchr(link, '/')) {
		snprintf(path, sizeof(path), "%.*s/.debug/%s",
			 (int)(slash - dest), dest, link);
		ret = pp_archive_put(w, NULL, debug, path);
	} else if (debug && pp_symtab_build_id(&st, id, sizeof(id)) > 1) {
		snprintf(path, sizeof(path), PP_DEBUG_ROOT_DIR "/.build-id/%.2s/%s.debug",
			 id, id + 2);
		ret = pp_archive_put(w, NULL, debug, path);
	}
	pp_symtab_release(&st);
	return ret == -EIO ? -EIO : 0;
}

static int note_text(const struct op_ksym_line *l, void *ctx)
{
	struct op_ksym_range *r = ctx;

	op_ksym_range_note(r, l);
	return 0;
}

/* The kernel's text start as a kallsyms file names it, or 0. */
static uint64_t kallsyms_text(const struct op_sessdir *sd, const char *path)
{
	struct op_ksym_range r = { 0 };
	uint64_t start = 0;

	if (op_kallsyms_each(sd, path, note_text, &r, NULL))
		return 0;
	return op_ksym_range_start(&r, &start) ? start : 0;
}

int pp_archive_put_kallsyms(struct pp_archive_writer *w, const struct op_sessdir *sd,
			    const char *saved, const char *live)
{
	uint64_t text = live ? kallsyms_text(NULL, live) : 0;

	/* an unprivileged reader sees every address as 0 */
	if (text && (!saved || kallsyms_text(sd, saved) == text))
		return pp_archive_put(w, NULL, live, "/proc/kallsyms");
	if (saved)
		return pp_archive_put(w, sd, saved, "/proc/kallsyms");
	return -ENOENT;
}

void pp_archive_writer_release(struct pp_archive_writer *w)
{
	for (size_t i = 0; i < w->nr_seen; i++)
		free(w->seen[i]);
	free(w->seen);
	w->seen = NULL;
	w->nr_seen = w->alloc_seen = 0;
}
