//! The static PMU tables generated at build time from `data/*.toml`, read
//! through small copyable views ([`PmuDesc`], [`EventDesc`], [`UmaskDesc`]).
//!
//! The tables are byte arrays of fixed-size little-endian records (layout
//! in [`layout`]) and one string pool: integers and offsets only, so the
//! dynamic loader has nothing to relocate however large they grow, and the
//! PMUs that share an event list (nhm and nhm_ex, the instances of an
//! uncore box) share one table. Engines interpret the family-defined flag
//! words; nothing else looks at them.

mod generated {
    include!(concat!(env!("OUT_DIR"), "/tables.rs"));
}

use crate::host::Arch;
use crate::model::{PmuKind, Vendor};
use generated::*;
use pfmlib_defs::hash::name_hash;
use pfmlib_defs::layout;
use std::sync::atomic::{AtomicU16, Ordering};

pub(crate) use generated::EVENT_INDEX_SHIFT;

#[inline]
fn u8_at(b: &[u8], at: usize) -> u8 {
    b.get(at).copied().unwrap_or(0)
}

#[inline]
fn u16_at(b: &[u8], at: usize) -> u16 {
    match b.get(at..at + 2) {
        Some(&[x, y]) => u16::from_le_bytes([x, y]),
        _ => 0,
    }
}

#[inline]
fn u32_at(b: &[u8], at: usize) -> u32 {
    match b.get(at..at + 4) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

#[inline]
fn u64_at(b: &[u8], at: usize) -> u64 {
    match b.get(at..at + 8) {
        Some(&[a, b, c, d, e, f, g, h]) => u64::from_le_bytes([a, b, c, d, e, f, g, h]),
        _ => 0,
    }
}

/// Where string `id` starts and ends in the pool (its NUL excluded): one
/// read of two adjacent offsets.
#[inline]
fn span(id: u32) -> (usize, usize) {
    let both = u64_at(STR_OFFS, id as usize * 4);
    (
        (both & 0xffff_ffff) as usize,
        ((both >> 32) as usize).saturating_sub(1),
    )
}

/// String `id` of the pool ("" for id 0 or an id out of range).
#[inline]
pub(crate) fn string(id: u32) -> &'static str {
    let (start, end) = span(id);
    POOL.get(start..end).unwrap_or("")
}

/// The bytes of string `id` (for comparisons: no character-boundary checks).
#[inline]
fn string_bytes(id: u32) -> &'static [u8] {
    let (start, end) = span(id);
    POOL.as_bytes().get(start..end).unwrap_or(&[])
}

/// Optional string `id`: `None` for id 0.
#[inline]
fn opt_string(id: u32) -> Option<&'static str> {
    (id != 0).then(|| string(id))
}

/// Is `s` a string of the pool, ending where the pool string ends, so that
/// a NUL follows its last byte? One comparison of addresses and one byte
/// read, where [`pool_cstr`] also checks the string for inner NULs.
pub(crate) fn pool_nul_terminated(s: &'static str) -> bool {
    let pool = POOL.as_bytes();
    (s.as_ptr() as usize)
        .checked_sub(pool.as_ptr() as usize)
        .and_then(|start| start.checked_add(s.len()))
        .is_some_and(|end| pool.get(end) == Some(&0))
}

/// `s` as a C string, without a copy, when it is a string of the pool (the
/// pool ends every string with a NUL): names and descriptions of PMUs,
/// events and unit masks, and alias strings. `None` for any other string
/// (modifier and perf_events attribute names live in Rust statics) and for
/// a part of a pool string that does not end where the pool string does.
pub(crate) fn pool_cstr(s: &'static str) -> Option<&'static std::ffi::CStr> {
    let pool = POOL.as_bytes();
    let start = (s.as_ptr() as usize).checked_sub(pool.as_ptr() as usize)?;
    let end = start.checked_add(s.len())?;
    if pool.get(end) != Some(&0) {
        return None;
    }
    std::ffi::CStr::from_bytes_with_nul(pool.get(start..=end)?).ok()
}

/// Probes a name index of `slots` slots at `first`: the candidates whose
/// stored value (entry + 1) `found` accepts, in probe order.
#[inline]
fn probe(
    first: usize,
    slots: usize,
    h: u32,
    mut found: impl FnMut(usize) -> bool,
) -> Option<usize> {
    if slots == 0 {
        return None;
    }
    let mask = slots - 1;
    let mut slot = h as usize & mask;
    loop {
        let v = u16_at(INDEX, 2 * (first + slot)) as usize;
        if v == 0 {
            return None;
        }
        if found(v - 1) {
            return Some(v - 1);
        }
        slot = (slot + 1) & mask;
    }
}

/// `a.eq_ignore_ascii_case(b)`, eight bytes at a time, the tail in two
/// overlapping reads (or, under four bytes, its first, middle and last).
#[inline]
pub(crate) fn eq_ignore_case(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut ra, mut rb) = (a, b);
    while let (Some((x, ta)), Some((y, tb))) = (ra.split_first_chunk(), rb.split_first_chunk()) {
        if !words_eq_ignore_case(u64::from_le_bytes(*x), u64::from_le_bytes(*y)) {
            return false;
        }
        (ra, rb) = (ta, tb);
    }
    ra.is_empty() || words_eq_ignore_case(tail_word(ra), tail_word(rb))
}

/// The bytes of a 1-to-7-byte tail in one word: all of them (overlapping
/// 4-byte reads from 4 bytes on; first, middle and last below 4).
#[inline]
fn tail_word(t: &[u8]) -> u64 {
    let n = t.len();
    if let (Some(lo), Some(hi)) = (t.first_chunk::<4>(), t.last_chunk::<4>()) {
        u64::from(u32::from_le_bytes(*lo)) | u64::from(u32::from_le_bytes(*hi)) << 32
    } else if n > 0 {
        u64::from(t[0]) | u64::from(t[n / 2]) << 8 | u64::from(t[n - 1]) << 16
    } else {
        0
    }
}

/// Are eight bytes equal but for the case of ASCII letters? They may
/// differ only in bit 5, and only in bytes that are letters.
#[inline]
fn words_eq_ignore_case(x: u64, y: u64) -> bool {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = LO * 0x80;
    let d = x ^ y;
    if d == 0 {
        return true;
    }
    if d & !(LO * 0x20) != 0 {
        return false;
    }
    // Per byte, v = x in lower case with bit 7 set, so that the
    // subtractions never borrow from the next byte: its bit 7 stays set
    // when x >= 'a' and falls when x >= '{'; ASCII bytes only.
    let v = x | (LO * 0x20) | HI;
    let letter =
        v.wrapping_sub(LO * u64::from(b'a')) & !v.wrapping_sub(LO * u64::from(b'{')) & !x & HI;
    (d << 2) & !letter == 0
}

/// One PMU model of the tables.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PmuDesc(u16);

impl std::fmt::Debug for PmuDesc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PmuDesc({})", self.name())
    }
}

impl PmuDesc {
    /// Every PMU of the tables, by libpfm4 id.
    pub fn all() -> impl Iterator<Item = PmuDesc> + Clone {
        (0..NUM_PMUS as u16).map(PmuDesc)
    }

    /// Every PMU of the tables in the lookup order of libpfm4's build for
    /// `arch` (by [`PmuDesc::rank`], then id), as the build sorted them.
    pub fn in_lookup_order(arch: Arch) -> impl ExactSizeIterator<Item = PmuDesc> + Clone {
        let order: &'static [u16] = match arch {
            Arch::Arm => &PMU_LOOKUP_ORDER_ARM,
            Arch::Aarch64 => &PMU_LOOKUP_ORDER_ARM64,
            _ => &PMU_LOOKUP_ORDER,
        };
        order.iter().map(|&i| PmuDesc(i))
    }

    /// The PMU with libpfm4 id `id` (`pfm_pmu_t`), through an index built
    /// on first use.
    pub fn by_id(id: u32) -> Option<PmuDesc> {
        static BY_ID: std::sync::OnceLock<Vec<u16>> = std::sync::OnceLock::new();
        let map = BY_ID.get_or_init(|| {
            let top = PmuDesc::all()
                .map(|p| p.id() as usize + 1)
                .max()
                .unwrap_or(0);
            let mut map = vec![0u16; top];
            for p in PmuDesc::all() {
                map[p.id() as usize] = p.0 + 1;
            }
            map
        });
        match map.get(id as usize) {
            Some(&d) if d != 0 => Some(PmuDesc(d - 1)),
            _ => None,
        }
    }

    /// A PMU by name, ignoring ASCII case. The PMU found last is tried
    /// first (event strings of one PMU tend to come together): a name equal
    /// to its name but for case finds it through the index too.
    #[inline(always)]
    pub fn by_name(name: &str) -> Option<PmuDesc> {
        static LAST: AtomicU16 = AtomicU16::new(0);
        let last = LAST.load(Ordering::Relaxed);
        if last != 0 && eq_ignore_case(PmuDesc(last - 1).name_bytes(), name.as_bytes()) {
            return Some(PmuDesc(last - 1));
        }
        let found = PmuDesc::by_name_indexed(name)?;
        LAST.store(found.0 + 1, Ordering::Relaxed);
        Some(found)
    }

    /// A PMU by name, ignoring ASCII case, through the name index (out of
    /// line, so that [`PmuDesc::by_name`]'s first try inlines small).
    #[inline(never)]
    fn by_name_indexed(name: &str) -> Option<PmuDesc> {
        let h = name_hash(name.as_bytes());
        probe(PMU_NAME_INDEX, PMU_NAME_SLOTS, h, |i| {
            eq_ignore_case(PmuDesc(i as u16).name_bytes(), name.as_bytes())
        })
        .map(|i| PmuDesc(i as u16))
    }

    #[inline]
    fn at(self, field: usize) -> usize {
        self.0 as usize * layout::pmu::SIZE + field
    }

    /// Position among all PMUs (dense, by id).
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Short name, the `name::` prefix.
    pub fn name(self) -> &'static str {
        string(u32_at(PMUS, self.at(layout::pmu::NAME)))
    }

    fn name_bytes(self) -> &'static [u8] {
        string_bytes(u32_at(PMUS, self.at(layout::pmu::NAME)))
    }

    /// Description.
    pub fn desc(self) -> &'static str {
        string(u32_at(PMUS, self.at(layout::pmu::DESC)))
    }

    /// perf_events PMU name in sysfs, if any.
    pub fn perf_name(self) -> Option<&'static str> {
        opt_string(u32_at(PMUS, self.at(layout::pmu::PERF_NAME)))
    }

    /// libpfm4's `pfm_pmu_t` number.
    pub fn id(self) -> u32 {
        u32_at(PMUS, self.at(layout::pmu::ID))
    }

    /// Family-defined PMU flags.
    pub fn flags(self) -> u32 {
        u32_at(PMUS, self.at(layout::pmu::FLAGS))
    }

    /// Family-defined extra word `k` (its position in `FamilyDefs::pmu_ext`).
    pub fn ext(self, k: usize) -> u32 {
        let at = u32_at(PMUS, self.at(layout::pmu::EXT)) as usize;
        if at == 0 {
            return 0;
        }
        u32_at(EXT, 4 * (at + k))
    }

    /// Engine family (position in `pfmlib_defs::FAMILIES`).
    pub fn family(self) -> usize {
        u8_at(PMUS, self.at(layout::pmu::FAMILY)) as usize
    }

    /// Core, uncore, OS generic or unknown.
    pub fn kind(self) -> PmuKind {
        match u8_at(PMUS, self.at(layout::pmu::KIND)) {
            0 => PmuKind::Core,
            1 => PmuKind::Uncore,
            2 => PmuKind::OsGeneric,
            _ => PmuKind::Unknown,
        }
    }

    /// Generic counters, as the table states them.
    pub fn num_cntrs(self) -> u32 {
        u8_at(PMUS, self.at(layout::pmu::NUM_CNTRS)).into()
    }

    /// Fixed counters, as the table states them.
    pub fn num_fixed(self) -> u32 {
        u8_at(PMUS, self.at(layout::pmu::NUM_FIXED)).into()
    }

    /// Most 64-bit codes one event needs.
    pub fn max_encoding(self) -> u32 {
        u8_at(PMUS, self.at(layout::pmu::MAX_ENCODING)).into()
    }

    /// Privilege levels the PMU can filter (`PFM_PLM*` bits).
    pub fn supported_plm(self) -> u32 {
        u8_at(PMUS, self.at(layout::pmu::SUPPORTED_PLM)).into()
    }

    /// Bit of this PMU in the variant masks of its table's entries.
    pub fn variant_bit(self) -> u8 {
        1 << (u8_at(PMUS, self.at(layout::pmu::VARIANT)) & 7)
    }

    /// The CPU vendor it is detected on.
    pub fn vendor(self) -> Option<Vendor> {
        match u8_at(PMUS, self.at(layout::pmu::VENDOR)) {
            1 => Some(Vendor::Intel),
            2 => Some(Vendor::Amd),
            3 => Some(Vendor::Arm),
            4 => Some(Vendor::Broadcom),
            5 => Some(Vendor::Cavium),
            6 => Some(Vendor::Fujitsu),
            7 => Some(Vendor::HiSilicon),
            8 => Some(Vendor::AppliedMicro),
            9 => Some(Vendor::Qualcomm),
            10 => Some(Vendor::Nvidia),
            11 => Some(Vendor::Ibm),
            12 => Some(Vendor::Ampere),
            _ => None,
        }
    }

    /// CPU family it is detected on.
    pub fn cpu_family(self) -> u32 {
        u16_at(PMUS, self.at(layout::pmu::CPU_FAMILY)).into()
    }

    /// Does this CPU model (and stepping) match the detection list?
    pub fn matches_model(self, model: u32, stepping: u32) -> bool {
        let first = u32_at(PMUS, self.at(layout::pmu::MODELS)) as usize;
        let n = u16_at(PMUS, self.at(layout::pmu::NMODELS)) as usize;
        (first..first + n).any(|i| {
            let e = u32_at(MODELS, 4 * i);
            let steppings = e >> layout::model::STEPPING_SHIFT;
            e & layout::model::MODEL_MASK == model
                && (steppings == 0 || (stepping < 16 && steppings >> stepping & 1 != 0))
        })
    }

    /// Position in the lookup order of libpfm4's build for `arch` (the x86
    /// build's order, which lists every architecture, for x86 and others;
    /// on Arm, that build's PMUs first in its order, then the others).
    pub fn rank(self, arch: Arch) -> u16 {
        let at = match arch {
            Arch::Arm => layout::pmu::RANK_ARM,
            Arch::Aarch64 => layout::pmu::RANK_ARM64,
            _ => layout::pmu::RANK,
        };
        u16_at(PMUS, self.at(at))
    }

    /// Is this PMU in libpfm4's build for `arch` (x86_64, arm, arm64,
    /// powerpc, s390x, sparc, mips; on any other architecture, a PMU every
    /// one of those builds has: the perf_events ones)?
    pub fn in_build(self, arch: Arch) -> bool {
        use layout::pmu as m;
        let b = u8_at(PMUS, self.at(m::BUILDS));
        let want = match arch {
            Arch::X86 => m::BUILD_X86_64,
            Arch::Arm => m::BUILD_ARM,
            Arch::Aarch64 => m::BUILD_ARM64,
            Arch::PowerPc => m::BUILD_POWERPC,
            Arch::S390x => m::BUILD_S390X,
            Arch::Sparc => m::BUILD_SPARC,
            Arch::Mips => m::BUILD_MIPS,
            Arch::RiscV64 => m::BUILD_RISCV64,
            _ => {
                m::BUILD_X86_64
                    | m::BUILD_ARM
                    | m::BUILD_ARM64
                    | m::BUILD_POWERPC
                    | m::BUILD_S390X
                    | m::BUILD_SPARC
                    | m::BUILD_MIPS
                    | m::BUILD_RISCV64
            }
        };
        b & want == want
    }

    /// Model-specific dispatcher: 0 none, 1 Nehalem, 2 IA-64.
    pub fn dispatcher(self) -> u8 {
        u8_at(PMUS, self.at(layout::pmu::DISPATCH))
    }

    /// The uncore PMU dispatched beside this core PMU, by name.
    pub fn uncore(self) -> Option<&'static str> {
        opt_string(u32_at(PMUS, self.at(layout::pmu::UNCORE)))
    }

    fn table(self) -> usize {
        u16_at(PMUS, self.at(layout::pmu::TABLE)) as usize * layout::table::SIZE
    }

    /// Events in the table (including those another variant lacks).
    pub fn nevents(self) -> usize {
        u32_at(TABLES, self.table() + layout::table::NEVENTS) as usize
    }

    /// Event `local` of the table.
    #[inline]
    pub fn event(self, local: usize) -> EventDesc {
        let t = self.table();
        EventDesc::at_table(t, u32_at(TABLES, t + layout::table::FIRST_EVENT), local)
    }

    /// Every event of the table.
    pub fn events(self) -> impl Iterator<Item = EventDesc> {
        (0..self.nevents()).map(move |i| self.event(i))
    }

    /// The first event named `name` (any case) that `ok` accepts.
    #[inline]
    pub fn find_event(self, name: &str, ok: impl Fn(EventDesc) -> bool) -> Option<EventDesc> {
        let t = self.table();
        let first_event = u32_at(TABLES, t + layout::table::FIRST_EVENT);
        let first = u32_at(TABLES, t + layout::table::NAME_INDEX) as usize;
        let slots = u32_at(TABLES, t + layout::table::NAME_SLOTS) as usize;
        let h = name_hash(name.as_bytes());
        let hit = probe(first, slots, h, |i| {
            eq_ignore_case(
                EventDesc::at_table(t, first_event, i).name_bytes(),
                name.as_bytes(),
            )
        })?;
        let ev = EventDesc::at_table(t, first_event, hit);
        if ok(ev) {
            return Some(ev);
        }
        // The first of that name is not there for this PMU: a later one may be.
        (hit + 1..self.nevents())
            .map(|i| self.event(i))
            .find(|e| eq_ignore_case(e.name_bytes(), name.as_bytes()) && ok(*e))
    }
}

/// One event of a table.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct EventDesc {
    global: u32,
    local: u32,
    /// Byte offset of the table record.
    table: u32,
}

impl std::fmt::Debug for EventDesc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EventDesc({})", self.name())
    }
}

impl EventDesc {
    /// Event `local` of the table at byte offset `table`, whose first event is `first`.
    #[inline]
    fn at_table(table: usize, first: u32, local: usize) -> EventDesc {
        EventDesc {
            global: first + local as u32,
            local: local as u32,
            table: table as u32,
        }
    }

    #[inline]
    fn at(self, field: usize) -> usize {
        self.global as usize * layout::event::SIZE + field
    }

    /// Position in its table (libpfm4's event index within the PMU).
    pub fn index(self) -> usize {
        self.local as usize
    }

    /// Name.
    pub fn name(self) -> &'static str {
        string(u32_at(EVENTS, self.at(layout::event::NAME)))
    }

    /// The name's bytes (no character-boundary checks).
    pub(crate) fn name_bytes(self) -> &'static [u8] {
        string_bytes(u32_at(EVENTS, self.at(layout::event::NAME)))
    }

    /// Description.
    pub fn desc(self) -> &'static str {
        string(u32_at(EVENTS, self.at(layout::event::DESC)))
    }

    /// For an alias, the event string it stands for.
    pub fn equiv(self) -> Option<&'static str> {
        opt_string(u32_at(EVENTS, self.at(layout::event::EQUIV)))
    }

    /// Modifiers it takes (bit = modifier id).
    pub fn modmsk(self) -> u32 {
        u32_at(EVENTS, self.at(layout::event::MODMSK))
    }

    /// Event code.
    pub fn code(self) -> u64 {
        u64_at(EVENTS, self.at(layout::event::CODE))
    }

    /// Counters it may use.
    pub fn cntmsk(self) -> u64 {
        u64_at(EVENTS, self.at(layout::event::CNTMSK))
    }

    /// Family-defined event flags.
    pub fn flags(self) -> u32 {
        u32_at(EVENTS, self.at(layout::event::FLAGS))
    }

    /// Number of unit masks (all variants).
    pub fn numasks(self) -> usize {
        u16_at(EVENTS, self.at(layout::event::NUMASKS)) as usize
    }

    /// Number of unit-mask groups.
    pub fn ngrp(self) -> u32 {
        u8_at(EVENTS, self.at(layout::event::NGRP)).into()
    }

    /// Does PMU variant `bit` have this event?
    pub fn in_variant(self, bit: u8) -> bool {
        u8_at(EVENTS, self.at(layout::event::VARIANTS)) & bit != 0
    }

    /// Family-defined extra word `k` (its position in `FamilyDefs::event_ext`).
    pub fn ext(self, k: usize) -> u32 {
        let at = u32_at(EVENTS, self.at(layout::event::EXT)) as usize;
        if at == 0 {
            return 0;
        }
        u32_at(EXT, 4 * (at + k))
    }

    /// Unit mask `i` of the event.
    #[inline]
    pub fn umask(self, i: usize) -> UmaskDesc {
        UmaskDesc(u32_at(EVENTS, self.at(layout::event::FIRST_UMASK)) + i as u32)
    }

    /// Position of the event's table among all tables (PMUs that share
    /// an event list share a table).
    #[inline]
    pub fn table_id(self) -> usize {
        self.table as usize / layout::table::SIZE
    }

    /// Number of event tables.
    pub fn num_tables() -> usize {
        TABLES.len() / layout::table::SIZE
    }

    /// The names of every unit mask of the event's table (every event,
    /// every variant).
    pub fn table_umask_names(self) -> impl Iterator<Item = &'static [u8]> {
        let t = self.table as usize;
        let first = u32_at(TABLES, t + layout::table::FIRST_UMASK);
        let n = u32_at(TABLES, t + layout::table::NUMASKS);
        (first..first + n).map(|i| UmaskDesc(i).name_bytes())
    }

    /// Every unit mask of the event (all variants).
    pub fn umasks(self) -> impl Iterator<Item = UmaskDesc> {
        (0..self.numasks()).map(move |i| self.umask(i))
    }

    /// The first unit mask named `name` (any case) that `ok` accepts.
    pub fn find_umask(self, name: &[u8], ok: impl Fn(UmaskDesc) -> bool) -> Option<usize> {
        let n = self.numasks();
        if n == 0 {
            return None;
        }
        let first_um = u32_at(EVENTS, self.at(layout::event::FIRST_UMASK)) as usize;
        let table_um = u32_at(TABLES, self.table as usize + layout::table::FIRST_UMASK) as usize;
        let base = first_um - table_um;
        let first = u32_at(TABLES, self.table as usize + layout::table::UMASK_INDEX) as usize;
        let slots = u32_at(TABLES, self.table as usize + layout::table::UMASK_SLOTS) as usize;
        let h = name_hash(name).wrapping_add(self.local.wrapping_mul(layout::UMASK_KEY_MIX));
        let hit = probe(first, slots, h, |i| {
            (base..base + n).contains(&i) && eq_ignore_case(self.umask(i - base).name_bytes(), name)
        })? - base;
        if ok(self.umask(hit)) {
            return Some(hit);
        }
        (hit + 1..n).find(|&i| {
            let u = self.umask(i);
            eq_ignore_case(u.name_bytes(), name) && ok(u)
        })
    }
}

/// One unit mask.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct UmaskDesc(u32);

impl std::fmt::Debug for UmaskDesc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UmaskDesc({})", self.name())
    }
}

impl UmaskDesc {
    #[inline]
    fn at(self, field: usize) -> usize {
        self.0 as usize * layout::umask::SIZE + field
    }

    /// Name.
    pub fn name(self) -> &'static str {
        string(u32_at(UMASKS, self.at(layout::umask::NAME)))
    }

    /// The name's bytes (no character-boundary checks).
    pub(crate) fn name_bytes(self) -> &'static [u8] {
        string_bytes(u32_at(UMASKS, self.at(layout::umask::NAME)))
    }

    /// Description.
    pub fn desc(self) -> &'static str {
        string(u32_at(UMASKS, self.at(layout::umask::DESC)))
    }

    /// For an alias, the attribute string it stands for.
    pub fn equiv(self) -> Option<&'static str> {
        opt_string(u32_at(UMASKS, self.at(layout::umask::EQUIV)))
    }

    /// Family-defined unit-mask flags.
    pub fn flags(self) -> u32 {
        u32_at(UMASKS, self.at(layout::umask::FLAGS))
    }

    /// Code, hard-wired modifier fields included.
    pub fn code(self) -> u64 {
        u64_at(UMASKS, self.at(layout::umask::CODE))
    }

    /// Modifiers it hard-wires (bit = modifier id).
    pub fn modhw(self) -> u32 {
        u32_at(UMASKS, self.at(layout::umask::MODHW))
    }

    /// Group.
    pub fn grp(self) -> u32 {
        u8_at(UMASKS, self.at(layout::umask::GRP)).into()
    }

    /// Does PMU variant `bit` have this unit mask?
    pub fn in_variant(self, bit: u8) -> bool {
        u8_at(UMASKS, self.at(layout::umask::VARIANTS)) & bit != 0
    }

    /// Family-defined extra word `k` (from `ext` over `FamilyDefs::umask_ext`).
    pub fn ext(self, k: usize) -> u32 {
        let at = u32_at(UMASKS, self.at(layout::umask::EXT)) as usize;
        if at == 0 {
            return 0;
        }
        u32_at(EXT, 4 * (at + k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The indexes built by the generator and the lookups agree: every name
    /// finds the first entry of that name (any case), nothing else is found.
    #[test]
    fn name_indexes_find_every_entry() {
        for p in PmuDesc::all() {
            assert_eq!(PmuDesc::by_name(&p.name().to_uppercase()), Some(p));
            assert_eq!(PmuDesc::by_name(p.name()), Some(p));
            assert_eq!(PmuDesc::by_name_indexed(&p.name().to_lowercase()), Some(p));
            for ev in p.events() {
                let first = p
                    .events()
                    .find(|e| e.name().eq_ignore_ascii_case(ev.name()))
                    .unwrap();
                for name in [ev.name().to_string(), ev.name().to_ascii_lowercase()] {
                    assert_eq!(p.find_event(&name, |_| true), Some(first), "{name}");
                }
                assert_eq!(p.find_event(&format!("{}_", ev.name()), |_| true), None);
                for (i, um) in ev.umasks().enumerate() {
                    let first = ev
                        .umasks()
                        .position(|u| u.name().eq_ignore_ascii_case(um.name()))
                        .unwrap();
                    let lower = um.name().to_ascii_lowercase();
                    assert_eq!(
                        ev.find_umask(lower.as_bytes(), |_| true),
                        Some(first),
                        "{i}"
                    );
                }
                assert_eq!(ev.find_umask(b"NO_SUCH_UMASK", |_| true), None);
            }
            assert_eq!(p.find_event("", |_| true), None);
            assert_eq!(p.find_event("NO_SUCH_EVENT", |_| true), None);
        }
        assert_eq!(PmuDesc::by_name("no_such_pmu"), None);
    }

    #[test]
    fn case_blind_comparison_like_std() {
        let samples: Vec<Vec<u8>> = [
            "",
            "a",
            "A",
            "@",
            "[",
            "`",
            "{",
            "z",
            "Z",
            "INST_RETIRED",
            "inst_retired",
            "Inst_Retired_",
            "ÉTÉ",
            "été",
            "abcdefgh",
            "ABCDEFGH",
            "abcdefghi",
            "ABCDEFGHI",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .chain((0u8..=255).map(|c| vec![c, b'x']))
        .collect();
        for a in &samples {
            for b in &samples {
                assert_eq!(
                    eq_ignore_case(a, b),
                    a.eq_ignore_ascii_case(b),
                    "{a:?} {b:?}"
                );
            }
        }
    }

    /// Every pair of bytes, at every position of names of 1 to 17 bytes.
    #[test]
    fn case_blind_comparison_every_byte_pair() {
        for len in [1usize, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17] {
            for pos in 0..len {
                let mut a = vec![b'x'; len];
                let mut b = vec![b'X'; len];
                for c1 in 0..=255u8 {
                    for c2 in 0..=255u8 {
                        a[pos] = c1;
                        b[pos] = c2;
                        assert_eq!(
                            eq_ignore_case(&a, &b),
                            a.eq_ignore_ascii_case(&b),
                            "{a:?} {b:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn pool_strings_as_c_strings() {
        for p in PmuDesc::all() {
            assert_eq!(PmuDesc::by_id(p.id()), Some(p));
            assert_eq!(pool_cstr(p.name()).unwrap().to_str(), Ok(p.name()));
            assert_eq!(pool_cstr(p.desc()).unwrap().to_str(), Ok(p.desc()));
            for ev in p.events() {
                assert_eq!(pool_cstr(ev.name()).unwrap().to_str(), Ok(ev.name()));
                if let Some(eq) = ev.equiv() {
                    assert_eq!(pool_cstr(eq).unwrap().to_str(), Ok(eq));
                }
                for um in ev.umasks() {
                    assert_eq!(pool_cstr(um.desc()).unwrap().to_str(), Ok(um.desc()));
                }
            }
            // A part of a pool string that stops early is no C string of the pool.
            let name = p.name();
            if name.len() > 1 {
                assert_eq!(pool_cstr(&name[..name.len() - 1]), None);
            }
        }
        assert_eq!(pool_cstr("not in the pool"), None);
        assert!(!pool_nul_terminated("not in the pool"));
        for p in PmuDesc::all() {
            assert!(pool_nul_terminated(p.name()) && pool_nul_terminated(p.desc()));
        }
        assert_eq!(PmuDesc::by_id(u32::MAX), None);
    }

    #[test]
    fn strings_are_nul_terminated_in_the_pool() {
        for p in PmuDesc::all() {
            let id = u32_at(PMUS, p.at(layout::pmu::NAME)) as usize;
            let end = u32_at(STR_OFFS, 4 * id + 4) as usize;
            assert_eq!(POOL.as_bytes()[end - 1], 0);
        }
        assert_eq!(string(0), "");
        assert_eq!(string(u32::MAX), "");
    }
}
