/* optop: where the machine spends its time now, as perf top shows it, from
 * a running session (opcontrol's daemon or an operf, found as opreport
 * finds sessions) read without disturbing it, or from a system-wide
 * profile of its own when none runs. This file is the command line and
 * the batch mode's loop; the work is in pp/live/. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <popt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "op_log.h"
#include "pp_cmdline.h"
#include "pp_live_source.h"
#include "pp_live_top.h"
#include "pp_live_tui.h"
#include "pp_live_view.h"

static const char exit_help[] =
	"\nWith no profiler running (opcontrol --start, or operf) in --session-dir,\n"
	"./oprofile_data or /var/lib/oprofile, optop profiles the system itself\n"
	"(" PP_LIVE_SELF_EVENT " unless --event) and removes its profile on exit.\n"
	"\nKeys: q quit, t interval/totals, c per-CPU columns, k kernel, u user,\n"
	"  / filter by image or process, s sort by samples/name, Enter callers\n"
	"  (call-graph sessions), arrows/PgUp/PgDn move.\n"
	"\nExit status: 0 ok, 1 bad option, 3 no session running and none can be\n"
	"  started here, 7 cannot write the output, 8 out of memory\n";

struct cmdline {
	struct pp_cmdline cmd;
	int batch, iterations, lines, totals, no_kernel, no_user, callgraph;
	int callers;		/* -1: not asked for; 0: every row's */
	char *delay, *separate, *event, *filter, *sort;
};

/* ---- logging: kmod's threads log too ---- */

/* While the terminal view owns the screen, messages wait here and are
 * said when it ends (the last HELD of them). log_lock guards all four. */
#define HELD 8
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static bool log_hold;
static char held[HELD][512];
static enum op_log_level held_level[HELD];
static unsigned int nr_held;

static void log_fn(void *ctx, enum op_log_level level, const char *msg)
{
	pthread_mutex_lock(&log_lock);
	if (log_hold) {
		snprintf(held[nr_held % HELD], sizeof(held[0]), "%s", msg);
		held_level[nr_held++ % HELD] = level;
	} else {
		op_log_to_stderr(ctx, level, msg);
	}
	pthread_mutex_unlock(&log_lock);
}

static void log_hold_set(bool hold)
{
	pthread_mutex_lock(&log_lock);
	log_hold = hold;
	if (!hold) {
		unsigned int first = nr_held > HELD ? nr_held - HELD : 0;

		if (first)
			fprintf(stderr, "optop: %u earlier message(s) left out\n", first);
		for (unsigned int i = first; i < nr_held; i++)
			op_log_to_stderr((void *)"optop", held_level[i % HELD],
					 held[i % HELD]);
		nr_held = 0;
	}
	pthread_mutex_unlock(&log_lock);
}

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Sleep until the next refresh, or a signal. */
static void wait_until(const struct timespec *t)
{
	while (!quit && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) == EINTR)
		;
}

static void ts_add(struct timespec *t, double s)
{
	t->tv_sec += (time_t)s;
	t->tv_nsec += (long)((s - floor(s)) * 1e9);
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* Batch mode: a table per interval on stdout, iterations of them (0: until
 * a signal). Returns an exit status. */
static int run_batch(struct pp_live_top *t, double delay, int iterations,
		     const struct pp_live_show *show, const struct pp_live_print *p)
{
	struct timespec next;
	char status[PATH_MAX + 512];

	if (pp_live_top_refresh(t))	/* the baseline */
		return PP_EXIT_NOMEM;
	/* from the baseline's end: it may take long (symbol tables) */
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (int i = 0; !quit && (!iterations || i < iterations); i++) {
		struct pp_live_rows rows;
		struct timespec now;

		ts_add(&next, delay);
		/* behind (a slow refresh, a stopped process): a whole
		 * interval from now, not a burst of short ones */
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > next.tv_sec ||
		    (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec)) {
			next = now;
			ts_add(&next, delay);
		}
		wait_until(&next);
		if (quit)
			break;
		pp_live_top_refresh(t);
		if (pp_live_rows_build(&t->view, show, &rows)) {
			fprintf(stderr, "optop: out of memory\n");
			return PP_EXIT_NOMEM;
		}
		pp_live_top_status(t, show->totals, status, sizeof(status));
		printf("optop: %d: %s\n", i + 1, status);
		if (show->per_cpu && !rows.nr_cpus)
			printf("optop: the session is not separated by CPU: no per-CPU columns\n");
		if (p->callers && !t->view.has_arcs)
			printf("optop: no call chains in the session (yet): no callers "
			       "(opcontrol --callgraph=N, or optop -g)\n");
		if (pp_live_rows_print(stdout, &t->view, &rows, p)) {
			pp_live_rows_release(&rows);
			fprintf(stderr, "optop: out of memory\n");
			return PP_EXIT_NOMEM;
		}
		putchar('\n');
		pp_live_rows_release(&rows);
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "optop: error writing the standard output\n");
			return PP_EXIT_OUTPUT;
		}
	}
	return PP_EXIT_OK;
}

static int check_options(const struct cmdline *cl, double *delay,
			 struct pp_live_show *show)
{
	char *end;

	if (cl->delay) {
		errno = 0;
		*delay = strtod(cl->delay, &end);
		if (errno || end == cl->delay || *end || !(*delay >= 0.1) ||
		    *delay > 3600) {
			fprintf(stderr, "optop: --delay=%s: not a number of seconds "
				"from 0.1 to 3600\n", cl->delay);
			return -EINVAL;
		}
	}
	if (cl->iterations < 0 || cl->lines < 0) {
		fprintf(stderr, "optop: --%s takes a number from 0 up\n",
			cl->iterations < 0 ? "iterations" : "lines");
		return -EINVAL;
	}
	if (cl->iterations && !cl->batch) {
		fprintf(stderr, "optop: --iterations is for --batch\n");
		return -EINVAL;
	}
	if (cl->callers < -1) {
		fprintf(stderr, "optop: --callers takes a number of rows from 0 up\n");
		return -EINVAL;
	}
	if (cl->callers >= 0 && !cl->batch) {
		fprintf(stderr, "optop: --callers is for --batch (Enter shows a "
			"symbol's callers in the terminal view)\n");
		return -EINVAL;
	}
	if (cl->separate && strcmp(cl->separate, "cpu") && strcmp(cl->separate, "none")) {
		fprintf(stderr, "optop: --separate=%s: optop separates by cpu or "
			"none\n", cl->separate);
		return -EINVAL;
	}
	show->per_cpu = cl->separate && !strcmp(cl->separate, "cpu");
	if (cl->sort && strcmp(cl->sort, "samples") && strcmp(cl->sort, "name")) {
		fprintf(stderr, "optop: --sort=%s: sort by samples or name\n", cl->sort);
		return -EINVAL;
	}
	show->sort = cl->sort && !strcmp(cl->sort, "name") ? PP_LIVE_BY_NAME :
		     PP_LIVE_BY_SAMPLES;
	show->totals = cl->totals;
	show->hide_kernel = cl->no_kernel;
	show->hide_user = cl->no_user;
	show->filter = cl->filter;
	return 0;
}

/* The source: a running profiler, or our own profile. An exit status. */
static int open_source(const struct cmdline *cl, struct pp_live_source *src,
		       const struct op_logger *lg)
{
	char tried[PATH_MAX + 64], err[512];
	int ret = pp_live_source_find(src, cl->cmd.opts.session_dir, tried, sizeof(tried));

	if (!ret) {
		if (cl->event || cl->callgraph)
			fprintf(stderr, "optop: a profiler runs in %s: --event and "
				"--callgraph are its own, not optop's\n", src->session_dir);
		return PP_EXIT_OK;
	}
	if (ret != -ENOENT) {
		/* tried says why (a link refused is named) */
		fprintf(stderr, "optop: cannot watch the session: %s\n", tried);
		return PP_EXIT_NO_SESSION;
	}
	if (cl->cmd.opts.session_dir) {
		fprintf(stderr, "optop: no profiler is running in %s (start one "
			"with opcontrol --start, or leave out --session-dir for "
			"optop to profile on its own)\n", cl->cmd.opts.session_dir);
		return PP_EXIT_NO_SESSION;
	}
	/* --callers asks for the chains its callers come from */
	ret = pp_live_source_self(src, cl->event,
				  cl->callgraph || cl->callers >= 0 ? 32 : 0, lg,
				  err, sizeof(err));
	if (ret) {
		fprintf(stderr, "optop: no profiler is running (looked in %s), and "
			"optop cannot profile on its own: %s\n", tried, err);
		return ret == -ENOMEM ? PP_EXIT_NOMEM : PP_EXIT_NO_SESSION;
	}
	return PP_EXIT_OK;
}

int main(int argc, const char **argv)
{
	struct cmdline cl = { .lines = 30, .callers = -1, .cmd = {
		.name = "optop", .exit_help = exit_help,
		.usage = "[--batch [-n N]] [-d SECONDS] [options]",
	} };
	struct poptOption options[] = {
		{ "batch", 'b', POPT_ARG_NONE, &cl.batch, 0,
		  "a plain-text table per interval on stdout, no terminal", NULL },
		{ "iterations", 'n', POPT_ARG_INT, &cl.iterations, 0,
		  "with --batch: stop after N tables (default: until a signal)", "N" },
		{ "delay", 'd', POPT_ARG_STRING, &cl.delay, 0,
		  "the interval (default 2)", "SECONDS" },
		{ "separate", 0, POPT_ARG_STRING, &cl.separate, 0,
		  "cpu: one column per CPU (the session must be separated by cpu)",
		  "cpu|none" },
		{ "totals", 't', POPT_ARG_NONE, &cl.totals, 0,
		  "the running totals since optop started, not the last interval", NULL },
		{ "filter", 'f', POPT_ARG_STRING, &cl.filter, 0,
		  "only images or processes whose name holds TEXT", "TEXT" },
		{ "sort", 's', POPT_ARG_STRING, &cl.sort, 0,
		  "by samples (the default) or by name", "samples|name" },
		{ "no-kernel", 'K', POPT_ARG_NONE, &cl.no_kernel, 0,
		  "hide the kernel and its modules", NULL },
		{ "no-user", 'U', POPT_ARG_NONE, &cl.no_user, 0,
		  "hide user space", NULL },
		{ "lines", 'l', POPT_ARG_INT, &cl.lines, 0,
		  "with --batch: rows per table (default 30, 0: all)", "N" },
		{ "event", 'e', POPT_ARG_STRING, &cl.event, 0,
		  "optop's own profile: sample this event (default " PP_LIVE_SELF_EVENT ")",
		  "NAME:COUNT" },
		{ "callgraph", 'g', POPT_ARG_NONE, &cl.callgraph, 0,
		  "optop's own profile: collect call chains (Enter shows callers)", NULL },
		{ "callers", 0, POPT_ARG_INT | POPT_ARGFLAG_OPTIONAL, &cl.callers, 0,
		  "with --batch: under each of the first N rows (default: every "
		  "row), its callers from the call chains", "N" },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, cl.cmd.rows, 0, NULL, NULL },
		POPT_TABLEEND
	};
	struct op_logger lg = { log_fn, (void *)"optop", OP_LOG_WARN };
	struct pp_report_opts ropts = { 0 };
	struct pp_live_show show = { 0 };
	struct pp_live_print print = { 0 };
	struct pp_live_source src;
	struct pp_live_top top;
	bool have_top = false;
	char *root_debug = NULL;
	double delay = 2.0;
	int rc, status = PP_EXIT_OK;

	status = pp_cmdline_start(&cl.cmd, argc, argv, options);
	if (status || cl.cmd.done)
		goto out;
	if (cl.cmd.nargs) {
		fprintf(stderr, "optop: unexpected argument '%s' (optop takes no "
			"profile specification)\n", cl.cmd.args[0]);
		status = PP_EXIT_USAGE;
		goto out;
	}
	if (check_options(&cl, &delay, &show)) {
		status = PP_EXIT_USAGE;
		goto out;
	}
	if (cl.cmd.opts.verbose)
		lg.max = OP_LOG_DEBUG;
	if (!cl.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "optop: the terminal view needs a terminal; use "
			"--batch for text\n");
		status = PP_EXIT_USAGE;
		goto out;
	}
	ropts.demangle = true;
	if (pp_cmdline_paths(&cl.cmd.opts, NULL, &ropts, &root_debug)) {
		status = PP_EXIT_NOMEM;
		goto out;
	}
	catch_signals();
	status = open_source(&cl, &src, &lg);
	if (status)
		goto out;
	if (pp_live_top_init(&top, &src, &ropts, &lg)) {
		pp_live_source_close(&src);
		status = PP_EXIT_NOMEM;
		goto out;
	}
	have_top = true;
	if (cl.batch) {
		print.max_rows = (size_t)cl.lines;
		print.callers = cl.callers >= 0;
		print.callers_of = cl.callers > 0 ? (size_t)cl.callers : 0;
		print.totals = show.totals;
		status = run_batch(&top, delay, cl.iterations, &show, &print);
	} else {
		log_hold_set(true);
		rc = pp_live_tui_run(&top, delay, show, &quit);
		log_hold_set(false);
		if (rc) {
			fprintf(stderr, "optop: %s\n", rc == -ENOMEM ? "out of memory" :
				"cannot use the terminal (TERM?)");
			status = rc == -ENOMEM ? PP_EXIT_NOMEM : PP_EXIT_USAGE;
		}
	}
out:
	if (have_top)
		pp_live_top_release(&top);
	free(root_debug);
	free(cl.delay);
	free(cl.separate);
	free(cl.event);
	free(cl.filter);
	free(cl.sort);
	pp_cmdline_end(&cl.cmd);
	return status;
}
