//! The cost of the C interface over the Rust prober: a cached WLD probe
//! through `dtb_probe_wdl` (handle check included) and through the egdb
//! interface's `dtb_egdb_lookup` (what `egdb_lookup` of `egdb_intl.h`
//! calls) against `Tablebase::probe_wdl`, on 1 and 2 threads. Builds the fmjd tables of up
//! to 3 pieces plus KM-KM and KKM-K first (a few seconds).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use dtb::{
    dtb_close, dtb_egdb_close, dtb_egdb_lookup, dtb_egdb_open, dtb_open, dtb_probe_wdl,
    DtbEgdbDriver, DtbEgdbPosition, DtbTablebase, DTB_EGDB_BLACK, DTB_EGDB_DRAW, DTB_EGDB_WHITE,
};
use format::{Material, MaterialIndex, RuleSet};
use gen::{generate, GenOptions};
use probe::Tablebase;
use rules::{Color, Position};

/// A position as the C interface takes it: (white, black, kings, side).
type Masks = (u64, u64, u64, i32);

fn masks(p: &Position) -> Masks {
    let side = if p.side_to_move() == Color::White {
        0
    } else {
        1
    };
    (
        p.pieces(Color::White).to_dense(),
        p.pieces(Color::Black).to_dense(),
        (p.kings(Color::White) | p.kings(Color::Black)).to_dense(),
        side,
    )
}

fn positions() -> Vec<Position> {
    let mut out = Vec::new();
    for name in ["KM-KM", "KKM-K"] {
        let m: Material = name.parse().unwrap();
        let index = MaterialIndex::new(m);
        let step = index.count() / 500;
        out.extend(
            (0..500)
                .map(|k| index.unrank(k * step))
                .filter(|p| !p.has_capture()),
        );
    }
    out
}

fn probe_all_c(tb: usize, all: &[Masks]) -> usize {
    let tb = tb as *const DtbTablebase;
    all.iter()
        .filter(|&&(w, b, k, s)| {
            let mut wdl = 0;
            // SAFETY: `tb` is an open handle; `wdl` is writable.
            unsafe { dtb_probe_wdl(tb, w, b, k, s, -1, &mut wdl) == 0 }
        })
        .count()
}

/// A position as the egdb interface takes it: Kingsrow's layout (the
/// board's own) and colour codes.
fn egdb_position(p: &Position) -> (DtbEgdbPosition, i32) {
    let [white, black, king] = p.key();
    let color = match p.side_to_move() {
        Color::White => DTB_EGDB_WHITE,
        Color::Black => DTB_EGDB_BLACK,
    };
    (DtbEgdbPosition { black, white, king }, color)
}

fn probe_all_egdb(driver: usize, all: &[(DtbEgdbPosition, i32)]) -> usize {
    let driver = driver as *mut DtbEgdbDriver;
    all.iter()
        .filter(|(p, color)| {
            // SAFETY: `driver` is an open handle; `p` is readable.
            let v = unsafe { dtb_egdb_lookup(driver, p, *color, 0) };
            (1..=DTB_EGDB_DRAW).contains(&v)
        })
        .count()
}

fn bench_c_probe(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let materials = ["KM-KM", "KKM-K"].map(|m| m.parse().unwrap()).to_vec();
    let mut options = GenOptions::new(dir.path(), RuleSet::Fmjd, 4);
    options.materials = materials;
    generate(&options).unwrap();
    let rust = Tablebase::open(dir.path(), RuleSet::Fmjd).unwrap();
    let path = std::ffi::CString::new(dir.path().to_str().unwrap()).unwrap();
    // SAFETY: `path` is a NUL-terminated string.
    let handle = unsafe { dtb_open(path.as_ptr(), 1, 0) };
    assert!(!handle.is_null());
    let all = positions();
    let as_masks: Vec<Masks> = all.iter().map(masks).collect();
    assert_eq!(probe_all_c(handle as usize, &as_masks), all.len());
    // SAFETY: NUL-terminated strings; no message function.
    let driver = unsafe { dtb_egdb_open(c"rules=fmjd".as_ptr(), 0, path.as_ptr(), None) };
    assert!(!driver.is_null());
    let as_egdb: Vec<(DtbEgdbPosition, i32)> = all.iter().map(egdb_position).collect();
    assert_eq!(probe_all_egdb(driver as usize, &as_egdb), all.len());
    for p in &all {
        rust.probe_wdl(p, None).unwrap();
    }
    let mut group = c.benchmark_group("c_probe");
    // Each thread probes every position ROUNDS times, so that starting the
    // threads weighs little, as in an engine's long-lived search threads.
    const ROUNDS: usize = 20;
    for threads in [1usize, 2] {
        group.throughput(Throughput::Elements((all.len() * threads * ROUNDS) as u64));
        group.bench_function(format!("rust_{threads}_threads"), |b| {
            b.iter(|| {
                std::thread::scope(|s| {
                    for _ in 0..threads {
                        s.spawn(|| {
                            (0..ROUNDS)
                                .map(|_| {
                                    all.iter()
                                        .filter(|p| rust.probe_wdl(black_box(p), None).is_ok())
                                        .count()
                                })
                                .sum::<usize>()
                        });
                    }
                })
            })
        });
        let h = handle as usize;
        group.bench_function(format!("c_{threads}_threads"), |b| {
            b.iter(|| {
                std::thread::scope(|s| {
                    for _ in 0..threads {
                        s.spawn(|| {
                            (0..ROUNDS)
                                .map(|_| probe_all_c(h, black_box(&as_masks)))
                                .sum::<usize>()
                        });
                    }
                })
            })
        });
        let d = driver as usize;
        group.bench_function(format!("egdb_{threads}_threads"), |b| {
            b.iter(|| {
                std::thread::scope(|s| {
                    for _ in 0..threads {
                        s.spawn(|| {
                            (0..ROUNDS)
                                .map(|_| probe_all_egdb(d, black_box(&as_egdb)))
                                .sum::<usize>()
                        });
                    }
                })
            })
        });
    }
    group.finish();
    assert_eq!(dtb_close(handle), 0);
    assert_eq!(dtb_egdb_close(driver), 0);
}

criterion_group!(benches, bench_c_probe);
criterion_main!(benches);
