/* Session paths and the daemonrc settings file.
 *
 * A session directory (default /var/lib/oprofile for root, as OProfile)
 * holds:
 *   daemonrc                settings written by opcontrol --setup
 *   lock                    pid file of the running oprofiled
 *   opd_ctl                 the daemon's control socket (mode 0600)
 *   samples/oprofiled.log   the daemon's log (operf's: samples/operf.log)
 *   samples/current/        the current session's sample files and stats/
 *   samples/NAME/           sessions saved with opcontrol --save=NAME
 *   kept/                   binaries kept from other roots (containers),
 *                           by build-id, for every session here: the
 *                           sample files name them by these paths
 */
#ifndef OP_CONFIG_H
#define OP_CONFIG_H

#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "op_log.h"
#include "op_sessdir.h"

#define OP_DEFAULT_SESSION_DIR "/var/lib/oprofile"
/* operf's session directory, under the directory it runs in; opreport and
 * the other readers look there before OP_DEFAULT_SESSION_DIR. */
#define OP_OPERF_DIR "oprofile_data"

struct op_paths {
	char session_dir[PATH_MAX];
	char daemonrc[PATH_MAX];
	char lock_file[PATH_MAX];
	char ctl_socket[PATH_MAX];	/* fits sockaddr_un? check op_paths_init */
	char samples_dir[PATH_MAX];
	char current_dir[PATH_MAX];
	char log_file[PATH_MAX];
	char keep_dir[PATH_MAX];	/* OP_KEEP_DIR */
};

/* Fill p for session_dir (NULL: the default). Returns 0, or -ENAMETOOLONG
 * (a path does not fit, or the socket path exceeds sun_path), -EINVAL for a
 * relative or empty directory. */
int op_paths_init(struct op_paths *p, const char *session_dir);

/* The same for operf, which runs no daemon: no control socket (ctl_socket
 * is empty, so its length limits nothing) and the log is
 * samples/operf.log, OProfile's operf's name for it. */
int op_paths_init_operf(struct op_paths *p, const char *session_dir);

/* --separate flags */
enum {
	OP_SEP_LIB = 1 << 0,
	OP_SEP_KERNEL = 1 << 1,
	OP_SEP_THREAD = 1 << 2,
	OP_SEP_CPU = 1 << 3,
	OP_SEP_ALL = OP_SEP_LIB | OP_SEP_KERNEL | OP_SEP_THREAD | OP_SEP_CPU,
	/* ours: one sample file per process (the TGID field, TID "all",
	 * which OProfile's daemon never writes and its opreport reads as a
	 * process), which the reports group by the process's container.
	 * thread separates by process already. */
	OP_SEP_CONTAINER = 1 << 4,
};

/* Parse "none", "lib,kernel", "all", "container"... Returns 0 or -EINVAL;
 * on -EINVAL *bad points at the offending token (inside spec). "library"
 * is accepted for "lib", as OProfile's opcontrol spells it; the flags are
 * independent ("all" is OProfile's four, which need no "container"). */
int op_separate_parse(const char *spec, unsigned int *flags, const char **bad);
/* Canonical text ("none", "lib,cpu", "all") into buf. */
void op_separate_format(unsigned int flags, char *buf, size_t len);

#define OP_MAX_EVENTS 8

/* What opcontrol --setup stores and oprofiled is started with. */
struct op_settings {
	char events[OP_MAX_EVENTS][128];	/* "NAME:COUNT:UM:KERNEL:USER" or "default" */
	unsigned int nr_events;
	unsigned int separate;		/* OP_SEP_* */
	unsigned int callgraph_depth;
	unsigned int unwind_stack;	/* --unwind: 0, frame pointers; else
					 * DWARF, copying this many bytes of
					 * each sample's user stack */
	unsigned long buffer_size;	/* event buffer, in words */
	unsigned long buffer_watershed;	/* words */
	unsigned long cpu_buffer_size;	/* per-CPU ring data area, in bytes (power of two pages) */
	char vmlinux[PATH_MAX];		/* empty: none */
	bool no_vmlinux;
	char image[4096];		/* comma list of images, empty: all */
	bool verbose;
	pid_t pid;			/* only this process tree (perf's -p); 0: all */
	char cpus[256];			/* only these CPUs (perf's -C), a list
					 * for op_cpu_list_parse(); empty: all */
	unsigned int flight_seconds;	/* flight recorder's window; 0: off */
	unsigned int keep_mb;		/* the kept/ store's bound, MiB (0:
					 * nothing is kept) */
};

/* The buffer settings: their defaults and their limits live here and
 * nowhere else. opcontrol --setup stores op_settings_default() in
 * daemonrc, oprofiled fills an option it was not given from the same
 * values, and kmod falls back to them for a kop_config field left 0, so a
 * default session runs with these whoever starts it.
 *
 * The event buffer's default size, in words. OProfile's 131072 is 0.3 s of
 * samples at the fastest cpu-clock rate of two CPUs (10 us, two words a
 * sample); a reader that the sampling itself keeps off its CPU for longer
 * than that lost samples to event_lost_overflow in the tests. 2^20 words
 * (8 MiB) absorb 2.6 s. */
#define OP_DEFAULT_BUFFER_WORDS (1UL << 20)
/* With call chains a sample takes two words a frame more: at depth 32 the
 * default holds some 75 ms of samples at that rate, less than the
 * decoder's first moments take when it creates a session's files (it lost
 * 1.1 % of a 10 s run, all at the start; twice the size lost nothing).
 * A session with chains whose buffer size is 0 (the default) gets this
 * many times the default. */
#define OP_CHAIN_BUFFER_FACTOR 4
#define OP_MIN_BUFFER_WORDS 1024UL
#define OP_MAX_BUFFER_WORDS (1UL << 28)
/* The per-CPU ring's data area, in bytes: a power of two pages, at least
 * one. 0 (the default) sizes it from the events' rates: the ring holds
 * OP_AUTO_CPU_BUFFER_MS of samples (with their chains), rounded up to a
 * power of two, between OP_DEFAULT_CPU_BUFFER_BYTES and
 * OP_AUTO_CPU_BUFFER_MAX. At the cpu-clock's 10 us limit a fixed 512 KiB
 * ring held 16 ms, less than a busy machine keeps the sync thread off
 * its CPU: tests/bench/bench_load.sh lost 9 to 11 % of samples with it
 * under two CPU hogs, nothing with 4 MiB. */
#define OP_DEFAULT_CPU_BUFFER_BYTES (512UL * 1024)

/* The store of binaries kept from other roots (containers), beside the
 * session's samples/: SESSION_DIR/kept/. Its default bound: a container's
 * program and libraries are tens of MB, a machine runs a few hundred
 * distinct ones at most. */
#define OP_KEEP_DIR "kept"
#define OP_DEFAULT_KEEP_MB 1024u
#define OP_MAX_KEEP_MB (1u << 24)
#define OP_AUTO_CPU_BUFFER_MS 1000UL
#define OP_AUTO_CPU_BUFFER_MAX (8UL * 1024 * 1024)
#define OP_MAX_CPU_BUFFER_BYTES (1UL << 30)

/* The watershed the reader wakes at when none is given: a quarter of the
 * event buffer, so the reader has three quarters of slack to catch up. */
static inline unsigned long op_default_watershed(unsigned long buffer_words)
{
	return buffer_words / 4;
}

/* Check the buffer settings before anything runs with them: buffer_words
 * within [OP_MIN_BUFFER_WORDS, OP_MAX_BUFFER_WORDS], watershed below
 * buffer_words, cpu_buffer_bytes a power of two number of pages up to
 * OP_MAX_CPU_BUFFER_BYTES. A 0 stands for the default (the watershed's
 * default follows buffer_words), as in oprofiled's options and OProfile's
 * daemonrc. Returns 0, or -EINVAL with a message naming the option as
 * opcontrol spells it ("--buffer-size=...", no trailing newline) in err. */
int op_buffers_check(unsigned long buffer_words, unsigned long watershed,
		     unsigned long cpu_buffer_bytes, char *err, size_t errlen);

/* The cpu buffer part of op_buffers_check(), for kmod, whose event buffer
 * has no floor beyond what holds one sequence. 0 or -EINVAL with err. */
int op_cpu_buffer_check(unsigned long cpu_buffer_bytes, char *err, size_t errlen);

/* Flight-recorder mode (opcontrol --flight-recorder=SECONDS): each CPU's
 * sample ring is written backward and overwritten, and holds the last
 * SECONDS of samples. Its size follows from the window and the event's
 * rate, rounded up to a power of two pages, and is capped: a window that
 * would need more is refused, saying how much it would take.
 *
 * OP_FLIGHT_SLACK_PCT: room above rate * window for records that are not
 * samples (LOST, THROTTLE) and for a rate the kernel overshoots. */
#define OP_FLIGHT_MAX_SECONDS 3600u
#define OP_FLIGHT_MAX_RING_BYTES (256UL << 20)
#define OP_FLIGHT_SLACK_PCT 25

/* The bytes one sample record takes in a ring: the fixed fields, and with
 * call chains (depth callers) the chain: its count, the sampled pc, the
 * callers and up to two context markers; with DWARF unwinding
 * (unwind_stack bytes of stack copy) the user registers and the copy. */
size_t op_flight_record_bytes(unsigned int callgraph_depth,
			      unsigned int unwind_stack);

/* --unwind=fp|dwarf[,STACK_BYTES]: how the user part of call chains is
 * found. "fp" (frame pointers, the default) is 0; "dwarf" copies
 * OP_UNWIND_DEFAULT_STACK bytes of each sample's user stack, "dwarf,N" N
 * bytes, rounded up to a multiple of 8 and capped at the kernel's limit
 * (OP_UNWIND_MAX_STACK; *capped says so). 0 or -EINVAL with the reason in
 * err. */
#define OP_UNWIND_DEFAULT_STACK 8192u
#define OP_UNWIND_MAX_STACK 65528u
int op_unwind_parse(const char *spec, unsigned int *stack, bool *capped,
		    char *err, size_t errlen);
/* "fp" or "dwarf,N" */
void op_unwind_format(unsigned int stack, char *buf, size_t len);

/* The data area of one CPU's flight ring for a window of seconds at
 * rate_hz samples a second of record_bytes each: *bytes, a power of two
 * pages. Returns 0, or -EINVAL (seconds out of 1..OP_FLIGHT_MAX_SECONDS)
 * or -E2BIG (more than OP_FLIGHT_MAX_RING_BYTES) with the reason in err,
 * naming the window, the rate and the memory it would need. */
int op_flight_ring_bytes(unsigned int seconds, double rate_hz,
			 size_t record_bytes, size_t *bytes, char *err,
			 size_t errlen);

/* A name a session can be saved under in samples/ (--save, --snapshot):
 * not empty, no '/', no "..", not "." or "current", no control character,
 * at most NAME_MAX bytes. 0 or -EINVAL with the reason in err. */
int op_session_name_check(const char *name, char *err, size_t errlen);

/* The default name of a snapshot taken at t (local time):
 * "snapshot-YYYYmmdd-HHMMSS". */
void op_snapshot_default_name(time_t t, char *buf, size_t len);

/* A CPU list as perf's -C and opcontrol's --cpu take it: "2", "0-3",
 * "0,2-3". Returns 0 with set filled, or -EINVAL (not a list, or a range
 * that runs backwards) / -ERANGE (a CPU at or above CPU_SETSIZE) with *bad
 * at the offending text inside text. Whether each CPU exists is kmod's
 * to say: this is the syntax, shared by every command. */
int op_cpu_list_parse(const char *text, cpu_set_t *set, const char **bad);

/* Defaults: one "default" event, no separation, OP_DEFAULT_BUFFER_WORDS,
 * op_default_watershed() of it, OP_DEFAULT_CPU_BUFFER_BYTES rings, no
 * vmlinux. */
void op_settings_default(struct op_settings *s);

/* daemonrc is reached through sd (op_sessdir.h).
 * Read daemonrc ("KEY=VALUE" lines, '#' comments, OProfile's key names: see
 * op_config.c). s is first reset to op_settings_default(), so a missing file
 * leaves the defaults and returns 0. Unknown keys and bad values are reported through
 * lg with the file name and line, and skipped. Returns 0 or -errno. */
int op_settings_load(struct op_settings *s, const struct op_sessdir *sd, const char *path,
		     const struct op_logger *lg);

/* Write daemonrc atomically (temporary file + rename). 0 or -errno. */
int op_settings_save(const struct op_settings *s, const struct op_sessdir *sd,
		     const char *path);

#endif /* OP_CONFIG_H */
