#include "config.h"
#include "fake_ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kop_ring.h"

static int fake_open(void *ctx, struct perf_event_attr *attr, pid_t pid,
		     int cpu)
{
	struct fake_src *f = ctx;
	struct fake_ring *r;
	unsigned int ev = 0;

	if (f->fail_open_errno)
		return -f->fail_open_errno;
	if (f->nr_rings == FAKE_MAX_RINGS)
		return -EMFILE;
	for (int i = 0; i < f->nr_rings; i++)
		ev += f->rings[i].cpu == cpu;
	r = &f->rings[f->nr_rings];
	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	r->event = ev;
	r->attr = *attr;
	return f->nr_rings++;
}

static void *fake_map(void *ctx, int handle, size_t len, bool writable)
{
	struct fake_src *f = ctx;
	struct fake_ring *r = &f->rings[handle];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pg;

	r->mem = aligned_alloc(page, len);
	if (!r->mem)
		return NULL;
	memset(r->mem, 0, len);
	pg = (void *)r->mem;
	pg->data_offset = page;
	pg->data_size = len - page;
	r->len = len;
	r->backward = !writable;
	return r->mem;
}

static void fake_unmap(void *ctx, int handle, void *base, size_t len)
{
	struct fake_src *f = ctx;

	free(base);
	f->rings[handle].mem = NULL;
}

static int fake_enable(void *ctx, int handle)
{
	((struct fake_src *)ctx)->rings[handle].enabled = true;
	return 0;
}

static int fake_disable(void *ctx, int handle)
{
	((struct fake_src *)ctx)->rings[handle].enabled = false;
	return 0;
}

static void fake_close(void *ctx, int handle)
{
}

static int fake_nr_cpus(void *ctx)
{
	return ((struct fake_src *)ctx)->nr_cpus;
}

static bool fake_cpu_online(void *ctx, int cpu)
{
	return !(((struct fake_src *)ctx)->offline & (1UL << cpu));
}

static int fake_pause_output(void *ctx, int handle, bool pause)
{
	struct fake_src *f = ctx;

	f->rings[handle].paused = pause;
	if (pause)
		f->rings[handle].nr_lost_paused += f->lost_on_pause;
	return 0;
}

static int fake_read_lost(void *ctx, int handle, uint64_t *lost)
{
	*lost = ((struct fake_src *)ctx)->rings[handle].nr_lost_paused;
	return 0;
}

const struct kop_source_ops fake_ops = {
	.open = fake_open, .map = fake_map, .unmap = fake_unmap,
	.enable = fake_enable, .disable = fake_disable, .close = fake_close,
	.nr_cpus = fake_nr_cpus, .cpu_online = fake_cpu_online,
	.pause_output = fake_pause_output, .read_lost = fake_read_lost,
};

bool fake_write_backward(struct fake_ring *r, const void *rec, size_t size)
{
	struct perf_event_mmap_page *pg = (void *)r->mem;
	unsigned char *data = r->mem + pg->data_offset;
	uint64_t mask = pg->data_size - 1;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_RELAXED) - size;
	uint64_t off = head & mask, first = pg->data_size - off;

	if (r->paused) {
		r->nr_lost_paused++;
		return false;
	}
	if (first >= size) {
		memcpy(data + off, rec, size);
	} else {
		memcpy(data + off, rec, first);
		memcpy(data, (const unsigned char *)rec + first, size - first);
	}
	/* publish the record; pairs with the reader's load-acquire */
	__atomic_store_n(&pg->data_head, head, __ATOMIC_RELEASE);
	return true;
}

struct fake_ring *fake_find(struct fake_src *f, int cpu, unsigned int event)
{
	for (int i = 0; i < f->nr_rings; i++)
		if (f->rings[i].cpu == cpu && f->rings[i].event == event)
			return &f->rings[i];
	return NULL;
}

size_t fake_room(struct fake_ring *r)
{
	struct perf_event_mmap_page *pg = (void *)r->mem;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_RELAXED);
	/* pairs with the consumer's store-release of data_tail */
	uint64_t tail = __atomic_load_n(&pg->data_tail, __ATOMIC_ACQUIRE);

	return (size_t)(pg->data_size - (head - tail));
}

bool fake_write(struct fake_ring *r, const void *rec, size_t size)
{
	struct perf_event_mmap_page *pg = (void *)r->mem;
	unsigned char *data = r->mem + pg->data_offset;
	uint64_t mask = pg->data_size - 1;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_RELAXED);
	uint64_t off = head & mask, first;

	if (fake_room(r) < size)
		return false;
	first = pg->data_size - off;
	if (first >= size) {
		memcpy(data + off, rec, size);
	} else {
		memcpy(data + off, rec, first);
		memcpy(data, (const unsigned char *)rec + first, size - first);
	}
	/* publish the record; pairs with the consumer's load-acquire */
	__atomic_store_n(&pg->data_head, head + size, __ATOMIC_RELEASE);
	return true;
}

static size_t put_id(unsigned char *p, size_t off, uint32_t pid,
		     uint64_t time)
{
	struct kop_sample_id id = { pid, pid, time };

	memcpy(p + off, &id, sizeof(id));
	return off + sizeof(id);
}

static void put_header(void *buf, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = { type, misc, (uint16_t)size };

	memcpy(buf, &h, sizeof(h));
}

size_t fake_sample(void *buf, bool kernel, uint32_t pid, uint32_t tid,
		   uint64_t time, uint64_t ip)
{
	struct kop_sample_rec s = {
		.h = { PERF_RECORD_SAMPLE,
		       kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
		       sizeof(s) },
		.ip = ip, .pid = pid, .tid = tid, .time = time,
	};

	memcpy(buf, &s, sizeof(s));
	return sizeof(s);
}

size_t fake_sample_chain(void *buf, bool kernel, uint32_t pid, uint32_t tid,
			 uint64_t time, uint64_t ip, uint64_t nr_said,
			 const uint64_t *chain, uint64_t nr)
{
	unsigned char *p = buf;
	size_t n = fake_sample(buf, kernel, pid, tid, time, ip);
	struct perf_event_header h;

	memcpy(p + n, &nr_said, 8);
	memcpy(p + n + 8, chain, nr * 8);
	n += 8 + nr * 8;
	memcpy(&h, p, sizeof(h));
	h.size = (uint16_t)n;
	memcpy(p, &h, sizeof(h));
	return n;
}

size_t fake_mmap2(void *buf, uint32_t pid, uint64_t addr, uint64_t len,
		  uint64_t pgoff, uint32_t maj, uint32_t min, uint64_t ino,
		  const char *name, uint64_t time)
{
	unsigned char *p = buf;
	uint32_t prot = 5, flags = 2;	/* PROT_READ|PROT_EXEC, MAP_PRIVATE */
	uint64_t gen = 0;
	size_t nlen = strlen(name) + 1, off = 8;

	memset(p, 0, 4096);
	memcpy(p + off, &pid, 4);
	memcpy(p + off + 4, &pid, 4);
	memcpy(p + off + 8, &addr, 8);
	memcpy(p + off + 16, &len, 8);
	memcpy(p + off + 24, &pgoff, 8);
	memcpy(p + off + 32, &maj, 4);
	memcpy(p + off + 36, &min, 4);
	memcpy(p + off + 40, &ino, 8);
	memcpy(p + off + 48, &gen, 8);
	memcpy(p + off + 56, &prot, 4);
	memcpy(p + off + 60, &flags, 4);
	off += 64;
	memcpy(p + off, name, nlen);
	off += (nlen + 7) & ~(size_t)7;
	off = put_id(p, off, pid, time);
	put_header(p, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, off);
	return off;
}

size_t fake_comm(void *buf, bool exec, uint32_t pid, const char *comm,
		 uint64_t time)
{
	unsigned char *p = buf;
	size_t nlen = strlen(comm) + 1, off = 8;

	memset(p, 0, 4096);
	memcpy(p + off, &pid, 4);
	memcpy(p + off + 4, &pid, 4);
	off += 8;
	memcpy(p + off, comm, nlen);
	off += (nlen + 7) & ~(size_t)7;
	off = put_id(p, off, pid, time);
	put_header(p, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0,
		   off);
	return off;
}

size_t fake_task(void *buf, bool is_exit, uint32_t pid, uint32_t ppid,
		 uint64_t time)
{
	unsigned char *p = buf;
	uint32_t v[4] = { pid, ppid, pid, ppid };
	size_t off = 8;

	memcpy(p + off, v, sizeof(v));
	off += sizeof(v);
	memcpy(p + off, &time, 8);
	off += 8;
	off = put_id(p, off, pid, time);
	put_header(p, is_exit ? PERF_RECORD_EXIT : PERF_RECORD_FORK, 0, off);
	return off;
}

size_t fake_lost(void *buf, uint64_t nr, uint64_t time)
{
	unsigned char *p = buf;
	uint64_t id = 1;
	size_t off = 8;

	memcpy(p + off, &id, 8);
	memcpy(p + off + 8, &nr, 8);
	off += 16;
	off = put_id(p, off, 0, time);
	put_header(p, PERF_RECORD_LOST, 0, off);
	return off;
}

size_t fake_raw(void *buf, uint32_t type, size_t size, uint64_t time)
{
	unsigned char *p = buf;

	memset(p, 0xab, size);
	if (size >= 8 + sizeof(struct kop_sample_id))
		put_id(p, size - sizeof(struct kop_sample_id), 0, time);
	put_header(p, type, 0, size);
	return size;
}
