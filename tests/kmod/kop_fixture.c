/* The kmod unit tests' fixture (kop_fixture.h). */
#include "config.h"
#include "kop_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "kop_evbuf.h"
#include "testutil.h"

const char kop_fixture_kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 t do_something\n"
	"ffffffff82000000 T _etext\n"
	"ffffffffc0002000 t mod_fn\t[ext4]\n";

void capture(void *ctx, enum op_log_level level, const char *msg)
{
	struct fixture *fx = ctx;
	size_t n = strlen(fx->log);

	snprintf(fx->log + n, sizeof(fx->log) - n, "%s\n", msg);
}

void write_under(const char *dir, const char *name, const char *text)
{
	char *p = tu_path(dir, name);

	assert_int_equal(tu_write_file(p, text, strlen(text)), 0);
	free(p);
}

void proc_add(const char *dir, uint32_t pid, const char *maps, const char *exe)
{
	char name[64], *p;

	snprintf(name, sizeof(name), "%u", pid);
	p = tu_path(dir, name);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	snprintf(name, sizeof(name), "%u/maps", pid);
	write_under(dir, name, maps);
	if (exe) {
		snprintf(name, sizeof(name), "%u/exe", pid);
		p = tu_path(dir, name);
		assert_int_equal(symlink(exe, p), 0);
		free(p);
	}
}

void proc_rm(const char *dir, uint32_t pid)
{
	char name[64], *p;

	snprintf(name, sizeof(name), "%u", pid);
	p = tu_path(dir, name);
	assert_int_equal(tu_rm_rf(p), 0);
	free(p);
}

struct perf_event_attr cpu_clock(void)
{
	struct perf_event_attr a = { 0 };

	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;
	return a;
}

int fx_setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->c = *state;
	fx->dir = tu_mkdtemp();
	assert_non_null(fx->dir);
	write_under(fx->dir, "kallsyms", kop_fixture_kallsyms);
	fx->src.nr_cpus = 2;
	*state = fx;
	return 0;
}

int fx_teardown(void **state)
{
	struct fixture *fx = *state;

	kop_session_free(fx->s);
	for (int i = 0; i < fx->src.nr_rings; i++)
		assert_null(fx->src.rings[i].mem);	/* every ring unmapped */
	tu_rm_rf(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

void fx_start(struct fixture *fx, const struct perf_event_attr *ev,
		     unsigned int nr_ev, size_t evbuf_words, unsigned int callgraph)
{
	struct kop_config cfg = {
		.events = ev, .nr_events = nr_ev, .pid = -1,
		.cpu_buffer_size = 16384, .evbuf_words = evbuf_words,
		.callgraph_depth = callgraph,
		.sync_interval_ms = 600000, .proc_root = fx->dir,
		.ops = &fake_ops, .ops_ctx = &fx->src,
		.log = { capture, fx, OP_LOG_DEBUG },
	};

	assert_int_equal(kop_session_new(&cfg, &fx->s), 0);
	assert_int_equal(kop_session_start(fx->s), 0);
}

void put_ring(struct fixture *fx, int cpu, unsigned int ring,
		     const void *rec, size_t size)
{
	struct fake_ring *r = fake_find(&fx->src, cpu, ring);

	assert_non_null(r);
	assert_true(fake_write(r, rec, size));
}

void put(struct fixture *fx, int cpu, const void *rec, size_t size)
{
	struct fake_ring *r = fake_find(&fx->src, cpu, 0);

	assert_non_null(r);
	assert_true(fake_write(r, rec, size));
}

void drain(struct fixture *fx)
{
	uint64_t buf[4096];

	while (kop_evbuf_read(fx->s, buf, 4096, 0) > 0)
		;
}
