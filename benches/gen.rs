//! Generation of every material up to 3 pieces (and up to 4 with
//! `DTB_BENCH_DEEP=1`; the target is under 30 s on 2 cores).

use criterion::{criterion_group, criterion_main, Criterion};
use format::RuleSet;
use gen::{generate, GenOptions};

fn bench_gen(c: &mut Criterion) {
    let mut group = c.benchmark_group("gen");
    group.sample_size(10);
    let mut sizes = vec![3];
    if std::env::var_os("DTB_BENCH_DEEP").is_some() {
        sizes.push(4);
    }
    for pieces in sizes {
        for rule_set in [RuleSet::Fmjd, RuleSet::Pure] {
            group.bench_function(format!("{rule_set}/up_to_{pieces}"), |b| {
                b.iter(|| {
                    let dir = tempfile::tempdir().expect("temp dir");
                    generate(&GenOptions::new(dir.path(), rule_set, pieces)).expect("generation")
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_gen);
criterion_main!(benches);
