/*
 * check_loop: the C counterpart of `pfm check --json --os none --input -`,
 * for the whole-process benchmark of crates/bench (report: "bulk check").
 *
 * Reads event strings from standard input, one per line (the line ending,
 * `\n` or `\r\n`, removed; empty lines skipped), encodes each with libpfm4's
 * pfm_get_os_event_encoding(PFM_OS_NONE, default privilege levels u and k)
 * and prints one JSON line per string with the keys, order and formatting
 * of `pfm check --json`:
 *
 *   {"codes":["0x..."],"event":"...","fstr":"...","idx":N,"ok":true,"pmu":"..."}
 *   {"error":{"code":C,"message":"...","name":"PFM_ERR_..."},"event":"...","ok":false}
 *
 * The error message is libpfm4's pfm_strerror(code) text, where pfm prints
 * its own message naming the offending token; everything else is the same.
 * The PMU name is the fully-qualified string's prefix (before "::").
 * Exit status 1 when a string fails to encode, 2 when libpfm4 does not
 * initialise (run with LIBPFM_ENCODE_INACTIVE=1 to encode every PMU).
 *
 * Build: cc -O2 -o check_loop check_loop.c -l:libpfm.so.4
 * Only the libpfm4 ABI below is used; no libpfm4 header is needed.
 */

#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libpfm4's public ABI: the argument of a PFM_OS_NONE encoding. */
typedef struct {
	uint64_t *codes; /* NULL: allocated by libpfm4, freed by the caller */
	char **fstr;     /* fully-qualified string, allocated by libpfm4 */
	size_t size;     /* sizeof this structure */
	int count;       /* number of codes */
	int idx;         /* opaque event identifier */
} pfm_pmu_encode_arg_t;

int pfm_initialize(void);
int pfm_get_os_event_encoding(const char *str, int dfl_plm, int os, void *arg);
const char *pfm_strerror(int code);

enum {
	OS_NONE = 0,
	PLM0 = 0x1, /* kernel */
	PLM3 = 0x8, /* user */
};

/* Names of libpfm4's error codes -1 to -12, as pfm prints them. */
static const char *const error_names[] = {
	"PFM_ERR_NOTSUPP", "PFM_ERR_INVAL",    "PFM_ERR_NOINIT",
	"PFM_ERR_NOTFOUND", "PFM_ERR_FEATCOMB", "PFM_ERR_UMASK",
	"PFM_ERR_NOMEM",   "PFM_ERR_ATTR",     "PFM_ERR_ATTR_VAL",
	"PFM_ERR_ATTR_SET", "PFM_ERR_TOOMANY", "PFM_ERR_TOOSMALL",
};

static const char *error_name(int code)
{
	int n = (int)(sizeof(error_names) / sizeof(error_names[0]));
	if (code < 0 && -code <= n)
		return error_names[-code - 1];
	return "PFM_ERR_UNKNOWN";
}

/* The bytes s[0..len) as a JSON string body, escaped as serde_json does. */
static void put_escaped(FILE *o, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': fputs("\\\"", o); break;
		case '\\': fputs("\\\\", o); break;
		case '\b': fputs("\\b", o); break;
		case '\t': fputs("\\t", o); break;
		case '\n': fputs("\\n", o); break;
		case '\f': fputs("\\f", o); break;
		case '\r': fputs("\\r", o); break;
		default:
			if (c < 0x20) {
				fputs("\\u00", o);
				putc_unlocked(hex[c >> 4], o);
				putc_unlocked(hex[c & 0xf], o);
			} else {
				putc_unlocked(c, o);
			}
		}
	}
}

static void put_string(FILE *o, const char *s, size_t len)
{
	putc_unlocked('"', o);
	put_escaped(o, s, len);
	putc_unlocked('"', o);
}

static void put_success(FILE *o, const char *ev, const pfm_pmu_encode_arg_t *a,
			const char *fstr)
{
	fputs("{\"codes\":[", o);
	for (int i = 0; i < a->count; i++)
		fprintf(o, "%s\"0x%" PRIx64 "\"", i ? "," : "", a->codes[i]);
	fputs("],\"event\":", o);
	put_string(o, ev, strlen(ev));
	fputs(",\"fstr\":", o);
	put_string(o, fstr, strlen(fstr));
	fprintf(o, ",\"idx\":%d,\"ok\":true,\"pmu\":", a->idx);
	const char *sep = strstr(fstr, "::");
	put_string(o, fstr, sep ? (size_t)(sep - fstr) : 0);
	fputs("}\n", o);
}

static void put_error(FILE *o, const char *ev, int code)
{
	const char *msg = pfm_strerror(code);
	fprintf(o, "{\"error\":{\"code\":%d,\"message\":", code);
	put_string(o, msg ? msg : "", msg ? strlen(msg) : 0);
	fputs(",\"name\":", o);
	put_string(o, error_name(code), strlen(error_name(code)));
	fputs("},\"event\":", o);
	put_string(o, ev, strlen(ev));
	fputs(",\"ok\":false}\n", o);
}

/* Encodes one string and prints its line; 0 when it encoded. */
static int check(FILE *o, const char *ev)
{
	char *fstr = NULL;
	pfm_pmu_encode_arg_t a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.fstr = &fstr;
	int ret = pfm_get_os_event_encoding(ev, PLM0 | PLM3, OS_NONE, &a);
	if (ret == 0)
		put_success(o, ev, &a, fstr ? fstr : "");
	else
		put_error(o, ev, ret);
	free(a.codes);
	free(fstr);
	return ret;
}

int main(void)
{
	static char outbuf[64 * 1024];
	int ret = pfm_initialize();
	if (ret != 0) {
		fprintf(stderr, "check_loop: pfm_initialize: %s\n", pfm_strerror(ret));
		return 2;
	}
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int failed = 0;
	while ((n = getline(&line, &cap, stdin)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (n > 0 && line[n - 1] == '\r')
			line[--n] = '\0';
		if (n == 0)
			continue;
		failed |= check(stdout, line) != 0;
	}
	free(line);
	if (fflush(stdout) != 0) {
		perror("check_loop: standard output");
		return 2;
	}
	return failed ? 1 : 0;
}
