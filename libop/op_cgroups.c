/* The session's cgroups file: written by the daemon, read by the reports
 * (op_cgroups.h). */
#include "config.h"
#include "op_cgroups.h"
#include "op_grow.h"
#include "op_sessdir.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "op_config.h"
#include "op_stats.h"

static int cmp_tgid(const void *a, const void *b)
{
	const struct op_cgroup *x = a, *y = b;

	/* equal tgids keep their file order: the later line wins below */
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

static int cmp_ns(const void *a, const void *b)
{
	const struct op_cgroup_nsid *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

static int cmp_use(const void *a, const void *b)
{
	const struct op_cgroup_use *x = a, *y = b;
	int c = strcmp(x->rel, y->rel);

	/* then file order: qsort is not stable, the line says it */
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static void free_ent(struct op_cgroup *e)
{
	free(e->path);
	free(e->name);
}

static void free_use(struct op_cgroup_use *u)
{
	free(u->rel);
	free(u->path);
	free(u->name);
}

/* Room for one more of n elements of size in *v (capacity *alloc),
 * through op_grow(). */
static int room(void *v, size_t n, size_t *alloc, size_t size)
{
	void **pv = v, *nv;

	if (n < *alloc)
		return 0;
	nv = op_grow(*pv, n + 1, alloc, 64, size);
	if (!nv)
		return -ENOMEM;
	*pv = nv;
	return 0;
}

/* "ns ID NSID" */
static int parse_ns(struct op_cgroups *c, size_t *alloc, const char *line,
		    size_t lineno)
{
	int id, nsid, pos = 0;

	if (sscanf(line, "ns %d %d%n", &id, &nsid, &pos) < 2 || line[pos] ||
	    id <= 0 || nsid <= 0)
		return 0;
	if (room(&c->ns, c->nr_ns, alloc, sizeof(*c->ns)))
		return -ENOMEM;
	c->ns[c->nr_ns++] = (struct op_cgroup_nsid){
		.id = id, .nsid = nsid, .line = lineno,
	};
	return 0;
}

/* "image ROOT REL<TAB>CGROUP" */
static int parse_image(struct op_cgroups *c, size_t *alloc, const char *line,
		       size_t lineno)
{
	struct op_cgroup_use u = { 0 };
	const char *tab;
	char name[256];
	int root, pos = 0;

	if (sscanf(line, "image %d %n", &root, &pos) < 1 || !pos ||
	    (root != 0 && root != 1))
		return 0;
	tab = strchr(line + pos, '\t');
	if (!tab || tab == line + pos || tab[1] != '/')
		return 0;
	if (room(&c->uses, c->nr_uses, alloc, sizeof(*c->uses)))
		return -ENOMEM;
	op_cgroup_name(tab + 1, name, sizeof(name));
	u.rel = strndup(line + pos, (size_t)(tab - line - pos));
	u.other_root = root;
	u.line = lineno;
	u.path = strdup(tab + 1);
	u.name = strdup(name);
	if (!u.rel || !u.path || !u.name) {
		free_use(&u);
		return -ENOMEM;
	}
	c->uses[c->nr_uses++] = u;
	return 0;
}

/* "root TGID DEV INO": the root of TGID's process line just read */
static void parse_root(struct op_cgroups *c, const char *line)
{
	unsigned long long dev, ino;
	int tgid, pos = 0;

	if (sscanf(line, "root %d %llu %llu%n", &tgid, &dev, &ino, &pos) < 3 ||
	    line[pos] || !c->n || c->v[c->n - 1].tgid != tgid ||
	    !c->v[c->n - 1].other_root)
		return;
	c->v[c->n - 1].root_dev = dev;
	c->v[c->n - 1].root_ino = ino;
}

/* "TGID ROOT CGROUP" */
static int parse_process(struct op_cgroups *c, size_t *alloc, const char *line,
			 size_t lineno)
{
	struct op_cgroup e = { 0 };
	char name[256];
	int tgid, root, pos = 0;

	if (sscanf(line, "%d %d %n", &tgid, &root, &pos) < 2 || !pos ||
	    tgid <= 0 || (root != 0 && root != 1) || line[pos] != '/')
		return 0;
	if (room(&c->v, c->n, alloc, sizeof(*c->v)))
		return -ENOMEM;
	op_cgroup_name(line + pos, name, sizeof(name));
	e.tgid = tgid;
	e.other_root = root;
	e.line = lineno;
	e.path = strdup(line + pos);
	e.name = strdup(name);
	if (!e.path || !e.name) {
		free_ent(&e);
		return -ENOMEM;
	}
	c->v[c->n++] = e;
	return 0;
}

/* A container's own root directory is known (a root line). */
static bool own_root(const struct op_cgroup *e)
{
	return e->other_root && (e->root_dev || e->root_ino);
}

/* By cgroup, then the root: the unknown first, then by device and inode. */
static int cmp_shared(const void *a, const void *b)
{
	const struct op_cgroup *x = *(const struct op_cgroup *const *)a;
	const struct op_cgroup *y = *(const struct op_cgroup *const *)b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	if (own_root(x) != own_root(y))
		return own_root(x) ? 1 : -1;
	if (x->root_dev != y->root_dev)
		return x->root_dev < y->root_dev ? -1 : 1;
	return (x->root_ino > y->root_ino) - (x->root_ino < y->root_ino);
}

/* Containers that share a cgroup (two chroots in one) are told apart by
 * their root directories: in a cgroup whose processes saw more than one
 * root directory of their own, those processes are named
 * NAME+root:MAJ:MIN:INO (root:MAJ:MIN:INO in the root cgroup, which has
 * no name). The host's processes in it, and those with our root
 * directory in mounts of their own (a container runtime's, before it
 * enters the container), do not count: they keep the cgroup's name.
 * -ENOMEM or 0. */
static int split_shared(struct op_cgroups *c)
{
	struct op_cgroup **by;
	size_t i, j;
	int ret = 0;

	if (c->n < 2)
		return 0;
	by = malloc(c->n * sizeof(*by));
	if (!by)
		return -ENOMEM;
	for (i = 0; i < c->n; i++)
		by[i] = &c->v[i];
	qsort(by, c->n, sizeof(*by), cmp_shared);
	for (i = 0; i < c->n && !ret; i = j) {
		size_t roots = own_root(by[i]);

		for (j = i + 1; j < c->n && !strcmp(by[j]->path, by[i]->path); j++)
			roots += own_root(by[j]) &&
				 (!own_root(by[j - 1]) ||
				  by[j]->root_dev != by[j - 1]->root_dev ||
				  by[j]->root_ino != by[j - 1]->root_ino);
		if (roots < 2)
			continue;
		for (size_t m = i; m < j && !ret; m++) {
			struct op_cgroup *e = by[m];
			char *name;

			if (!own_root(e))
				continue;
			if (asprintf(&name, "%s%sroot:%u:%u:%llu", e->name,
				     *e->name ? "+" : "",
				     major((dev_t)e->root_dev), minor((dev_t)e->root_dev),
				     (unsigned long long)e->root_ino) < 0) {
				ret = -ENOMEM;
				break;
			}
			free(e->name);
			e->name = name;
		}
	}
	free(by);
	return ret;
}

int op_cgroups_read(const struct op_sessdir *sd, const char *dir,
		    struct op_cgroups *c)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0, alloc = 0, alloc_ns = 0, alloc_uses = 0, k = 0, lineno = 0;
	ssize_t len;
	FILE *f;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/" OP_STATS_DIR "/" OP_CGROUPS_FILE, dir);
	f = op_sd_fopen(sd, path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (!ret && (len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (!strncmp(line, "ns ", 3))
			ret = parse_ns(c, &alloc_ns, line, lineno);
		else if (!strncmp(line, "image ", 6))
			ret = parse_image(c, &alloc_uses, line, lineno);
		else if (!strncmp(line, "root ", 5))
			parse_root(c, line);
		else
			ret = parse_process(c, &alloc, line, lineno);
	}
	free(line);
	fclose(f);
	if (ret) {
		op_cgroups_release(c);
		return ret;
	}
	/* one entry a tgid: its last line */
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), cmp_tgid);
	for (size_t i = 0; i < c->n; i++) {
		if (i + 1 < c->n && c->v[i + 1].tgid == c->v[i].tgid) {
			free_ent(&c->v[i]);
			continue;
		}
		c->v[k++] = c->v[i];
	}
	c->n = k;
	ret = split_shared(c);
	if (ret) {
		op_cgroups_release(c);
		return ret;
	}
	/* one a namespace id: its last line, unless a later process line of
	 * the same pid (a new process) forgot it */
	if (c->nr_ns)
		qsort(c->ns, c->nr_ns, sizeof(*c->ns), cmp_ns);
	k = 0;
	for (size_t i = 0; i < c->nr_ns; i++) {
		const struct op_cgroup *p;

		if (i + 1 < c->nr_ns && c->ns[i + 1].id == c->ns[i].id)
			continue;
		p = op_cgroups_find(c, c->ns[i].id);
		if (p && p->line > c->ns[i].line)
			continue;
		c->ns[k++] = c->ns[i];
	}
	c->nr_ns = k;
	if (c->nr_uses)
		qsort(c->uses, c->nr_uses, sizeof(*c->uses), cmp_use);
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

pid_t op_cgroups_nsid(const struct op_cgroups *c, pid_t id)
{
	size_t lo = 0, hi = c->nr_ns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->ns[mid].id == id)
			return c->ns[mid].nsid;
		if (c->ns[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

bool op_cgroups_image_who(const struct op_cgroups *c, const char *rel,
			  char *buf, size_t len)
{
	size_t lo = 0, hi = c->nr_uses, off = 0;

	if (!len)
		return false;
	buf[0] = '\0';
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(c->uses[mid].rel, rel) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < c->nr_uses && !strcmp(c->uses[i].rel, rel); i++) {
		const struct op_cgroup_use *u = &c->uses[i];
		const char *who = !u->other_root ? "host" : *u->name ? u->name : "/";
		size_t n = strlen(who);
		bool seen = false;

		/* each once: look for ",WHO," in ",BUF," */
		for (const char *p = buf; (p = strstr(p, who)); p++)
			if ((p == buf || p[-1] == ',') && (p[n] == ',' || !p[n]))
				seen = true;
		if (seen || off + n + 2 > len)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", who);
	}
	return off > 0;
}

void op_cgroups_release(struct op_cgroups *c)
{
	for (size_t i = 0; i < c->n; i++)
		free_ent(&c->v[i]);
	for (size_t i = 0; i < c->nr_uses; i++)
		free_use(&c->uses[i]);
	free(c->v);
	free(c->ns);
	free(c->uses);
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

void op_cgroups_write_nsid(FILE *f, pid_t id, pid_t nsid)
{
	fprintf(f, "ns %d %d\n", (int)id, (int)nsid);
}

void op_cgroups_write_root(FILE *f, pid_t tgid, uint64_t dev, uint64_t ino)
{
	fprintf(f, "root %d %" PRIu64 " %" PRIu64 "\n", (int)tgid, dev, ino);
}

void op_cgroups_write_image(FILE *f, const char *rel, bool other_root,
			    const char *path)
{
	if (!*rel || strpbrk(rel, "\t\n") || path[0] != '/' || strchr(path, '\n'))
		return;
	fprintf(f, "image %d %s\t%s\n", other_root ? 1 : 0, rel, path);
}

static bool lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

const char *op_kept_path(const char *name, const char **rel)
{
	static const char store[] = "/" OP_KEEP_DIR "/";
	const char *p, *id, *slash;

	/* the last "/kept/" the rest of which is a store's name */
	for (p = name; (p = strstr(p, store)); p++) {
		id = p + sizeof(store) - 1;
		slash = strchr(id, '/');
		if (!slash)
			break;
		if (slash - id == 2 && lower_hex(id, 2)) {
			const char *end = strchr(slash + 1, '/');
			size_t n = end ? (size_t)(end - slash - 1) : 0;

			if (!end || n < 14 || n > 126 || n % 2 || !lower_hex(slash + 1, n))
				continue;
			slash = end;
		} else if (slash - id == 3 && !strncmp(id, "ino", 3)) {
			const char *end = strchr(slash + 1, '/');
			unsigned int ma, mi;
			unsigned long long ino;
			int pos = 0;

			if (!end || sscanf(slash + 1, "%x-%x-%llu%n", &ma, &mi, &ino, &pos) < 3 ||
			    slash + 1 + pos != end)
				continue;
			slash = end;
		} else {
			continue;
		}
		if (rel)
			*rel = id;
		return slash;
	}
	return NULL;
}
