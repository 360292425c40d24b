/*
 * perfmon/pfmlib.h - the C interface of pfmlib's libpfm.so.4.
 *
 * pfmlib (https://example.invalid/pfmlib, MIT licence) is a Rust
 * implementation of libpfm4. Its library crates/libpfm builds libpfm.so.4
 * with libpfm4 4.13's binary interface; this header declares it, with the
 * names, values, types and structure layouts of libpfm4's interface, so
 * that a program written for libpfm4 compiles against it unchanged.
 *
 * Usage in short: call pfm_initialize() once; walk the PMUs with
 * pfm_get_pmu_info() over every pfm_pmu_t below PFM_PMU_MAX, their events
 * from pfm_pmu_info_t.first_event with pfm_get_event_next(); describe them
 * with pfm_get_event_info() and pfm_get_event_attr_info(); turn an event
 * string "[pmu::]EVENT[:ATTR[=VALUE]...]" into register codes or a
 * perf_event_attr with pfm_get_os_event_encoding(). Every function returns
 * PFM_SUCCESS or a negative PFM_ERR_* code (pfm_strerror() names it);
 * strings and arrays the library allocates for the caller are freed with
 * free(3); strings in the info structures belong to the library.
 *
 * Every structure passed by pointer starts its life zeroed (memset) with
 * its size member set to sizeof (0 means the first ABI's size, the
 * *_ABI0 values below); the library refuses a smaller size, and refuses
 * a larger one unless the bytes past what it knows are zero.
 */
#ifndef __PFMLIB_H__
#define __PFMLIB_H__

#include <sys/types.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Library version: major in the high 16 bits (pfm_get_version()). */
#define LIBPFM_VERSION		(4 << 16 | 0)
#define PFM_MAJ_VERSION(v)	((v) >> 16)
#define PFM_MIN_VERSION(v)	((v) & 0xffff)

/* Revision of the structure layouts below. */
#define LIBPFM_ABI_VERSION	0

/* Privilege-level bits (default levels of an encoding, dfl_plm). */
#define PFM_PLM0	0x01	/* ring 0: the kernel */
#define PFM_PLM1	0x02	/* ring 1 */
#define PFM_PLM2	0x04	/* ring 2 */
#define PFM_PLM3	0x08	/* ring 3: user level (on x86 also rings 1 and 2) */
#define PFM_PLMH	0x10	/* the hypervisor */

/*
 * PMU models. The numbers are libpfm4's: a program may store them. The
 * library reports the models it has (pfm_get_pmu_info() answers
 * PFM_ERR_NOTSUPP for the others).
 */
typedef enum {
	PFM_PMU_NONE = 0,
	PFM_PMU_GEN_IA64 = 1,
	PFM_PMU_ITANIUM = 2,
	PFM_PMU_ITANIUM2 = 3,
	PFM_PMU_MONTECITO = 4,
	PFM_PMU_AMD64 = 5,
	PFM_PMU_I386_P6 = 6,
	PFM_PMU_INTEL_NETBURST = 7,
	PFM_PMU_INTEL_NETBURST_P = 8,
	PFM_PMU_COREDUO = 9,
	PFM_PMU_I386_PM = 10,
	PFM_PMU_INTEL_CORE = 11,
	PFM_PMU_INTEL_PPRO = 12,
	PFM_PMU_INTEL_PII = 13,
	PFM_PMU_INTEL_ATOM = 14,
	PFM_PMU_INTEL_NHM = 15,
	PFM_PMU_INTEL_NHM_EX = 16,
	PFM_PMU_INTEL_NHM_UNC = 17,
	PFM_PMU_INTEL_X86_ARCH = 18,
	PFM_PMU_MIPS_20KC = 19,
	PFM_PMU_MIPS_24K = 20,
	PFM_PMU_MIPS_25KF = 21,
	PFM_PMU_MIPS_34K = 22,
	PFM_PMU_MIPS_5KC = 23,
	PFM_PMU_MIPS_74K = 24,
	PFM_PMU_MIPS_R10000 = 25,
	PFM_PMU_MIPS_R12000 = 26,
	PFM_PMU_MIPS_RM7000 = 27,
	PFM_PMU_MIPS_RM9000 = 28,
	PFM_PMU_MIPS_SB1 = 29,
	PFM_PMU_MIPS_VR5432 = 30,
	PFM_PMU_MIPS_VR5500 = 31,
	PFM_PMU_MIPS_ICE9A = 32,
	PFM_PMU_MIPS_ICE9B = 33,
	PFM_PMU_POWERPC = 34,
	PFM_PMU_CELL = 35,
	PFM_PMU_SPARC_ULTRA12 = 36,
	PFM_PMU_SPARC_ULTRA3 = 37,
	PFM_PMU_SPARC_ULTRA3I = 38,
	PFM_PMU_SPARC_ULTRA3PLUS = 39,
	PFM_PMU_SPARC_ULTRA4PLUS = 40,
	PFM_PMU_SPARC_NIAGARA1 = 41,
	PFM_PMU_SPARC_NIAGARA2 = 42,
	PFM_PMU_PPC970 = 43,
	PFM_PMU_PPC970MP = 44,
	PFM_PMU_POWER3 = 45,
	PFM_PMU_POWER4 = 46,
	PFM_PMU_POWER5 = 47,
	PFM_PMU_POWER5p = 48,
	PFM_PMU_POWER6 = 49,
	PFM_PMU_POWER7 = 50,
	PFM_PMU_PERF_EVENT = 51,
	PFM_PMU_INTEL_WSM = 52,
	PFM_PMU_INTEL_WSM_DP = 53,
	PFM_PMU_INTEL_WSM_UNC = 54,
	PFM_PMU_AMD64_K7 = 55,
	PFM_PMU_AMD64_K8_REVB = 56,
	PFM_PMU_AMD64_K8_REVC = 57,
	PFM_PMU_AMD64_K8_REVD = 58,
	PFM_PMU_AMD64_K8_REVE = 59,
	PFM_PMU_AMD64_K8_REVF = 60,
	PFM_PMU_AMD64_K8_REVG = 61,
	PFM_PMU_AMD64_FAM10H_BARCELONA = 62,
	PFM_PMU_AMD64_FAM10H_SHANGHAI = 63,
	PFM_PMU_AMD64_FAM10H_ISTANBUL = 64,
	PFM_PMU_ARM_CORTEX_A8 = 65,
	PFM_PMU_ARM_CORTEX_A9 = 66,
	PFM_PMU_TORRENT = 67,
	PFM_PMU_INTEL_SNB = 68,
	PFM_PMU_AMD64_FAM14H_BOBCAT = 69,
	PFM_PMU_AMD64_FAM15H_INTERLAGOS = 70,
	PFM_PMU_INTEL_SNB_EP = 71,
	PFM_PMU_AMD64_FAM12H_LLANO = 72,
	PFM_PMU_AMD64_FAM11H_TURION = 73,
	PFM_PMU_INTEL_IVB = 74,
	PFM_PMU_ARM_CORTEX_A15 = 75,
	PFM_PMU_INTEL_SNB_UNC_CB0 = 76,
	PFM_PMU_INTEL_SNB_UNC_CB1 = 77,
	PFM_PMU_INTEL_SNB_UNC_CB2 = 78,
	PFM_PMU_INTEL_SNB_UNC_CB3 = 79,
	PFM_PMU_INTEL_SNBEP_UNC_CB0 = 80,
	PFM_PMU_INTEL_SNBEP_UNC_CB1 = 81,
	PFM_PMU_INTEL_SNBEP_UNC_CB2 = 82,
	PFM_PMU_INTEL_SNBEP_UNC_CB3 = 83,
	PFM_PMU_INTEL_SNBEP_UNC_CB4 = 84,
	PFM_PMU_INTEL_SNBEP_UNC_CB5 = 85,
	PFM_PMU_INTEL_SNBEP_UNC_CB6 = 86,
	PFM_PMU_INTEL_SNBEP_UNC_CB7 = 87,
	PFM_PMU_INTEL_SNBEP_UNC_HA = 88,
	PFM_PMU_INTEL_SNBEP_UNC_IMC0 = 89,
	PFM_PMU_INTEL_SNBEP_UNC_IMC1 = 90,
	PFM_PMU_INTEL_SNBEP_UNC_IMC2 = 91,
	PFM_PMU_INTEL_SNBEP_UNC_IMC3 = 92,
	PFM_PMU_INTEL_SNBEP_UNC_PCU = 93,
	PFM_PMU_INTEL_SNBEP_UNC_QPI0 = 94,
	PFM_PMU_INTEL_SNBEP_UNC_QPI1 = 95,
	PFM_PMU_INTEL_SNBEP_UNC_UBOX = 96,
	PFM_PMU_INTEL_SNBEP_UNC_R2PCIE = 97,
	PFM_PMU_INTEL_SNBEP_UNC_R3QPI0 = 98,
	PFM_PMU_INTEL_SNBEP_UNC_R3QPI1 = 99,
	PFM_PMU_INTEL_KNC = 100,
	PFM_PMU_S390X_CPUM_CF = 101,
	PFM_PMU_ARM_1176 = 102,
	PFM_PMU_INTEL_IVB_EP = 103,
	PFM_PMU_INTEL_HSW = 104,
	PFM_PMU_INTEL_IVB_UNC_CB0 = 105,
	PFM_PMU_INTEL_IVB_UNC_CB1 = 106,
	PFM_PMU_INTEL_IVB_UNC_CB2 = 107,
	PFM_PMU_INTEL_IVB_UNC_CB3 = 108,
	PFM_PMU_POWER8 = 109,
	PFM_PMU_INTEL_RAPL = 110,
	PFM_PMU_INTEL_SLM = 111,
	PFM_PMU_AMD64_FAM15H_NB = 112,
	PFM_PMU_ARM_QCOM_KRAIT = 113,
	PFM_PMU_PERF_EVENT_RAW = 114,
	PFM_PMU_INTEL_IVBEP_UNC_CB0 = 115,
	PFM_PMU_INTEL_IVBEP_UNC_CB1 = 116,
	PFM_PMU_INTEL_IVBEP_UNC_CB2 = 117,
	PFM_PMU_INTEL_IVBEP_UNC_CB3 = 118,
	PFM_PMU_INTEL_IVBEP_UNC_CB4 = 119,
	PFM_PMU_INTEL_IVBEP_UNC_CB5 = 120,
	PFM_PMU_INTEL_IVBEP_UNC_CB6 = 121,
	PFM_PMU_INTEL_IVBEP_UNC_CB7 = 122,
	PFM_PMU_INTEL_IVBEP_UNC_CB8 = 123,
	PFM_PMU_INTEL_IVBEP_UNC_CB9 = 124,
	PFM_PMU_INTEL_IVBEP_UNC_CB10 = 125,
	PFM_PMU_INTEL_IVBEP_UNC_CB11 = 126,
	PFM_PMU_INTEL_IVBEP_UNC_CB12 = 127,
	PFM_PMU_INTEL_IVBEP_UNC_CB13 = 128,
	PFM_PMU_INTEL_IVBEP_UNC_CB14 = 129,
	PFM_PMU_INTEL_IVBEP_UNC_HA0 = 130,
	PFM_PMU_INTEL_IVBEP_UNC_HA1 = 131,
	PFM_PMU_INTEL_IVBEP_UNC_IMC0 = 132,
	PFM_PMU_INTEL_IVBEP_UNC_IMC1 = 133,
	PFM_PMU_INTEL_IVBEP_UNC_IMC2 = 134,
	PFM_PMU_INTEL_IVBEP_UNC_IMC3 = 135,
	PFM_PMU_INTEL_IVBEP_UNC_IMC4 = 136,
	PFM_PMU_INTEL_IVBEP_UNC_IMC5 = 137,
	PFM_PMU_INTEL_IVBEP_UNC_IMC6 = 138,
	PFM_PMU_INTEL_IVBEP_UNC_IMC7 = 139,
	PFM_PMU_INTEL_IVBEP_UNC_PCU = 140,
	PFM_PMU_INTEL_IVBEP_UNC_QPI0 = 141,
	PFM_PMU_INTEL_IVBEP_UNC_QPI1 = 142,
	PFM_PMU_INTEL_IVBEP_UNC_QPI2 = 143,
	PFM_PMU_INTEL_IVBEP_UNC_UBOX = 144,
	PFM_PMU_INTEL_IVBEP_UNC_R2PCIE = 145,
	PFM_PMU_INTEL_IVBEP_UNC_R3QPI0 = 146,
	PFM_PMU_INTEL_IVBEP_UNC_R3QPI1 = 147,
	PFM_PMU_INTEL_IVBEP_UNC_R3QPI2 = 148,
	PFM_PMU_INTEL_IVBEP_UNC_IRP = 149,
	PFM_PMU_S390X_CPUM_SF = 150,
	PFM_PMU_ARM_CORTEX_A57 = 151,
	PFM_PMU_ARM_CORTEX_A53 = 152,
	PFM_PMU_ARM_CORTEX_A7 = 153,
	PFM_PMU_INTEL_HSW_EP = 154,
	PFM_PMU_INTEL_BDW = 155,
	PFM_PMU_ARM_XGENE = 156,
	PFM_PMU_INTEL_HSWEP_UNC_CB0 = 157,
	PFM_PMU_INTEL_HSWEP_UNC_CB1 = 158,
	PFM_PMU_INTEL_HSWEP_UNC_CB2 = 159,
	PFM_PMU_INTEL_HSWEP_UNC_CB3 = 160,
	PFM_PMU_INTEL_HSWEP_UNC_CB4 = 161,
	PFM_PMU_INTEL_HSWEP_UNC_CB5 = 162,
	PFM_PMU_INTEL_HSWEP_UNC_CB6 = 163,
	PFM_PMU_INTEL_HSWEP_UNC_CB7 = 164,
	PFM_PMU_INTEL_HSWEP_UNC_CB8 = 165,
	PFM_PMU_INTEL_HSWEP_UNC_CB9 = 166,
	PFM_PMU_INTEL_HSWEP_UNC_CB10 = 167,
	PFM_PMU_INTEL_HSWEP_UNC_CB11 = 168,
	PFM_PMU_INTEL_HSWEP_UNC_CB12 = 169,
	PFM_PMU_INTEL_HSWEP_UNC_CB13 = 170,
	PFM_PMU_INTEL_HSWEP_UNC_CB14 = 171,
	PFM_PMU_INTEL_HSWEP_UNC_CB15 = 172,
	PFM_PMU_INTEL_HSWEP_UNC_CB16 = 173,
	PFM_PMU_INTEL_HSWEP_UNC_CB17 = 174,
	PFM_PMU_INTEL_HSWEP_UNC_HA0 = 175,
	PFM_PMU_INTEL_HSWEP_UNC_HA1 = 176,
	PFM_PMU_INTEL_HSWEP_UNC_IMC0 = 177,
	PFM_PMU_INTEL_HSWEP_UNC_IMC1 = 178,
	PFM_PMU_INTEL_HSWEP_UNC_IMC2 = 179,
	PFM_PMU_INTEL_HSWEP_UNC_IMC3 = 180,
	PFM_PMU_INTEL_HSWEP_UNC_IMC4 = 181,
	PFM_PMU_INTEL_HSWEP_UNC_IMC5 = 182,
	PFM_PMU_INTEL_HSWEP_UNC_IMC6 = 183,
	PFM_PMU_INTEL_HSWEP_UNC_IMC7 = 184,
	PFM_PMU_INTEL_HSWEP_UNC_PCU = 185,
	PFM_PMU_INTEL_HSWEP_UNC_QPI0 = 186,
	PFM_PMU_INTEL_HSWEP_UNC_QPI1 = 187,
	PFM_PMU_INTEL_HSWEP_UNC_UBOX = 188,
	PFM_PMU_INTEL_HSWEP_UNC_R2PCIE = 189,
	PFM_PMU_INTEL_HSWEP_UNC_R3QPI0 = 190,
	PFM_PMU_INTEL_HSWEP_UNC_R3QPI1 = 191,
	PFM_PMU_INTEL_HSWEP_UNC_R3QPI2 = 192,
	PFM_PMU_INTEL_HSWEP_UNC_IRP = 193,
	PFM_PMU_INTEL_HSWEP_UNC_SB0 = 194,
	PFM_PMU_INTEL_HSWEP_UNC_SB1 = 195,
	PFM_PMU_INTEL_HSWEP_UNC_SB2 = 196,
	PFM_PMU_INTEL_HSWEP_UNC_SB3 = 197,
	PFM_PMU_POWERPC_NEST_MCS_READ_BW = 198,
	PFM_PMU_POWERPC_NEST_MCS_WRITE_BW = 199,
	PFM_PMU_INTEL_SKL = 200,
	PFM_PMU_INTEL_BDW_EP = 201,
	PFM_PMU_INTEL_GLM = 202,
	PFM_PMU_INTEL_KNL = 203,
	PFM_PMU_INTEL_KNL_UNC_IMC0 = 204,
	PFM_PMU_INTEL_KNL_UNC_IMC1 = 205,
	PFM_PMU_INTEL_KNL_UNC_IMC2 = 206,
	PFM_PMU_INTEL_KNL_UNC_IMC3 = 207,
	PFM_PMU_INTEL_KNL_UNC_IMC4 = 208,
	PFM_PMU_INTEL_KNL_UNC_IMC5 = 209,
	PFM_PMU_INTEL_KNL_UNC_IMC_UCLK0 = 210,
	PFM_PMU_INTEL_KNL_UNC_IMC_UCLK1 = 211,
	PFM_PMU_INTEL_KNL_UNC_EDC_ECLK0 = 212,
	PFM_PMU_INTEL_KNL_UNC_EDC_ECLK1 = 213,
	PFM_PMU_INTEL_KNL_UNC_EDC_ECLK2 = 214,
	PFM_PMU_INTEL_KNL_UNC_EDC_ECLK3 = 215,
	PFM_PMU_INTEL_KNL_UNC_EDC_ECLK4 = 216,
	PFM_PMU_INTEL_KNL_UNC_EDC_ECLK5 = 217,
	PFM_PMU_INTEL_KNL_UNC_EDC_ECLK6 = 218,
	PFM_PMU_INTEL_KNL_UNC_EDC_ECLK7 = 219,
	PFM_PMU_INTEL_KNL_UNC_EDC_UCLK0 = 220,
	PFM_PMU_INTEL_KNL_UNC_EDC_UCLK1 = 221,
	PFM_PMU_INTEL_KNL_UNC_EDC_UCLK2 = 222,
	PFM_PMU_INTEL_KNL_UNC_EDC_UCLK3 = 223,
	PFM_PMU_INTEL_KNL_UNC_EDC_UCLK4 = 224,
	PFM_PMU_INTEL_KNL_UNC_EDC_UCLK5 = 225,
	PFM_PMU_INTEL_KNL_UNC_EDC_UCLK6 = 226,
	PFM_PMU_INTEL_KNL_UNC_EDC_UCLK7 = 227,
	PFM_PMU_INTEL_KNL_UNC_CHA0 = 228,
	PFM_PMU_INTEL_KNL_UNC_CHA1 = 229,
	PFM_PMU_INTEL_KNL_UNC_CHA2 = 230,
	PFM_PMU_INTEL_KNL_UNC_CHA3 = 231,
	PFM_PMU_INTEL_KNL_UNC_CHA4 = 232,
	PFM_PMU_INTEL_KNL_UNC_CHA5 = 233,
	PFM_PMU_INTEL_KNL_UNC_CHA6 = 234,
	PFM_PMU_INTEL_KNL_UNC_CHA7 = 235,
	PFM_PMU_INTEL_KNL_UNC_CHA8 = 236,
	PFM_PMU_INTEL_KNL_UNC_CHA9 = 237,
	PFM_PMU_INTEL_KNL_UNC_CHA10 = 238,
	PFM_PMU_INTEL_KNL_UNC_CHA11 = 239,
	PFM_PMU_INTEL_KNL_UNC_CHA12 = 240,
	PFM_PMU_INTEL_KNL_UNC_CHA13 = 241,
	PFM_PMU_INTEL_KNL_UNC_CHA14 = 242,
	PFM_PMU_INTEL_KNL_UNC_CHA15 = 243,
	PFM_PMU_INTEL_KNL_UNC_CHA16 = 244,
	PFM_PMU_INTEL_KNL_UNC_CHA17 = 245,
	PFM_PMU_INTEL_KNL_UNC_CHA18 = 246,
	PFM_PMU_INTEL_KNL_UNC_CHA19 = 247,
	PFM_PMU_INTEL_KNL_UNC_CHA20 = 248,
	PFM_PMU_INTEL_KNL_UNC_CHA21 = 249,
	PFM_PMU_INTEL_KNL_UNC_CHA22 = 250,
	PFM_PMU_INTEL_KNL_UNC_CHA23 = 251,
	PFM_PMU_INTEL_KNL_UNC_CHA24 = 252,
	PFM_PMU_INTEL_KNL_UNC_CHA25 = 253,
	PFM_PMU_INTEL_KNL_UNC_CHA26 = 254,
	PFM_PMU_INTEL_KNL_UNC_CHA27 = 255,
	PFM_PMU_INTEL_KNL_UNC_CHA28 = 256,
	PFM_PMU_INTEL_KNL_UNC_CHA29 = 257,
	PFM_PMU_INTEL_KNL_UNC_CHA30 = 258,
	PFM_PMU_INTEL_KNL_UNC_CHA31 = 259,
	PFM_PMU_INTEL_KNL_UNC_CHA32 = 260,
	PFM_PMU_INTEL_KNL_UNC_CHA33 = 261,
	PFM_PMU_INTEL_KNL_UNC_CHA34 = 262,
	PFM_PMU_INTEL_KNL_UNC_CHA35 = 263,
	PFM_PMU_INTEL_KNL_UNC_CHA36 = 264,
	PFM_PMU_INTEL_KNL_UNC_CHA37 = 265,
	PFM_PMU_INTEL_KNL_UNC_UBOX = 266,
	PFM_PMU_INTEL_KNL_UNC_M2PCIE = 267,
	PFM_PMU_POWER9 = 268,
	PFM_PMU_INTEL_BDX_UNC_CB0 = 269,
	PFM_PMU_INTEL_BDX_UNC_CB1 = 270,
	PFM_PMU_INTEL_BDX_UNC_CB2 = 271,
	PFM_PMU_INTEL_BDX_UNC_CB3 = 272,
	PFM_PMU_INTEL_BDX_UNC_CB4 = 273,
	PFM_PMU_INTEL_BDX_UNC_CB5 = 274,
	PFM_PMU_INTEL_BDX_UNC_CB6 = 275,
	PFM_PMU_INTEL_BDX_UNC_CB7 = 276,
	PFM_PMU_INTEL_BDX_UNC_CB8 = 277,
	PFM_PMU_INTEL_BDX_UNC_CB9 = 278,
	PFM_PMU_INTEL_BDX_UNC_CB10 = 279,
	PFM_PMU_INTEL_BDX_UNC_CB11 = 280,
	PFM_PMU_INTEL_BDX_UNC_CB12 = 281,
	PFM_PMU_INTEL_BDX_UNC_CB13 = 282,
	PFM_PMU_INTEL_BDX_UNC_CB14 = 283,
	PFM_PMU_INTEL_BDX_UNC_CB15 = 284,
	PFM_PMU_INTEL_BDX_UNC_CB16 = 285,
	PFM_PMU_INTEL_BDX_UNC_CB17 = 286,
	PFM_PMU_INTEL_BDX_UNC_CB18 = 287,
	PFM_PMU_INTEL_BDX_UNC_CB19 = 288,
	PFM_PMU_INTEL_BDX_UNC_CB20 = 289,
	PFM_PMU_INTEL_BDX_UNC_CB21 = 290,
	PFM_PMU_INTEL_BDX_UNC_CB22 = 291,
	PFM_PMU_INTEL_BDX_UNC_CB23 = 292,
	PFM_PMU_INTEL_BDX_UNC_HA0 = 293,
	PFM_PMU_INTEL_BDX_UNC_HA1 = 294,
	PFM_PMU_INTEL_BDX_UNC_IMC0 = 295,
	PFM_PMU_INTEL_BDX_UNC_IMC1 = 296,
	PFM_PMU_INTEL_BDX_UNC_IMC2 = 297,
	PFM_PMU_INTEL_BDX_UNC_IMC3 = 298,
	PFM_PMU_INTEL_BDX_UNC_IMC4 = 299,
	PFM_PMU_INTEL_BDX_UNC_IMC5 = 300,
	PFM_PMU_INTEL_BDX_UNC_IMC6 = 301,
	PFM_PMU_INTEL_BDX_UNC_IMC7 = 302,
	PFM_PMU_INTEL_BDX_UNC_PCU = 303,
	PFM_PMU_INTEL_BDX_UNC_QPI0 = 304,
	PFM_PMU_INTEL_BDX_UNC_QPI1 = 305,
	PFM_PMU_INTEL_BDX_UNC_QPI2 = 306,
	PFM_PMU_INTEL_BDX_UNC_UBOX = 307,
	PFM_PMU_INTEL_BDX_UNC_R2PCIE = 308,
	PFM_PMU_INTEL_BDX_UNC_R3QPI0 = 309,
	PFM_PMU_INTEL_BDX_UNC_R3QPI1 = 310,
	PFM_PMU_INTEL_BDX_UNC_R3QPI2 = 311,
	PFM_PMU_INTEL_BDX_UNC_IRP = 312,
	PFM_PMU_INTEL_BDX_UNC_SB0 = 313,
	PFM_PMU_INTEL_BDX_UNC_SB1 = 314,
	PFM_PMU_INTEL_BDX_UNC_SB2 = 315,
	PFM_PMU_INTEL_BDX_UNC_SB3 = 316,
	PFM_PMU_AMD64_FAM17H = 317,
	PFM_PMU_AMD64_FAM16H = 318,
	PFM_PMU_INTEL_SKX = 319,
	PFM_PMU_INTEL_SKX_UNC_CHA0 = 320,
	PFM_PMU_INTEL_SKX_UNC_CHA1 = 321,
	PFM_PMU_INTEL_SKX_UNC_CHA2 = 322,
	PFM_PMU_INTEL_SKX_UNC_CHA3 = 323,
	PFM_PMU_INTEL_SKX_UNC_CHA4 = 324,
	PFM_PMU_INTEL_SKX_UNC_CHA5 = 325,
	PFM_PMU_INTEL_SKX_UNC_CHA6 = 326,
	PFM_PMU_INTEL_SKX_UNC_CHA7 = 327,
	PFM_PMU_INTEL_SKX_UNC_CHA8 = 328,
	PFM_PMU_INTEL_SKX_UNC_CHA9 = 329,
	PFM_PMU_INTEL_SKX_UNC_CHA10 = 330,
	PFM_PMU_INTEL_SKX_UNC_CHA11 = 331,
	PFM_PMU_INTEL_SKX_UNC_CHA12 = 332,
	PFM_PMU_INTEL_SKX_UNC_CHA13 = 333,
	PFM_PMU_INTEL_SKX_UNC_CHA14 = 334,
	PFM_PMU_INTEL_SKX_UNC_CHA15 = 335,
	PFM_PMU_INTEL_SKX_UNC_CHA16 = 336,
	PFM_PMU_INTEL_SKX_UNC_CHA17 = 337,
	PFM_PMU_INTEL_SKX_UNC_CHA18 = 338,
	PFM_PMU_INTEL_SKX_UNC_CHA19 = 339,
	PFM_PMU_INTEL_SKX_UNC_CHA20 = 340,
	PFM_PMU_INTEL_SKX_UNC_CHA21 = 341,
	PFM_PMU_INTEL_SKX_UNC_CHA22 = 342,
	PFM_PMU_INTEL_SKX_UNC_CHA23 = 343,
	PFM_PMU_INTEL_SKX_UNC_CHA24 = 344,
	PFM_PMU_INTEL_SKX_UNC_CHA25 = 345,
	PFM_PMU_INTEL_SKX_UNC_CHA26 = 346,
	PFM_PMU_INTEL_SKX_UNC_CHA27 = 347,
	PFM_PMU_INTEL_SKX_UNC_IIO0 = 348,
	PFM_PMU_INTEL_SKX_UNC_IIO1 = 349,
	PFM_PMU_INTEL_SKX_UNC_IIO2 = 350,
	PFM_PMU_INTEL_SKX_UNC_IIO3 = 351,
	PFM_PMU_INTEL_SKX_UNC_IIO4 = 352,
	PFM_PMU_INTEL_SKX_UNC_IIO5 = 353,
	PFM_PMU_INTEL_SKX_UNC_IMC0 = 354,
	PFM_PMU_INTEL_SKX_UNC_IMC1 = 355,
	PFM_PMU_INTEL_SKX_UNC_IMC2 = 356,
	PFM_PMU_INTEL_SKX_UNC_IMC3 = 357,
	PFM_PMU_INTEL_SKX_UNC_IMC4 = 358,
	PFM_PMU_INTEL_SKX_UNC_IMC5 = 359,
	PFM_PMU_INTEL_SKX_UNC_IRP = 360,
	PFM_PMU_INTEL_SKX_UNC_M2M0 = 361,
	PFM_PMU_INTEL_SKX_UNC_M2M1 = 362,
	PFM_PMU_INTEL_SKX_UNC_M3UPI0 = 363,
	PFM_PMU_INTEL_SKX_UNC_M3UPI1 = 364,
	PFM_PMU_INTEL_SKX_UNC_M3UPI2 = 365,
	PFM_PMU_INTEL_SKX_UNC_PCU = 366,
	PFM_PMU_INTEL_SKX_UNC_UBOX = 367,
	PFM_PMU_INTEL_SKX_UNC_UPI0 = 368,
	PFM_PMU_INTEL_SKX_UNC_UPI1 = 369,
	PFM_PMU_INTEL_SKX_UNC_UPI2 = 370,
	PFM_PMU_INTEL_KNM = 371,
	PFM_PMU_INTEL_KNM_UNC_IMC0 = 372,
	PFM_PMU_INTEL_KNM_UNC_IMC1 = 373,
	PFM_PMU_INTEL_KNM_UNC_IMC2 = 374,
	PFM_PMU_INTEL_KNM_UNC_IMC3 = 375,
	PFM_PMU_INTEL_KNM_UNC_IMC4 = 376,
	PFM_PMU_INTEL_KNM_UNC_IMC5 = 377,
	PFM_PMU_INTEL_KNM_UNC_IMC_UCLK0 = 378,
	PFM_PMU_INTEL_KNM_UNC_IMC_UCLK1 = 379,
	PFM_PMU_INTEL_KNM_UNC_EDC_ECLK0 = 380,
	PFM_PMU_INTEL_KNM_UNC_EDC_ECLK1 = 381,
	PFM_PMU_INTEL_KNM_UNC_EDC_ECLK2 = 382,
	PFM_PMU_INTEL_KNM_UNC_EDC_ECLK3 = 383,
	PFM_PMU_INTEL_KNM_UNC_EDC_ECLK4 = 384,
	PFM_PMU_INTEL_KNM_UNC_EDC_ECLK5 = 385,
	PFM_PMU_INTEL_KNM_UNC_EDC_ECLK6 = 386,
	PFM_PMU_INTEL_KNM_UNC_EDC_ECLK7 = 387,
	PFM_PMU_INTEL_KNM_UNC_EDC_UCLK0 = 388,
	PFM_PMU_INTEL_KNM_UNC_EDC_UCLK1 = 389,
	PFM_PMU_INTEL_KNM_UNC_EDC_UCLK2 = 390,
	PFM_PMU_INTEL_KNM_UNC_EDC_UCLK3 = 391,
	PFM_PMU_INTEL_KNM_UNC_EDC_UCLK4 = 392,
	PFM_PMU_INTEL_KNM_UNC_EDC_UCLK5 = 393,
	PFM_PMU_INTEL_KNM_UNC_EDC_UCLK6 = 394,
	PFM_PMU_INTEL_KNM_UNC_EDC_UCLK7 = 395,
	PFM_PMU_INTEL_KNM_UNC_CHA0 = 396,
	PFM_PMU_INTEL_KNM_UNC_CHA1 = 397,
	PFM_PMU_INTEL_KNM_UNC_CHA2 = 398,
	PFM_PMU_INTEL_KNM_UNC_CHA3 = 399,
	PFM_PMU_INTEL_KNM_UNC_CHA4 = 400,
	PFM_PMU_INTEL_KNM_UNC_CHA5 = 401,
	PFM_PMU_INTEL_KNM_UNC_CHA6 = 402,
	PFM_PMU_INTEL_KNM_UNC_CHA7 = 403,
	PFM_PMU_INTEL_KNM_UNC_CHA8 = 404,
	PFM_PMU_INTEL_KNM_UNC_CHA9 = 405,
	PFM_PMU_INTEL_KNM_UNC_CHA10 = 406,
	PFM_PMU_INTEL_KNM_UNC_CHA11 = 407,
	PFM_PMU_INTEL_KNM_UNC_CHA12 = 408,
	PFM_PMU_INTEL_KNM_UNC_CHA13 = 409,
	PFM_PMU_INTEL_KNM_UNC_CHA14 = 410,
	PFM_PMU_INTEL_KNM_UNC_CHA15 = 411,
	PFM_PMU_INTEL_KNM_UNC_CHA16 = 412,
	PFM_PMU_INTEL_KNM_UNC_CHA17 = 413,
	PFM_PMU_INTEL_KNM_UNC_CHA18 = 414,
	PFM_PMU_INTEL_KNM_UNC_CHA19 = 415,
	PFM_PMU_INTEL_KNM_UNC_CHA20 = 416,
	PFM_PMU_INTEL_KNM_UNC_CHA21 = 417,
	PFM_PMU_INTEL_KNM_UNC_CHA22 = 418,
	PFM_PMU_INTEL_KNM_UNC_CHA23 = 419,
	PFM_PMU_INTEL_KNM_UNC_CHA24 = 420,
	PFM_PMU_INTEL_KNM_UNC_CHA25 = 421,
	PFM_PMU_INTEL_KNM_UNC_CHA26 = 422,
	PFM_PMU_INTEL_KNM_UNC_CHA27 = 423,
	PFM_PMU_INTEL_KNM_UNC_CHA28 = 424,
	PFM_PMU_INTEL_KNM_UNC_CHA29 = 425,
	PFM_PMU_INTEL_KNM_UNC_CHA30 = 426,
	PFM_PMU_INTEL_KNM_UNC_CHA31 = 427,
	PFM_PMU_INTEL_KNM_UNC_CHA32 = 428,
	PFM_PMU_INTEL_KNM_UNC_CHA33 = 429,
	PFM_PMU_INTEL_KNM_UNC_CHA34 = 430,
	PFM_PMU_INTEL_KNM_UNC_CHA35 = 431,
	PFM_PMU_INTEL_KNM_UNC_CHA36 = 432,
	PFM_PMU_INTEL_KNM_UNC_CHA37 = 433,
	PFM_PMU_INTEL_KNM_UNC_UBOX = 434,
	PFM_PMU_INTEL_KNM_UNC_M2PCIE = 435,
	PFM_PMU_ARM_THUNDERX2 = 436,
	PFM_PMU_INTEL_CLX = 437,
	PFM_PMU_ARM_THUNDERX2_DMC0 = 438,
	PFM_PMU_ARM_THUNDERX2_DMC1 = 439,
	PFM_PMU_ARM_THUNDERX2_LLC0 = 440,
	PFM_PMU_ARM_THUNDERX2_LLC1 = 441,
	PFM_PMU_ARM_THUNDERX2_CCPI0 = 442,
	PFM_PMU_ARM_THUNDERX2_CCPI1 = 443,
	PFM_PMU_AMD64_FAM17H_ZEN1 = 444,
	PFM_PMU_AMD64_FAM17H_ZEN2 = 445,
	PFM_PMU_INTEL_TMT = 446,
	PFM_PMU_INTEL_ICL = 447,
	PFM_PMU_ARM_A64FX = 448,
	PFM_PMU_ARM_N1 = 449,
	PFM_PMU_AMD64_FAM19H_ZEN3 = 450,
	PFM_PMU_AMD64_RAPL = 451,
	PFM_PMU_AMD64_FAM19H_ZEN3_L3 = 452,
	PFM_PMU_INTEL_ICX = 453,
	PFM_PMU_ARM_N2 = 454,
	PFM_PMU_ARM_KUNPENG = 455,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL1_DDRC0 = 456,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL1_DDRC1 = 457,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL1_DDRC2 = 458,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL1_DDRC3 = 459,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL3_DDRC0 = 460,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL3_DDRC1 = 461,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL3_DDRC2 = 462,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL3_DDRC3 = 463,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL5_DDRC0 = 464,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL5_DDRC1 = 465,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL5_DDRC2 = 466,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL5_DDRC3 = 467,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL7_DDRC0 = 468,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL7_DDRC1 = 469,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL7_DDRC2 = 470,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL7_DDRC3 = 471,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL1_HHA2 = 472,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL1_HHA3 = 473,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL3_HHA0 = 474,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL3_HHA1 = 475,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL5_HHA6 = 476,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL5_HHA7 = 477,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL7_HHA4 = 478,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL7_HHA5 = 479,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL1_L3C10 = 480,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL1_L3C11 = 481,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL1_L3C12 = 482,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL1_L3C13 = 483,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL1_L3C14 = 484,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL1_L3C15 = 485,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL1_L3C8 = 486,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL1_L3C9 = 487,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL3_L3C0 = 488,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL3_L3C1 = 489,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL3_L3C2 = 490,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL3_L3C3 = 491,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL3_L3C4 = 492,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL3_L3C5 = 493,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL3_L3C6 = 494,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL3_L3C7 = 495,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL5_L3C24 = 496,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL5_L3C25 = 497,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL5_L3C26 = 498,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL5_L3C27 = 499,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL5_L3C28 = 500,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL5_L3C29 = 501,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL5_L3C30 = 502,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL5_L3C31 = 503,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL7_L3C16 = 504,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL7_L3C17 = 505,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL7_L3C18 = 506,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL7_L3C19 = 507,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL7_L3C20 = 508,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL7_L3C21 = 509,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL7_L3C22 = 510,
	PFM_PMU_ARM_KUNPENG_UNC_SCCL7_L3C23 = 511,
	PFM_PMU_INTEL_SPR = 512,
	PFM_PMU_POWER10 = 513,
	PFM_PMU_AMD64_FAM19H_ZEN4 = 514,
	PFM_PMU_ARM_V1 = 515,
	PFM_PMU_ARM_V2 = 516,
	PFM_PMU_MAX = 517
} pfm_pmu_t;

/* What a PMU measures. */
typedef enum {
	PFM_PMU_TYPE_UNKNOWN = 0,
	PFM_PMU_TYPE_CORE = 1,		/* a processor core */
	PFM_PMU_TYPE_UNCORE = 2,	/* shared, socket-level units */
	PFM_PMU_TYPE_OS_GENERIC = 3,	/* events the operating system defines */
	PFM_PMU_TYPE_MAX
} pfm_pmu_type_t;

/* Kinds of event attributes. */
typedef enum {
	PFM_ATTR_NONE = 0,
	PFM_ATTR_UMASK = 1,		/* unit mask */
	PFM_ATTR_MOD_BOOL = 2,		/* modifier taking 0 or 1 */
	PFM_ATTR_MOD_INTEGER = 3,	/* modifier taking a number */
	PFM_ATTR_RAW_UMASK = 4,		/* unit mask given as a number (never listed) */
	PFM_ATTR_MAX
} pfm_attr_t;

/* Representation of an event's count. */
typedef enum {
	PFM_DTYPE_UNKNOWN = 0,
	PFM_DTYPE_UINT64 = 1,		/* every event of this library */
	PFM_DTYPE_INT64 = 2,
	PFM_DTYPE_DOUBLE = 3,
	PFM_DTYPE_FIXED = 4,		/* fixed point, 32.32 */
	PFM_DTYPE_RATIO = 5,		/* two 32-bit integers */
	PFM_DTYPE_CHAR8 = 6,		/* eight characters, no NUL */
	PFM_DTYPE_MAX
} pfm_dtype_t;

/* Who implements an attribute. */
typedef enum {
	PFM_ATTR_CTRL_UNKNOWN = 0,
	PFM_ATTR_CTRL_PMU = 1,		/* the PMU hardware */
	PFM_ATTR_CTRL_PERF_EVENT = 2,	/* the Linux perf_events interface */
	PFM_ATTR_CTRL_MAX
} pfm_attr_ctrl_t;

/* The OS layer an attribute list or an encoding is for. */
typedef enum {
	PFM_OS_NONE = 0,		/* raw PMU registers only */
	PFM_OS_PERF_EVENT = 1,		/* perf_events, PMU-related attributes */
	PFM_OS_PERF_EVENT_EXT = 2,	/* perf_events, also sampling and scheduling */
	PFM_OS_MAX,
} pfm_os_t;

/* Return values: PFM_SUCCESS or a PFM_ERR_* code. */
typedef int pfm_err_t;
typedef int os_err_t;

/* pfm_get_pmu_info(). */
typedef struct {
	const char *name;		/* prefix of event strings, "nhm" */
	const char *desc;		/* for people */
	size_t size;			/* in: sizeof(pfm_pmu_info_t) or 0 */
	pfm_pmu_t pmu;			/* the model's number */
	pfm_pmu_type_t type;
	int nevents;			/* events the model has */
	int first_event;		/* opaque index of its first event, -1: none */
	int max_encoding;		/* most 64-bit codes one event needs */
	int num_cntrs;			/* generic counters */
	int num_fixed_cntrs;		/* fixed-function counters */
	struct {
		unsigned int is_present:1;	/* detected here (or forced) */
		unsigned int is_dfl:1;		/* the architecture's default PMU */
		unsigned int reserved_bits:30;
	};
} pfm_pmu_info_t;

/* Speculation flag of events and unit masks. */
typedef enum {
	PFM_EVENT_INFO_SPEC_NA = 0,	/* unknown */
	PFM_EVENT_INFO_SPEC_TRUE = 1,	/* counts on wrong paths too */
	PFM_EVENT_INFO_SPEC_FALSE = 2,	/* counts the correct path only */
} pfm_event_info_spec_t;

/* pfm_get_event_info(). */
typedef struct {
	const char *name;
	const char *desc;
	const char *equiv;		/* an alias: the event string it stands for; else NULL */
	size_t size;			/* in: sizeof(pfm_event_info_t) or 0 */
	uint64_t code;			/* event select code, without unit masks */
	pfm_pmu_t pmu;
	pfm_dtype_t dtype;
	int idx;			/* the opaque index asked for */
	int nattrs;			/* attributes for the OS layer asked for */
	int reserved;
	struct {
		unsigned int is_precise:1;	/* precise sampling (Intel: PEBS) */
		unsigned int is_speculative:2;	/* pfm_event_info_spec_t */
		unsigned int support_hw_smpl:1;	/* hardware sampling buffer */
		unsigned int reserved_bits:28;
	};
} pfm_event_info_t;

/* pfm_get_event_attr_info(). */
typedef struct {
	const char *name;
	const char *desc;
	const char *equiv;		/* an alias: the attributes it stands for; else NULL */
	size_t size;			/* in: sizeof(pfm_event_attr_info_t) or 0 */
	uint64_t code;			/* unit-mask bits, or the modifier's number */
	pfm_attr_t type;
	int idx;			/* the attribute index asked for */
	pfm_attr_ctrl_t ctrl;
	struct {
		unsigned int is_dfl:1;		/* a default unit mask */
		unsigned int is_precise:1;
		unsigned int is_speculative:2;	/* pfm_event_info_spec_t */
		unsigned int support_hw_smpl:1;
		unsigned int support_no_mods:1;	/* a unit mask that takes no modifier */
		unsigned int reserved_bits:26;
	};
	union {
		uint64_t dfl_val64;
		const char *dfl_str;
		int dfl_bool;
		int dfl_int;
	};
} pfm_event_attr_info_t;

/* pfm_get_os_event_encoding() with PFM_OS_NONE. */
typedef struct {
	uint64_t *codes;		/* in: an array of count codes, or NULL (the library allocates one) */
	char **fstr;			/* in: where to store the fully-qualified string, or NULL */
	size_t size;			/* in: sizeof(pfm_pmu_encode_arg_t) or 0 */
	int count;			/* in: the array's length; out: the codes written */
	int idx;			/* out: the event's opaque index */
} pfm_pmu_encode_arg_t;

/* Sizes of the structures in their first layout (size member 0). */
#if defined(__LP64__) || (defined(__WORDSIZE) && __WORDSIZE == 64)
#define PFM_PMU_INFO_ABI0	56
#define PFM_EVENT_INFO_ABI0	64
#define PFM_ATTR_INFO_ABI0	64
#define PFM_RAW_ENCODE_ABI0	32
#else
#define PFM_PMU_INFO_ABI0	44
#define PFM_EVENT_INFO_ABI0	48
#define PFM_ATTR_INFO_ABI0	48
#define PFM_RAW_ENCODE_ABI0	20
#endif

/* Set-up and errors. pfm_strerror() and pfm_get_version() work at any time. */
extern pfm_err_t pfm_initialize(void);
extern void pfm_terminate(void);
extern const char *pfm_strerror(int code);
extern int pfm_get_version(void);

/* PMUs, events, attributes. */
extern pfm_err_t pfm_get_pmu_info(pfm_pmu_t pmu, pfm_pmu_info_t *output);
extern int pfm_get_event_next(int idx);
extern int pfm_find_event(const char *str);
extern pfm_err_t pfm_get_event_info(int idx, pfm_os_t os, pfm_event_info_t *output);
extern pfm_err_t pfm_get_event_attr_info(int eidx, int aidx, pfm_os_t os, pfm_event_attr_info_t *output);

/*
 * Encoding: args is a pfm_pmu_encode_arg_t for PFM_OS_NONE, a
 * pfm_perf_encode_arg_t (perfmon/pfmlib_perf_event.h) for the perf layers.
 */
extern pfm_err_t pfm_get_os_event_encoding(const char *str, int dfl_plm, pfm_os_t os, void *args);

/* Checks one PMU's table, printing what is wrong to fp. */
extern pfm_err_t pfm_pmu_validate(pfm_pmu_t pmu_id, FILE *fp);

/* The earlier raw-encoding call: *codes NULL and *count 0 let the library allocate. */
extern pfm_err_t pfm_get_event_encoding(const char *str, int dfl_plm, char **fstr, int *idx, uint64_t **codes, int *count);

/* Error codes. */
#define PFM_SUCCESS		0	/* no error */
#define PFM_ERR_NOTSUPP		-1	/* not supported here, by this PMU or OS layer */
#define PFM_ERR_INVAL		-2	/* an argument is invalid */
#define PFM_ERR_NOINIT		-3	/* pfm_initialize() has not been called */
#define PFM_ERR_NOTFOUND	-4	/* no such PMU or event */
#define PFM_ERR_FEATCOMB	-5	/* unit masks or features that cannot be combined */
#define PFM_ERR_UMASK		-6	/* a unit mask is wrong or missing */
#define PFM_ERR_NOMEM		-7	/* out of memory */
#define PFM_ERR_ATTR		-8	/* an attribute the event does not have */
#define PFM_ERR_ATTR_VAL	-9	/* an attribute value out of range or malformed */
#define PFM_ERR_ATTR_SET	-10	/* an attribute given two values */
#define PFM_ERR_TOOMANY		-11	/* too many attributes */
#define PFM_ERR_TOOSMALL	-12	/* the caller's array is too small */

/*
 * Loops: over the attributes of an event (an int x and a pfm_event_info_t
 * pointer z), over every PMU number (walk events from first_event with
 * pfm_get_event_next(): indexes need not be consecutive).
 */
#define pfm_for_each_event_attr(x, z) \
	for ((x) = 0; (x) < (z)->nattrs; (x) = (x) + 1)

#define pfm_for_all_pmus(x) \
	for ((x) = PFM_PMU_NONE; (x) < PFM_PMU_MAX; (x)++)

#ifdef __cplusplus
}
#endif

#endif /* __PFMLIB_H__ */
