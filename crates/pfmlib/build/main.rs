//! Build script: compiles the declarative PMU tables in `data/*.toml` into
//! relocation-free byte arrays (`$OUT_DIR/*.bin`, `pool.txt`) and a few
//! declarations (`$OUT_DIR/tables.rs`). See `data/SCHEMA.md` and
//! `pfmlib_defs::layout`.
//!
//! Each data file becomes one event table shared by all the PMUs it
//! describes; an event or unit mask restricted with `pmus = [...]` carries
//! the mask of the PMU variants that have it. Generated code is a handful
//! of `include_bytes!`, so compile time does not grow with the tables.

mod blob;
mod schema;

use blob::{hash_index, Blob, Rec};
use pfmlib_defs::hash::name_hash;
use pfmlib_defs::layout;
use pfmlib_defs::{ExtField, ExtKind, FamilyDefs, FAMILIES};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// A PMU record waiting for the final sort by id.
struct PmuOut {
    id: u32,
    name: String,
    /// Places in libpfm4's lookup orders: x86 and others, 32-bit Arm,
    /// arm64 (see [`Gen::new`]).
    rank: [usize; 3],
    rec: Vec<u8>,
}

/// The generator's state across data files.
struct Gen {
    blob: Blob,
    ids: HashMap<String, u32>,
    /// Lookup-order positions: x86 and others, 32-bit Arm, arm64.
    rank: [HashMap<String, usize>; 3],
    /// The libpfm4 builds (`layout::pmu::BUILDS` bits) each PMU is in.
    builds: HashMap<String, u8>,
    shift: u32,
    pmus: Vec<PmuOut>,
    /// Extension blocks already written, by their words (shared).
    ext_blocks: HashMap<Vec<u32>, u32>,
}

fn main() {
    for p in ["data", "build"] {
        println!("cargo:rerun-if-changed={p}");
    }
    if let Err(e) = run() {
        // A table error is a build error: say which and where.
        eprintln!("PMU table error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let out = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let mut gen = Gen::new(Path::new("data/libpfm4_pmus.toml"))?;
    let mut files = Vec::new();
    for path in data_files(Path::new("data"))? {
        let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        let file: schema::File =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        files.push((path, file));
    }
    // Within each group of `data_files`, libpfm4's tables before pfmlib's
    // own (ids above 700): a program using libpfm4's PMUs touches the
    // same contiguous stretch as before the vendor-list tables came.
    files.sort_by_key(|(path, file)| (other_arch(path), gen.own_file(file), path.clone()));
    for (path, file) in &files {
        gen.add_file(file)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let consts = gen.finish()?;
    gen.blob.write(&out, &consts).map_err(|e| e.to_string())
}

/// Positions in the lookup order of one architecture's build: its PMUs
/// first, in `order`, then every other PMU of the general order after them.
fn arch_ranks(
    order: &[String],
    general: &HashMap<String, usize>,
    ids: &BTreeMap<String, u32>,
) -> Result<HashMap<String, usize>, String> {
    const AFTER: usize = 1000;
    if general.len() >= 10_000 - AFTER || order.len() >= AFTER {
        return Err("too many PMUs for the rank scheme".into());
    }
    let mut rank: HashMap<String, usize> = general
        .iter()
        .map(|(n, &r)| (n.clone(), AFTER + r))
        .collect();
    for (i, name) in order.iter().enumerate() {
        if !ids.contains_key(name) || !general.contains_key(name) {
            return Err(format!("{name} is not in `ids` and `lookup_order`"));
        }
        if rank.insert(name.clone(), i).is_some_and(|r| r < AFTER) {
            return Err(format!("{name} is listed twice"));
        }
    }
    Ok(rank)
}

/// Which libpfm4 builds (x86_64, arm, arm64, powerpc, s390x, sparc, mips:
/// `layout::pmu::BUILDS` bits) have each PMU: the build lists and the two
/// Arm lookup orders.
fn build_masks(ids: &schema::Ids) -> Result<HashMap<String, u8>, String> {
    use layout::pmu as m;
    let mut masks: HashMap<String, u8> = HashMap::new();
    for (list, bit) in [
        (&ids.build_x86_64, m::BUILD_X86_64),
        (&ids.lookup_order_arm, m::BUILD_ARM),
        (&ids.lookup_order_arm64, m::BUILD_ARM64),
        (&ids.build_powerpc, m::BUILD_POWERPC),
        (&ids.build_s390x, m::BUILD_S390X),
        (&ids.build_sparc, m::BUILD_SPARC),
        (&ids.build_mips, m::BUILD_MIPS),
        (&ids.build_riscv64, m::BUILD_RISCV64),
    ] {
        for name in list {
            if !ids.ids.contains_key(name) {
                return Err(format!("{name} (a build list) has no id"));
            }
            let m = masks.entry(name.clone()).or_default();
            if *m & bit != 0 {
                return Err(format!("{name} is listed twice in one build"));
            }
            *m |= bit;
        }
    }
    Ok(masks)
}

/// The table files, sorted (everything `.toml` but the id list).
fn data_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter(|p| p.file_name().is_some_and(|n| n != "libpfm4_pmus.toml"))
        .collect();
    files.sort_by_key(|p| (other_arch(p), p.clone()));
    Ok(files)
}

/// Is `p` a table of another architecture than x86? The x86 tables come
/// first, then the others, each group by name: a process on x86 touches
/// one contiguous stretch of the records and strings (fewer pages faulted
/// in around them), whatever other architectures' tables grow. Positions
/// in the generated arrays are internal; event indexes count within a
/// table.
fn other_arch(p: &Path) -> bool {
    let n = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    !["intel_", "amd64_", "perf"]
        .iter()
        .any(|x| n.starts_with(x))
}

impl Gen {
    fn new(ids_path: &Path) -> Result<Gen, String> {
        let text = std::fs::read_to_string(ids_path).map_err(|e| e.to_string())?;
        let ids: schema::Ids =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", ids_path.display()))?;
        let mut general = HashMap::new();
        for (i, name) in ids.lookup_order.iter().enumerate() {
            general.entry(name.clone()).or_insert(i);
        }
        let arm = arch_ranks(&ids.lookup_order_arm, &general, &ids.ids)
            .map_err(|e| format!("lookup_order_arm: {e}"))?;
        let arm64 = arch_ranks(&ids.lookup_order_arm64, &general, &ids.ids)
            .map_err(|e| format!("lookup_order_arm64: {e}"))?;
        let builds = build_masks(&ids)?;
        let rank = [general, arm, arm64];
        Ok(Gen {
            builds,
            blob: Blob::new(),
            ids: ids.ids.into_iter().collect(),
            rank,
            shift: ids.event_index_shift,
            pmus: Vec::new(),
            ext_blocks: HashMap::new(),
        })
    }

    /// Is `file` one of pfmlib's own tables (its first PMU's id above
    /// libpfm4's 700)?
    fn own_file(&self, file: &schema::File) -> bool {
        file.pmu
            .first()
            .and_then(|p| self.ids.get(&p.name))
            .is_some_and(|&id| id > 700)
    }

    /// One data file: its event table, then its PMUs.
    fn add_file(&mut self, file: &schema::File) -> Result<(), String> {
        let first = file
            .pmu
            .first()
            .ok_or("a data file needs at least one [[pmu]]")?;
        let fam = family(&first.engine)?;
        if let Some(p) = file.pmu.iter().find(|p| p.engine != first.engine) {
            return Err(format!(
                "PMU {} uses engine {} but the file's first PMU uses {}: one engine per file",
                p.name, p.engine, first.engine
            ));
        }
        if file.pmu.len() > 8 {
            return Err("at most 8 PMUs may share one file".into());
        }
        let variants: Vec<&str> = file.pmu.iter().map(|p| p.name.as_str()).collect();
        let table = self.blob.tables.len() / layout::table::SIZE;
        self.add_table(FAMILIES[fam], &variants, &file.event)?;
        for (v, p) in file.pmu.iter().enumerate() {
            for instance in expand(p)? {
                self.add_pmu(&instance, fam, table, v)?;
            }
        }
        Ok(())
    }

    /// The events and unit masks of one file, with their name indexes.
    fn add_table(
        &mut self,
        f: &FamilyDefs,
        variants: &[&str],
        events: &[schema::Event],
    ) -> Result<(), String> {
        let first_event = self.blob.events.len() / layout::event::SIZE;
        let first_umask = self.blob.umasks.len() / layout::umask::SIZE;
        let mut names = Vec::new();
        let mut umask_names = Vec::new();
        for (i, ev) in events.iter().enumerate() {
            let ev_first = self.blob.umasks.len() / layout::umask::SIZE - first_umask;
            self.add_event(f, variants, ev)
                .map_err(|e| format!("event {}: {e}", ev.name))?;
            names.push(ev.name.to_ascii_uppercase());
            let mut seen: Vec<String> = Vec::new();
            for (j, um) in ev.umask.iter().enumerate() {
                let key = um.name.to_ascii_uppercase();
                if !seen.contains(&key) {
                    let h = name_hash(key.as_bytes())
                        .wrapping_add((i as u32).wrapping_mul(layout::UMASK_KEY_MIX));
                    umask_names.push((h, ev_first + j));
                    seen.push(key);
                }
            }
        }
        let mut first_of_name: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, n) in names.iter().enumerate() {
            first_of_name.entry(n).or_insert(i);
        }
        let mut keys: Vec<(u32, usize)> = first_of_name
            .iter()
            .map(|(n, &i)| (name_hash(n.as_bytes()), i))
            .collect();
        keys.sort_by_key(|k| k.1);
        let name_index = hash_index(&keys)?;
        let umask_index = hash_index(&umask_names)?;
        let nevents = events.len();
        let numasks = self.blob.umasks.len() / layout::umask::SIZE - first_umask;
        let mut r = Rec::new(layout::table::SIZE);
        use layout::table as t;
        r.u32(t::FIRST_EVENT, first_event as u32)
            .u32(t::NEVENTS, nevents as u32)
            .u32(t::FIRST_UMASK, first_umask as u32)
            .u32(t::NUMASKS, numasks as u32)
            .u32(t::NAME_INDEX, self.blob.index.len() as u32)
            .u32(t::NAME_SLOTS, name_index.len() as u32);
        self.blob.index.extend(name_index);
        r.u32(t::UMASK_INDEX, self.blob.index.len() as u32)
            .u32(t::UMASK_SLOTS, umask_index.len() as u32);
        self.blob.index.extend(umask_index);
        self.blob.tables.extend(r.0);
        Ok(())
    }

    fn add_event(
        &mut self,
        f: &FamilyDefs,
        variants: &[&str],
        ev: &schema::Event,
    ) -> Result<(), String> {
        let flags = flag_bits(f.event_flags, &ev.flags, "event")?;
        let modmsk = if f.all_modifiers {
            if !ev.modifiers.is_empty() {
                return Err(format!(
                    "engine {} gives every event every modifier: list none",
                    f.name
                ));
            }
            (1u32 << f.modifiers.len()) - 1
        } else {
            modifier_mask(f, &ev.modifiers)?
        };
        let ext = self.ext_words(f.event_ext, &ev.extra)?;
        let first_umask = self.blob.umasks.len() / layout::umask::SIZE;
        let mut ngrp = 0;
        for um in &ev.umask {
            ngrp = ngrp.max(um.grp + 1);
            self.add_umask(f, variants, um)
                .map_err(|e| format!("unit mask {}: {e}", um.name))?;
        }
        let mut r = Rec::new(layout::event::SIZE);
        use layout::event as e;
        r.u32(e::NAME, self.blob.intern(&ev.name)?)
            .u32(e::DESC, self.blob.intern(&ev.desc)?)
            .u32(e::EQUIV, self.blob.intern_opt(&ev.equiv)?)
            .u32(e::MODMSK, modmsk)
            .u64(e::CODE, ev.code)
            .u64(e::CNTMSK, ev.cntmsk)
            .u32(e::FLAGS, flags)
            .u32(e::FIRST_UMASK, first_umask as u32)
            .u32(e::EXT, ext)
            .u16(e::NUMASKS, ev.umask.len())?
            .u8(e::NGRP, ngrp)?
            .u8(e::VARIANTS, variant_mask(variants, &ev.pmus)?)?;
        self.blob.events.extend(r.0);
        Ok(())
    }

    fn add_umask(
        &mut self,
        f: &FamilyDefs,
        variants: &[&str],
        um: &schema::Umask,
    ) -> Result<(), String> {
        if um.grp >= 32 {
            return Err(format!("group {} is out of range [0-31]", um.grp));
        }
        let flags = flag_bits(f.umask_flags, &um.flags, "unit mask")?;
        let (code, modhw) = fixed_fields(f, um)?;
        let ext = self.ext_words(f.umask_ext, &um.extra)?;
        let mut r = Rec::new(layout::umask::SIZE);
        use layout::umask as u;
        r.u32(u::NAME, self.blob.intern(&um.name)?)
            .u32(u::DESC, self.blob.intern(&um.desc)?)
            .u32(u::EQUIV, self.blob.intern_opt(&um.equiv)?)
            .u32(u::FLAGS, flags)
            .u64(u::CODE, code)
            .u32(u::MODHW, modhw)
            .u32(u::EXT, ext)
            .u8(u::GRP, um.grp)?
            .u8(u::VARIANTS, variant_mask(variants, &um.pmus)?)?;
        self.blob.umasks.extend(r.0);
        Ok(())
    }

    /// The extension words of `extra` (0 when the family defines none).
    fn ext_words(
        &mut self,
        fields: &[ExtField],
        extra: &BTreeMap<String, toml::Value>,
    ) -> Result<u32, String> {
        if let Some(k) = extra.keys().find(|k| !fields.iter().any(|f| f.key == *k)) {
            return Err(format!("unknown key {k}"));
        }
        if fields.is_empty() {
            return Ok(0);
        }
        let mut words = Vec::with_capacity(fields.len() + 1);
        for f in fields {
            let v = extra.get(f.key);
            if let ExtKind::U64 = f.kind {
                let w = match v {
                    Some(v) => v
                        .as_integer()
                        .map(|i| i as u64)
                        .ok_or_else(|| format!("{}: expected an integer", f.key))?,
                    None if f.required => return Err(format!("{}: required", f.key)),
                    None => 0,
                };
                words.push(w as u32);
                words.push((w >> 32) as u32);
                continue;
            }
            words.push(ext_word(f, v).map_err(|e| format!("{}: {e}", f.key))?);
        }
        // All zero: no block (readers answer 0 for position 0). A block
        // another record already has is shared: most records have none or
        // a common one, so the words stay few and a process touches few
        // pages of them.
        if words.iter().all(|&w| w == 0) {
            return Ok(0);
        }
        if let Some(&at) = self.ext_blocks.get(&words) {
            return Ok(at);
        }
        let at = self.blob.ext.len() as u32;
        self.blob.ext.extend_from_slice(&words);
        self.ext_blocks.insert(words, at);
        Ok(at)
    }

    fn add_pmu(
        &mut self,
        p: &schema::Pmu,
        fam: usize,
        table: usize,
        variant: usize,
    ) -> Result<(), String> {
        let f = FAMILIES[fam];
        let id = *self.ids.get(&p.name).ok_or_else(|| {
            format!(
                "PMU {} has no id in data/libpfm4_pmus.toml: add it there",
                p.name
            )
        })?;
        if self.pmus.iter().any(|q| q.name == p.name) {
            return Err(format!("duplicate PMU name {}", p.name));
        }
        let ext = self
            .ext_words(f.pmu_ext, &p.extra)
            .map_err(|e| format!("PMU {}: {e}", p.name))?;
        let models = self.blob.models.len();
        self.blob.models.extend(p.cpu_models.iter().copied());
        let [rank, rank_arm, rank_arm64] = self
            .rank
            .each_ref()
            .map(|r| r.get(&p.name).copied().unwrap_or(10_000 + id as usize));
        let mut r = Rec::new(layout::pmu::SIZE);
        use layout::pmu as m;
        r.u32(m::NAME, self.blob.intern(&p.name)?)
            .u32(m::DESC, self.blob.intern(&p.desc)?)
            .u32(m::PERF_NAME, self.blob.intern_opt(&p.perf_name)?)
            .u32(m::ID, id)
            .u32(m::FLAGS, flag_bits(f.pmu_flags, &p.flags, "PMU")?)
            .u32(m::EXT, ext)
            .u32(m::MODELS, models as u32)
            .u16(m::TABLE, table)?
            .u16(m::NMODELS, p.cpu_models.len())?
            .u16(m::CPU_FAMILY, p.cpu_family.unwrap_or(0) as usize)?
            .u8(m::FAMILY, fam as u32)?
            .u8(m::KIND, kind(&p.kind)?)?
            .u8(m::NUM_CNTRS, p.num_cntrs)?
            .u8(m::NUM_FIXED, p.num_fixed_cntrs)?
            .u8(m::MAX_ENCODING, p.max_encoding)?
            .u8(m::SUPPORTED_PLM, plm_mask(&p.supported_plm)?)?
            .u8(m::VARIANT, variant as u32)?
            .u8(m::VENDOR, vendor(p)?)?
            .u16(m::RANK, rank)?
            .u16(m::RANK_ARM, rank_arm)?
            .u16(m::RANK_ARM64, rank_arm64)?
            .u8(m::DISPATCH, dispatch(&p.dispatch)?)?
            .u8(
                m::BUILDS,
                self.builds.get(&p.name).copied().unwrap_or(0).into(),
            )?
            .u32(m::UNCORE, self.blob.intern_opt(&p.uncore)?);
        let _ = &p.notes;
        self.pmus.push(PmuOut {
            id,
            name: p.name.clone(),
            rank: [rank, rank_arm, rank_arm64],
            rec: r.0,
        });
        Ok(())
    }

    /// PMU records sorted by id, the PMU-name index; the Rust constants.
    fn finish(&mut self) -> Result<String, String> {
        self.pmus.sort_by_key(|p| p.id);
        if let Some(w) = self.pmus.windows(2).find(|w| w[0].id == w[1].id) {
            return Err(format!(
                "PMUs {} and {} share id {}",
                w[0].name, w[1].name, w[0].id
            ));
        }
        let keys: Vec<(u32, usize)> = self
            .pmus
            .iter()
            .enumerate()
            .map(|(i, p)| (name_hash(p.name.to_ascii_uppercase().as_bytes()), i))
            .collect();
        let index = hash_index(&keys)?;
        let at = self.blob.index.len();
        let slots = index.len();
        self.blob.index.extend(index);
        for p in &self.pmus {
            self.blob.pmus.extend_from_slice(&p.rec);
        }
        // The PMUs (by position) in each lookup order, so that no library
        // sorts them at run time.
        let order = |k: usize| {
            let mut order: Vec<usize> = (0..self.pmus.len()).collect();
            order.sort_by_key(|&i| (self.pmus[i].rank[k], self.pmus[i].id));
            let order: Vec<String> = order.iter().map(usize::to_string).collect();
            order.join(", ")
        };
        Ok(format!(
            "pub(crate) const NUM_PMUS: usize = {};\n\
             pub(crate) const PMU_NAME_INDEX: usize = {at};\n\
             pub(crate) const PMU_NAME_SLOTS: usize = {slots};\n\
             pub(crate) const EVENT_INDEX_SHIFT: u32 = {};\n\
             pub(crate) const PMU_LOOKUP_ORDER: [u16; NUM_PMUS] = [{}];\n\
             pub(crate) const PMU_LOOKUP_ORDER_ARM: [u16; NUM_PMUS] = [{}];\n\
             pub(crate) const PMU_LOOKUP_ORDER_ARM64: [u16; NUM_PMUS] = [{}];\n",
            self.pmus.len(),
            self.shift,
            order(0),
            order(1),
            order(2)
        ))
    }
}

/// The PMUs one `[[pmu]]` stands for: itself, or its `instances`.
fn expand(p: &schema::Pmu) -> Result<Vec<schema::Pmu>, String> {
    let Some(n) = p.instances else {
        if p.name.contains("{n}") {
            return Err(format!("PMU {}: {{n}} in a name needs `instances`", p.name));
        }
        return Ok(vec![p.clone()]);
    };
    if !p.name.contains("{n}") {
        return Err(format!(
            "PMU {}: `instances` needs {{n}} in the name",
            p.name
        ));
    }
    Ok((0..n)
        .map(|i| {
            let sub = |s: &str| s.replace("{n}", &i.to_string());
            let mut q = p.clone();
            q.name = sub(&p.name);
            q.desc = sub(&p.desc);
            q.perf_name = p.perf_name.as_deref().map(sub);
            q.instances = None;
            q
        })
        .collect())
}

fn family(engine: &str) -> Result<usize, String> {
    FAMILIES
        .iter()
        .position(|f| f.name == engine)
        .ok_or_else(|| format!("unknown engine {engine}"))
}

fn flag_bits(list: &[&str], flags: &[String], what: &str) -> Result<u32, String> {
    let mut m = 0;
    for fl in flags {
        let pos = list
            .iter()
            .position(|x| x == fl)
            .ok_or_else(|| format!("unknown {what} flag `{fl}` (known: {})", list.join(" ")))?;
        m |= 1 << pos;
    }
    Ok(m)
}

fn modifier_mask(f: &FamilyDefs, mods: &[String]) -> Result<u32, String> {
    let mut m = 0;
    for name in mods {
        let pos = f
            .modifiers
            .iter()
            .position(|x| x.name == name)
            .ok_or_else(|| format!("unknown modifier {name} for engine {}", f.name))?;
        m |= 1 << pos;
    }
    Ok(m)
}

/// The unit mask's code with its hard-wired modifiers in place, and the
/// mask of those modifiers.
fn fixed_fields(f: &FamilyDefs, um: &schema::Umask) -> Result<(u64, u32), String> {
    let mut code = um.code;
    let mut modhw = 0;
    for (k, v) in &um.fixed {
        let field = f
            .fixed
            .iter()
            .find(|x| x.name == k)
            .ok_or_else(|| format!("cannot fix modifier {k}"))?;
        if *v >= 1u64 << field.width {
            return Err(format!("{k}={v} is too wide"));
        }
        let id = f
            .modifiers
            .iter()
            .position(|m| m.name == k)
            .ok_or_else(|| format!("fixed field {k} names no modifier"))?;
        code |= v << field.shift;
        modhw |= 1 << id;
    }
    Ok((code, modhw))
}

fn ext_word(f: &ExtField, v: Option<&toml::Value>) -> Result<u32, String> {
    let int = |v: &toml::Value| {
        v.as_integer()
            .and_then(|i| u32::try_from(i).ok())
            .ok_or_else(|| format!("expected a non-negative integer, not {v}"))
    };
    let Some(v) = v else {
        if f.required {
            return Err("required".into());
        }
        return Ok(match f.kind {
            ExtKind::Int { default, .. } => default,
            _ => 0,
        });
    };
    match &f.kind {
        ExtKind::Int { min, max, .. } => {
            let i = int(v)?;
            if i < *min || i > *max {
                return Err(format!("{i} is out of range [{min}-{max}]"));
            }
            Ok(i)
        }
        ExtKind::OptInt { max } => {
            let i = int(v)?;
            if i > *max {
                return Err(format!("{i} is out of range [0-{max}]"));
            }
            Ok(i + 1)
        }
        ExtKind::Enum(names) => {
            let s = v.as_str().ok_or("expected a string")?;
            names
                .iter()
                .position(|n| *n == s)
                .map(|p| p as u32)
                .ok_or_else(|| format!("unknown value {s} (known: {})", names.join(" ")))
        }
        ExtKind::Flags(names) => {
            let list = v.as_array().ok_or("expected a list of strings")?;
            let strs: Vec<String> = list
                .iter()
                .map(|x| x.as_str().map(str::to_string).ok_or("expected strings"))
                .collect::<Result<_, _>>()?;
            flag_bits(names, &strs, "value")
        }
        ExtKind::U64 => Err("64-bit keys are read elsewhere".into()),
    }
}

/// Bit mask of the variants (PMUs of the file) listed, all when empty.
fn variant_mask(variants: &[&str], pmus: &[String]) -> Result<u32, String> {
    if pmus.is_empty() {
        return Ok(0xff);
    }
    let mut m = 0;
    for p in pmus {
        let v = variants
            .iter()
            .position(|x| x == p)
            .ok_or_else(|| format!("pmus names {p}, which this file does not describe"))?;
        m |= 1 << v;
    }
    Ok(m)
}

fn kind(k: &str) -> Result<u32, String> {
    match k {
        "core" => Ok(0),
        "uncore" => Ok(1),
        "os_generic" => Ok(2),
        "unknown" => Ok(3),
        other => Err(format!("unknown PMU kind {other}")),
    }
}

fn vendor(p: &schema::Pmu) -> Result<u32, String> {
    match (p.cpu_vendor.as_deref(), p.cpu_family) {
        (None, None) => Ok(0),
        (None, Some(_)) => Err("cpu_family needs cpu_vendor".into()),
        (Some("intel"), _) => Ok(1),
        (Some("amd"), _) => Ok(2),
        (Some("arm"), _) => Ok(3),
        (Some("broadcom"), _) => Ok(4),
        (Some("cavium"), _) => Ok(5),
        (Some("fujitsu"), _) => Ok(6),
        (Some("hisilicon"), _) => Ok(7),
        (Some("appliedmicro"), _) => Ok(8),
        (Some("qualcomm"), _) => Ok(9),
        (Some("nvidia"), _) => Ok(10),
        (Some("ibm"), _) => Ok(11),
        (Some("ampere"), _) => Ok(12),
        (Some(v), _) => Err(format!("unknown vendor {v}")),
    }
}

fn dispatch(d: &Option<String>) -> Result<u32, String> {
    match d.as_deref() {
        None => Ok(0),
        Some("nehalem") => Ok(1),
        Some("ia64") => Ok(2),
        Some(o) => Err(format!("unknown dispatcher {o} (known: nehalem ia64)")),
    }
}

fn plm_mask(v: &[toml::Value]) -> Result<u32, String> {
    let mut m = 0;
    for x in v {
        m |= match x {
            toml::Value::Integer(0) => 0x1,
            toml::Value::Integer(1) => 0x2,
            toml::Value::Integer(2) => 0x4,
            toml::Value::Integer(3) => 0x8,
            toml::Value::String(s) if s == "h" => 0x10,
            other => return Err(format!("bad supported_plm entry {other}")),
        };
    }
    Ok(m)
}
