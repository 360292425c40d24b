//! What differs between Itanium, Itanium 2 and Montecito, as data: register
//! numbers, register formats, which features exist, the counter placement
//! algorithm, and the order of the dispatch steps after counter placement.

use pfmlib::model_specific::Ia64Model;
use std::ops::RangeInclusive;

/// Data registers (PMDs) to read, as ranges.
pub(super) type Pmds = &'static [RangeInclusive<u32>];

/// A configuration register and the data registers it fills.
#[derive(Debug)]
pub(super) struct Regs {
    /// Configuration register (PMC number).
    pub pmc: u32,
    /// Data registers to read (PMD numbers).
    pub pmds: Pmds,
}

/// One model.
#[derive(Debug)]
pub(super) struct Ia64Layout {
    /// Counting monitors, PMC numbers.
    pub counters: RangeInclusive<u32>,
    /// How events are placed on the counting monitors.
    pub placement: Placement,
    /// Instruction and data Event Address Registers.
    pub ears: Ears,
    /// Opcode matchers.
    pub matchers: Matchers,
    /// Branch (BTB) or execution (ETB) trace buffer.
    pub trace: Trace,
    /// IP-EAR (the ETB capturing retired IPs), where the model has one.
    pub ipear: Option<Regs>,
    /// Code range restriction.
    pub code_ranges: CodeRanges,
    /// Data range restriction.
    pub data_ranges: DataRanges,
    /// The steps after counter placement, in libpfm-3's order.
    pub steps: &'static [Step],
}

impl Ia64Layout {
    /// Bit mask of every counting monitor (bit n = PMCn).
    pub fn all_counters(&self) -> u64 {
        self.counters.clone().fold(0, |m, c| m | 1 << c)
    }

    /// `PMC4-PMC7`, for messages.
    pub fn counter_names(&self) -> String {
        format!("PMC{}-PMC{}", self.counters.start(), self.counters.end())
    }
}

/// A dispatch step after counter placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// Instruction EAR.
    Iear,
    /// Data EAR.
    Dear,
    /// Opcode matchers.
    Matchers,
    /// Branch or execution trace buffer.
    BranchTrace,
    /// Code range restriction.
    CodeRanges,
    /// Data range restriction (and, with tagging, code range tagging).
    DataRanges,
    /// IP-EAR.
    Ipear,
}

/// Counter placement algorithm.
#[derive(Debug)]
pub(super) enum Placement {
    /// The first valid choice of distinct counters in lexicographic order,
    /// with the Itanium 2 cache-group rules where given.
    Search(Option<Ita2CacheRules>),
    /// Montecito: the L1D event and the L2D sets on their own counters,
    /// then events restricted to some counters, then the rest.
    Phased(MontCacheRules),
}

/// Itanium 2: cache events of one group must be of one set; the L1D event
/// sits on `l1d_pmc`, an L2 event on `l2_pmc`, whose unit mask the other L2
/// events share unless its set is one of `free_umask_sets`.
#[derive(Debug)]
pub(super) struct Ita2CacheRules {
    pub l1d_pmc: u32,
    pub l2_pmc: u32,
    pub free_umask_sets: [u8; 2],
    /// Mutually exclusive OzQ cancel events (at most one).
    pub ozq_cancels: &'static [&'static str],
}

/// Montecito: L1D events of one set, the last of them on `l1d_pmc`; L2D
/// events of at most two sets, the first three of each set on its counters.
#[derive(Debug)]
pub(super) struct MontCacheRules {
    pub l1d_pmc: u32,
    pub l2d_set_pmcs: [[u32; 3]; 2],
    /// Mutually exclusive OzQ cancel events (at most one).
    pub ozq_cancels: &'static [&'static str],
}

/// The Event Address Registers.
#[derive(Debug)]
pub(super) struct Ears {
    pub format: EarFormat,
    /// Without EAR parameters the EAR is configured from the last EAR event
    /// listed (Itanium) rather than the first.
    pub last_event: bool,
    pub iear: Regs,
    pub dear: Regs,
}

/// EAR configuration register formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EarFormat {
    /// `ItaEarCfg` for both EARs: cache or TLB mode, instruction set.
    Itanium,
    /// `Ita2IearCfg` / `Ita2DearCfg`; `ism`: the instruction set is
    /// programmable (else the I-EAR has no field and the D-EAR counts IA-64).
    Itanium2 { ism: bool },
}

/// The opcode matchers.
#[derive(Debug)]
pub(super) enum Matchers {
    /// `pmc8` / `pmc9` programmed as given.
    Raw { pmcs: [u32; 2] },
    /// `pmc8` / `pmc9` with the range control bits, and the per-IBR-pair
    /// matcher enables.
    Itanium2 { pmcs: [u32; 2], channels: u32 },
    /// `opcm1` / `opcm2`: mask and match registers each, and the per-IBR-pair
    /// matcher enables.
    Montecito {
        pairs: [(u32, u32); 2],
        channels: u32,
    },
}

impl Matchers {
    /// The matchers are given as raw `pmc8` / `pmc9` values (else `opcm1` / `opcm2`).
    pub fn raw_params(&self) -> bool {
        !matches!(self, Matchers::Montecito { .. })
    }
}

/// The branch / execution trace buffer.
#[derive(Debug)]
pub(super) struct Trace {
    pub format: TraceFormat,
    pub regs: Regs,
}

/// Trace buffer configuration formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TraceFormat {
    /// Itanium BTB (`ItaBtbCfg`).
    ItaniumBtb,
    /// Itanium 2 BTB (`Ita2BtbCfg`, with `ds`).
    Itanium2Btb,
    /// Montecito ETB (`Ita2BtbCfg`, `ds` 0), parameters under `etb`.
    MontecitoEtb,
}

impl TraceFormat {
    /// Name in messages.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::MontecitoEtb => "ETB",
            _ => "BTB",
        }
    }
}

/// Code range restriction.
#[derive(Debug)]
pub(super) enum CodeRanges {
    /// Every range covered by IBR pairs; `cfg_pmc` written 0.
    Covered { cfg_pmc: u32 },
    /// Fine mode, a single pair, or several pairs for IA64_INST_RETIRED.
    Fine(FineCodeRanges),
}

/// Code ranges with fine mode (Itanium 2, Montecito).
#[derive(Debug)]
pub(super) struct FineCodeRanges {
    /// Configuration register (`IbrCfg`).
    pub cfg_pmc: u32,
    /// Fine mode needs both ends within one aligned block of 2^bits bytes.
    pub boundary_bits: u32,
    pub erratum: Erratum,
    /// Prefetch events: they use the second IBR pair.
    pub prefetch: &'static [&'static str],
    /// Events tagged on demand fetches and/or prefetches (range flags).
    pub dual_prefetch: &'static [&'static str],
    /// An event refused when prefetch events move to the second pair.
    pub prefetch_conflict: Option<&'static str>,
    pub coarse: Coarse,
}

/// The 32-byte fine-mode erratum workaround.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Erratum {
    /// Always applied.
    Always,
    /// Applied unless `no_fine_mode_erratum`.
    UnlessDisabled,
}

/// Which events a code range outside fine mode (one pair) may restrict,
/// when they are not all IA64_INST_RETIRED.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Coarse {
    /// Any, unless prefetch events are listed: then only they and IA64_INST_RETIRED.
    AnyWithoutPrefetch,
    /// Only IA64_INST_RETIRED and prefetch events.
    RetiredAndPrefetch,
}

/// Data range restriction.
#[derive(Debug)]
pub(super) enum DataRanges {
    /// Enabled by the D-EAR register's range bit: `dear_pmc` is written when
    /// no D-EAR event programs it.
    ViaDear { dear_pmc: u32 },
    /// Data and code range tagging register (`DbrCfg`).
    Tagged { cfg_pmc: u32 },
}

/// Itanium: PMC4-PMC7, EARs PMC10/PMC11, BTB PMC12, raw matchers PMC8/PMC9,
/// code ranges PMC13, data ranges through the D-EAR.
static ITANIUM: Ia64Layout = Ia64Layout {
    counters: 4..=7,
    placement: Placement::Search(None),
    ears: Ears {
        format: EarFormat::Itanium,
        last_event: true,
        iear: Regs {
            pmc: 10,
            pmds: &[0..=1],
        },
        dear: Regs {
            pmc: 11,
            pmds: &[2..=3, 17..=17],
        },
    },
    matchers: Matchers::Raw { pmcs: [8, 9] },
    trace: Trace {
        format: TraceFormat::ItaniumBtb,
        regs: Regs {
            pmc: 12,
            pmds: &[8..=16],
        },
    },
    ipear: None,
    code_ranges: CodeRanges::Covered { cfg_pmc: 13 },
    data_ranges: DataRanges::ViaDear { dear_pmc: 11 },
    steps: &[
        Step::Iear,
        Step::Dear,
        Step::Matchers,
        Step::BranchTrace,
        Step::CodeRanges,
        Step::DataRanges,
    ],
};

/// Itanium 2: PMC4-PMC7 with cache groups, EARs PMC10/PMC11, code ranges
/// PMC14 (fine mode in 4 KB), range tagging PMC13, matchers PMC8/PMC9 with
/// enables in PMC15, BTB PMC12.
static ITANIUM2: Ia64Layout = Ia64Layout {
    counters: 4..=7,
    placement: Placement::Search(Some(Ita2CacheRules {
        l1d_pmc: 5,
        l2_pmc: 4,
        free_umask_sets: [1, 2],
        ozq_cancels: &[
            "L2_OZQ_CANCELS0_ANY",
            "L2_OZQ_CANCELS1_REL",
            "L2_OZQ_CANCELS2_ACQ",
        ],
    })),
    ears: Ears {
        format: EarFormat::Itanium2 { ism: true },
        last_event: false,
        iear: Regs {
            pmc: 10,
            pmds: &[0..=1],
        },
        dear: Regs {
            pmc: 11,
            pmds: &[2..=3, 17..=17],
        },
    },
    matchers: Matchers::Itanium2 {
        pmcs: [8, 9],
        channels: 15,
    },
    trace: Trace {
        format: TraceFormat::Itanium2Btb,
        regs: Regs {
            pmc: 12,
            pmds: &[8..=16],
        },
    },
    ipear: None,
    code_ranges: CodeRanges::Fine(FineCodeRanges {
        cfg_pmc: 14,
        boundary_bits: 12,
        erratum: Erratum::UnlessDisabled,
        prefetch: &[
            "L1I_PREFETCHES",
            "L1I_STRM_PREFETCHES",
            "L2_INST_PREFETCHES",
        ],
        dual_prefetch: &[],
        prefetch_conflict: None,
        coarse: Coarse::AnyWithoutPrefetch,
    }),
    data_ranges: DataRanges::Tagged { cfg_pmc: 13 },
    steps: &[
        Step::Iear,
        Step::Dear,
        Step::CodeRanges,
        Step::DataRanges,
        Step::Matchers,
        Step::BranchTrace,
    ],
};

/// Montecito: PMC4-PMC15 in phases, EARs PMC37/PMC40, code ranges PMC38
/// (fine mode in 64 KB), range tagging PMC41, matchers PMC32-PMC35 with
/// enables in PMC36, ETB PMC39, IP-EAR PMC42.
static MONTECITO: Ia64Layout = Ia64Layout {
    counters: 4..=15,
    placement: Placement::Phased(MontCacheRules {
        l1d_pmc: 5,
        l2d_set_pmcs: [[4, 5, 8], [6, 7, 9]],
        ozq_cancels: &["L2D_OZQ_CANCELS0_ACQ", "L2D_OZQ_CANCELS1_ANY"],
    }),
    ears: Ears {
        format: EarFormat::Itanium2 { ism: false },
        last_event: false,
        iear: Regs {
            pmc: 37,
            pmds: &[34..=35],
        },
        dear: Regs {
            pmc: 40,
            pmds: &[32..=33, 36..=36],
        },
    },
    matchers: Matchers::Montecito {
        pairs: [(32, 33), (34, 35)],
        channels: 36,
    },
    trace: Trace {
        format: TraceFormat::MontecitoEtb,
        regs: Regs {
            pmc: 39,
            pmds: &[38..=39, 48..=63],
        },
    },
    ipear: Some(Regs {
        pmc: 42,
        pmds: &[38..=39, 48..=63],
    }),
    code_ranges: CodeRanges::Fine(FineCodeRanges {
        cfg_pmc: 38,
        boundary_bits: 16,
        erratum: Erratum::Always,
        prefetch: &["L1I_PREFETCHES", "L1I_STRM_PREFETCHES", "L2I_PREFETCHES"],
        dual_prefetch: &[
            "ISB_BUNPAIRS_IN",
            "L1I_FETCH_RAB_HIT",
            "L1I_FETCH_ISB_HIT",
            "L1I_FILLS",
        ],
        prefetch_conflict: Some("CPU_OP_CYCLES_QUAL"),
        coarse: Coarse::RetiredAndPrefetch,
    }),
    data_ranges: DataRanges::Tagged { cfg_pmc: 41 },
    steps: &[
        Step::Iear,
        Step::Dear,
        Step::CodeRanges,
        Step::DataRanges,
        Step::Matchers,
        Step::BranchTrace,
        Step::Ipear,
    ],
};

/// The layout of a model.
pub(super) fn layout(model: Ia64Model) -> &'static Ia64Layout {
    match model {
        Ia64Model::Itanium => &ITANIUM,
        Ia64Model::Itanium2 => &ITANIUM2,
        Ia64Model::Montecito => &MONTECITO,
    }
}
