/*
 * The C interface, timed from C: one program, linked against "libpfm.so.4",
 * run once with libpfm4's and once with pfmlib's (LD_LIBRARY_PATH), so both
 * libraries are called by the same code. `report` (crates/bench) compiles
 * it with `cc -O2` and alternates the two processes.
 *
 *   capi_bench INPUT WORKLOAD...
 *
 * INPUT has one item per line: "pmu ID" (listing), "find STRING",
 * "encode STRING". Workloads:
 *
 *   init      pfm_initialize() (pfm_terminate() between calls, not timed)
 *   find      pfm_find_event() on every "find" string
 *   none      pfm_get_os_event_encoding(PFM_OS_NONE) on every "encode"
 *             string, codes and fully-qualified string allocated by the
 *             library and freed, as callers do
 *   perf      the same with PFM_OS_PERF_EVENT_EXT and a zeroed
 *             perf_event_attr
 *   listing   (per listing) every event and attribute of the "pmu" ids, walked with
 *             pfm_get_pmu_info / first_event / pfm_get_event_next,
 *             described with pfm_get_event_info and pfm_get_event_attr_info
 *             (PFM_OS_NONE), names and descriptions read
 *
 * For each workload it prints "NAME NS_PER_ITEM ITEMS CHECK": the median
 * over 21 slices of about 10 ms of the time per item, and a check value
 * (what the calls returned) that both libraries must agree on. With
 * CAPI_BENCH_ONCE set, each workload makes one pass and prints 0 for the
 * time: for counting instructions (valgrind --tool=callgrind
 * --toggle-collect=pass_find ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>

#define SLICES 21
#define SLICE_NS 10000000.0

static char **finds, **encodes;
static int nfind, nencode, pmus[1024], npmu;

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void load(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	if (!f) {
		perror(path);
		exit(2);
	}
	finds = calloc(100000, sizeof(char *));
	encodes = calloc(100000, sizeof(char *));
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = 0;
		if (!strncmp(line, "pmu ", 4) && npmu < 1024)
			pmus[npmu++] = atoi(line + 4);
		else if (!strncmp(line, "find ", 5) && nfind < 100000)
			finds[nfind++] = strdup(line + 5);
		else if (!strncmp(line, "encode ", 7) && nencode < 100000)
			encodes[nencode++] = strdup(line + 7);
	}
	free(line);
	fclose(f);
}

/* One pass of a workload: items done; *check accumulates what came back. */
typedef long (*pass_fn)(uint64_t *check);

static long pass_find(uint64_t *check)
{
	for (int i = 0; i < nfind; i++)
		*check += (uint64_t)(int64_t)pfm_find_event(finds[i]);
	return nfind;
}

static long pass_none(uint64_t *check)
{
	for (int i = 0; i < nencode; i++) {
		pfm_pmu_encode_arg_t arg;
		char *fstr = NULL;
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.fstr = &fstr;
		int ret = pfm_get_os_event_encoding(encodes[i], PFM_PLM0 | PFM_PLM3, PFM_OS_NONE, &arg);
		*check += (uint64_t)(int64_t)ret;
		if (ret == PFM_SUCCESS) {
			*check += arg.codes[0] + (uint64_t)arg.idx + strlen(fstr);
			free(arg.codes);
			free(fstr);
		}
	}
	return nencode;
}

static long pass_perf(uint64_t *check)
{
	for (int i = 0; i < nencode; i++) {
		struct perf_event_attr attr;
		pfm_perf_encode_arg_t arg;
		char *fstr = NULL;
		memset(&attr, 0, sizeof(attr));
		memset(&arg, 0, sizeof(arg));
		attr.size = sizeof(attr);
		arg.size = sizeof(arg);
		arg.attr = &attr;
		arg.fstr = &fstr;
		int ret = pfm_get_os_event_encoding(encodes[i], PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
		*check += (uint64_t)(int64_t)ret;
		if (ret == PFM_SUCCESS) {
			*check += attr.config + attr.type + attr.exclude_kernel + (uint64_t)arg.idx + strlen(fstr);
			free(fstr);
		}
	}
	return nencode;
}

static uint64_t listed_events, listed_attrs, listed_bytes;

static long pass_listing(uint64_t *check)
{
	long items = 0;
	listed_events = listed_attrs = listed_bytes = 0;
	for (int k = 0; k < npmu; k++) {
		pfm_pmu_info_t pinfo;
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(pmus[k], &pinfo) != PFM_SUCCESS)
			continue;
		listed_bytes += strlen(pinfo.name) + strlen(pinfo.desc);
		for (int i = pinfo.first_event; i != -1; i = pfm_get_event_next(i)) {
			pfm_event_info_t info;
			memset(&info, 0, sizeof(info));
			info.size = sizeof(info);
			if (pfm_get_event_info(i, PFM_OS_NONE, &info) != PFM_SUCCESS)
				continue;
			listed_events++;
			listed_bytes += strlen(info.name) + strlen(info.desc);
			*check += info.code + (uint64_t)info.nattrs;
			for (int j = 0; j < info.nattrs; j++) {
				pfm_event_attr_info_t a;
				memset(&a, 0, sizeof(a));
				a.size = sizeof(a);
				if (pfm_get_event_attr_info(i, j, PFM_OS_NONE, &a) != PFM_SUCCESS)
					continue;
				listed_attrs++;
				listed_bytes += strlen(a.name) + (a.desc ? strlen(a.desc) : 0);
				*check += a.code + (uint64_t)a.type;
			}
		}
	}
	(void)items;
	return 1; /* one listing */
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median over SLICES slices of the time per item; prints the line. */
static void measure(const char *name, pass_fn pass)
{
	double per[SLICES];
	uint64_t check = 0;
	long items = pass(&check); /* warm-up, and the check value */
	uint64_t first_check = check;
	if (getenv("CAPI_BENCH_ONCE")) {
		/* For instruction counts (callgrind): the warm-up pass only. */
		printf("%s 0 %ld %llu\n", name, items, (unsigned long long)first_check);
		return;
	}
	for (int s = 0; s < SLICES; s++) {
		long done = 0;
		uint64_t c = 0;
		double t0 = now_ns(), t1;
		do {
			done += pass(&c);
			t1 = now_ns();
		} while (t1 - t0 < SLICE_NS);
		per[s] = (t1 - t0) / done;
	}
	qsort(per, SLICES, sizeof(double), cmp_double);
	printf("%s %.2f %ld %llu\n", name, per[SLICES / 2], items, (unsigned long long)first_check);
}

static void measure_init(void)
{
	double per[SLICES];
	for (int s = 0; s < SLICES; s++) {
		double spent = 0, start = now_ns();
		long done = 0;
		do {
			double t0 = now_ns();
			int ret = pfm_initialize();
			spent += now_ns() - t0;
			if (ret != PFM_SUCCESS) {
				printf("init failed %d\n", ret);
				exit(1);
			}
			pfm_terminate();
			done++;
		} while (now_ns() - start < SLICE_NS);
		per[s] = spent / done;
	}
	qsort(per, SLICES, sizeof(double), cmp_double);
	printf("init %.2f 1 0\n", per[SLICES / 2]);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: capi_bench INPUT WORKLOAD...\n");
		return 2;
	}
	load(argv[1]);
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "init")) {
			measure_init();
			continue;
		}
		if (pfm_initialize() != PFM_SUCCESS)
			return 1;
		if (!strcmp(argv[i], "find"))
			measure("find", pass_find);
		else if (!strcmp(argv[i], "none"))
			measure("none", pass_none);
		else if (!strcmp(argv[i], "perf"))
			measure("perf", pass_perf);
		else if (!strcmp(argv[i], "listing")) {
			measure("listing", pass_listing);
			printf("listed %llu %llu %llu\n", (unsigned long long)listed_events,
			       (unsigned long long)listed_attrs, (unsigned long long)listed_bytes);
		} else {
			fprintf(stderr, "unknown workload %s\n", argv[i]);
			return 2;
		}
		pfm_terminate();
	}
	return 0;
}
