/* In-memory perf rings for driving kmod without the kernel: a
 * kop_source_ops whose "events" are buffers of the exact perf layout (one
 * struct perf_event_mmap_page, then a power-of-two data area) that the
 * test writes records into as the kernel would, publishing data_head with
 * a store-release. */
#ifndef FAKE_RING_H
#define FAKE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kop.h"

#define FAKE_MAX_RINGS 64

struct fake_ring {
	int cpu;
	unsigned int event;
	struct perf_event_attr attr;
	unsigned char *mem;
	size_t len;
	bool enabled;
	uint64_t nr_dropped;	/* records that did not fit: for LOST */
	bool backward;		/* mapped read-only: a flight ring */
	bool paused;		/* its output paused */
	uint64_t nr_lost_paused;	/* records written while paused */
};

struct fake_src {
	int nr_cpus;
	unsigned long offline;	/* bit per cpu */
	struct fake_ring rings[FAKE_MAX_RINGS];
	int nr_rings;
	int fail_open_errno;	/* when set, open fails with it */
	uint64_t lost_on_pause;	/* records each ring loses every time its
				 * output is paused: samples that came
				 * while a snapshot read it */
};

extern const struct kop_source_ops fake_ops;

/* The ring of (cpu, event), or NULL. */
struct fake_ring *fake_find(struct fake_src *f, int cpu, unsigned int event);
/* Append one record; false when the ring has no room. */
bool fake_write(struct fake_ring *r, const void *rec, size_t size);
/* Write one record into a backward ring below the last, as the kernel
 * does with write_backward, overwriting the oldest; false (and counted in
 * nr_lost_paused) while the ring is paused. */
bool fake_write_backward(struct fake_ring *r, const void *rec, size_t size);
/* Bytes free in the ring. */
size_t fake_room(struct fake_ring *r);

/* Record builders: write into buf (>= 4096 bytes), return the size. */
size_t fake_sample(void *buf, bool kernel, uint32_t pid, uint32_t tid,
		   uint64_t time, uint64_t ip);
/* A sample with PERF_SAMPLE_CALLCHAIN: the count nr_said, then nr
 * entries of chain, after the fixed fields, as the kernel lays them out
 * (markers included). nr_said != nr makes a record that lies. */
size_t fake_sample_chain(void *buf, bool kernel, uint32_t pid, uint32_t tid,
			 uint64_t time, uint64_t ip, uint64_t nr_said,
			 const uint64_t *chain, uint64_t nr);
size_t fake_mmap2(void *buf, uint32_t pid, uint64_t addr, uint64_t len,
		  uint64_t pgoff, uint32_t maj, uint32_t min, uint64_t ino,
		  const char *name, uint64_t time);
size_t fake_comm(void *buf, bool exec, uint32_t pid, const char *comm,
		 uint64_t time);
size_t fake_task(void *buf, bool is_exit, uint32_t pid, uint32_t ppid,
		 uint64_t time);
size_t fake_lost(void *buf, uint64_t nr, uint64_t time);
size_t fake_raw(void *buf, uint32_t type, size_t size, uint64_t time);

#endif
