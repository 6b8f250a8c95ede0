//! Block size and zstd level against table size and block decode time, on
//! real tables (built first: fmjd up to 4 pieces). Prints the bits per
//! position of each setting; criterion times one block decode.

use criterion::{criterion_group, criterion_main, Criterion};
use format::{Material, RuleSet, TableReader, TableSpec, TableWriter};
use gen::{generate, GenOptions};

fn rewrite(src: &[u8], dir: &std::path::Path, per_block: u32, level: i32) -> Vec<u8> {
    let reader = TableReader::new(src).expect("table");
    let h = reader.header().clone();
    let values = reader.decode_all().expect("decode");
    let path = dir.join(h.material.file_name());
    let _ = std::fs::remove_file(&path);
    let spec = TableSpec {
        positions_per_block: per_block,
        level,
        ..TableSpec::new(h.material, h.rule_set, h.value_kind)
    };
    let mut w = TableWriter::create(&path, spec).expect("writer");
    for v in values {
        w.push(Some(v)).expect("push");
    }
    w.finish(h.stats).expect("finish");
    std::fs::read(&path).expect("read back")
}

fn bench_blocks(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    generate(&GenOptions::new(dir.path(), RuleSet::Fmjd, 4)).expect("generation");
    let out = tempfile::tempdir().expect("temp dir");
    let mut group = c.benchmark_group("blocks");
    for name in ["KM-KM", "MM-MM", "KKM-K"] {
        let m: Material = name.parse().expect("material");
        let src = std::fs::read(dir.path().join("fmjd").join(m.file_name())).expect("table");
        for per_block in [4096u32, 16384, 65536] {
            for level in [3, 12, 19] {
                let bytes = rewrite(&src, out.path(), per_block, level);
                let reader = TableReader::new(&bytes[..]).expect("table");
                let positions = reader.header().position_count;
                eprintln!(
                    "{name} block {per_block} level {level}: {} bytes, {:.4} bits/position",
                    bytes.len(),
                    bytes.len() as f64 * 8.0 / positions as f64
                );
                if level != 12 {
                    continue;
                }
                let mut d = zstd::bulk::Decompressor::new().expect("zstd");
                let mut raw = Vec::new();
                let middle = reader.header().block_count / 2;
                group.bench_function(format!("decode/{name}/{per_block}"), |b| {
                    b.iter(|| {
                        reader
                            .decode_block(middle, &mut d, &mut raw)
                            .expect("decode")
                    })
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, bench_blocks);
criterion_main!(benches);
