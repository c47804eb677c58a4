/* Sample files by key, with a bounded number open. Keys compare image
 * pointers, not names: an opd_image is unique per image for the session. */
#include "config.h"
#include "opd_sfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "op_names.h"

static size_t key_hash(const struct opd_sfile_key *k, size_t nr_buckets)
{
	uint64_t h = (uint64_t)(uintptr_t)k->image * 0x9e3779b97f4a7c15ULL;

	h ^= (uint64_t)(uintptr_t)k->dep * 0xc2b2ae3d27d4eb4fULL;
	h ^= (uint64_t)(uintptr_t)k->cg * 0x94d049bb133111ebULL;
	h ^= ((uint64_t)k->event << 48) ^ ((uint64_t)(uint32_t)k->tgid << 16) ^
	     ((uint64_t)(uint32_t)k->tid * 0x165667b19e3779f9ULL) ^
	     ((uint64_t)(uint32_t)k->cpu << 32);
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return (size_t)h & (nr_buckets - 1);
}

static bool key_eq(const struct opd_sfile_key *a, const struct opd_sfile_key *b)
{
	return a->image == b->image && a->dep == b->dep && a->cg == b->cg &&
	       a->event == b->event &&
	       a->tgid == b->tgid && a->tid == b->tid && a->cpu == b->cpu;
}

int opd_sfiles_init(struct opd_sfiles *sf, const struct op_sessdir *sd, const char *dir,
		    const struct opd_event_info *events, uint32_t nr_events,
		    double cpu_speed, size_t max_open,
		    const struct op_logger *log)
{
	memset(sf, 0, sizeof(*sf));
	sf->sd = sd;
	sf->events = events;
	sf->nr_events = nr_events;
	sf->cpu_speed = cpu_speed;
	sf->log = log;
	sf->max_open = max_open ? max_open : OPD_SFILE_DEFAULT_MAX_OPEN;
	sf->retry_ns = OPD_SFILE_RETRY_NS;
	sf->nr_buckets = 64;
	while (sf->nr_buckets < sf->max_open * 2)
		sf->nr_buckets *= 2;
	sf->dir = strdup(dir);
	sf->buckets = calloc(sf->nr_buckets, sizeof(*sf->buckets));
	if (!sf->dir || !sf->buckets) {
		free(sf->dir);
		free(sf->buckets);
		memset(sf, 0, sizeof(*sf));
		return -ENOMEM;
	}
	return 0;
}

/* The name of key's file relative to dir (malloc'd), NULL with errno. */
static char *opd_sfile_name(const struct opd_sfiles *sf, const struct opd_sfile_key *key)
{
	const struct opd_event_info *ev = &sf->events[key->event];
	struct op_sfname n = {
		.image = key->image->img,
		.dep = key->dep->img,
		.event = (char *)ev->name,
		.count = ev->count,
		.unit_mask = ev->unit_mask,
		.tgid = key->tgid,
		.tid = key->tid,
		.cpu = key->cpu,
	};

	if (key->cg)
		n.cg = key->cg->img;
	return op_sfname_build(&n);
}

static void fill_header(struct opd_sfiles *sf, struct opd_sfile *f)
{
	const struct opd_event_info *ev = &sf->events[f->key.event];
	struct odb_header *h = f->db.header;

	h->cpu_type = ev->cpu_type;
	h->ctr_event = ev->event_number;
	h->ctr_um = ev->unit_mask;
	h->ctr_count = (uint32_t)ev->count;
	h->is_kernel = f->key.image->is_kernel;
	h->cpu_speed = sf->cpu_speed;
	h->mtime = f->key.image->mtime;
	h->anon_start = f->key.image->img.kind == OP_IMG_ANON ?
			f->key.image->img.anon_start : 0;
	if (f->key.cg) {
		/* is_kernel and anon_start above are the caller's */
		h->cg_to_is_kernel = f->key.cg->is_kernel;
		h->cg_to_anon_start = f->key.cg->img.kind == OP_IMG_ANON ?
				      f->key.cg->img.anon_start : 0;
	}
}

static int open_file(struct opd_sfiles *sf, struct opd_sfile *f)
{
	char *rel = opd_sfile_name(sf, &f->key);
	char *path;
	int ret;

	if (!rel)
		return -errno;
	path = malloc(strlen(sf->dir) + strlen(rel) + 2);
	if (!path) {
		free(rel);
		return -ENOMEM;
	}
	sprintf(path, "%s/%s", sf->dir, rel);
	/* the directories exist but for a file's first open: an evicted
	 * file (arc files outnumber the cache with call graphs) comes back
	 * without a mkdir for every component of its long name */
	ret = odb_open(&f->db, sf->sd, path, ODB_RDWR);
	if (ret == -ENOENT) {
		ret = op_sd_mkparents(sf->sd, path, 0755);
		if (!ret)
			ret = odb_open(&f->db, sf->sd, path, ODB_RDWR);
	}
	if (ret) {
		char why[PATH_MAX + 128];

		if (op_sd_refused(ret))
			op_sd_explain(sf->sd, path, ret, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "cannot open %s: %s", path,
				 odb_strerror(ret));
		/* a link planted in the session is an error, said where
		 * the user is (operf's stderr), not only in the log */
		if (!f->logged)
			op_log(sf->log, op_sd_refused(ret) ? OP_LOG_ERR :
			       OP_LOG_WARN, "sfile: %s; its samples are counted as lost", why);
		f->logged = true;
	} else {
		fill_header(sf, f);
	}
	free(path);
	free(rel);
	return ret;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Open f, or mark it failed until retry_ns from now. */
static void try_open(struct opd_sfiles *sf, struct opd_sfile *f)
{
	if (open_file(sf, f)) {
		f->failed = true;
		f->retry_at = now_ns() + sf->retry_ns;
		sf->nr_open_failures++;
		return;
	}
	if (f->failed) {
		char *rel = opd_sfile_name(sf, &f->key);

		op_log(sf->log, OP_LOG_INFO,
		       "sfile: opened %s after an earlier failure", rel ? rel : "(unnamed)");
		free(rel);
	}
	f->failed = false;
	sf->nr_opens++;
}

static void lru_unlink(struct opd_sfiles *sf, struct opd_sfile *f)
{
	if (f->lru_prev)
		f->lru_prev->lru_next = f->lru_next;
	else
		sf->lru_head = f->lru_next;
	if (f->lru_next)
		f->lru_next->lru_prev = f->lru_prev;
	else
		sf->lru_tail = f->lru_prev;
	f->lru_prev = f->lru_next = NULL;
}

static void lru_push_front(struct opd_sfiles *sf, struct opd_sfile *f)
{
	f->lru_prev = NULL;
	f->lru_next = sf->lru_head;
	if (sf->lru_head)
		sf->lru_head->lru_prev = f;
	sf->lru_head = f;
	if (!sf->lru_tail)
		sf->lru_tail = f;
}

static void sfile_drop(struct opd_sfiles *sf, struct opd_sfile *f)
{
	struct opd_sfile **pp = &sf->buckets[key_hash(&f->key, sf->nr_buckets)];

	while (*pp != f)
		pp = &(*pp)->hnext;
	*pp = f->hnext;
	lru_unlink(sf, f);
	if (!f->failed)
		odb_close(&f->db);
	free(f);
	sf->nr_cached--;
}

/* A sample, or an arc (of an arc file), that no file took. */
static void count_lost(struct opd_sfiles *sf, const struct opd_sfile_key *key,
		       uint32_t n)
{
	if (key->cg)
		sf->nr_lost_arcs += n;
	else
		sf->nr_lost += n;
}

struct opd_sfile *opd_sfile_get(struct opd_sfiles *sf,
				const struct opd_sfile_key *key, uint32_t n)
{
	size_t h = key_hash(key, sf->nr_buckets);
	struct opd_sfile *f;

	for (f = sf->buckets[h]; f; f = f->hnext) {
		if (key_eq(&f->key, key))
			break;
	}
	if (!f) {
		if (key->event >= sf->nr_events) {
			count_lost(sf, key, n);
			return NULL;
		}
		if (sf->nr_cached >= sf->max_open && sf->lru_tail) {
			sfile_drop(sf, sf->lru_tail);
			sf->nr_evictions++;
		}
		f = calloc(1, sizeof(*f));
		if (!f) {
			count_lost(sf, key, n);
			return NULL;
		}
		f->key = *key;
		f->db.fd = -1;
		try_open(sf, f);
		f->hnext = sf->buckets[h];
		sf->buckets[h] = f;
		sf->nr_cached++;
		lru_push_front(sf, f);
	} else if (sf->lru_head != f) {
		lru_unlink(sf, f);
		lru_push_front(sf, f);
	}
	if (f->failed && now_ns() >= f->retry_at)
		try_open(sf, f);
	if (f->failed) {
		count_lost(sf, key, n);
		return NULL;
	}
	return f;
}

bool opd_sfile_add(struct opd_sfiles *sf, struct opd_sfile *f, uint64_t key,
		   uint32_t n)
{
	int ret = odb_add(&f->db, key, n);

	if (ret == 0)
		return true;
	count_lost(sf, &f->key, n);
	if (!f->logged) {
		char *rel = opd_sfile_name(sf, &f->key);

		op_log(sf->log, OP_LOG_WARN,
		       "sfile: cannot add to %s: %s; further failures of this file only counted",
		       rel ? rel : "(unnamed)", odb_strerror(ret));
		free(rel);
		f->logged = true;
	}
	return false;
}

int opd_sfiles_sync(struct opd_sfiles *sf)
{
	int first = 0;

	for (struct opd_sfile *f = sf->lru_head; f; f = f->lru_next) {
		int ret;

		if (f->failed)
			continue;
		ret = odb_sync(&f->db);
		if (ret && !first)
			first = ret;
	}
	return first;
}

void opd_sfiles_close_all(struct opd_sfiles *sf)
{
	while (sf->lru_head)
		sfile_drop(sf, sf->lru_head);
}

void opd_sfiles_release(struct opd_sfiles *sf)
{
	if (sf->buckets)
		opd_sfiles_close_all(sf);
	free(sf->buckets);
	free(sf->dir);
	memset(sf, 0, sizeof(*sf));
}
