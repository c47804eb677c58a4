/* The session's cgroups file: written by the daemon, read by the reports
 * (op_cgroups.h). */
#include "config.h"
#include "op_cgroups.h"
#include "op_grow.h"
#include "op_sessdir.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "op_stats.h"

static int cmp_tgid(const void *a, const void *b)
{
	const struct op_cgroup *x = a, *y = b;

	/* equal tgids keep their file order: the later line wins below */
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void free_ent(struct op_cgroup *e)
{
	free(e->path);
	free(e->name);
}

int op_cgroups_read(const struct op_sessdir *sd, const char *dir,
		    struct op_cgroups *c)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0, alloc = 0, k = 0;
	ssize_t len;
	FILE *f;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/" OP_STATS_DIR "/" OP_CGROUPS_FILE, dir);
	f = op_sd_fopen(sd, path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while ((len = getline(&line, &cap, f)) > 0) {
		struct op_cgroup e = { 0 };
		char name[256];
		int tgid, root, pos = 0;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (sscanf(line, "%d %d %n", &tgid, &root, &pos) < 2 || !pos ||
		    tgid <= 0 || (root != 0 && root != 1) || line[pos] != '/')
			continue;
		if (c->n == alloc) {
			struct op_cgroup *v = op_grow(c->v, c->n + 1, &alloc, 64,
						      sizeof(*v));

			if (!v) {
				ret = -ENOMEM;
				break;
			}
			c->v = v;
		}
		op_cgroup_name(line + pos, name, sizeof(name));
		e.tgid = tgid;
		e.other_root = root;
		e.path = strdup(line + pos);
		e.name = strdup(name);
		if (!e.path || !e.name) {
			free_ent(&e);
			ret = -ENOMEM;
			break;
		}
		c->v[c->n++] = e;
	}
	free(line);
	fclose(f);
	if (ret) {
		op_cgroups_release(c);
		return ret;
	}
	/* one entry a tgid: its last line */
	qsort(c->v, c->n, sizeof(*c->v), cmp_tgid);
	for (size_t i = 0; i < c->n; i++) {
		if (i + 1 < c->n && c->v[i + 1].tgid == c->v[i].tgid) {
			free_ent(&c->v[i]);
			continue;
		}
		c->v[k++] = c->v[i];
	}
	c->n = k;
	return 0;
}

const struct op_cgroup *op_cgroups_find(const struct op_cgroups *c, pid_t tgid)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->v[mid].tgid == tgid)
			return &c->v[mid];
		if (c->v[mid].tgid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void op_cgroups_release(struct op_cgroups *c)
{
	for (size_t i = 0; i < c->n; i++)
		free_ent(&c->v[i]);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* A scope of a container runtime, "PREFIX-ID.scope": its short name. */
static bool runtime_scope(const char *comp, size_t n, char *buf, size_t len)
{
	static const char *const prefixes[] = {
		"docker-", "libpod-", "cri-containerd-", "crio-",
	};

	if (n < 7 || strncmp(comp + n - 6, ".scope", 6))
		return false;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t pl = strlen(prefixes[i]), idl;

		if (n <= pl + 6 || strncmp(comp, prefixes[i], pl))
			continue;
		idl = n - pl - 6;
		snprintf(buf, len, "%.*s%.*s", (int)pl, prefixes[i],
			 (int)(idl > 12 ? 12 : idl), comp + pl);
		return true;
	}
	return false;
}

void op_cgroup_name(const char *path, char *buf, size_t len)
{
	const char *last = strrchr(path, '/'), *prev = NULL;
	size_t n;

	if (!len)
		return;
	buf[0] = '\0';
	last = last ? last + 1 : path;
	n = strlen(last);
	if (!n)
		return;
	if (runtime_scope(last, n, buf, len))
		return;
	if (!strncmp(last, "machine-", 8) && n > 14 &&
	    !strcmp(last + n - 6, ".scope")) {
		snprintf(buf, len, "%.*s", (int)(n - 6), last);
		return;
	}
	/* kubepods/.../podUID/CONTAINERID (cgroupfs driver) */
	for (const char *p = path; p < last - 1; p++)
		if (*p == '/' && p + 1 < last)
			prev = p + 1;
	if (strstr(path, "kubepods") && prev && !strncmp(prev, "pod", 3)) {
		snprintf(buf, len, "k8s-%.*s", (int)(n > 12 ? 12 : n), last);
		return;
	}
	snprintf(buf, len, "%s", last);
}

void op_cgroups_write_line(FILE *f, pid_t tgid, bool other_root,
			   const char *path)
{
	if (path[0] != '/' || strchr(path, '\n'))
		return;
	fprintf(f, "%d %d %s\n", (int)tgid, other_root ? 1 : 0, path);
}
