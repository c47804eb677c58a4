/* perf_event_open(2), written once: kmod's real source opens its rings
 * with it, and libop's events, ophelp and opcontrol ask through its probes
 * whether this machine and this process may sample. Kept apart from op_events so
 * that kmod does not pull in libpfm4 for one system call.
 */
#ifndef OP_PERF_H
#define OP_PERF_H

#include <linux/perf_event.h>
#include <sys/types.h>

/* perf_event_open(attr, pid, cpu, no group, flags). Returns the event's
 * fd, or -errno. */
int op_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		 unsigned long flags);

/* The questions the programs ask before they sample, each answered by
 * opening a disabled event and closing it again; 0 or the -errno of
 * perf_event_open (-EACCES/-EPERM: refused by perf_event_paranoid or a
 * missing capability, -ENOENT/-EOPNOTSUPP: no such event here, -ENOSYS:
 * no perf events in this kernel). */

/* May this process sample every task (pid -1) on CPU 0? cpu-clock, so the
 * answer is about privileges, not about the PMU (opcontrol --start). */
int op_perf_probe_system_wide(void);

/* Can a hardware PMU count cycles here? This process only and user mode
 * only, so perf_event_paranoid does not hide a PMU that exists.
 * -ENODEV without asking the kernel when OPSAMPLER_PMU=off is in the
 * environment: the timer path, chosen on a machine with a PMU. */
int op_perf_probe_pmu(void);

/* Can the event attr encodes (libpfm4's encoding) sample here? Sets the
 * probe's own fields in attr (size, disabled, user mode only, a period),
 * then tries this process on any CPU, and every process on CPU 0 (uncore
 * events are per CPU only). */
int op_perf_probe_event(struct perf_event_attr *attr);

#endif /* OP_PERF_H */
