//! Rank and unrank of the perfect index, nanoseconds per position.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use format::{Material, MaterialIndex, UnrankCursor};

fn bench_index(c: &mut Criterion) {
    let mut group = c.benchmark_group("index");
    for name in ["KKM-K", "KM-KM", "MMM-MM", "KKK-KK", "KMM-KMM"] {
        let m: Material = name.parse().expect("material");
        let index = MaterialIndex::new(m);
        let step = index.count() / 1000;
        let positions: Vec<_> = (0..1000).map(|k| index.unrank(k * step)).collect();
        group.throughput(Throughput::Elements(1000));
        group.bench_function(format!("rank/{name}"), |b| {
            b.iter(|| {
                positions
                    .iter()
                    .map(|p| index.rank(black_box(p)))
                    .sum::<u64>()
            })
        });
        group.bench_function(format!("unrank/{name}"), |b| {
            b.iter(|| {
                (0..1000)
                    .map(|k| index.unrank(black_box(k * step)).occupied().len())
                    .sum::<u32>()
            })
        });
        group.bench_function(format!("unrank_sequential/{name}"), |b| {
            let mut cursor = UnrankCursor::default();
            b.iter(|| {
                (0..1000u64)
                    .map(|k| {
                        index
                            .unrank_with(black_box(k), &mut cursor)
                            .occupied()
                            .len()
                    })
                    .sum::<u32>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_index);
criterion_main!(benches);
