/* One logging helper for every module. Libraries never print on their own:
 * they take a struct op_logger and send their messages through it, so the
 * daemon can put them in its log file, a command on stderr, and a test in a
 * buffer it can assert on.
 *
 * Messages follow one form: lowercase, no full stop, subsystem first, what
 * failed next, then the detail ("odb: cannot open samples/x: bad magic").
 */
#ifndef OP_LOG_H
#define OP_LOG_H

#include <stdarg.h>

enum op_log_level {
	OP_LOG_ERR,
	OP_LOG_WARN,
	OP_LOG_INFO,
	OP_LOG_DEBUG,
};

/* Receives one formatted message, without a trailing newline. */
typedef void (*op_log_fn)(void *ctx, enum op_log_level level, const char *msg);

struct op_logger {
	op_log_fn fn;		/* NULL: messages are discarded */
	void *ctx;
	enum op_log_level max;	/* messages above this level are dropped */
};

void op_log(const struct op_logger *lg, enum op_log_level level,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void op_vlog(const struct op_logger *lg, enum op_log_level level,
	     const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

/* An op_log_fn writing "CTX: MSG\n" to stderr, CTX being the program name
 * (a const char *). */
void op_log_to_stderr(void *ctx, enum op_log_level level, const char *msg);

/* An op_log_fn writing "TIMESTAMP LEVEL MSG\n" to a FILE * (ctx), flushed
 * after each message so a crash loses nothing already logged. */
void op_log_to_file(void *ctx, enum op_log_level level, const char *msg);

#endif /* OP_LOG_H */
