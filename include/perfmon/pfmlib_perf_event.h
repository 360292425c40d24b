/*
 * perfmon/pfmlib_perf_event.h - pfmlib's libpfm.so.4: encodings for Linux
 * perf_events, source-compatible with libpfm4 4.13 (see perfmon/pfmlib.h).
 */
#ifndef __PFMLIB_PERF_EVENTS_H__
#define __PFMLIB_PERF_EVENTS_H__

#include <perfmon/pfmlib.h>
#include <perfmon/perf_event.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * pfm_get_os_event_encoding() with PFM_OS_PERF_EVENT or
 * PFM_OS_PERF_EVENT_EXT. The library sets the fields of *attr an encoding
 * decides (type, config, config1/2, exclude_*, pinned, and the sampling,
 * precise and exclusive settings the event string gives) and leaves the
 * caller's other fields alone; attr->size says how much of it the caller
 * has (0: PERF_ATTR_SIZE_VER0).
 */
typedef struct {
	struct perf_event_attr *attr;	/* in/out: the caller's structure */
	char **fstr;			/* in: where to store the fully-qualified string, or NULL */
	size_t size;			/* in: sizeof(pfm_perf_encode_arg_t) or 0 */
	int idx;			/* out: the event's opaque index */
	int cpu;			/* out: the CPU cpu= asked for, -1 if none */
	int flags;			/* perf_event_open() flags (left as given) */
	int pad0;			/* explicit padding of the 64-bit layout */
} pfm_perf_encode_arg_t;

#if defined(__LP64__) || (defined(__WORDSIZE) && __WORDSIZE == 64)
#define PFM_PERF_ENCODE_ABI0	40
#else
#define PFM_PERF_ENCODE_ABI0	28
#endif

/* The earlier call: PFM_OS_PERF_EVENT_EXT into *output; fstr and idx may be NULL. */
extern pfm_err_t pfm_get_perf_event_encoding(const char *str, int dfl_plm,
					     struct perf_event_attr *output,
					     char **fstr, int *idx);

#ifdef __cplusplus
}
#endif

#endif /* __PFMLIB_PERF_EVENTS_H__ */
