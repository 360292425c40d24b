/*
 * Encodes each argument as llvm-exegesis does (lib/perf/PerfHelper.cpp):
 * a zeroed perf_event_attr (size 0), a zeroed pfm_perf_encode_arg_t with
 * its size set, PFM_PLM3, PFM_OS_PERF_EVENT. Prints per string the return
 * code, the index, the CPU, the fully-qualified string and every byte of
 * the structure, so that two libraries can be compared line for line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>

int main(int argc, char **argv)
{
	int ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		printf("pfm_initialize %d\n", ret);
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		struct perf_event_attr attr;
		pfm_perf_encode_arg_t arg;
		char *fstr = NULL;
		unsigned char *b = (unsigned char *)&attr;

		memset(&attr, 0, sizeof(attr));
		memset(&arg, 0, sizeof(arg));
		arg.attr = &attr;
		arg.fstr = &fstr;
		arg.size = sizeof(arg);
		ret = pfm_get_os_event_encoding(argv[i], PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
		printf("%s ret=%d", argv[i], ret);
		if (ret == PFM_SUCCESS) {
			printf(" idx=%d cpu=%d fstr=%s attr=", arg.idx, arg.cpu, fstr ? fstr : "(null)");
			for (size_t k = 0; k < sizeof(attr); k++)
				printf("%02x", b[k]);
		}
		putchar('\n');
		free(fstr);
	}
	pfm_terminate();
	return 0;
}
