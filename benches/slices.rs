//! One slice group (the slices of one advancement of a material pair):
//! the unit of work of the slice solver. Tables up to four pieces are built
//! first; the group is the middle one of `KM-KM` (and of `KKM-MM` with
//! `DTB_BENCH_DEEP=1`, which builds five pieces first).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use format::{Material, RuleSet};
use gen::{generate, GenOptions, SliceGroup};

fn bench_slice_group(c: &mut Criterion) {
    let deep = std::env::var_os("DTB_BENCH_DEEP").is_some();
    let dir = tempfile::tempdir().expect("temp dir");
    let pieces = if deep { 5 } else { 4 };
    generate(&GenOptions::new(dir.path(), RuleSet::Fmjd, pieces)).expect("generation");
    let mut group = c.benchmark_group("slices");
    group.sample_size(10);
    let mut names = vec!["KM-KM"];
    if deep {
        names.push("KKM-MM");
    }
    for name in names {
        let material: Material = name.parse().expect("material");
        // The middle group: the groups come most advanced first.
        let groups = (0..)
            .take_while(|&g| {
                SliceGroup::prepare(dir.path(), RuleSet::Fmjd, material, g)
                    .expect("prepare")
                    .is_some()
            })
            .count();
        let unit = SliceGroup::prepare(dir.path(), RuleSet::Fmjd, material, groups / 2)
            .expect("prepare")
            .expect("a group");
        group.throughput(Throughput::Elements(unit.positions()));
        group.bench_function(format!("{name}/group_{}_of_{groups}", groups / 2), |b| {
            b.iter(|| unit.solve().expect("solve"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_slice_group);
criterion_main!(benches);
