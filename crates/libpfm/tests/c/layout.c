/*
 * Prints, from the C compiler's point of view, every field's offset and
 * size of the structures in include/perfmon (and the fields of the
 * kernel's perf_event_attr the library sets), one per line:
 *   STRUCT FIELD OFFSET SIZE
 * Bit fields have no offset: the word that holds them is printed after
 * setting each field to all ones:
 *   STRUCT FIELD bits WORD_OFFSET VALUE
 */
#include <stddef.h>
#include <string.h>
#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>

#ifdef LAYOUT_ASM
/*
 * For a target this machine cannot run (i386): compiled with -S only, the
 * values land in the assembly as comment lines "#LAYOUT STRUCT FIELD OFFSET
 * SIZE". Bit fields are left out (their word is found at run time).
 */
#define F(st, f) __asm__("#LAYOUT " #st " " #f " %c0 %c1" :: "i"(offsetof(st, f)), "i"(sizeof(((st *)0)->f)))
#define S(st) __asm__("#LAYOUT " #st " sizeof 0 %c0" :: "i"(sizeof(st)))
#define B32(st, f, off) do { } while (0)
#define B64(st, f, off) do { } while (0)
#define C(name) __asm__("#LAYOUT const " #name " 0 %c0" :: "i"((int)(name)))
#else
#define F(st, f) printf(#st " " #f " %zu %zu\n", offsetof(st, f), sizeof(((st *)0)->f))
#define S(st) printf(#st " sizeof 0 %zu\n", sizeof(st))

/* Sets bit field f of a zeroed st to all ones, prints the 32- or 64-bit word at off. */
#define B32(st, f, off) do { st x; uint32_t w; memset(&x, 0, sizeof(x)); x.f = ~0u; \
	memcpy(&w, (char *)&x + (off), 4); printf(#st " " #f " bits %d %u\n", (off), w); } while (0)
#define B64(st, f, off) do { st x; uint64_t w; memset(&x, 0, sizeof(x)); x.f = ~0u; \
	memcpy(&w, (char *)&x + (off), 8); printf(#st " " #f " bits %d %llu\n", (off), (unsigned long long)w); } while (0)
#define C(name) printf("const " #name " 0 %d\n", (int)(name))
#endif

int main(void)
{
	S(pfm_pmu_info_t);
	F(pfm_pmu_info_t, name); F(pfm_pmu_info_t, desc); F(pfm_pmu_info_t, size);
	F(pfm_pmu_info_t, pmu); F(pfm_pmu_info_t, type); F(pfm_pmu_info_t, nevents);
	F(pfm_pmu_info_t, first_event); F(pfm_pmu_info_t, max_encoding);
	F(pfm_pmu_info_t, num_cntrs); F(pfm_pmu_info_t, num_fixed_cntrs);
	B32(pfm_pmu_info_t, is_present, 52); B32(pfm_pmu_info_t, is_dfl, 52);

	S(pfm_event_info_t);
	F(pfm_event_info_t, name); F(pfm_event_info_t, desc); F(pfm_event_info_t, equiv);
	F(pfm_event_info_t, size); F(pfm_event_info_t, code); F(pfm_event_info_t, pmu);
	F(pfm_event_info_t, dtype); F(pfm_event_info_t, idx); F(pfm_event_info_t, nattrs);
	F(pfm_event_info_t, reserved);
	B32(pfm_event_info_t, is_precise, 60); B32(pfm_event_info_t, is_speculative, 60);
	B32(pfm_event_info_t, support_hw_smpl, 60);

	S(pfm_event_attr_info_t);
	F(pfm_event_attr_info_t, name); F(pfm_event_attr_info_t, desc);
	F(pfm_event_attr_info_t, equiv); F(pfm_event_attr_info_t, size);
	F(pfm_event_attr_info_t, code); F(pfm_event_attr_info_t, type);
	F(pfm_event_attr_info_t, idx); F(pfm_event_attr_info_t, ctrl);
	F(pfm_event_attr_info_t, dfl_val64); F(pfm_event_attr_info_t, dfl_str);
	F(pfm_event_attr_info_t, dfl_bool); F(pfm_event_attr_info_t, dfl_int);
	B32(pfm_event_attr_info_t, is_dfl, 52); B32(pfm_event_attr_info_t, is_precise, 52);
	B32(pfm_event_attr_info_t, is_speculative, 52);
	B32(pfm_event_attr_info_t, support_hw_smpl, 52);

	S(pfm_pmu_encode_arg_t);
	F(pfm_pmu_encode_arg_t, codes); F(pfm_pmu_encode_arg_t, fstr);
	F(pfm_pmu_encode_arg_t, size); F(pfm_pmu_encode_arg_t, count);
	F(pfm_pmu_encode_arg_t, idx);

	S(pfm_perf_encode_arg_t);
	F(pfm_perf_encode_arg_t, attr); F(pfm_perf_encode_arg_t, fstr);
	F(pfm_perf_encode_arg_t, size); F(pfm_perf_encode_arg_t, idx);
	F(pfm_perf_encode_arg_t, cpu); F(pfm_perf_encode_arg_t, flags);
	F(pfm_perf_encode_arg_t, pad0);

	F(struct perf_event_attr, type); F(struct perf_event_attr, size);
	F(struct perf_event_attr, config); F(struct perf_event_attr, sample_period);
	F(struct perf_event_attr, sample_freq); F(struct perf_event_attr, config1);
	F(struct perf_event_attr, config2); F(struct perf_event_attr, config3);
	S(struct perf_event_attr); C(PERF_ATTR_SIZE_VER8);
	B64(struct perf_event_attr, pinned, 40); B64(struct perf_event_attr, exclusive, 40);
	B64(struct perf_event_attr, exclude_user, 40); B64(struct perf_event_attr, exclude_kernel, 40);
	B64(struct perf_event_attr, exclude_hv, 40); B64(struct perf_event_attr, freq, 40);
	B64(struct perf_event_attr, precise_ip, 40); B64(struct perf_event_attr, exclude_host, 40);
	B64(struct perf_event_attr, exclude_guest, 40);

	/* The mmapped counter page, with libpfm4's names (cap_usr_rdpmc). */
#define M(f) F(struct perf_event_mmap_page, f)
	M(version); M(compat_version); M(lock); M(index); M(offset);
	M(time_enabled); M(time_running); M(capabilities); M(pmc_width);
	M(time_shift); M(time_mult); M(time_offset); M(time_zero); M(size);
	M(time_cycles); M(time_mask); M(data_head); M(data_tail);
	M(data_offset); M(data_size); M(aux_head); M(aux_tail); M(aux_offset);
	M(aux_size);
#undef M
	S(struct perf_event_mmap_page);
	B64(struct perf_event_mmap_page, cap_bit0_is_deprecated, 40);
	B64(struct perf_event_mmap_page, cap_usr_rdpmc, 40);
	B64(struct perf_event_mmap_page, cap_user_time, 40);
	B64(struct perf_event_mmap_page, cap_user_time_zero, 40);
	B64(struct perf_event_mmap_page, cap_user_time_short, 40);

	C(PFM_PMU_INFO_ABI0);
	C(PFM_EVENT_INFO_ABI0);
	C(PFM_ATTR_INFO_ABI0);
	C(PFM_RAW_ENCODE_ABI0);
	C(PFM_PERF_ENCODE_ABI0);
	C(PFM_PMU_MAX);
	C(LIBPFM_VERSION);
	C(PFM_OS_MAX);
	C(PERF_ATTR_SIZE_VER0);
	C(PFM_ERR_TOOSMALL);
	C(PFM_ERR_NOINIT);
	C(PFM_DTYPE_UINT64);
	C(PFM_PMU_INTEL_NHM);
	C(PFM_PMU_PERF_EVENT);
	C(PFM_PMU_AMD64_FAM19H_ZEN3);
	return 0;
}
