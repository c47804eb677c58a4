/* fuzz-sources: kmod/kop_perf.c kmod/kop_ring.c kmod/kop_dcookie.c kmod/kop_root.c kmod/kop_cgroup.c kmod/kop_keep.c kmod/kop_task.c kmod/kop_evbuf.c kmod/kop_sync.c kmod/kop_sync_thread.c kmod/kop_flight.c kmod/kop_emit.c kmod/kop_sync_unwind.c kmod/kop_unwind.c kmod/kop_unwind_rows.c kmod/kop_session.c kmod/kop_session_rings.c libop/op_config.c libop/op_kernel.c libop/op_afile.c libop/op_sessdir.c libop/op_sessdir_dir.c libop/op_log.c libop/op_perf.c libop/op_proto.c libop/op_vdso.c tests/kmod/fake_ring.c tests/kmod/stream_walk.c */
/* fuzz-libs: -ldw -lelf */
/* Fuzz the ring reader and the sync: the input is the bytes the "kernel"
 * wrote into CPU 0's sample ring (the first byte picks where in the ring
 * they start, so records wrap), the second half into CPU 1's side-band
 * ring. Whatever the bytes, the pipeline must not crash, and the stream
 * it writes must decode: known codes, whole sequences. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_ring.h"
#include "kop.h"
#include "kop_session.h"
#include "op_proto.h"
#include "stream_walk.h"

static char proc_root[64];

static void make_proc(void)
{
	static const char ksyms[] = "ffffffff81000000 T _text\nffffffff82000000 T _etext\n";
	static const char maps[] = "00400000-00402000 r-xp 00000000 08:01 7 /bin/fuzz\n";
	char p[128];
	FILE *f;

	snprintf(proc_root, sizeof(proc_root), "/tmp/kop-fuzz-proc.%d", (int)getpid());
	mkdir(proc_root, 0755);
	snprintf(p, sizeof(p), "%s/kallsyms", proc_root);
	f = fopen(p, "w");
	if (f) {
		fputs(ksyms, f);
		fclose(f);
	}
	snprintf(p, sizeof(p), "%s/1", proc_root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/1/maps", proc_root);
	f = fopen(p, "w");
	if (f) {
		fputs(maps, f);
		fclose(f);
	}
}

/* Place len bytes in r's data area as if written from offset start, and
 * tell the session's reader of that ring that it has read up to there
 * (the sync thread is idle: nothing wakes it before kop_session_sync). */
static void fill(struct kop_session *s, struct fake_ring *r, size_t start,
		 const uint8_t *data, size_t len)
{
	struct perf_event_mmap_page *pg = (void *)r->mem;
	unsigned char *d = r->mem + pg->data_offset;
	size_t size = pg->data_size;

	len &= ~(size_t)7;
	if (len > size)
		len = size;
	start &= size - 1 & ~(size_t)7;
	for (size_t i = 0; i < len; i++)
		d[(start + i) & (size - 1)] = data[i];
	pg->data_tail = start;
	pg->data_head = start + len;
	for (size_t i = 0; i < s->nr_rings; i++)
		if (s->rings[i].base == r->mem)
			s->rings[i].tail = start;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct perf_event_attr ev = { .size = sizeof(ev),
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 100000 };
	struct fake_src src = { .nr_cpus = 2 };
	struct kop_config cfg = {
		.events = &ev, .nr_events = 1, .pid = -1,
		.cpu_buffer_size = 8192, .evbuf_words = 4096,
		.sync_interval_ms = 600000, .ops = &fake_ops, .ops_ctx = &src,
	};
	struct stream_state st = { 0 };
	struct kop_session *s;
	uint64_t buf[4096];
	ssize_t n;
	size_t half;

	if (!proc_root[0])
		make_proc();
	if (size < 1)
		return 0;
	cfg.proc_root = proc_root;
	/* the first byte's low bits (below the ring offset's granularity)
	 * choose the sample layout: with a chain, and with the user
	 * registers and a stack copy unwound (--unwind=dwarf) */
	if (data[0] & 1)
		cfg.callgraph_depth = 8;
	if ((data[0] & 3) == 3)
		cfg.unwind_stack_bytes = 256;
	if (kop_session_new(&cfg, &s))
		return 0;
	if (kop_session_start(s)) {
		kop_session_free(s);
		return 0;
	}
	half = (size - 1) / 2;
	fill(s, fake_find(&src, 0, 0), (size_t)data[0] * 64, data + 1, half);
	fill(s, fake_find(&src, 1, 1), 0, data + 1 + half, size - 1 - half);
	kop_session_sync(s);
	kop_session_stop(s);
	while ((n = kop_evbuf_read(s, buf, 4096, 0)) > 0)
		if (stream_walk(&st, buf, (size_t)n, NULL, NULL, NULL))
			abort();	/* kmod wrote a bad stream */
	kop_session_free(s);
	return 0;
}
