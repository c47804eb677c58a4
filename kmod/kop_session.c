/* The session: what kop.h promises the daemon, built from the stages.
 * It owns the events and their rings (kop_session_rings.c opens them),
 * starts and stops the sync thread, and publishes the counters. kop_session_* run on the daemon's control
 * thread; kop_evbuf_read on its reader; lookups and stats anywhere. */
#include "config.h"
#include "kop_session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kop_perf.h"
#include "kop_unwind.h"
#include "op_config.h"
#include "op_proto.h"

#define DEFAULT_SYNC_MS 250

/* Samples a second on one CPU that an event can deliver: a clock's period
 * is in ns; other events count at most a few per ns (cycles at 4 GHz). */
static double event_rate(const struct perf_event_attr *a)
{
	bool clock = a->type == PERF_TYPE_SOFTWARE &&
		     (a->config == PERF_COUNT_SW_CPU_CLOCK ||
		      a->config == PERF_COUNT_SW_TASK_CLOCK);

	if (a->freq)
		return (double)a->sample_freq;
	if (!a->sample_period)
		return 0;
	return (clock ? 1e9 : 4e9) / (double)a->sample_period;
}

/* The ring that holds OP_AUTO_CPU_BUFFER_MS of the busiest event's samples
 * (each event has its own), chains included: a power of two between
 * OP_DEFAULT_CPU_BUFFER_BYTES and OP_AUTO_CPU_BUFFER_MAX. */
static size_t auto_ring_bytes(const struct kop_config *cfg)
{
	double rate = 0, need;
	size_t ring = OP_DEFAULT_CPU_BUFFER_BYTES;

	for (unsigned int i = 0; i < cfg->nr_events; i++) {
		double r = event_rate(&cfg->events[i]);

		if (r > rate)
			rate = r;
	}
	need = rate * (double)op_flight_record_bytes(cfg->callgraph_depth, cfg->unwind_stack_bytes) *
	       (double)OP_AUTO_CPU_BUFFER_MS / 1000.0;
	while (ring < OP_AUTO_CPU_BUFFER_MAX && (double)ring < need)
		ring *= 2;
	return ring;
}

int kop_session_new(const struct kop_config *cfg, struct kop_session **out)
{
	struct kop_session *s;
	char msg[256];
	int err = -ENOMEM;

	*out = NULL;
	if (!cfg || !cfg->events || !cfg->nr_events)
		return -EINVAL;
	if (cfg->callgraph_depth > KOP_MAX_CALLGRAPH_DEPTH) {
		op_log(&cfg->log, OP_LOG_ERR,
		       "kmod: call-chain depth %u is more than the %u frames a sample record holds",
		       cfg->callgraph_depth, KOP_MAX_CALLGRAPH_DEPTH);
		return -EINVAL;
	}
	if (cfg->unwind_stack_bytes > KOP_MAX_UNWIND_STACK ||
	    cfg->unwind_stack_bytes % 8) {
		op_log(&cfg->log, OP_LOG_ERR,
		       "kmod: a user stack copy of %u bytes: the kernel takes a multiple of 8, at most %u",
		       cfg->unwind_stack_bytes, KOP_MAX_UNWIND_STACK);
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->cfg = *cfg;
	/* the defaults and the check are libop's, shared with opcontrol
	 * and oprofiled; the event buffer's floor is kop_evbuf_init()'s */
	if (!s->cfg.cpu_buffer_size) {
		s->cfg.cpu_buffer_size = auto_ring_bytes(cfg);
		op_log(&cfg->log, OP_LOG_INFO, "kmod: %zu KiB rings per CPU "
		       "(%lu ms of samples at the events' rates)",
		       s->cfg.cpu_buffer_size / 1024, OP_AUTO_CPU_BUFFER_MS);
	}
	if (!s->cfg.evbuf_words) {
		s->cfg.evbuf_words = OP_DEFAULT_BUFFER_WORDS;
		if (cfg->callgraph_depth) {
			s->cfg.evbuf_words *= OP_CHAIN_BUFFER_FACTOR;
			op_log(&cfg->log, OP_LOG_INFO, "kmod: an event buffer of %zu "
			       "words for samples with call chains",
			       s->cfg.evbuf_words);
		}
	}
	if (op_cpu_buffer_check(s->cfg.cpu_buffer_size, msg, sizeof(msg))) {
		op_log(&cfg->log, OP_LOG_ERR, "kmod: %s", msg);
		free(s);
		return -EINVAL;
	}
	if (!s->cfg.sync_interval_ms)
		s->cfg.sync_interval_ms = DEFAULT_SYNC_MS;
	s->ops = cfg->ops ? cfg->ops : &kop_perf_ops;
	s->ops_ctx = cfg->ops_ctx;
	s->proc_root = strdup(cfg->proc_root ? cfg->proc_root : "/proc");
	s->events = malloc(cfg->nr_events * sizeof(*s->events));
	if (!s->proc_root || !s->events)
		goto err_session;
	if (cfg->keep_dir) {
		s->keep_dir = strdup(cfg->keep_dir);
		if (!s->keep_dir)
			goto err_session;
		s->cfg.keep_dir = s->keep_dir;
	}
	memcpy(s->events, cfg->events, cfg->nr_events * sizeof(*s->events));
	s->cfg.events = s->events;
	s->cfg.proc_root = s->proc_root;
	s->nr_cpus = s->ops->nr_cpus(s->ops_ctx);
	if (s->nr_cpus <= 0) {
		err = -EINVAL;
		goto err_session;
	}
	if (cfg->cpus) {
		s->cpus = *cfg->cpus;
		s->cfg.cpus = &s->cpus;
		for (int cpu = s->nr_cpus; cpu < CPU_SETSIZE; cpu++) {
			if (CPU_ISSET(cpu, &s->cpus)) {
				op_log(&cfg->log, OP_LOG_ERR,
				       "kmod: cpu %d was chosen, but this machine has cpus 0 to %d",
				       cpu, s->nr_cpus - 1);
				err = -EINVAL;
				goto err_session;
			}
		}
	}
	err = kop_dcookies_init(&s->dcookies);
	if (err)
		goto err_session;
	err = kop_evbuf_init(&s->evbuf, s->cfg.evbuf_words,
			     s->cfg.evbuf_watershed);
	if (err)
		goto err_dcookies;
	err = kop_sync_init(&s->sync, &s->cfg, s->nr_cpus, &s->dcookies,
			    &s->evbuf);
	if (err)
		goto err_sync;
	*out = s;
	return 0;

err_sync:
	kop_sync_release(&s->sync);
	kop_evbuf_release(&s->evbuf);
err_dcookies:
	kop_dcookies_release(&s->dcookies);
err_session:
	free(s->events);
	free(s->proc_root);
	free(s->keep_dir);
	free(s);
	return err;
}


/* Another root's files (cfg.keep_dir): the keeper and what the sync
 * thread knows of them. Without a store to name them after, nothing. */
static int keep_start(struct kop_session *s)
{
	int err;

	if (!s->cfg.keep_dir || s->sync.roots)
		return 0;
	err = kop_keeper_start(&s->keeper, s->cfg.sd, s->cfg.keep_dir, s->cfg.keep_max_bytes,
			       &s->cfg.log);
	if (err)
		return err;
	err = kop_roots_init(&s->roots, s->proc_root, s->cfg.keep_dir, &s->keeper,
			     &s->cfg.log);
	if (err) {
		kop_keeper_release(&s->keeper);
		return err;
	}
	s->sync.roots = &s->roots;
	if (s->sample_cgroup) {
		err = kop_cgroups_scan(&s->roots.cg);
		if (err < 0)
			op_log(&s->cfg.log, OP_LOG_WARN,
			       "kmod: no cgroup v2 hierarchy to name samples' cgroups by (%s): each is read from /proc as met",
			       strerror(-err));
	}
	return 0;
}

/* After the sync thread's last sync: the copies it queued are written
 * before the session says it has stopped. */
static void keep_stop(struct kop_session *s)
{
	struct kop_keep_counts c;

	if (!s->sync.roots)
		return;
	kop_keeper_stop(&s->keeper);
	kop_keeper_counts(&s->keeper, &c);
	if (c.nr_kept || c.nr_no_space || c.nr_failed)
		op_log(&s->cfg.log, OP_LOG_INFO,
		       "keep: %" PRIu64 " images kept from other roots (%" PRIu64 " bytes copied in %" PRIu64 " ms), %" PRIu64 " not kept for space, %" PRIu64 " failed",
		       c.nr_kept, c.bytes, c.busy_ns / 1000000, c.nr_no_space,
		       c.nr_failed);
	if (s->sync.sample_cgroup) {
		struct kop_cgroups *cg = &s->roots.cg;

		pthread_mutex_lock(&cg->lock);
		op_log(&s->cfg.log, OP_LOG_INFO,
		       "cgroups: samples named by their cgroup ids: %" PRIu64 " cgroups known at the start, %" PRIu64 " made since, %" PRIu64 " ids met before either named them (read from /proc), %" PRIu64 " processes moved while sampled",
		       cg->nr_ids_scanned, cg->nr_ids_made, cg->nr_ids_from_proc,
		       (uint64_t)atomic_load_explicit(&cg->nr_moved, memory_order_relaxed));
		pthread_mutex_unlock(&cg->lock);
	}
}

int kop_session_start(struct kop_session *s)
{
	bool clock_ok;
	int err;

	if (s->started)
		return -EBUSY;
	err = kop_rings_open(s, &clock_ok);
	if (err)
		goto err_rings;
	/* the side-band before the sync reads /proc: a mapping made in
	 * between is in both the ring and the maps file, and applying it
	 * twice is harmless. The samples after it, once the sync thread
	 * runs: the reads of kallsyms and every maps file take tens of ms
	 * on a quiet machine, seconds at a 10 us period under load (the
	 * sampling slows the reader), and nobody drains the rings meanwhile:
	 * started first, the samples of that time filled 4 MiB rings and
	 * the kernel dropped the rest */
	err = kop_rings_enable(s, true, SIDEBAND_RINGS);
	if (err)
		goto err_enabled;
	s->sync.flight = s->flight;
	s->sync.nr_flight = s->nr_flight;
	s->sync.lost_fmt = s->lost_fmt;
	s->sync.sample_cgroup = s->sample_cgroup;
	err = keep_start(s);
	if (err)
		goto err_enabled;
	err = kop_sync_start(&s->sync, s->rings, s->nr_rings,
			     s->ops == &kop_perf_ops, clock_ok);
	if (err)
		goto err_enabled;
	err = kop_rings_enable(s, true, SAMPLE_RINGS);
	if (err) {
		kop_sync_stop(&s->sync);
		goto err_enabled;
	}
	s->started = true;
	return 0;

err_enabled:
	kop_rings_enable_all(s, false);
	keep_stop(s);
err_rings:
	kop_rings_close(s);
	return err;
}

int kop_session_pause(struct kop_session *s)
{
	if (!s->started || s->stopped)
		return -EINVAL;
	if (!s->paused_at)
		s->paused_at = kop_now_ns();
	return kop_rings_enable_all(s, false);
}

int kop_session_resume(struct kop_session *s)
{
	if (!s->started || s->stopped)
		return -EINVAL;
	s->paused_at = 0;
	return kop_rings_enable_all(s, true);
}

/* Pause (or resume) every flight ring's output; the first error. */
static int pause_flight(struct kop_session *s, bool pause)
{
	int first = 0;

	if (!s->ops->pause_output)
		return 0;	/* a source that cannot: its rings hold still */
	for (size_t i = 0; i < s->nr_flight; i++) {
		int err = s->ops->pause_output(s->ops_ctx, s->flight[i].handle, pause);

		if (err && !first) {
			first = err;
			op_log(&s->cfg.log, OP_LOG_ERR,
			       "kmod: cannot %s the ring of event %u on cpu %d: %s",
			       pause ? "pause" : "resume", s->flight[i].event,
			       s->flight[i].cpu, strerror(-err));
		}
	}
	return first;
}

/* The samples every flight ring's event has lost so far. */
static uint64_t flight_lost(struct kop_session *s)
{
	uint64_t sum = 0, v;

	for (size_t i = 0; s->lost_fmt && i < s->nr_flight; i++)
		if (!s->ops->read_lost(s->ops_ctx, s->flight[i].handle, &v))
			sum += v;
	return sum;
}

/* What earlier pauses lost inside [from, to]: the samples this window
 * lacks. Then this one's loss, at to, and what no later window can hold
 * any more goes. A pause is placed at its window's end: the rings stop
 * one by one just before it and resume a few ms after, so a window that
 * starts or ends inside a pause is charged to within those few ms. */
static uint64_t pause_log(struct kop_session *s, uint64_t from, uint64_t to,
			  uint64_t lost)
{
	uint64_t in = 0;
	size_t keep = 0;

	for (size_t i = 0; i < s->nr_pause_log; i++) {
		const struct kop_pause_loss *p = &s->pause_log[i];

		if (p->at_ns >= from && p->at_ns <= to)
			in += p->lost;
		if (p->at_ns >= from)	/* the next window starts later */
			s->pause_log[keep++] = *p;
	}
	s->nr_pause_log = keep;
	if (lost) {
		if (s->nr_pause_log == KOP_PAUSE_LOG) {
			memmove(s->pause_log, s->pause_log + 1,
				(KOP_PAUSE_LOG - 1) * sizeof(s->pause_log[0]));
			s->nr_pause_log--;
		}
		s->pause_log[s->nr_pause_log++] =
			(struct kop_pause_loss){ .at_ns = to, .lost = lost };
	}
	return in;
}

int kop_session_snapshot(struct kop_session *s, struct kop_snapshot *snap)
{
	uint64_t lost0, t0, now;
	int err, r;

	memset(snap, 0, sizeof(*snap));
	if (!s->cfg.flight_window_ns || !s->started || s->stopped)
		return -EINVAL;
	lost0 = flight_lost(s);
	t0 = kop_now_ns();
	err = pause_flight(s, true);
	/* paused: every sample in the rings is older than now */
	now = s->paused_at ? s->paused_at : kop_now_ns();
	snap->to_ns = now;
	snap->from_ns = now > s->cfg.flight_window_ns ?
			now - s->cfg.flight_window_ns : 0;
	kop_sync_snapshot(&s->sync, snap);
	r = pause_flight(s, false);
	snap->paused_ns = kop_now_ns() - t0;
	snap->nr_lost_paused = flight_lost(s) - lost0;
	snap->nr_lost_in_window = pause_log(s, snap->from_ns, snap->to_ns,
					    snap->nr_lost_paused);
	pthread_mutex_lock(&s->sync.stats_lock);
	s->nr_lost_paused += snap->nr_lost_paused;
	pthread_mutex_unlock(&s->sync.stats_lock);
	return err ? err : r;
}

int kop_session_flight_fill(struct kop_session *s, uint64_t *fill, int max,
			    uint64_t *size)
{
	int n = s->nr_cpus < max ? s->nr_cpus : max;

	if (!s->cfg.flight_window_ns || !s->started)
		return -EINVAL;
	memset(fill, 0, (size_t)n * sizeof(*fill));
	*size = s->cfg.cpu_buffer_size;
	/* cpu-major: the first of a CPU's rings is its first event's */
	for (size_t i = s->nr_flight; i-- > 0; )
		if (s->flight[i].cpu < n)
			fill[s->flight[i].cpu] = kop_ring_bwd_used(&s->flight[i]);
	return n;
}

int kop_session_sync(struct kop_session *s)
{
	return kop_sync_request(&s->sync);
}

int kop_session_stop(struct kop_session *s)
{
	if (!s->started)
		return -EINVAL;
	if (s->stopped)
		return 0;
	kop_rings_enable_all(s, false);
	kop_sync_stop(&s->sync);
	keep_stop(s);
	s->stopped = true;
	pthread_mutex_lock(&s->evbuf.lock);
	kop_evbuf_stop(&s->evbuf);
	pthread_mutex_unlock(&s->evbuf.lock);
	return 0;
}

void kop_session_free(struct kop_session *s)
{
	if (!s)
		return;
	if (s->started && !s->stopped)
		kop_session_stop(s);
	kop_rings_close(s);
	kop_sync_release(&s->sync);
	if (s->sync.roots) {
		kop_keeper_release(&s->keeper);
		kop_roots_release(&s->roots);
	}
	kop_dcookies_release(&s->dcookies);
	kop_evbuf_release(&s->evbuf);
	free(s->events);
	free(s->proc_root);
	free(s->keep_dir);
	free(s);
}

ssize_t kop_evbuf_read(struct kop_session *s, uint64_t *buf, size_t max,
		       int timeout_ms)
{
	return kop_evbuf_read_words(&s->evbuf, buf, max, timeout_ms);
}

int kop_dcookie_lookup(struct kop_session *s, uint64_t cookie,
		       struct kop_dcookie_info *info)
{
	return kop_dcookies_lookup(&s->dcookies, cookie, info);
}

int kop_stats_get(struct kop_session *s, struct kop_stats *st)
{
	size_t bytes = (size_t)s->nr_cpus * sizeof(uint64_t);

	memset(st, 0, sizeof(*st));
	st->nr_lost_ring_cpu = malloc(bytes);
	st->nr_samples_cpu = malloc(bytes);
	if (!st->nr_lost_ring_cpu || !st->nr_samples_cpu) {
		kop_stats_release(st);
		return -ENOMEM;
	}
	kop_sync_read_stats(&s->sync, st);
	pthread_mutex_lock(&s->sync.stats_lock);
	st->nr_lost_paused = s->nr_lost_paused;
	pthread_mutex_unlock(&s->sync.stats_lock);
	if (s->sync.roots) {
		struct kop_keep_counts c;

		kop_keeper_counts(&s->keeper, &c);
		st->nr_images_unresolved = atomic_load_explicit(
			&s->roots.nr_unresolved, memory_order_relaxed);
		st->nr_images_kept = c.nr_kept;
		st->nr_images_no_space = c.nr_no_space;
		st->nr_images_keep_failed = c.nr_failed;
		st->keep_bytes = c.bytes;
		st->keep_ns = c.busy_ns;
		st->nr_cgroup_unread = atomic_load_explicit(
			&s->roots.cg.nr_unread, memory_order_relaxed);
		st->nr_nspid_unread = atomic_load_explicit(
			&s->roots.cg.nr_nspid_unread, memory_order_relaxed);
		st->nr_cgroup_moved = atomic_load_explicit(
			&s->roots.cg.nr_moved, memory_order_relaxed);
	}
	st->nr_cpus = (unsigned int)s->nr_cpus;
	return 0;
}

void kop_session_cgroups(struct kop_session *s,
			 const struct kop_cgroup_ops *ops, void *ctx)
{
	if (s->sync.roots)
		kop_cgroups_each(&s->roots.cg, ops, ctx);
}

void kop_stats_release(struct kop_stats *st)
{
	free(st->nr_lost_ring_cpu);
	free(st->nr_samples_cpu);
	st->nr_lost_ring_cpu = NULL;
	st->nr_samples_cpu = NULL;
}
