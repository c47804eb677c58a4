/* The interval arithmetic of a live session: each refresh maps what is
 * new under samples/current, sums every file's nodes key by key and hands
 * the caller what each key gained since the refresh before (pp_live.h
 * says what happens to files that appear, grow, are made anew or go). */
#include "config.h"
#include "pp_live.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "op_grow.h"
#include "op_stats.h"

/* ---- keys of one file ---- */

static size_t key_hash(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key;
}

static int keys_grow(struct pp_live_file *f)
{
	size_t n = f->nr_slots ? f->nr_slots * 2 : 256;
	struct pp_live_key *v = calloc(n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < f->nr_slots; i++) {
		const struct pp_live_key *k = &f->slots[i];
		size_t j;

		if (!k->gen)
			continue;
		for (j = key_hash(k->key) & (n - 1); v[j].gen; j = (j + 1) & (n - 1))
			;
		v[j] = *k;
	}
	free(f->slots);
	f->slots = v;
	f->nr_slots = n;
	return 0;
}

/* The slot of key, added (prev 0, no tag) when new; NULL on ENOMEM. */
static struct pp_live_key *key_slot(struct pp_live_file *f, uint64_t key,
				    uint32_t gen)
{
	size_t j;

	if ((f->nr_keys + 1) * 2 > f->nr_slots && keys_grow(f))
		return NULL;
	for (j = key_hash(key) & (f->nr_slots - 1); f->slots[j].gen;
	     j = (j + 1) & (f->nr_slots - 1))
		if (f->slots[j].key == key)
			return &f->slots[j];
	f->slots[j] = (struct pp_live_key){ .key = key, .tag = PP_LIVE_NO_TAG,
					    .gen = gen };
	f->nr_keys++;
	return &f->slots[j];
}

/* ---- files by name ---- */

static size_t str_hash(const char *s)
{
	size_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static int index_rebuild(struct pp_live_scan *s, size_t n)
{
	size_t *v = calloc(n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_files; i++) {
		size_t j;

		for (j = str_hash(s->files[i]->rel) & (n - 1); v[j]; j = (j + 1) & (n - 1))
			;
		v[j] = i + 1;
	}
	free(s->index);
	s->index = v;
	s->nr_index = n;
	return 0;
}

static struct pp_live_file *file_find(const struct pp_live_scan *s, const char *rel)
{
	if (!s->nr_index)
		return NULL;
	for (size_t j = str_hash(rel) & (s->nr_index - 1); s->index[j];
	     j = (j + 1) & (s->nr_index - 1))
		if (!strcmp(s->files[s->index[j] - 1]->rel, rel))
			return s->files[s->index[j] - 1];
	return NULL;
}

static void file_free(struct pp_live_file *f)
{
	if (!f)
		return;
	odb_close(&f->db);
	op_sfname_release(&f->name);
	free(f->slots);
	free(f->rel);
	free(f);
}

static struct pp_live_file *file_add(struct pp_live_scan *s, const char *rel,
				     struct op_sfname *name)
{
	struct pp_live_file *f = calloc(1, sizeof(*f)), **v = s->files;

	if (!f)
		return NULL;
	f->db.fd = -1;
	f->tag = PP_LIVE_NO_TAG;
	f->rel = strdup(rel);
	if (s->nr_files == s->alloc_files)
		v = op_grow(s->files, s->nr_files + 1, &s->alloc_files, 64,
			    sizeof(*v));
	if (!f->rel || !v) {
		free(f->rel);
		free(f);
		if (v)
			s->files = v;
		return NULL;
	}
	s->files = v;
	f->name = *name;
	f->is_arc = name->cg.path != NULL;
	s->files[s->nr_files++] = f;
	if (s->nr_files * 2 > s->nr_index) {
		if (index_rebuild(s, s->nr_index ? s->nr_index * 2 : 64)) {
			s->nr_files--;
			memset(&f->name, 0, sizeof(f->name));	/* the caller's still */
			file_free(f);
			return NULL;
		}
	} else {
		size_t j;

		for (j = str_hash(rel) & (s->nr_index - 1); s->index[j];
		     j = (j + 1) & (s->nr_index - 1))
			;
		s->index[j] = s->nr_files;
	}
	return f;
}

/* Said once per file name: a file that cannot be read stays unread. A
 * link is named (the walk enters none, so it is rel itself). */
static void say_bad(struct pp_live_scan *s, const char *rel, const char *full,
		    int err)
{
	char why[PATH_MAX + 128];
	char **v;

	for (size_t i = 0; i < s->nr_said_bad; i++)
		if (!strcmp(s->said_bad[i], rel))
			return;
	if (err == -ELOOP)
		op_log(&s->lg, OP_LOG_WARN, "%s",
		       op_sd_explain(s->sd, full, err, why, sizeof(why)));
	else
		op_log(&s->lg, OP_LOG_WARN, "cannot read the sample file %s/%s: %s",
		       s->current_dir, rel, odb_strerror(err));
	if (s->nr_said_bad == s->alloc_said_bad) {
		v = op_grow(s->said_bad, s->nr_said_bad + 1, &s->alloc_said_bad,
			    8, sizeof(*v));
		if (!v)
			return;
		s->said_bad = v;
	}
	s->said_bad[s->nr_said_bad] = strdup(rel);
	if (s->said_bad[s->nr_said_bad])
		s->nr_said_bad++;
}

/* ---- one refresh ---- */

struct refresh {
	struct pp_live_scan *s;
	pp_live_delta_fn fn;
	void *ctx;
	struct pp_live_news news;
	int err;
};

/* Map the file at full (st, its stat) when it is new or another inode;
 * *reopened says which. 0, or the error that kept it unread. */
static int file_map(const struct op_sessdir *sd, struct pp_live_file *f,
		    const char *full, struct stat st, bool *reopened)
{
	odb_t db;
	int ret;

	*reopened = false;
	if (f->db.base && st.st_ino == f->ino && st.st_dev == f->dev)
		return 0;
	ret = odb_open(&db, sd, full, ODB_RDONLY);
	if (ret)
		return ret;
	/* what was mapped, not what was stat'ed: the name may have moved on */
	if (fstat(db.fd, &st)) {
		ret = -errno;
		odb_close(&db);
		return ret;
	}
	odb_close(&f->db);
	f->db = db;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	op_img_mark_kernel(&f->name.image, db.header->is_kernel);
	if (f->is_arc)
		op_img_mark_kernel(&f->name.cg, db.header->cg_to_is_kernel);
	*reopened = true;
	return 0;
}

/* Sum f's nodes key by key into now. -ENOMEM leaves the sums partial. */
static int file_sum(struct pp_live_file *f, uint32_t gen)
{
	uint32_t nr = odb_nr_nodes(&f->db);

	for (uint32_t i = 1; i <= nr; i++) {
		const struct odb_node *n = &f->db.nodes[i];
		/* the writer adds to the count meanwhile: one aligned load */
		uint32_t v = __atomic_load_n(&n->value, __ATOMIC_RELAXED);
		struct pp_live_key *k = key_slot(f, n->key, gen);

		if (!k)
			return -ENOMEM;
		if (k->gen != gen) {
			k->gen = gen;
			k->now = 0;
		}
		k->now += v;
	}
	return 0;
}

/* A re-mapped file is the old one grown when no key counts less (or went
 * missing); otherwise it was made anew. */
static bool file_renewed(const struct pp_live_file *f, uint32_t gen)
{
	for (size_t i = 0; i < f->nr_slots; i++) {
		const struct pp_live_key *k = &f->slots[i];

		if (k->gen && k->prev && (k->gen != gen || k->now < k->prev))
			return true;
	}
	return false;
}

static void file_deltas(struct refresh *r, struct pp_live_file *f,
			bool baseline)
{
	uint32_t gen = r->s->gen;

	for (size_t i = 0; i < f->nr_slots; i++) {
		struct pp_live_key *k = &f->slots[i];

		if (!k->gen)
			continue;
		if (k->gen != gen) {	/* gone with a renewed file */
			k->prev = 0;
			continue;
		}
		if (k->now > k->prev && !baseline) {
			if (!f->is_arc)
				r->news.samples += k->now - k->prev;
			r->fn(r->ctx, f, k, k->now - k->prev);
		}
		k->prev = k->now;
	}
}

static int refresh_file(const char *rel, const char *full, void *arg)
{
	struct refresh *r = arg;
	struct pp_live_scan *s = r->s;
	struct pp_live_file *f;
	bool fresh = false, reopened;
	struct stat st;
	int ret;

	/* the walk hands a link over as a file, whatever it stands for (a
	 * sample file, a directory of them): refused, and said once */
	ret = op_sd_stat(s->sd, full, &st);
	if (ret == -ENOENT)
		return 0;	/* gone between the walk and now */
	if (!ret && S_ISLNK(st.st_mode)) {
		r->news.nr_bad++;
		say_bad(s, rel, full, -ELOOP);
		return 0;
	}
	if (strncmp(rel, "{root}/", 7) && strncmp(rel, "{kern}/", 7))
		return 0;	/* as opreport: nothing else is read */
	f = file_find(s, rel);
	if (!f) {
		struct op_sfname name;

		if (op_sfname_parse(rel, &name))
			return 0;	/* not a sample file (a growth's temporary) */
		f = file_add(s, rel, &name);
		if (!f) {
			op_sfname_release(&name);
			r->err = -ENOMEM;
			return 0;
		}
		f->found = s->gen;
		fresh = true;
	}
	ret = ret ? ret : file_map(s->sd, f, full, st, &reopened);
	if (ret == -ENOENT)
		return 0;	/* gone between the walk and now */
	f->seen = s->gen;
	if (ret) {
		r->news.nr_bad++;
		say_bad(s, rel, full, ret);
		return 0;
	}
	if (file_sum(f, s->gen)) {
		r->err = -ENOMEM;
		return 0;
	}
	if (!f->read) {
		/* first read now, whenever it was found: new unless it was
		 * there at the baseline */
		r->news.nr_new_files += f->found > 1 && fresh;
	} else if (reopened && file_renewed(f, s->gen)) {
		/* every count in it is new */
		for (size_t i = 0; i < f->nr_slots; i++)
			f->slots[i].prev = 0;
		r->news.nr_renewed++;
	} else if (reopened) {
		r->news.nr_regrown++;
	}
	/* the first refresh's counts are the past (and those of a file it
	 * found but could not read); a file that appears later holds only
	 * samples taken since the refresh before. The deltas go out once
	 * every file is read (pp_live_scan_refresh). */
	f->past = !f->read && f->found == 1;
	f->summed = s->gen;
	f->read = true;
	return 0;
}

/* Forget the files this refresh did not find. */
static int drop_gone(struct pp_live_scan *s, size_t *nr_gone)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->nr_files; i++) {
		if (s->files[i]->seen == s->gen) {
			s->files[kept++] = s->files[i];
			continue;
		}
		file_free(s->files[i]);
		(*nr_gone)++;
	}
	if (kept == s->nr_files)
		return 0;
	s->nr_files = kept;
	return index_rebuild(s, s->nr_index ? s->nr_index : 64);
}

int pp_live_scan_init(struct pp_live_scan *s, const struct op_sessdir *sd,
		      const char *current_dir, const struct op_logger *lg)
{
	memset(s, 0, sizeof(*s));
	s->sd = sd;
	s->current_dir = strdup(current_dir);
	if (!s->current_dir)
		return -ENOMEM;
	if (lg)
		s->lg = *lg;
	return 0;
}

/* The walk skips stats/, and optop reads nothing there; but a link in its
 * place is someone's doing, said once as opreport says it. */
static void stats_link(struct pp_live_scan *s)
{
	char path[PATH_MAX + 16], why[PATH_MAX + 128];
	struct stat st;
	bool link;

	snprintf(path, sizeof(path), "%s/" OP_STATS_DIR, s->current_dir);
	link = !op_sd_stat(s->sd, path, &st) && S_ISLNK(st.st_mode);
	if (link && !s->said_stats_link)
		op_log(&s->lg, OP_LOG_WARN, "%s",
		       op_sd_explain(s->sd, path, -ELOOP, why, sizeof(why)));
	s->said_stats_link = link;
}

int pp_live_scan_refresh(struct pp_live_scan *s, pp_live_delta_fn fn,
			 void *ctx, struct pp_live_news *news)
{
	struct refresh r = { .s = s, .fn = fn, .ctx = ctx };
	int ret;

	s->gen++;
	ret = op_sfname_walk(s->sd, s->current_dir, refresh_file, &r);
	if (ret == -ENOENT || ret == -ENOTDIR)
		ret = 0;	/* not yet, or no more */
	/* said once, not at every refresh: a link where samples or
	 * current should be is named */
	if (ret && ret != s->said_dir_err) {
		char why[PATH_MAX + 128];

		op_log(&s->lg, OP_LOG_WARN, "cannot read %s: %s", s->current_dir,
		       op_sd_explain(s->sd, s->current_dir, ret, why, sizeof(why)));
		r.news.nr_bad++;
	}
	s->said_dir_err = ret;
	/* the counts all read, the caller's work on them begins */
	for (size_t i = 0; i < s->nr_files; i++)
		if (s->files[i]->summed == s->gen)
			file_deltas(&r, s->files[i], s->files[i]->past);
	stats_link(s);
	if (drop_gone(s, &r.news.nr_gone))
		r.err = -ENOMEM;
	if (news)
		*news = r.news;
	return r.err;
}

void pp_live_scan_release(struct pp_live_scan *s)
{
	for (size_t i = 0; i < s->nr_files; i++)
		file_free(s->files[i]);
	for (size_t i = 0; i < s->nr_said_bad; i++)
		free(s->said_bad[i]);
	free(s->said_bad);
	free(s->files);
	free(s->index);
	free(s->current_dir);
	memset(s, 0, sizeof(*s));
}
