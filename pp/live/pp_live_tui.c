/* optop's terminal view: ncurses, one screen. Line 0 the status (the
 * interval, its samples and losses, the profiler), line 1 the display's
 * choices and their keys, then the table, the selected row reversed and,
 * after Enter, its callers under it. Every key acts at once on the cells
 * the last refresh left (pp_live_view.h), without reading the session. */
#include "config.h"
#include "pp_live_tui.h"

#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CALLERS 8
#define FILTER_MAX 64

struct tui {
	struct pp_live_top *t;
	struct pp_live_show show;
	struct pp_live_rows rows;
	size_t sel, top_row;	/* selected row, first row on screen */
	uint32_t sel_sym;	/* kept across refreshes */
	bool expand;		/* the selected row's callers shown */
	char filter[FILTER_MAX + 1];
	char note[160];		/* a one-off message on line 1 */
	bool first;		/* no interval yet */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int rebuild(struct tui *u)
{
	pp_live_rows_release(&u->rows);
	u->show.filter = u->filter[0] ? u->filter : NULL;
	if (pp_live_rows_build(&u->t->view, &u->show, &u->rows))
		return -ENOMEM;
	/* the same symbol stays selected when it is still there */
	u->sel = 0;
	for (size_t i = 0; i < u->rows.nr; i++) {
		if (u->rows.v[i].sym == u->sel_sym) {
			u->sel = i;
			break;
		}
	}
	if (u->rows.nr)
		u->sel_sym = u->rows.v[u->sel].sym;
	return 0;
}

static void draw_row(const struct tui *u, int y, const struct pp_live_row *r,
		     uint64_t all, const char *lead)
{
	const struct pp_live_view *v = &u->t->view;
	const struct pp_live_sym *s = &v->syms[r->sym];
	char line[512];
	int n;

	n = snprintf(line, sizeof(line), "%s%10" PRIu64 " %7.2f", lead, r->n,
		     all ? 100.0 * (double)r->n / (double)all : 0.0);
	for (size_t c = 0; r->cpu && c < u->rows.nr_cpus && n < (int)sizeof(line); c++)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " %8" PRIu64, r->cpu[c]);
	if (n < (int)sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n, "  %-20s %s",
			 v->images[s->image].name, s->name);
	mvaddnstr(y, 0, line, COLS);
}

static int draw_callers(const struct tui *u, int y, int max_y)
{
	const struct pp_live_view *v = &u->t->view;
	struct pp_live_rows c;

	if (!v->has_arcs) {
		mvaddnstr(y++, 0, "      (no call chains: opcontrol --callgraph=N, "
			  "or optop -g for its own profile)", COLS);
		return y;
	}
	if (pp_live_callers(v, u->rows.v[u->sel].sym, u->show.totals, &c))
		return y;
	if (!c.nr)
		mvaddnstr(y++, 0, "      (no callers recorded)", COLS);
	for (size_t i = 0; i < c.nr && i < MAX_CALLERS && y < max_y; i++)
		draw_row(u, y++, &c.v[i], c.all, "   <- ");
	pp_live_rows_release(&c);
	return y;
}

static void draw(struct tui *u)
{
	char status[PATH_MAX + 512], line[512];
	int y = 3, n;

	erase();
	pp_live_top_status(u->t, u->show.totals, status, sizeof(status));
	attron(A_BOLD);
	mvaddnstr(0, 0, u->first ? "optop: waiting for the first interval..." :
		  status, COLS);
	attroff(A_BOLD);
	if (u->note[0]) {
		mvaddnstr(1, 0, u->note, COLS);
	} else {
		snprintf(line, sizeof(line), "[t] %s  [c] per-CPU %s  [k] kernel %s  "
			 "[u] user %s  [/] filter %s  [s] by %s  [Enter] callers  [q] quit",
			 u->show.totals ? "totals" : "interval",
			 u->show.per_cpu ? "on" : "off",
			 u->show.hide_kernel ? "hidden" : "shown",
			 u->show.hide_user ? "hidden" : "shown",
			 u->filter[0] ? u->filter : "-",
			 u->show.sort == PP_LIVE_BY_NAME ? "name" : "samples");
		mvaddnstr(1, 0, line, COLS);
	}
	n = snprintf(line, sizeof(line), "%10s %7s", "samples", "%");
	for (size_t c = 0; c < u->rows.nr_cpus && n < (int)sizeof(line); c++) {
		char name[24];

		snprintf(name, sizeof(name), "cpu%zu", c);
		n += snprintf(line + n, sizeof(line) - (size_t)n, " %8s", name);
	}
	if (u->show.per_cpu && !u->rows.nr_cpus && n < (int)sizeof(line))
		n += snprintf(line + n, sizeof(line) - (size_t)n, " (not separated by cpu)");
	if (n < (int)sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n, "  %-20s %s", "image", "symbol");
	attron(A_UNDERLINE);
	mvaddnstr(2, 0, line, COLS);
	attroff(A_UNDERLINE);
	/* keep the selection on screen */
	if (u->sel < u->top_row)
		u->top_row = u->sel;
	if (LINES > 4 && u->sel >= u->top_row + (size_t)(LINES - 4))
		u->top_row = u->sel - (size_t)(LINES - 4) + 1;
	for (size_t i = u->top_row; i < u->rows.nr && y < LINES; i++) {
		if (i == u->sel)
			attron(A_REVERSE);
		draw_row(u, y++, &u->rows.v[i], u->rows.all, "");
		if (i == u->sel)
			attroff(A_REVERSE);
		if (i == u->sel && u->expand)
			y = draw_callers(u, y, LINES);
	}
	refresh();
}

/* '/': the filter typed on line 1; Enter keeps it, Escape drops it. */
static void read_filter(struct tui *u)
{
	char buf[FILTER_MAX + 1];
	size_t n = 0;
	int ch;

	buf[0] = '\0';
	timeout(-1);
	for (;;) {
		move(1, 0);
		clrtoeol();
		mvprintw(1, 0, "filter (image or process, Enter to keep, Esc to "
			 "clear): %s", buf);
		refresh();
		ch = getch();
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
			break;
		if (ch == 27) {
			n = 0;
			buf[0] = '\0';
			break;
		}
		if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n) {
			buf[--n] = '\0';
		} else if (ch >= 32 && ch < 127 && n < FILTER_MAX) {
			buf[n++] = (char)ch;
			buf[n] = '\0';
		}
	}
	memcpy(u->filter, buf, n + 1);
}

/* A key: true when it changed what the table shows. */
static bool key(struct tui *u, int ch, bool *done)
{
	u->note[0] = '\0';
	switch (ch) {
	case 'q': case 'Q':
		*done = true;
		return false;
	case 't':
		u->show.totals = !u->show.totals;
		return true;
	case 'c':
		u->show.per_cpu = !u->show.per_cpu;
		return true;
	case 'k':
		u->show.hide_kernel = !u->show.hide_kernel;
		return true;
	case 'u':
		u->show.hide_user = !u->show.hide_user;
		return true;
	case 's':
		u->show.sort = u->show.sort == PP_LIVE_BY_NAME ? PP_LIVE_BY_SAMPLES :
			       PP_LIVE_BY_NAME;
		return true;
	case '/':
		read_filter(u);
		return true;
	case '\n': case '\r': case KEY_ENTER:
		u->expand = !u->expand && u->rows.nr;
		return false;
	case KEY_UP: case 'p':
		if (u->sel)
			u->sel--;
		break;
	case KEY_DOWN: case 'j':
		if (u->sel + 1 < u->rows.nr)
			u->sel++;
		break;
	case KEY_PPAGE:
		u->sel = u->sel > (size_t)LINES ? u->sel - (size_t)LINES : 0;
		break;
	case KEY_NPAGE:
		u->sel += (size_t)LINES;
		if (u->sel >= u->rows.nr)
			u->sel = u->rows.nr ? u->rows.nr - 1 : 0;
		break;
	case KEY_HOME:
		u->sel = 0;
		break;
	default:		/* KEY_RESIZE redraws; any other key is ignored */
		return false;
	}
	if (u->rows.nr)
		u->sel_sym = u->rows.v[u->sel].sym;
	u->expand = false;
	return false;
}

int pp_live_tui_run(struct pp_live_top *t, double delay_s,
		    struct pp_live_show show, volatile sig_atomic_t *quit)
{
	struct tui u = { .t = t, .show = show, .first = true,
			 .sel_sym = PP_LIVE_NO_TAG };
	double next;
	bool done = false;
	SCREEN *scr;
	int ret = 0;

	if (show.filter)
		snprintf(u.filter, sizeof(u.filter), "%s", show.filter);
	scr = newterm(NULL, stdout, stdin);
	if (!scr)
		return -ENOTTY;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	/* Escape alone, at once */
	set_escdelay(25);
	if (pp_live_top_refresh(t))	/* the baseline */
		ret = -ENOMEM;
	next = now_s() + delay_s;
	draw(&u);
	while (!ret && !done && !*quit) {
		double left = next - now_s();
		int ch;

		if (left <= 0) {
			pp_live_top_refresh(t);
			u.first = false;
			next += delay_s;
			if (next < now_s())
				next = now_s() + delay_s;
			ret = rebuild(&u);
			draw(&u);
			continue;
		}
		/* wake at least every 250 ms: a signal's quit is seen soon */
		timeout(left > 0.25 ? 250 : (int)(left * 1000) + 1);
		ch = getch();
		if (ch == ERR)
			continue;
		if (key(&u, ch, &done))
			ret = rebuild(&u);
		if (!done)
			draw(&u);
	}
	pp_live_rows_release(&u.rows);
	endwin();
	delscreen(scr);
	return ret;
}
