/*
 * perfmon/perf_event.h - pfmlib's libpfm.so.4: the Linux perf_events
 * definitions, for programs written for libpfm4 4.13 that include this
 * file. The structures and constants are the kernel's own
 * (<linux/perf_event.h>); this file adds the perf_event_open() system-call
 * wrapper that libpfm4's version of it offers.
 */
#ifndef __PERFMON_PERF_EVENT_H__
#define __PERFMON_PERF_EVENT_H__

#include <sys/types.h>
#include <unistd.h>
#include <inttypes.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <linux/perf_event.h>

#ifdef __cplusplus
extern "C" {
#endif

/* prctl(2) commands that enable or disable a task's own counters. */
#ifndef PR_TASK_PERF_EVENTS_DISABLE
#define PR_TASK_PERF_EVENTS_DISABLE	31
#define PR_TASK_PERF_EVENTS_ENABLE	32
#endif

/* syscall(2) is declared by <unistd.h> only with the C library's extensions. */
#if !defined(__cplusplus) && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE) && !defined(_BSD_SOURCE)
extern long syscall(long number, ...);
#endif

/* perf_event_open(2), which the C library does not wrap. */
static inline int
perf_event_open(struct perf_event_attr *hw_event_uptr, pid_t pid, int cpu,
		int group_fd, unsigned long flags)
{
	return (int)syscall(__NR_perf_event_open, hw_event_uptr, pid, cpu,
			    group_fd, flags);
}

#ifdef __cplusplus
}
#endif

#endif /* __PERFMON_PERF_EVENT_H__ */
