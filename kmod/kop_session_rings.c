/* The session's rings: each event's attributes, opened on each CPU with
 * its side-band ring, falling back from what the kernel lacks, and
 * enabled or disabled together (kop_session.h). Split from kop_session.c,
 * which starts and stops what these open. */
#include "config.h"
#include "kop_session.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kop_perf.h"
#include "kop_unwind.h"
#include "op_config.h"

/* Side-band is light: a quarter of the sample ring, at least a page; a
 * flight recorder's sample ring is sized for its window, and its
 * side-band to take a burst of process starts (a thousand records or
 * more each second) between two of its rare syncs. */
static size_t ring_bytes(const struct kop_session *s, bool sideband)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t data = s->cfg.cpu_buffer_size;

	if (sideband && s->cfg.flight_window_ns)
		data = 4 * OP_DEFAULT_CPU_BUFFER_BYTES;	/* 512 KiB after the / 4 */
	if (sideband)
		data = data / 4 >= page ? data / 4 : page;
	return page + data;
}

static void fill_attr(const struct kop_session *s, struct perf_event_attr *a,
		      unsigned int ev, bool build_id, bool clock, bool lost_fmt)
{
	if (ev == KOP_SIDEBAND) {
		memset(a, 0, sizeof(*a));
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_DUMMY;
	} else {
		*a = s->events[ev];
	}
	a->size = sizeof(*a);
	a->sample_type = KOP_SAMPLE_TYPE;
	if (ev != KOP_SIDEBAND && s->sample_cgroup)
		a->sample_type |= PERF_SAMPLE_CGROUP;	/* the last field */
	if (ev != KOP_SIDEBAND && s->cfg.callgraph_depth) {
		/* frame-pointer chains, kernel and user parts; the chain
		 * follows the sample's fixed fields (kop_sample_rec) */
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->sample_max_stack = (uint16_t)(s->cfg.callgraph_depth + 1);	/* + the pc */
		if (s->cfg.unwind_stack_bytes) {
			/* the user part from the registers and a copy of the
			 * stack, unwound by kop_unwind.c; the chain is the
			 * kernel part only */
			a->sample_type |= PERF_SAMPLE_REGS_USER |
					  PERF_SAMPLE_STACK_USER;
			a->sample_regs_user = KOP_UNWIND_REGS_MASK;
			a->sample_stack_user = s->cfg.unwind_stack_bytes;
			a->exclude_callchain_user = 1;
		}
	}
	a->read_format = 0;
	a->disabled = 1;
	a->sample_id_all = 1;
	a->inherit = s->cfg.pid != -1;
	if (clock) {
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
	}
	if (ev == KOP_SIDEBAND) {
		/* every record wakes the sync thread, which syncs at once
		 * when one is an exit or an exec. wakeup_events would count
		 * samples only; a one-byte watermark counts every record.
		 * A flight recorder resolves nothing until a snapshot, which
		 * merges the side-band first: it wakes at half a ring, so a
		 * busy machine's execs and mmaps cost it a wakeup per
		 * thousands of records, not one each */
		a->watermark = 1;
		a->wakeup_watermark = s->cfg.flight_window_ns ?
			(uint32_t)((ring_bytes(s, true) - (size_t)sysconf(_SC_PAGESIZE)) / 2) : 1;
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->build_id = build_id;
		a->cgroup = s->sample_cgroup;
	} else if (s->cfg.flight_window_ns) {
		/* written backward into a read-only mapping: the kernel keeps
		 * the newest records and nobody reads until a snapshot. No
		 * wakeups asked for: nobody polls these */
		a->write_backward = 1;
		a->watermark = 0;
		a->wakeup_events = 0;
		if (lost_fmt)
			a->read_format = PERF_FORMAT_LOST;
	} else {
		a->watermark = 1;
		a->wakeup_watermark = (uint32_t)(s->cfg.cpu_buffer_size / 4);
		/* no context_switch records: the sync thread writes its task
		 * switches from the samples' tids, and the kernel would write
		 * two records at every switch on every CPU for nothing */
	}
}

/* Open one (event, cpu), falling back from features the kernel lacks:
 * build-id in MMAP2 (5.12), PERF_FORMAT_LOST (6.0), then the clock (4.1).
 * Cgroup ids were asked of the kernel before (cgroup_ids()). */
static int open_one(struct kop_session *s, unsigned int ev, int cpu,
		    bool *clock_ok)
{
	struct perf_event_attr a;
	bool lost = s->lost_fmt;
	int h;

	fill_attr(s, &a, ev, true, *clock_ok, lost);
	h = s->ops->open(s->ops_ctx, &a, s->cfg.pid, cpu);
	if (h == -EINVAL && ev == KOP_SIDEBAND) {
		fill_attr(s, &a, ev, false, *clock_ok, lost);
		h = s->ops->open(s->ops_ctx, &a, s->cfg.pid, cpu);
	}
	if (h == -EINVAL && lost && ev != KOP_SIDEBAND &&
	    s->cfg.flight_window_ns) {
		s->lost_fmt = lost = false;
		fill_attr(s, &a, ev, false, *clock_ok, false);
		h = s->ops->open(s->ops_ctx, &a, s->cfg.pid, cpu);
	}
	if (h == -EINVAL && *clock_ok) {
		*clock_ok = false;
		fill_attr(s, &a, ev, false, false, lost);
		h = s->ops->open(s->ops_ctx, &a, s->cfg.pid, cpu);
	}
	return h;
}

static void close_ring_array(struct kop_session *s, struct kop_ring **rings,
			     size_t *nr)
{
	for (size_t i = 0; i < *nr; i++) {
		struct kop_ring *r = &(*rings)[i];

		kop_ring_release(r);
		if (r->base)
			s->ops->unmap(s->ops_ctx, r->handle, r->base,
				      ring_bytes(s, r->sideband));
		s->ops->close(s->ops_ctx, r->handle);
	}
	free(*rings);
	*rings = NULL;
	*nr = 0;
}

void kop_rings_close(struct kop_session *s)
{
	close_ring_array(s, &s->rings, &s->nr_rings);
	close_ring_array(s, &s->flight, &s->nr_flight);
}

static int open_ring(struct kop_session *s, unsigned int ev, int cpu,
		     bool *clock_ok)
{
	bool sideband = ev == KOP_SIDEBAND;
	bool backward = !sideband && s->cfg.flight_window_ns;
	struct kop_ring *r = backward ? &s->flight[s->nr_flight] :
					&s->rings[s->nr_rings];
	size_t len = ring_bytes(s, sideband);
	int h = open_one(s, ev, cpu, clock_ok), err;

	if (h < 0) {
		if (sideband)
			op_log(&s->cfg.log, OP_LOG_ERR,
			       "kmod: cannot open the side-band event on cpu %d: %s",
			       cpu, strerror(-h));
		else
			op_log(&s->cfg.log, OP_LOG_ERR,
			       "kmod: cannot open event %u (type %u config %#llx) on cpu %d: %s%s",
			       ev, s->events[ev].type,
			       (unsigned long long)s->events[ev].config, cpu,
			       strerror(-h),
			       s->cfg.callgraph_depth ?
			       " (with call chains: is the depth above sysctl kernel.perf_event_max_stack?)" : "");
		return h;
	}
	r->handle = h;
	r->cpu = cpu;
	r->event = ev;
	r->sideband = sideband;
	r->backward = backward;
	if (backward)
		s->nr_flight++;
	else
		s->nr_rings++;
	errno = 0;
	r->base = s->ops->map(s->ops_ctx, h, len, !backward);
	if (!r->base) {
		err = errno ? -errno : -ENOMEM;
		op_log(&s->cfg.log, OP_LOG_ERR,
		       "kmod: cannot map the ring of %s %u on cpu %d (%zu bytes): %s",
		       sideband ? "side-band event" : "event",
		       sideband ? 0 : ev, cpu, len, strerror(-err));
		return err;
	}
	err = kop_ring_init(r, r->base, len);
	if (err)
		op_log(&s->cfg.log, OP_LOG_ERR,
		       "kmod: bad ring layout for event %u on cpu %d", ev, cpu);
	return err;
}

/* Do samples carry their cgroup id (kop_cgroup.c), for every ring alike?
 * Asked of the kernel once, before any ring, on an event with nothing
 * else it might refuse: the samples' layout must be one. The ids are the
 * perf_event controller's cgroups, which are the cgroup v2 hierarchy's
 * unless the controller is bound to a v1 hierarchy (proc_root/cgroups):
 * its ids would then name v1 cgroups, so none are asked for. */
static bool cgroup_ids(struct kop_session *s)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY, .disabled = 1,
		.exclude_kernel = 1, .exclude_hv = 1,
		.sample_type = KOP_SAMPLE_TYPE | PERF_SAMPLE_CGROUP, .cgroup = 1,
	};
	const char *env = getenv("OPSAMPLER_SAMPLE_CGROUP");
	char path[PATH_MAX], line[256];
	int hier = 0, enabled = 1, h, cpu = -1;
	FILE *f;

	if (!s->cfg.keep_dir || s->ops != &kop_perf_ops)
		return false;	/* no names to give, or no kernel */
	if (env && !strcmp(env, "0")) {
		op_log(&s->cfg.log, OP_LOG_INFO,
		       "kmod: cgroup ids in samples turned off (OPSAMPLER_SAMPLE_CGROUP=0): a process's cgroup is read when it execs");
		return false;
	}
	snprintf(path, sizeof(path), "%s/cgroups", s->proc_root);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "perf_event %d %*d %d", &hier, &enabled) >= 1)
			break;
	if (f)
		fclose(f);
	if (!enabled) {
		/* cgroup_disable=perf_event: every sample would say the root */
		op_log(&s->cfg.log, OP_LOG_INFO,
		       "kmod: no cgroup ids in samples: the perf_event controller is disabled (%s); a process's cgroup is read when it execs",
		       path);
		return false;
	}
	if (hier > 0) {
		op_log(&s->cfg.log, OP_LOG_INFO,
		       "kmod: no cgroup ids in samples: the perf_event controller is on a cgroup v1 hierarchy (%d in %s), whose ids are not the v2 hierarchy's; a process's cgroup is read when it execs",
		       hier, path);
		return false;
	}
	/* where the rings will be: a system-wide session's first CPU */
	for (int i = 0; s->cfg.pid == -1 && i < s->nr_cpus && cpu < 0; i++)
		if ((!s->cfg.cpus || CPU_ISSET(i, s->cfg.cpus)) &&
		    s->ops->cpu_online(s->ops_ctx, i))
			cpu = i;
	h = s->cfg.pid == -1 && cpu < 0 ? -ENODEV :
	    s->ops->open(s->ops_ctx, &a, s->cfg.pid, cpu);
	if (h < 0) {
		op_log(&s->cfg.log, OP_LOG_INFO,
		       "kmod: no cgroup ids in samples: the kernel refused them on a test event (%s; they need 5.7 and CONFIG_CGROUP_PERF): a process's cgroup is read when it execs",
		       strerror(-h));
		return false;
	}
	s->ops->close(s->ops_ctx, h);
	return true;
}

int kop_rings_open(struct kop_session *s, bool *clock_ok)
{
	size_t max = (size_t)s->nr_cpus * (s->cfg.nr_events + 1);
	int err;

	*clock_ok = true;
	s->lost_fmt = s->cfg.flight_window_ns && s->ops->read_lost;
	/* cgroup ids name the processes' containers (kop_cgroup.c): asked
	 * of the kernel when there is a store for containers' images, and
	 * not turned off (OPSAMPLER_SAMPLE_CGROUP=0: the older kernels' way,
	 * for its tests and for the benchmark's comparison) */
	s->sample_cgroup = cgroup_ids(s);
	s->rings = calloc(max, sizeof(*s->rings));
	s->flight = calloc(max, sizeof(*s->flight));
	if (!s->rings || !s->flight)
		return -ENOMEM;
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		if (s->cfg.cpus && !CPU_ISSET(cpu, s->cfg.cpus))
			continue;
		if (!s->ops->cpu_online(s->ops_ctx, cpu))
			continue;
		for (unsigned int ev = 0; ev < s->cfg.nr_events; ev++) {
			err = open_ring(s, ev, cpu, clock_ok);
			if (err)
				return err;
		}
		err = open_ring(s, KOP_SIDEBAND, cpu, clock_ok);
		if (err)
			return err;
	}
	if (!s->nr_rings) {
		op_log(&s->cfg.log, OP_LOG_ERR, "kmod: none of the chosen cpus is online");
		return -ENODEV;
	}
	if (!*clock_ok && s->cfg.flight_window_ns) {
		op_log(&s->cfg.log, OP_LOG_ERR,
		       "kmod: the flight recorder cuts its window by sample time, and this kernel cannot stamp records with CLOCK_MONOTONIC (Linux 4.1)");
		return -EOPNOTSUPP;
	}
	if (!*clock_ok)
		op_log(&s->cfg.log, OP_LOG_WARN,
		       "kmod: kernel cannot stamp records with CLOCK_MONOTONIC; cross-CPU order holds within each sync only");
	return 0;
}

/* Enable (or disable) rings, the side-band ones, the others or both. */

static int enable_array(struct kop_session *s, struct kop_ring *rings,
			size_t nr, bool on, enum which_rings which)
{
	int first = 0;

	for (size_t i = 0; i < nr; i++) {
		int h = rings[i].handle;
		int err;

		if (!(which & (rings[i].sideband ? SIDEBAND_RINGS : SAMPLE_RINGS)))
			continue;
		err = on ? s->ops->enable(s->ops_ctx, h) :
			   s->ops->disable(s->ops_ctx, h);

		if (err && !first) {
			first = err;
			op_log(&s->cfg.log, OP_LOG_ERR,
			       "kmod: cannot %s event %u on cpu %d: %s",
			       on ? "enable" : "disable", rings[i].event,
			       rings[i].cpu, strerror(-err));
		}
	}
	return first;
}

int kop_rings_enable(struct kop_session *s, bool on, enum which_rings which)
{
	int a = enable_array(s, s->flight, s->nr_flight, on, which);
	int b = enable_array(s, s->rings, s->nr_rings, on, which);

	return a ? a : b;
}

int kop_rings_enable_all(struct kop_session *s, bool on)
{
	return kop_rings_enable(s, on, ALL_RINGS);
}
