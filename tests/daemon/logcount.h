/* The daemon tests' log callback: log lines are counted so that "logged
 * once" can be checked (test_decode.c, test_decode_files.c). */
#ifndef LOGCOUNT_H
#define LOGCOUNT_H

#include <stdio.h>

#include "op_log.h"

struct logcount {
	int nr_warn;		/* warnings and errors */
	char last[512];		/* the last message */
};

static inline void count_log(void *ctx, enum op_log_level level, const char *msg)
{
	struct logcount *lc = ctx;

	if (level <= OP_LOG_WARN)
		lc->nr_warn++;
	snprintf(lc->last, sizeof(lc->last), "%s", msg);
}

#endif /* LOGCOUNT_H */
