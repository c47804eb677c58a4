/* optop's terminal view (ncurses): the table of the last interval (or the
 * running totals), refreshed every interval, and the keys that change what
 * it shows. Nothing here reads a session: pp_live_top refreshes, this
 * draws. */
#ifndef PP_LIVE_TUI_H
#define PP_LIVE_TUI_H

#include <signal.h>

#include "pp_live_top.h"
#include "pp_live_view.h"

/* Run until 'q' or *quit (set by a signal handler), refreshing t every
 * delay_s seconds; show is the display's first state. The terminal is
 * left as it was found. 0, or -ENOTTY when the terminal cannot be used,
 * -ENOMEM. */
int pp_live_tui_run(struct pp_live_top *t, double delay_s,
		    struct pp_live_show show, volatile sig_atomic_t *quit);

#endif /* PP_LIVE_TUI_H */
