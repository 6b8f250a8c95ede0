//! Perft from the initial position, single-threaded and with rayon.
//!
//! The target is bulk perft(11) in at most 22 s single-threaded on
//! the 2-core CI machine. Depth 9 runs by default; set `DTB_BENCH_DEEP=1`
//! to time depth 11 too (10 samples of about 12 s each).

use criterion::{criterion_group, criterion_main, Criterion};
use rules::{perft, perft_parallel, Position};

fn bench_perft(c: &mut Criterion) {
    let pos = Position::initial();
    let mut depths = vec![9];
    if std::env::var_os("DTB_BENCH_DEEP").is_some() {
        depths.push(11);
    }
    let mut group = c.benchmark_group("perft_initial");
    group.sample_size(10);
    for depth in depths {
        group.bench_function(format!("single/{depth}"), |b| b.iter(|| perft(&pos, depth)));
        group.bench_function(format!("rayon/{depth}"), |b| {
            b.iter(|| perft_parallel(&pos, depth))
        });
    }
    group.finish();

    let woldouby: Position = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"
        .parse()
        .expect("valid FEN");
    c.bench_function("perft_woldouby/single/9", |b| {
        b.iter(|| perft(&woldouby, 9))
    });
    let kings: Position = "W:WK31-50:BK1-20".parse().expect("valid FEN");
    c.bench_function("perft_allkings/single/5", |b| b.iter(|| perft(&kings, 5)));
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
