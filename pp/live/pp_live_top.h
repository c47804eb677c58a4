/* optop's loop, shared by its batch mode (optop.c) and its terminal view
 * (pp_live_tui.c): a source (pp_live_source.h), the scan of its sample
 * files (pp_live.h) and the view of what they gained (pp_live_view.h),
 * refreshed together, with the interval's samples and losses for the
 * status line. */
#ifndef PP_LIVE_TOP_H
#define PP_LIVE_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "pp_live.h"
#include "pp_live_source.h"
#include "pp_live_view.h"

struct pp_live_top {
	struct pp_live_source src;
	struct pp_live_scan scan;
	struct pp_live_view view;
	struct pp_live_status status;	/* at the last refresh */
	struct pp_live_news news;	/* of the last refresh */
	uint64_t refreshes;		/* done; the first is the baseline */
	struct timespec last;		/* when the last refresh began */
	struct timespec start;		/* when the first (the baseline) did */
	double interval_s;		/* from the refresh before to the last */
	uint64_t interval_lost;		/* lost in the last interval, when... */
	bool lost_known;		/* ...the profiler says */
	double refresh_cpu_ms;		/* optop's CPU time of the last refresh */
	bool stopped_said;
};

/* Set up the scan and view on src (taken over). 0 or -ENOMEM. */
int pp_live_top_init(struct pp_live_top *t, const struct pp_live_source *src,
		     const struct pp_report_opts *opts, const struct op_logger *lg);

/* One refresh: a new interval begins with what the files gained since the
 * last, and what the profiler says. 0 or -ENOMEM. */
int pp_live_top_refresh(struct pp_live_top *t);

/* The status line: the interval's length, samples and losses, the
 * profiler and its session. */
void pp_live_top_status(const struct pp_live_top *t, bool totals, char *buf,
			size_t len);

void pp_live_top_release(struct pp_live_top *t);

#endif /* PP_LIVE_TOP_H */
