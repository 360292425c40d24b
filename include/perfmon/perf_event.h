/*
 * perfmon/perf_event.h - pfmlib's libpfm.so.4: the Linux perf_events
 * definitions, for programs written for libpfm4 that include this file.
 * The constants are the kernel's own (<linux/perf_event.h>), the
 * perf_event_attr structure libpfm4's (see below); this file adds the
 * perf_event_open() system-call wrapper that libpfm4's version offers.
 */
#ifndef __PERFMON_PERF_EVENT_H__
#define __PERFMON_PERF_EVENT_H__

#include <sys/types.h>
#include <unistd.h>
#include <inttypes.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
/*
 * The kernel's header gives the constants and the other structures. The
 * perf_event_attr it declares depends on the kernel headers installed;
 * libpfm4's header declares its own, of PERF_ATTR_SIZE_VER8 (136 bytes,
 * config3 the last field), so this one does too, unless the program
 * included the kernel's header first (then that one's is used, as with
 * libpfm4). So too the mmapped counter page, perf_event_mmap_page, whose
 * capability bit 2 libpfm4's header names cap_usr_rdpmc (the kernel's
 * cap_user_rdpmc; PAPI reads it by libpfm4's name). The kernel's
 * declarations are renamed away while it is read.
 */
#if defined(_LINUX_PERF_EVENT_H) || defined(_UAPI_LINUX_PERF_EVENT_H)
#include <linux/perf_event.h>
#else
#define perf_event_attr __pfm_kernel_perf_event_attr
#define perf_event_mmap_page __pfm_kernel_perf_event_mmap_page
#include <linux/perf_event.h>
#undef perf_event_mmap_page
#undef perf_event_attr

/*
 * The first page of a counter's mmap(2) area: the kernel's layout, with
 * libpfm4's field names.
 */
struct perf_event_mmap_page {
	uint32_t version;		/* of this layout */
	uint32_t compat_version;	/* the oldest it stays compatible with */
	uint32_t lock;			/* sequence count: read again if it moved */
	uint32_t index;			/* hardware counter + 1, 0: none (rdpmc) */
	int64_t offset;			/* add to the counter's value */
	uint64_t time_enabled;		/* nanoseconds enabled */
	uint64_t time_running;		/* nanoseconds on the PMU */
	union {
		uint64_t capabilities;
		struct {
			uint64_t cap_bit0:1,		/* always 0 (deprecated) */
				 cap_bit0_is_deprecated:1, /* always 1 */
				 cap_usr_rdpmc:1,	/* user space may rdpmc */
				 cap_user_time:1,	/* time_shift/mult/offset valid */
				 cap_user_time_zero:1,	/* time_zero valid */
				 cap_user_time_short:1,	/* time_cycles/mask valid */
				 cap_____res:58;
		};
	};
	uint16_t pmc_width;		/* counter bits (sign extension) */
	uint16_t time_shift;		/* cycles to nanoseconds: */
	uint32_t time_mult;		/*   (cycles * mult) >> shift */
	uint64_t time_offset;
	uint64_t time_zero;
	uint32_t size;			/* bytes of this header in use */
	uint32_t __reserved_1;
	uint64_t time_cycles;
	uint64_t time_mask;
	uint8_t __reserved[116 * 8];	/* pads the header to 1 KiB */
	uint64_t data_head;		/* sample ring: written up to here */
	uint64_t data_tail;		/* read up to here (user space writes) */
	uint64_t data_offset;		/* where the ring starts in the area */
	uint64_t data_size;
	uint64_t aux_head;		/* the AUX area, likewise */
	uint64_t aux_tail;
	uint64_t aux_offset;
	uint64_t aux_size;
};

/* The event a counter counts and how (perf_event_open(2)). */
struct perf_event_attr {
	uint32_t type;			/* PERF_TYPE_*, or a PMU's number */
	uint32_t size;			/* bytes of this structure */
	uint64_t config;		/* the event's encoding */
	union {
		uint64_t sample_period;
		uint64_t sample_freq;
	};
	uint64_t sample_type;		/* PERF_SAMPLE_* */
	uint64_t read_format;		/* PERF_FORMAT_* */
	uint64_t disabled:1, inherit:1, pinned:1, exclusive:1,
		 exclude_user:1, exclude_kernel:1, exclude_hv:1, exclude_idle:1,
		 mmap:1, comm:1, freq:1, inherit_stat:1,
		 enable_on_exec:1, task:1, watermark:1, precise_ip:2,
		 mmap_data:1, sample_id_all:1, exclude_host:1, exclude_guest:1,
		 exclude_callchain_kernel:1, exclude_callchain_user:1,
		 mmap2:1, comm_exec:1, use_clockid:1, context_switch:1,
		 write_backward:1, namespaces:1, ksymbol:1, bpf_event:1,
		 aux_output:1, cgroup:1, text_poke:1, build_id:1,
		 inherit_thread:1, remove_on_exec:1, sigtrap:1,
		 __reserved_1:26;
	union {
		uint32_t wakeup_events;
		uint32_t wakeup_watermark;
	};
	uint32_t bp_type;
	union {
		uint64_t bp_addr;
		uint64_t kprobe_func;
		uint64_t uprobe_path;
		uint64_t config1;	/* more of the encoding */
	};
	union {
		uint64_t bp_len;
		uint64_t kprobe_addr;
		uint64_t probe_offset;
		uint64_t config2;	/* more still */
	};
	uint64_t branch_sample_type;	/* PERF_SAMPLE_BRANCH_* */
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack;
	uint16_t __reserved_2;
	uint32_t aux_sample_size;
	uint32_t __reserved_3;
	uint64_t sig_data;
	uint64_t config3;		/* the last word of the encoding */
};
#endif

typedef struct perf_event_attr perf_event_attr_t;

#ifndef PERF_ATTR_SIZE_VER8
#define PERF_ATTR_SIZE_VER8	136	/* config3 added */
#endif

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
