#include "config.h"
#include "op_log.h"

#include <stdio.h>
#include <time.h>

void op_vlog(const struct op_logger *lg, enum op_log_level level,
	     const char *fmt, va_list ap)
{
	char msg[1024];

	if (!lg || !lg->fn || level > lg->max)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	lg->fn(lg->ctx, level, msg);
}

void op_log(const struct op_logger *lg, enum op_log_level level,
	    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	op_vlog(lg, level, fmt, ap);
	va_end(ap);
}

static const char *const level_names[] = {
	[OP_LOG_ERR] = "error",
	[OP_LOG_WARN] = "warning",
	[OP_LOG_INFO] = "info",
	[OP_LOG_DEBUG] = "debug",
};

void op_log_to_stderr(void *ctx, enum op_log_level level, const char *msg)
{
	const char *prog = ctx ? ctx : "opsampler";

	if (level <= OP_LOG_WARN)
		fprintf(stderr, "%s: %s: %s\n", prog, level_names[level], msg);
	else
		fprintf(stderr, "%s: %s\n", prog, msg);
}

void op_log_to_file(void *ctx, enum op_log_level level, const char *msg)
{
	FILE *f = ctx;
	struct timespec ts;
	struct tm tm;
	char when[32];

	if (!f)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(f, "%s.%03ld %s %s\n", when, ts.tv_nsec / 1000000,
		level_names[level], msg);
	fflush(f);
}
