//! Probe latency: a non-capture position with its block cached, a capture
//! position (resolved by search), a probe that must decode its block, and
//! throughput on 1 and 2 threads. Builds the fmjd tables up to 4 pieces
//! first (about 20 s).

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

/// What a probe would cost if one side of a pair stored no WLD values
/// (issue 51): the one-ply search over the positions of four-piece pairs
/// outside the counted endings, against the direct probe of the same
/// positions (blocks cached). The setup checks that the search gives the
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

criterion_group!(benches, bench_probe, bench_probe_dtc, bench_one_ply_search);
criterion_main!(benches);
