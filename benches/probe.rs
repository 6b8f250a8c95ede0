//! Probe latency: a non-capture position with its block cached, a capture
//! position (resolved by search), a probe that must decode its block, and
//! throughput on 1 and 2 threads. Builds the fmjd tables up to 4 pieces
//! first (about 20 s).

use std::path::Path;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use format::{Material, MaterialIndex, RuleSet};
use gen::{generate, GenOptions};
use probe::{Storage, Tablebase, TablebaseOptions, Wdl};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use rules::Position;

fn sample(names: &[&str], n: usize, captures: bool) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(11);
    let mut out = Vec::new();
    while out.len() < n {
        let m: Material = names[rng.gen_range(0..names.len())]
            .parse()
            .expect("material");
        let index = MaterialIndex::new(m);
        let p = index.unrank(rng.gen_range(0..index.count()));
        if p.has_capture() == captures {
            out.push(p);
        }
    }
    out
}

/// Probes every position of `positions` (each one through `black_box`);
/// how many answered.
fn probe_all(tb: &Tablebase, positions: &[Position]) -> usize {
    positions
        .iter()
        .filter(|p| tb.probe_wdl(black_box(p), None).is_ok())
        .count()
}

fn bench_probe(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    generate(&GenOptions::new(dir.path(), RuleSet::Fmjd, 4)).expect("generation");
    let tb = Tablebase::open(dir.path(), RuleSet::Fmjd).unwrap();
    let materials = ["KKM-K", "KM-KM", "MM-MM", "KMM-K", "KK-KM", "MMM-M"];
    let quiet = sample(&materials, 1000, false);
    let captures = sample(&materials, 1000, true);
    for p in quiet.iter().chain(&captures) {
        tb.probe_wdl(p, None).expect("probe");
    }
    let mut group = c.benchmark_group("probe");
    group.throughput(Throughput::Elements(1000));
    group.bench_function("cached_non_capture", |b| b.iter(|| probe_all(&tb, &quiet)));
    group.bench_function("capture_resolution", |b| {
        b.iter(|| probe_all(&tb, &captures))
    });
    // A cache too small to hold anything: every probe decodes its block.
    let cold = Tablebase::open_with(
        dir.path(),
        RuleSet::Fmjd,
        TablebaseOptions::with_cache_bytes(1),
    )
    .unwrap();
    group.bench_function("block_decode", |b| b.iter(|| probe_all(&cold, &quiet)));
    // The same two over positioned reads instead of a mapping.
    let pread = |cache_bytes| {
        let options =
            TablebaseOptions::with_cache_bytes(cache_bytes).with_storage(Storage::PositionedReads);
        Tablebase::open_with(dir.path(), RuleSet::Fmjd, options).unwrap()
    };
    let warm = pread(64 << 20);
    for p in &quiet {
        warm.probe_wdl(p, None).expect("probe");
    }
    group.bench_function("pread_cached_non_capture", |b| {
        b.iter(|| probe_all(&warm, &quiet))
    });
    let cold = pread(1);
    group.bench_function("pread_block_decode", |b| {
        b.iter(|| probe_all(&cold, &quiet))
    });
    let mixed: Vec<Position> = quiet.iter().chain(&captures).copied().collect();
    for threads in [1usize, 2] {
        group.throughput(Throughput::Elements(mixed.len() as u64 * threads as u64));
        group.bench_function(format!("throughput_{threads}_threads"), |b| {
            b.iter(|| {
                std::thread::scope(|s| {
                    for _ in 0..threads {
                        s.spawn(|| {
                            mixed
                                .iter()
                                .filter(|p| tb.probe_wdl(p, None).is_ok())
                                .count()
                        });
                    }
                })
            })
        });
    }
    group.finish();
}

/// `probe_dtc` (blocks cached) on the two sides of 4-piece pairs: the
/// side whose DTC file stores its values, and the side whose values are
/// found by a one-ply search over it (`format::FLAG_FROM_MIRROR`).
fn bench_probe_dtc(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut options = GenOptions::new(dir.path(), RuleSet::Fmjd, 4);
    options.dtc = true;
    generate(&options).expect("generation");
    let tb = Tablebase::open(dir.path(), RuleSet::Fmjd).unwrap();
    let folder = dir.path().join("fmjd");
    let pairs = ["KK-KM", "KM-MM", "KK-MM", "KKK-M"];
    let (mut stored, mut searched) = (Vec::new(), Vec::new());
    for name in pairs {
        let m: Material = name.parse().expect("material");
        for side in [m, m.mirrored()] {
            let header = format::read_header(&format::dtc_path(&folder, side)).expect("header");
            let names = [side.to_string()];
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let decided = sample(&names, 4000, false)
                .into_iter()
                .filter(|p| tb.probe_dtc(p).expect("probe").is_some())
                .take(250);
            if header.from_mirror {
                searched.extend(decided);
            } else {
                stored.extend(decided);
            }
        }
    }
    let mut group = c.benchmark_group("probe_dtc");
    for (name, positions) in [("stored", &stored), ("from_mirror", &searched)] {
        group.throughput(Throughput::Elements(positions.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                positions
                    .iter()
                    .filter(|p| tb.probe_dtc(black_box(p)).is_ok())
                    .count()
            })
        });
    }
    group.finish();
}

/// The value of non-capture `pos` found as a prober would find it for a
/// side whose table stored no values: a one-ply search over its moves,
/// each child probed (its captures resolved as usual).
fn one_ply_value(tb: &Tablebase, pos: &Position) -> Wdl {
    let mut best = Wdl::Loss;
    for mv in pos.legal_moves() {
        match tb.probe_wdl(&pos.play(&mv), None).expect("probe") {
            Wdl::Loss => return Wdl::Win,
            Wdl::Draw => best = Wdl::Draw,
            Wdl::Win => {}
        }
    }
    best
}

/// What a probe would cost if one side of a pair stored no WLD values:
/// the one-ply search over the positions of four-piece pairs outside the
/// counted endings, against the direct probe of the same positions
/// (blocks cached). The setup checks that the search gives the
/// stored value of every position it times.
fn bench_one_ply_search(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    generate(&GenOptions::new(dir.path(), RuleSet::Fmjd, 4)).expect("generation");
    let tb = Tablebase::open(dir.path(), RuleSet::Fmjd).unwrap();
    let quiet = sample(
        &["KM-KM", "MM-MM", "KK-KM", "KM-KK", "MMM-M", "KM-MM"],
        1000,
        false,
    );
    for p in &quiet {
        assert_eq!(one_ply_value(&tb, p), tb.probe_wdl(p, None).expect("probe"));
    }
    let mut group = c.benchmark_group("one_side");
    group.throughput(Throughput::Elements(quiet.len() as u64));
    group.bench_function("stored_non_capture", |b| b.iter(|| probe_all(&tb, &quiet)));
    group.bench_function("one_ply_search_non_capture", |b| {
        b.iter(|| {
            quiet
                .iter()
                .map(|p| one_ply_value(&tb, black_box(p)))
                .filter(|w| *w == Wdl::Win)
                .count()
        })
    });
    group.finish();
}

/// `n` positions of `names` (White to move) that `keep` accepts.
fn sample_where(
    names: &[&str],
    n: usize,
    mut keep: impl FnMut(&Position) -> bool,
) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(12);
    let mut out = Vec::new();
    while out.len() < n {
        let m: Material = names[rng.gen_range(0..names.len())]
            .parse()
            .expect("material");
        let index = MaterialIndex::new(m);
        let p = index.unrank(rng.gen_range(0..index.count()));
        if keep(&p) {
            out.push(p);
        }
    }
    out
}

/// A copy of the fmjd tables under `plain`, compacted with `sides`.
fn compacted_copy(plain: &Path, sides: gen::Sides) -> tempfile::TempDir {
    let small = tempfile::tempdir().expect("temp dir");
    let (from, to) = (plain.join("fmjd"), small.path().join("fmjd"));
    std::fs::create_dir_all(&to).expect("folder");
    for entry in std::fs::read_dir(&from).expect("folder") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
    }
    gen::compact(small.path(), RuleSet::Fmjd, sides).expect("compaction");
    small
}

/// Format version 2 (`dtb compact`) against version 1, the same
/// positions in both (fmjd up to 4 pieces): positions where neither side
/// could capture, searched threats (only the side not to move could
/// capture: version 2 finds them by search), and a random mix of legal
/// positions, with blocks cached; and the probe that must decode its
/// block. Then the set compacted with one side a pair (`--one-side`),
/// and with one side only where that saves 0.15 bits a position or more
/// (`--one-side --min-saving 0.15`): the same quiet positions, split by
/// whether their table is kept or left to the search, and the random mix.
/// The setup checks that every set answers alike.
fn bench_compacted(c: &mut Criterion) {
    let plain = tempfile::tempdir().expect("temp dir");
    generate(&GenOptions::new(plain.path(), RuleSet::Fmjd, 4)).expect("generation");
    let small = compacted_copy(plain.path(), gen::Sides::Both);
    let one = compacted_copy(plain.path(), gen::Sides::SMALLER_ONLY);
    let some = compacted_copy(plain.path(), gen::Sides::One { min_saving: 0.10 });
    let materials = ["KKM-K", "KM-KM", "MM-MM", "KMM-K", "KK-KM", "MMM-M"];
    let mut moves = Vec::new();
    let quiet = sample_where(&materials, 1000, |p| {
        !p.has_capture() && !p.with_side_to_move(rules::Color::Black).has_capture()
    });
    let threats = sample_where(&materials, 1000, |p| {
        format::is_searched_threat(p, &mut moves)
    });
    let mixed = sample_where(&materials, 1000, |_| true);
    let open = |dir: &Path| Tablebase::open(dir, RuleSet::Fmjd).unwrap();
    let (a, b) = (open(plain.path()), open(small.path()));
    let one_sided = [
        ("one_side", open(one.path()), &one),
        ("some_pairs", open(some.path()), &some),
    ];
    for p in quiet.iter().chain(&threats).chain(&mixed) {
        assert_eq!(a.probe_wdl(p, None).unwrap(), b.probe_wdl(p, None).unwrap());
        for (_, tb, _) in &one_sided {
            assert_eq!(
                a.probe_wdl(p, None).unwrap(),
                tb.probe_wdl(p, None).unwrap()
            );
        }
    }
    let mut group = c.benchmark_group("compacted");
    group.throughput(Throughput::Elements(1000));
    for (version, tb) in [("v1", &a), ("v2", &b)] {
        for (name, positions) in [("quiet", &quiet), ("threat", &threats), ("mixed", &mixed)] {
            group.bench_function(format!("{version}_{name}"), |bench| {
                bench.iter(|| probe_all(tb, positions))
            });
        }
    }
    for (set, tb, dir) in &one_sided {
        let left_out = |p: &Position| {
            let (m, _) = format::table_position(p);
            let folder = dir.path().join("fmjd");
            format::read_header(&format::table_path(&folder, m))
                .is_ok_and(|h| h.from_mirror || h.quiet_searched)
        };
        let (quiet_left_out, quiet_kept): (Vec<Position>, Vec<Position>) =
            quiet.iter().cloned().partition(|p| left_out(p));
        for (name, positions) in [
            ("quiet_kept", &quiet_kept),
            ("quiet_left_out", &quiet_left_out),
            ("mixed", &mixed),
        ] {
            if positions.is_empty() {
                continue;
            }
            group.throughput(Throughput::Elements(positions.len() as u64));
            group.bench_function(format!("{set}_{name}"), |bench| {
                bench.iter(|| probe_all(tb, positions))
            });
        }
    }
    group.throughput(Throughput::Elements(1000));
    for (version, dir) in [("v1", plain.path()), ("v2", small.path())] {
        let cold = Tablebase::open_with(dir, RuleSet::Fmjd, TablebaseOptions::with_cache_bytes(1))
            .unwrap();
        group.bench_function(format!("{version}_quiet_block_decode"), |bench| {
            bench.iter(|| probe_all(&cold, &quiet))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    bench_probe,
    bench_probe_dtc,
    bench_one_ply_search,
    bench_compacted
);
criterion_main!(benches);
