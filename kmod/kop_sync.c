/* Buffer sync: the one thread that turns ring records into the event
 * stream (OProfile's buffer_sync.c).
 *
 * Ordering. A thread may mmap a library on CPU 0 and take a sample in it
 * on CPU 1 a microsecond later; an exec on CPU 1 changes what the same
 * addresses mean for samples on every CPU. Syncing CPU by CPU would apply
 * CPU 1's records after CPU 0's samples and get both wrong. So a sync works
 * in two passes:
 *
 *   1. Merge: every ring's records up to a cutoff time are taken in
 *      timestamp order across all rings (each ring is already in order;
 *      the merge picks the ring whose next record is oldest). Side-band
 *      records (MMAP2, COMM exec, FORK, EXIT) change the task table as they
 *      come; a sample is resolved against the table as it is at that
 *      moment into a small per-CPU list of (tid, cookies, offset).
 *      Samples change nothing another sample's meaning depends on, so
 *      the order is kept between side-band records and everything else,
 *      not between two sample rings.
 *   2. Emit: under the event-buffer lock, CPU by CPU, the resolved samples
 *      are written as CPU_SWITCH(cpu) followed by each sample with the
 *      context changes it needs (kop_emit.c).
 *
 * The cutoff is the sync's start time on the clock the events stamp with
 * (CLOCK_MONOTONIC through use_clockid): a ring's records after it stay
 * for the next sync, so no sample is resolved before a side-band record
 * of an earlier time that another CPU has not written yet. A record
 * stamped before the cutoff but published just after it (in flight) is
 * taken by the next sync; a sample among those still finds the mapping
 * table it needs, because exec and exit retire tables rather than free
 * them, and a retired table is freed only one sync after a cutoff has
 * passed its retirement on every ring.
 *
 * This file is one sync, record by record: resolving samples, applying
 * the side-band, the merge and the emit. Its thread (the loop, the
 * requests it answers, the snapshot handshake, its life) is
 * kop_sync_thread.c, which calls into it and the flight recorder
 * (kop_flight.c); the flight recorder calls the merge here, and nothing
 * here calls either. One room past 800 lines: the resolving and the
 * side-band share the task table and the CPU blocks record by record.
 */
#include "config.h"
#include "kop_sync.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "op_grow.h"
#include "op_proto.h"

/* A record stamped this far after the sync's cutoff cannot be in flight. */
#define KOP_FUTURE_NS 1000000000ULL

/* Module-list re-reads are rate-limited to one a second of sample time. */
#define MODULE_REREAD_NS 1000000000ULL

uint64_t kop_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void bad_record(struct kop_sync *s, const struct kop_ring *r,
		       const char *what, unsigned int type)
{
	s->counts.nr_bad_records++;
	if (kop_sync_log_once(s, KOP_LOG_BAD_RECORD))
		op_log(&s->cfg->log, OP_LOG_WARN,
		       "kmod: bad ring record on cpu %d (%s, type %u), counted in nr_bad_records",
		       r->cpu, what, type);
}

/* The timestamp a record sorts by; false when it is too short to have one. */
bool kop_sync_record_time(const struct perf_event_header *h, uint64_t *time)
{
	const struct kop_sample_id *id;

	if (h->type == PERF_RECORD_SAMPLE) {
		if (h->size < sizeof(struct kop_sample_rec))
			return false;
		*time = ((const struct kop_sample_rec *)h)->time;
		return true;
	}
	if (h->size < sizeof(*h) + sizeof(*id))
		return false;
	id = (const void *)((const unsigned char *)h + h->size - sizeof(*id));
	*time = id->time;
	return true;
}

/* The task of tgid, created from PROC/tgid/maps when it is a live process
 * we have not heard of (started before us, or seen only by its samples).
 * A process that is gone is remembered as unknown so we read /proc once. */
static struct kop_task *get_task(struct kop_sync *s, pid_t tgid)
{
	struct kop_task *k = kop_task_find(&s->tasks, tgid);
	int err;

	if (k || tgid <= 0)
		return k;
	k = kop_task_new(&s->tasks, tgid);
	if (!k)
		return NULL;
	err = kop_task_read_proc(k, s->cfg->proc_root, s->dcookies, &s->cfg->log);
	if (err == -ENOENT)
		k->unknown = true;
	return k;
}

static struct kop_resolved *out_slot(struct kop_sync *s, int cpu)
{
	struct kop_cpu_out *o = &s->out[cpu];

	if (o->nr == o->cap) {
		struct kop_resolved *v = op_grow(o->v, o->nr + 1, &o->cap, 4096,
						 sizeof(*v));

		if (!v)
			return NULL;
		o->v = v;
	}
	return &o->v[o->nr++];
}

/* What a sample resolved to, the tally's key: all of it words, which the
 * compiler keeps in registers or spills and reloads whole. Fields of other
 * widths, written one by one and read back at once, are read wider than
 * they were written (the compiler merges compares), and every such read
 * stalls: store forwarding fails. */
struct tally_key {
	uint64_t offset, cookie, app;
	uint64_t ids;	/* tid and tgid, laid out as in a kop_resolved */
	uint64_t kind;	/* event, kernel and anon: kind_word() */
	uint64_t chain;	/* its callers' chain_hash(); 0 without */
};

static inline uint64_t pair_ids(int32_t tid, int32_t tgid)
{
	int32_t pair[2] = { tid, tgid };
	uint64_t v;

	memcpy(&v, pair, sizeof(v));
	return v;
}

static inline uint64_t resolved_ids(const struct kop_resolved *t)
{
	uint64_t v;

	_Static_assert(offsetof(struct kop_resolved, tgid) ==
		       offsetof(struct kop_resolved, tid) + sizeof(int32_t),
		       "tid and tgid side by side");
	memcpy(&v, &t->tid, sizeof(v));
	return v;
}

/* The word from a kop_resolved's event on: event, kernel, module_loaded,
 * anon and a padding byte. A tallied sample has no module_loaded, and the
 * padding is nobody's: both are zero in a kind word. */
struct resolved_kind {
	uint32_t event;
	uint8_t kernel, module_loaded, anon, pad;
};

_Static_assert(offsetof(struct kop_resolved, kernel) ==
	       offsetof(struct kop_resolved, event) + 4 &&
	       offsetof(struct kop_resolved, module_loaded) ==
	       offsetof(struct kop_resolved, event) + 5 &&
	       offsetof(struct kop_resolved, anon) ==
	       offsetof(struct kop_resolved, event) + 6 &&
	       offsetof(struct kop_resolved, nr_frames) >=
	       offsetof(struct kop_resolved, event) + 8,
	       "a kop_resolved's event, kernel, module_loaded and anon in one word");

static inline uint64_t kind_word(uint32_t event, bool kernel, bool anon)
{
	struct resolved_kind w = { event, kernel, 0, anon, 0 };
	uint64_t v;

	memcpy(&v, &w, sizeof(v));
	return v;
}

static inline uint64_t resolved_kind(const struct kop_resolved *t)
{
	struct resolved_kind w;
	uint64_t v;

	memcpy(&w, &t->event, sizeof(w));
	w.module_loaded = 0;
	w.pad = 0;
	memcpy(&v, &w, sizeof(v));
	return v;
}

/* kind rotated, not shifted: its flags, above the event, reach the hash */
static inline uint64_t tally_hash(const struct tally_key k)
{
	uint64_t h = k.offset ^ k.cookie * 0x9e3779b97f4a7c15ULL ^ k.ids ^
		     (k.kind << 40 | k.kind >> 24) ^ k.chain;

	return h * 0xff51afd7ed558ccdULL;
}

/* The callers a sample resolved to, as one word for the tally's key;
 * never 0, the key of no callers. */
static uint64_t chain_hash(const struct kop_frame *f, uint32_t nr)
{
	uint64_t h = nr;

	for (uint32_t i = 0; i < nr; i++)
		h = (h ^ f[i].offset ^ f[i].cookie * 0x9e3779b97f4a7c15ULL ^
		     f[i].kernel) * 0xff51afd7ed558ccdULL;
	return h | 1;
}

static bool same_frames(const struct kop_frame *a, const struct kop_frame *b,
			uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++)
		if (a[i].offset != b[i].offset || a[i].cookie != b[i].cookie ||
		    a[i].kernel != b[i].kernel)
			return false;
	return true;
}

/* A sample that resolved to k, with the callers at chain (none when
 * k.chain is 0; they are o's last frames), is met again in o's block: its
 * twin counts it, true. Otherwise *free_at is the tally slot to remember
 * it in once it has its place in the list (KOP_TALLY_SLOTS when the probe
 * found none) and *tag what that slot keeps beside the place. */
static inline bool tally(struct kop_cpu_out *o, const struct tally_key k,
			 const struct kop_chain_pos *chain,
			 uint32_t *free_at, uint64_t *tag)
{
	uint64_t h = tally_hash(k);
	uint32_t i = (uint32_t)(h >> (64 - KOP_TALLY_BITS));

	*tag = h & 0xffffffff00000000ULL;
	*free_at = KOP_TALLY_SLOTS;
	for (unsigned int p = 0; p < KOP_TALLY_PROBES; p++) {
		uint64_t slot = o->tally[i];
		struct kop_resolved *t;

		if (!slot) {
			if (o->nr_tally < KOP_TALLY_SLOTS / 2)
				*free_at = i;
			return false;
		}
		if ((slot & 0xffffffff00000000ULL) != *tag) {
			i = (i + 1) & (KOP_TALLY_SLOTS - 1);
			continue;
		}
		t = &o->v[(uint32_t)slot - 1];
		if (t->offset == k.offset && t->cookie == k.cookie &&
		    resolved_ids(t) == k.ids && t->app_cookie == k.app &&
		    resolved_kind(t) == k.kind && t->count < UINT32_MAX &&
		    t->nr_frames == chain->nr_frames &&
		    (!k.chain || same_frames(&o->frames[t->first_frame],
					     &o->frames[chain->first_frame],
					     chain->nr_frames))) {
			t->count++;
			return true;
		}
		i = (i + 1) & (KOP_TALLY_SLOTS - 1);
	}
	return false;
}

/* The callers in a sample record's chain (PERF_SAMPLE_CALLCHAIN after the
 * fixed fields: nr, then nr entries, PERF_CONTEXT_* markers among the pcs),
 * resolved into o's frames against task k as the sample itself was (taken
 * in the kernel or not); *e gets where they are. The
 * first pc is the sampled one and is skipped. A user frame in no mapping
 * of k ends the chain: what a frame-pointer walk finds past such a frame
 * is rarely a return address. */
static void resolve_chain(struct kop_sync *s, struct kop_cpu_out *o,
			  struct kop_task *k, const struct perf_event_header *h,
			  bool kernel, struct kop_chain_pos *e)
{
	const uint64_t *chain = (const void *)((const struct kop_sample_rec *)h + 1);
	size_t room = (h->size - sizeof(struct kop_sample_rec)) / sizeof(uint64_t);
	uint64_t nr, nr_pcs = 0;
	bool skip = true, other = false;

	e->first_frame = (uint32_t)o->nr_frames;
	if (room < 1 || (nr = chain[0]) > room - 1) {
		s->counts.nr_bt_aborted++;
		return;
	}
	for (uint64_t i = 1; i <= nr; i++) {
		uint64_t pc = chain[i];
		struct kop_frame *f;

		if (pc >= PERF_CONTEXT_MAX) {
			/* a hypervisor or guest part follows: not ours */
			other = pc != PERF_CONTEXT_KERNEL && pc != PERF_CONTEXT_USER;
			kernel = pc == PERF_CONTEXT_KERNEL;
			continue;
		}
		nr_pcs++;
		if (skip) {
			skip = false;
			continue;	/* the sampled pc */
		}
		if (other || e->nr_frames == s->cfg->callgraph_depth)
			continue;
		if (kernel) {
			if (!(f = kop_frame_slot(o))) {
				s->counts.nr_bt_aborted++;	/* no memory */
				break;
			}
			f->cookie = OP_NO_COOKIE;
			f->offset = pc;
			f->kernel = 1;
		} else {
			const struct kop_map *m = k ? kop_task_lookup(k, pc) : NULL;

			if (!m) {
				s->counts.nr_bt_lost_no_mapping++;
				break;
			}
			if (!(f = kop_frame_slot(o))) {
				s->counts.nr_bt_aborted++;
				break;
			}
			f->cookie = m->cookie;
			f->offset = pc - m->start + (m->pgoff & ~KOP_MAP_ANON);
			f->kernel = 0;
		}
		e->nr_frames++;
	}
	/* the kernel keeps depth + 1 pcs, the sampled one included */
	if (nr_pcs > s->cfg->callgraph_depth)
		s->counts.nr_bt_truncated++;
}

/* Is pc in the kernel's text or a module we know? If not, the module list
 * is read again (at most every MODULE_REREAD_NS): true when it changed, and
 * the sample must say MODULE_LOADED. */
static bool kernel_ranges(struct kop_sync *s, uint64_t pc, uint64_t time)
{
	int changed;

	if (!s->have_kmap || op_kernel_map_in_text(&s->kmap, pc) ||
	    op_kernel_map_find_module(&s->kmap, pc))
		return false;
	/* either way: a flight recorder's snapshot goes back in time from
	 * one ring to the next, and from one snapshot to the next */
	if (s->last_module_reread &&
	    (time > s->last_module_reread ? time - s->last_module_reread :
					    s->last_module_reread - time) < MODULE_REREAD_NS)
		return false;
	s->last_module_reread = time ? time : 1;
	changed = op_kernel_map_reread_modules(&s->kmap, s->cfg->proc_root,
					       &s->cfg->log);
	if (changed <= 0)
		return false;
	s->counts.nr_module_loads++;
	return true;
}

static void do_sample(struct kop_sync *s, const struct kop_ring *r,
		      const struct perf_event_header *h)
{
	const struct kop_sample_rec *rec = (const void *)h;
	unsigned int mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool kernel = mode != PERF_RECORD_MISC_USER &&
		      mode != PERF_RECORD_MISC_GUEST_USER;
	pid_t tgid = (pid_t)rec->pid, tid;
	struct kop_task *k, *live;
	uint64_t offset = rec->ip, cookie = OP_NO_COOKIE, app;
	bool anon = false;
	struct kop_chain_pos frames = { 0, 0 };
	struct kop_resolved *slot;
	struct kop_cpu_out *o = &s->out[r->cpu];
	uint32_t free_at = KOP_TALLY_SLOTS;
	uint64_t tag = 0;
	bool module = false;

	if (r->sideband) {
		bad_record(s, r, "sample in the side-band ring", h->type);
		return;
	}
	if (rec->ip == OP_ESCAPE_CODE) {
		bad_record(s, r, "sample pc is the escape code", h->type);
		return;
	}
	if (s->sample_cgroup && h->size < sizeof(*rec) + sizeof(uint64_t)) {
		bad_record(s, r, "sample too short for its cgroup id", h->type);
		return;
	}
	/* The kernel reports a task whose pid is already released (the very
	 * end of exit) as pid or tid -1. Its last samples are kernel code with
	 * no process left to charge: they go to the kernel's own context
	 * (tgid 0), and an exiting thread of a live process to that process. */
	if (rec->pid == UINT32_MAX)
		tgid = 0;
	if (s->hot_task && s->hot_tgid == tgid) {
		k = s->hot_task;
	} else {
		k = kop_task_find(&s->tasks, tgid);
		s->hot_task = k;
		s->hot_tgid = tgid;
	}
	live = k;
	if ((!k || k->unknown || k->since > rec->time) && s->tasks.nr_retired) {
		/* taken before an exec or exit we have already applied; or
		 * in the kernel after the exit (its last steps, which the
		 * EXIT record precedes): the application it exited as. An
		 * unknown entry is a guess at /proc made for a sample after
		 * the exit that another CPU's ring gave first: the tables
		 * retired are better for every sample before it */
		struct kop_task *old = kop_task_retired_at(&s->tasks, tgid,
							   rec->time);

		if (!old && kernel && (!k || k->unknown))
			old = kop_task_retired_last(&s->tasks, tgid, rec->time);
		if (old)
			k = old;
	}
	if (!k) {
		k = live = get_task(s, tgid);
		s->hot_task = NULL;
	}
	if (k && k->unknown)
		k = NULL;
	if (s->sample_cgroup && k && k == live && tgid && s->roots) {
		/* the last field: its cgroup's id; a process's samples
		 * change it rarely (kop_cgroup.c) */
		uint64_t id;

		memcpy(&id, (const unsigned char *)h + h->size - sizeof(id), sizeof(id));
		if (id != k->cgroup_id && rec->time >= k->cgroup_time)
			kop_root_task_sampled(s->roots, k, id, rec->time);
	}
	tid = rec->tid == UINT32_MAX || !tgid ? tgid : (int32_t)rec->tid;
	if (kernel) {
		module = kernel_ranges(s, rec->ip, rec->time);
	} else {
		const struct kop_map *m = k ? kop_task_lookup(k, rec->ip) : NULL;

		if (m) {
			cookie = m->cookie;
			offset = rec->ip - m->start + (m->pgoff & ~KOP_MAP_ANON);
			anon = !!(m->pgoff & KOP_MAP_ANON);
		} else if (k) {
			/* in no mapping we know: the process's anonymous image */
			if (k->anon_cookie == OP_NO_COOKIE)
				k->anon_cookie = kop_dcookie_anon(s->dcookies,
								  "anon", tgid,
								  0, UINT64_MAX);
			cookie = k->anon_cookie;
			anon = true;
		}
		if (cookie == OP_NO_COOKIE) {
			s->counts.nr_lost_no_task++;
			if (kop_sync_log_once(s, KOP_LOG_NO_TASK))
				op_log(&s->cfg->log, OP_LOG_INFO,
				       "kmod: user sample of unknown process %d, counted in nr_lost_no_task",
				       (int)tgid);
			return;
		}
	}
	app = k ? k->app_cookie : OP_NO_COOKIE;
	if (s->cfg->callgraph_depth)
		resolve_chain(s, o, k, h, kernel, &frames);
	if (s->unwind)
		kop_sync_unwind(s, o, k, h, kernel, &frames);
	if (module) {
		/* what follows is resolved against the new module set: no
		 * sample before it may count one after */
		kop_tally_clear(o);
	} else if (tally(o, (struct tally_key){ offset, cookie, app,
					       pair_ids(tid, tgid),
					       kind_word(r->event, kernel, anon),
					       frames.nr_frames ?
					       chain_hash(&o->frames[frames.first_frame],
							  frames.nr_frames) : 0 },
			 &frames, &free_at, &tag)) {
		/* its twin's callers stand for these */
		o->nr_frames -= frames.nr_frames;
		return;
	}
	slot = out_slot(s, r->cpu);
	if (!slot) {
		s->counts.nr_lost_evbuf++;
		o->nr_frames -= frames.nr_frames;
		if (kop_sync_log_once(s, KOP_LOG_NOMEM))
			op_log(&s->cfg->log, OP_LOG_ERR,
			       "kmod: out of memory resolving samples, counted in nr_lost_evbuf");
		return;
	}
	/* written in place: a copy of a struct just built on the stack is
	 * read back wider than it was written, and stalls */
	*slot = (struct kop_resolved){
		.app_cookie = app, .cookie = cookie, .offset = offset,
		.tid = tid, .tgid = tgid, .event = r->event,
		.kernel = kernel, .module_loaded = module, .anon = anon,
		.nr_frames = frames.nr_frames, .first_frame = frames.first_frame,
		.count = 1,
	};
	if (free_at < KOP_TALLY_SLOTS && o->nr < UINT32_MAX) {
		o->tally[free_at] = tag | (uint32_t)o->nr;	/* its index + 1 */
		o->nr_tally++;
	}
}

static void do_mmap2(struct kop_sync *s, const struct kop_ring *r,
		     const struct perf_event_header *h)
{
	/* header, pid tid, addr len pgoff, maj min ino ino_gen | build-id,
	 * prot flags, filename, sample_id */
	const unsigned char *p = (const unsigned char *)(h + 1);
	size_t fixed = sizeof(*h) + 64, name_max;
	uint32_t pid, maj, min, prot;
	uint64_t addr, len, pgoff, ino, cookie;
	const uint8_t *bid = NULL;
	uint8_t bid_size = 0;
	const char *name;
	struct kop_task *k;
	bool anon;

	if (h->size < fixed + sizeof(struct kop_sample_id) + 8) {
		bad_record(s, r, "short MMAP2", h->type);
		return;
	}
	name_max = h->size - fixed - sizeof(struct kop_sample_id);
	name = (const char *)h + fixed;
	if (!memchr(name, '\0', name_max)) {
		bad_record(s, r, "MMAP2 name not terminated", h->type);
		return;
	}
	memcpy(&pid, p, 4);
	memcpy(&addr, p + 8, 8);
	memcpy(&len, p + 16, 8);
	memcpy(&pgoff, p + 24, 8);
	memcpy(&maj, p + 32, 4);
	memcpy(&min, p + 36, 4);
	memcpy(&ino, p + 40, 8);
	memcpy(&prot, p + 56, 4);
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		bid_size = p[32];
		bid = p + 36;
		if (bid_size > 20)
			bid_size = 20;
		maj = min = 0;
		ino = 0;
	}
	if (!(prot & 0x4 /* PROT_EXEC */) || !len || addr + len < addr)
		return;		/* data mappings take no samples */
	k = get_task(s, (pid_t)pid);
	if (!k)
		goto nomem;
	if (k->unknown) {
		/* gone from /proc already, but a record names it: it exists,
		 * and its first file mapping is as good a guess at its
		 * executable as we will get */
		k->unknown = false;
		k->app_pending = true;
	}
	anon = kop_name_is_anon(name) || (!bid_size && !ino);
	if (anon) {
		cookie = kop_dcookie_anon(s->dcookies, name[0] ? name : "anon",
					  (pid_t)pid, addr, addr + len);
		pgoff = KOP_MAP_ANON;
	} else if (s->roots && kop_root_task_foreign(s->roots, k)) {
		/* a container's path: opened through its root (kop_root.c) */
		cookie = kop_root_cookie(s->roots, s->dcookies, k, name,
					 addr, addr + len, makedev(maj, min),
					 (ino_t)ino, bid, bid_size);
		pgoff &= ~KOP_MAP_ANON;
	} else {
		/* the same file as another root's: one image */
		cookie = s->roots ? kop_root_host_cookie(s->roots, k, makedev(maj, min),
							 (ino_t)ino, bid, bid_size) :
				    OP_NO_COOKIE;
		if (cookie == OP_NO_COOKIE)
			cookie = kop_dcookie_file(s->dcookies, name,
						  makedev(maj, min), (ino_t)ino,
						  bid, bid_size);
		pgoff &= ~KOP_MAP_ANON;
	}
	if (cookie == OP_NO_COOKIE || kop_task_map(k, addr, addr + len, pgoff,
						   cookie))
		goto nomem;
	if (k->app_pending && anon && kop_name_is_memfd(name)) {
		/* the program itself runs from a memfd: the application is
		 * that name, its samples stay in the anonymous region */
		k->app_cookie = kop_dcookie_file(s->dcookies, name,
						 makedev(maj, min), (ino_t)ino,
						 bid, bid_size);
		k->app_pending = k->app_cookie == OP_NO_COOKIE;
	} else if (!anon && k->app_pending) {
		k->app_cookie = cookie;
		k->app_pending = false;
	}
	return;
nomem:
	if (kop_sync_log_once(s, KOP_LOG_NOMEM))
		op_log(&s->cfg->log, OP_LOG_ERR,
		       "kmod: out of memory recording a mapping of %d",
		       (int)pid);
}

static void do_comm(struct kop_sync *s, const struct kop_ring *r,
		    const struct perf_event_header *h, uint64_t time)
{
	const uint32_t *p = (const void *)(h + 1);
	struct kop_task *k;

	if (h->size < sizeof(*h) + 8 + 8 + sizeof(struct kop_sample_id)) {
		bad_record(s, r, "short COMM", h->type);
		return;
	}
	if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC))
		return;		/* a rename (prctl): nothing maps differently */
	/* exec: the old image's table is retired as of now */
	k = kop_task_find(&s->tasks, (pid_t)p[0]);
	if (k && !k->unknown && kop_task_retire_maps(&s->tasks, k, time))
		return;
	if (!k)
		k = kop_task_new(&s->tasks, (pid_t)p[0]);
	if (!k)
		return;
	k->unknown = false;
	k->since = time;
	k->app_cookie = OP_NO_COOKIE;
	k->app_pending = true;
	k->root = KOP_ROOT_UNKNOWN;	/* unshare(2) then exec: a new view */
	k->cgroup = 0;
	k->cgroup_id = 0;
	k->cgroup_lines = 0;
	k->cgroup_rec = 0;
	k->nspid = 0;
	k->cgroup_time = time;
	k->pidns = false;
}

static void do_fork_exit(struct kop_sync *s, const struct kop_ring *r,
			 const struct perf_event_header *h, uint64_t time)
{
	/* pid, ppid, tid, ptid, time */
	const uint32_t *p = (const void *)(h + 1);
	pid_t pid, ppid, tid;
	struct kop_task *k, *parent;

	if (h->size < sizeof(*h) + 24 + sizeof(struct kop_sample_id)) {
		bad_record(s, r, "short FORK/EXIT", h->type);
		return;
	}
	pid = (pid_t)p[0];
	ppid = (pid_t)p[1];
	tid = (pid_t)p[2];
	if (pid != tid) {
		/* a thread: samples carry the tgid; in another PID
		 * namespace, its own id there is read for the reports */
		if (h->type == PERF_RECORD_FORK && s->roots &&
		    (k = kop_task_find(&s->tasks, pid)) && k->pidns)
			kop_root_task_thread(s->roots, k, tid);
		return;
	}
	k = kop_task_find(&s->tasks, pid);
	if (h->type == PERF_RECORD_EXIT) {
		if (k)
			kop_task_exit(&s->tasks, k, time);
		return;
	}
	if (pid == ppid)
		return;
	if (k)		/* pid reused without an exit we saw */
		kop_task_exit(&s->tasks, k, time);
	parent = kop_task_find(&s->tasks, ppid);
	if (!parent || parent->unknown)
		return;		/* read lazily from /proc at its first sample */
	k = kop_task_new(&s->tasks, pid);
	if (!k || kop_task_copy_maps(k, parent)) {
		if (kop_sync_log_once(s, KOP_LOG_NOMEM))
			op_log(&s->cfg->log, OP_LOG_ERR,
			       "kmod: out of memory copying the mappings of %d",
			       (int)ppid);
		return;
	}
	k->since = time;
	if (s->roots)
		kop_root_task_forked(s->roots, k);	/* the parent's cgroup */
}

/* A cgroup made: id, then its path in its hierarchy (v2's or a v1's). */
static void do_cgroup(struct kop_sync *s, const struct kop_ring *r,
		      const struct perf_event_header *h)
{
	size_t fixed = sizeof(*h) + 8, name_max;
	const char *path = (const char *)h + fixed;
	uint64_t id;

	if (h->size < fixed + sizeof(struct kop_sample_id) + 8) {
		bad_record(s, r, "short CGROUP", h->type);
		return;
	}
	name_max = h->size - fixed - sizeof(struct kop_sample_id);
	if (!memchr(path, '\0', name_max)) {
		bad_record(s, r, "CGROUP path not terminated", h->type);
		return;
	}
	memcpy(&id, h + 1, 8);
	if (s->roots)
		kop_cgroups_note_made(&s->roots->cg, id, path);
}

/* Is r a side-band ring? A task-table record anywhere else is counted as
 * bad: the merge orders only the side-band rings' records against
 * samples, and the kernel never writes these elsewhere. */
static bool in_sideband(struct kop_sync *s, const struct kop_ring *r,
			const struct perf_event_header *h)
{
	if (r->sideband)
		return true;
	bad_record(s, r, "side-band record in a sample ring", h->type);
	return false;
}

void kop_sync_record(struct kop_sync *s, struct kop_ring *r,
		     const struct perf_event_header *h, uint64_t time)
{
	const uint64_t *p = (const void *)(h + 1);

	if (h->type != PERF_RECORD_SAMPLE)
		s->hot_task = NULL;	/* the table may change under it */
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		do_sample(s, r, h);
		break;
	case PERF_RECORD_MMAP2:
		if (in_sideband(s, r, h))
			do_mmap2(s, r, h);
		break;
	case PERF_RECORD_COMM:
		if (in_sideband(s, r, h))
			do_comm(s, r, h, time);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (in_sideband(s, r, h))
			do_fork_exit(s, r, h, time);
		break;
	case PERF_RECORD_LOST:
		/* id, lost */
		if (h->size < sizeof(*h) + 16 + sizeof(struct kop_sample_id)) {
			bad_record(s, r, "short LOST", h->type);
			break;
		}
		if (r->sideband) {
			/* mmaps, execs, exits: no sample was lost */
			s->counts.nr_lost_sideband += p[1];
			if (kop_sync_log_once(s, KOP_LOG_SIDEBAND_LOST))
				op_log(&s->cfg->log, OP_LOG_WARN,
				       "kmod: cpu %d side-band ring lost %" PRIu64 " records (mmaps, execs, exits): samples after them may be filed under a stale image; counted in nr_lost_sideband",
				       r->cpu, p[1]);
			break;
		}
		s->counts.nr_lost_ring += p[1];
		s->lost_cpu[r->cpu] += p[1];
		s->out[r->cpu].nr_lost += p[1];
		if (kop_sync_log_once(s, KOP_LOG_RING_LOST))
			op_log(&s->cfg->log, OP_LOG_WARN,
			       "kmod: cpu %d ring lost %" PRIu64 " records (ring too small for the rate?), counted in nr_lost_ring",
			       r->cpu, p[1]);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size < sizeof(*h) + 8 + sizeof(struct kop_sample_id)) {
			bad_record(s, r, "short LOST_SAMPLES", h->type);
			break;
		}
		s->counts.nr_lost_ring += p[0];
		s->lost_cpu[r->cpu] += p[0];
		s->out[r->cpu].nr_lost += p[0];
		break;
	case PERF_RECORD_CGROUP:
		if (in_sideband(s, r, h))
			do_cgroup(s, r, h);
		break;
	case PERF_RECORD_THROTTLE:
		/* each event has its own ring: the ring names the event */
		if (!r->sideband)
			s->counts.throttled |= kop_event_bit(r->event);
		break;
	case PERF_RECORD_MMAP:		/* we ask for MMAP2 */
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_READ:
	case PERF_RECORD_AUX:
	case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
	case PERF_RECORD_NAMESPACES:
	case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_BPF_EVENT:
	case PERF_RECORD_TEXT_POKE:
		/* context switches: task changes show in the samples' tids */
		break;
	default:
		s->counts.nr_bad_records++;
		if (kop_sync_log_once(s, KOP_LOG_UNKNOWN_TYPE))
			op_log(&s->cfg->log, OP_LOG_WARN,
			       "kmod: unknown ring record type %u on cpu %d skipped, counted in nr_bad_records",
			       h->type, r->cpu);
		break;
	}
}

/* Next record of r not after cutoff, its time in *time; NULL if none. A
 * corrupt ring is counted and skipped to its head: the kernel writes whole
 * records, so there is nothing to resynchronise on inside it. */
static inline const struct perf_event_header *next_record(struct kop_sync *s,
						   struct kop_ring *r,
						   uint64_t *time)
{
	bool bad;
	const struct perf_event_header *h = kop_ring_peek_fast(r, &bad);

	if (bad) {
		bad_record(s, r, "impossible header", 0);
		kop_ring_skip_all(r);
		return NULL;
	}
	if (!h)
		return NULL;
	if (!kop_sync_record_time(h, time)) {
		/* too short for its trailer: count, skip, sort it first */
		*time = 0;
	} else if (*time > s->cutoff &&
		   *time - s->cutoff > KOP_FUTURE_NS) {
		/* from the future: a corrupt stamp, which would hold the
		 * ring back for ever; take it now */
		if (kop_sync_log_once(s, KOP_LOG_FUTURE))
			op_log(&s->cfg->log, OP_LOG_WARN,
			       "kmod: cpu %d ring record stamped %" PRIu64 " ns after the sync; taken now",
			       r->cpu, *time - s->cutoff);
		*time = s->cutoff;
	}
	return h;
}

void kop_sync_merge(struct kop_sync *s, uint64_t cutoff)
{
	size_t n = s->nr_rings;
	const struct perf_event_header **hs = s->merge_h;
	uint64_t *ts = s->merge_t;

	s->hot_task = NULL;
	s->cutoff = cutoff;
	for (size_t i = 0; i < n; i++) {
		kop_ring_snapshot(&s->rings[i]);
		hs[i] = next_record(s, &s->rings[i], &ts[i]);
	}
	for (;;) {
		size_t best = n;
		uint64_t bt = UINT64_MAX, limit = cutoff;
		const struct perf_event_header *h;
		struct kop_ring *r;

		for (size_t i = 0; i < n; i++)
			if (hs[i] && ts[i] <= cutoff && (best == n || ts[i] < bt)) {
				best = i;
				bt = ts[i];
			}
		if (best == n)
			break;
		/* take a run from the oldest ring: every record of it up to
		 * the next ring's oldest time comes before anything else.
		 * Only side-band records change what a sample means, so a
		 * sample ring's run goes on past other sample rings' records:
		 * the CPUs sample at the same rate and nearly in step, and a
		 * limit set by them would make every run one record long. */
		r = &s->rings[best];
		for (size_t i = 0; i < n; i++)
			if (i != best && hs[i] && ts[i] < limit &&
			    (r->sideband || s->rings[i].sideband))
				limit = ts[i];
		h = hs[best];
		do {
			if (h->type == PERF_RECORD_SAMPLE
			    ? h->size < sizeof(struct kop_sample_rec)
			    : h->size < sizeof(*h) + sizeof(struct kop_sample_id) &&
			      h->type <= PERF_RECORD_TEXT_POKE)
				bad_record(s, r, "record too short", h->type);
			else
				kop_sync_record(s, r, h, bt);
			kop_ring_consume(r, h->size);
			h = next_record(s, r, &bt);
		} while (h && bt <= limit);
		hs[best] = h;
		ts[best] = bt;
	}
	for (size_t i = 0; i < n; i++)
		kop_ring_publish_tail(&s->rings[i]);
}

static void publish_stats(struct kop_sync *s)
{
	size_t bytes = (size_t)s->nr_cpus * sizeof(uint64_t);

	pthread_mutex_lock(&s->stats_lock);
	s->pub = s->counts;
	memcpy(s->pub_lost_cpu, s->lost_cpu, bytes);
	memcpy(s->pub_samples_cpu, s->samples_cpu, bytes);
	pthread_mutex_unlock(&s->stats_lock);
}

void kop_sync_finish(struct kop_sync *s, uint64_t cutoff)
{
	uint64_t window = s->cfg->flight_window_ns;

	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		pthread_mutex_lock(&s->evbuf->lock);
		kop_emit_cpu(s, cpu);
		pthread_mutex_unlock(&s->evbuf->lock);
	}
	pthread_mutex_lock(&s->evbuf->lock);
	kop_evbuf_sync_end(s->evbuf);
	pthread_mutex_unlock(&s->evbuf->lock);
	/* every ring is consumed up to the previous cutoff and this one:
	 * tables retired before the previous one can have nothing left. A
	 * flight recorder's samples wait in its rings for a window: its
	 * tables stay until the window has passed them */
	if (!window)
		kop_tasks_free_retired(&s->tasks, s->prev_cutoff);
	else if (cutoff > window)
		kop_tasks_free_retired(&s->tasks, cutoff - window);
	s->prev_cutoff = cutoff;
	publish_stats(s);
}

void kop_sync_once(struct kop_sync *s, uint64_t cutoff)
{
	kop_sync_merge(s, cutoff);
	kop_sync_finish(s, cutoff);
}
