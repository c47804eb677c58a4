/* The sync thread: its life (init, start, stop, release), the loop that
 * decides when to sync, the requests it answers (a sync now, a flight
 * recorder's snapshot) and the counters it publishes. A sync itself is
 * kop_sync.c's; a snapshot is kop_flight.c's. This file calls both and
 * neither calls back. */
#include "config.h"
#include "kop_sync.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/* A side-band record to sync at once: an exit or an exec, whose retired
 * table should not wait for the timer. */
static bool urgent(const struct perf_event_header *h)
{
	return h->type == PERF_RECORD_EXIT ||
	       (h->type == PERF_RECORD_COMM &&
		(h->misc & PERF_RECORD_MISC_COMM_EXEC));
}

/* The sync thread. It sleeps in poll() on: the wake eventfd (sync and
 * stop requests), the sample rings' fds (a ring passed its watermark),
 * and the side-band rings' fds (any side-band record; it syncs at once
 * only for an exit or an exec, whose retired tables should not wait),
 * with the sync interval as the timeout. Fake sources have no fds to
 * poll: requests and the timer drive them. A flight recorder with real
 * rings has no timer: nothing is read from its sample rings until a
 * snapshot, its side-band wakes the thread at half a ring, and requests
 * come through the eventfd, so on a machine that starts no processes its
 * sync thread never runs (bench_flight.sh: 0 s of CPU in 30 s). */
static void *sync_thread(void *arg)
{
	struct kop_sync *s = arg;
	size_t nfds = 1 + (s->poll_rings ? s->nr_rings : 0);
	struct pollfd *fds = calloc(nfds, sizeof(*fds));
	uint64_t interval = (uint64_t)s->cfg->sync_interval_ms * 1000000ULL;
	uint64_t due = kop_now_ns() + interval;
	uint64_t snap_req, snap_seen = 0;
	struct kop_snapshot snap = { 0 };

	if (!fds)
		nfds = 0;
	for (size_t i = 0; i < nfds; i++) {
		fds[i].fd = i ? s->rings[i - 1].handle : s->wake_fd;
		fds[i].events = POLLIN;
	}
	for (;;) {
		uint64_t req, v, now = kop_now_ns();
		int timeout = due > now ? (int)((due - now + 999999) / 1000000) : 0;
		bool stop, want = false;

		if (s->cfg->flight_window_ns && s->poll_rings && nfds)
			timeout = -1;

		if (nfds && poll(fds, nfds, timeout) > 0) {
			if (fds[0].revents & POLLIN) {
				(void)!read(s->wake_fd, &v, sizeof(v));
				want = true;
			}
			for (size_t i = 1; i < nfds; i++) {
				const struct kop_ring *r = &s->rings[i - 1];

				if (fds[i].revents & (POLLHUP | POLLERR | POLLNVAL)) {
					/* a per-task event whose task is gone:
					 * sync what it left, stop polling it */
					fds[i].fd = -1;
					want = true;
				} else if (fds[i].revents & POLLIN) {
					/* a flight recorder's side-band wakes
					 * at half a ring: sync it */
					want = want || !r->sideband ||
					       s->cfg->flight_window_ns ||
					       kop_ring_any(r, urgent);
				}
			}
		} else if (!nfds) {
			/* no memory for a poll set: the timer alone */
			usleep((useconds_t)timeout * 1000);
		}
		pthread_mutex_lock(&s->lock);
		req = s->req;
		stop = s->stop_req;
		want = want || stop || req != s->seen;
		snap_req = s->snap_req;
		if (snap_req != s->snap_seen)
			snap = s->snap;
		pthread_mutex_unlock(&s->lock);
		if (snap_req != snap_seen) {
			kop_flight_snapshot(s, &snap);
			snap_seen = snap_req;
			pthread_mutex_lock(&s->lock);
			s->snap = snap;
			s->snap_seen = snap_req;
			pthread_cond_broadcast(&s->done);
			pthread_mutex_unlock(&s->lock);
		}
		if (!want && (timeout < 0 || kop_now_ns() < due))
			continue;
		kop_sync_once(s, stop || !s->clock_ok ? UINT64_MAX : kop_now_ns());
		due = kop_now_ns() + interval;
		pthread_mutex_lock(&s->lock);
		s->seen = req;
		pthread_cond_broadcast(&s->done);
		pthread_mutex_unlock(&s->lock);
		if (stop)
			break;
	}
	free(fds);
	return NULL;
}

int kop_sync_init(struct kop_sync *s, const struct kop_config *cfg,
		  int nr_cpus, struct kop_dcookies *dc, struct kop_evbuf *b)
{
	int err;

	s->cfg = cfg;
	s->nr_cpus = nr_cpus;
	s->dcookies = dc;
	s->evbuf = b;
	s->wake_fd = -1;
	s->out = calloc((size_t)nr_cpus, sizeof(*s->out));
	s->lost_cpu = calloc((size_t)nr_cpus, sizeof(uint64_t));
	s->samples_cpu = calloc((size_t)nr_cpus, sizeof(uint64_t));
	s->pub_lost_cpu = calloc((size_t)nr_cpus, sizeof(uint64_t));
	s->pub_samples_cpu = calloc((size_t)nr_cpus, sizeof(uint64_t));
	if (!s->out || !s->lost_cpu || !s->samples_cpu ||
	    !s->pub_lost_cpu || !s->pub_samples_cpu)
		return -ENOMEM;
	err = kop_tasks_init(&s->tasks);
	if (err)
		return err;
	s->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->wake_fd < 0)
		return -errno;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->done, NULL);
	pthread_mutex_init(&s->stats_lock, NULL);
	return 0;
}

/* Processes that exist before the first sample: PROC/PID/maps. */
static void read_existing(struct kop_sync *s)
{
	const char *proc_root = s->cfg->proc_root;
	DIR *d;
	struct dirent *de;

	if (s->cfg->pid != -1) {
		struct kop_task *k = kop_task_new(&s->tasks, s->cfg->pid);

		if (k && kop_task_read_proc(k, proc_root, s->dcookies,
					    &s->cfg->log) == -ENOENT)
			k->unknown = true;
		return;
	}
	d = opendir(proc_root);
	if (!d) {
		op_log(&s->cfg->log, OP_LOG_WARN,
		       "kmod: cannot list %s: %s; processes will be read at their first sample",
		       proc_root, strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		struct kop_task *k;

		if (*end || pid <= 0 || pid > INT32_MAX ||
		    kop_task_find(&s->tasks, (pid_t)pid))
			continue;
		k = kop_task_new(&s->tasks, (pid_t)pid);
		if (!k)
			break;
		if (kop_task_read_proc(k, proc_root, s->dcookies,
				       &s->cfg->log) == -ENOENT)
			k->unknown = true;
	}
	closedir(d);
}

int kop_sync_start(struct kop_sync *s, struct kop_ring *rings,
		   size_t nr_rings, bool poll_rings, bool clock_ok)
{
	int err;

	s->rings = rings;
	s->nr_rings = nr_rings;
	s->poll_rings = poll_rings;
	s->clock_ok = clock_ok;
	free(s->merge_h);
	free(s->merge_t);
	/* one at least: calloc(0) may return NULL */
	s->merge_h = calloc(nr_rings + 1, sizeof(*s->merge_h));
	s->merge_t = calloc(nr_rings + 1, sizeof(*s->merge_t));
	if (!s->merge_h || !s->merge_t)
		return -ENOMEM;
	if (op_kernel_map_read(&s->kmap, s->cfg->proc_root, &s->cfg->log) == 0)
		s->have_kmap = true;
	else
		op_log(&s->cfg->log, OP_LOG_WARN,
		       "kmod: no kernel text range; module loads will not be noticed");
	read_existing(s);
	err = kop_sync_unwind_init(s);
	if (err)
		return err;
	err = -pthread_create(&s->thread, NULL, sync_thread, s);
	if (err) {
		op_log(&s->cfg->log, OP_LOG_ERR,
		       "kmod: cannot start the sync thread: %s", strerror(-err));
		op_kernel_map_release(&s->kmap);
		s->have_kmap = false;
		return err;
	}
	s->thread_running = true;
	return 0;
}

static void wake(struct kop_sync *s)
{
	uint64_t one = 1;

	(void)!write(s->wake_fd, &one, sizeof(one));
}

int kop_sync_request(struct kop_sync *s)
{
	uint64_t mine;

	if (!s->thread_running)
		return -EINVAL;
	pthread_mutex_lock(&s->lock);
	mine = ++s->req;
	wake(s);
	while (s->seen < mine)
		pthread_cond_wait(&s->done, &s->lock);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

void kop_sync_snapshot(struct kop_sync *s, struct kop_snapshot *snap)
{
	uint64_t mine;

	if (!s->thread_running)
		return;
	pthread_mutex_lock(&s->lock);
	s->snap = *snap;
	mine = ++s->snap_req;
	wake(s);
	while (s->snap_seen < mine)
		pthread_cond_wait(&s->done, &s->lock);
	*snap = s->snap;
	pthread_mutex_unlock(&s->lock);
}

void kop_sync_stop(struct kop_sync *s)
{
	if (!s->thread_running)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop_req = true;
	wake(s);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);	/* its last sync takes everything */
	s->thread_running = false;
}

void kop_sync_release(struct kop_sync *s)
{
	kop_sync_stop(s);
	if (s->out)
		for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
			free(s->out[cpu].v);
			free(s->out[cpu].frames);
		}
	free(s->out);
	free(s->merge_h);
	free(s->merge_t);
	free(s->snap_pos);
	op_kernel_map_release(&s->kmap);
	kop_sync_unwind_release(s);
	kop_tasks_release(&s->tasks);
	if (s->wake_fd >= 0) {
		close(s->wake_fd);
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->done);
		pthread_mutex_destroy(&s->stats_lock);
	}
	free(s->lost_cpu);
	free(s->samples_cpu);
	free(s->pub_lost_cpu);
	free(s->pub_samples_cpu);
}

void kop_sync_read_stats(struct kop_sync *s, struct kop_stats *st)
{
	size_t bytes = (size_t)s->nr_cpus * sizeof(uint64_t);

	pthread_mutex_lock(&s->stats_lock);
	st->nr_samples = s->pub.nr_samples;
	st->nr_kernel_samples = s->pub.nr_kernel_samples;
	st->nr_user_samples = s->pub.nr_user_samples;
	st->nr_anon_samples = s->pub.nr_anon_samples;
	st->nr_lost_ring = s->pub.nr_lost_ring;
	st->nr_lost_evbuf = s->pub.nr_lost_evbuf;
	st->nr_lost_no_task = s->pub.nr_lost_no_task;
	st->nr_bad_records = s->pub.nr_bad_records;
	st->nr_module_loads = s->pub.nr_module_loads;
	st->nr_chains = s->pub.nr_chains;
	st->nr_bt_lost_no_mapping = s->pub.nr_bt_lost_no_mapping;
	st->nr_bt_truncated = s->pub.nr_bt_truncated;
	st->nr_bt_aborted = s->pub.nr_bt_aborted;
	st->nr_lost_sideband = s->pub.nr_lost_sideband;
	st->nr_unwind_no_cfi = s->pub.nr_unwind_no_cfi;
	st->nr_unwind_short_stack = s->pub.nr_unwind_short_stack;
	st->nr_unwind_bad_frame = s->pub.nr_unwind_bad_frame;
	st->nr_unwind_done = s->pub.nr_unwind_done;
	st->nr_unwind_fp_fallback = s->pub.nr_unwind_fp_fallback;
	st->nr_unwind_walks = s->pub.nr_unwind_walks;
	st->nr_unwind_pcs = s->pub.nr_unwind_pcs;
	st->unwind_ns = s->pub.unwind_ns;
	st->throttled = s->pub.throttled;
	memcpy(st->nr_lost_ring_cpu, s->pub_lost_cpu, bytes);
	memcpy(st->nr_samples_cpu, s->pub_samples_cpu, bytes);
	pthread_mutex_unlock(&s->stats_lock);
}
