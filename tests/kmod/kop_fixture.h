/* The kmod unit tests' fixture: a session over a 2-CPU fake source
 * (fake_ring.h) with /proc and kallsyms in a fresh temporary directory,
 * records put in its rings, and the event stream's words spelt as macros.
 * Used by test_kop.c (the table of cases), test_kop_evbuf.c (the event
 * buffer and the stream) and test_kop_setup.c (what is opened and read). */
#ifndef KOP_FIXTURE_H
#define KOP_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "fake_ring.h"
#include "kop.h"
#include "op_log.h"
#include "op_proto.h"

#define ESC OP_ESCAPE_CODE
#define CPU(n) ESC, OP_CPU_SWITCH, (n)
#define CTX(tid, app, tgid) ESC, OP_CTX_SWITCH, (tid), (app), ESC, OP_CTX_TGID, (tgid)
#define USER ESC, OP_USER_ENTER
#define KERN ESC, OP_KERNEL_ENTER
#define COOKIE(c) ESC, OP_COOKIE_SWITCH, (c)
#define DROPPED(n) ESC, OP_DROPPED, (n)
#define COUNT(n) ESC, OP_SAMPLE_COUNT, (n)
#define MODLOAD ESC, OP_MODULE_LOADED
#define END 0x5a5a5a5a5a5a5a5aULL

/* the fixture's kernel: its text starts here (kop_fixture_kallsyms) */
#define KTEXT 0xffffffff81000000ULL
extern const char kop_fixture_kallsyms[];

struct kcase;

struct fixture {
	const struct kcase *c;	/* test_kop.c's case, or NULL */
	char *dir;		/* the proc root: kallsyms, PID/maps... */
	struct fake_src src;
	struct kop_session *s;
	char log[4096];		/* every message of the session */
};

/* the fixture's rings on each CPU: the one event's, then the side-band one */
#define SIDEBAND_RING 1

/* cmocka setup and teardown: *state is the case before, the fixture after */
int fx_setup(void **state);
int fx_teardown(void **state);
/* a session of nr_ev events started over the fake source */
void fx_start(struct fixture *fx, const struct perf_event_attr *ev,
	      unsigned int nr_ev, size_t evbuf_words, unsigned int callgraph);
/* the cpu-clock event every test samples */
struct perf_event_attr cpu_clock(void);
/* a log callback into fx->log (ctx: the fixture) */
void capture(void *ctx, enum op_log_level level, const char *msg);

/* records into cpu's sample ring (put) or its ring (put_ring) */
void put(struct fixture *fx, int cpu, const void *rec, size_t size);
void put_ring(struct fixture *fx, int cpu, unsigned int ring,
	      const void *rec, size_t size);
/* read and discard what the event buffer holds */
void drain(struct fixture *fx);

/* files under the proc root: one, a process (PID/maps, PID/exe when exe
 * is not NULL), a process gone */
void write_under(const char *dir, const char *name, const char *text);
void proc_add(const char *dir, uint32_t pid, const char *maps, const char *exe);
void proc_rm(const char *dir, uint32_t pid);

#endif /* KOP_FIXTURE_H */
