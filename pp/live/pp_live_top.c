/* optop's refresh: scan, view and profiler's status taken together, and
 * the status line that says what the interval held (pp_live_top.h). */
#include "config.h"
#include "pp_live_top.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static double ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(a->tv_sec - b->tv_sec) + (double)(a->tv_nsec - b->tv_nsec) / 1e9;
}

int pp_live_top_init(struct pp_live_top *t, const struct pp_live_source *src,
		     const struct pp_report_opts *opts, const struct op_logger *lg)
{
	memset(t, 0, sizeof(*t));
	t->src = *src;
	pp_live_view_init(&t->view, opts, lg);
	/* binaries kept in the session are read through it */
	t->view.ropts.sd = &t->src.sd;
	return pp_live_scan_init(&t->scan, &t->src.sd, t->src.current_dir, lg);
}

int pp_live_top_refresh(struct pp_live_top *t)
{
	struct pp_live_status prev = t->status;
	struct timespec now, c0, c1;
	int ret;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	clock_gettime(CLOCK_MONOTONIC, &now);
	pp_live_view_next(&t->view);
	ret = pp_live_scan_refresh(&t->scan, pp_live_view_delta, &t->view, &t->news);
	pp_live_source_poll(&t->src, &t->status);
	t->interval_s = t->refreshes ? ts_diff(&now, &t->last) : 0;
	if (!t->refreshes)
		t->start = now;
	t->last = now;
	/* a restarted profiler counts from zero */
	t->lost_known = t->status.counts_known && (prev.counts_known || t->refreshes == 0);
	if (t->status.restarted || !prev.counts_known)
		t->interval_lost = t->refreshes ? t->status.lost : 0;
	else
		t->interval_lost = t->status.lost >= prev.lost ?
				   t->status.lost - prev.lost : t->status.lost;
	t->refreshes++;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	t->refresh_cpu_ms = ts_diff(&c1, &c0) * 1e3;
	return ret;
}

static const char *kind_name(enum pp_live_kind k)
{
	switch (k) {
	case PP_LIVE_DAEMON: return "oprofiled";
	case PP_LIVE_OPERF: return "operf";
	case PP_LIVE_SELF: return "optop's own profile";
	}
	return "?";
}

void pp_live_top_status(const struct pp_live_top *t, bool totals, char *buf,
			size_t len)
{
	const struct pp_live_view *v = &t->view;
	char lost[96], who[PATH_MAX + 128];
	uint64_t samples = totals ? v->total_samples : v->interval_samples;

	if (!t->lost_known)
		snprintf(lost, sizeof(lost), "lost: unknown (%s tells at its end)",
			 kind_name(t->src.kind));
	else
		snprintf(lost, sizeof(lost), "%" PRIu64 " lost (%.2f %%)",
			 t->interval_lost, samples + t->interval_lost ?
			 100.0 * (double)t->interval_lost /
			 (double)(samples + t->interval_lost) : 0.0);
	if (t->src.kind == PP_LIVE_SELF)
		snprintf(who, sizeof(who), "%s (%s)", kind_name(t->src.kind),
			 t->src.events);
	else if (!t->status.pid)
		snprintf(who, sizeof(who), "%s gone: session %s", kind_name(t->src.kind),
			 t->src.session_dir);
	else
		snprintf(who, sizeof(who), "%s %d%s%s: session %s", kind_name(t->src.kind),
			 (int)t->status.pid, t->status.running ? "" : " (stopped)",
			 t->status.restarted ? " (restarted)" : "", t->src.session_dir);
	if (totals)
		snprintf(buf, len, "since start, %.0f s: %" PRIu64 " samples%s | %s",
			 ts_diff(&t->last, &t->start), samples,
			 v->oom ? " | OUT OF MEMORY: counts incomplete" : "", who);
	else
		snprintf(buf, len, "interval %.2f s: %" PRIu64 " samples, %s%s | %s",
			 t->interval_s, samples, lost,
			 v->oom ? " | OUT OF MEMORY: counts incomplete" : "", who);
}

void pp_live_top_release(struct pp_live_top *t)
{
	pp_live_scan_release(&t->scan);
	pp_live_view_release(&t->view);
	pp_live_source_close(&t->src);
}
