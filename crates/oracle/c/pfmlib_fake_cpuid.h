/*
 * pfmlib test support (our code, not libpfm4's): CPUID answers taken from
 * the environment instead of the processor.
 *
 * .ci/libpfm4-fake-cpuid copies libpfm4's source under target/, includes
 * this header in every file of lib/ that executes the CPUID instruction and
 * turns each execution into a call of pfmlib_fake_cpuid(). Nothing of the
 * edited copy is ever committed.
 *
 * PFMLIB_FAKE_CPUID lists the answers, ';'-separated, each
 *
 *     LEAF:SUBLEAF=EAX,EBX,ECX,EDX
 *
 * with numbers in C notation (0x1a, 26). libpfm4 never loads ECX before
 * CPUID, so it is answered as for subleaf 0. A leaf the list lacks, or an
 * unset variable, answers zeros; so does everything from an entry that
 * does not read on.
 */
#ifndef PFMLIB_FAKE_CPUID_H
#define PFMLIB_FAKE_CPUID_H

#include <stdlib.h>

/*
 * Reads the number at *s, which must be followed by `sep` (or, when `sep`
 * is ';', by the end of the string); moves *s past the separator.
 */
static int
pfmlib_fake_field(const char **s, char sep, unsigned long *out)
{
	char *end;

	*out = strtoul(*s, &end, 0);
	if (end == *s)
		return 0;
	if (*end == sep) {
		*s = end + 1;
		return 1;
	}
	if (sep == ';' && *end == '\0') {
		*s = end;
		return 1;
	}
	return 0;
}

static void
pfmlib_fake_cpuid(unsigned int leaf, unsigned int *a, unsigned int *b,
		  unsigned int *c, unsigned int *d)
{
	static const char seps[] = ":=,,,;";
	const char *s = getenv("PFMLIB_FAKE_CPUID");
	unsigned long v[6];
	int i;

	*a = *b = *c = *d = 0;
	while (s && *s) {
		for (i = 0; i < 6; i++) {
			if (!pfmlib_fake_field(&s, seps[i], &v[i]))
				return;
		}
		if (v[0] == leaf && v[1] == 0) {
			*a = (unsigned int)v[2];
			*b = (unsigned int)v[3];
			*c = (unsigned int)v[4];
			*d = (unsigned int)v[5];
			return;
		}
	}
}

#endif /* PFMLIB_FAKE_CPUID_H */
