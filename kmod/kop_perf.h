/* kop_perf.c: the real kop_source_ops, perf_event_open(2), mmap(2) and
 * ioctl(2); the rest of kmod runs the same over the tests' fake rings. */
#ifndef KOP_PERF_H
#define KOP_PERF_H

#include "kop.h"

extern const struct kop_source_ops kop_perf_ops;

#endif /* KOP_PERF_H */
