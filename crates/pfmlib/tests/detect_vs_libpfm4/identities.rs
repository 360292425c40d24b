//! The CPU identities compared: every family and model libpfm4 4.13's x86
//! detection looks at (whole model ranges, so every boundary has both
//! neighbours), the steppings it tells apart, leaf-0xA variants for the
//! architected PMU, other vendors and garbage.

use pfm_oracle::fake_cpuid::{self, Leaf};

/// One made-up CPU: its CPUID answers and the class it is counted under.
#[derive(Debug, Clone)]
pub struct Identity {
    /// Family class, for the tally.
    pub class: &'static str,
    /// Shown with its differences.
    pub label: String,
    /// CPUID answers (leaves missing answer zeros).
    pub leaves: Vec<Leaf>,
}

const INTEL: &[u8; 12] = b"GenuineIntel";
const AMD: &[u8; 12] = b"AuthenticAMD";

/// Leaf 0xA of a typical recent Intel CPU: version 4, 4 counters of 48
/// bits, 7 architectural events all available, 3 fixed counters of 48 bits.
const ARCH_V4: [u32; 3] = [0x0730_0404, 0, 0x603];

/// Leaf 0: the highest leaf and the vendor string (EBX, EDX, ECX).
fn vendor(max_leaf: u32, v: &[u8; 12]) -> Leaf {
    let w = |i: usize| u32::from_le_bytes([v[i], v[i + 1], v[i + 2], v[i + 3]]);
    Leaf::new(0, [max_leaf, w(0), w(8), w(4)])
}

/// Leaf 1 EAX for a family, model and stepping, with the extended fields
/// as the SDM and AMD's manuals lay them out.
fn signature(family: u32, model: u32, stepping: u32) -> u32 {
    let (base, ext) = if family >= 15 {
        (15, family - 15)
    } else {
        (family, 0)
    };
    (stepping & 0xf)
        | (model & 0xf) << 4
        | base << 8
        | (model >> 4 & 0xf) << 16
        | (ext & 0xff) << 20
}

/// Leaf 0xA from EAX, EBX, EDX.
fn arch_leaf(r: [u32; 3]) -> Leaf {
    Leaf::new(0xa, [r[0], r[1], 0, r[2]])
}

fn intel(class: &'static str, family: u32, model: u32, stepping: u32) -> Identity {
    Identity {
        class,
        label: format!("Intel {family}/{model:#x}/{stepping}"),
        leaves: vec![
            vendor(0xd, INTEL),
            Leaf::new(1, [signature(family, model, stepping), 0, 0, 0]),
            arch_leaf(ARCH_V4),
        ],
    }
}

fn amd(class: &'static str, family: u32, model: u32, stepping: u32) -> Identity {
    Identity {
        class,
        label: format!("AMD {family:#x}/{model:#x}/{stepping}"),
        leaves: vec![
            vendor(0x10, AMD),
            Leaf::new(1, [signature(family, model, stepping), 0, 0, 0]),
        ],
    }
}

/// Intel family 6: every model; the steppings of model 85 (SKX below 5,
/// CLX from 5); a few steppings elsewhere (ignored there).
fn intel_family6() -> Vec<Identity> {
    const C: &str = "Intel family 6 (Core, Atom, Knights Landing/Mill, uncore, RAPL)";
    let mut v: Vec<Identity> = (0..=255).map(|m| intel(C, 6, m, 0)).collect();
    v.extend((1..16).map(|s| intel(C, 6, 85, s)));
    for m in [14, 26, 42, 87, 92, 106, 133, 143, 151, 0xff] {
        v.extend([1, 5, 9, 15].map(|s| intel(C, 6, m, s)));
    }
    v
}

/// Intel family 15 (Netburst and Prescott), family 11 (Knights Corner)
/// and the families libpfm4 knows nothing of (only the architected PMU,
/// from family 5 on).
fn intel_other() -> Vec<Identity> {
    const P4: &str = "Intel family 15 (Netburst)";
    const KNC: &str = "Intel family 11 (Knights Corner)";
    const OTHER: &str = "Intel other families";
    let mut v: Vec<Identity> = (0..16).map(|m| intel(P4, 15, m, 0)).collect();
    v.extend([0x10, 0x13, 0x14, 0x16, 0x23, 0xf3, 0xff].map(|m| intel(P4, 15, m, 0)));
    v.extend([1, 4, 15].map(|s| intel(P4, 15, 3, s)));
    v.extend((0..16).chain([0x11, 0x21]).map(|m| intel(KNC, 11, m, 0)));
    for f in [
        0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 14, 16, 17, 18, 19, 20, 21, 31, 0x10e,
    ] {
        v.extend([0, 1, 0x1a].map(|m| intel(OTHER, f, m, 0)));
    }
    v
}

/// AMD: K7, every K8 model with the steppings of revision B, family 10h
/// models, 11h to 16h, every 17h and 19h model, unknown families.
fn amd_all() -> Vec<Identity> {
    let mut v: Vec<Identity> = Vec::new();
    const K7: &str = "AMD K7 (family 6)";
    v.extend(
        (0..16)
            .chain([0x10, 0x1a, 0x55, 0xff])
            .map(|m| amd(K7, 6, m, 0)),
    );
    const K8: &str = "AMD K8 revisions (family 0Fh)";
    v.extend((0..=255).map(|m| amd(K8, 15, m, 0)));
    for m in [4, 5] {
        v.extend((1..16).map(|s| amd(K8, 15, m, s)));
    }
    for m in [0x14, 0x15, 0x44, 0x45] {
        v.extend([1, 3].map(|s| amd(K8, 15, m, s)));
    }
    const F10: &str = "AMD family 10h";
    v.extend((0..32).chain([0x40, 0xff]).map(|m| amd(F10, 16, m, 0)));
    v.extend([(4, 2), (4, 15), (8, 2), (8, 15)].map(|(m, s)| amd(F10, 16, m, s)));
    const F11: &str = "AMD families 11h, 12h, 14h, 15h (with northbridge), 16h";
    for f in [17, 18, 20, 21, 22] {
        v.extend([0, 1, 2, 0x10, 0x13, 0x30, 0x60, 0x70, 0xff].map(|m| amd(F11, f, m, 0)));
    }
    const F17: &str = "AMD family 17h (Zen 1, Zen 2, RAPL)";
    v.extend((0..=255).map(|m| amd(F17, 23, m, 0)));
    const F19: &str = "AMD family 19h (Zen 3, Zen 3 L3, Zen 4, RAPL)";
    v.extend((0..=255).map(|m| amd(F19, 25, m, 0)));
    v.extend([1, 2].map(|s| amd(F19, 25, 0x11, s)));
    const OTHER: &str = "AMD other families";
    for f in [
        0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 19, 24, 26, 27, 31, 0x10e,
    ] {
        v.extend([0, 1, 0x11].map(|m| amd(OTHER, f, m, 0)));
    }
    v
}

/// Leaf-0xA variants (EAX, EBX, EDX): versions, counter counts, the EBX
/// availability bits and length, fixed counters.
const ARCH_VARIANTS: &[(&str, [u32; 3])] = &[
    ("v0", [0x0730_0400, 0, 0x603]),
    ("v1", [0x0728_0201, 0, 0]),
    ("v2", [0x0728_0202, 0, 0x503]),
    ("v3", [0x0730_0403, 0, 0x603]),
    ("v4", ARCH_V4),
    ("v5", [0x0830_0805, 0, 0x8604]),
    ("v255", [0x0730_04ff, 0, 0x603]),
    ("0 counters", [0x0730_0004, 0, 0x603]),
    ("255 counters", [0x0730_ff04, 0, 0x603]),
    ("no event", [0x0730_0404, 0x7f, 0x603]),
    ("no cycles", [0x0730_0404, 0x1, 0x603]),
    ("no branch misses", [0x0730_0404, 0x40, 0x603]),
    ("bit 7", [0x0730_0404, 0x80, 0x603]),
    ("every other", [0x0730_0404, 0x2a, 0x603]),
    ("odd ones", [0x0730_0404, 0x55, 0x603]),
    ("EBX all ones", [0x0730_0404, 0xffff_ffff, 0x603]),
    ("EBX length 0", [0x0030_0404, 0x7f, 0x603]),
    ("EBX length 255", [0xff30_0404, 0, 0x603]),
    ("63 fixed", [0x0730_0404, 0, 0x3f]),
    ("31 fixed", [0x0730_0404, 0, 0x1f]),
    ("32 fixed", [0x0730_0404, 0, 0x20]),
    ("EDX all ones", [0x0730_0404, 0, 0xffff_ffff]),
    ("no fixed", [0x0730_0404, 0, 0]),
    ("v1 with fixed", [0x0728_0201, 0, 0x603]),
];

/// The architected PMU: every leaf-0xA variant on CPUs with and without a
/// model PMU, in families it accepts and rejects, and with the highest
/// leaf below, at and above 0xA.
fn arch_variants() -> Vec<Identity> {
    const C: &str = "ix86arch (leaf 0xA variants)";
    let bases: [(&[u8; 12], u32, u32); 9] = [
        (INTEL, 6, 0),
        (INTEL, 6, 26),
        (INTEL, 6, 85),
        (INTEL, 5, 0),
        (INTEL, 15, 2),
        (INTEL, 11, 1),
        (INTEL, 4, 0),
        (INTEL, 16, 0),
        (AMD, 25, 1),
    ];
    let mut v = Vec::new();
    for (vend, f, m) in bases {
        let who = if vend == INTEL { "Intel" } else { "AMD" };
        let one = |max: u32, what: &str, r: [u32; 3]| Identity {
            class: C,
            label: format!("{who} {f}/{m:#x}, max leaf {max:#x}, leaf 0xA {what}"),
            leaves: vec![
                vendor(max, vend),
                Leaf::new(1, [signature(f, m, 0), 0, 0, 0]),
                arch_leaf(r),
            ],
        };
        v.extend(ARCH_VARIANTS.iter().map(|&(what, r)| one(0xa, what, r)));
        v.extend([9, 0x23].map(|max| one(max, "v4", ARCH_V4)));
    }
    v
}

/// Other vendors (and misspelt ones) with Intel and AMD signatures.
fn other_vendors() -> Vec<Identity> {
    const C: &str = "other vendors";
    let vendors: [&[u8; 12]; 9] = [
        b"HygonGenuine",
        b"CentaurHauls",
        b"  Shanghai  ",
        b"GenuineIotel",
        b"AuthenticAMd",
        b"genuineintel",
        b"VIA VIA VIA ",
        b"AMDisbetter!",
        b"Genu\0neIntel",
    ];
    let mut v = Vec::new();
    for vend in vendors {
        for (f, m, s) in [(6, 26, 0), (23, 1, 0), (25, 1, 1), (24, 0, 0)] {
            v.push(Identity {
                class: C,
                label: format!("{:?} {f}/{m:#x}/{s}", String::from_utf8_lossy(vend)),
                leaves: vec![
                    vendor(0xd, vend),
                    Leaf::new(1, [signature(f, m, s), 0, 0, 0]),
                    arch_leaf(ARCH_V4),
                ],
            });
        }
    }
    v
}

/// A small deterministic generator (64-bit LCG, high bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 32) as u32
    }
}

/// Garbage: no answers, all ones, a highest leaf of 0, leaf 1 all ones,
/// and random leaf-1 and leaf-0xA words for both vendors.
fn garbage() -> Vec<Identity> {
    const C: &str = "garbage leaves";
    let id = |label: String, leaves: Vec<Leaf>| Identity {
        class: C,
        label,
        leaves,
    };
    let nhm = Leaf::new(1, [signature(6, 26, 5), 0, 0, 0]);
    let zen3 = Leaf::new(1, [signature(25, 1, 1), 0, 0, 0]);
    let mut v = vec![
        id("no answers".into(), vec![]),
        id(
            "all ones".into(),
            vec![Leaf::new(0, [!0; 4]), Leaf::new(1, [!0; 4])],
        ),
        id(
            "Intel, max leaf 0".into(),
            vec![vendor(0, INTEL), nhm, arch_leaf(ARCH_V4)],
        ),
        id("AMD, max leaf 0".into(), vec![vendor(0, AMD), zen3]),
    ];
    for (who, vend) in [("Intel", INTEL), ("AMD", AMD)] {
        for eax in [0, !0, 0xf00, 0x0ff0_0f00, 0xfff0_f0ff] {
            v.push(id(
                format!("{who}, leaf 1 EAX {eax:#x}"),
                vec![
                    vendor(0xd, vend),
                    Leaf::new(1, [eax, !0, !0, !0]),
                    arch_leaf(ARCH_V4),
                ],
            ));
        }
    }
    let mut r = Lcg(0x5eed);
    for k in 0..96 {
        let (who, vend) = if k % 2 == 0 {
            ("Intel", INTEL)
        } else {
            ("AMD", AMD)
        };
        let sig = r.next();
        let arch = [r.next(), r.next(), r.next()];
        v.push(id(
            format!("{who}, random leaf 1 EAX {sig:#x}, leaf 0xA {arch:#x?}"),
            vec![
                vendor(0xd, vend),
                Leaf::new(1, [sig, 0, 0, 0]),
                arch_leaf(arch),
            ],
        ));
    }
    v
}

/// The answers a processor would give: a basic leaf above the highest one
/// (leaf 0 EAX) answers as the highest does on Intel (the SDM's rule) and
/// zeros elsewhere, whatever the identity listed for it. libpfm4 reads leaf
/// 1 without looking at the highest leaf, pfmlib does not (no processor
/// with CPUID lacks leaf 1, so the two never differ on a real one).
fn as_a_processor_answers(mut id: Identity) -> Identity {
    let Some(leaf0) = id.leaves.iter().find(|l| l.leaf == 0).copied() else {
        return id;
    };
    let max = leaf0.regs[0];
    let highest = if leaf0.regs[1..] == vendor(0, INTEL).regs[1..] {
        fake_cpuid::answer(&id.leaves, max)
    } else {
        [0; 4]
    };
    for l in id.leaves.iter_mut() {
        if l.leaf > max && l.leaf < 0x8000_0000 {
            l.regs = highest;
        }
    }
    id
}

/// Every identity compared.
pub fn all_identities() -> Vec<Identity> {
    let mut v = intel_family6();
    v.extend(intel_other());
    v.extend(amd_all());
    v.extend(arch_variants());
    v.extend(other_vendors());
    v.extend(garbage());
    v.into_iter().map(as_a_processor_answers).collect()
}

/// The identities libpfm4 upstream tells apart beyond 4.13's (every
/// family-6 model is already in [`all_identities`]): every AMD family 1Ah
/// model (Zen 5, Zen 6) with a few steppings, and the hybrid Alder and
/// Raptor Lake models answering as a P-core and as an E-core would (leaf 7
/// EDX bit 15, hybrid; leaf 1Ah EAX[31:24], the core type: 40h Core, 20h
/// Atom), beside the same models without those leaves.
#[allow(dead_code)] // used by detect_vs_libpfm4_head.rs only
pub fn upstream_identities() -> Vec<Identity> {
    const F1A: &str = "AMD family 1Ah (Zen 5, Zen 6, upstream)";
    let mut v: Vec<Identity> = (0..=255).map(|m| amd(F1A, 26, m, 0)).collect();
    for m in [0x02, 0x44, 0x4f, 0x50, 0x5f, 0x60, 0x7f, 0x80] {
        v.extend([1, 15].map(|s| amd(F1A, 26, m, s)));
    }
    const HYBRID: &str = "Intel hybrid (Alder/Raptor Lake, upstream)";
    for m in [0x97, 0x9a, 0xb7, 0xba, 0xbf, 0xaa, 0xac, 0xbd, 0xc5, 0xc6] {
        for (core, kind) in [(0x40u32, "P-core"), (0x20, "E-core")] {
            v.push(Identity {
                class: HYBRID,
                label: format!("Intel 6/{m:#x} {kind} (hybrid leaves)"),
                leaves: vec![
                    vendor(0x20, INTEL),
                    Leaf::new(1, [signature(6, m, 2), 0, 0, 0]),
                    Leaf::new(7, [0, 0, 0, 1 << 15]),
                    arch_leaf([0x0830_0805, 0, 0x8604]),
                    Leaf::new(0x1a, [core << 24 | 1, 0, 0, 0]),
                ],
            });
        }
    }
    v.into_iter().map(as_a_processor_answers).collect()
}
