/* One session's pipeline in process: kmod fills the event buffer, the
 * decoder turns it into samples, the sampler into counts in sample files.
 * It is a library so that oprofiled (behind a control socket) and operf
 * (around one command) run the same collection and the same writer, not
 * two copies of one main loop. */
#include "config.h"
#include "opd_session.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_afile.h"
#include "op_cgroups.h"
#include "op_stats.h"
#include "op_sums.h"
#include "op_vdso.h"
#include "opd_ksyms.h"

#define OPD_READ_WORDS 65536

static int resolve_events(struct opd_session *s, char *err, size_t errlen)
{
	const char *list = s->cfg.events && *s->cfg.events ? s->cfg.events : "default";
	char *copy = strdup(list), *save = NULL;
	size_t off = 0;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct op_event *ev = &s->events[s->nr_events];
		struct opd_event_info *ei = &s->einfo[s->nr_events];
		const char *bad = NULL;
		char why[256] = "";

		if (s->nr_events == OP_MAX_EVENTS) {
			snprintf(err, errlen, "too many events (at most %d)", OP_MAX_EVENTS);
			ret = -E2BIG;
			break;
		}
		ret = op_event_resolve_text(tok, NULL, ev, &bad, why, sizeof(why));
		if (ret && bad) {
			snprintf(err, errlen, "bad event specification '%s' near '%s'",
				 tok, bad);
			break;
		}
		if (ret) {
			snprintf(err, errlen, "event '%s': %s", tok, why[0] ? why : strerror(-ret));
			break;
		}
		s->attrs[s->nr_events] = ev->attr;
		snprintf(ei->name, sizeof(ei->name), "%s", ev->timer ? "TIMER" : ev->spec.name);
		ei->count = ev->spec.count;
		ei->unit_mask = ev->spec.unit_mask;
		ei->event_number = ev->event_number;
		ei->cpu_type = ev->cpu_type;
		if (off < sizeof(s->events_text)) {
			char one[160];

			op_event_format(ev, one, sizeof(one));
			off += (size_t)snprintf(s->events_text + off,
						sizeof(s->events_text) - off,
						"%s%s", s->nr_events ? "," : "", one);
		}
		s->nr_events++;
	}
	free(copy);
	if (!ret && !s->nr_events) {
		snprintf(err, errlen, "no events given");
		ret = -EINVAL;
	}
	return ret;
}

int opd_session_init(struct opd_session *s, const struct opd_session_config *cfg,
		     char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	if (cfg->cpus) {
		s->cpus = *cfg->cpus;
		s->cfg.cpus = &s->cpus;
	}
	return resolve_events(s, err, errlen);
}

/* "cpu MHz" of the first processor in /proc/cpuinfo; 0 when absent. */
static double read_cpu_speed(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	double mhz = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cpu MHz", 7)) {
			const char *colon = strchr(line, ':');

			if (colon)
				mhz = strtod(colon + 1, NULL);
			break;
		}
	}
	fclose(f);
	return mhz;
}

static int kop_new(struct opd_session *s)
{
	struct kop_config cfg = {
		.events = s->attrs,
		.nr_events = s->nr_events,
		.pid = s->cfg.pid,
		.cpus = s->cfg.cpus,
		/* 0, an option not given: kmod's default, which is libop's */
		.cpu_buffer_size = s->cfg.cpu_buffer_size,
		.evbuf_words = s->cfg.buffer_size,
		.evbuf_watershed = s->cfg.buffer_watershed,
		.sync_interval_ms = 250,
		.callgraph_depth = s->cfg.callgraph,
		.unwind_stack_bytes = s->cfg.callgraph ? s->cfg.unwind_stack : 0,
		.flight_window_ns = (uint64_t)s->cfg.flight_seconds * 1000000000ULL,
		.proc_root = "/proc",
		.keep_dir = s->cfg.keep_dir,
		.sd = s->cfg.sd,
		.keep_max_bytes = s->cfg.keep_max_bytes,
		.log = s->cfg.log,
	};

	if (s->cfg.flight_seconds) {
		/* only the side-band is synced, when its ring is half full
		 * and at half the window: often enough to free the tables
		 * a window has passed, rarely enough to cost nothing */
		unsigned int ms = s->cfg.flight_seconds * 500;

		cfg.sync_interval_ms = ms < 1000 ? 1000 : ms > 10000 ? 10000 : ms;
		cfg.cpu_buffer_size = s->flight_ring_bytes;
		cfg.evbuf_words = s->flight_evbuf_words;
		cfg.evbuf_watershed = 0;
	}
	return kop_session_new(&cfg, &s->kop);
}

/* The flight recorder's rings: each CPU's sized for the window at the
 * fastest of the events' rates; the event buffer for a whole snapshot,
 * a word of stream for each 8 bytes of ring (a sample record of 32 bytes
 * becomes two words, four with its context restated; a call chain, two
 * a frame), as the daemon reads it only once the snapshot is written. */
static int flight_sizes(struct opd_session *s, char *err, size_t errlen)
{
	size_t rec = op_flight_record_bytes(s->cfg.callgraph, s->cfg.unwind_stack), words;
	long nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	int ret;

	s->flight_ring_bytes = 0;
	for (unsigned int i = 0; i < s->nr_events; i++) {
		double rate = op_event_max_rate(&s->events[i], "/proc");
		size_t bytes;

		ret = op_flight_ring_bytes(s->cfg.flight_seconds, rate, rec,
					   &bytes, err, errlen);
		if (ret)
			return ret;
		if (bytes > s->flight_ring_bytes)
			s->flight_ring_bytes = bytes;
	}
	if (nr_cpus < 1)
		nr_cpus = 1;
	words = (size_t)nr_cpus * s->nr_events * (s->flight_ring_bytes / 8);
	if (words < (s->cfg.buffer_size ? s->cfg.buffer_size : OP_DEFAULT_BUFFER_WORDS))
		words = s->cfg.buffer_size ? s->cfg.buffer_size : OP_DEFAULT_BUFFER_WORDS;
	if (words > OP_MAX_BUFFER_WORDS)
		words = OP_MAX_BUFFER_WORDS;
	s->flight_evbuf_words = words;
	return 0;
}

static int lookup_cookie(void *ctx, uint64_t cookie, struct kop_dcookie_info *info)
{
	struct opd_session *s = ctx;

	return kop_dcookie_lookup(s->kop, cookie, info);
}

int opd_session_open(struct opd_session *s, char *err, size_t errlen)
{
	int ret;

	s->opened = true;
	ret = opd_images_init(&s->images, lookup_cookie, s,
			      s->cfg.vmlinux, s->cfg.image, &s->cfg.log);
	if (!ret)
		ret = opd_sfiles_init(&s->sfiles, s->cfg.sd, s->cfg.current_dir, s->einfo,
				      s->nr_events, read_cpu_speed(), 0, &s->cfg.log);
	if (!ret)
		ret = opd_chains_init(&s->chains, s->cfg.sd, s->cfg.current_dir,
				      &s->cfg.log);
	if (!ret)
		ret = opd_stats_read(&s->base, s->cfg.sd, s->cfg.current_dir,
				     OPD_MAX_CPUS);
	if (!ret && s->base.v[OPD_TOTAL_SAMPLES])
		op_log(&s->cfg.log, OP_LOG_INFO, "%s/stats: %llu samples counted by "
		       "an earlier daemon: its counts go on from there",
		       s->cfg.current_dir,
		       (unsigned long long)s->base.v[OPD_TOTAL_SAMPLES]);
	s->dec = malloc(sizeof(*s->dec));
	s->buf = malloc(OPD_READ_WORDS * sizeof(*s->buf));
	if (ret || !s->dec || !s->buf) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	opd_images_read_kernel(&s->images, "/proc");
	opd_sampler_init(&s->sampler, &s->images, &s->sfiles, s->cfg.separate, "/proc");
	if (s->cfg.callgraph > 0)
		s->sampler.chains = &s->chains;
	opd_decoder_init(s->dec, &opd_sampler_ops, &s->sampler, s->nr_events, &s->cfg.log);

	if (s->cfg.flight_seconds) {
		ret = flight_sizes(s, err, errlen);
		if (ret)
			return ret;
	}
	ret = kop_new(s);
	if (ret)
		snprintf(err, errlen, "cannot create the collection session: %s",
			 strerror(-ret));
	return ret;
}

int opd_session_start(struct opd_session *s)
{
	int ret;

	if (s->running)
		return 0;
	if (!s->kop)
		return -ENODEV;
	/* the integrity record holds only while nothing writes the files */
	ret = op_sums_remove(s->cfg.sd, s->cfg.current_dir);
	if (ret == -ELOOP) {
		/* a link where stats/ is: no record of ours is there to
		 * remove; it is said, and the stats are not written there */
		char path[PATH_MAX + 16], why[PATH_MAX + 64];

		snprintf(path, sizeof(path), "%s/%s", s->cfg.current_dir, OP_SUMS_FILE);
		op_log(&s->cfg.log, OP_LOG_WARN, "start: %s",
		       op_sd_explain(s->cfg.sd, path, ret, why, sizeof(why)));
		ret = 0;
	}
	if (ret) {
		char path[PATH_MAX + 16], why[PATH_MAX + 64];

		snprintf(path, sizeof(path), "%s/%s", s->cfg.current_dir, OP_SUMS_FILE);
		op_log(&s->cfg.log, OP_LOG_ERR, "start: cannot remove %s: %s", path,
		       op_sd_explain(s->cfg.sd, path, ret, why, sizeof(why)));
		return ret;
	}
	if (s->kop_started) {
		ret = kop_session_resume(s->kop);
		if (ret)
			return ret;
	} else {
		ret = kop_session_start(s->kop);
		if (ret) {
			/* a failed start leaves the session unusable: make
			 * a fresh one so that a later start can succeed */
			kop_session_free(s->kop);
			s->kop = NULL;
			if (kop_new(s))
				op_log(&s->cfg.log, OP_LOG_ERR,
				       "start: cannot recreate the collection session");
			return ret;
		}
		s->kop_started = true;
	}
	s->running = true;
	return 0;
}

int opd_session_pause(struct opd_session *s)
{
	int ret = 0;

	if (!s->running)
		return 0;
	ret = kop_session_pause(s->kop);
	if (ret)
		op_log(&s->cfg.log, OP_LOG_WARN, "stop: cannot disable the events: %s",
		       strerror(-ret));
	s->running = false;
	return ret;
}

ssize_t opd_session_pump(struct opd_session *s, int timeout_ms)
{
	ssize_t got;

	if (!s->kop_started)
		return -EPIPE;
	got = kop_evbuf_read(s->kop, s->buf, OPD_READ_WORDS, timeout_ms);
	if (got > 0)
		opd_decode(s->dec, s->buf, (size_t)got);
	return got;
}

void opd_session_drain(struct opd_session *s)
{
	/* bounded: a producer faster than the decoder cannot hold us here */
	for (int i = 0; i < 4096; i++) {
		if (opd_session_pump(s, 0) <= 0)
			break;
	}
}

void opd_session_stats(struct opd_session *s, struct opd_stats *st)
{
	struct kop_stats ks;
	bool have_ks = s->kop && kop_stats_get(s->kop, &ks) == 0;
	unsigned int nr_cpus = 0;

	memset(st, 0, sizeof(*st));
	st->v[OPD_TOTAL_SAMPLES] = s->dec->nr_samples;
	st->v[OPD_KERNEL_SAMPLES] = s->sampler.nr_kernel;
	st->v[OPD_ANON_SAMPLES] = s->sampler.nr_anon;
	st->v[OPD_LOST_NO_MAPPING] = s->sampler.nr_lost_no_mapping;
	st->v[OPD_LOST_SAMPLEFILE] = s->sfiles.nr_lost;
	st->v[OPD_BAD_ESCAPE] = s->dec->nr_bad;
	st->v[OPD_SAMPLES_WRITTEN] = s->sampler.nr_written;
	st->v[OPD_LOST_FILTERED] = s->sampler.nr_filtered;
	st->v[OPD_ARCS] = s->sampler.nr_arcs;
	st->v[OPD_CHAINS_LOST] = s->chains.nr_lost;
	st->v[OPD_ARCS_LOST] = s->sfiles.nr_lost_arcs;
	st->v[OPD_CALLGRAPH_DEPTH] = s->cfg.callgraph;
	st->v[OPD_UNWIND_STACK] = s->cfg.callgraph ? s->cfg.unwind_stack : 0;
	/* cut in the daemon (a caller in no image), or in kmod below */
	st->v[OPD_LOST_BT_NO_MAPPING] = s->sampler.nr_bt_lost_no_mapping;
	/* The kernel's ring losses reach us twice: kmod counts each
	 * PERF_RECORD_LOST, and says so in the stream (DROPPED), which the
	 * decoder counts. Each is counted once: from kmod when it answers,
	 * else from the stream. */
	st->v[OPD_LOST_RECORDS_BY_KERNEL] = s->dec->nr_dropped;
	if (have_ks) {
		st->v[OPD_EVENT_LOST_OVERFLOW] = ks.nr_lost_evbuf;
		st->v[OPD_LOST_NO_TASK] = ks.nr_lost_no_task;
		st->v[OPD_CHAINS] = ks.nr_chains;
		st->v[OPD_BT_TRUNCATED] = ks.nr_bt_truncated;
		st->v[OPD_BT_ABORTED] = ks.nr_bt_aborted;
		st->v[OPD_LOST_SIDEBAND] = ks.nr_lost_sideband;
		st->v[OPD_IMAGES_UNRESOLVED] = ks.nr_images_unresolved;
		st->v[OPD_IMAGES_KEPT] = ks.nr_images_kept;
		st->v[OPD_IMAGES_NOT_KEPT_SPACE] = ks.nr_images_no_space;
		st->v[OPD_IMAGES_NOT_KEPT] = ks.nr_images_keep_failed;
		st->v[OPD_CGROUP_UNREAD] = ks.nr_cgroup_unread;
		st->v[OPD_NSPID_UNREAD] = ks.nr_nspid_unread;
		st->v[OPD_CGROUP_MOVED] = ks.nr_cgroup_moved;
		st->v[OPD_LOST_BT_NO_MAPPING] += ks.nr_bt_lost_no_mapping;
		st->v[OPD_UNWIND_NO_CFI] = ks.nr_unwind_no_cfi;
		st->v[OPD_UNWIND_SHORT_STACK] = ks.nr_unwind_short_stack;
		st->v[OPD_UNWIND_BAD_FRAME] = ks.nr_unwind_bad_frame;
		st->v[OPD_UNWIND_DONE] = ks.nr_unwind_done;
		st->v[OPD_UNWIND_FP_FALLBACK] = ks.nr_unwind_fp_fallback;
		st->v[OPD_UNWIND_WALKS] = ks.nr_unwind_walks;
		st->v[OPD_UNWIND_PCS] = ks.nr_unwind_pcs;
		st->v[OPD_UNWIND_NS] = ks.unwind_ns;
		/* and those a flight recorder's snapshot lost by pausing */
		st->v[OPD_LOST_RECORDS_BY_KERNEL] = ks.nr_lost_ring + ks.nr_lost_paused;
		nr_cpus = ks.nr_cpus;
		if (ks.throttled) {
			size_t off = 0;

			for (unsigned int i = 0; i < s->nr_events && off < sizeof(st->throttled); i++)
				if (ks.throttled & kop_event_bit(i))
					off += (size_t)snprintf(st->throttled + off,
								sizeof(st->throttled) - off, "%s%s",
								off ? "," : "", s->einfo[i].name);
		}
	}
	for (unsigned int c = 0; c < OPD_MAX_CPUS; c++) {
		if (s->dec->nr_samples_cpu[c] || s->dec->nr_dropped_cpu[c])
			nr_cpus = nr_cpus > c + 1 ? nr_cpus : c + 1;
	}
	if (s->base.nr_cpus > nr_cpus)
		nr_cpus = s->base.nr_cpus;
	if (nr_cpus > OPD_MAX_CPUS)
		nr_cpus = OPD_MAX_CPUS;
	st->cpu_lost_overflow = calloc(nr_cpus ? nr_cpus : 1, sizeof(uint64_t));
	st->cpu_received = calloc(nr_cpus ? nr_cpus : 1, sizeof(uint64_t));
	if (st->cpu_lost_overflow && st->cpu_received) {
		st->nr_cpus = nr_cpus;
		for (unsigned int c = 0; c < nr_cpus; c++) {
			st->cpu_received[c] = s->dec->nr_samples_cpu[c];
			if (have_ks)
				st->cpu_lost_overflow[c] = c < ks.nr_cpus && ks.nr_lost_ring_cpu ?
							   ks.nr_lost_ring_cpu[c] : 0;
			else
				st->cpu_lost_overflow[c] = s->dec->nr_dropped_cpu[c];
			if (c < s->base.nr_cpus) {
				st->cpu_received[c] += s->base.cpu_received[c];
				st->cpu_lost_overflow[c] += s->base.cpu_lost_overflow[c];
			}
		}
	}
	/* an earlier daemon's counts into the same files (a setting is not
	 * a count) */
	for (int i = 0; i < OPD_NR_COUNTERS; i++)
		if (!opd_counter_is_setting(i))
			st->v[i] += s->base.v[i];
	if (have_ks)
		kop_stats_release(&ks);
}

void opd_session_write_sums(struct opd_session *s, const char *dir,
			    const char *why)
{
	size_t n = 0;
	int r = op_sums_write(s->cfg.sd, dir, &n);

	if (r) {
		char path[PATH_MAX + 16], msg[PATH_MAX + 64];

		snprintf(path, sizeof(path), "%s/%s", dir, OP_SUMS_FILE);
		op_log(&s->cfg.log, OP_LOG_WARN, "%s: cannot write the integrity "
		       "record %s: %s", why, path,
		       op_sd_explain(s->cfg.sd, path, r, msg, sizeof(msg)));
	} else {
		op_log(&s->cfg.log, OP_LOG_DEBUG, "%s: integrity record of %zu "
		       "file(s) written", why, n);
	}
}

static void cgroup_line(void *ctx, pid_t tgid, bool other_root,
			const char *cgroup)
{
	op_cgroups_write_line(ctx, tgid, other_root, cgroup);
}

static void nsid_line(void *ctx, pid_t id, pid_t nsid)
{
	op_cgroups_write_nsid(ctx, id, nsid);
}

static void root_line(void *ctx, pid_t tgid, uint64_t dev, uint64_t ino)
{
	op_cgroups_write_root(ctx, tgid, dev, ino);
}

static void image_line(void *ctx, const char *rel, bool other_root,
		       const char *cgroup)
{
	op_cgroups_write_image(ctx, rel, other_root, cgroup);
}

static const struct kop_cgroup_ops cgroup_ops = {
	.process = cgroup_line, .nsid = nsid_line, .root = root_line,
	.image = image_line,
};

/* stats/cgroups: each process image's cgroup, for the reports' container
 * names (op_cgroups.h); written whole, as the counters are. */
static int write_cgroups(struct opd_session *s, const char *dir)
{
	char path[PATH_MAX];
	struct op_afile a;
	int ret;

	if (!s->kop || !s->cfg.keep_dir)
		return 0;
	snprintf(path, sizeof(path), "%s/" OP_STATS_DIR "/" OP_CGROUPS_FILE, dir);
	ret = op_afile_open(&a, s->cfg.sd, path);
	if (ret)
		return ret;
	kop_session_cgroups(s->kop, &cgroup_ops, a.f);
	return op_afile_commit(&a, false);
}

/* stats/vdso: the vDSO's image (op_vdso.h), ours, which is every
 * process's of this boot, so that the reports name its functions on any
 * machine, later. Once a session: it does not change while the machine
 * runs. */
static int save_vdso(struct opd_session *s, const char *dir)
{
	char path[PATH_MAX];
	struct op_afile a;
	struct stat st;
	const void *img;
	size_t size;
	int ret;

	snprintf(path, sizeof(path), "%s/" OP_VDSO_FILE, dir);
	if (!(img = op_vdso_image(&size)) || !op_sd_stat(s->cfg.sd, path, &st))
		return 0;
	ret = op_afile_open(&a, s->cfg.sd, path);
	if (ret)
		return ret;
	if (fwrite(img, 1, size, a.f) != size) {
		op_afile_abort(&a);
		return -EIO;
	}
	return op_afile_commit(&a, false);
}

/* A dump's side file not written: said with why (a link planted where it
 * goes, named, is an error, said where the user is: operf's stderr; any
 * other failure a warning). doing and name say which, then what follows. */
static void side_file_failed(const struct opd_session *s, const char *why,
			     const char *doing, const char *dir, const char *name,
			     int err, const char *then)
{
	char path[PATH_MAX + 32], msg[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	op_log(&s->cfg.log, op_sd_refused(err) ? OP_LOG_ERR : OP_LOG_WARN,
	       "%s: cannot %s %s: %s%s", why, doing, path,
	       op_sd_explain(s->cfg.sd, path, err, msg, sizeof(msg)), then);
}

int opd_session_dump(struct opd_session *s, const char *why, bool ending)
{
	const char *dir = s->cfg.current_dir;
	struct opd_stats st;
	int ret = 0, r;

	if (s->kop_started) {
		r = kop_session_sync(s->kop);
		if (r) {
			op_log(&s->cfg.log, OP_LOG_WARN, "%s: sync failed: %s", why, strerror(-r));
			ret = r;
		}
		opd_session_drain(s);
	}
	r = opd_sfiles_sync(&s->sfiles);
	if (!r)
		r = opd_chains_sync(&s->chains);
	if (r) {
		op_log(&s->cfg.log, OP_LOG_WARN, "%s: msync of a sample file failed: %s",
		       why, strerror(-r));
		ret = ret ? ret : r;
	}
	opd_session_stats(s, &st);
	r = opd_stats_write(&st, s->cfg.sd, dir);
	if (r) {
		side_file_failed(s, why, "write", dir, OP_STATS_DIR, r, "");
		ret = ret ? ret : r;
	}
	opd_stats_log(&st, &s->cfg.log, why);
	opd_stats_release(&st);
	r = write_cgroups(s, dir);
	if (r) {
		side_file_failed(s, why, "write", dir, OP_STATS_DIR "/" OP_CGROUPS_FILE, r, "");
		ret = ret ? ret : r;
	}
	r = save_vdso(s, dir);
	if (r)
		side_file_failed(s, why, "save the vDSO in", dir, OP_VDSO_FILE, r,
				 "; reports name its samples by its region");
	/* the files stay as they are until the next start: record them */
	if (ending || !s->running)
		opd_session_write_sums(s, dir, why);
	/* The sampled kernel symbols, when collection stops: a read of
	 * /proc/kallsyms costs ~50 ms of CPU, too much for every --dump of a
	 * running session. Not the samples: a report without the copy, or
	 * with samples it does not name, reads /proc/kallsyms. */
	if (ending) {
		r = opd_ksyms_save(s->cfg.sd, dir, "/proc");
		if (r && r != -ENODATA)
			side_file_failed(s, why, "save the kernel symbols in", dir,
					 OP_STATS_DIR, r, "");
	}
	return ret;
}

void opd_session_finish(struct opd_session *s)
{
	if (s->kop_started) {
		int ret = kop_session_stop(s->kop);

		if (ret)
			op_log(&s->cfg.log, OP_LOG_WARN,
			       "exit: stopping the collection failed: %s", strerror(-ret));
		for (int i = 0; i < 10000; i++) {
			ssize_t n = opd_session_pump(s, OPD_READ_TIMEOUT_MS);

			if (n <= 0)
				break;	/* -EPIPE: end of stream */
		}
		s->running = false;
		/* the stream is read to its end: nothing is left to sync */
		s->kop_started = false;
	}
	/* a flight recorder's profile is what its snapshots wrote: its
	 * cumulative counters would only overwrite current's */
	if (s->dec && !s->cfg.flight_seconds)
		opd_session_dump(s, "exit", true);
}

void opd_session_close(struct opd_session *s)
{
	if (!s->opened)
		return;
	if (s->kop) {
		if (s->kop_started && s->running)
			kop_session_stop(s->kop);
		kop_session_free(s->kop);
		s->kop = NULL;
	}
	opd_sampler_release(&s->sampler);
	opd_chains_release(&s->chains);
	opd_sfiles_release(&s->sfiles);
	opd_images_release(&s->images);
	free(s->dec);
	free(s->buf);
	s->dec = NULL;
	s->buf = NULL;
	opd_stats_release(&s->base);
	s->opened = false;
}
