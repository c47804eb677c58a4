/* The helpers every room of opcontrol uses: its messages and its clock.
 * A room of their own so that the rooms call down into them and never
 * back into opcontrol.c, which calls the rooms. */
#include "config.h"
#include "opcontrol.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

void opc_err(const char *fmt, ...)
{
	va_list ap;

	fputs("opcontrol: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void opc_sd_err(const struct opc *c, const char *what, const char *path, int err)
{
	char why[PATH_MAX + 128];

	op_sd_explain(&c->sd, path, err, why, sizeof(why));
	if (op_sd_refused(err))
		opc_err("%s: %s", what, why);
	else
		opc_err("%s %s: %s", what, path, why);
}

long opc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

void opc_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}
