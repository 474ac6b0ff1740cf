//! Where a run's time goes, for `check --timings` (or `IDEMLINT_TIMINGS=1`):
//! wall time per phase, and per file kind how many files were scanned, let
//! through by the prefilter and parsed, with their bytes and the parse time
//! summed over threads. Printed to standard error, never part of a report.

use crate::source::FileKind;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// Every file kind, in the order the table lists them.
const KINDS: [FileKind; 13] = [
    FileKind::Rust,
    FileKind::Sql,
    FileKind::Prisma,
    FileKind::RedisConf,
    FileKind::Yaml,
    FileKind::Toml,
    FileKind::Json,
    FileKind::Hcl,
    FileKind::Env,
    FileKind::Script(crate::source::Dialect::Ts),
    FileKind::Python,
    FileKind::Go,
    FileKind::Text,
];

/// Counts and bytes of one kind at one stage.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    pub files: usize,
    pub bytes: u64,
}

impl Tally {
    fn add(&mut self, bytes: u64) {
        self.files += 1;
        self.bytes += bytes;
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub struct KindStats {
    /// Found by the walk (or named on the command line).
    pub scanned: Tally,
    /// Let through by the prefilter for a full parse.
    pub admitted: Tally,
    /// Let through for their `const`/`static` items only (Rust).
    pub consts_only: Tally,
    /// Parse and fact extraction, summed over threads.
    pub parse: Duration,
}

/// The timings of one run.
#[derive(Debug, Default, Clone)]
pub struct Timings {
    phases: Vec<(&'static str, Duration)>,
    kinds: [KindStats; KINDS.len()],
    started: Option<Instant>,
    mark: Option<Instant>,
    /// Rust files the prefilter held back for their retries, and how many
    /// of them were parsed.
    held: Option<(usize, usize)>,
    /// Big Rust files read around their words, and how many of them were
    /// then read whole.
    around: Option<(usize, usize)>,
    /// The files whose parse took longest, longest first, at most
    /// [`SLOWEST`]: what an `exclude` would win back.
    slowest: Vec<(Duration, String)>,
}

/// How many of the slowest files the report lists.
const SLOWEST: usize = 8;

fn slot(kind: FileKind) -> usize {
    // One row for TypeScript and JavaScript, whatever the dialect.
    let kind = match kind {
        FileKind::Script(_) => FileKind::Script(crate::source::Dialect::Ts),
        k => k,
    };
    KINDS
        .iter()
        .position(|k| *k == kind)
        .unwrap_or(KINDS.len() - 1)
}

impl Timings {
    pub fn start() -> Self {
        let now = Instant::now();
        Timings {
            started: Some(now),
            mark: Some(now),
            ..Default::default()
        }
    }

    /// Close the phase that ran since the last mark.
    pub fn phase(&mut self, name: &'static str) {
        let now = Instant::now();
        let since = self.mark.unwrap_or(now);
        self.phases.push((name, now - since));
        self.mark = Some(now);
    }

    pub fn kind(&mut self, kind: FileKind) -> &mut KindStats {
        &mut self.kinds[slot(kind)]
    }

    pub fn scanned(&mut self, kind: FileKind, bytes: u64) {
        self.kind(kind).scanned.add(bytes);
    }

    pub fn admitted(&mut self, kind: FileKind, bytes: u64, consts_only: bool) {
        let k = self.kind(kind);
        if consts_only {
            k.consts_only.add(bytes);
        } else {
            k.admitted.add(bytes);
        }
    }

    /// One file's parse and fact extraction took `took`.
    pub fn parsed(&mut self, kind: FileKind, path: &str, took: Duration) {
        self.kind(kind).parse += took;
        if self.slowest.len() == SLOWEST && self.slowest.last().is_some_and(|(d, _)| *d >= took) {
            return;
        }
        let at = self.slowest.partition_point(|(d, _)| *d >= took);
        self.slowest.insert(at, (took, path.to_string()));
        self.slowest.truncate(SLOWEST);
    }

    /// `files` were held back for their retries; `parsed` of them were
    /// parsed, beside the others or after them.
    pub fn held(&mut self, files: usize, parsed: usize) {
        self.held = Some((files, parsed));
    }

    /// `files` big Rust files were read around their words; `whole` of
    /// them were then read whole again, as something in them can reach a
    /// store or a keyed request.
    pub fn around(&mut self, files: usize, whole: usize) {
        self.around = Some((files, whole));
    }

    pub fn phases(&self) -> &[(&'static str, Duration)] {
        &self.phases
    }

    pub fn stats(&self, kind: FileKind) -> KindStats {
        self.kinds[slot(kind)]
    }

    /// The table printed to standard error, with `render` (timed by the
    /// caller) as the last phase.
    pub fn report(&self, render: Duration) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let mut out = String::from("idemlint timings (wall time)\n");
        let mut phases = self.phases.clone();
        phases.push(("render", render));
        for (name, d) in &phases {
            let _ = writeln!(out, "  {name:<20} {:>9.1} ms", ms(*d));
        }
        let total = self.started.map_or(Duration::ZERO, |s| s.elapsed());
        let _ = writeln!(out, "  {:<20} {:>9.1} ms", "total", ms(total));
        let _ = writeln!(
            out,
            "{:<12} {:>8} {:>9} {:>8} {:>9} {:>8} {:>9} {:>10}",
            "kind", "scanned", "MiB", "parsed", "MiB", "consts", "MiB", "parse ms"
        );
        let mib = |b: u64| b as f64 / 1048576.0;
        let mut sum = KindStats::default();
        for kind in KINDS {
            let k = self.stats(kind);
            if k.scanned.files == 0 && k.admitted.files == 0 {
                continue;
            }
            let _ = writeln!(out, "{}", row(kind.name(), &k, mib, ms));
            sum.scanned.files += k.scanned.files;
            sum.scanned.bytes += k.scanned.bytes;
            sum.admitted.files += k.admitted.files;
            sum.admitted.bytes += k.admitted.bytes;
            sum.consts_only.files += k.consts_only.files;
            sum.consts_only.bytes += k.consts_only.bytes;
            sum.parse += k.parse;
        }
        let _ = writeln!(out, "{}", row("all", &sum, mib, ms));
        out.push_str("  (parse ms: parse and fact extraction, summed over threads)\n");
        let _ = writeln!(
            out,
            "  Rust texts let go after their parse, read again to show: {}",
            crate::source::reloads()
        );
        if let Some((files, parsed)) = self.held {
            let why = if parsed == 0 {
                "nothing in them reaches a store or a keyed request"
            } else {
                "the rest reaches no store and no keyed request"
            };
            let _ = writeln!(
                out,
                "  files held back (Rust for its retries, TypeScript with no word): {files}, parsed: {parsed} ({why})"
            );
        }
        if !self.slowest.is_empty() {
            out.push_str("slowest files to parse (ms; `exclude` in idemlint.toml skips a file that holds no store)\n");
            for (d, path) in &self.slowest {
                let _ = writeln!(out, "  {:>9.1}  {path}", ms(*d));
            }
        }
        if let Some((files, again)) = self.around {
            let why = if again == 0 {
                "nothing in them reaches a store or a keyed request"
            } else {
                "the rest reaches no store and no keyed request"
            };
            let _ = writeln!(
                out,
                "  big Rust files read around their words: {files}, read whole again: {again} ({why})"
            );
        }
        out
    }
}

fn row(
    name: &str,
    k: &KindStats,
    mib: impl Fn(u64) -> f64,
    ms: impl Fn(Duration) -> f64,
) -> String {
    format!(
        "{name:<12} {:>8} {:>9.2} {:>8} {:>9.2} {:>8} {:>9.2} {:>10.1}",
        k.scanned.files,
        mib(k.scanned.bytes),
        k.admitted.files,
        mib(k.admitted.bytes),
        k.consts_only.files,
        mib(k.consts_only.bytes),
        ms(k.parse)
    )
}

/// The time of each reader of a parsed Rust file, summed over threads, for
/// `--timings`: which walk costs what (docs/contributing.md, "Speed
/// changes"). Counted only once [`walks::enable`] is called (the command line
/// does when timings are asked for), so a run without them pays one
/// relaxed load per reader and item.
pub mod walks {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::time::Instant;

    /// The readers, in the order the table lists them.
    #[derive(Debug, Clone, Copy)]
    pub enum Walk {
        /// Checks before the parse: nesting, chains, the Stripe header.
        Screens,
        /// syn's parse of a whole file.
        SynWhole,
        /// The first pass over the items (for a file read by items or
        /// around its words, the items' parse too), readers included.
        FirstPass,
        Strings,
        TestRegions,
        Consts,
        RetryFirst,
        Retention,
        /// The second pass over the items (parse included as above).
        SecondPass,
        Flow,
        Retry,
        Cache,
        RedisLiterals,
        Units,
        Tokens,
        Scope,
        OwnerKeys,
        /// The owner-less keys' admission of the text.
        OwnerGate,
        /// Stores by data flow: its own pass (parse included as above).
        KeySource,
        /// What the model keeps of a file's facts, after its front end.
        ModelInputs,
    }

    const NAMES: [&str; 20] = [
        "screens",
        "syn (whole files)",
        "first pass",
        "  strings",
        "  test regions",
        "  constants",
        "  retry (first)",
        "  retention",
        "second pass",
        "  flow",
        "  retry",
        "  cache",
        "  redis literals",
        "  unit slips",
        "  used tokens",
        "  dropped callers",
        "  owner-less keys",
        "owner gate",
        "key source pass",
        "model inputs",
    ];

    static ON: AtomicBool = AtomicBool::new(false);
    static NANOS: [AtomicU64; NAMES.len()] = [const { AtomicU64::new(0) }; NAMES.len()];
    static CALLS: [AtomicU64; NAMES.len()] = [const { AtomicU64::new(0) }; NAMES.len()];

    /// Count from now on.
    pub fn enable() {
        ON.store(true, Ordering::Relaxed);
    }

    /// `f`, its time added to `walk`'s when counting.
    #[inline]
    pub fn time<R>(walk: Walk, f: impl FnOnce() -> R) -> R {
        if !ON.load(Ordering::Relaxed) {
            return f();
        }
        let t0 = Instant::now();
        let r = f();
        let i = walk as usize;
        NANOS[i].fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
        CALLS[i].fetch_add(1, Ordering::Relaxed);
        r
    }

    /// The table, or nothing when not counted.
    pub fn report() -> String {
        use std::fmt::Write as _;
        if !ON.load(Ordering::Relaxed) {
            return String::new();
        }
        let mut out = String::from("Rust readers (ms summed over threads, calls)\n");
        for (i, name) in NAMES.iter().enumerate() {
            let ns = NANOS[i].load(Ordering::Relaxed);
            let calls = CALLS[i].load(Ordering::Relaxed);
            if calls > 0 {
                let _ = writeln!(out, "  {name:<20} {:>9.1} {calls:>8}", ns as f64 / 1e6);
            }
        }
        out
    }
}

/// Whether timings were asked for through the environment.
pub fn from_env() -> bool {
    std::env::var_os("IDEMLINT_TIMINGS").is_some_and(|v| !v.is_empty() && v != "0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_lists_phases_in_order_and_totals_the_kinds() {
        let mut t = Timings::start();
        t.phase("walk");
        t.phase("read+prefilter");
        t.scanned(FileKind::Rust, 2048);
        t.scanned(FileKind::Json, 1024);
        t.admitted(FileKind::Rust, 2048, false);
        t.kind(FileKind::Rust).parse = Duration::from_millis(3);
        let r = t.report(Duration::from_millis(1));
        let walk = r.find("walk").unwrap();
        let read = r.find("read+prefilter").unwrap();
        let render = r.find("render").unwrap();
        assert!(walk < read && read < render, "{r}");
        let all = r.lines().find(|l| l.starts_with("all")).unwrap();
        let cols: Vec<&str> = all.split_whitespace().collect();
        assert_eq!(cols[1], "2", "{r}");
        assert_eq!(cols[3], "1", "{r}");
        assert_eq!(cols[7], "3.0", "{r}");
        assert!(!r.contains("toml"), "kinds with no file are left out: {r}");
    }

    #[test]
    fn the_slowest_files_are_listed_longest_first_and_at_most_eight() {
        let mut t = Timings::start();
        for i in 0..12u64 {
            t.parsed(
                FileKind::Go,
                &format!("f{i}.go"),
                Duration::from_millis(i * 10),
            );
        }
        assert_eq!(t.stats(FileKind::Go).parse, Duration::from_millis(660));
        let r = t.report(Duration::ZERO);
        let listed: Vec<&str> = r
            .lines()
            .skip_while(|l| !l.starts_with("slowest files"))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .filter_map(|l| l.split_whitespace().nth(1))
            .collect();
        assert_eq!(
            listed,
            ["f11.go", "f10.go", "f9.go", "f8.go", "f7.go", "f6.go", "f5.go", "f4.go"],
            "{r}"
        );
    }
}
