/* The flight recorder's snapshot, as a saved session: kmod writes the
 * last window into the event buffer (kop_session_snapshot()), and this
 * file points the session's writer (sample files, chain store) at a fresh
 * directory for the time it takes to decode it, writes the snapshot's own
 * counters and kernel symbols there, and renames the directory into
 * place. The writer goes back to samples/current afterwards, which a
 * flight recorder leaves alone unless asked ("current": --dump).
 *
 * Counters: a snapshot's stats are its own, the session's counters after
 * it less those before, so total_samples is the window's samples. The
 * samples the rings lost while this snapshot paused them came after its
 * window (to within the pause's few ms): they are not its loss, and its
 * log line says how many. They are
 * the loss of a later window that holds that pause, whose
 * lost_records_by_kernel counts them (kmod remembers the pauses:
 * nr_lost_in_window), so each window's report says what it lacks.
 */
#include "config.h"
#include "opd_session.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opd_ksyms.h"

/* Point the sample files and the chain store at dir. */
static int retarget(struct opd_session *s, const char *dir)
{
	double mhz = s->sfiles.cpu_speed;
	int ret;

	opd_sampler_invalidate(&s->sampler);
	opd_sfiles_release(&s->sfiles);
	opd_chains_release(&s->chains);
	ret = opd_sfiles_init(&s->sfiles, s->cfg.sd, dir, s->einfo, s->nr_events,
			      mhz, 0, &s->cfg.log);
	if (!ret)
		ret = opd_chains_init(&s->chains, s->cfg.sd, dir, &s->cfg.log);
	return ret;
}

/* after - before, for the counters (not the settings among them),
 * with the window's own pause losses for the ones after it */
static void stats_since(struct opd_stats *after, const struct opd_stats *before,
			const struct kop_snapshot *snap)
{
	uint64_t *lost = &after->v[OPD_LOST_RECORDS_BY_KERNEL];

	for (int i = 0; i < OPD_NR_COUNTERS; i++)
		if (!opd_counter_is_setting(i))
			after->v[i] -= before->v[i];
	*lost -= snap->nr_lost_paused < *lost ? snap->nr_lost_paused : *lost;
	*lost += snap->nr_lost_in_window;
	for (unsigned int c = 0; c < after->nr_cpus && c < before->nr_cpus; c++) {
		after->cpu_lost_overflow[c] -= before->cpu_lost_overflow[c];
		after->cpu_received[c] -= before->cpu_received[c];
	}
}

/* The window decoded into dir, with its counters and kernel symbols. */
static int write_window(struct opd_session *s, const char *dir,
			struct kop_snapshot *snap)
{
	struct opd_stats before, after;
	char why[64];
	int ret, r;

	opd_session_stats(s, &before);
	ret = kop_session_snapshot(s->kop, snap);
	opd_session_drain(s);
	r = opd_sfiles_sync(&s->sfiles);
	if (!r)
		r = opd_chains_sync(&s->chains);
	ret = ret ? ret : r;
	opd_session_stats(s, &after);
	stats_since(&after, &before, snap);
	r = opd_stats_write(&after, s->cfg.sd, dir);
	ret = ret ? ret : r;
	snprintf(why, sizeof(why), "snapshot of %.3f s",
		 (double)(snap->to_ns - snap->from_ns) / 1e9);
	opd_stats_log(&after, &s->cfg.log, why);
	opd_stats_release(&before);
	opd_stats_release(&after);
	opd_session_write_sums(s, dir, "snapshot");
	r = opd_ksyms_save(s->cfg.sd, dir, "/proc");
	if (r && r != -ENODATA)
		op_log(&s->cfg.log, OP_LOG_WARN,
		       "snapshot: cannot save the kernel symbols in %s/stats: %s",
		       dir, strerror(-r));
	return ret;
}

/* Put tmp where target is: beside it, so a rename; current is swapped
 * (it is a directory with contents), a saved session must not exist. A
 * link in the old current is left where it is, in its .current-old-PID,
 * and named in the log. */
static int put_in_place(const struct op_sessdir *sd, const char *samples_dir,
			const char *tmp, const char *target, bool replace,
			const struct op_logger *lg, char *err, size_t errlen)
{
	char old[PATH_MAX], why[PATH_MAX + 64], refused[PATH_MAX];
	int ret;

	if (!replace) {
		ret = op_sd_rename(sd, tmp, target, RENAME_NOREPLACE);
		if (ret) {
			if (ret == -ELOOP)	/* the link is at target */
				op_sd_explain(sd, target, ret, why, sizeof(why));
			else
				op_sd_explain(sd, tmp, ret, why, sizeof(why));
			snprintf(err, errlen, "cannot move %s to %s: %s", tmp,
				 target, why);
			return ret;
		}
		return 0;
	}
	if ((size_t)snprintf(old, sizeof(old), "%s/.current-old-%d", samples_dir,
			     (int)getpid()) >= sizeof(old))
		return -ENAMETOOLONG;
	ret = op_sd_rename(sd, tmp, target, RENAME_EXCHANGE);
	if (ret) {
		if (ret != -ENOENT) {
			op_sd_explain(sd, ret == -ELOOP ? target : tmp, ret, why,
				      sizeof(why));
			snprintf(err, errlen, "cannot swap %s and %s: %s", tmp,
				 target, why);
			return ret;
		}
		/* no current/ at all: the snapshot becomes it */
		return put_in_place(sd, samples_dir, tmp, target, false, lg, err,
				    errlen);
	}
	/* tmp holds the old current now */
	if (op_sd_rename(sd, tmp, old, 0) == 0)
		ret = op_sd_remove_tree(sd, old, refused, sizeof(refused));
	else
		ret = op_sd_remove_tree(sd, tmp, refused, sizeof(refused));
	if (ret == -ELOOP)
		op_log(lg, OP_LOG_WARN, "snapshot: the old %s not all removed: %s",
		       target, op_sd_explain(sd, refused, ret, why, sizeof(why)));
	return 0;
}

int opd_session_snapshot(struct opd_session *s, const char *samples_dir,
			 const char *name, struct kop_snapshot *snap,
			 char *err, size_t errlen)
{
	bool replace = !strcmp(name, "current");
	char target[PATH_MAX], tmp[PATH_MAX], why[PATH_MAX + 64];
	struct kop_snapshot mine;
	struct stat st;
	int ret, r;

	if (!snap)
		snap = &mine;
	memset(snap, 0, sizeof(*snap));
	if (!s->cfg.flight_seconds) {
		snprintf(err, errlen, "not a flight recorder (opcontrol --setup --flight-recorder=SECONDS)");
		return -EINVAL;
	}
	if (!s->kop || !s->kop_started) {
		snprintf(err, errlen, "the flight recorder has not been started (opcontrol --start)");
		return -EINVAL;
	}
	if ((size_t)snprintf(target, sizeof(target), "%s/%s", samples_dir, name) >= sizeof(target) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.snapshot-%d", samples_dir, name,
			     (int)getpid()) >= sizeof(tmp)) {
		snprintf(err, errlen, "session name too long");
		return -ENAMETOOLONG;
	}
	ret = op_sd_stat(s->cfg.sd, target, &st);
	if (!ret && S_ISLNK(st.st_mode)) {
		op_sd_explain(s->cfg.sd, target, -ELOOP, why, sizeof(why));
		snprintf(err, errlen, "%s", why);
		return -ELOOP;
	}
	if (!replace && !ret) {
		snprintf(err, errlen, "session %s already exists", target);
		return -EEXIST;
	}
	if (ret && ret != -ENOENT) {
		op_sd_explain(s->cfg.sd, target, ret, why, sizeof(why));
		snprintf(err, errlen, "cannot look at %s: %s", target, why);
		return ret;
	}
	/* a crashed snapshot's leftovers */
	ret = op_sd_remove_tree(s->cfg.sd, tmp, why, sizeof(why));
	if (ret == -ELOOP) {
		char rel[PATH_MAX + 64];

		snprintf(rel, sizeof(rel), "%s", why);
		op_sd_explain(s->cfg.sd, *rel ? rel : tmp, ret, why, sizeof(why));
		snprintf(err, errlen, "%s", why);
		return ret;
	}
	ret = op_sd_mkdirs(s->cfg.sd, tmp, 0755);
	if (ret) {
		op_sd_explain(s->cfg.sd, tmp, ret, why, sizeof(why));
		snprintf(err, errlen, "cannot create %s: %s", tmp, why);
		return ret;
	}
	ret = retarget(s, tmp);
	if (!ret)
		ret = write_window(s, tmp, snap);
	r = retarget(s, s->cfg.current_dir);
	if (ret) {
		op_sd_explain(s->cfg.sd, tmp, ret, why, sizeof(why));
		snprintf(err, errlen, "cannot write the snapshot in %s: %s", tmp, why);
		op_sd_remove_tree(s->cfg.sd, tmp, NULL, 0);
		return ret;
	}
	if (r)
		op_log(&s->cfg.log, OP_LOG_WARN,
		       "snapshot: cannot reopen the sample files in %s: %s",
		       s->cfg.current_dir, strerror(-r));
	ret = put_in_place(s->cfg.sd, samples_dir, tmp, target, replace, &s->cfg.log,
			   err, errlen);
	if (ret) {
		op_sd_remove_tree(s->cfg.sd, tmp, NULL, 0);
		return ret;
	}
	op_log(&s->cfg.log, OP_LOG_INFO,
	       "snapshot: %llu samples of the last %.3f s in %s, %llu lost in it by earlier snapshots' pauses (output paused %.1f ms, %llu samples lost meanwhile)",
	       (unsigned long long)snap->nr_samples,
	       (double)(snap->to_ns - snap->from_ns) / 1e9, target,
	       (unsigned long long)snap->nr_lost_in_window,
	       (double)snap->paused_ns / 1e6,
	       (unsigned long long)snap->nr_lost_paused);
	return 0;
}
