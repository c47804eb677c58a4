/* perf_event_open(2): glibc has no wrapper, so every caller would write
 * its own syscall(); this is the one. */
#include "config.h"
#include "op_perf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int op_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		 unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, -1, flags);

	return fd < 0 ? -errno : (int)fd;
}

/* Would the kernel open attr on (pid, cpu)? Opens it and closes it again.
 * Returns 0, or the -errno of perf_event_open (-EACCES/-EPERM: refused by
 * perf_event_paranoid or a missing capability, -ENOENT/-EOPNOTSUPP: no
 * such event here, -ENOSYS: no perf events in this kernel). */
static int op_perf_probe(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	int fd = op_perf_open(attr, pid, cpu, 0);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* A disabled event of (type, config): what every probe starts from. */
static void probe_attr(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->disabled = 1;
}

int op_perf_probe_system_wide(void)
{
	struct perf_event_attr a;

	probe_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	a.sample_period = 1000000;
	return op_perf_probe(&a, -1, 0);
}

int op_perf_probe_pmu(void)
{
	const char *force = getenv("OPSAMPLER_PMU");
	struct perf_event_attr a;

	/* the tests' way to run the timer path on a machine with a PMU */
	if (force && !strcmp(force, "off"))
		return -ENODEV;
	probe_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return op_perf_probe(&a, 0, -1);
}

int op_perf_probe_event(struct perf_event_attr *attr)
{
	int ret;

	attr->size = sizeof(*attr);
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->sample_period = 1000000;
	ret = op_perf_probe(attr, 0, -1);
	if (ret)
		ret = op_perf_probe(attr, -1, 0);
	return ret;
}
