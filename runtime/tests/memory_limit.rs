//! The memory limit bounds every byte the runtime allocates for a running
//! program (issue 13, defect 2): string concatenation, `str(x)` and
//! printing build no temporaries outside the accounted heap, so the
//! process's memory stays within the limit plus a small constant.
//!
//! The measurement is exact and independent of the system allocator: this
//! test binary installs a counting global allocator and records the peak of
//! the bytes live while a program runs, above the bytes live when it
//! started (the compiled module exists by then). A `realloc` counts the old
//! and the new block at once, as the worst case of a copy. There are no
//! timings. Each program runs on every tier; the tests run one after the
//! other in a single `#[test]` so no other test thread allocates meanwhile.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use waddle::{Config, Engine, Module, OutputSink, Store, Tier};

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grow(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; only counters are
// updated besides.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded; `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        grow(new_size);
        // SAFETY: forwarded; `ptr` came from `System` with this layout.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            LIVE.fetch_sub(new_size, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// What a run may allocate beyond the memory limit: the output buffer
/// (64 KiB, doubled at most once), the collector's mark stack and root
/// lists, the interpreter's frames and the allocator's rounding for the
/// few hundred objects of the program. Documented in docs/language.md
/// ("Memory").
const SLACK: usize = 256 << 10;

/// Runs `main0` of `source` with `limit` on `tier`, printing into a
/// discarding writer; returns the error text (if any) and the peak bytes
/// allocated while it ran.
fn run(tier: Tier, source: &str, limit: usize) -> (Option<String>, usize) {
    let engine = Engine::new(&Config::new().tier(tier).memory_limit(Some(limit))).unwrap();
    let module = Module::new(&engine, "prog.wdl", source).unwrap();
    let mut store = Store::with_output(&engine, OutputSink::Writer(Box::new(std::io::sink())));
    let instance = store.instantiate(&module).unwrap();
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let result = instance.call(&mut store, "main0", &[]);
    let peak = PEAK.load(Ordering::Relaxed) - base;
    drop(store);
    (result.err().map(|e| e.to_string()), peak)
}

/// Programs that allocate large temporaries, with the limit they run under
/// and whether they end `out of memory`.
const CASES: &[(&str, &str, usize, bool)] = &[
    (
        "doubling concatenation",
        "fn main0() { var s = \"x\"; while true { s = s + s; } }",
        8 << 20,
        true,
    ),
    (
        // The string is 4 MiB; `s + s` needs 8 MiB more (12 in all, and
        // a frame may still hold the 2 MiB string of the last iteration).
        "concatenation that fits",
        "fn main0() { var s = \"x\"; for i in 0..22 { s = s + s; } let t = s + s; print(len(t)); }",
        16 << 20,
        false,
    ),
    (
        // 1M elements (8 MiB) print as ~3 MiB of text.
        "printing a large array",
        "fn main0() { let a = [7; 1000000]; print(a); }",
        9 << 20,
        false,
    ),
    (
        // `str` of the same array: the text (3 MiB) is a heap object.
        "str of a large array",
        "fn main0() { let a = [7; 1000000]; let s = str(a); print(len(s)); }",
        12 << 20,
        false,
    ),
    (
        "str of a large array beyond the limit",
        "fn main0() { let a = [7; 1000000]; let s = str(a); print(len(s)); }",
        10 << 20,
        true,
    ),
    (
        // Many tiny objects: the per-object bookkeeping is accounted too.
        "many small strings",
        "fn main0() { var a: [str] = []; var i = 0; while true { push(a, str(i)); i = i + 1; } }",
        8 << 20,
        true,
    ),
    (
        "growing an array",
        "fn main0() { var a: [int] = []; while true { push(a, 1); } }",
        8 << 20,
        true,
    ),
];

#[test]
fn runs_stay_within_the_memory_limit_on_every_tier() {
    let mut failures = Vec::new();
    for &(name, source, limit, oom) in CASES {
        for (tier_name, tier) in Tier::ALL {
            let (err, peak) = run(tier, source, limit);
            eprintln!("{name} on {tier_name}: peak {peak} bytes, limit {limit}");
            let ok_end = match (&err, oom) {
                (None, false) => true,
                (Some(e), true) => e.contains("out of memory"),
                _ => false,
            };
            if !ok_end {
                failures.push(format!("{name} on {tier_name}: ended with {err:?}"));
            }
            if peak > limit + SLACK {
                failures.push(format!(
                    "{name} on {tier_name}: {peak} bytes allocated, limit {limit} + {SLACK}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
