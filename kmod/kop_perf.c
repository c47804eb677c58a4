/* The real source: perf_event_open(2), mmap(2) and ioctl(2). Everything
 * that talks to the kernel about events is here, behind kop_source_ops,
 * so the rest of the pipeline runs the same over the tests' fake rings.
 * The handle is the event's file descriptor, which the sync thread also
 * polls for watermark wakeups. */
#include "config.h"
#include "kop_perf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "op_perf.h"

static int perf_open(void *ctx, struct perf_event_attr *attr, pid_t pid,
		     int cpu)
{
	return op_perf_open(attr, pid, cpu, PERF_FLAG_FD_CLOEXEC);
}

static void *perf_map(void *ctx, int handle, size_t len, bool writable)
{
	void *p = mmap(NULL, len, PROT_READ | (writable ? PROT_WRITE : 0),
		       MAP_SHARED, handle, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void perf_unmap(void *ctx, int handle, void *base, size_t len)
{
	munmap(base, len);
}

static int perf_enable(void *ctx, int handle)
{
	return ioctl(handle, PERF_EVENT_IOC_ENABLE, 0) ? -errno : 0;
}

static int perf_disable(void *ctx, int handle)
{
	return ioctl(handle, PERF_EVENT_IOC_DISABLE, 0) ? -errno : 0;
}

static void perf_close(void *ctx, int handle)
{
	close(handle);
}

static int perf_pause_output(void *ctx, int handle, bool pause)
{
	return ioctl(handle, PERF_EVENT_IOC_PAUSE_OUTPUT, pause ? 1 : 0) ? -errno : 0;
}

/* read_format is PERF_FORMAT_LOST alone: { value, lost } */
static int perf_read_lost(void *ctx, int handle, uint64_t *lost)
{
	uint64_t v[2];
	ssize_t n = read(handle, v, sizeof(v));

	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(v))
		return -EOPNOTSUPP;
	*lost = v[1];
	return 0;
}

static int perf_nr_cpus(void *ctx)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

static bool perf_cpu_online(void *ctx, int cpu)
{
	char path[64], c = '1';
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "re");
	if (!f)		/* no file: not hot-pluggable (cpu0), always online */
		return true;
	if (fread(&c, 1, 1, f) != 1)
		c = '0';
	fclose(f);
	return c == '1';
}

const struct kop_source_ops kop_perf_ops = {
	.open = perf_open,
	.map = perf_map,
	.unmap = perf_unmap,
	.enable = perf_enable,
	.disable = perf_disable,
	.close = perf_close,
	.nr_cpus = perf_nr_cpus,
	.cpu_online = perf_cpu_online,
	.pause_output = perf_pause_output,
	.read_lost = perf_read_lost,
};
